// SPDX-License-Identifier: MIT
#include "runplan.h"

#include "source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace kbx {

namespace {

using Code = RunPlanError::Code;

void requireOneOf(const std::string& what, const std::string& value, const std::vector<std::string>& choices)
{
    if (std::find(choices.begin(), choices.end(), value) == choices.end())
        throw RunPlanError(Code::BadValue, fmt::format("{}: '{}' is not one of {}", what, value, fmt::join(choices, ", ")));
}

bool allGpus(const std::vector<std::string>& gpus)
{
    return std::any_of(gpus.begin(), gpus.end(), [](const std::string& g) { return trimSpace(g) == "all"; });
}

bool anyGpu(const std::vector<std::string>& gpus)
{
    return std::any_of(gpus.begin(), gpus.end(), [](const std::string& g) { return !trimSpace(g).empty(); });
}

[[noreturn]] void gpusNeedCuda()
{
    throw RunPlanError(Code::GpusNeedCuda, "--gpus needs CUDA (--device cuda or auto on a machine with GPUs)",
                       "GPUs were chosen, but the run is not on CUDA");
}

}  // namespace

HostFacts HostFacts::fromProbe(const nlohmann::json& probe)
{
    HostFacts h;
    h.cudaAvailable = probe.value("cuda_available", false);
    if (auto it = probe.find("devices"); it != probe.end() && it->is_array())
        h.visibleGpus = static_cast<int>(it->size());
    if (const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES"))
        h.parentVisibleDevices = cvd;
    const auto [cores, mem] = hostResources();
    h.cores = cores;
    h.memAvailableGiB = mem;
    return h;
}

nlohmann::json perfOverrides(const std::string& text, const std::vector<std::string>& baselines)
{
    auto j = text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object())
        throw RunPlanError(Code::BadPerfConfig, "--perf-config must be a JSON object, e.g. '{\"max_seconds\": 0.5}'");
    if (!baselines.empty())
        j["baselines"] = baselines;
    try {
        PerfConfig::fromJson(j, Device::Cpu);  // the keys and their types; the device changes only defaults
    } catch (const PerfConfigError& e) {
        throw RunPlanError(Code::BadPerfConfig, e.what());
    }
    return j;
}

void checkRequest(const PlanRequest& r)
{
    requireOneOf("--device", r.device, {"auto", "cpu", "cuda"});
    requireOneOf("--sandbox", r.sandbox, sandboxModeWords());
    requireOneOf("--warm-workers", r.warmWorkers, warmWorkersWords());
    requireOneOf("--protocol", r.protocol, protocolWords());
    requireOneOf("--extended-start", r.extendedStart, extendedStartWords());
    if (r.jobs < 0)
        throw RunPlanError(Code::BadValue, fmt::format("--jobs: {} is not a number of candidates", r.jobs));
    if (r.referenceServers < -1)
        throw RunPlanError(Code::BadValue, fmt::format("--reference-servers: {} is not a number of servers (-1: from the jobs)", r.referenceServers));
    if (r.perfWorkers < 0)
        throw RunPlanError(Code::BadValue, fmt::format("--perf-workers: {} is not a number of workers", r.perfWorkers));
    if (!r.autotuneReplay.empty() && !r.perf)
        throw RunPlanError(Code::ReplayNeedsPerf, "--autotune-replay replays recorded choices in the perf stage: give --perf too");
    perfOverrides(r.perfConfig, r.perfBaselines);
    if (r.device == "cpu" && anyGpu(r.gpus))
        gpusNeedCuda();
    if (allGpus(r.gpus) && std::count_if(r.gpus.begin(), r.gpus.end(), [](const std::string& g) { return !trimSpace(g).empty(); }) > 1)
        throw RunPlanError(Code::BadGpus, "--gpus: 'all' goes alone", "'all' goes alone");
}

Device likelyDevice(const PlanRequest& request, const std::filesystem::path& nvidiactl)
{
    if (auto d = parseDevice(request.device))
        return *d;
    std::error_code ec;
    return std::filesystem::exists(nvidiactl, ec) ? Device::Cuda : Device::Cpu;
}

std::vector<std::string> expandGpus(const std::vector<std::string>& gpus, int visible, const std::string& parentVisibleDevices)
{
    std::vector<std::string> out;
    for (const auto& g : gpus)
        if (auto t = trimSpace(g); !t.empty())
            out.emplace_back(t);
    if (std::find(out.begin(), out.end(), "all") == out.end())
        return out;
    if (out.size() > 1)
        throw RunPlanError(Code::BadGpus, "--gpus: 'all' goes alone", "'all' goes alone");
    // Every device the worker sees, by its index; inside a CUDA_VISIBLE_DEVICES given to kbx the
    // indices are relative to it: map them back to what the user set.
    std::vector<std::string> parent;
    std::stringstream ss(parentVisibleDevices);
    for (std::string x; std::getline(ss, x, ',');)
        parent.emplace_back(trimSpace(x));
    out.clear();
    for (int i = 0; i < visible; ++i)
        out.push_back(static_cast<std::size_t>(i) < parent.size() && !parent[i].empty() ? parent[i] : std::to_string(i));
    return out;
}

RunPlan resolvePlan(const PlanRequest& r, const HostFacts& host)
{
    checkRequest(r);
    RunPlan p;
    if (r.device == "auto") {
        p.device = host.cudaAvailable ? Device::Cuda : Device::Cpu;
    } else {
        p.device = *parseDevice(r.device);
        if (p.cuda() && !host.cudaAvailable)
            throw RunPlanError(Code::NoCuda, "--device cuda asked for, but the worker's torch sees no CUDA device",
                               "device cuda asked for, but the worker's torch sees no CUDA device");
    }
    if (anyGpu(r.gpus)) {
        if (!p.cuda())
            gpusNeedCuda();
        try {
            p.gpus = gpuSlots(expandGpus(r.gpus, host.visibleGpus, host.parentVisibleDevices));
        } catch (const RunPlanError&) {
            throw;
        } catch (const std::exception& e) {
            throw RunPlanError(Code::BadGpus, fmt::format("--gpus: {}", e.what()), e.what());
        }
    }
    if (r.jobs > 0) {
        p.jobs = r.jobs;
    } else {
        const auto aj = autoJobs(p.device, static_cast<int>(p.gpus.size()), host.cores, host.memAvailableGiB);
        p.jobs = aj.jobs;
        p.jobsWhy = aj.why;
    }
    p.candidateTimeout = r.timeout > 0 ? r.timeout : (p.cuda() ? 120 : 300);
    p.sandbox = *parseSandboxMode(r.sandbox);
    p.warmWorkers = *parseWarmWorkers(r.warmWorkers);  // checkRequest refused any other word
    p.referenceServers = r.referenceServers;
    p.protocol = *parseProtocol(r.protocol);
    p.extendedStart = *parseExtendedStart(r.extendedStart);  // checkRequest refused any other word
    p.perf = r.perf;
    p.perfWorkers = r.perfWorkers;
    p.perfOverrides = perfOverrides(r.perfConfig, r.perfBaselines);
    p.perfConfig = PerfConfig::fromJson(p.perfOverrides, p.device);
    p.autotuneReplay = r.autotuneReplay;
    return p;
}

EvalOptions toEvalOptions(const RunPlan& p)
{
    EvalOptions o;
    o.device = p.device;
    o.jobs = p.jobs;
    o.deviceSlots = p.gpus;
    o.candidateTimeout = p.candidateTimeout;
    o.referenceTimeout = p.referenceTimeout;
    o.compareTimeout = p.compareTimeout;
    o.perfTimeout = p.perfTimeout;
    o.sandbox = p.sandbox;
    o.warmWorkers = p.warmWorkers;
    o.referenceServers = p.referenceServers;
    o.protocol = p.protocol;
    o.extendedStart = p.extendedStart;
    o.perf = p.perf;
    o.perfPipeline = p.perfWorkers;
    o.perfConfig = p.perfOverrides;
    o.autotuneReplay = p.autotuneReplay;
    return o;
}

}  // namespace kbx
