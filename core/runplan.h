// SPDX-License-Identifier: MIT
// The run plan: how a run is set up, resolved once for every front-end (issue 25). `kbx eval`,
// `kbx tasks --check` and the workbench's RunController describe what the user asked for as a
// PlanRequest; resolvePlan() turns it, with the facts of this host (the worker's probe: CUDA, its
// devices; $CUDA_VISIBLE_DEVICES; cores and memory), into a typed RunPlan or a RunPlanError that
// says why not; toEvalOptions() is the one place where the plan becomes the Evaluator's options
// (core/evaluator.h), the device enum included.
//
// The rules, each written here only:
//   - device "auto" is cuda when the worker's torch sees a CUDA device, else cpu; "cuda" without one
//     is an error of the environment;
//   - --gpus needs cuda; "all" is every device the worker sees, by its index, mapped back through
//     the CUDA_VISIBLE_DEVICES kbx itself was given (the worker's index i is the parent's i-th entry);
//     each GPU becomes a slot whose workers get CUDA_VISIBLE_DEVICES=<that GPU>;
//   - jobs 0: picked from the host's cores and memory, per GPU slot (kbx::autoJobs);
//   - the candidate stage's time limit: the one given, else 300 s on cpu and 120 s on cuda;
//   - --perf-config (and --perf-baseline) are checked against PerfConfig's keys and types;
//     --autotune-replay needs --perf.
#pragma once

#include "device.h"
#include "evaluator.h"
#include "perfconfig.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kbx {

/// What a front-end asks for, before this host is looked at. Strings are the command line's values.
struct PlanRequest {
    std::string device = "auto";             ///< auto | cpu | cuda
    /// GPUs to spread the run over (indices or UUIDs), or {"all"}; empty: no slots (the inherited
    /// environment). Blank entries are ignored, entries are trimmed.
    std::vector<std::string> gpus;
    int jobs = 0;                            ///< candidates at once (per GPU slot); 0: picked from the host
    double timeout = 0;                      ///< candidate stage limit in seconds; 0: 300 on cpu, 120 on cuda
    std::string sandbox = "auto";            ///< auto | bwrap | rlimit | none (core/sandbox.h)
    std::string warmWorkers = "auto";        ///< auto | on | off (core/warm.h)
    int referenceServers = -1;               ///< per GPU slot (EvalOptions::referenceServers); -1: from the jobs
    std::string protocol = "contract";       ///< contract | strict
    std::string extendedStart = "auto";      ///< auto | after-contract | early (EvalOptions::extendedStart)
    bool perf = false;
    int perfWorkers = 0;                     ///< perf workers per GPU; 0: the Evaluator's default
    std::string perfConfig;                  ///< --perf-config: JSON text of PerfConfig overrides ("" = none)
    std::vector<std::string> perfBaselines;  ///< --perf-baseline: compile, tf32
    std::filesystem::path autotuneReplay;    ///< --autotune-replay DB (needs perf)
};

/// What resolvePlan needs to know about this host.
struct HostFacts {
    bool cudaAvailable = false;              ///< the worker's torch sees a CUDA device
    int visibleGpus = 0;                     ///< how many it sees (the probe's "devices")
    std::string parentVisibleDevices;        ///< $CUDA_VISIBLE_DEVICES of this process ("" when unset)
    int cores = 1;                           ///< usable cores (CPU affinity)
    double memAvailableGiB = 0;              ///< MemAvailable (0: unknown)

    /// From a worker's probe (Evaluator::probe: "cuda_available", "devices") and this process
    /// ($CUDA_VISIBLE_DEVICES, kbx::hostResources()).
    static HostFacts fromProbe(const nlohmann::json& probe);
};

/// A resolved run set-up.
struct RunPlan {
    Device device = Device::Cpu;
    /// The GPU slots (empty: one implicit slot with the inherited environment); each slot's env sets
    /// CUDA_VISIBLE_DEVICES to its GPU.
    std::vector<DeviceSlot> gpus;
    int jobs = 1;                            ///< per slot
    std::string jobsWhy;                     ///< non-empty when jobs was picked here: how (for the first progress line)
    double candidateTimeout = 300;           ///< the candidate stage's limit (seconds)
    double referenceTimeout = EvalOptions{}.referenceTimeout;  ///< the other stages keep the Evaluator's defaults
    double compareTimeout = EvalOptions{}.compareTimeout;
    double perfTimeout = EvalOptions{}.perfTimeout;
    SandboxMode sandbox = SandboxMode::Auto;
    WarmWorkers warmWorkers = WarmWorkers::Auto;
    int referenceServers = -1;
    Protocol protocol = Protocol::Contract;
    ExtendedStart extendedStart = ExtendedStart::Auto;
    bool perf = false;
    int perfWorkers = 0;
    /// The --perf-config overrides as given (a JSON object of known keys; "baselines" from
    /// --perf-baseline): what EvalOptions::perfConfig carries and a run without --perf records.
    nlohmann::json perfOverrides = nlohmann::json::object();
    PerfConfig perfConfig;                   ///< those overrides on this device's defaults: the complete configuration
    std::filesystem::path autotuneReplay;

    bool cuda() const { return device == Device::Cuda; }
    std::string deviceName() const { return kbx::deviceName(device); }
};

/// Why a request cannot be planned. message() is the command line's wording (without "kbx: ");
/// front-ends with their own wording switch on code(), with detail() (the cause without the option).
class RunPlanError : public std::runtime_error {
public:
    enum class Code {
        BadValue,         ///< a value outside its choices (device, sandbox, warm workers, protocol, extended start, jobs, timeout)
        BadPerfConfig,    ///< --perf-config not an object of PerfConfig's keys and types
        ReplayNeedsPerf,  ///< --autotune-replay without --perf
        GpusNeedCuda,     ///< GPUs chosen on a run that is not on CUDA
        BadGpus,          ///< a GPU given twice, or "all" with others
        NoCuda,           ///< cuda asked for, but the worker's torch sees no CUDA device
    };
    RunPlanError(Code code, const std::string& message, std::string detail = {})
        : std::runtime_error(message), m_code(code), m_detail(detail.empty() ? message : std::move(detail))
    {
    }
    Code code() const { return m_code; }
    const std::string& detail() const { return m_detail; }
    /// The environment is wrong (no CUDA device), not the request: kbx's exit code 4, else 2.
    bool environment() const { return m_code == Code::NoCuda; }

private:
    Code m_code;
    std::string m_detail;
};

/// --perf-config TEXT and --perf-baseline as PerfConfig overrides: a JSON object of known keys and
/// types (checked against the cpu defaults: the device changes only defaults). Throws RunPlanError
/// (BadPerfConfig) for text that is not such an object.
nlohmann::json perfOverrides(const std::string& text, const std::vector<std::string>& baselines);

/// What can be checked before the host is looked at (values, --perf-config, --autotune-replay
/// needs --perf, --gpus on an explicit cpu run). Throws RunPlanError; resolvePlan checks it again.
void checkRequest(const PlanRequest& request);

/// The device a request will most likely run on before the worker's probe says (the warm worker
/// starts beside the probe): the one asked for, else cuda where the NVIDIA driver's control device
/// `nvidiactl` exists.
Device likelyDevice(const PlanRequest& request, const std::filesystem::path& nvidiactl = "/dev/nvidiactl");

/// "all" expanded to the `visible` devices the worker sees, by index, mapped back through the
/// parent's CUDA_VISIBLE_DEVICES (entry i of it where it has one); any other list trimmed, blanks
/// left out. Throws RunPlanError (BadGpus) for "all" beside other entries.
std::vector<std::string> expandGpus(const std::vector<std::string>& gpus, int visible, const std::string& parentVisibleDevices);

/// The plan for `request` on a host with `host`'s facts. Throws RunPlanError.
RunPlan resolvePlan(const PlanRequest& request, const HostFacts& host);

/// The Evaluator's options of a plan: device, slots, jobs, timeouts, sandbox, warm workers,
/// protocol and the perf stage's settings. What is run (method, round, seeds, scratch) the caller sets.
EvalOptions toEvalOptions(const RunPlan& plan);

}  // namespace kbx
