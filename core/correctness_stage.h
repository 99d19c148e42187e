// SPDX-License-Identifier: MIT
#pragma once
// The correctness stage of one candidate: its reference (ReferenceCache), its contract tier
// (TierJudge), the autotune sweep over every config its autotuner may choose, its extended tier,
// the precompile of its perf shapes after a pass (beside the extended tier at the run's tail, else
// left for the tail: runPendingPrecompile), and the stored evaluation (ResultSink).
#include "evaluator.h"
#include "reference_cache.h"
#include "tier_judge.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <filesystem>
#include <string>
#include <utility>

namespace kbx {

class PerfStage;
class ResultSink;
struct Slot;

/// The autotune sweep's reach (issue 22): a candidate's contract cases run under each config its
/// @triton.autotune declares, the largest count over its autotuned kernels (from the candidate
/// process's record, `autotune.<kernel>.configs`), at most kMaxAutotuneSweepConfigs. `declared` is
/// that count uncapped: a kernel with more has configs configs+1..declared left unswept, and its
/// evidence (`autotune_sweep.declared`, `not_swept`) and `kbx show` say so.
struct AutotuneSweepPlan {
    int configs = 1;   ///< configs the sweep runs (the first one is the contract tier's own run)
    int declared = 1;  ///< configs declared
};
inline constexpr int kMaxAutotuneSweepConfigs = 32;
AutotuneSweepPlan autotuneSweepPlan(const nlohmann::json& autotuneRecord);

class CorrectnessStage {
public:
    CorrectnessStage(const TaskCatalogue& catalogue, const EvalOptions& opt, const WorkerLauncher& launcher, ReferenceCache& refs,
                     const TierJudge& judge, const PerfStage& perf, ResultSink& sink);

    /// Evaluates submission `index` of run `runId` on `slot` and stores the evaluation (not a
    /// harness error: that is returned unstored).
    Outcome evaluateOne(const Submission& sub, std::int64_t runId, std::int64_t methodId, int index, const Slot& slot);
    /// Per submission index of the coming run: its expected seconds and whether it is on the stage's
    /// expected critical path (scheduler's criticalPath). Such an evaluation runs as at the stage's
    /// tail: its extended tier starts with its contract tier, its precompile beside the extended
    /// tier. Recorded in its evidence ("schedule").
    void setCriticalPath(std::vector<double> expected, std::vector<bool> critical);
    /// The stage's tail work: one pending precompile (a candidate that passed while the queue was
    /// full) run on `slot` and stored with its evaluation. False when none is pending.
    bool runPendingPrecompile(const Slot& slot);
    /// Precompiles run by runPendingPrecompile so far, and their processes' seconds.
    std::pair<int, double> pendingPrecompilesDone() const;

private:
    /// The autotune sweep (issue 22): the contract tier again under each other config of the
    /// candidate's @triton.autotune, up to kSweepParallel processes at once.
    void autotuneSweep(const Submission& sub, const TaskInfo& task, const RefBundle::Tier& contract,
                       const std::filesystem::path& dir, EvaluationRecord& rec, const Slot& slot);
    /// One run of the extended tier (cases the seed's own tests never make), kept apart from the
    /// evaluation's record until mergeExtended decides whether it is used.
    struct ExtendedRun {
        bool ran = false;      ///< its process was started and has ended
        bool judged = false;   ///< TierJudge judged it (false: why in eout.harnessMessage)
        double startedAfter = 0;  ///< seconds after the evaluation began
        /// Set once the contract tier (or the sweep) found the outputs wrong: the run's result will be
        /// dropped unread, so its processes are killed rather than waited for.
        std::atomic<bool> abandon{false};
        EvaluationRecord erec;
        Outcome eout;
    };
    /// The extended tier in a directory of its own (it may run beside the contract tier or the sweep).
    void runExtended(const Submission& sub, const TaskInfo& task, const RefBundle::Tier& files, const std::filesystem::path& dir,
                     std::int64_t runId, ExtendedRun& run, const Slot& slot) const;
    /// The extended tier's result into `rec`, stored beside the verdict (deciding it under
    /// --protocol strict); when the contract tier's outputs were not right, "did not run", whatever ran.
    void mergeExtended(const RefBundle& ref, const RefBundle::Tier& files, ExtendedRun& run, EvaluationRecord& rec) const;
    /// The record made safe to store (classes inside the taxonomy, printable text), timed, and
    /// stored when `store` and judged.
    Outcome& finish(Outcome& out, const Submission& sub, std::int64_t methodId, bool store,
                    std::chrono::steady_clock::time_point t0);

    /// A passing candidate's precompile left for the tail: while the queue is full every job is busy
    /// (correctness work is what the user waits for), at the tail threads would idle.
    struct PendingPrecompile {
        std::int64_t evaluationId = 0;
        const TaskInfo* task = nullptr;
        std::filesystem::path dir;
        std::string entry;
    };
    std::vector<double> m_expected;
    std::vector<bool> m_critical;
    mutable std::mutex m_pendingMutex;
    std::deque<PendingPrecompile> m_pending;
    int m_pendingDone = 0;
    double m_pendingSeconds = 0;

    const TaskCatalogue& m_catalogue;
    const EvalOptions& m_opt;
    const WorkerLauncher& m_launcher;
    ReferenceCache& m_refs;
    const TierJudge& m_judge;
    const PerfStage& m_perf;
    ResultSink& m_sink;
};

}  // namespace kbx
