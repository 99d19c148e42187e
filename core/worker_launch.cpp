// SPDX-License-Identifier: MIT
#include "worker_launch.h"

#include "evalutil.h"
#include "protocol.h"
#include "sandbox.h"
#include "warm.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>

namespace kbx {
namespace fs = std::filesystem;
using evalutil::findFrame;
using evalutil::tail;

std::map<std::string, std::string> workerEnvFor(const WorkerConfig& worker, Device device)
{
    auto env = worker.env;
    env["PYTHONDONTWRITEBYTECODE"] = "1";
    env["PYTHONUNBUFFERED"] = "1";
    env["OMP_NUM_THREADS"] = "1";
    if (device == Device::Cpu)
        env["TRITON_INTERPRET"] = "1";
    return env;
}

WorkerLauncher::WorkerLauncher(const WorkerConfig& worker, const EvalOptions& opt, fs::path storePath)
    : m_worker(worker), m_opt(opt), m_storePath(std::move(storePath))
{
}

void WorkerLauncher::beginRun(fs::path scratch, const std::atomic<bool>* cancel)
{
    m_scratch = std::move(scratch);
    m_cancel = cancel;
}

std::map<std::string, std::string> WorkerLauncher::workerEnv() const
{
    return workerEnvFor(m_worker, m_opt.device);
}

fs::path WorkerLauncher::writeRequest(const std::string& role, const nlohmann::json& request, const fs::path& dir) const
{
    // A sandboxed stage may have written here before (a candidate's directory): never follow what it
    // left where we write next (a symlink named like our request file, or like this directory).
    std::error_code rmEc;
    if (fs::is_symlink(fs::symlink_status(dir, rmEc)))
        fs::remove(dir, rmEc);
    fs::create_directories(dir);
    const auto reqPath = dir / (role + "-request.json");
    fs::remove_all(reqPath, rmEc);
    if (role == "compare" && request.contains("outputs_file") && request["outputs_file"].is_string()) {
        // Only a regular file is read as the candidate's outputs (no symlink to our files, no FIFO).
        const fs::path outputs = request["outputs_file"].get<std::string>();
        if (auto st = fs::symlink_status(outputs, rmEc); fs::exists(st) && !fs::is_regular_file(st))
            fs::remove_all(outputs, rmEc);
    }
    // O_EXCL | O_NOFOLLOW: a file (or link) that appeared again since is refused, not followed.
    const auto text = request.dump(2);
    int fd = ::open(reqPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
        if (fd >= 0)
            ::close(fd);
        throw std::runtime_error(fmt::format("cannot write {}", reqPath.string()));
    }
    ::close(fd);
    return reqPath;
}

SandboxRequest WorkerLauncher::sandboxRequest(const nlohmann::json& request, const fs::path& dir, double timeout) const
{
    SandboxRequest sb;
    sb.workDir = dir;
    sb.traverseRoot = m_scratch;
    sb.gpu = m_opt.device == Device::Cuda;
    const fs::path taskFile = request.value("task_file", std::string());
    const fs::path tasksDir = taskFile.parent_path().parent_path();
    sb.readOnly = workerRuntimePaths();
    sb.readOnly.push_back(m_worker.worker);
    sb.readOnly.push_back(tasksDir);
    for (const char* k : {"source_file", "inputs_file", "task_file"})
        if (request.contains(k) && request[k].is_string())
            sb.readOnly.push_back(request[k].get<std::string>());
    // The run's scratch (reference outputs, other candidates), the database, $HOME, tests/.
    sb.hidden = defaultHiddenPaths(tasksDir);
    sb.hidden.push_back(m_scratch);
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        sb.hidden.push_back(m_storePath.string() + suffix);
    if (request.contains("inputs_file") && request["inputs_file"].is_string()) {
        // Beside the inputs lie the reference outputs: unreadable for a uid of its own. The
        // tiers' inputs files stay readable: they hold nothing the same candidate's other tier
        // does not get, and a concurrent candidate of this task may be about to open one.
        const fs::path inputs = request["inputs_file"].get<std::string>();
        std::error_code ec;
        for (auto it = fs::directory_iterator(inputs.parent_path(), ec); !ec && it != fs::directory_iterator(); it.increment(ec))
            if (it->path() != inputs && !it->path().filename().string().starts_with("inputs"))
                sb.unreadable.push_back(it->path());
    }
    sb.limits.cpuSeconds = 2 * timeout + 30;
    if (m_opt.device == Device::Cpu)
        sb.limits.addressSpace = 8ull << 30;  // not on CUDA: the driver reserves far more address space than memory
    return sb;
}

ProcessResult WorkerLauncher::run(const std::string& role, const nlohmann::json& request, const fs::path& dir, double timeout,
                                  const DeviceSlot& slot, ReplyFn reply, bool allowWarm, const std::atomic<bool>* abandon) const
{
    const auto reqPath = writeRequest(role, request, dir);
    ProcessSpec spec;
    spec.argv = {m_worker.worker.string(), role, "--request", reqPath.string(), "--protocol",
                 std::to_string(protocol::kProtocolVersion)};
    spec.env = workerEnv();
    for (const auto& [k, v] : slot.env)
        spec.env[k] = v;
    if (m_opt.device == Device::Cuda)
        spec.unsetEnv.push_back("TRITON_INTERPRET");
    spec.cwd = dir;
    spec.timeoutSeconds = timeout;
    spec.cancel = m_cancel;
    spec.abandon = abandon;
    spec.reply = std::move(reply);
    // Perf workers start cold: on the H200, two perf stages with warm perf workers stalled on both GPUs
    // (every remaining timing waited for minutes behind one worker). The likely cause was a re-check
    // through a verifying drive(), since bounded, not the fork; they stay cold until a GPU run shows
    // warm ones are safe (docs/PERF_PROTOCOL.md). Reference and candidate workers run warm there.
    // A slot whose environment sets what only a starting interpreter or loader reads (PYTHON*, LD_*)
    // cannot be served by a warm worker that started before: its workers start cold.
    const bool slotWarmable = std::none_of(slot.env.begin(), slot.env.end(), [](const auto& kv) {
        return kv.first.rfind("PYTHON", 0) == 0 || kv.first.rfind("LD_", 0) == 0;
    });
    if (m_warm && allowWarm && slotWarmable && (role == "reference" || role == "candidate" || role == "precompile"))
        spec.warm = m_warm;
    // Roles that import candidate code run sandboxed (core/sandbox.h); reference and compare are ours.
    std::unique_ptr<SandboxLease> lease;
    const bool untrusted = role == "candidate" || role == "perf" || role == "precompile";
    if (untrusted)
        lease = applySandbox(resolveSandbox(m_opt.sandbox), sandboxRequest(request, dir, timeout), spec);
    auto res = runProcess(spec);
    lease.reset();  // kills what the candidate left behind before anything reads its outputs
    if (res.warmLost) {
        // The warm worker died under this child (which died with it): nothing was judged. Once more,
        // started cold (the warm worker is out of use for the rest of the run).
        std::cerr << fmt::format("kbx: the warm worker was lost ({}); {} workers start cold from now on\n",
                                 m_warm ? m_warm->describe().value("why_not", std::string("?")) : std::string("?"), deviceName(m_opt.device));
        return run(role, request, dir, timeout, slot, spec.reply, /*allowWarm=*/false, abandon);
    }
    if (untrusted && res.frames.empty() && !res.timedOut && !res.cancelled && res.signal == 0 &&
        res.exitCode != 0) {
        // Not a word from the worker, not even its hello (sent before any candidate code runs): the
        // sandbox or the worker could not start (bwrap set-up, execve). Ours, not the candidate's.
        res.frames.push_back({{"type", "error"},
                              {"failure_class", "harness_error"},
                              {"message", fmt::format("the {} worker did not start (exit {}): {}", role, res.exitCode,
                                                      tail(res.stderrText, 500))}});
    }
    if (!res.frames.empty() && res.protocolError.empty()) {
        auto err = protocol::checkHello(res.frames.front());
        if (!err.empty())
            res.protocolError = err;
    }
    return res;
}

std::string WorkerLauncher::slotHealth(const DeviceSlot& slot, nlohmann::json* probeOut) const
{
    WorkerConfig w = m_worker;
    for (const auto& [k, v] : slot.env)
        w.env[k] = v;
    nlohmann::json p;
    try {
        p = Evaluator::probe(w);
    } catch (const std::exception& e) {
        return e.what();
    }
    if (probeOut)
        *probeOut = p;
    if (m_opt.device == Device::Cuda) {
        if (!p.value("cuda_available", false) || !p.contains("devices") || p["devices"].empty())
            return "no CUDA device visible through " + nlohmann::json(slot.env).dump();
        if (p.contains("cuda_works") && !p.value("cuda_works", false))
            return "the device cannot run a kernel: " + p.value("cuda_error", std::string("wrong result"));
    }
    return {};
}

Evaluator::WarmStart Evaluator::startWarm(const WorkerConfig& worker, const EvalOptions& opt, const fs::path& scratch)
{
    WarmStart ws;
    ws.device = opt.device;
    ws.scratch = scratch;
    const auto sb = resolveSandbox(opt.sandbox);
    if (opt.warmWorkers == WarmWorkers::Off)
        ws.coldWhy = "--warm-workers off";
    else if (sb.kind == SandboxKind::Bwrap)
        ws.coldWhy = "the bwrap sandbox is set up around exec, so every worker starts in a sandbox of its own";
    if (opt.warmWorkers == WarmWorkers::On && !ws.coldWhy.empty())
        throw std::invalid_argument("--warm-workers on: " + ws.coldWhy + " (use --sandbox rlimit or none)");
    if (!ws.coldWhy.empty() || worker.worker.empty())
        return ws;
    // Its environment is a candidate's (the allow-list when sandboxed) with its own HOME: what
    // Python and torch read while importing is what a fresh worker would have read.
    std::map<std::string, std::string> env;
    for (const auto& [k, v] : currentEnvironment())
        if (sb.kind == SandboxKind::None || candidateEnvAllowed(k))
            env[k] = v;
    for (const auto& [k, v] : workerEnvFor(worker, opt.device))
        env[k] = v;
    const auto home = scratch / "warm-worker";
    fs::create_directories(home);
    if (sb.kind != SandboxKind::None) {
        env["HOME"] = home.string();
        env["TMPDIR"] = home.string();
    }
    env["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1";  // torch.cuda.is_available() without creating CUDA state
    ws.worker = std::make_shared<WarmWorker>(
        std::vector<std::string>{worker.worker.string(), "zygote", "--protocol", std::to_string(protocol::kProtocolVersion)}, env,
        scratch / "warm-worker.log");
    return ws;
}

nlohmann::json Evaluator::probe(const WorkerConfig& worker)
{
    if (worker.worker.empty() || !fs::exists(worker.worker))
        throw std::runtime_error("kbx-worker not found (build with KBX_BUILD_WORKER=ON or set KBX_WORKER)");
    ProcessSpec spec;
    spec.argv = {worker.worker.string(), "probe"};
    spec.env = worker.env;
    spec.timeoutSeconds = 120;
    auto res = runProcess(spec);
    auto* result = findFrame(res, "result");
    if (!result || res.exitCode != 0)
        throw std::runtime_error(fmt::format("kbx-worker probe failed (exit {}, signal {}): {}", res.exitCode, res.signal,
                                             tail(res.stderrText, 2000)));
    return *result;
}

}  // namespace kbx
