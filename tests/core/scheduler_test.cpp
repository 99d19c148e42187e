// SPDX-License-Identifier: MIT
// The correctness queue's order (core/scheduler): longest expected work first.
#include "catalogue.h"
#include "importers.h"
#include "scheduler.h"
#include "store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace fs = std::filesystem;
using namespace kbx;

namespace {

struct QueueFixture : ::testing::Test {
    fs::path dir;
    void SetUp() override
    {
        dir = fs::temp_directory_path() / ("kbx-queue-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir);
        fs::create_directories(dir / "tasks");
        fs::copy_file(fs::path(KBX_TEST_DATA) / "tasks" / "index.json", dir / "tasks" / "index.json");
    }
    void TearDown() override { fs::remove_all(dir); }

    std::vector<std::string> order(const std::vector<Submission>& subs)
    {
        const auto cat = TaskCatalogue::load(dir / "tasks");
        Store store(dir / "db.sqlite");
        std::vector<std::string> out;
        for (auto i : correctnessQueue(subs, cat, store, true))
            out.push_back(subs[i].taskId);
        return out;
    }
    static std::vector<Submission> subs()
    {
        auto sub = [](const char* task, const char* code, const char* origin) {
            Submission s;
            s.taskId = task;
            s.code = code;
            s.origin = origin;
            return s;
        };
        return {sub("Activation/relu", "def relu(x): pass\n", "a"), sub("Math/add", "def add(a, b): pass\n", "b"),
                sub("Reduce/add", "def add(x): pass\n", "c")};
    }
};

}  // namespace

TEST_F(QueueFixture, AFreshDatabaseOrdersByTheBundledPrior)
{
    // Issue 22: a fresh database's run ended with its longest kernel, started late; the seconds its
    // task's own solutions took in `kbx tasks --check` put it first.
    std::ofstream(dir / "tasks" / "queue_prior.json") << R"({"seconds": {"Reduce/add": 30.0, "Math/add": 5.0}})";
    EXPECT_EQ(order(subs()), (std::vector<std::string>{"Reduce/add", "Math/add", "Activation/relu"}));
}

TEST_F(QueueFixture, WithoutAPriorTheDifficultyOrders)
{
    // Equal difficulty: the input's order stands.
    EXPECT_EQ(order(subs()), (std::vector<std::string>{"Activation/relu", "Math/add", "Reduce/add"}));
    EXPECT_TRUE(queuePrior(dir / "tasks").empty());
}

TEST_F(QueueFixture, ABrokenPriorOrdersNothing)
{
    std::ofstream(dir / "tasks" / "queue_prior.json") << R"({"seconds": {"Reduce/add": 30.0,)";
    EXPECT_TRUE(queuePrior(dir / "tasks").empty());
    EXPECT_EQ(order(subs()), (std::vector<std::string>{"Activation/relu", "Math/add", "Reduce/add"}));
}

TEST_F(QueueFixture, AnAutotunedCandidateGoesAheadOfItsTask)
{
    // Its configs (counted in its source) are compiled for every new key in its correctness stage.
    auto s = subs();
    s[0].code = "@triton.autotune(configs=[triton.Config({}), triton.Config({}), triton.Config({})], key=['n'])\n";
    std::ofstream(dir / "tasks" / "queue_prior.json") << R"({"seconds": {"Reduce/add": 5.0, "Math/add": 3.0, "Activation/relu": 1.0}})";
    EXPECT_EQ(order(s), (std::vector<std::string>{"Activation/relu", "Reduce/add", "Math/add"}));  // 1 + 3 x 2 s
}
