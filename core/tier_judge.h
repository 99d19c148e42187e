// SPDX-License-Identifier: MIT
#pragma once
// One tier of a candidate's correctness stage: its candidate process (sandboxed, its frames read
// as untrusted), the trusted judge of a verifying drive(), the comparison (kbx-worker compare,
// C++/LibTorch) and the verdict they make.
#include "evaluator.h"
#include "interpgaps.h"
#include "reference_cache.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

namespace kbx {

class WorkerLauncher;

class TierJudge {
public:
    /// `gaps` gives the CPU interpreter's gaps (Evaluator::interpreterGaps; waits for the canary).
    TierJudge(const TaskCatalogue& catalogue, const EvalOptions& opt, const WorkerLauncher& launcher,
              std::function<InterpGaps()> gaps);

    /// One tier's candidate process and comparison; fills `rec` (verdict, call/exe, cases with their
    /// global indices and tier, evidence). False: not judged (out.harnessError says why).
    /// autotunePin > 0: every @triton.autotune takes that config (the autotune sweep). `abandon` set
    /// while it runs: its processes are killed and it is not judged (a speculative run whose premise failed).
    bool judgeTier(const Submission& sub, const TaskInfo& task, const std::string& tier, const RefBundle::Tier& files,
                   const std::filesystem::path& dir, EvaluationRecord& rec, Outcome& out, const DeviceSlot& slot,
                   int autotunePin = 0, const std::atomic<bool>* abandon = nullptr) const;

    /// A task whose drive() verifies (TaskInfo::driveChecks, issue 20): kbx-worker judge re-runs the
    /// task's drive() on what the candidate's process recorded and its outputs replace the
    /// candidate's for the comparison. Empty string: done; otherwise why the judge itself failed.
    std::string judgeDrive(const TaskInfo& task, const RefBundle::Tier& files, const std::filesystem::path& dir,
                           const std::filesystem::path& outputs, EvaluationRecord& rec, const DeviceSlot& slot,
                           const std::atomic<bool>* abandon = nullptr) const;

    const TaskCatalogue& catalogue() const { return m_catalogue; }
    const EvalOptions& options() const { return m_opt; }
    const WorkerLauncher& launcher() const { return m_launcher; }
    InterpGaps interpreterGaps() const { return m_gaps(); }

private:
    const TaskCatalogue& m_catalogue;
    const EvalOptions& m_opt;
    const WorkerLauncher& m_launcher;
    std::function<InterpGaps()> m_gaps;
};

}  // namespace kbx
