// SPDX-License-Identifier: MIT
#include "tier_judge.h"

#include "evalutil.h"
#include "protocol.h"
#include "quantevidence.h"
#include "taxonomy.h"
#include "worker_launch.h"

#include <fmt/format.h>

#include <csignal>
#include <map>
#include <optional>

namespace kbx {
namespace fs = std::filesystem;
using evalutil::findFrame;
using evalutil::printableStrings;
using evalutil::tail;

namespace {

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

int precedence(const std::string& cls)
{
    if (auto c = failureClassFromString(cls))
        return static_cast<int>(*c);
    return 1000;
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

nlohmann::json contractTierTolerance(nlohmann::json contract)
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

/// One judgeTier() call: its inputs, the candidate process's result and what was read from it.
struct TierRun {
    const TierJudge& judge;
    const Submission& sub;
    const TaskInfo& task;
    const std::string& tier;
    const RefBundle::Tier& files;
    const fs::path& dir;
    EvaluationRecord& rec;
    Outcome& out;
    const DeviceSlot& slot;
    int autotunePin;
    const std::atomic<bool>* abandon;  ///< the caller no longer wants this tier's result (kills its processes)

    std::string sfx{};  ///< stage names' and files' suffix
    fs::path outputs{};
    ProcessResult cres{};
    std::map<int, nlohmann::json> candCases{};
    const nlohmann::json* staticFrame = nullptr;
    const nlohmann::json* resultFrame = nullptr;
    InterpGaps gaps{};

    /// What the comparison's cases came to.
    struct Cases {
        std::string worst;
        nlohmann::json worstEvidence;
        std::string worstCase;
        bool worstIsCall = false;
        int judgedCases = 0;
        int judgedPasses = 0;
        int notJudgedCases = 0;
        std::string notJudgedWhy;
    };

    const EvalOptions& opt() const { return judge.options(); }
    void fail(const std::string& cls, const std::string& detail)
    {
        rec.pass = false;
        rec.failureClass = cls;
        rec.failureDetail = detail;
    }
    bool notJudged(const std::string& why)
    {
        out.harnessError = true;
        out.harnessMessage = why;
        return false;
    }
    /// Indices in this tier's files -> the case's index among all of the task's cases.
    int global(int local) const
    {
        return local >= 0 && local < static_cast<int>(files.indices.size()) ? files.indices[static_cast<std::size_t>(local)] : local;
    }
    std::string gapOf(int local) const
    {
        if (opt().device == Device::Cuda || local < 0 || local >= static_cast<int>(files.dtypes.size()))
            return {};
        const auto hit = gapsForCase(gaps, files.dtypes[static_cast<std::size_t>(local)]);
        return hit.empty() ? std::string() : describeGaps(hit);
    }

    bool run();
    void runCandidate();
    void readFrames();
    void caseRecordsFromCandidate();
    std::optional<bool> earlyVerdict();
    std::optional<bool> resultEvidence();
    Cases compareCases(const ProcessResult& qres);
    bool verdict(bool compared, Cases cs, bool callOk);
};

void TierRun::runCandidate()
{
    // Stage names and files per tier: the contract tier keeps the names evaluations always had; the
    // autotune sweep's runs (pin > 0) get their own.
    sfx = (tier == "contract" ? std::string() : "_" + tier) + (autotunePin > 0 ? fmt::format("_at{}", autotunePin) : "");
    const auto source = dir / "candidate.py";
    outputs = dir / ("outputs" + sfx + ".pt");
    nlohmann::json creq = {{"task_id", task.id},
                           {"task_file", judge.catalogue().taskFile(task).string()},
                           {"source_file", source.string()},
                           {"inputs_file", files.inputs.string()},
                           {"outputs_file", outputs.string()},
                           {"device", opt().device},
                           {"skip_static_contract", sub.selfCheckReference},
                           // Every @triton.autotune takes its pin-th config instead of racing them
                           // (kbx_harness/autotune.py): the autotune sweep judges each config.
                           {"autotune_pin", autotunePin}};
    cres = judge.launcher().run("candidate", creq, dir, opt().candidateTimeout, slot, {}, true, abandon);
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
}

void TierRun::readFrames()
{
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
}

void TierRun::caseRecordsFromCandidate()
{
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
}

/// The verdicts that need no comparison (cancelled, timed out, killed, refused by the static
/// check, no result); nullopt: go on.
std::optional<bool> TierRun::earlyVerdict()
{
    if (judge.launcher().cancelled())
        return notJudged("cancelled");
    if (abandon && abandon->load())
        return notJudged("abandoned: its result was no longer wanted");
    if (cres.timedOut) {
        fail("timeout", fmt::format("the candidate ran past the {:.0f} s limit and was killed with its process group", opt().candidateTimeout));
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
            if (!findFrame(cres, std::string(protocol::kImportingFrame)))
                return notJudged(e->value("message", "") + " | " + tail(cres.stderrText, 1500));
            fail("crash", "the candidate's worker ended without a result after the candidate's code was imported; its harness_error "
                          "frame is not trusted from then on: " + e->value("message", std::string()).substr(0, 500));
            caseRecordsFromCandidate();
            return true;
        }
        fail("crash", "the candidate's worker ended early: " + why);
        caseRecordsFromCandidate();
        return true;
    }
    return std::nullopt;
}

/// What the result frame says beside the outputs (launches, autotune, phases, kernels); a failed
/// import or static stage ends the tier here.
std::optional<bool> TierRun::resultEvidence()
{
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
    return std::nullopt;
}

TierRun::Cases TierRun::compareCases(const ProcessResult& qres)
{
    Cases cs;
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
            ++cs.notJudgedCases;
            if (cs.notJudgedWhy.empty())
                cs.notJudgedWhy = why;
            c.evidence["not_judged"] = why;
            c.evidence["status_on_cpu"] = c.status;
            c.status = "not_judged";
            if (auto it = candCases.find(local); it != candCases.end())
                c.evidence["seconds"] = it->second.value("seconds", 0.0);
            rec.cases.push_back(std::move(c));
            continue;
        }
        ++cs.judgedCases;
        cs.judgedPasses += c.status == "pass";
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
            const bool better = cs.worst.empty() ? (c.status == "fail" || isCall)
                                                 : (isCall && !cs.worstIsCall) ||
                                                       (!isCall && !cs.worstIsCall && c.status == "fail" && precedence(*c.failureClass) < precedence(cs.worst));
            if (better) {
                cs.worst = *c.failureClass;
                cs.worstIsCall = isCall;
                cs.worstEvidence = c.evidence;
                cs.worstCase = c.name;
            }
        }
        if (auto it = candCases.find(local); it != candCases.end())
            c.evidence["seconds"] = it->second.value("seconds", 0.0);
        rec.cases.push_back(std::move(c));
    }
    return cs;
}

/// The tier's verdict from its compared cases (`compared`: the comparison reported a result).
bool TierRun::verdict(bool compared, Cases cs, bool callOk)
{
    if (compared && cs.judgedCases == 0 && cs.notJudgedCases > 0)  // every case failed in a dtype the CPU interpreter gets wrong: nothing was judged
        return notJudged(cs.notJudgedWhy + "; evaluate with --device cuda");
    const bool allPass = compared && cs.judgedPasses == cs.judgedCases;
    rec.callOk = callOk;
    rec.exeOk = callOk && allPass;
    if (cs.notJudgedCases > 0)
        rec.evidence["not_judged_cases"] = {{"count", cs.notJudgedCases}, {"why", cs.notJudgedWhy}};
    // A class the candidate's process names for itself ("interpreter_unsupported", anything outside
    // the taxonomy) is never a reason to leave it unjudged: it is a runtime error.
    if (!cs.worst.empty() && !failureClassFromString(cs.worst))
        cs.worst = "runtime_error";
    if (!cs.worst.empty()) {
        fail(cs.worst, fmt::format("case {}: {}", cs.worstCase, describe(cs.worst, cs.worstEvidence)));
        rec.evidence["first_failure"] = {{"case", cs.worstCase}, {"evidence", cs.worstEvidence}};
        if (cs.worstEvidence.contains("line"))
            rec.evidence["line"] = cs.worstEvidence["line"];
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
    if (task.comparison == "quantization" && !sub.selfCheckReference) {
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

bool TierRun::run()
{
    runCandidate();
    readFrames();
    if (auto v = earlyVerdict())
        return *v;
    if (auto v = resultEvidence())
        return *v;
    // Gaps of Triton's CPU interpreter found by our canary (core/interpgaps): a case whose input
    // dtypes hit one is not judged on the CPU, whatever the candidate did or said.
    if (opt().device == Device::Cpu)
        gaps = judge.interpreterGaps();
    // A case in a gapped dtype that passes is judged (the gap only turns right results wrong: NaN,
    // a missing constant, a garbage dot product); one that fails or raises is not judged.
    bool callOk = true;
    for (const auto& [i, f] : candCases)
        if (f.value("status", "") == "error" && gapOf(i).empty())
            callOk = false;

    // Verifying drive(): its checks run trusted, on the entry's recorded results (judge role).
    if (task.driveChecks)
        if (auto why = judge.judgeDrive(task, files, dir, outputs, rec, slot, abandon); !why.empty())
            return notJudged(why);

    // Compare stage: trusted C++ (LibTorch), in its own process.
    nlohmann::json qreq = {{"ref_file", files.ref.string()}, {"outputs_file", outputs.string()},
                           {"contract", tier == "contract" ? contractTierTolerance(task.contract()) : task.contract()}};
    auto qres = judge.launcher().run("compare", qreq, dir, opt().compareTimeout, slot, {}, true, abandon);
    rec.stageSeconds["compare" + sfx] = qres.seconds;
    auto* qresult = findFrame(qres, "result");
    if (!qresult || qres.exitCode != 0) {
        std::string msg;
        if (auto* e = findFrame(qres, "error"))
            msg = e->value("message", "");
        if (callOk)
            return notJudged(fmt::format("comparison failed: {} {}", msg, tail(qres.stderrText, 1500)));
    }
    return verdict(qresult != nullptr, compareCases(qres), callOk);
}

}  // namespace

TierJudge::TierJudge(const TaskCatalogue& catalogue, const EvalOptions& opt, const WorkerLauncher& launcher,
                     std::function<InterpGaps()> gaps)
    : m_catalogue(catalogue), m_opt(opt), m_launcher(launcher), m_gaps(std::move(gaps))
{
}

bool TierJudge::judgeTier(const Submission& sub, const TaskInfo& task, const std::string& tier, const RefBundle::Tier& files,
                          const fs::path& dir, EvaluationRecord& rec, Outcome& out, const DeviceSlot& slot, int autotunePin,
                          const std::atomic<bool>* abandon) const
{
    // Every case this tier adds is tagged with it, however the tier ends.
    const std::size_t firstCase = rec.cases.size();
    struct TagOnExit {
        EvaluationRecord& rec;
        std::size_t from;
        const std::string& tier;
        ~TagOnExit()
        {
            for (std::size_t k = from; k < rec.cases.size(); ++k)
                rec.cases[k].tier = tier;
        }
    } tagOnExit{rec, firstCase, tier};
    TierRun run{*this, sub, task, tier, files, dir, rec, out, slot, autotunePin, abandon};
    return run.run();
}

std::string TierJudge::judgeDrive(const TaskInfo& task, const RefBundle::Tier& files, const fs::path& dir, const fs::path& outputs,
                                  EvaluationRecord& rec, const DeviceSlot& slot, const std::atomic<bool>* abandon) const
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
    auto res = m_launcher.run("judge", req, dir, m_opt.compareTimeout, slot, {}, true, abandon);
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

}  // namespace kbx
