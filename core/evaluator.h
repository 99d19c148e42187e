// SPDX-License-Identifier: MIT
#pragma once
#include "catalogue.h"
#include "device.h"
#include "importers.h"
#include "interpgaps.h"
#include "perfconfig.h"
#include "process.h"
#include "run_scratch.h"
#include "sandbox.h"
#include "store.h"
#include "warm.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbx {

class CorrectnessStage;
class PerfStage;
class ReferenceCache;
class ResultSink;
class TierJudge;
class WorkerLauncher;
struct Slot;

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
AutoJobs autoJobs(Device device, int gpuSlots, int cores, double memAvailableGiB);
/// This process's usable cores (its CPU affinity) and MemAvailable of /proc/meminfo in GiB (0 if unknown).
std::pair<int, double> hostResources();
/// What the host's CPU side is, for a run's provenance (`host_cpu`): the CPU model of /proc/cpuinfo
/// (its first "model name"; absent where the file has none), the usable cores and MemAvailable (GiB,
/// one decimal; absent if unknown). The correctness stage and the perf stage's host work are bound
/// by it: two machines with the same GPU model differed by ~40 % in a run's wall (bench/results).
nlohmann::json hostCpu(const std::filesystem::path& cpuinfo = "/proc/cpuinfo");

/// When the extended tier's process starts (EvalOptions::extendedStart; `--extended-start`).
enum class ExtendedStart { Auto, AfterContract, Early };
/// "auto", "after-contract", "early": the command line's words, also written to the provenance.
const char* extendedStartName(ExtendedStart s);
/// The inverse of extendedStartName; nullopt for any other word.
std::optional<ExtendedStart> parseExtendedStart(std::string_view word);

/// Which cases decide the verdict (EvalOptions::protocol; `--protocol`).
enum class Protocol { Contract, Strict };
/// "contract", "strict": the command line's words, also what each evaluation and the provenance store.
const char* protocolName(Protocol p);
std::optional<Protocol> parseProtocol(std::string_view word);

/// Whether workers fork from a warm worker (EvalOptions::warmWorkers; `--warm-workers`).
enum class WarmWorkers { Auto, On, Off };
/// "auto", "on", "off".
const char* warmWorkersName(WarmWorkers w);
std::optional<WarmWorkers> parseWarmWorkers(std::string_view word);
/// Every word of --extended-start, --protocol and --warm-workers, in order (the command line's
/// choices and the run plan's refusal list them from the same tables as the parsers).
std::vector<std::string> extendedStartWords();
std::vector<std::string> protocolWords();
std::vector<std::string> warmWorkersWords();

struct EvalOptions {
    Device device = Device::Cpu;                 ///< the CPU (Triton interpreter) or CUDA
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
    /// The directory under which the run makes its own scratch directory (makeRunScratch:
    /// `kbx-run-<host>-<pid>-XXXXXX`, removed at the run's end unless keepScratch); default $TMPDIR. Never
    /// removed nor shown to a candidate itself: `--scratch ~` must not cost a home directory.
    std::filesystem::path scratchRoot;
    /// The run's own scratch directory when the caller made it already (makeRunScratch, for a warm
    /// worker it started before the run); empty: run() makes one under scratchRoot.
    std::filesystem::path scratchDir;
    bool keepScratch = false;
    SandboxMode sandbox = SandboxMode::Auto;     ///< candidate code: auto | bwrap | rlimit | none (core/sandbox.h)
    /// Reference and candidate workers forked from a warm worker that imported torch once
    /// (core/warm.h) instead of each starting an interpreter (perf workers always start cold): auto =
    /// where the sandbox allows it (rlimit, none; not bwrap), on = the same but an error where it
    /// cannot, off = never. A slot whose env sets PYTHON* or LD_* variables always starts cold.
    WarmWorkers warmWorkers = WarmWorkers::Auto;
    /// Reference servers per device slot (core/reference_server.h): processes that compute one task's
    /// references after another with one CUDA context; -1 = one per four jobs (1..4), 0 = a reference
    /// process per task.
    int referenceServers = -1;
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
    Protocol protocol = Protocol::Contract;
    /// When the extended tier's process starts (issue 22). "auto": with the contract tier at the
    /// run's tail (the correctness queue is empty, so slots are about to idle: the extended tier is
    /// then the evaluation's latency) and for the evaluations on the stage's expected critical path
    /// (scheduler's criticalPath: expected to end last if they waited); otherwise once the contract
    /// tier's outputs were right, beside the autotune sweep: while the queue is full the stage is
    /// bound by its total work, and a speculative process beside a contract tier that then fails is
    /// work thrown away. "after-contract": as auto without the critical path. "early": always with
    /// the contract tier. What is stored does not depend on it (CorrectnessStage).
    ExtendedStart extendedStart = ExtendedStart::Auto;
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
    /// Seconds from the run's start to the end of the correctness stage's last process (its tail
    /// work included; the verdicts' last line may come earlier).
    double correctnessSeconds = 0;
    /// Perf-shape precompiles of candidates that passed while the queue was full, run by worker
    /// threads that found the queue empty (--perf on a GPU): how many, their processes' seconds.
    int tailPrecompiles = 0;
    double tailPrecompileSeconds = 0;
    nlohmann::json provenance;
    std::filesystem::path scratch;  ///< the run's scratch directory (still there with keepScratch)
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
        Device device = Device::Cpu;    ///< the EvalOptions::device it was started for
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
    /// Called once the correctness stage's last process (its tail work included) has ended, before
    /// the perf stage, with the summary so far (counts, correctnessSeconds, tailPrecompiles).
    using StageEndFn = std::function<void(const RunSummary&)>;
    void setCorrectnessEnd(StageEndFn fn) { m_correctnessEnd = std::move(fn); }
    RunSummary run(const std::vector<Submission>& submissions, const ProgressFn& progress,
                   const std::atomic<bool>* cancel = nullptr, const nlohmann::json& args = {});
    /// Gaps of Triton's CPU interpreter found by this run's canary (kbx-worker canary: our own small
    /// kernels per dtype/op, core/interpgaps.h), started with a CPU run beside its other work; waits
    /// for it. A GPU run (or before run()): known, no gaps. Also in the run's provenance
    /// ("interpreter_gaps").
    InterpGaps interpreterGaps() const;
    /// The perf stage's complete configuration: EvalOptions::perfConfig over the device's defaults.
    const PerfConfig& perfConfig() const { return m_perf; }

    ~Evaluator();

private:
    // The rooms a run goes through (each header says what it does): core/worker_launch.h,
    // core/reference_cache.h, core/tier_judge.h, core/correctness_stage.h, core/perf_stage.h,
    // core/scheduler.h (the device slots and the pools), core/result_sink.h (the store's writes).
    /// Draws the run's secret seed and sets the references' seeds; returns the secret.
    std::int64_t drawSeeds();
    /// Starts the run in its scratch directory and checks a separate-uid sandbox can reach what it must.
    void prepareScratch(const std::filesystem::path& scratch, const std::atomic<bool>* cancel);
    /// The run's warm worker (adopted or started) and, on the CPU, the interpreter canary.
    WarmStart startRunWorkers();
    /// The run's provenance; probes every slot of a multi-slot run ("slots"), marking the unhealthy out of the pool.
    nlohmann::json provenance(const std::string& coldWhy, bool multi);
    /// The run's end: the warm worker's report and the interpreter's gaps in the provenance, the
    /// run's row finished (run() removes the scratch unless kept, also when the run throws).
    void finishRun(RunSummary& sum, nlohmann::json& prov, bool startedBeforeProbe, const std::atomic<bool>* cancel);
    InterpGaps runCanary() const;

    PerfProgressFn m_perfProgress;
    StageEndFn m_correctnessEnd;
    const TaskCatalogue& m_catalogue;
    Store& m_store;
    WorkerConfig m_worker;
    EvalOptions m_opt;
    PerfConfig m_perf;  ///< m_opt.perfConfig applied to m_opt.device's defaults
    nlohmann::json m_probe;
    WarmStart m_prestarted;  ///< adoptWarmStart()
    std::vector<std::unique_ptr<Slot>> m_slots;  ///< one per EvalOptions::deviceSlots entry
    std::unique_ptr<ResultSink> m_sink;
    std::unique_ptr<WorkerLauncher> m_launcher;
    std::unique_ptr<ReferenceCache> m_refs;
    std::unique_ptr<TierJudge> m_judge;
    std::unique_ptr<PerfStage> m_perfStage;
    std::unique_ptr<CorrectnessStage> m_correctness;
    /// The CPU canary's result (runCanary, started by run()); last, so that it is destroyed first:
    /// its destructor waits for a canary still running, which uses the rooms above.
    std::shared_future<InterpGaps> m_interpGaps;
};

}  // namespace kbx
