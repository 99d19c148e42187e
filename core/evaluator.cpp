// SPDX-License-Identifier: MIT
#include "evaluator.h"
#include "perfstats.h"

#include "protocol.h"
#include "quantevidence.h"
#include "sandbox.h"
#include "source.h"
#include "taxonomy.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <random>
#include <deque>
#include <thread>

namespace kbx {
namespace fs = std::filesystem;

namespace {

std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

void writeText(const fs::path& p, const std::string& text)
{
    std::ofstream out(p, std::ios::binary);
    out << text;
    if (!out)
        throw std::runtime_error(fmt::format("cannot write {}", p.string()));
}

const nlohmann::json* findFrame(const ProcessResult& r, const std::string& type)
{
    for (const auto& f : r.frames)
        if (f.value("type", "") == type)
            return &f;
    return nullptr;
}

std::string num(const nlohmann::json& j, const char* key)
{
    if (!j.contains(key))
        return "?";
    if (j[key].is_number_float())
        return fmt::format("{:.3g}", j[key].get<double>());
    if (j[key].is_string())
        return j[key].get<std::string>();
    return j[key].dump();
}

/// One line for people from a case's evidence (the full evidence stays in the database).
std::string describe(const std::string& cls, const nlohmann::json& e)
{
    if (e.contains("message") && e["message"].is_string() && !e["message"].get<std::string>().empty())
        return e["message"].get<std::string>();
    if ((cls == "shape_mismatch" || cls == "input_mutated") && e.contains("reason") && e["reason"].is_string() &&
        !e.contains("ref_structure") && !e.contains("changed_elements"))
        return e.contains("input") ? fmt::format("{}: {}", num(e, "input"), e["reason"].get<std::string>()) : e["reason"].get<std::string>();
    if (cls == "shape_mismatch") {
        if (e.contains("ref_structure"))
            return fmt::format("output structure {} expected, got {}", e["ref_structure"].get<std::string>(), e["cand_structure"].get<std::string>());
        return fmt::format("shape {} expected, got {}", num(e, "ref_shape"), num(e, "cand_shape"));
    }
    if (cls == "dtype_mismatch")
        return fmt::format("dtype {} expected, got {}", num(e, "ref_dtype"), num(e, "cand_dtype"));
    if (cls == "nan_inf_mismatch")
        return fmt::format("NaN/Inf positions differ ({} NaN, {} Inf mismatches); first at {}: reference {}, candidate {}",
                           num(e, "nan_mismatches"), num(e, "inf_mismatches"), num(e, "first_mismatch_index"), num(e, "ref_value"), num(e, "cand_value"));
    if (cls == "input_mutated")
        return fmt::format("input tensor {} was modified ({} elements changed)", e.contains("input") ? num(e, "input") : num(e, "input_tensor"),
                           num(e, "changed_elements"));
    if (cls == "value_mismatch") {
        if (e.contains("cosine_sim"))
            return fmt::format("quantization metrics: cosine {} relL1 {} RMSE {} (thresholds {})", num(e, "cosine_sim"), num(e, "l1_relative"),
                               num(e, "rmse"), e.value("thresholds", nlohmann::json()).dump());
        if (e.contains("reason"))
            return e["reason"].get<std::string>();
        // The low-signal guard decided (issue 24): say its rule, not the elementwise test it overrides
        // ("0 of 3 elements outside ... would pass with atol=1e-40" named a test that passed).
        if (const auto& g = e.contains("low_signal_guard") ? e["low_signal_guard"] : nlohmann::json(); g.is_object()) {
            const double relL2 = g.value("rel_l2", 0.0), limit = g.value("limit", 0.0);
            if (!e.contains("max_abs_err") || relL2 > limit)
                return fmt::format("low-signal guard: the reference is about as small as atol (RMS {:.3g}, under 10 x atol = {}), where "
                                   "an elementwise test passes anything near zero{}; the guard demands a relative L2 error "
                                   "of at most {:.3g}, the candidate's is {:.3g}",
                                   g.value("ref_rms", 0.0), e.contains("atol") ? fmt::format("{:.3g}", 10 * e.value("atol", 0.0)) : "?",
                                   e.contains("mismatch_count")
                                       ? fmt::format(" ({} of {} elements outside atol={} rtol={})", num(e, "mismatch_count"), num(e, "numel"),
                                                     num(e, "atol"), num(e, "rtol"))
                                       : std::string(),
                                   limit, relL2);
        }
        if (e.contains("max_abs_err"))
            return fmt::format("max abs err {} at {} (ref {}, cand {}); {} of {} elements outside atol={} rtol={}; would pass with atol={} or rtol={}",
                               num(e, "max_abs_err"), num(e, "worst_index"), num(e, "ref_at_worst"), num(e, "cand_at_worst"),
                               num(e, "mismatch_count"), num(e, "numel"), num(e, "atol"), num(e, "rtol"), num(e, "passing_atol_at_rtol"),
                               num(e, "passing_rtol_at_atol"));
        if (e.contains("mismatch_count"))
            return fmt::format("{} elements differ (exact comparison); first at {}: ref {}, cand {}", num(e, "mismatch_count"),
                               num(e, "first_mismatch_index"), num(e, "ref_value"), num(e, "cand_value"));
    }
    if (e.contains("reason"))
        return e["reason"].get<std::string>();
    return e.dump().substr(0, 300);
}

/// Text safe to store and print: control characters other than newline and tab become '?'.
std::string printable(std::string s)
{
    for (auto& ch : s)
        if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
            ch = '?';
    return s;
}

/// printable() on every string and object key of candidate-written JSON evidence before it is stored.
nlohmann::json printableStrings(const nlohmann::json& j)
{
    if (j.is_string())
        return printable(j.get<std::string>());
    if (j.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [k, v] : j.items())
            out[printable(k)] = printableStrings(v);
        return out;
    }
    if (j.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& v : j)
            out.push_back(printableStrings(v));
        return out;
    }
    return j;
}

int precedence(const std::string& cls)
{
    if (auto c = failureClassFromString(cls))
        return static_cast<int>(*c);
    return 1000;
}

std::string hostName()
{
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return buf;
}

/// Why a frame from a candidate's worker cannot be read as the harness writes it (empty: it can).
/// Candidate code can send frames itself; a field of the wrong type must make the worker's stream
/// "broken" (a crash, the candidate's failure), not throw in kbx (which would leave it unjudged).
std::string frameTypeProblem(const nlohmann::json& f)
{
    if (!f.is_object())
        return "not a JSON object";
    // Null is the harness's own "none" for a traceback line anywhere, and for the failure fields of a
    // static check that passed; everywhere else a field kbx reads must have its type.
    const bool staticOk = f.value("type", nlohmann::json()).is_string() && f["type"] == "static" && f.contains("ok") &&
                          f["ok"].is_boolean() && f["ok"].get<bool>();
    auto want = [&](const char* key, auto pred, const char* what) -> std::string {
        if (!f.contains(key) || pred(f[key]))
            return {};
        const std::string k = key;
        if (f[key].is_null() && (k == "line" || (staticOk && (k == "failure_class" || k == "message" || k == "entry"))))
            return {};
        return fmt::format("\"{}\" is not {}", key, what);
    };
    const auto isStr = [](const nlohmann::json& v) { return v.is_string(); };
    const auto isInt = [](const nlohmann::json& v) { return v.is_number_integer(); };
    const auto isNum = [](const nlohmann::json& v) { return v.is_number(); };
    const auto isBool = [](const nlohmann::json& v) { return v.is_boolean(); };
    const auto isObj = [](const nlohmann::json& v) { return v.is_object(); };
    const auto isArr = [](const nlohmann::json& v) { return v.is_array(); };
    for (const char* k : {"type", "name", "status", "message", "failure_class", "stage", "traceback", "entry"})
        if (auto w = want(k, isStr, "a string"); !w.empty())
            return w;
    for (auto w : {want("index", isInt, "an integer"), want("line", isInt, "an integer"), want("seconds", isNum, "a number"),
                   want("ok", isBool, "a boolean"), want("versions", isObj, "an object"), want("launches", isObj, "an object"),
                   want("triton_kernels", isArr, "an array"), want("phases", isObj, "an object")})
        if (!w.empty())
            return w;
    if (f.contains("launches"))
        for (const auto& [k, v] : f["launches"].items())
            if (!v.is_number_integer())
                return "a launch count is not an integer";
    return {};
}

/// The slot (index into EvalOptions::slots) the calling thread works for.
thread_local std::size_t t_slot = 0;

/// The function the harness calls: the task's entry point, or the alias the static check found.
std::string entryPoint(const EvaluationRecord& rec, const TaskInfo& task)
{
    if (auto it = rec.evidence.find("static"); it != rec.evidence.end() && it->is_object())
        return it->value("entry", task.entry);
    return task.entry;
}
}  // namespace

std::vector<DeviceSlot> gpuSlots(const std::vector<std::string>& gpus)
{
    std::vector<DeviceSlot> slots;
    for (const auto& g : gpus) {
        if (g.empty())
            continue;
        for (const auto& s : slots)
            if (s.name == g)
                throw std::invalid_argument("GPU " + g + " given twice");
        slots.push_back({g, {{"CUDA_VISIBLE_DEVICES", g}}});
    }
    return slots;
}

Evaluator::Evaluator(const TaskCatalogue& catalogue, Store& store, WorkerConfig worker, EvalOptions options)
    : m_catalogue(catalogue), m_store(store), m_worker(std::move(worker)), m_opt(std::move(options)),
      m_perf(PerfConfig::fromJson(m_opt.perfConfig, m_opt.device))
{
    if (m_opt.jobs < 1)
        m_opt.jobs = 1;
    if (m_opt.deviceSlots.empty())
        m_opt.deviceSlots.push_back({});
    m_peaks.assign(m_opt.deviceSlots.size(), nullptr);
    m_slotProbe.assign(m_opt.deviceSlots.size(), nullptr);
    m_calibrating.assign(m_opt.deviceSlots.size(), 0);
    for (std::size_t k = 0; k < m_opt.deviceSlots.size(); ++k)
        m_timingLocks.push_back(std::make_unique<std::timed_mutex>());
}

namespace {
std::map<std::string, std::string> workerEnvFor(const WorkerConfig& worker, const std::string& device)
{
    auto env = worker.env;
    env["PYTHONDONTWRITEBYTECODE"] = "1";
    env["PYTHONUNBUFFERED"] = "1";
    env["OMP_NUM_THREADS"] = "1";
    if (device == "cpu")
        env["TRITON_INTERPRET"] = "1";
    return env;
}
}  // namespace

std::map<std::string, std::string> Evaluator::workerEnv() const
{
    return workerEnvFor(m_worker, m_opt.device);
}

ProcessResult Evaluator::runWorker(const std::string& role, const nlohmann::json& request, const fs::path& dir,
                                   double timeout, std::function<std::string(const nlohmann::json&)> reply, bool allowWarm) const
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
    {
        // O_EXCL | O_NOFOLLOW: a file (or link) that appeared again since is refused, not followed.
        const auto text = request.dump(2);
        int fd = ::open(reqPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
            if (fd >= 0)
                ::close(fd);
            throw std::runtime_error(fmt::format("cannot write {}", reqPath.string()));
        }
        ::close(fd);
    }
    ProcessSpec spec;
    spec.argv = {m_worker.worker.string(), role, "--request", reqPath.string(), "--protocol",
                 std::to_string(protocol::kProtocolVersion)};
    spec.env = workerEnv();
    for (const auto& [k, v] : m_opt.deviceSlots.at(t_slot).env)
        spec.env[k] = v;
    if (m_opt.device != "cpu")
        spec.unsetEnv.push_back("TRITON_INTERPRET");
    spec.cwd = dir;
    spec.timeoutSeconds = timeout;
    spec.cancel = m_cancel;
    spec.reply = std::move(reply);
    // Perf workers start cold: on the H200, two perf stages with warm perf workers stalled on both GPUs
    // (every remaining timing waited for minutes behind one worker). The likely cause was a re-check
    // through a verifying drive(), since bounded, not the fork; they stay cold until a GPU run shows
    // warm ones are safe (docs/PERF_PROTOCOL.md). Reference and candidate workers run warm there.
    // A slot whose environment sets what only a starting interpreter or loader reads (PYTHON*, LD_*)
    // cannot be served by a warm worker that started before: its workers start cold.
    const auto& slotEnv = m_opt.deviceSlots.at(t_slot).env;
    const bool slotWarmable = std::none_of(slotEnv.begin(), slotEnv.end(), [](const auto& kv) {
        return kv.first.rfind("PYTHON", 0) == 0 || kv.first.rfind("LD_", 0) == 0;
    });
    if (m_warm && allowWarm && slotWarmable && (role == "reference" || role == "candidate" || role == "precompile"))
        spec.warm = m_warm;
    // Roles that import candidate code run sandboxed (core/sandbox.h); reference and compare are ours.
    std::unique_ptr<SandboxLease> lease;
    const bool untrusted = role == "candidate" || role == "perf" || role == "precompile";
    if (untrusted) {
        SandboxRequest sb;
        sb.workDir = dir;
        sb.traverseRoot = m_scratch;
        sb.gpu = m_opt.device != "cpu";
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
            sb.hidden.push_back(m_store.path().string() + suffix);
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
        if (m_opt.device == "cpu")
            sb.limits.addressSpace = 8ull << 30;  // not on CUDA: the driver reserves far more address space than memory
        lease = applySandbox(resolveSandbox(m_opt.sandbox), sb, spec);
    }
    auto res = runProcess(spec);
    lease.reset();  // kills what the candidate left behind before anything reads its outputs
    if (res.warmLost) {
        // The warm worker died under this child (which died with it): nothing was judged. Once more,
        // started cold (the warm worker is out of use for the rest of the run).
        std::cerr << fmt::format("kbx: the warm worker was lost ({}); {} workers start cold from now on\n",
                                 m_warm ? m_warm->describe().value("why_not", std::string("?")) : std::string("?"), m_opt.device);
        return runWorker(role, request, dir, timeout, spec.reply, /*allowWarm=*/false);
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

Evaluator::WarmStart Evaluator::startWarm(const WorkerConfig& worker, const EvalOptions& opt, const fs::path& scratch)
{
    WarmStart ws;
    ws.device = opt.device;
    ws.scratch = scratch;
    const auto sb = resolveSandbox(opt.sandbox);
    if (opt.warmWorkers == "off")
        ws.coldWhy = "--warm-workers off";
    else if (sb.kind == SandboxKind::Bwrap)
        ws.coldWhy = "the bwrap sandbox is set up around exec, so every worker starts in a sandbox of its own";
    if (opt.warmWorkers == "on" && !ws.coldWhy.empty())
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

const Evaluator::RefBundle& Evaluator::reference(const TaskInfo& task)
{
    std::mutex* lock;
    {
        std::lock_guard g(m_refMutex);
        auto& l = m_refLocks[task.id];
        if (!l)
            l = std::make_unique<std::mutex>();
        lock = l.get();
    }
    std::lock_guard g(*lock);
    // A working reference serves every slot; a failed one only the slot it failed on (another GPU
    // tries again: the failure may be that device's, not the task's).
    const std::string failKey = fmt::format("{}@{}", task.id, t_slot);
    {
        std::lock_guard g2(m_refMutex);
        if (auto it = m_refs.find(task.id); it != m_refs.end())
            return *it->second;
        if (auto it = m_refs.find(failKey); it != m_refs.end())
            return *it->second;
    }
    auto bundle = std::make_unique<RefBundle>();
    auto dir = m_scratch / "reference" / fmt::format("{}__{}", task.category, task.stem);
    // Only the per-tier files (each tier is judged in a process of its own); the whole set is not
    // written a second time.
    nlohmann::json req = {{"task_id", task.id},
                          {"task_file", m_catalogue.taskFile(task).string()},
                          {"device", m_opt.device},
                          {"seeds", m_seeds}};
    for (const char* tier : {"contract", "extended"})
        req["tier_out"][tier] = {{"inputs_out", (dir / fmt::format("inputs-{}.pt", tier)).string()},
                                 {"ref_out", (dir / fmt::format("reference-{}.pt", tier)).string()}};
    auto res = runWorker("reference", req, dir, m_opt.referenceTimeout);
    auto* result = findFrame(res, "result");
    if (res.exitCode == 0 && result && res.protocolError.empty()) {
        bundle->ok = true;
        bundle->cases = result->value("cases", 0);
        bundle->seconds = res.seconds;
        if (const auto ph = result->value("phases", nlohmann::json()); ph.is_object())
            bundle->phases = printableStrings(ph);
        // Our own reference process says which cases fall in which tier (kbx_harness/contract.py).
        const auto tc = result->value("tier_cases", nlohmann::json::object());
        for (const char* tier : {"contract", "extended"}) {
            if (!tc.is_object() || !tc.contains(tier) || !tc[tier].is_array() || tc[tier].empty())
                continue;
            RefBundle::Tier t{req["tier_out"][tier]["inputs_out"].get<std::string>(),
                              req["tier_out"][tier]["ref_out"].get<std::string>(), {}};
            const auto cd = result->value("case_dtypes", nlohmann::json::array());
            for (const auto& i : tc[tier]) {
                t.indices.push_back(i.get<int>());
                std::vector<std::string> d;
                if (cd.is_array() && i.get<int>() >= 0 && i.get<int>() < static_cast<int>(cd.size()) && cd[i.get<int>()].is_array())
                    for (const auto& x : cd[i.get<int>()])
                        if (x.is_string())
                            d.push_back(x.get<std::string>());
                t.dtypes.push_back(std::move(d));
            }
            bundle->tiers[tier] = std::move(t);
        }
        if (bundle->tiers.empty()) {
            bundle->ok = false;
            bundle->error = fmt::format("reference for {} reported no tier files", task.id);
        }
        if (const auto r = result->value("case_tier_reasons", nlohmann::json::array()); r.is_array())
            for (const auto& w : r)
                bundle->tierReasons.push_back(w.is_string() ? w.get<std::string>() : std::string());
        bundle->contractNote = result->value("contract", std::string());
    } else {
        std::string msg;
        if (auto* e = findFrame(res, "error"))
            msg = e->value("message", "");
        if (res.timedOut)
            msg = "reference timed out";
        if (msg.empty())
            msg = fmt::format("exit {} signal {} {}", res.exitCode, res.signal, res.protocolError);
        bundle->error = fmt::format("reference for {} failed: {} | {}", task.id, msg, tail(res.stderrText, 1500));
    }
    std::lock_guard g2(m_refMutex);
    return *(m_refs[bundle->ok ? task.id : failKey] = std::move(bundle));
}

std::string Evaluator::judgeDrive(const TaskInfo& task, const RefBundle::Tier& files, const fs::path& dir, const fs::path& outputs,
                                  EvaluationRecord& rec) const
{
    auto beside = [&](const char* suffix) { return dir / (outputs.stem().string() + suffix); };
    const auto judged = beside(".judged.pt");
    std::error_code ec;
    fs::remove_all(judged, ec);  // whatever the candidate left under that name (the judge writes O_EXCL)
    nlohmann::json req = {{"task_id", task.id},
                          {"task_file", m_catalogue.taskFile(task).string()},
                          {"device", m_opt.device},
                          {"inputs_file", files.inputs.string()},
                          {"ref_file", files.ref.string()},
                          {"outputs_file", outputs.string()},
                          {"records_file", beside(".drive_records.pt").string()},  // kbx_harness.candidate.records_path
                          {"judged_out", judged.string()}};
    auto res = runWorker("judge", req, dir, m_opt.compareTimeout);
    rec.stageSeconds[outputs.stem().string() == "outputs" ? std::string("judge") : "judge_" + outputs.stem().string()] = res.seconds;
    const auto* result = findFrame(res, "result");
    if (!result || res.exitCode != 0 || !res.protocolError.empty() || res.timedOut) {
        std::string msg;
        if (const auto* e = findFrame(res, "error"))
            msg = e->value("message", "");
        return fmt::format("the judge of {}'s drive() failed (exit {}{}): {} {}", task.id, res.exitCode,
                           res.timedOut ? ", timed out" : "", msg, tail(res.stderrText, 1500));
    }
    rec.evidence["judge"] = {{"judged", result->value("judged", 0)},
                             {"rejected", result->value("rejected", nlohmann::json::array())},
                             {"problems", result->value("problems", nlohmann::json::object())}};
    fs::remove_all(outputs, ec);  // a file, or whatever the candidate left under that name
    fs::rename(judged, outputs, ec);  // the comparison reads the judged outputs, not the candidate's
    if (ec)
        return fmt::format("cannot replace the candidate's outputs by the judged ones: {}", ec.message());
    return {};
}

Outcome Evaluator::evaluateOne(const Submission& sub, std::int64_t runId, std::int64_t methodId, int index)
{
    const auto t0 = std::chrono::steady_clock::now();
    Outcome out;
    out.taskId = sub.taskId;
    out.origin = sub.origin;
    out.method = sub.method.value_or(m_opt.method);
    if (sub.method)
        methodId = m_store.ensureMethod(*sub.method);
    out.round = sub.round.value_or(m_opt.round);
    out.codeHash = sha256Hex(sub.code);
    auto& rec = out.record;
    rec.runId = runId;
    rec.taskId = sub.taskId;
    rec.startedAt = nowIso8601();
    if (const auto& slot = m_opt.deviceSlots.at(t_slot); !slot.name.empty()) {
        // Which GPU produced this verdict (multi-GPU runs): the user's name for it and its probe.
        nlohmann::json d = {{"slot", slot.name}};
        const auto& p = m_slotProbe.at(t_slot);
        if (p.is_object() && p.contains("devices") && p["devices"].is_array() && !p["devices"].empty())
            d["gpu"] = p["devices"][0];
        rec.evidence["device_slot"] = d;
    }
    auto finish = [&](bool store) {
        rec.finishedAt = nowIso8601();
        // Whatever the candidate's process could have written: classes inside taxonomy v1, text
        // without control characters (an ANSI escape must not redraw a terminal line as a pass).
        auto inTaxonomy = [](std::optional<std::string>& cls) {
            if (cls && *cls != "skipped" && !failureClassFromString(*cls))
                cls = "runtime_error";
        };
        inTaxonomy(rec.failureClass);
        inTaxonomy(rec.extFailureClass);
        rec.failureDetail = printable(rec.failureDetail);
        for (auto& c : rec.cases) {
            inTaxonomy(c.failureClass);
            c.name = printable(c.name);
        }
        out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (store && !out.harnessError) {
            auto [cid, isNew] = m_store.ensureCandidate(sub.taskId, sub.code);
            out.candidateId = cid;
            out.newCandidate = isNew;
            rec.submissionId = m_store.ensureSubmission(cid, methodId, out.round, sub.origin);
            out.evaluationId = m_store.addEvaluation(rec);
        }
        return out;
    };
    auto fail = [&](const std::string& cls, const std::string& detail) {
        rec.pass = false;
        rec.failureClass = cls;
        rec.failureDetail = detail;
    };

    const TaskInfo* task = m_catalogue.find(sub.taskId);
    if (!task) {
        out.harnessError = true;
        out.harnessMessage = "unknown task " + sub.taskId;
        return finish(false);
    }
    if (sub.code.find_first_not_of(" \t\r\n") == std::string::npos) {
        fail("empty", "the submission holds no code after removing fences and the test section");
        return finish(true);
    }
    const auto& ref = reference(*task);
    if (!ref.ok) {
        out.harnessError = true;
        out.harnessMessage = ref.error;
        return finish(false);
    }
    rec.stageSeconds["reference_cases"] = ref.cases;
    rec.stageSeconds["reference"] = ref.seconds;
    if (!ref.phases.is_null())
        rec.stageSeconds["reference_phases"] = ref.phases;

    // Candidate stage: a fresh process per tier, one scratch directory for the candidate.
    const auto dir = m_scratch / "candidates" / fmt::format("{:05d}-{}", index, out.codeHash.substr(0, 12));
    fs::create_directories(dir);
    writeText(dir / "candidate.py", sub.code);
    rec.protocol = m_opt.protocol;
    const auto contractTier = ref.tiers.find("contract");
    if (contractTier == ref.tiers.end()) {
        out.harnessError = true;
        out.harnessMessage = "the reference produced no contract-tier cases for " + task->id;
        return finish(false);
    }
    if (!judgeTier(sub, *task, "contract", contractTier->second, dir, rec, out))
        return finish(false);
    if (!ref.contractNote.empty())
        rec.evidence["contract"] = ref.contractNote;
    // The autotune sweep (issue 22): a candidate whose @triton.autotune has K configs ran its contract
    // cases under the first (pin 0, above); it now runs them under each other config, each in a
    // process of its own. Which config Triton's autotuner picks is a race between timings (two runs
    // picked differently on 12 of 93 timed shapes on the H200, and a real generated smooth_l1_loss,
    // wrong at BLOCK_SIZE 256 and 512, passed or failed with the winner): a kernel must be right under
    // every config its autotuner may choose. K comes from the candidate process's autotune record
    // (at most 16); configs that cannot run for an input are skipped as the autotuner skips them.
    if (rec.pass && rec.evidence.contains("autotune") && rec.evidence["autotune"].is_object()) {
        int k = 1;
        for (const auto& [name, a] : rec.evidence["autotune"].items())
            if (a.is_object() && a.contains("configs") && a["configs"].is_number_integer())
                k = std::max(k, std::min(16, a["configs"].get<int>()));
        if (k > 1) {
            nlohmann::json sweep = {{"configs", k}, {"runs", nlohmann::json::array()}};
            auto chosen = [](const nlohmann::json& at) {
                std::string s;
                if (at.is_object())
                    for (const auto& [name, a] : at.items())
                        if (a.is_object() && a.contains("keys") && a["keys"].is_object() && !a["keys"].empty())
                            s += (s.empty() ? "" : "; ") + name + ": " + a["keys"].begin().value().get<std::string>();
                return s.substr(0, 400);
            };
            sweep["runs"].push_back({{"pin", 0}, {"pass", true}, {"config", chosen(rec.evidence["autotune"])}});
            // The other configs run at once, up to kSweepParallel processes (issue 22: a swept kernel
            // was the correctness stage's tail, 22.7 s of sequential sweep processes on the H200).
            // Each in a directory of its own (a process of its own under a uid of its own writes its
            // request, outputs and Triton cache there); the lowest failing config decides, so the
            // verdict does not depend on which process finishes first.
            struct PinRun {
                int pin = 0;
                bool judged = false;
                EvaluationRecord rec;
                Outcome out;
            };
            std::vector<PinRun> pins(static_cast<std::size_t>(k - 1));
            for (int pin = 1; pin < k; ++pin)
                pins[static_cast<std::size_t>(pin - 1)].pin = pin;
            constexpr std::size_t kSweepParallel = 4;
            const std::size_t slot = t_slot;
            for (std::size_t from = 0; from < pins.size(); from += kSweepParallel) {
                if (m_cancel && m_cancel->load())
                    break;
                std::vector<std::thread> threads;
                for (std::size_t i = from; i < std::min(pins.size(), from + kSweepParallel); ++i)
                    threads.emplace_back([&, i] {
                        t_slot = slot;  // the same GPU slot as the candidate's other processes
                        auto& pr = pins[i];
                        pr.rec.runId = rec.runId;
                        pr.rec.taskId = rec.taskId;
                        const auto pdir = dir / fmt::format("sweep-{}", pr.pin);
                        try {
                            fs::create_directories(pdir);
                            fs::copy_file(dir / "candidate.py", pdir / "candidate.py", fs::copy_options::overwrite_existing);
                            pr.judged = judgeTier(sub, *task, "contract", contractTier->second, pdir, pr.rec, pr.out, pr.pin);
                        } catch (const std::exception& e) {
                            pr.judged = false;
                            pr.out.harnessMessage = e.what();
                        }
                    });
                for (auto& t : threads)
                    t.join();
                bool failed = false;
                for (std::size_t i = from; i < std::min(pins.size(), from + kSweepParallel); ++i) {
                    auto& pr = pins[i];
                    if (!pr.judged) {
                        sweep["runs"].push_back({{"pin", pr.pin}, {"not_judged", pr.out.harnessMessage.substr(0, 300)}});
                        continue;
                    }
                    auto& prec = pr.rec;
                    const int pin = pr.pin;
                    const auto cfg = chosen(prec.evidence.value("autotune", nlohmann::json::object()));
                    sweep["runs"].push_back({{"pin", pin}, {"pass", prec.pass}, {"config", cfg},
                                             {"failure_class", prec.failureClass ? nlohmann::json(*prec.failureClass) : nlohmann::json()}});
                    rec.stageSeconds["autotune_sweep"] =
                        rec.stageSeconds.value("autotune_sweep", 0.0) + prec.stageSeconds.value(fmt::format("candidate_at{}", pin), 0.0);
                    if (!prec.pass && !failed) {  // every run that ran is recorded; the first failing one decides
                        rec.pass = false;
                        rec.callOk = rec.callOk && prec.callOk;
                        rec.exeOk = rec.exeOk && prec.exeOk;
                        rec.failureClass = prec.failureClass.value_or("value_mismatch");
                        rec.failureDetail = fmt::format("under autotune config {} of {} ({}): {}", pin + 1, k, cfg, prec.failureDetail);
                        if (prec.evidence.contains("first_failure"))
                            rec.evidence["first_failure"] = prec.evidence["first_failure"];
                        for (auto& c : prec.cases)
                            if (c.status != "pass" && rec.cases.size() < 1000) {
                                c.name += fmt::format(" [autotune config {}]", pin + 1);
                                c.tier = "contract";
                                rec.cases.push_back(std::move(c));
                            }
                        failed = true;
                    }
                }
                if (failed)
                    break;
            }
            sweep["parallel"] = kSweepParallel;
            rec.evidence["autotune_sweep"] = sweep;
        }
    }
    // Each tier's own verdict, whichever decided (kbx report --table protocol reads them).
    auto tierJson = [](const EvaluationRecord& r) {
        return nlohmann::json{{"pass", r.pass}, {"call_ok", r.callOk}, {"exe_ok", r.exeOk},
                              {"failure_class", r.failureClass ? nlohmann::json(*r.failureClass) : nlohmann::json()}};
    };
    rec.evidence["tiers"]["contract"] = tierJson(rec);
    // The extended tier (cases the seed's own tests never make): its own process, after a contract
    // tier whose outputs were right; stored beside the verdict, deciding it only under --protocol strict.
    if (const auto ext = ref.tiers.find("extended"); ext != ref.tiers.end()) {
        const int n = static_cast<int>(ext->second.indices.size());
        if (!rec.exeOk) {
            rec.evidence["extended"] = {{"cases", n}, {"ran", false}, {"why", "the contract tier failed"}};
        } else {
            EvaluationRecord erec;
            erec.runId = rec.runId;
            erec.taskId = rec.taskId;
            Outcome eout;
            nlohmann::json summary = {{"cases", n}, {"ran", true}};
            if (!judgeTier(sub, *task, "extended", ext->second, dir, erec, eout)) {
                // Not the candidate's doing (a worker that could not start): no extended figures.
                summary["ran"] = false;
                summary["why"] = "not judged: " + eout.harnessMessage.substr(0, 500);
            } else {
                int passed = 0, notJudged = 0;
                for (auto& c : erec.cases) {
                    passed += c.status == "pass";
                    notJudged += c.status == "not_judged";
                    if (c.index >= 0 && c.index < static_cast<int>(ref.tierReasons.size()) && c.evidence.is_object())
                        c.evidence["extended_because"] = ref.tierReasons[static_cast<std::size_t>(c.index)];
                    rec.cases.push_back(std::move(c));
                }
                rec.extCases = n - notJudged;  // cases the CPU interpreter's gaps leave unjudged do not count
                rec.extPassed = passed;
                if (notJudged)
                    summary["not_judged"] = notJudged;
                rec.evidence["tiers"]["extended"] = tierJson(erec);
                summary["passed"] = passed;
                summary["call_ok"] = erec.callOk;
                summary["exe_ok"] = erec.exeOk;
                if (erec.failureClass && !erec.exeOk) {
                    rec.extFailureClass = erec.failureClass;
                    summary["failure_class"] = *erec.failureClass;
                    summary["failure_detail"] = erec.failureDetail;
                    if (erec.evidence.contains("first_failure"))
                        summary["first_failure"] = erec.evidence["first_failure"];
                }
                if (m_opt.protocol == "strict" && !erec.exeOk) {
                    rec.pass = false;
                    rec.callOk = rec.callOk && erec.callOk;
                    rec.exeOk = false;
                    rec.failureClass = erec.failureClass.value_or("value_mismatch");
                    rec.failureDetail = "extended tier: " + erec.failureDetail;
                    if (erec.evidence.contains("first_failure"))
                        rec.evidence["first_failure"] = erec.evidence["first_failure"];
                }
            }
            rec.evidence["extended"] = summary;
        }
    }
    std::sort(rec.cases.begin(), rec.cases.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    if (rec.pass && m_opt.perf && m_opt.device != "cpu" && m_perf.precompile)
        precompile(rec, *task, dir);
    return finish(true);
}

static nlohmann::json contractTierTolerance(nlohmann::json contract)
{
    // The contract tier never asks for more precision than the seed's own comparison does
    // (fp16/bf16 rtol = atol = 5e-3, fp32/fp64 1e-5): a task's tighter float64 budget, say, applies
    // to its extended cases only. Looser task tolerances (TF32 matmuls, long reductions) stay.
    if (!contract.is_object() || !contract.contains("tolerance") || !contract["tolerance"].is_object())
        return contract;
    for (auto& [dtype, pair] : contract["tolerance"].items()) {
        const double floor = (dtype == "float16" || dtype == "bfloat16") ? 5e-3
                             : (dtype == "float32" || dtype == "float64" || dtype == "complex64" || dtype == "complex128") ? 1e-5
                                                                                                                          : 0.0;
        if (floor > 0 && pair.is_array() && pair.size() == 2 && pair[0].is_number() && pair[1].is_number()) {
            pair[0] = std::max(pair[0].get<double>(), floor);
            pair[1] = std::max(pair[1].get<double>(), floor);
        }
    }
    return contract;
}

bool Evaluator::judgeTier(const Submission& sub, const TaskInfo& taskRef, const std::string& tier,
                          const RefBundle::Tier& files, const fs::path& dir, EvaluationRecord& rec, Outcome& out, int autotunePin)
{
    const TaskInfo* task = &taskRef;
    // Stage names and files per tier: the contract tier keeps the names evaluations always had; the
    // autotune sweep's runs (pin > 0) get their own.
    const std::string sfx = (tier == "contract" ? std::string() : "_" + tier) + (autotunePin > 0 ? fmt::format("_at{}", autotunePin) : "");
    auto fail = [&](const std::string& cls, const std::string& detail) {
        rec.pass = false;
        rec.failureClass = cls;
        rec.failureDetail = detail;
    };
    // Indices in this tier's files -> the case's index among all of the task's cases.
    auto global = [&](int local) {
        return local >= 0 && local < static_cast<int>(files.indices.size()) ? files.indices[static_cast<std::size_t>(local)] : local;
    };
    auto tagTier = [&](std::size_t from) {
        for (std::size_t k = from; k < rec.cases.size(); ++k)
            rec.cases[k].tier = tier;
    };
    const std::size_t firstCase = rec.cases.size();
    struct TagOnExit {
        std::function<void()> f;
        ~TagOnExit() { f(); }
    } tagOnExit{[&] { tagTier(firstCase); }};
    const auto source = dir / "candidate.py";
    const auto outputs = dir / ("outputs" + sfx + ".pt");
    nlohmann::json creq = {{"task_id", task->id},
                           {"task_file", m_catalogue.taskFile(*task).string()},
                           {"source_file", source.string()},
                           {"inputs_file", files.inputs.string()},
                           {"outputs_file", outputs.string()},
                           {"device", m_opt.device},
                           {"skip_static_contract", sub.selfCheckReference},
                           // Every @triton.autotune takes its pin-th config instead of racing them
                           // (kbx_harness/autotune.py): the sweep below judges each config.
                           {"autotune_pin", autotunePin}};
    auto cres = runWorker("candidate", creq, dir, m_opt.candidateTimeout);
    for (std::size_t k = 0; k < cres.frames.size(); ++k)
        if (auto why = frameTypeProblem(cres.frames[k]); !why.empty()) {
            // Nothing from this frame on is read: the stream is broken (judged below as a crash).
            if (cres.protocolError.empty())
                cres.protocolError = fmt::format("frame {} is malformed: {}", k + 1, why);
            cres.frames.resize(k);
            break;
        }
    rec.stageSeconds["candidate" + sfx] = cres.seconds;
    nlohmann::json workerInfo = {{"exit_code", cres.exitCode}, {"signal", cres.signal}, {"timed_out", cres.timedOut},
                                 {"stderr_tail", tail(cres.stderrText, 4000)}, {"stdout_tail", tail(cres.stdoutText, 2000)},
                                 {"dropped_log_bytes", cres.droppedLogBytes}};
    if (!cres.protocolError.empty())
        workerInfo["protocol_error"] = cres.protocolError;
    rec.evidence["worker"] = workerInfo;

    std::map<int, nlohmann::json> candCases;
    const nlohmann::json* staticFrame = nullptr;
    const nlohmann::json* resultFrame = nullptr;
    for (const auto& f : cres.frames) {
        const auto type = f.value("type", "");
        if (type == "static")
            staticFrame = &f;
        else if (type == "case")
            candCases[f.value("index", -1)] = f;
        else if (type == "result")
            resultFrame = &f;
        else if (type == "hello")
            rec.evidence["versions"] = f.value("versions", nlohmann::json::object());
    }
    if (staticFrame)
        rec.evidence["static"] = *staticFrame;
    if (m_cancel && m_cancel->load()) {
        out.harnessError = true;
        out.harnessMessage = "cancelled";
        return false;
    }
    auto caseRecordsFromCandidate = [&] {
        for (const auto& [i, f] : candCases) {
            if (rec.cases.size() >= 1000)
                break;
            EvaluationRecord::Case c;
            c.index = global(i);
            c.name = f.value("name", "");
            c.status = f.value("status", "") == "error" ? "error" : "ran";
            if (f.contains("failure_class") && f["failure_class"].is_string())
                c.failureClass = f["failure_class"].get<std::string>();
            // Bounded per case (issue 20): the candidate's own frames, kept after a crash.
            c.evidence = {{"message", f.value("message", "").substr(0, 2000)}, {"seconds", f.value("seconds", 0.0)}};
            if (f.contains("line") && f["line"].is_number())
                c.evidence["line"] = f["line"];
            rec.cases.push_back(std::move(c));
        }
    };

    if (cres.timedOut) {
        fail("timeout", fmt::format("the candidate ran past the {:.0f} s limit and was killed with its process group", m_opt.candidateTimeout));
        caseRecordsFromCandidate();
        return true;
    }
    if (cres.signal != 0) {
        fail("crash", fmt::format("the worker died from {}{}", signalName(cres.signal),
                                  cres.signal == SIGKILL ? " (killed from outside: often the out-of-memory killer)" : ""));
        caseRecordsFromCandidate();
        return true;
    }
    if (staticFrame && !staticFrame->value("ok", false)) {
        fail(staticFrame->value("failure_class", "runtime_error"), staticFrame->value("message", ""));
        if (staticFrame->contains("line"))
            rec.evidence["line"] = (*staticFrame)["line"];
        return true;
    }
    if (!resultFrame || !cres.protocolError.empty()) {
        std::string why = !cres.protocolError.empty() ? "its protocol stream broke: " + cres.protocolError
                                                      : fmt::format("it exited with code {} before reporting a result", cres.exitCode);
        if (auto* e = findFrame(cres, "error"); e && e->value("failure_class", "") == "harness_error") {
            // Believed only before the candidate's code was imported (protocol::kImportingFrame):
            // after that the candidate may have sent it itself (tests/fixtures/exploits/forge_harness_error.py).
            if (!findFrame(cres, std::string(protocol::kImportingFrame))) {
                out.harnessError = true;
                out.harnessMessage = e->value("message", "") + " | " + tail(cres.stderrText, 1500);
                return false;
            }
            fail("crash", "the candidate's worker ended without a result after the candidate's code was imported; its harness_error "
                          "frame is not trusted from then on: " + e->value("message", std::string()).substr(0, 500));
            caseRecordsFromCandidate();
            return true;
        }
        fail("crash", "the candidate's worker ended early: " + why);
        caseRecordsFromCandidate();
        return true;
    }
    rec.evidence["launches"] = resultFrame->value("launches", nlohmann::json::object());
    // What @triton.autotune chose in the correctness stage (kbx_harness/autotune.py): evidence the
    // candidate's process writes, shown and never judged; bounded.
    if (auto at = resultFrame->value("autotune", nlohmann::json::object()); at.is_object() && !at.empty())
        rec.evidence["autotune"] = at.dump().size() <= 16384 ? printableStrings(at) : nlohmann::json{{"truncated_bytes", at.dump().size()}};
    rec.evidence["worker_start"] = cres.warm ? "warm" : "cold";  // forked from the warm worker, or fork+exec
    if (auto ph = resultFrame->value("phases", nlohmann::json::object()); ph.is_object()) {
        // Where the candidate process's time went (bench/): reported by the harness in the same
        // process as the candidate's code, so diagnostics only, never part of a verdict.
        nlohmann::json kept = nlohmann::json::object();
        for (const auto& [k, v] : ph.items())
            if (v.is_number() && k.size() <= 40 && kept.size() < 16)
                kept[k] = v;
        if (!kept.empty())
            rec.evidence["candidate_phases"] = kept;
    }
    rec.evidence["triton_kernels"] = resultFrame->value("triton_kernels", nlohmann::json::array());
    if (resultFrame->value("stage", "") == "import" || resultFrame->value("stage", "") == "static") {
        fail(resultFrame->value("failure_class", "runtime_error"), resultFrame->value("message", ""));
        rec.evidence["traceback"] = resultFrame->value("traceback", "");
        if (resultFrame->contains("line"))
            rec.evidence["line"] = (*resultFrame)["line"];
        return true;
    }
    // Gaps of Triton's CPU interpreter found by our canary (core/interpgaps): a case whose input
    // dtypes hit one is not judged on the CPU, whatever the candidate did or said.
    InterpGaps gaps;
    if (m_opt.device == "cpu")
        gaps = interpreterGaps();
    auto gapOf = [&](int local) -> std::string {
        if (m_opt.device != "cpu" || local < 0 || local >= static_cast<int>(files.dtypes.size()))
            return {};
        const auto hit = gapsForCase(gaps, files.dtypes[static_cast<std::size_t>(local)]);
        return hit.empty() ? std::string() : describeGaps(hit);
    };
    // A case in a gapped dtype that passes is judged (the gap only turns right results wrong: NaN,
    // a missing constant, a garbage dot product); one that fails or raises is not judged.
    int judgedCases = 0;
    int notJudgedCases = 0;
    std::string notJudgedWhy;
    bool callOk = true;
    for (const auto& [i, f] : candCases)
        if (f.value("status", "") == "error" && gapOf(i).empty())
            callOk = false;

    // Verifying drive(): its checks run trusted, on the entry's recorded results (judge role).
    if (task->driveChecks)
        if (auto why = judgeDrive(*task, files, dir, outputs, rec); !why.empty()) {
            out.harnessError = true;
            out.harnessMessage = why;
            return false;
        }

    // Compare stage: trusted C++ (LibTorch), in its own process.
    nlohmann::json qreq = {{"ref_file", files.ref.string()}, {"outputs_file", outputs.string()},
                           {"contract", tier == "contract" ? contractTierTolerance(task->contract()) : task->contract()}};
    auto qres = runWorker("compare", qreq, dir, m_opt.compareTimeout);
    rec.stageSeconds["compare" + sfx] = qres.seconds;
    auto* qresult = findFrame(qres, "result");
    if (!qresult || qres.exitCode != 0) {
        std::string msg;
        if (auto* e = findFrame(qres, "error"))
            msg = e->value("message", "");
        if (callOk) {
            out.harnessError = true;
            out.harnessMessage = fmt::format("comparison failed: {} {}", msg, tail(qres.stderrText, 1500));
            return false;
        }
    }
    std::string worst;
    nlohmann::json worstEvidence;
    std::string worstCase;
    bool worstIsCall = false;
    int judgedPasses = 0;
    for (const auto& f : qres.frames) {
        if (f.value("type", "") != "case")
            continue;
        EvaluationRecord::Case c;
        const int local = f.value("index", 0);
        c.index = global(local);
        c.name = f.value("name", "");
        c.status = f.value("status", "");
        c.evidence = f.value("evidence", nlohmann::json::object());
        if (const auto why = gapOf(local); !why.empty() && c.status != "pass") {
            // kept for the inspector, decides nothing
            ++notJudgedCases;
            if (notJudgedWhy.empty())
                notJudgedWhy = why;
            c.evidence["not_judged"] = why;
            c.evidence["status_on_cpu"] = c.status;
            c.status = "not_judged";
            if (auto it = candCases.find(local); it != candCases.end())
                c.evidence["seconds"] = it->second.value("seconds", 0.0);
            rec.cases.push_back(std::move(c));
            continue;
        }
        ++judgedCases;
        judgedPasses += c.status == "pass";
        if (f.contains("failure_class") && f["failure_class"].is_string()) {
            c.failureClass = f["failure_class"].get<std::string>();
            if (auto it = candCases.find(local); it != candCases.end()) {
                if (it->second.contains("line"))
                    c.evidence["line"] = it->second["line"];
                if (it->second.contains("traceback"))
                    c.evidence["traceback"] = it->second["traceback"];
            }
            // Among call failures (the candidate raised) the first case wins; otherwise the
            // exe failure of highest precedence (shape before dtype before values ...).
            const bool isCall = c.status == "error" && *c.failureClass != "skipped";
            const bool better = worst.empty() ? (c.status == "fail" || isCall)
                                              : (isCall && !worstIsCall) || (!isCall && !worstIsCall && c.status == "fail" && precedence(*c.failureClass) < precedence(worst));
            if (better) {
                worst = *c.failureClass;
                worstIsCall = isCall;
                worstEvidence = c.evidence;
                worstCase = c.name;
            }
        }
        if (auto it = candCases.find(local); it != candCases.end())
            c.evidence["seconds"] = it->second.value("seconds", 0.0);
        rec.cases.push_back(std::move(c));
    }
    if (qresult && judgedCases == 0 && notJudgedCases > 0) {
        // every case failed in a dtype the CPU interpreter gets wrong: nothing was judged
        out.harnessError = true;
        out.harnessMessage = notJudgedWhy + "; evaluate with --device cuda";
        return false;
    }
    const bool allPass = qresult && judgedPasses == judgedCases;
    rec.callOk = callOk;
    rec.exeOk = callOk && allPass;
    if (notJudgedCases > 0)
        rec.evidence["not_judged_cases"] = {{"count", notJudgedCases}, {"why", notJudgedWhy}};
    // A class the candidate's process names for itself ("interpreter_unsupported", anything outside
    // the taxonomy) is never a reason to leave it unjudged: it is a runtime error.
    if (!worst.empty() && !failureClassFromString(worst))
        worst = "runtime_error";
    if (!worst.empty()) {
        fail(worst, fmt::format("case {}: {}", worstCase, describe(worst, worstEvidence)));
        rec.evidence["first_failure"] = {{"case", worstCase}, {"evidence", worstEvidence}};
        if (worstEvidence.contains("line"))
            rec.evidence["line"] = worstEvidence["line"];
        return true;
    }
    if (!rec.exeOk) {
        fail("value_mismatch", "comparison did not pass");
        return true;
    }
    // Correct outputs: were they produced by a Triton kernel?
    int launches = 0;
    for (const auto& [name, n] : rec.evidence["launches"].items())
        launches += n.get<int>();
    if (launches == 0) {
        rec.exeOk = true;
        fail("not_triton_kernel",
             rec.evidence["triton_kernels"].empty() ? "the code defines no @triton.jit kernel; the outputs came from PyTorch"
                                                    : "a @triton.jit kernel is defined but none was launched; the outputs came from PyTorch");
        return true;
    }
    if (task->comparison == "quantization" && !sub.selfCheckReference) {
        // The quantization contract's runtime half (core/quantevidence): integer/low-precision data
        // reached a launched Triton kernel. Reported by the harness in the candidate's process, so,
        // like the launch counter, it can be forged there: it fails names-only cheats, it proves nothing.
        const auto ld = resultFrame->value("launch_dtypes", nlohmann::json::object());
        rec.evidence["launch_dtypes"] = ld;
        if (const auto why = quantEvidenceProblem(ld, rec.evidence["launches"]); !why.empty()) {
            fail("quant_contract_violated", why);
            return true;
        }
    }
    rec.pass = true;
    return true;
}

InterpGaps Evaluator::runCanary() const
{
    try {
        auto res = runWorker("canary", nlohmann::json::object(), m_scratch / "canary", 300, {}, /*allowWarm=*/false);
        if (res.timedOut)
            return unknownInterpGaps("the canary timed out");
        if (res.cancelled)
            return unknownInterpGaps("cancelled");
        auto* r = findFrame(res, "result");
        if (!r || res.exitCode != 0 || !res.protocolError.empty())
            return unknownInterpGaps(fmt::format("the canary failed (exit {}, signal {}{}): {}", res.exitCode, res.signal,
                                                 res.protocolError.empty() ? "" : ", " + res.protocolError, tail(res.stderrText, 800)));
        return parseCanaryResult(*r);
    } catch (const std::exception& e) {
        return unknownInterpGaps(std::string("the canary could not start: ") + e.what());
    }
}

InterpGaps Evaluator::interpreterGaps() const
{
    if (!m_interpGaps.valid()) {
        InterpGaps g;
        g.known = true;
        return g;
    }
    return m_interpGaps.get();
}

void Evaluator::precompile(EvaluationRecord& rec, const TaskInfo& task, const fs::path& dir) const
{
    // The perf shapes' Triton specialisations, compiled now (beside other correctness work) instead
    // of in the perf stage's exclusive window (kbx_harness/precompile.py). Best effort: whatever
    // happens here is kept as evidence and changes no verdict.
    nlohmann::json req = {{"task_id", task.id},
                          {"task_file", m_catalogue.taskFile(task).string()},
                          {"source_file", (dir / "candidate.py").string()},
                          {"entry", entryPoint(rec, task)},
                          {"device", m_opt.device},
                          {"config", m_perf.toJson()}};
    ProcessResult res;
    try {
        res = runWorker("precompile", req, dir, m_opt.candidateTimeout);
    } catch (const std::exception& e) {
        rec.evidence["precompile"] = {{"error", e.what()}};
        return;
    }
    rec.stageSeconds["precompile"] = res.seconds;
    nlohmann::json ev = {{"seconds", res.seconds}};
    const auto* r = findFrame(res, "result");
    if (r && r->value("ok", false)) {
        for (const char* k : {"shapes", "compiled", "inputs_seconds"})
            if (r->contains(k))
                ev[k] = (*r)[k];
    } else {
        ev["error"] = r ? r->value("message", std::string("precompile failed"))
                        : fmt::format("precompile worker ended without a result (exit {}, signal {}{})", res.exitCode, res.signal,
                                      res.timedOut ? ", timed out" : "");
    }
    rec.evidence["precompile"] = ev;
}

namespace {
// The repeat interval's prior and the extra processes: PerfConfig (core/perfconfig.h) holds their
// values and why.

nlohmann::json summaryJson(const perf::Summary& s)
{
    return {{"n", s.n}, {"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"iqr", s.iqr}, {"min", s.min},
            {"max", s.max}, {"cv", s.cv}};
}
std::vector<double> doubles(const nlohmann::json& a)
{
    std::vector<double> v;
    if (a.is_array())
        for (const auto& x : a)
            if (x.is_number() && x.get<double>() > 0)
                v.push_back(x.get<double>());
    return v;
}
/// The compute peak a shape is held against (issue 22): the arithmetic of what ran, as the perf
/// worker reports it from the actual inputs (`compute_dtype`: int8 for quantization tasks, else the
/// floating dtype of most input elements), the params' dtype only for an older worker's frame;
/// TF32 where the task allows it for fp32 (docs/PERF_PROTOCOL.md). A peak the calibration lacks
/// (int8 on a GPU without int8 tensor cores) falls back to the nearest one it has. Returns
/// {peak, dtype}.
std::pair<double, std::string> computePeak(const nlohmann::json& peaks, const nlohmann::json& frame, bool tf32)
{
    std::string dt = frame.value("compute_dtype", std::string());
    if (dt.empty()) {
        const auto& params = frame.contains("params") ? frame["params"] : nlohmann::json::object();
        dt = params.is_object() ? params.value("dtype", std::string("float32")) : std::string("float32");
    }
    auto peak = [&](const char* key, const char* fallback) {
        const double v = peaks.value(key, 0.0);
        return v > 0 ? v : peaks.value(fallback, 0.0);
    };
    if (dt == "int8")
        return {peak("int8_tops", "bf16_tflops"), dt};
    if (dt == "float16")
        return {peak("fp16_tflops", "bf16_tflops"), dt};
    if (dt == "bfloat16")
        return {peaks.value("bf16_tflops", 0.0), dt};
    if (dt == "float64")
        return {peak("fp64_tflops", "fp32_tflops"), dt};
    return {tf32 ? peaks.value("tf32_tflops", 0.0) : peaks.value("fp32_tflops", 0.0), tf32 ? std::string("tf32") : std::string("float32")};
}
}  // namespace

AutoJobs autoJobs(const std::string& device, int gpuSlots, int cores, double memGiB)
{
    cores = std::max(1, cores);
    const bool knownMem = memGiB > 0;
    AutoJobs a;
    if (device == "cuda") {
        const int slots = std::max(1, gpuSlots);
        int total = std::max(1, cores - 2);
        if (knownMem)
            total = std::min(total, std::max(1, static_cast<int>(memGiB / 2.5)));
        a.jobs = std::clamp(total / slots, 1, 16);
        a.why = fmt::format("picked from {} core(s){}{}; --jobs to choose", cores, knownMem ? fmt::format(", {:.0f} GiB available", memGiB) : std::string(),
                            slots > 1 ? fmt::format(", {} GPUs", slots) : "");
    } else {
        int total = std::max(1, cores / 2);
        if (knownMem)
            total = std::min(total, std::max(1, static_cast<int>(memGiB / 3.0)));
        a.jobs = total;
        a.why = fmt::format("picked from {} core(s){}; --jobs to choose", cores,
                            knownMem ? fmt::format(", {:.0f} GiB available", memGiB) : std::string());
    }
    return a;
}

std::pair<int, double> hostResources()
{
    int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cores = std::max(1, CPU_COUNT(&set));
    double mem = 0;
    std::ifstream in("/proc/meminfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("MemAvailable:", 0) == 0) {
            mem = std::strtod(line.c_str() + 13, nullptr) / (1024.0 * 1024.0);  // kB -> GiB
            break;
        }
    return {cores, mem};
}

nlohmann::json Evaluator::runPerf(Outcome& o, const Submission& sub, std::int64_t runId, int index)
{
    const TaskInfo* task = m_catalogue.find(o.taskId);
    if (!task)
        throw std::runtime_error("unknown task " + o.taskId);
    const auto dir = m_scratch / "candidates" / fmt::format("{:05d}-{}", index, o.codeHash.substr(0, 12));
    const std::string entry = entryPoint(o.record, *task);
    const std::uint64_t seed = static_cast<std::uint64_t>(runId) * 100003u + static_cast<std::uint64_t>(index);
    bool calibrate = false;
    {
        std::lock_guard g(m_peaksMutex);
        if (m_peaks.at(t_slot).is_null() && !m_calibrating.at(t_slot)) {
            m_calibrating.at(t_slot) = 1;
            calibrate = true;
        }
    }
    nlohmann::json req = {{"task_id", task->id},
                          {"task_file", m_catalogue.taskFile(*task).string()},
                          {"source_file", (dir / "candidate.py").string()},
                          {"entry", entry},
                          {"device", m_opt.device},
                          {"seed", seed},
                          {"calibrate", calibrate},
                          {"config", m_perf.toJson()}};
    const auto replay = m_autotuneReplay.find({task->id, o.codeHash});
    if (replay != m_autotuneReplay.end())
        req["autotune_replay"] = replay->second;
    // Each side is timed in `processes` fresh perf workers (default 2 on a GPU), one after the other,
    // each taking its turn on the GPU like any other timing (so other candidates' timings fall between
    // them): the interval then covers what changes between processes (allocations, clocks, autotune
    // choices), the measurement a reader would repeat (issue 22). Every process draws the same inputs.
    // (PerfConfig, core/perfconfig.h: the defaults per device, any --perf-config overrides applied)
    const int nProc = std::clamp(m_perf.processes, 1, 8);
    // A kernel whose first nProc processes disagree by more than extra_process_threshold (relative,
    // geomean speedup) is timed in max_processes: its interval then rests on its own spread rather
    // than on the prior (issue 22: the spread between processes is heavy-tailed).
    const int maxProc = std::clamp(m_perf.maxProcesses, nProc, 8);
    const double extraThreshold = m_perf.extraProcessThreshold;
    const double priorRel = m_perf.betweenProcessPrior;
    const double priorDf = m_perf.betweenProcessPriorDf;
    struct ProcRun {
        ProcessResult res;
        double waited = 0;
        bool exclusive = false;
        nlohmann::json result;
        std::vector<nlohmann::json> shapes;
    };
    std::vector<ProcRun> procs;
    // One process's geomean speedup from its shapes' medians (for the decision above; the reported
    // figures are computed below from all samples).
    auto procGeomean = [](const ProcRun& pr) -> std::optional<double> {
        double l = 0;
        int n = 0;
        for (const auto& f : pr.shapes) {
            const auto sm = f.value("samples_ms", nlohmann::json::object());
            if (!sm.is_object() || f.contains("error"))
                continue;
            const auto c = doubles(sm.value("candidate", nlohmann::json::array()));
            const auto r = doubles(sm.value("reference", nlohmann::json::array()));
            if (c.empty() || r.empty())
                continue;
            const double cm = perf::quantile(c, 0.5), rm = perf::quantile(r, 0.5);
            if (cm > 0 && rm > 0) {
                l += std::log(rm / cm);
                ++n;
            }
        }
        return n ? std::optional<double>(std::exp(l / n)) : std::nullopt;
    };
    int want = nProc;
    nlohmann::json extraWhy;
    for (int p = 0; p < want; ++p) {
        if (p > 0 && m_cancel && m_cancel->load())
            break;
        const auto pdir = dir / (p == 0 ? std::string("perf") : fmt::format("perf-{}", p + 1));
        // The Triton kernels this candidate compiled in its correctness stage (its own cache, in its
        // own directory): each perf worker starts from a copy, so only new specialisations compile.
        {
            std::error_code ec;
            const auto from = dir / ".cache" / "triton", to = pdir / ".cache" / "triton";
            if (fs::is_directory(fs::symlink_status(from, ec)) && !fs::exists(to, ec)) {
                fs::create_directories(to, ec);
                fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::skip_symlinks, ec);  // best effort
            }
        }
        req["calibrate"] = calibrate && p == 0;
        // One timing at a time per GPU: the worker starts (interpreter, torch, Triton, the task) while
        // another times, says "ready", and waits for "go" before it touches the GPU or the candidate.
        std::unique_lock<std::timed_mutex> gpu(*m_timingLocks.at(t_slot), std::defer_lock);
        ProcRun pr;
        auto reply = [&](const nlohmann::json& f) -> std::string {
            if (f.value("type", "") != "ready" || gpu.owns_lock())
                return {};
            const auto w0 = std::chrono::steady_clock::now();
            while (!gpu.try_lock_for(std::chrono::milliseconds(100)))
                if (m_cancel && m_cancel->load())
                    return "stop\n";
            pr.waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
            return "go\n";
        };
        pr.res = runWorker("perf", req, pdir, m_opt.perfTimeout, reply);
        pr.exclusive = gpu.owns_lock();
        if (gpu.owns_lock())
            gpu.unlock();
        for (const auto& f : pr.res.frames) {
            const auto type = f.value("type", "");
            if (type == "shape")
                pr.shapes.push_back(f);
            else if (type == "result" || type == "error")
                pr.result = f;
        }
        const bool ok = pr.result.is_object() && pr.result.value("type", "") != "error" && pr.result.value("ok", false);
        procs.push_back(std::move(pr));
        if (!ok)
            break;  // the first failure decides; no further process
        if (p + 1 == nProc && maxProc > nProc) {
            double lo = 0, hi = 0;
            bool all = true;
            for (const auto& q : procs) {
                const auto g = procGeomean(q);
                all = all && g.has_value();
                if (g) {
                    lo = lo == 0 ? *g : std::min(lo, *g);
                    hi = std::max(hi, *g);
                }
            }
            if (all && lo > 0 && hi / lo - 1.0 > extraThreshold) {
                want = maxProc;
                extraWhy = {{"spread", hi / lo - 1.0}, {"threshold", extraThreshold}, {"processes", maxProc}};
            }
        }
    }
    const ProcRun& first = procs.front();
    nlohmann::json ev = {{"protocol", "kbx-perf-2"}, {"device", m_opt.device}, {"seconds", 0.0}, {"waited_for_gpu_s", 0.0},
                         {"exclusive", true}, {"processes", nlohmann::json::array()}};
    for (const auto& pr : procs) {
        ev["seconds"] = ev["seconds"].get<double>() + pr.res.seconds;
        ev["waited_for_gpu_s"] = ev["waited_for_gpu_s"].get<double>() + pr.waited;
        ev["exclusive"] = ev["exclusive"].get<bool>() && pr.exclusive;
        ev["processes"].push_back({{"seconds", pr.res.seconds}, {"waited_for_gpu_s", pr.waited}, {"exclusive", pr.exclusive},
                                   {"worker_start", pr.res.warm ? "warm" : "cold"},
                                   {"phases", pr.result.is_object() ? pr.result.value("phases", nlohmann::json()) : nlohmann::json()},
                                   {"window", pr.result.is_object() ? pr.result.value("window", nlohmann::json()) : nlohmann::json()}});
    }
    nlohmann::json peaks;
    {
        std::lock_guard g(m_peaksMutex);
        const auto& result = first.result;
        if (result.is_object() && result.contains("peaks") && result["peaks"].is_object() && !result["peaks"].empty())
            m_peaks.at(t_slot) = result["peaks"];
        else if (calibrate)
            m_calibrating.at(t_slot) = 0;  // it did not calibrate (died first): the next one does
        peaks = m_peaks.at(t_slot);
    }
    const ProcRun& last = procs.back();
    if (!last.result.is_object() || last.result.value("type", "") == "error" || !last.result.value("ok", false)) {
        const auto& result = last.result;
        ev["error"] = result.is_object() ? result.value("message", std::string("perf worker failed"))
                                         : fmt::format("perf worker died (exit {}, signal {}{})", last.res.exitCode, last.res.signal,
                                                       last.res.timedOut ? ", timed out" : "");
        if (procs.size() > 1)
            ev["error"] = fmt::format("perf process {} of {}: {}", procs.size(), want, ev["error"].get<std::string>());
        ev["stderr_tail"] = tail(last.res.stderrText, 3000);
    } else {
        for (const char* k : {"attribution", "torch_modified", "launches", "nvml_before", "nvml_after", "config", "phases", "window",
                              "triton_compiles"})
            if (first.result.contains(k))
                ev[k] = first.result[k];
        // A torch function the candidate rebound in any process.
        for (std::size_t p = 1; p < procs.size(); ++p)
            if (auto tm = procs[p].result.value("torch_modified", nlohmann::json()); tm.is_array() && !tm.empty() &&
                                                                                    !(ev.contains("torch_modified") && ev["torch_modified"].is_array() && !ev["torch_modified"].empty()))
                ev["torch_modified"] = tm;
    }
    if (!peaks.is_null())
        ev["peaks"] = peaks;
    if (!extraWhy.is_null())
        ev["extra_processes"] = extraWhy;  // its first processes disagreed: timed in more
    if (replay != m_autotuneReplay.end())
        ev["autotune_replay"] = {{"from", m_opt.autotuneReplay.string()}, {"shapes", replay->second.size()}};
    ev["worker_start"] = first.res.warm ? "warm" : "cold";
    if (const auto& slot = m_opt.deviceSlots.at(t_slot); !slot.name.empty()) {
        ev["device_slot"] = slot.name;
        const auto& p = m_slotProbe.at(t_slot);
        if (p.is_object() && p.contains("devices") && p["devices"].is_array() && !p["devices"].empty())
            ev["gpu"] = p["devices"][0];
    }
    // Timings only where every process ran to the end.
    const bool allOk = !ev.contains("error");
    const std::size_t P = allOk ? procs.size() : 0;
    std::vector<TimingRow> rows;
    std::vector<std::vector<std::vector<double>>> cAllP(P), rAllP(P);  // [process][shape] samples
    std::vector<double> cMed, rMed;
    // Optional baselines (--perf-baseline): per name, the candidate's and the baseline's samples of
    // every shape where that baseline ran.
    std::map<std::string, std::pair<std::vector<std::vector<double>>, std::vector<std::vector<double>>>> extraAll;
    nlohmann::json flags = nlohmann::json::array();
    nlohmann::json shapeSummaries = nlohmann::json::array();
    auto concat = [](std::vector<double> a, const std::vector<double>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    auto gmean = [](const std::vector<double>& xs) {
        double l = 0;
        for (double x : xs)
            l += std::log(x);
        return std::exp(l / static_cast<double>(xs.size()));
    };
    const std::vector<nlohmann::json> noShapes;
    const auto& shapes0 = P ? first.shapes : noShapes;
    for (std::size_t k = 0; k < shapes0.size(); ++k) {
        const auto& f = shapes0[k];
        TimingRow row;
        row.shape = f.value("shape", fmt::format("shape{}", k));
        // The same shape in every process (the same perf shapes in the same order).
        std::vector<const nlohmann::json*> fp;
        const nlohmann::json* failed = nullptr;
        for (std::size_t p = 0; p < P; ++p) {
            const nlohmann::json* hit = nullptr;
            for (const auto& g : procs[p].shapes)
                if (g.value("shape", std::string()) == f.value("shape", std::string()))
                    hit = &g;
            if (!hit) {
                static const nlohmann::json missing = {{"error", "missing"}, {"message", "this shape was not timed in every perf process"}};
                hit = &missing;
            }
            if (!failed && hit->contains("error"))
                failed = hit;
            fp.push_back(hit);
        }
        if (failed) {
            row.samples = {{"error", failed->value("error", "")}, {"message", failed->value("message", "")}};
            rows.push_back(row);
            flags.push_back("shape_failed:" + row.shape);
            continue;
        }
        std::vector<std::vector<double>> cp, rp;
        bool empty = false;
        for (std::size_t p = 0; p < P; ++p) {
            const auto& sm = (*fp[p]).value("samples_ms", nlohmann::json::object());
            cp.push_back(doubles(sm.is_object() ? sm.value("candidate", nlohmann::json::array()) : nlohmann::json::array()));
            rp.push_back(doubles(sm.is_object() ? sm.value("reference", nlohmann::json::array()) : nlohmann::json::array()));
            empty = empty || cp.back().empty() || rp.back().empty();
        }
        if (empty) {
            row.samples = {{"error", "no samples"}};
            rows.push_back(row);
            continue;
        }
        std::vector<double> c, r, cMedP, rMedP;
        std::vector<perf::Interval> spP;
        nlohmann::json perProcess = nlohmann::json::array();
        for (std::size_t p = 0; p < P; ++p) {
            c = concat(std::move(c), cp[p]);
            r = concat(std::move(r), rp[p]);
            const auto sp = perf::speedupCI(cp[p], rp[p], seed + k + 1000003u * p);
            spP.push_back(sp);
            cMedP.push_back(perf::quantile(cp[p], 0.5));
            rMedP.push_back(perf::quantile(rp[p], 0.5));
            perProcess.push_back({{"candidate_ms", cMedP.back()}, {"reference_ms", rMedP.back()},
                                  {"speedup", {{"estimate", sp.estimate}, {"lo", sp.lo}, {"hi", sp.hi}}},
                                  {"reps", (*fp[p]).value("reps", 0)}});
        }
        auto cs = perf::summarize(c), rs = perf::summarize(r);
        const auto rep = perf::repeatInterval(spP, priorRel, priorDf);
        const auto& sp = rep.interval;
        // The per-process medians' geometric means: the timing a reader sees, consistent with the
        // speedup (their ratio).
        const double cMs = gmean(cMedP), rMs = gmean(rMedP);
        row.candidateMs = cMs;
        row.baselineMs = rMs;
        nlohmann::json smp = {{"candidate_ms", c}, {"reference_ms", r}, {"candidate", summaryJson(cs)},
                              {"reference", summaryJson(rs)},
                              {"speedup", {{"estimate", sp.estimate}, {"lo", sp.lo}, {"hi", sp.hi}, {"interval", "repeat"}}},
                              {"per_process", perProcess},
                              {"params", f.value("params", nlohmann::json::object())},
                              {"first_call_s", f.value("first_call_s", nlohmann::json::object())},
                              {"warmup_calls", f.value("warmup_calls", nlohmann::json::object())},
                              {"reps", f.value("reps", 0)}, {"min_reps", f.value("min_reps", 0)}, {"stop", f.value("stop", "")},
                              {"rotations", f.value("rotations", 0)}, {"recheck", f.value("recheck", nlohmann::json())},
                              {"host_enqueue_us", f.value("host_enqueue_us", nlohmann::json::object())},
                              {"launch_gap_us", f.value("launch_gap_us", 0.0)},
                              {"launch_gap_start_us", f.value("launch_gap_start_us", 0.0)},
                              {"host_sync", f.value("host_sync", nlohmann::json::object())},
                              {"starved", f.value("starved", nlohmann::json::object())}};
        // Samples in which the device may have waited for the host's launch (the longest launch gap
        // was not enough, too few clean samples): kept, and said so.
        bool starvedKept = false;
        for (std::size_t p = 0; p < P; ++p)
            if (auto sk = (*fp[p]).value("starved_kept", nlohmann::json::array()); sk.is_array() && !sk.empty()) {
                if (!smp.contains("starved_kept"))
                    smp["starved_kept"] = sk;
                starvedKept = true;
            }
        if (starvedKept)
            flags.push_back("host_latency_in_samples:" + row.shape);
        // The profiled call's kernels against the events: device work far beyond what the events saw
        // ran outside them (a side stream left unsynchronised): the samples cannot be trusted.
        if (const auto& att = ev.value("attribution", nlohmann::json::object());
            att.is_object() && att.value("available", false) && att.value("shape", "") == row.shape) {
            const double profiledMs = att.value("gpu_us", 0.0) / 1e3;
            smp["profiled_gpu_ms"] = profiledMs;
            if (profiledMs > 2.0 * cMedP.front() + 0.01)
                flags.push_back("device_work_outside_events:" + row.shape);
        }
        if (f.contains("cost") && f["cost"].is_object()) {
            const double bytes = f["cost"].value("bytes", 0.0), flops = f["cost"].value("flops", 0.0);
            smp["bytes"] = bytes;
            smp["flops"] = flops;
            if (!peaks.is_null()) {
                const auto [peak, peakDtype] = computePeak(peaks, f, task->contract().value("tf32", false));
                auto rl = perf::roofline(cMs, bytes, flops, peaks.value("copy_gbs", 0.0), peak);
                smp["roofline"] = {{"gbs", rl.gbs}, {"tflops", rl.tflops}, {"bandwidth_util", rl.bandwidthUtil},
                                   {"compute_util", rl.computeUtil}, {"bound_ms", rl.boundMs},
                                   {"faster_than_bound", rl.fasterThanBound}, {"peak_dtype", peakDtype},
                                   {"peak_tflops", peak}};
                if (rl.fasterThanBound)
                    flags.push_back("faster_than_roofline:" + row.shape);
            } else {
                smp["roofline"] = {{"gbs", bytes / (cMs * 1e-3) / 1e9}, {"tflops", flops / (cMs * 1e-3) / 1e12}};
            }
        }
        bool recheckFailed = false;
        for (std::size_t p = 0; p < P; ++p)
            if (auto rc = (*fp[p]).value("recheck", nlohmann::json()); rc.is_object() && !rc.value("ok", true)) {
                recheckFailed = true;
                smp["recheck"] = rc;
            }
        if (recheckFailed)
            flags.push_back("output_recheck_failed:" + row.shape);
        // The config(s) the candidate's autotuner chose for this shape and, where it benchmarked
        // here, each config's time (issue 22): evidence, bounded, shown by kbx show and reports.
        // Processes whose autotuners chose differently time different kernels: flagged, with each
        // process's choice (the interval already holds the spread it caused).
        auto chosen = [](const nlohmann::json& at) {
            std::string out;
            if (at.is_array())
                for (const auto& e : at)
                    if (e.is_object())
                        out += e.value("kernel", std::string()) + "=" + e.value("config", std::string()) + ";";
            return out;
        };
        if (auto at = f.value("autotune", nlohmann::json::array()); at.is_array() && !at.empty()) {
            for (std::size_t p = 0; p < P; ++p) {
                bool missed = false;
                for (const auto& e : (*fp[p]).value("autotune", nlohmann::json::array()))
                    missed = missed || (e.is_object() && e.contains("replayed") && e["replayed"].is_boolean() && !e["replayed"].get<bool>());
                if (missed) {
                    flags.push_back("autotune_replay_missed:" + row.shape);
                    break;
                }
            }
            smp["autotune"] = at.dump().size() <= 8192 ? printableStrings(at) : nlohmann::json{{{"truncated_bytes", at.dump().size()}}};
            nlohmann::json choices = nlohmann::json::array();
            bool differs = false;
            for (std::size_t p = 0; p < P; ++p) {
                const auto atp = (*fp[p]).value("autotune", nlohmann::json::array());
                const auto ch = chosen(atp);
                differs = differs || ch != chosen(at);
                choices.push_back(printable(ch.substr(0, 2048)));
            }
            if (differs) {
                smp["autotune_per_process"] = choices;
                flags.push_back("autotune_choice_differs:" + row.shape);
            }
        }
        if (sp.estimate > 10)
            flags.push_back("speedup_over_10x:" + row.shape);
        if (f["samples_ms"].is_object()) {
            for (const auto& [name, xs0] : f["samples_ms"].items()) {
                if (name == "candidate" || name == "reference")
                    continue;
                std::vector<double> x;
                for (std::size_t p = 0; p < P; ++p)
                    if (const auto& sm = (*fp[p]).value("samples_ms", nlohmann::json::object()); sm.is_object() && sm.contains(name))
                        x = concat(std::move(x), doubles(sm[name]));
                if (x.empty())
                    continue;
                auto xsum = perf::summarize(x);
                auto xsp = perf::speedupCI(c, x, seed + k + 7919);
                smp["baselines"][name] = {{"ms", x}, {"summary", summaryJson(xsum)}, {"median_ms", xsum.median},
                                          {"speedup", {{"estimate", xsp.estimate}, {"lo", xsp.lo}, {"hi", xsp.hi}}},
                                          {"first_call_s", f.value("first_call_s", nlohmann::json::object()).value(name, 0.0)}};
                extraAll[name].first.push_back(c);
                extraAll[name].second.push_back(std::move(x));
            }
        }
        if (auto be = f.value("baseline_errors", nlohmann::json::object()); be.is_object() && !be.empty())
            smp["baseline_errors"] = be;
        row.samples = smp;
        shapeSummaries.push_back({{"shape", row.shape}, {"candidate_ms", cMs}, {"reference_ms", rMs},
                                  {"speedup", sp.estimate}, {"lo", sp.lo}, {"hi", sp.hi}, {"cv_candidate", cs.cv},
                                  {"cv_reference", rs.cv}, {"reps", f.value("reps", 0)}, {"between_process_rel", rep.betweenRel}});
        rows.push_back(std::move(row));
        for (std::size_t p = 0; p < P; ++p) {
            cAllP[p].push_back(std::move(cp[p]));
            rAllP[p].push_back(std::move(rp[p]));
        }
        cMed.push_back(cMs);
        rMed.push_back(rMs);
    }
    ev["shapes"] = shapeSummaries;
    const bool tampered = ev.contains("torch_modified") && ev["torch_modified"].is_array() && !ev["torch_modified"].empty();
    if (tampered)
        flags.push_back("torch_modified");
    // Samples that missed the candidate's device work give no speedup either (flagged above).
    bool evaded = false;
    for (const auto& f : flags)
        evaded = evaded || f.get<std::string>().starts_with("device_work_outside_events:");
    if (P && !cAllP.front().empty() && !tampered && !evaded) {
        // Per process, the geomean over its shapes with its within-process bootstrap interval; then
        // the repeat interval over the processes (perf::repeatInterval).
        std::vector<perf::Interval> gP;
        nlohmann::json gPer = nlohmann::json::array();
        for (std::size_t p = 0; p < P; ++p) {
            gP.push_back(perf::geomeanSpeedupCI(cAllP[p], rAllP[p], seed + 1000003u * p));
            gPer.push_back({{"estimate", gP.back().estimate}, {"lo", gP.back().lo}, {"hi", gP.back().hi}});
        }
        const auto rep = perf::repeatInterval(gP, priorRel, priorDf);
        const auto& g = rep.interval;
        ev["geomean_speedup"] = {{"estimate", g.estimate}, {"lo", g.lo}, {"hi", g.hi}, {"interval", "repeat"},
                                 {"processes", rep.processes}, {"between_process_rel", rep.betweenRel},
                                 {"within_process_rel", rep.withinRel}, {"sd_rel", rep.sdRel},
                                 {"prior_rel", priorRel}, {"prior_df", priorDf}};
        ev["geomean_speedup_per_process"] = gPer;
        ev["sum_time_ratio"] = perf::sumTimeRatio(cMed, rMed);
        // Against eager: faster, slower or a tie. The noise band is this task's own self-speedup (its
        // reference timed against itself by `kbx tasks --check --perf`, the latest in this database
        // on this device kind) where one was measured, else +-2 % (the band every reference met on
        // the H200, bench/results/2026-11-30-h200x2-perf3).
        perf::Interval noise{1.0, 0.98, 1.02};
        std::string noiseFrom = "default band +-2%";
        if (!sub.selfCheckReference) {
            auto nf = m_store.query(
                "SELECT json_extract(e.evidence, '$.perf.geomean_speedup') AS g, e.id AS id FROM evaluations e "
                "JOIN submissions s ON s.id = e.submission_id JOIN methods m ON m.id = s.method_id JOIN runs r ON r.id = e.run_id "
                "WHERE m.name = 'reference' AND e.task_id = " + sqlQuote(task->id) + " AND r.device = " + sqlQuote(m_opt.device == "cuda" ? "cuda" : "cpu") +
                " AND json_extract(e.evidence, '$.perf.geomean_speedup') IS NOT NULL ORDER BY e.id DESC LIMIT 1");
            if (!nf.empty() && nf[0]["g"].is_string()) {
                auto g2 = nlohmann::json::parse(nf[0]["g"].get<std::string>(), nullptr, false);
                if (g2.is_object() && g2.contains("lo") && g2.contains("hi")) {
                    noise = {g2.value("estimate", 1.0), std::min(g2.value("lo", 1.0), 2.0 - g2.value("hi", 1.0)),
                             std::max(g2.value("hi", 1.0), 2.0 - g2.value("lo", 1.0))};
                    noiseFrom = fmt::format("self-check evaluation {}", nf[0]["id"].get<std::int64_t>());
                }
            }
        }
        const perf::Interval gi{g.estimate, g.lo, g.hi};
        ev["vs_eager"] = perf::isTie(gi, noise) ? "tie" : (g.lo > 1.0 ? "faster" : "slower");
        ev["noise_band"] = {{"lo", noise.lo}, {"hi", noise.hi}, {"from", noiseFrom}};
        for (const auto& [name, cx] : extraAll) {
            auto gx = perf::geomeanSpeedupCI(cx.first, cx.second, seed + 104729);  // within the pooled samples
            ev["baselines"][name] = {{"geomean_speedup", {{"estimate", gx.estimate}, {"lo", gx.lo}, {"hi", gx.hi}}},
                                     {"shapes", cx.first.size()}};
        }
    }
    ev["flags"] = flags;
    std::optional<std::pair<std::string, std::string>> failure;
    if (!sub.selfCheckReference && ev.contains("attribution") && ev["attribution"].value("available", false)) {
        const double share = ev["attribution"].value("triton_share", 0.0);
        if (share < m_opt.minTritonShare) {
            std::string top;
            for (const auto& k : ev["attribution"].value("kernels", nlohmann::json::array()))
                if (top.size() < 200)
                    top += (top.empty() ? "" : ", ") + k.value("name", std::string("?")).substr(0, 60);
            failure = std::make_pair(std::string("not_triton_kernel"),
                                     fmt::format("only {:.0f}% of the GPU time of a profiled call is in Triton kernels the candidate launched "
                                                 "(kernels: {})", 100.0 * share, top.empty() ? "none" : top));
        }
    }
    m_store.addPerf(o.evaluationId, rows, ev, failure);
    o.record.evidence["perf"] = ev;
    if (failure) {
        o.record.pass = false;
        o.record.exeOk = false;
        o.record.failureClass = failure->first;
        o.record.failureDetail = failure->second;
    }
    return ev;
}

std::string Evaluator::slotHealth(nlohmann::json* probeOut) const
{
    WorkerConfig w = m_worker;
    for (const auto& [k, v] : m_opt.deviceSlots.at(t_slot).env)
        w.env[k] = v;
    nlohmann::json p;
    try {
        p = probe(w);
    } catch (const std::exception& e) {
        return e.what();
    }
    if (probeOut)
        *probeOut = p;
    if (m_opt.device == "cuda") {
        if (!p.value("cuda_available", false) || !p.contains("devices") || p["devices"].empty())
            return "no CUDA device visible through " + nlohmann::json(m_opt.deviceSlots.at(t_slot).env).dump();
        if (p.contains("cuda_works") && !p.value("cuda_works", false))
            return "the device cannot run a kernel: " + p.value("cuda_error", std::string("wrong result"));
    }
    return {};
}

RunSummary Evaluator::run(const std::vector<Submission>& subs, const ProgressFn& progress, const std::atomic<bool>* cancel,
                          const nlohmann::json& args)
{
    const auto t0 = std::chrono::steady_clock::now();
    m_cancel = cancel;
    RunSummary sum;
    sum.total = static_cast<int>(subs.size());
    if (m_worker.worker.empty() || !fs::exists(m_worker.worker))
        throw std::runtime_error("kbx-worker not found (build with KBX_BUILD_WORKER=ON or set KBX_WORKER)");
    std::int64_t secret = 0;
    if (m_opt.secretSeed) {
        secret = *m_opt.secretSeed;
    } else {
        std::random_device rd;
        secret = static_cast<std::int64_t>((static_cast<std::uint64_t>(rd()) << 31) ^ rd()) & 0x7fffffffffffLL;
    }
    m_seeds.clear();
    for (auto s : m_opt.publicSeeds)
        m_seeds.push_back({{"label", fmt::format("seed{}", s)}, {"seed", s}});
    m_seeds.push_back({{"label", "secret"}, {"seed", secret}});

    m_scratch = m_opt.scratchRoot;
    if (m_scratch.empty()) {
        auto base = fs::temp_directory_path() / fmt::format("kbx-run-{}-{}", getpid(), std::chrono::steady_clock::now().time_since_epoch().count());
        m_scratch = base;
    }
    fs::create_directories(m_scratch);
    if (resolveSandbox(m_opt.sandbox).separateUid) {
        // Candidates run under a uid of their own: what they must reach has to be traversable by
        // others from / down (kbx opens the way below the scratch root itself, never above it).
        // Refused before any work, instead of every candidate failing to start.
        std::vector<std::pair<std::string, fs::path>> need = {{"the scratch directory", m_scratch.parent_path()},
                                                              {"the task suite", m_catalogue.dir()},
                                                              {"kbx-worker", m_worker.worker.parent_path()}};
        for (const auto& p : workerRuntimePaths())
            need.emplace_back("the worker's Python runtime", p);
        for (const auto& [what, p] : need)
            if (auto bad = firstUntraversable(p); !bad.empty())
                throw std::runtime_error(fmt::format(
                    "the sandbox runs every candidate under a uid of its own, which cannot reach {} ({}): {} is not "
                    "searchable by others (mode lacks o+x). Put it under a directory others can traverse (for the "
                    "scratch: --scratch under /tmp), or `chmod o+x {}`",
                    what, p.string(), bad.string(), bad.string()));
    }

    // The warm worker (core/warm.h) starts now, so its imports overlap the probes below, unless the
    // caller started it already (Evaluator::startWarm before its own probe) for this device and scratch.
    m_warm.reset();
    WarmStart ws = std::move(m_prestarted);
    m_prestarted = {};
    if (!(ws.device == m_opt.device && ws.scratch == m_scratch && (ws.worker || !ws.coldWhy.empty())))
        ws = startWarm(m_worker, m_opt, m_scratch);
    else
        ws.prestarted = true;
    m_warm = ws.worker;
    const std::string coldWhy = ws.coldWhy;
    const bool startedBeforeProbe = ws.prestarted;
    // The CPU interpreter's gaps (core/interpgaps.h), found by our own kernels beside the other work.
    if (m_opt.device == "cpu") {
        m_interpGaps = std::async(std::launch::async, [this] { return runCanary(); }).share();
    } else {
        std::promise<InterpGaps> none;
        InterpGaps g;
        g.known = true;
        none.set_value(g);
        m_interpGaps = none.get_future().share();
    }
    // Autotune replay (EvalOptions::autotuneReplay): the latest recorded choice per shape of every
    // code that database timed on this device kind.
    m_autotuneReplay.clear();
    if (m_opt.perf && !m_opt.autotuneReplay.empty()) {
        nlohmann::json rows;
        try {
            Store from(m_opt.autotuneReplay, OpenMode::ReadOnly);
            rows = from.query(
            "SELECT e.task_id AS task, c.code_hash AS hash, t.shape AS shape, json_extract(t.samples, '$.autotune') AS at "
            "FROM timings t JOIN evaluations e ON e.id = t.evaluation_id JOIN submissions s ON s.id = e.submission_id "
            "JOIN candidates c ON c.id = s.candidate_id JOIN runs r ON r.id = e.run_id WHERE r.device = " +
            sqlQuote(m_opt.device == "cuda" ? "cuda" : "cpu") + " AND json_extract(t.samples, '$.autotune') IS NOT NULL ORDER BY e.id");
        } catch (const std::exception& e) {
            throw std::runtime_error(fmt::format("--autotune-replay {}: {}", m_opt.autotuneReplay.string(), e.what()));
        }
        for (const auto& r : rows) {
            if (!r["task"].is_string() || !r["hash"].is_string() || !r["shape"].is_string() || !r["at"].is_string())
                continue;
            const auto at = nlohmann::json::parse(r["at"].get<std::string>(), nullptr, false);
            if (!at.is_array())
                continue;
            nlohmann::json keep = nlohmann::json::array();
            for (const auto& e : at)
                if (e.is_object() && e.contains("kernel") && e["kernel"].is_string() && e.contains("config") && e["config"].is_string())
                    keep.push_back({{"kernel", e["kernel"]}, {"config", e["config"]}});
            if (!keep.empty())
                m_autotuneReplay[{r["task"].get<std::string>(), r["hash"].get<std::string>()}][r["shape"].get<std::string>()] = keep;
        }
    }
    nlohmann::json prov = m_probe.is_null() ? probe() : m_probe;
    prov.erase("type");
    prov["host"] = hostName();
    prov["device"] = m_opt.device;
    prov["kbx_version"] = "0.1.0";
    prov["taxonomy_version"] = kTaxonomyVersion;
    prov["protocol"] = m_opt.protocol;  // which tier decided the verdicts (issue 21)
    prov["worker_start"] = m_warm ? nlohmann::json{{"mode", "warm"}} : nlohmann::json{{"mode", "cold"}, {"why", coldWhy}};
    const std::size_t nSlots = m_opt.deviceSlots.size();
    const bool multi = nSlots > 1 || !m_opt.deviceSlots.front().name.empty();
    // Every slot is probed through its own environment before work starts: its GPU's name and UUID
    // go into the provenance, and a slot that cannot run anything is out of the pool from the start.
    std::vector<std::atomic<bool>> alive(nSlots);
    for (auto& a : alive)
        a = true;
    if (multi) {
        nlohmann::json slotsProv = nlohmann::json::array();
        std::vector<std::thread> probes;
        std::vector<std::string> why(nSlots);
        for (std::size_t k = 0; k < nSlots; ++k)
            probes.emplace_back([&, k] {
                t_slot = k;
                why[k] = slotHealth(&m_slotProbe[k]);
            });
        for (auto& t : probes)
            t.join();
        for (std::size_t k = 0; k < nSlots; ++k) {
            nlohmann::json e = {{"slot", m_opt.deviceSlots[k].name}, {"env", m_opt.deviceSlots[k].env}};
            const auto& p = m_slotProbe[k];
            if (p.is_object() && p.contains("devices"))
                e["devices"] = p["devices"];
            if (!why[k].empty()) {
                alive[k] = false;
                e["unhealthy"] = why[k];
            }
            slotsProv.push_back(e);
        }
        prov["slots"] = slotsProv;
    }
    sum.provenance = prov;
    const auto methodId = m_store.ensureMethod(m_opt.method);
    sum.runId = m_store.beginRun(m_opt.device, prov, m_opt.publicSeeds, secret, args);

    // One shared queue, longest expected work first (the tail of a run is then short jobs spread
    // over every worker): seconds this database has seen per task, else the task's difficulty.
    std::vector<std::size_t> order(subs.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    if (multi || m_opt.jobs > 1) {
        std::map<std::string, double> seen;
        try {
            const auto rows = m_store.query(
                "SELECT task_id AS t, avg(CAST(json_extract(stage_seconds, '$.candidate') AS REAL)) AS s "
                "FROM evaluations WHERE json_extract(stage_seconds, '$.candidate') IS NOT NULL GROUP BY task_id");
            for (const auto& r : rows)
                if (r["t"].is_string() && r["s"].is_number())
                    seen[r["t"].get<std::string>()] = r["s"].get<double>();
        } catch (const std::exception&) {
            // an older database without these columns: difficulty alone
        }
        // A candidate that autotunes compiles every config for every new key in its correctness stage
        // (44 s of a 63 s candidate on the H200, bench/results/2026-12-01-h200-perf22): its configs,
        // counted in its source (~2 s each there), put it ahead, so that it is not the run's tail.
        auto autotuneHint = [&](std::size_t i) {
            const auto& code = subs[i].code;
            if (code.find("autotune") == std::string::npos)
                return 0.0;
            int n = 0;
            for (std::size_t at = code.find("Config("); at != std::string::npos && n < 64; at = code.find("Config(", at + 7))
                ++n;
            return 2.0 * n;
        };
        auto cost = [&](std::size_t i) {
            const auto& id = subs[i].taskId;
            if (auto it = seen.find(id); it != seen.end())
                return it->second + autotuneHint(i);
            const TaskInfo* t = m_catalogue.find(id);
            return 1.0 + (t ? t->difficulty : 0) + autotuneHint(i);
        };
        std::vector<double> c(subs.size());
        for (std::size_t i = 0; i < subs.size(); ++i)
            c[i] = cost(i);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c[a] > c[b]; });
    }
    std::deque<std::size_t> queue(order.begin(), order.end());
    std::vector<int> attempts(subs.size(), 0);
    std::vector<bool> finished(subs.size(), false);
    std::mutex queueMutex;

    std::atomic<int> done{0};
    std::mutex progressMutex;
    std::vector<Outcome> outcomes(static_cast<std::size_t>(sum.total));
    auto record = [&](std::size_t i, Outcome o) {
        std::lock_guard g(progressMutex);
        outcomes[i] = std::move(o);
        finished[i] = true;
        if (outcomes[i].harnessError)
            ++sum.harnessErrors;
        else if (outcomes[i].record.pass)
            ++sum.passed;
        else
            ++sum.failed;
        int d = ++done;
        if (progress)
            progress(outcomes[i], d, sum.total);
    };
    auto anyOtherAlive = [&](std::size_t self) {
        for (std::size_t k = 0; k < nSlots; ++k)
            if (k != self && alive[k])
                return true;
        return false;
    };
    auto workerLoop = [&](std::size_t slot) {
        t_slot = slot;
        for (;;) {
            if (!alive[slot] || (cancel && cancel->load()))
                return;
            std::size_t i;
            {
                std::lock_guard g(queueMutex);
                if (queue.empty())
                    return;
                i = queue.front();
                queue.pop_front();
                ++attempts[i];
            }
            Outcome o;
            try {
                o = evaluateOne(subs[i], sum.runId, methodId, static_cast<int>(i));
            } catch (const std::exception& e) {
                o.taskId = subs[i].taskId;
                o.origin = subs[i].origin;
                o.harnessError = true;
                o.harnessMessage = e.what();
            }
            if (multi && o.harnessError && !(cancel && cancel->load())) {
                // Ours or the device's? Probe the slot: if it cannot run anything, it leaves the pool
                // and the submission goes back to the queue for the other devices.
                std::string why = alive[slot] ? slotHealth() : "taken out of the pool";
                if (!why.empty()) {
                    alive[slot] = false;
                    std::lock_guard g(queueMutex);
                    if (attempts[i] < 3 && anyOtherAlive(slot)) {
                        queue.push_front(i);
                        return;
                    }
                    o.harnessMessage += " | device " + m_opt.deviceSlots[slot].name + " unhealthy: " + why;
                }
            }
            record(i, std::move(o));
        }
    };
    std::vector<std::thread> threads;
    const int perSlot = std::min(m_opt.jobs, std::max(1, sum.total));
    for (std::size_t k = 0; k < nSlots; ++k)
        for (int j = 0; j < perSlot; ++j)
            threads.emplace_back(workerLoop, k);
    for (auto& t : threads)
        t.join();
    for (std::size_t i = 0; i < subs.size(); ++i)
        if (!finished[i] && !(cancel && cancel->load())) {
            Outcome o;
            o.taskId = subs[i].taskId;
            o.origin = subs[i].origin;
            o.harnessError = true;
            o.harnessMessage = "not judged: no healthy device left in the pool";
            record(i, std::move(o));
        }
    if (multi) {
        for (std::size_t k = 0; k < nSlots; ++k)
            if (!alive[k])
                prov["slots"][k]["left_pool"] = true;
    }
    // Perf stage: only after all correctness work, one timing at a time per device (each GPU alone).
    if (m_opt.perf && !(cancel && cancel->load())) {
        std::deque<std::size_t> todo;
        for (std::size_t i = 0; i < outcomes.size(); ++i)
            if (!outcomes[i].harnessError && outcomes[i].evaluationId > 0 &&
                (outcomes[i].record.pass || (subs[i].selfCheckReference && outcomes[i].record.exeOk)))
                todo.push_back(i);
        // Longest first: a task whose reference takes seconds per call (an eigensolver) holds a GPU
        // for a minute or more; started last it would leave the other GPUs idle at the end, and the
        // workers started behind it on its GPU waiting (measured on 2 x H200,
        // bench/results/2026-11-30-h200x2-full). The reference stage's time is the cost hint.
        orderLongestFirst(todo, [&](std::size_t i) { return outcomes[i].record.stageSeconds.value("reference", 0.0); });
        const int nTodo = static_cast<int>(todo.size());
        int d = 0;
        auto perfLoop = [&](std::size_t slot) {
            t_slot = slot;
            for (;;) {
                std::size_t i;
                {
                    std::lock_guard g(queueMutex);
                    if (todo.empty() || (cancel && cancel->load()) || !alive[slot])
                        return;
                    i = todo.front();
                    todo.pop_front();
                }
                nlohmann::json p;
                const bool wasPass = outcomes[i].record.pass;
                try {
                    p = runPerf(outcomes[i], subs[i], sum.runId, static_cast<int>(i));
                } catch (const std::exception& e) {
                    p = {{"error", e.what()}};
                }
                std::lock_guard g(progressMutex);
                if (wasPass && !outcomes[i].record.pass) {  // the perf stage changed the verdict
                    --sum.passed;
                    ++sum.failed;
                }
                ++d;
                if (m_perfProgress)
                    m_perfProgress(outcomes[i], p, d, nTodo);
            }
        };
        // Several perf workers per GPU: one times (it holds the GPU's timing lock) while the next
        // start up; on the CPU (tests) the same, the lock keeps timings apart there too.
        std::vector<std::thread> timers;
        // A perf worker's start-up (interpreter, torch, CUDA context, the modules it fingerprints)
        // takes ~10 s of host time against a median ~1.2 s of exclusive GPU time. On 2 x H200
        // (bench/results/2026-11-30-h200x2-full): 6 per GPU kept the GPUs busy 55-75 % of the perf
        // stage; 12 per GPU kept them 91 % busy, but each timing's own host work (JIT, the warm-up's
        // Python) got ~40 % slower beside 23 starting workers and the stage took as long. Half the
        // host's cores per GPU (8 there), 4-12.
        const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        const int perSlot = m_opt.perfPipeline > 0 ? std::min(16, m_opt.perfPipeline)
                            : m_opt.device == "cpu"  ? 2
                                                     : std::clamp(cores / 2 / std::max(1, static_cast<int>(nSlots)), 4, 12);
        for (std::size_t k = 0; k < nSlots; ++k)
            if (alive[k])
                for (int j = 0; j < perSlot; ++j)
                    timers.emplace_back(perfLoop, k);
        for (auto& t : timers)
            t.join();
    }
    sum.cancelled = cancel && cancel->load();
    if (m_warm) {
        // How it went: children forked, start-up seconds, and why it stopped being used if it did.
        prov["worker_start"] = m_warm->describe();
        prov["worker_start"]["mode"] = "warm";
        prov["worker_start"]["started_before_probe"] = startedBeforeProbe;
        m_warm.reset();  // stops it (nothing of it runs any more: every worker thread has ended)
    }
    if (m_opt.device == "cpu" && m_interpGaps.valid())
        prov["interpreter_gaps"] = toJson(m_interpGaps.get());
    m_store.finishRun(sum.runId, sum.cancelled ? "cancelled" : (sum.harnessErrors ? "finished_with_errors" : "finished"), prov);
    if (!m_opt.keepScratch) {
        std::error_code ec;
        fs::remove_all(m_scratch, ec);
    }
    sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return sum;
}

}  // namespace kbx
