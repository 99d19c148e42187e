// SPDX-License-Identifier: MIT
#pragma once
// The perf stage's statistics over a candidate's perf processes (docs/PERF_PROTOCOL.md): per shape
// the samples of every process, medians, the repeat interval of the speedup, the roofline against
// the device peaks and the flags that say why a timing cannot be trusted; then the geomean speedup
// with its repeat interval and the verdict against eager (faster, slower, tie).
#include "perf_stage.h"
#include "perfstats.h"
#include "store.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kbx {

/// What the shapes of a candidate's perf processes add up to.
struct PerfShapes {
    std::vector<TimingRow> rows;          ///< one timings row per shape
    nlohmann::json flags = nlohmann::json::array();
    nlohmann::json shapeSummaries = nlohmann::json::array();
    std::vector<std::vector<std::vector<double>>> cAllP, rAllP;  ///< [process][shape] samples
    std::vector<double> cMed, rMed;       ///< per shape: the per-process medians' geometric means
    /// Optional baselines (--perf-baseline): per name, the candidate's and the baseline's samples of
    /// every shape where that baseline ran.
    std::map<std::string, std::pair<std::vector<std::vector<double>>, std::vector<std::vector<double>>>> extraAll;
};

/// The shapes of the first P processes (0: none, a process failed). `ev` holds the first process's
/// attribution; `peaks` the slot's device peaks (null: none); tf32 where the task allows it. `memo`
/// (optional): bootstrap intervals of earlier summaries of the same kernel's processes, reused.
PerfShapes summarizeShapes(const std::vector<PerfProcess>& procs, std::size_t P, const nlohmann::json& ev, const nlohmann::json& peaks,
                           bool tf32, std::uint64_t seed, const PerfConfig& config, perf::BootstrapMemo* memo = nullptr);

/// Into `ev`: the shapes' summaries and flags (with torch_modified); unless the candidate tampered
/// with torch or ran work outside the timed events, the geomean speedup over the shapes with its
/// repeat interval over the processes, the sum-of-times ratio, the verdict against eager within the
/// noise band `noise` gives, and the baselines' geomeans.
void geomeanSummary(nlohmann::json& ev, PerfShapes& shapes, std::size_t P, std::uint64_t seed, const PerfConfig& config,
                    const std::function<std::pair<perf::Interval, std::string>()>& noise, perf::BootstrapMemo* memo = nullptr);

}  // namespace kbx
