// SPDX-License-Identifier: MIT
#pragma once
// The perf stage (docs/PERF_PROTOCOL.md): after all correctness work, each correct candidate timed
// against eager PyTorch in fresh perf workers, one timing at a time per GPU (Slot::timing), the
// first of a slot calibrating its device peaks; and, in the correctness stage, the precompile of a
// passing candidate's perf shapes. The statistics over its processes: core/perf_summary.h.
#include "evaluator.h"
#include "perfconfig.h"
#include "perfstats.h"
#include "process.h"
#include "store.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbx {

class ResultSink;
class WorkerLauncher;
struct Slot;

/// One perf worker process of a candidate's perf stage and what it reported.
struct PerfProcess {
    ProcessResult res;
    double waited = 0;       ///< seconds it waited for the GPU's timing lock
    bool exclusive = false;  ///< it held the lock while it timed
    nlohmann::json result;   ///< its result (or error) frame
    std::vector<nlohmann::json> shapes;  ///< its shape frames
    bool sentPeaks = false;  ///< asked to calibrate, it sent its peaks frame (publishCalibration)
};

/// The device peaks that a perf worker asked to calibrate measured (docs/PERF_PROTOCOL.md, "Roofline"):
/// the peaks of the first "peaks" frame among its frames, which it sends before it imports the
/// candidate. Nothing later counts, its result included: the candidate ran in that process and could
/// rewrite them or send frames of its own. Null when there is none.
nlohmann::json calibratedPeaks(const std::vector<nlohmann::json>& frames);

/// The calibrating worker's first "peaks" frame, as it arrives (not when its evaluation ends: the
/// timings of other candidates that end first need the peaks for their rooflines too): its peaks
/// become the slot's; an empty one (no peaks on this device, the CPU) ends the calibration, so the
/// next perf worker is asked again. Waiters (awaitPeaks) are woken either way.
void publishCalibration(Slot& slot, const nlohmann::json& frame);

/// The slot's device peaks for an evaluation whose processes ended. `calibrated`: its first worker
/// was the one asked to calibrate; `sentPeaks`: that worker sent its peaks frame (else it died
/// first, and the next worker is asked). While another evaluation's worker is still measuring them,
/// waits for its frame, so no timing misses its rooflines by ending first. Null when none was
/// measured (the worker died, the device has none, or `cancelled` says the run was cancelled).
nlohmann::json awaitPeaks(Slot& slot, bool calibrated, bool sentPeaks, const std::function<bool()>& cancelled);

class PerfStage {
public:
    PerfStage(const TaskCatalogue& catalogue, const EvalOptions& opt, const PerfConfig& config, const WorkerLauncher& launcher,
              ResultSink& sink);
    const PerfConfig& config() const { return m_perf; }

    /// What a precompile left: its seconds (absent when no process ran) and its evidence.
    struct Precompiled {
        std::optional<double> seconds;
        nlohmann::json evidence;
        /// Into the record: evidence "precompile", stage "precompile".
        void applyTo(EvaluationRecord& rec) const;
    };
    /// After a pass, with --perf on a GPU: the perf shapes' Triton kernels of entry point `entry`
    /// compiled into the candidate's cache in `dir` (kbx_harness/precompile.py). Touches no record,
    /// so it may run beside other work on the same candidate (the correctness stage's extended tier).
    Precompiled precompile(const std::string& entry, const TaskInfo& task, const std::filesystem::path& dir, const DeviceSlot& slot) const;
    /// EvalOptions::autotuneReplay, read once per run. Throws std::runtime_error when it cannot be read.
    void loadAutotuneReplay();
    /// Times a stored, correct candidate (submission `index` of run `runId`) on `slot`; stores its
    /// timings and summary (ResultSink::storePerf), updates o's record when the stage fails it, and
    /// returns the summary.
    nlohmann::json runPerf(Outcome& o, const Submission& sub, std::int64_t runId, int index, Slot& slot);

private:
    /// The perf worker processes of one candidate: nProc, or max_processes when the first disagree,
    /// then one more at a time while the repeat interval is wider than target_width.
    std::vector<PerfProcess> runProcesses(nlohmann::json& req, const std::filesystem::path& dir, bool calibrate, Slot& slot,
                                          int& want, nlohmann::json& extraWhy, bool tf32, perf::BootstrapMemo& memo) const;
    /// The relative width of the repeat interval these processes give, as the summary computes it
    /// (nullopt: none, e.g. a failed process or a tampered torch). The intervals it bootstraps stay in
    /// `memo` for the next decision and the kernel's summary.
    std::optional<double> repeatWidth(const std::vector<PerfProcess>& procs, bool tf32, std::uint64_t seed, perf::BootstrapMemo& memo) const;
    PerfProcess runProcess(const nlohmann::json& req, const std::filesystem::path& pdir, Slot& slot) const;
    /// The run's processes in the evidence, and their failure or the first one's results.
    nlohmann::json processEvidence(const std::vector<PerfProcess>& procs, int want) const;
    /// The noise band a geomean speedup is a tie within, and where it came from.
    std::pair<perf::Interval, std::string> noiseBand(const TaskInfo& task, bool selfCheck) const;
    /// The perf stage's own failure (not_triton_kernel by the profiled share), if any.
    std::optional<std::pair<std::string, std::string>> tritonShareFailure(const nlohmann::json& ev, bool selfCheck) const;

    const TaskCatalogue& m_catalogue;
    const EvalOptions& m_opt;
    const PerfConfig& m_perf;
    const WorkerLauncher& m_launcher;
    ResultSink& m_sink;
    /// EvalOptions::autotuneReplay, read once per run: (task, code hash) -> {shape: [{kernel, config}]}.
    std::map<std::pair<std::string, std::string>, nlohmann::json> m_autotuneReplay;
};

}  // namespace kbx
