// SPDX-License-Identifier: MIT
#pragma once
#include "catalogue.h"
#include "importers.h"
#include "interpgaps.h"
#include "perfconfig.h"
#include "process.h"
#include "store.h"
#include "warm.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbx {

/// How to start kbx-worker.
struct WorkerConfig {
    std::filesystem::path worker;                ///< kbx-worker executable
    std::map<std::string, std::string> env;      ///< extra environment for every worker
};

/// One device of a multi-GPU run: every worker started for it gets `env` on top of the others'
/// (for a GPU: CUDA_VISIBLE_DEVICES=<index or UUID>, so the worker sees it as cuda:0).
struct DeviceSlot {
    std::string name;                            ///< what the user asked for ("0", "GPU-…"); recorded per evaluation
    std::map<std::string, std::string> env;
};

/// Slots for `kbx eval --gpus 0,1,…`: one per entry, CUDA_VISIBLE_DEVICES set to it.
std::vector<DeviceSlot> gpuSlots(const std::vector<std::string>& gpus);

/// Orders a work queue by descending cost(item); equal costs keep their order (the perf stage's
/// queue: the longest timings start first, so that none of them is left for the end).
template <class Queue, class Cost>
void orderLongestFirst(Queue& queue, Cost cost)
{
    std::stable_sort(queue.begin(), queue.end(), [&](const auto& a, const auto& b) { return cost(a) > cost(b); });
}

/// The number of candidates evaluated at once when the user does not say (issue 22: the default
/// must use the machine). On cuda each correctness worker is a Python process with its own CUDA
/// context, CPU-bound while Triton compiles: min(usable cores - 2, available memory / 2.5 GiB),
/// split over the GPU slots, 1 to 16 per slot. On the CPU the interpreter itself is the work and
/// torch runs threads of its own: min(cores / 2, memory / 3 GiB), at least 1. `why` says so for
/// the first progress line.
struct AutoJobs {
    int jobs = 1;
    std::string why;
};
AutoJobs autoJobs(const std::string& device, int gpuSlots, int cores, double memAvailableGiB);
/// This process's usable cores (its CPU affinity) and MemAvailable of /proc/meminfo in GiB (0 if unknown).
std::pair<int, double> hostResources();

struct EvalOptions {
    std::string device = "cpu";                  ///< cpu (Triton interpreter) | cuda
    int jobs = 1;                                ///< candidates evaluated at once (per slot when `deviceSlots` is set)
    /// Multi-GPU: one worker pool of `jobs` per slot, a shared queue ordered by expected cost (longest
    /// first), one perf timer per slot (each GPU times alone, after all correctness work). A slot whose
    /// worker fails and whose health probe then fails is taken out of the pool and its submission is
    /// re-queued to the others. Empty: one implicit slot with the inherited environment.
    std::vector<DeviceSlot> deviceSlots;
    std::vector<std::int64_t> publicSeeds{0, 1};
    std::optional<std::int64_t> secretSeed;      ///< drawn per run when unset
    double referenceTimeout = 600;
    double candidateTimeout = 300;
    double compareTimeout = 300;
    std::string method = "default";
    int round = 0;                               ///< used when the submission carries none
    std::filesystem::path scratchRoot;           ///< default: a fresh directory under $TMPDIR
    bool keepScratch = false;
    std::string sandbox = "auto";                ///< candidate code: auto | bwrap | rlimit | none (core/sandbox.h)
    /// Reference and candidate workers forked from a warm worker that imported torch once
    /// (core/warm.h) instead of each starting an interpreter (perf workers always start cold): auto =
    /// where the sandbox allows it (rlimit, none; not bwrap), on = the same but an error where it
    /// cannot, off = never. A slot whose env sets PYTHON* or LD_* variables always starts cold.
    std::string warmWorkers = "auto";
    /// Perf stage (docs/PERF_PROTOCOL.md): after all correctness work, every correct candidate is
    /// timed against eager PyTorch, one at a time. CUDA; on the CPU only to test the plumbing. On a
    /// GPU a passing candidate's kernels are first compiled for the perf shapes (perfConfig
    /// "precompile", default true; Evaluator::precompile).
    bool perf = false;
    double perfTimeout = 900;
    /// Overrides of the perf stage's settings (--perf-config): known keys only. The Evaluator applies
    /// them to the device's defaults (PerfConfig::fromJson, core/perfconfig.h; throws PerfConfigError
    /// for an unknown key or a wrongly typed value) and sends the worker the complete configuration.
    nlohmann::json perfConfig = nlohmann::json::object();
    /// Perf workers per GPU: N > 1 = the next ones start (interpreter, torch, Triton: seconds of host
    /// work) while one times, only the timed part being exclusive; 1 = one perf worker per GPU at a
    /// time; 0 = half the host's cores per GPU (4 to 12) on cuda, 2 on cpu.
    int perfPipeline = 0;
    /// Autotune replay (issue 22): a kbx database of an earlier run. A candidate whose code (task and
    /// code hash) that database timed on the same device kind has every autotuned kernel take, per
    /// perf shape, the config recorded there instead of benchmarking its configs, so two runs time
    /// the same kernel. Configs not recorded, or no longer among the kernel's configs, autotune as
    /// usual (flagged autotune_replay_missed). Empty: no replay.
    std::filesystem::path autotuneReplay;
    double minTritonShare = 0.5;  ///< below this share of GPU time in Triton kernels: not_triton_kernel
    /// Which cases decide the verdict (issue 21): "contract" = the cases whose argument patterns the
    /// seed's own tests use (tasks/contracts.json); the other ("extended") cases run in a process of
    /// their own after a correct contract tier and are stored beside the verdict. "strict" = every
    /// case decides. Recorded per evaluation and in the run's provenance.
    std::string protocol = "contract";
};

/// What one evaluation produced (also printed by `kbx eval --json`).
struct Outcome {
    std::string taskId;
    std::string origin;
    std::string method;
    int round = 0;
    std::string codeHash;
    std::int64_t candidateId = 0;
    std::int64_t evaluationId = 0;
    bool newCandidate = false;
    bool harnessError = false;    ///< could not be judged (reference failed, worker missing): not stored
    std::string harnessMessage;
    EvaluationRecord record;
    double seconds = 0;
};

struct RunSummary {
    std::int64_t runId = 0;
    int total = 0;
    int passed = 0;
    int failed = 0;
    int harnessErrors = 0;
    bool cancelled = false;
    double seconds = 0;
    nlohmann::json provenance;
};

/// Runs the evaluation pipeline for a set of submissions:
///   reference (once per task, clean process) -> candidate (own process, timeout, process-group
///   kill) -> compare (C++/LibTorch) -> one transaction into the store.
/// A crash, hang or CUDA error ends only that candidate's worker; the next candidate gets a new one.
class Evaluator {
public:
    Evaluator(const TaskCatalogue& catalogue, Store& store, WorkerConfig worker, EvalOptions options);

    /// Versions and devices as seen by a worker (kbx-worker probe). Throws std::runtime_error.
    static nlohmann::json probe(const WorkerConfig& worker);
    nlohmann::json probe() const { return probe(m_worker); }
    /// Reuses a probe already made (kbx eval probes once to pick the device).
    void setProbe(nlohmann::json probe) { m_probe = std::move(probe); }

    /// The warm worker a run would start (core/warm.h), or why its workers start cold.
    struct WarmStart {
        std::shared_ptr<WarmWorker> worker;
        std::string coldWhy;            ///< non-empty: workers start cold, this is why
        std::string device;             ///< the EvalOptions::device it was started for
        std::filesystem::path scratch;  ///< the run's scratch directory (its HOME and log lie there)
        bool prestarted = false;        ///< run() found it started (recorded in the provenance)
    };
    /// Starts the warm worker of a run on opt.device whose scratch directory is `scratch`. run()
    /// calls it; kbx eval calls it before its probe (the two import torch at once, issue 22: the first
    /// references waited ~12 s for it on the H200) and hands it over with adoptWarmStart(). A run whose
    /// device or scratch turn out different starts its own.
    static WarmStart startWarm(const WorkerConfig& worker, const EvalOptions& opt, const std::filesystem::path& scratch);
    void adoptWarmStart(WarmStart w) { m_prestarted = std::move(w); }

    using ProgressFn = std::function<void(const Outcome&, int done, int total)>;
    /// Called after each perf-stage evaluation with the perf summary stored in its evidence.
    using PerfProgressFn = std::function<void(const Outcome&, const nlohmann::json& perf, int done, int total)>;
    void setPerfProgress(PerfProgressFn fn) { m_perfProgress = std::move(fn); }
    RunSummary run(const std::vector<Submission>& submissions, const ProgressFn& progress,
                   const std::atomic<bool>* cancel = nullptr, const nlohmann::json& args = {});
    /// Gaps of Triton's CPU interpreter found by this run's canary (kbx-worker canary: our own small
    /// kernels per dtype/op, core/interpgaps.h), started with a CPU run beside its other work; waits
    /// for it. A GPU run (or before run()): known, no gaps. Also in the run's provenance
    /// ("interpreter_gaps").
    InterpGaps interpreterGaps() const;
    /// The perf stage's complete configuration: EvalOptions::perfConfig over the device's defaults.
    const PerfConfig& perfConfig() const { return m_perf; }

private:
    struct RefBundle {
        bool ok = false;
        std::string error;
        int cases = 0;
        double seconds = 0;  ///< the reference stage's process wall time (the perf queue's cost hint)
        nlohmann::json phases;  ///< where that time went (load_task, draw_inputs, reference_calls, save)
        /// The cases of one tier (kbx_harness/contract.py): their own inputs and reference files, and
        /// the indices of their cases among all of the task's cases.
        struct Tier {
            std::filesystem::path inputs;
            std::filesystem::path ref;
            std::vector<int> indices;
            std::vector<std::vector<std::string>> dtypes;  ///< per case of this tier: its input tensors' dtypes
        };
        std::map<std::string, Tier> tiers;    ///< "contract", "extended" (a tier without cases is absent)
        std::vector<std::string> tierReasons; ///< per case: why it is extended ("" for contract cases)
        std::string contractNote;             ///< what the contract came from (the seed file, or none)
    };
    const RefBundle& reference(const TaskInfo& task);
    /// One tier's candidate process and comparison; fills `rec` (verdict, call/exe, cases with their
    /// global indices and tier, evidence). False: not judged (out.harnessError says why).
    bool judgeTier(const Submission& sub, const TaskInfo& task, const std::string& tier, const RefBundle::Tier& files,
                   const std::filesystem::path& dir, EvaluationRecord& rec, Outcome& out, int autotunePin = 0);
    /// A task whose drive() verifies (TaskInfo::driveChecks, issue 20): kbx-worker judge re-runs the
    /// task's drive() on what the candidate's process recorded and its outputs replace the
    /// candidate's for the comparison. Empty string: done; otherwise why the judge itself failed.
    std::string judgeDrive(const TaskInfo& task, const RefBundle::Tier& files, const std::filesystem::path& dir,
                           const std::filesystem::path& outputs, EvaluationRecord& rec) const;
    /// Health of the calling thread's slot: a probe through that slot's environment works and, on
    /// CUDA, runs a kernel. Empty string: healthy; otherwise why not.
    std::string slotHealth(nlohmann::json* probeOut = nullptr) const;
    Outcome evaluateOne(const Submission& sub, std::int64_t runId, std::int64_t methodId, int index);
    nlohmann::json runPerf(Outcome& o, const Submission& sub, std::int64_t runId, int index);
    /// After a pass, with --perf on a GPU: the perf shapes' Triton kernels compiled into the
    /// candidate's cache (kbx_harness/precompile.py); evidence "precompile", stage "precompile".
    void precompile(EvaluationRecord& rec, const TaskInfo& task, const std::filesystem::path& dir) const;
    InterpGaps runCanary() const;
    std::shared_future<InterpGaps> m_interpGaps;
    PerfProgressFn m_perfProgress;
    std::vector<nlohmann::json> m_peaks;  ///< per slot: device peaks measured by its first perf worker
    std::vector<char> m_calibrating;      ///< per slot: a perf worker was asked to calibrate (guarded by m_peaksMutex)
    std::mutex m_peaksMutex;
    /// Per slot: held by the one perf worker whose timed work runs on that GPU. A perf worker starts
    /// (interpreter, torch, Triton, task module) while another times, then asks for it ("ready")
    /// before it draws inputs, imports the candidate or touches the GPU; released when it ended.
    std::vector<std::unique_ptr<std::timed_mutex>> m_timingLocks;
    std::vector<nlohmann::json> m_slotProbe;  ///< per slot: its probe (GPU name, UUID) at the start of the run
    std::map<std::string, std::string> workerEnv() const;
    ProcessResult runWorker(const std::string& role, const nlohmann::json& request, const std::filesystem::path& dir,
                            double timeout, std::function<std::string(const nlohmann::json&)> reply = {},
                            bool allowWarm = true) const;

    const TaskCatalogue& m_catalogue;
    Store& m_store;
    WorkerConfig m_worker;
    EvalOptions m_opt;
    PerfConfig m_perf;  ///< m_opt.perfConfig applied to m_opt.device's defaults
    std::filesystem::path m_scratch;
    std::vector<nlohmann::json> m_seeds;
    std::mutex m_refMutex;
    std::map<std::string, std::unique_ptr<RefBundle>> m_refs;
    std::map<std::string, std::unique_ptr<std::mutex>> m_refLocks;
    const std::atomic<bool>* m_cancel = nullptr;
    nlohmann::json m_probe;
    std::shared_ptr<WarmWorker> m_warm;  ///< this run's warm worker (null: every worker starts cold)
    WarmStart m_prestarted;              ///< adoptWarmStart()
    /// EvalOptions::autotuneReplay, read once per run: (task, code hash) -> {shape: [{kernel, config}]}.
    std::map<std::pair<std::string, std::string>, nlohmann::json> m_autotuneReplay;
};

}  // namespace kbx
