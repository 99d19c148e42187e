// SPDX-License-Identifier: MIT
// The perf stage's shape summaries (core/perf_summary): flags from what the timer measured.
#include "perf_stage.h"
#include "perf_summary.h"
#include "perfconfig.h"
#include "scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

using nlohmann::json;

namespace {

/// One process's frame of one shape: samples around `ms` on each side, the timer's host probes.
json shapeFrame(const std::string& shape, double ms, const json& hostSync, double enqueueUs, double jitter, double refEnqueueUs = 10.0)
{
    json c = json::array(), r = json::array();
    for (int i = 0; i < 20; ++i) {
        c.push_back(ms * (1.0 + jitter * ((i % 5) - 2)));
        r.push_back(2 * ms * (1.0 + jitter * ((i % 3) - 1)));
    }
    return {{"shape", shape},
            {"samples_ms", {{"candidate", c}, {"reference", r}}},
            {"reps", 20},
            {"host_sync", hostSync},
            {"host_enqueue_us", {{"candidate", enqueueUs}, {"reference", refEnqueueUs}}}};
}

kbx::PerfShapes summarize(const std::vector<json>& perProcessFrame)
{
    std::vector<kbx::PerfProcess> procs(perProcessFrame.size());
    for (std::size_t p = 0; p < procs.size(); ++p)
        procs[p].shapes = {perProcessFrame[p]};
    const auto cfg = kbx::PerfConfig::defaults(kbx::Device::Cuda);
    return kbx::summarizeShapes(procs, procs.size(), json::object(), json(), false, 7, cfg);
}

bool hasFlag(const kbx::PerfShapes& s, const std::string& f)
{
    for (const auto& x : s.flags)
        if (x.get<std::string>() == f)
            return true;
    return false;
}

}  // namespace

TEST(PerfSummary, ACallThatWaitsForTheDeviceIsFlaggedWithItsHostShare)
{
    // Issue 22: a candidate whose call waits for the device inside has host time in its samples.
    const json sync = {{"candidate", true}, {"reference", false}};
    const auto s = summarize({shapeFrame("big", 3.0, sync, 2400.0, 0.001), shapeFrame("big", 3.0, sync, 2700.0, 0.001)});
    ASSERT_TRUE(hasFlag(s, "host_in_timing:big")) << s.flags.dump();
    ASSERT_EQ(s.rows.size(), 1u);
    const auto& hit = s.rows[0].samples["host_in_timing"];
    EXPECT_NEAR(hit["host_share"].get<double>(), 0.9, 0.01) << hit.dump();  // the larger process: 2700 us of 3 ms
    EXPECT_TRUE(hit["waits_for_device"].get<bool>());
}

TEST(PerfSummary, AnAsynchronousCallIsNotFlaggedHowEverLongItsEnqueue)
{
    // A launch-bound kernel (enqueue longer than its device time) that does not wait: the timer's
    // launch gap keeps the host out of its samples.
    const json async = {{"candidate", false}, {"reference", false}};
    const auto s = summarize({shapeFrame("tiny", 0.007, async, 90.0, 0.001), shapeFrame("tiny", 0.007, async, 95.0, 0.001)});
    EXPECT_FALSE(hasFlag(s, "host_in_timing:tiny")) << s.flags.dump();
    EXPECT_FALSE(s.rows[0].samples.contains("host_in_timing"));
}

TEST(PerfSummary, ASlowUnprobedCallCountsWhenTheHostSpentHalfItsTime)
{
    // Too slow to probe (host_sync null): flagged when the host's time in one call is at least half
    // of the device time, not otherwise.
    const json unprobed = {{"candidate", nullptr}, {"reference", nullptr}};
    const auto slowHost = summarize({shapeFrame("s", 400.0, unprobed, 420000.0, 0.001), shapeFrame("s", 400.0, unprobed, 410000.0, 0.001)});
    EXPECT_TRUE(hasFlag(slowHost, "host_in_timing:s")) << slowHost.flags.dump();
    const auto deviceBound = summarize({shapeFrame("s", 400.0, unprobed, 900.0, 0.001), shapeFrame("s", 400.0, unprobed, 950.0, 0.001)});
    EXPECT_FALSE(hasFlag(deviceBound, "host_in_timing:s")) << deviceBound.flags.dump();
}

TEST(PerfSummary, AnEagerCallThatWaitsForTheDeviceIsFlaggedAsTheBaselines)
{
    // The other side: eager's own call waits for the device (a host loop over many small launches),
    // so the speedup's denominator holds host time. Flagged apart from the candidate's.
    const json sync = {{"candidate", false}, {"reference", true}};
    const auto s = summarize({shapeFrame("mlp", 0.33, sync, 1400.0, 0.001, 2900.0), shapeFrame("mlp", 0.33, sync, 1600.0, 0.001, 3100.0)});
    EXPECT_TRUE(hasFlag(s, "baseline_host_in_timing:mlp")) << s.flags.dump();
    EXPECT_FALSE(hasFlag(s, "host_in_timing:mlp")) << s.flags.dump();
    const auto& hit = s.rows[0].samples["baseline_host_in_timing"];
    EXPECT_NEAR(hit["host_share"].get<double>(), 3100.0 / 660.0, 0.05) << hit.dump();  // eager's samples are 2x the candidate's
    EXPECT_TRUE(hit["waits_for_device"].get<bool>());
    // Neither side waits: no flag, however long eager's enqueue.
    const json async = {{"candidate", false}, {"reference", false}};
    const auto q = summarize({shapeFrame("mlp", 0.33, async, 100.0, 0.001, 2900.0), shapeFrame("mlp", 0.33, async, 100.0, 0.001, 2900.0)});
    EXPECT_FALSE(hasFlag(q, "baseline_host_in_timing:mlp")) << q.flags.dump();
}

namespace {

/// P processes of three shapes whose samples differ per process (the process index moves them).
std::vector<kbx::PerfProcess> threeShapeProcesses(std::size_t P)
{
    const json async = {{"candidate", false}, {"reference", false}};
    std::vector<kbx::PerfProcess> procs(P);
    for (std::size_t p = 0; p < P; ++p)
        for (const auto& [name, ms] : std::vector<std::pair<std::string, double>>{{"a", 0.05}, {"b", 0.4}, {"c", 2.0}})
            procs[p].shapes.push_back(shapeFrame(name, ms * (1.0 + 0.003 * static_cast<double>(p)), async, 20.0, 0.002 + 0.001 * static_cast<double>(p)));
    return procs;
}

/// The stored summary of these processes: the timings rows' samples and the evidence.
json summaryOf(const std::vector<kbx::PerfProcess>& procs, kbx::perf::BootstrapMemo* memo)
{
    const auto cfg = kbx::PerfConfig::defaults(kbx::Device::Cuda);
    json ev = json::object();
    auto shapes = kbx::summarizeShapes(procs, procs.size(), ev, json(), false, 11, cfg, memo);
    kbx::geomeanSummary(ev, shapes, procs.size(), 11, cfg, [] { return std::make_pair(kbx::perf::Interval{1.0, 0.98, 1.02}, std::string()); }, memo);
    json rows = json::array();
    for (const auto& r : shapes.rows)
        rows.push_back({{"shape", r.shape},
                        {"candidate_ms", r.candidateMs ? json(*r.candidateMs) : json()},
                        {"baseline_ms", r.baselineMs ? json(*r.baselineMs) : json()},
                        {"samples", r.samples}});
    return {{"rows", rows}, {"evidence", ev}};
}

}  // namespace

TEST(PerfSummary, AKernelsLaterSummariesReuseItsProcessesIntervalsAndReportTheSame)
{
    // The perf stage summarises a kernel's processes once per extra-process decision and at the end
    // (PerfStage::repeatWidth, runPerf): what a process's intervals depend on is its own samples, so
    // a memo bootstraps each once and every summary is the one computed without it.
    const auto three = threeShapeProcesses(3), four = threeShapeProcesses(4);
    kbx::perf::BootstrapMemo memo;
    EXPECT_EQ(summaryOf(three, &memo), summaryOf(three, nullptr));
    const auto afterThree = memo.computed();
    EXPECT_EQ(afterThree, 3u * 3u + 3u) << "a speedup interval per shape and process, a geomean interval per process";
    EXPECT_EQ(memo.reused(), 0u);

    EXPECT_EQ(summaryOf(three, &memo), summaryOf(three, nullptr)) << "the final summary of the same processes";
    EXPECT_EQ(memo.computed(), afterThree) << "nothing bootstrapped twice";
    EXPECT_EQ(memo.reused(), afterThree);

    EXPECT_EQ(summaryOf(four, &memo), summaryOf(four, nullptr)) << "one more process";
    EXPECT_EQ(memo.computed(), afterThree + 3u + 1u) << "only the new process's intervals";
}

TEST(PerfSummary, TheMemoTellsApartInputsThatDifferInOneSampleOrTheSeed)
{
    kbx::perf::BootstrapMemo memo;
    std::vector<double> c = {1.0, 1.1, 0.9, 1.05, 0.95}, r = {2.0, 2.1, 1.9, 2.2, 1.8};
    EXPECT_EQ(memo.speedupCI(c, r, 3).hi, kbx::perf::speedupCI(c, r, 3).hi);
    auto c2 = c;
    c2[4] = 0.5;
    const auto other = memo.speedupCI(c2, r, 3), fresh = kbx::perf::speedupCI(c2, r, 3);
    EXPECT_EQ(other.estimate, fresh.estimate);
    EXPECT_EQ(other.lo, fresh.lo);
    EXPECT_EQ(memo.speedupCI(c, r, 4).lo, kbx::perf::speedupCI(c, r, 4).lo);
    EXPECT_EQ(memo.computed(), 3u);
    EXPECT_EQ(memo.speedupCI(c, r, 3).lo, kbx::perf::speedupCI(c, r, 3).lo);
    EXPECT_EQ(memo.reused(), 1u);
    // A geomean over one shape is not the shape's interval (another bootstrap): kept apart.
    memo.geomeanSpeedupCI({c}, {r}, 3);
    EXPECT_EQ(memo.computed(), 4u);
}

namespace {
/// A process's frame of one shape timed in three blocks of 10 pairs with the parity-balance groups:
/// the candidate at 6.4 us in the blocks of one launch parity and 7.0 in the other's, `start` saying
/// which (two blocks at it: the plain median sits at that level); eager at 10 us throughout.
json groupedFrame(int start)
{
    json c = json::array(), r = json::array(), gc = json::array();
    for (int b = 0; b < 3; ++b)
        for (int j = 0; j < 10; ++j) {
            const int parity = (start + b) % 2;  // a pair of an even number of kernels: the blocks alternate
            c.push_back((parity ? 0.0070 : 0.0064) * (1.0 + 0.0005 * (j % 3)));
            r.push_back(0.010 * (1.0 + 0.0005 * (j % 4)));
            gc.push_back(2 * (b % 2) + j % 2);
        }
    return {{"shape", "1M"}, {"samples_ms", {{"candidate", c}, {"reference", r}}}, {"reps", 30},
            {"parity_groups", {{"candidate", gc}, {"reference", gc}}}};
}

kbx::PerfShapes summarizeBalanced(int parityBalance)
{
    // Three processes: two started at one parity, one at the other (a run's plain medians disagree).
    std::vector<kbx::PerfProcess> procs(3);
    for (std::size_t p = 0; p < procs.size(); ++p)
        procs[p].shapes = {groupedFrame(p == 2 ? 1 : 0)};
    auto cfg = kbx::PerfConfig::defaults(kbx::Device::Cuda);
    cfg.parityBalance = parityBalance;
    return kbx::summarizeShapes(procs, procs.size(), json::object(), json(), false, 7, cfg);
}
}  // namespace

TEST(PerfSummary, TheFourGroupMediansAreStoredBesideThePlainOnesOrUsedWhenAsked)
{
    const double G = std::sqrt(0.0064 * 0.0070);
    // parity_balance 1: the plain medians decide; each process's four-group ones beside them.
    const auto one = summarizeBalanced(1);
    ASSERT_EQ(one.rows.size(), 1u);
    const auto& pp1 = one.rows[0].samples["per_process"];
    ASSERT_EQ(pp1.size(), 3u);
    EXPECT_NEAR(pp1[0]["candidate_ms"].get<double>(), 0.0064, 1e-5) << pp1.dump();  // the start parity's level
    EXPECT_NEAR(pp1[2]["candidate_ms"].get<double>(), 0.0070, 1e-5) << pp1.dump();
    for (const auto& p : pp1) {
        EXPECT_NEAR(p["parity_balance"]["candidate_ms"].get<double>(), G, 1e-5) << p.dump();
        EXPECT_FALSE(p.contains("estimator")) << p.dump();
    }
    EXPECT_FALSE(one.rows[0].samples.contains("samples_aligned"));
    // parity_balance 2: every statistic on the aligned samples: the processes agree at G; the plain
    // medians and the raw samples are kept.
    const auto two = summarizeBalanced(2);
    const auto& pp2 = two.rows[0].samples["per_process"];
    for (std::size_t p = 0; p < pp2.size(); ++p) {
        EXPECT_NEAR(pp2[p]["candidate_ms"].get<double>(), G, 2e-5) << pp2.dump();
        EXPECT_EQ(pp2[p]["estimator"], "four_groups");
        EXPECT_NEAR(pp2[p]["plain"]["candidate_ms"].get<double>(), p == 2 ? 0.0070 : 0.0064, 1e-5) << pp2.dump();
    }
    EXPECT_NEAR(two.rows[0].candidateMs.value_or(0.0), G, 2e-5);
    EXPECT_EQ(two.rows[0].samples["samples_aligned"], "four_groups");
    EXPECT_EQ(two.rows[0].samples["candidate_ms_raw"].size(), 90u);
    // The plain run's processes disagree by ~9 %, the aligned ones agree: the repeat interval narrows.
    const auto w = [](const kbx::PerfShapes& s) {
        const auto& sp = s.rows[0].samples["speedup"];
        return (sp["hi"].get<double>() - sp["lo"].get<double>()) / sp["estimate"].get<double>();
    };
    EXPECT_GT(w(one), 0.05);
    EXPECT_LT(w(two), 0.03);
}

// The roofline's peaks come from the frame the calibrating worker sends before it imports the
// candidate; a later frame or the result (after the candidate ran in that process) cannot set them.
TEST(CalibratedPeaks, TheFirstPeaksFrameCountsNothingAfterIt)
{
    const json measured = {{"copy_gbs", 2948.0}, {"fp32_tflops", 51.9}};
    const std::vector<json> frames = {
        {{"type", "hello"}},
        {{"type", "peaks"}, {"peaks", measured}},
        {{"type", "shape"}, {"name", "1M_f32"}},
        {{"type", "peaks"}, {"peaks", {{"copy_gbs", 1e9}}}},
        {{"type", "result"}, {"ok", true}, {"peaks", {{"copy_gbs", 1e9}}}},
    };
    EXPECT_EQ(kbx::calibratedPeaks(frames), measured);
    // A worker that sent none (it was not asked, or died first): a result's peaks are not taken.
    EXPECT_TRUE(kbx::calibratedPeaks({frames[0], frames[2], frames[4]}).is_null());
    // A calibration that failed says so in its frame: kept as measured, so the run does not retry it.
    const json failed = {{"error", "RuntimeError: no copy-bandwidth trial ran"}};
    EXPECT_EQ(kbx::calibratedPeaks({frames[0], {{"type", "peaks"}, {"peaks", failed}}}), failed);
    EXPECT_TRUE(kbx::calibratedPeaks({{{"type", "peaks"}, {"peaks", "not an object"}}, frames[1]}).is_null());
}

// The calibrating worker's peaks reach the slot as its frame arrives, and an evaluation that ends
// before it waits for them: no timing misses its rooflines by ending first (an H100 known-good run
// stored the first-timed evaluation without peaks while the calibrating one was still timing).
TEST(AwaitPeaks, AnEvaluationThatEndsFirstWaitsForTheCalibratingWorkersFrame)
{
    kbx::Slot slot(0, {});
    slot.calibrating = true;  // another evaluation's first worker was asked to calibrate
    const json measured = {{"copy_gbs", 2985.9}, {"fp32_tflops", 51.5}};
    std::atomic<bool> returned{false};
    json got;
    std::thread waiter([&] {
        got = kbx::awaitPeaks(slot, /*calibrated=*/false, /*sentPeaks=*/false, [] { return false; });
        returned = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(returned.load()) << "it returned before the calibrating worker's frame came";
    kbx::publishCalibration(slot, {{"type", "peaks"}, {"peaks", measured}});
    waiter.join();
    EXPECT_EQ(got, measured);
    // The calibrating evaluation itself, and every later one, gets the same without waiting.
    EXPECT_EQ(kbx::awaitPeaks(slot, true, true, {}), measured);
    EXPECT_EQ(kbx::awaitPeaks(slot, false, false, {}), measured);
}

TEST(AwaitPeaks, AWorkerThatDiesBeforeItsFrameReleasesTheWaitersAndTheNextOneCalibrates)
{
    kbx::Slot slot(0, {});
    slot.calibrating = true;
    json got = "unset";
    std::thread waiter([&] { got = kbx::awaitPeaks(slot, false, false, [] { return false; }); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    // The calibrating evaluation ends: its first worker never sent its frame.
    EXPECT_TRUE(kbx::awaitPeaks(slot, /*calibrated=*/true, /*sentPeaks=*/false, {}).is_null());
    waiter.join();
    EXPECT_TRUE(got.is_null());
    EXPECT_FALSE(slot.calibrating) << "the next perf worker is asked to calibrate";
}

TEST(AwaitPeaks, TheCpusEmptyFrameEndsTheWaitAndAnEarlierCalibratorDoesNotClearALaterOne)
{
    kbx::Slot slot(0, {});
    slot.calibrating = true;
    json got = "unset";
    std::thread waiter([&] { got = kbx::awaitPeaks(slot, false, false, [] { return false; }); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kbx::publishCalibration(slot, {{"type", "peaks"}, {"peaks", json::object()}});  // no peaks on the CPU
    waiter.join();
    EXPECT_TRUE(got.is_null());
    EXPECT_FALSE(slot.calibrating);
    // A later evaluation is asked to calibrate; the earlier one, whose worker did send its (empty)
    // frame, ends meanwhile and must not clear the later one's calibration.
    slot.calibrating = true;
    kbx::awaitPeaks(slot, /*calibrated=*/true, /*sentPeaks=*/true, [] { return true; });
    EXPECT_TRUE(slot.calibrating);
}

TEST(AwaitPeaks, ACancelledRunStopsWaiting)
{
    kbx::Slot slot(0, {});
    slot.calibrating = true;
    std::atomic<bool> cancel{false};
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        cancel = true;
    });
    EXPECT_TRUE(kbx::awaitPeaks(slot, false, false, [&] { return cancel.load(); }).is_null());
    canceller.join();
}
