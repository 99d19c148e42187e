// SPDX-License-Identifier: MIT
// The correctness queue's order (core/scheduler): longest expected work first; the pool's tail work.
#include "catalogue.h"
#include "correctness_stage.h"
#include "importers.h"
#include "result_sink.h"
#include "scheduler.h"
#include "store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
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

TEST_F(QueueFixture, TheExpectedSecondsFollowTheSubmissionsAndSelectTheCriticalPath)
{
    // The queue's cost per submission (in the submissions' order, not the queue's) is what
    // criticalPath selects from: Reduce/add is expected to take 30 s of a stage whose work, 37 s in
    // all, two threads share.
    std::ofstream(dir / "tasks" / "queue_prior.json") << R"({"seconds": {"Reduce/add": 30.0, "Math/add": 5.0}})";
    const auto cat = TaskCatalogue::load(dir / "tasks");
    Store store(dir / "db.sqlite");
    std::vector<double> expected;
    const auto q = correctnessQueue(subs(), cat, store, true, &expected);
    ASSERT_EQ(expected.size(), 3u);
    EXPECT_DOUBLE_EQ(expected[2], 30.0);
    EXPECT_DOUBLE_EQ(expected[1], 5.0);
    EXPECT_EQ(q.front(), 2u);
    EXPECT_EQ(criticalPath(expected, 2), (std::vector<bool>{false, false, true}));
    // an unordered queue (one job) has no expected seconds, and no critical path
    std::vector<double> none;
    correctnessQueue(subs(), cat, store, false, &none);
    EXPECT_TRUE(none.empty());
    EXPECT_TRUE(criticalPath(none, 1).empty());
}

TEST(CriticalPath, ATaskOfAThirdOfTheStageOrMoreIsOnIt)
{
    // The stage's expected wall: the work over the threads, or the longest evaluation when longer.
    // 50 evaluations of 10 s on 14 threads: 35.7 s, none of them a third of it.
    EXPECT_EQ(criticalPath(std::vector<double>(50, 10.0), 14), std::vector<bool>(50, false));
    // One of 40 s among them (the wall: 40 s, more than 533 s / 14): on it; one of 13.5 s (a third: 13.3 s) too.
    std::vector<double> c(50, 10.0);
    c[7] = 40.0;
    c[9] = 13.5;
    auto cp = criticalPath(c, 14);
    EXPECT_TRUE(cp[7]);
    EXPECT_TRUE(cp[9]);
    EXPECT_EQ(std::count(cp.begin(), cp.end(), true), 2);
    // The longest sets the wall when it exceeds the shared work: 100 s against 2 x 10 s on 14
    // threads; a third of 100 s is more than 10 s.
    EXPECT_EQ(criticalPath({10.0, 100.0, 10.0}, 14), (std::vector<bool>{false, true, false}));
    // Fewer evaluations than threads, all alike: every one ends the stage.
    EXPECT_EQ(criticalPath({5.0, 5.0}, 14), (std::vector<bool>{true, true}));
    // Zero threads count as one.
    EXPECT_EQ(criticalPath({1.0, 3.0}, 0), (std::vector<bool>{false, true}));
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

TEST(CorrectnessPool, ThreadsThatFindTheQueueEmptyTakeTheTailWorkAndThenEnd)
{
    // Tail work (the perf shapes' precompiles of candidates that passed while the queue was full) is
    // taken only by threads that found the queue empty, never before the last submission was
    // taken, and every piece of it is done before the pool returns, including pieces added by an
    // evaluation that ends after other threads already found the queue empty.
    std::vector<Submission> subs(6);
    for (std::size_t i = 0; i < subs.size(); ++i)
        subs[i].taskId = "Math/add";
    Slots slots;
    slots.push_back(std::make_unique<Slot>(0, DeviceSlot{}));
    RunSummary sum;
    Evaluator::ProgressFn progress = [](const Outcome&, int, int) {};
    RunTally tally(sum, subs.size(), progress);
    std::mutex m;
    std::vector<int> pending;  // a passing submission's tail work
    std::atomic<bool> tailBeforeDrained{false};
    std::vector<int> tailDone;
    auto evaluate = [&](std::size_t i, Slot&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(i == 0 ? 150 : 10));  // the first is the long one
        Outcome o;
        o.taskId = subs[i].taskId;
        o.record.pass = true;
        std::lock_guard g(m);
        pending.push_back(static_cast<int>(i));
        return o;
    };
    auto tail = [&](Slot& s) {
        if (!s.queueDrained.load())  // set under the queue's lock as the last submission is taken
            tailBeforeDrained = true;
        std::lock_guard g(m);
        if (pending.empty())
            return false;
        tailDone.push_back(pending.back());
        pending.pop_back();
        return true;
    };
    std::deque<std::size_t> queue{0, 1, 2, 3, 4, 5};
    runCorrectnessPool(subs, queue, slots, 3, false, evaluate, [](const Slot&, nlohmann::json*) { return std::string(); }, tally,
                       nullptr, tail);
    EXPECT_FALSE(tailBeforeDrained.load());
    std::sort(tailDone.begin(), tailDone.end());
    EXPECT_EQ(tailDone, (std::vector<int>{0, 1, 2, 3, 4, 5})) << "the long first evaluation's tail work is done too";
    EXPECT_TRUE(pending.empty());
    EXPECT_EQ(sum.passed, 6);
}

// Issue 22's autotune sweep reaches every config a candidate's @triton.autotune declares up to
// kMaxAutotuneSweepConfigs (the largest count over its kernels); beyond it `declared` keeps the count
// so the evidence and kbx show name the configs not swept. A record without counts sweeps nothing.
TEST(AutotuneSweepPlan, EveryDeclaredConfigUpToTheCapAndTheDeclaredCountBeyondIt)
{
    using kbx::autotuneSweepPlan;
    const auto none = autotuneSweepPlan(nlohmann::json::object());
    EXPECT_EQ(none.configs, 1);
    EXPECT_EQ(none.declared, 1);
    EXPECT_EQ(autotuneSweepPlan(nlohmann::json()).configs, 1);
    const auto four = autotuneSweepPlan({{"_k", {{"configs", 4}}}});
    EXPECT_EQ(four.configs, 4);
    EXPECT_EQ(four.declared, 4);
    // 17-32: swept in full (the cap was 16 before; a real kernel's list of 20 configs went unchecked past 16).
    EXPECT_EQ(autotuneSweepPlan({{"_k", {{"configs", 20}}}}).configs, 20);
    const auto many = autotuneSweepPlan({{"_a", {{"configs", 3}}}, {"_b", {{"configs", 40}}}, {"_c", "junk"}, {"_d", {{"configs", "9"}}}});
    EXPECT_EQ(many.configs, kbx::kMaxAutotuneSweepConfigs);
    EXPECT_EQ(many.declared, 40);
    EXPECT_EQ(autotuneSweepPlan({{"_k", {{"configs", -5}}}}).configs, 1);
}
