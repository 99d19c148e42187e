// SPDX-License-Identifier: MIT
// The words for a stored perf result (core/perfdescribe.h), as the Performance tab and kbx show print them.
#include "perfdescribe.h"

#include <gtest/gtest.h>

using nlohmann::json;
using namespace kbx::perf;

TEST(PerfDescribe, DurationsInTheirUnit)
{
    EXPECT_EQ(formatMs(0.06026), "60.26 µs");
    EXPECT_EQ(formatMs(0.2295), "229.5 µs");
    EXPECT_EQ(formatMs(4.2571), "4.257 ms");
    EXPECT_EQ(formatMs(60.0), "60.0 ms");
    EXPECT_EQ(formatMs(1250.0), "1.25 s");
    EXPECT_EQ(formatMs(0.0), "—");
}

TEST(PerfDescribe, LaunchGapSaysWhenStarvedSamplesWidenedIt)
{
    EXPECT_EQ(launchGapText(json{{"launch_gap_us", 404.0}, {"launch_gap_start_us", 404.0}}), "404 µs");
    EXPECT_EQ(launchGapText(json{{"launch_gap_us", 394.0}, {"launch_gap_start_us", 197.0}}), "197 → 394 µs");
    EXPECT_EQ(launchGapText(json{{"launch_gap_us", 404.0}}), "404 µs") << "a database from before launch_gap_start_us";
    EXPECT_EQ(launchGapText(json{{"launch_gap_us", 0.0}}), "—") << "the CPU";
    EXPECT_EQ(launchGapText(json::object()), "—");
}

TEST(PerfDescribe, ShapeNotesNameWhatTheSamplesWentThrough)
{
    const json s = {{"starved", {{"candidate", 2}, {"reference", 1}, {"compile", 0}}},
                    {"host_sync", {{"candidate", false}, {"reference", true}, {"compile", nullptr}}},
                    {"starved_kept", json::array()},
                    {"recheck", {{"ok", false}}},
                    {"roofline", {{"faster_than_bound", true}}},
                    {"first_call_s", {{"candidate", 1.129}}}};
    EXPECT_EQ(shapeNotes(s), "starved samples dropped: candidate 2, eager 1; waits for the device inside: eager (host time included); "
                             "slow, not probed: compile; output re-check failed; faster than the roofline bound; first call 1.13 s");
    EXPECT_EQ(shapeNotes(json{{"starved", {{"candidate", 40}}}, {"starved_kept", {"candidate"}}}),
              "starved samples dropped: candidate 40; starved samples kept (too few clean)");
    EXPECT_EQ(shapeNotes(json{{"recheck", {{"ok", true}}}, {"first_call_s", {{"candidate", 0.01}}}}), "");
    EXPECT_EQ(shapeNotes(json()), "");
    // issue 22: a roofline held against another peak than fp32 says which
    EXPECT_EQ(shapeNotes(json{{"roofline", {{"peak_dtype", "float16"}}}}), "roofline at the float16 peak");
    EXPECT_EQ(shapeNotes(json{{"roofline", {{"peak_dtype", "float32"}}}}), "");
    // The parity-balance experiment names the estimator that made the figures. Under 2 the plain
    // medians' speedup is the geometric mean over the processes that kept it (1.2 and 0.8 -> 0.980,
    // where the arithmetic mean would say 1.000); under 1 the four-group one; a process of neither
    // kind adds nothing.
    json aligned = {{"per_process", json::array()}};
    aligned["per_process"].push_back({{"estimator", "four_groups"}, {"plain", {{"speedup", 1.2}}}});
    aligned["per_process"].push_back({{"estimator", "four_groups"}, {"plain", {{"speedup", 0.8}}}});
    aligned["per_process"].push_back({{"candidate_ms", 1.0}});
    EXPECT_EQ(shapeNotes(aligned), "four-group medians (parity_balance 2; plain medians 0.980x)");
    json beside = {{"per_process", json::array()}};
    beside["per_process"].push_back({{"parity_balance", {{"speedup", 1.05}}}});
    beside["per_process"].push_back({{"parity_balance", {{"speedup", 1.03}}}});
    EXPECT_EQ(shapeNotes(beside), "four-group medians 1.040x (parity_balance 1)");
    json plainOnly = {{"per_process", json::array()}};
    plainOnly["per_process"].push_back({{"candidate_ms", 1.0}, {"speedup", {{"estimate", 1.0}}}});
    EXPECT_EQ(shapeNotes(plainOnly), "");
    // issue 22: host time in the samples, with its share
    EXPECT_EQ(shapeNotes(json{{"host_in_timing", {{"host_share", 0.93}, {"waits_for_device", true}}}}),
              "host time 93 % of the candidate's device time");
    EXPECT_EQ(flagText("host_in_timing:batch512_n128"),
              "the call waits for the device inside: host time in the samples, varies with the host (batch512_n128)");
}

TEST(PerfDescribe, FlagsInWords)
{
    EXPECT_EQ(flagText("faster_than_roofline:16M_f32"), "faster than the roofline bound (audit) (16M_f32)");
    EXPECT_EQ(flagText("torch_modified"), "the candidate modified torch functions: no speedup");
    EXPECT_EQ(flagText("host_latency_in_samples:1M_f32"), "host latency kept in the samples (too few clean ones) (1M_f32)");
    EXPECT_EQ(flagText("something_new:x"), "something_new (x)") << "an unknown flag is shown as it is";
}

TEST(PerfDescribe, ExtraProcessesSayWhyMoreWereTimed)
{
    using nlohmann::json;
    EXPECT_EQ(kbx::perf::extraProcessesText(json{{"spread", 0.0071}, {"threshold", 0.005}, {"processes", 4}}),
              "timed in 4 processes: its first processes' geomeans disagreed by 0.71 % (more than 0.50 %)");
    EXPECT_EQ(kbx::perf::extraProcessesText(json{{"target_width", 0.02},
                                                 {"widths", json::array({{{"processes", 3}, {"width", 0.031}}, {{"processes", 4}, {"width", 0.022}}})},
                                                 {"processes", 5}}),
              "timed in 5 processes: its interval was wider than 2.00 % (3.10 % after 3, 2.20 % after 4)");
    EXPECT_EQ(kbx::perf::extraProcessesText(json{{"processes", 3}}), "timed in 3 processes: -");
}
