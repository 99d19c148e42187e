// SPDX-License-Identifier: MIT
#pragma once
// The words for a stored perf result (docs/PERF_PROTOCOL.md), shared by the front-ends that show one
// evaluation (the workbench's Performance tab and `kbx show`): durations, a shape's launch gap, what
// its samples went through, and the perf flags.
#include <nlohmann/json.hpp>

#include <string>

namespace kbx::perf {

/// A duration given in ms: "60.26 µs", "4.257 ms", "1.25 s"; "—" when not positive.
std::string formatMs(double ms);

/// A shape's launch gap from its stored samples object: "404 µs", "197 → 394 µs" when starved
/// samples widened it, "—" without one (the CPU, or a database from before the gap).
std::string launchGapText(const nlohmann::json& samples);

/// What a shape's samples went through, "; "-joined: starved samples dropped per side, starved
/// samples kept, sides that wait for the device inside their call, slow sides not probed, a failed
/// output re-check, faster than the roofline bound, a first call over 50 ms. Sides are named as the
/// reader knows them: the task's reference is "eager".
std::string shapeNotes(const nlohmann::json& samples);

/// Why a kernel was timed in more processes than the first ones, from the perf evidence's
/// extra_processes: "timed in 5 processes: its first processes' geomeans disagreed by 0.62 % (more than
/// 0.50 %); then its interval was wider than 2.00 % (2.41 % after 4)".
std::string extraProcessesText(const nlohmann::json& extra);

/// A perf flag ("kind" or "kind:shape") in words, e.g. "faster than the roofline bound (audit) (x)".
std::string flagText(const std::string& flag);

}  // namespace kbx::perf
