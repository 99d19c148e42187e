// SPDX-License-Identifier: MIT
// Multi-device pools (kbx eval --gpus): the supervisor's slots, queue, health probes and failover.
// On the CPU the "devices" are slots that differ only in their environment, which is exactly the
// mechanism a GPU slot uses (CUDA_VISIBLE_DEVICES): a slot whose environment breaks the worker is a
// GPU that fell off the bus, as far as the supervisor can tell.
#include "itest.h"

#include "catalogue.h"
#include "evaluator.h"
#include "importers.h"
#include "paths.h"
#include "store.h"

#include <atomic>
#include <map>
#include <set>

namespace {
using namespace kbx_it;

std::vector<kbx::Submission> someGoodSubmissions(const kbx::TaskCatalogue& cat, int n)
{
    std::vector<kbx::Submission> subs;
    for (const char* stem : {"relu", "leaky_relu", "sigmoid", "tanh", "selu", "gelu"}) {
        if (static_cast<int>(subs.size()) >= n)
            break;
        auto more = kbx::loadSubmissions((kFixtures / "good" / "Activation" / (std::string(stem) + ".py")).string(), cat);
        subs.insert(subs.end(), more.begin(), more.end());
    }
    return subs;
}

kbx::WorkerConfig worker()
{
    kbx::WorkerConfig wc;
    wc.worker = KBX_WORKER_BIN;
    return wc;
}

kbx::EvalOptions cpuOptions()
{
    kbx::EvalOptions o;
    o.device = kbx::Device::Cpu;
    o.jobs = 1;
    o.sandbox = kbx::SandboxMode::None;  // the flaky slot's PYTHONPATH lives under /tmp, which bwrap replaces
    o.secretSeed = 7;
    return o;
}

std::map<std::string, int> slotsUsed(kbx::Store& store, std::int64_t runId)
{
    std::map<std::string, int> used;
    for (const auto& r : store.query("SELECT json_extract(evidence, '$.device_slot.slot') AS s FROM evaluations WHERE run_id = " +
                                     std::to_string(runId)))
        used[r["s"].is_string() ? r["s"].get<std::string>() : std::string("(none)")]++;
    return used;
}

TEST(MultiGpu, GpuSlotsSetCudaVisibleDevicesAndRefuseDuplicates)
{
    auto s = kbx::gpuSlots({"0", "GPU-1a2b", ""});
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].name, "0");
    EXPECT_EQ(s[0].env.at("CUDA_VISIBLE_DEVICES"), "0");
    EXPECT_EQ(s[1].env.at("CUDA_VISIBLE_DEVICES"), "GPU-1a2b");
    EXPECT_THROW(kbx::gpuSlots({"1", "1"}), std::invalid_argument);
}

TEST(MultiGpu, WorkIsSpreadOverSlotsAndRecordedPerEvaluation)
{
    if (device() != "cpu")
        GTEST_SKIP() << "CPU slots";
    auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
    const auto dbPath = tempPath("multi-spread.sqlite");
    kbx::Store store(dbPath);
    auto opt = cpuOptions();
    opt.deviceSlots = {{"a", {{"KBX_TEST_SLOT", "a"}}}, {"b", {{"KBX_TEST_SLOT", "b"}}}};
    auto subs = someGoodSubmissions(cat, 4);
    ASSERT_EQ(subs.size(), 4u);
    kbx::Evaluator ev(cat, store, worker(), opt);
    auto sum = ev.run(subs, nullptr);
    EXPECT_EQ(sum.passed, 4) << sum.provenance.dump();
    EXPECT_EQ(sum.harnessErrors, 0);
    ASSERT_TRUE(sum.provenance.contains("slots"));
    EXPECT_EQ(sum.provenance["slots"].size(), 2u);
    auto used = slotsUsed(store, sum.runId);
    EXPECT_EQ(used["a"] + used["b"], 4);
    EXPECT_GE(used["a"], 1);  // both pools took work
    EXPECT_GE(used["b"], 1);
    fs::remove(dbPath);
}

TEST(MultiGpu, ASlotThatCannotStartIsLeftOutFromTheStart)
{
    if (device() != "cpu")
        GTEST_SKIP() << "CPU slots";
    auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
    const auto dbPath = tempPath("multi-dead.sqlite");
    kbx::Store store(dbPath);
    auto opt = cpuOptions();
    // An interpreter that cannot start: the worker dies before its hello, as on a device that is gone.
    opt.deviceSlots = {{"good", {}}, {"dead", {{"PYTHONHOME", "/nonexistent/kbx-dead-slot"}}}};
    auto subs = someGoodSubmissions(cat, 3);
    kbx::Evaluator ev(cat, store, worker(), opt);
    auto sum = ev.run(subs, nullptr);
    EXPECT_EQ(sum.passed, 3);
    EXPECT_EQ(sum.harnessErrors, 0);
    ASSERT_EQ(sum.provenance["slots"].size(), 2u);
    EXPECT_FALSE(sum.provenance["slots"][0].contains("unhealthy"));
    EXPECT_TRUE(sum.provenance["slots"][1].contains("unhealthy")) << sum.provenance["slots"].dump();
    auto used = slotsUsed(store, sum.runId);
    EXPECT_EQ(used["good"], 3);
    EXPECT_EQ(used.count("dead"), 0u);
    fs::remove(dbPath);
}

TEST(MultiGpu, ASlotThatDiesMidRunHandsItsWorkToTheOthers)
{
    if (device() != "cpu")
        GTEST_SKIP() << "CPU slots";
    auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
    const auto dbPath = tempPath("multi-flaky.sqlite");
    const auto site = tempPath("multi-flaky-site");
    fs::create_directories(site);
    const auto marker = site / "dead";
    {
        // Healthy until the marker exists; then every Python start on this slot ends at once.
        std::ofstream(site / "sitecustomize.py") << "import os\nif os.path.exists(" << nlohmann::json(marker.string()).dump()
                                                 << "):\n    os._exit(3)\n";
    }
    kbx::Store store(dbPath);
    auto opt = cpuOptions();
    opt.deviceSlots = {{"steady", {}}, {"flaky", {{"PYTHONPATH", site.string()}}}};
    auto subs = someGoodSubmissions(cat, 6);
    ASSERT_EQ(subs.size(), 6u);
    kbx::Evaluator ev(cat, store, worker(), opt);
    std::atomic<int> seen{0};
    auto sum = ev.run(subs, [&](const kbx::Outcome&, int, int) {
        if (++seen == 1)
            std::ofstream(marker) << "gone\n";
    });
    EXPECT_EQ(sum.passed, 6) << "harness errors: " << sum.harnessErrors;
    EXPECT_EQ(sum.harnessErrors, 0);
    auto used = slotsUsed(store, sum.runId);
    EXPECT_EQ(used["steady"] + used["flaky"], 6);
    EXPECT_LE(used["flaky"], 2);  // at most what it finished before (and while) the marker appeared
    auto run = store.query("SELECT provenance FROM runs WHERE id = " + std::to_string(sum.runId));
    ASSERT_EQ(run.size(), 1u);
    auto prov = nlohmann::json::parse(run[0]["provenance"].get<std::string>());
    EXPECT_TRUE(prov["slots"][1].value("left_pool", false)) << prov["slots"].dump();
    fs::remove(dbPath);
    fs::remove_all(site);
}

}  // namespace
