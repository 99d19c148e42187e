// SPDX-License-Identifier: MIT
#include "correctness_stage.h"

#include "evalutil.h"
#include "perf_stage.h"
#include "result_sink.h"
#include "scheduler.h"
#include "source.h"
#include "taxonomy.h"
#include "worker_launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <thread>
#include <vector>

namespace kbx {
namespace fs = std::filesystem;
using evalutil::printable;

CorrectnessStage::CorrectnessStage(const TaskCatalogue& catalogue, const EvalOptions& opt, const WorkerLauncher& launcher,
                                   ReferenceCache& refs, const TierJudge& judge, const PerfStage& perf, ResultSink& sink)
    : m_catalogue(catalogue), m_opt(opt), m_launcher(launcher), m_refs(refs), m_judge(judge), m_perf(perf), m_sink(sink)
{
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// An early return (not judged) wants nothing of a running extended tier: abandon it and join.
struct AbandonAndJoin {
    std::thread& t;
    std::atomic<bool>& abandon;
    ~AbandonAndJoin()
    {
        if (t.joinable()) {
            abandon = true;
            t.join();
        }
    }
};

/// A tier's own verdict, whichever decided (kbx report --table protocol reads them).
nlohmann::json tierJson(const EvaluationRecord& r)
{
    return nlohmann::json{{"pass", r.pass}, {"call_ok", r.callOk}, {"exe_ok", r.exeOk},
                          {"failure_class", r.failureClass ? nlohmann::json(*r.failureClass) : nlohmann::json()}};
}
}  // namespace

Outcome& CorrectnessStage::finish(Outcome& out, const Submission& sub, std::int64_t methodId, bool store,
                                  std::chrono::steady_clock::time_point t0)
{
    auto& rec = out.record;
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
    out.seconds = secondsSince(t0);
    if (store && !out.harnessError)
        m_sink.storeEvaluation(sub, methodId, out);
    return out;
}

namespace {
/// A passing candidate's precompile (PerfStage::precompile) in a thread of its own, so that it runs
/// beside the extended tier's process instead of after it (issue 22: one after the other they were
/// the correctness stage's tail, a 31 s extended tier then a 12 s precompile on the H200). It uses
/// the candidate's directory, which nothing else uses by then (the autotune sweep ran in directories
/// under it and is done; the extended tier has a directory of its own), and writes the record only
/// in finish().
class BackgroundPrecompile {
public:
    BackgroundPrecompile(const PerfStage& perf, const TaskInfo& task, const fs::path& dir, const DeviceSlot& slot)
        : m_perf(perf), m_task(task), m_dir(dir), m_slot(slot)
    {
    }
    BackgroundPrecompile(const BackgroundPrecompile&) = delete;
    BackgroundPrecompile& operator=(const BackgroundPrecompile&) = delete;
    ~BackgroundPrecompile()
    {
        if (m_thread.joinable())
            m_thread.join();
    }
    void start(const EvaluationRecord& rec)
    {
        m_thread = std::thread([this, entry = evalutil::entryPoint(rec, m_task)] { m_result = m_perf.precompile(entry, m_task, m_dir, m_slot); });
    }
    bool started() const { return m_thread.joinable(); }
    /// Waits for a started precompile and stores its evidence and seconds in rec.
    void finish(EvaluationRecord& rec)
    {
        if (!m_thread.joinable())
            return;
        m_thread.join();
        m_result.applyTo(rec);
    }

private:
    const PerfStage& m_perf;
    const TaskInfo& m_task;
    const fs::path& m_dir;
    const DeviceSlot& m_slot;
    PerfStage::Precompiled m_result;
    std::thread m_thread;
};
}  // namespace

namespace {
/// A submission's outcome before anything ran: who and what it is, when it started, on which slot.
Outcome beginOutcome(const Submission& sub, std::int64_t runId, const EvalOptions& opt, const Slot& slot)
{
    Outcome out;
    out.taskId = sub.taskId;
    out.origin = sub.origin;
    out.method = sub.method.value_or(opt.method);
    out.round = sub.round.value_or(opt.round);
    out.codeHash = sha256Hex(sub.code);
    auto& rec = out.record;
    rec.runId = runId;
    rec.taskId = sub.taskId;
    rec.startedAt = nowIso8601();
    if (auto d = slot.describeForEvidence(); !d.is_null())
        rec.evidence["device_slot"] = d;  // which GPU produced this verdict (multi-GPU runs): the user's name for it and its probe
    return out;
}
}  // namespace

Outcome CorrectnessStage::evaluateOne(const Submission& sub, std::int64_t runId, std::int64_t methodId, int index, const Slot& slot)
{
    const auto t0 = std::chrono::steady_clock::now();
    Outcome out = beginOutcome(sub, runId, m_opt, slot);
    if (sub.method)
        methodId = m_sink.ensureMethod(*sub.method);
    auto& rec = out.record;

    const TaskInfo* task = m_catalogue.find(sub.taskId);
    if (!task) {
        out.harnessError = true;
        out.harnessMessage = "unknown task " + sub.taskId;
        return finish(out, sub, methodId, false, t0);
    }
    if (sub.code.find_first_not_of(" \t\r\n") == std::string::npos) {
        rec.pass = false;
        rec.failureClass = "empty";
        rec.failureDetail = "the submission holds no code after removing fences and the test section";
        return finish(out, sub, methodId, true, t0);
    }
    const auto& ref = m_refs.get(*task, slot.index, slot.device);
    if (!ref.ok) {
        out.harnessError = true;
        out.harnessMessage = ref.error;
        return finish(out, sub, methodId, false, t0);
    }
    rec.stageSeconds["reference_cases"] = ref.cases;
    rec.stageSeconds["reference"] = ref.seconds;
    if (!ref.phases.is_null())
        rec.stageSeconds["reference_phases"] = ref.phases;

    // Candidate stage: a fresh process per tier, one scratch directory for the candidate.
    const auto dir = evalutil::candidateDir(m_launcher.scratch(), index, out.codeHash);
    fs::create_directories(dir);
    evalutil::writeText(dir / "candidate.py", sub.code);
    rec.protocol = protocolName(m_opt.protocol);
    const auto contractTier = ref.tiers.find("contract");
    if (contractTier == ref.tiers.end()) {
        out.harnessError = true;
        out.harnessMessage = "the reference produced no contract-tier cases for " + task->id;
        return finish(out, sub, methodId, false, t0);
    }
    // The extended tier runs in a process of its own beside the contract tier's work (issue 22).
    // What is stored does not depend on when it ran: its result is used only when the contract
    // tier's outputs were right (after the autotune sweep too), as when it ran afterwards.
    //   - as at the tail (atTail: the queue is empty, threads are about to idle; or the evaluation
    //     is on the stage's expected critical path), or always with --extended-start early, it
    //     starts with the contract tier, speculatively; a run whose premise fails (wrong contract
    //     outputs, a failing sweep config) is abandoned: killed, not waited for, nothing read;
    //   - otherwise once the contract tier was right, beside the sweep: while the queue is full the
    //     stage is bound by its total work (14 jobs ran ~19 processes at once on the H200's 16
    //     cores), and a process beside a contract tier that then fails is work thrown away.
    const bool critical = static_cast<std::size_t>(index) < m_critical.size() && m_critical[static_cast<std::size_t>(index)];
    if (critical)
        rec.evidence["schedule"] = {{"critical_path", true}, {"expected_seconds", m_expected[static_cast<std::size_t>(index)]}};
    auto atTail = [&] { return critical || slot.queueDrained.load(); };
    const auto ext = ref.tiers.find("extended");
    ExtendedRun extRun;
    std::thread extThread;
    auto startExtended = [&] {
        extRun.startedAfter = secondsSince(t0);
        extThread = std::thread([&, t = task, runId = rec.runId] { runExtended(sub, *t, ext->second, dir, runId, extRun, slot); });
    };
    AbandonAndJoin joiner{extThread, extRun.abandon};
    if (ext != ref.tiers.end() && (m_opt.extendedStart == ExtendedStart::Early || atTail()))
        startExtended();
    // On extended_started_after's clock (the reference's seconds leave out waiting for its server).
    rec.stageSeconds["contract_started_after"] = secondsSince(t0);
    if (!m_judge.judgeTier(sub, *task, "contract", contractTier->second, dir, rec, out, slot.device))
        return finish(out, sub, methodId, false, t0);
    if (!ref.contractNote.empty())
        rec.evidence["contract"] = ref.contractNote;
    if (!rec.exeOk)
        extRun.abandon = true;  // mergeExtended drops it unread: stop it now
    if (ext != ref.tiers.end() && rec.exeOk && !extThread.joinable())
        startExtended();
    if (rec.pass && rec.evidence.contains("autotune") && rec.evidence["autotune"].is_object())
        autotuneSweep(sub, *task, contractTier->second, dir, rec, slot);
    if (!rec.exeOk)
        extRun.abandon = true;  // a sweep config's outputs were wrong
    // The precompile of the perf shapes (--perf on a GPU, after a pass). As at the tail, beside the
    // extended tier once the contract tier and its sweep passed (under --protocol strict once the
    // extended tier, which can still fail the verdict, has decided). While the queue is full it is
    // left for the tail (runPendingPrecompile): it decides nothing, beside the other jobs' work it
    // slowed them (H200, 14 jobs: 61-65 s under --perf, 52 s without), and at the tail threads idle.
    const bool wantPrecompile = m_opt.perf && m_opt.device == Device::Cuda && m_perf.config().precompile;
    BackgroundPrecompile pre(m_perf, *task, dir, slot.device);
    if (wantPrecompile && rec.pass && m_opt.protocol != Protocol::Strict && atTail())
        pre.start(rec);
    rec.evidence["tiers"]["contract"] = tierJson(rec);
    if (extThread.joinable())
        extThread.join();
    if (ext != ref.tiers.end())
        mergeExtended(ref, ext->second, extRun, rec);
    std::sort(rec.cases.begin(), rec.cases.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    bool leaveForTail = false;
    if (wantPrecompile && rec.pass && !pre.started()) {
        if (atTail())
            pre.start(rec);
        else
            leaveForTail = true;
    }
    pre.finish(rec);
    rec.stageSeconds["evaluation"] = secondsSince(t0);
    auto& o = finish(out, sub, methodId, true, t0);
    if (leaveForTail && !o.harnessError && o.evaluationId > 0) {
        std::lock_guard g(m_pendingMutex);
        m_pending.push_back({o.evaluationId, task, dir, evalutil::entryPoint(o.record, *task)});
    }
    return o;
}

void CorrectnessStage::setCriticalPath(std::vector<double> expected, std::vector<bool> critical)
{
    m_expected = std::move(expected);
    m_critical = std::move(critical);
    m_expected.resize(m_critical.size(), 0.0);
}

bool CorrectnessStage::runPendingPrecompile(const Slot& slot)
{
    PendingPrecompile p;
    {
        std::lock_guard g(m_pendingMutex);
        if (m_pending.empty() || m_launcher.cancelled())
            return false;
        p = std::move(m_pending.front());
        m_pending.pop_front();
    }
    // Its evaluation is stored and its candidate's other processes have ended: the directory is
    // the precompile's alone, as beside the extended tier. Evidence and seconds go where a
    // precompile beside the extended tier puts them; a failure here is evidence, never a verdict.
    const auto r = m_perf.precompile(p.entry, *p.task, p.dir, slot.device);
    nlohmann::json ev = r.evidence.is_null() ? nlohmann::json::object() : r.evidence;
    ev["at"] = "tail";
    try {
        m_sink.storeStageResult(p.evaluationId, "precompile", ev, r.seconds);
    } catch (const std::exception& e) {
        std::cerr << fmt::format("kbx: the perf shapes' precompile of evaluation {} was not stored ({}); its perf workers compile them\n",
                                 p.evaluationId, e.what());
    }
    std::lock_guard g(m_pendingMutex);
    ++m_pendingDone;
    m_pendingSeconds += r.seconds.value_or(0.0);
    return true;
}

std::pair<int, double> CorrectnessStage::pendingPrecompilesDone() const
{
    std::lock_guard g(m_pendingMutex);
    return {m_pendingDone, m_pendingSeconds};
}

namespace {
/// One config's run of the autotune sweep.
struct PinRun {
    int pin = 0;
    bool judged = false;
    EvaluationRecord rec;
    Outcome out;
};

/// The configs @triton.autotune chose, as "kernel: key" (bounded).
std::string chosenConfigs(const nlohmann::json& at)
{
    std::string s;
    if (at.is_object())
        for (const auto& [name, a] : at.items())
            if (a.is_object() && a.contains("keys") && a["keys"].is_object() && !a["keys"].empty())
                s += (s.empty() ? "" : "; ") + name + ": " + a["keys"].begin().value().get<std::string>();
    return s.substr(0, 400);
}

/// The sweep's runs of one batch into `sweep` and `rec`; true when one of them failed (the lowest
/// failing config decides).
bool mergePinBatch(std::vector<PinRun>& pins, std::size_t from, std::size_t to, int k, nlohmann::json& sweep, EvaluationRecord& rec)
{
    bool failed = false;
    for (std::size_t i = from; i < to; ++i) {
        auto& pr = pins[i];
        if (!pr.judged) {
            sweep["runs"].push_back({{"pin", pr.pin}, {"not_judged", pr.out.harnessMessage.substr(0, 300)}});
            continue;
        }
        auto& prec = pr.rec;
        const int pin = pr.pin;
        const auto cfg = chosenConfigs(prec.evidence.value("autotune", nlohmann::json::object()));
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
    return failed;
}
}  // namespace

AutotuneSweepPlan autotuneSweepPlan(const nlohmann::json& autotuneRecord)
{
    AutotuneSweepPlan p;
    if (autotuneRecord.is_object())
        for (const auto& [name, a] : autotuneRecord.items())
            if (a.is_object() && a.contains("configs") && a["configs"].is_number_integer())
                p.declared = std::max(p.declared, a["configs"].get<int>());
    p.configs = std::min(p.declared, kMaxAutotuneSweepConfigs);
    return p;
}

void CorrectnessStage::autotuneSweep(const Submission& sub, const TaskInfo& task, const RefBundle::Tier& contract, const fs::path& dir,
                                     EvaluationRecord& rec, const Slot& slot)
{
    // The autotune sweep (issue 22): a candidate whose @triton.autotune has K configs ran its contract
    // cases under the first (pin 0); it now runs them under each other config, each in a process of
    // its own. Which config Triton's autotuner picks is a race between timings (two runs picked
    // differently on 12 of 93 timed shapes on the H200, and a real generated smooth_l1_loss, wrong at
    // BLOCK_SIZE 256 and 512, passed or failed with the winner): a kernel must be right under every
    // config its autotuner may choose. K comes from the candidate process's autotune record (at most
    // kMaxAutotuneSweepConfigs; more are named as not swept); configs that cannot run for an input
    // are skipped as the autotuner skips them.
    const auto plan = autotuneSweepPlan(rec.evidence["autotune"]);
    const int k = plan.configs;
    if (k <= 1)
        return;
    nlohmann::json sweep = {{"configs", k}, {"runs", nlohmann::json::array()}};
    if (plan.declared > k) {
        sweep["declared"] = plan.declared;
        sweep["not_swept"] = fmt::format("configs {}-{} of {}: the sweep runs at most {}", k + 1, plan.declared, plan.declared, k);
    }
    sweep["runs"].push_back({{"pin", 0}, {"pass", true}, {"config", chosenConfigs(rec.evidence["autotune"])}});
    // The other configs run at once, up to kSweepParallel processes (issue 22: a swept kernel was the
    // correctness stage's tail, sequential sweep processes on the H200). Each in a directory of its
    // own (a process of its own under a uid of its own writes its request, outputs and Triton cache
    // there); the lowest failing config decides, so the verdict does not depend on which process
    // finishes first.
    std::vector<PinRun> pins(static_cast<std::size_t>(k - 1));
    for (int pin = 1; pin < k; ++pin)
        pins[static_cast<std::size_t>(pin - 1)].pin = pin;
    constexpr std::size_t kSweepParallel = 4;
    for (std::size_t from = 0; from < pins.size(); from += kSweepParallel) {
        if (m_launcher.cancelled())
            break;
        const std::size_t to = std::min(pins.size(), from + kSweepParallel);
        std::vector<std::thread> threads;
        for (std::size_t i = from; i < to; ++i)
            threads.emplace_back([&, i] {
                auto& pr = pins[i];
                pr.rec.runId = rec.runId;
                pr.rec.taskId = rec.taskId;
                const auto pdir = dir / fmt::format("sweep-{}", pr.pin);
                try {
                    fs::create_directories(pdir);
                    fs::copy_file(dir / "candidate.py", pdir / "candidate.py", fs::copy_options::overwrite_existing);
                    // the same GPU slot as the candidate's other processes
                    pr.judged = m_judge.judgeTier(sub, task, "contract", contract, pdir, pr.rec, pr.out, slot.device, pr.pin);
                } catch (const std::exception& e) {
                    pr.judged = false;
                    pr.out.harnessMessage = e.what();
                }
            });
        for (auto& t : threads)
            t.join();
        if (mergePinBatch(pins, from, to, k, sweep, rec))
            break;
    }
    sweep["parallel"] = kSweepParallel;
    rec.evidence["autotune_sweep"] = sweep;
}

void CorrectnessStage::runExtended(const Submission& sub, const TaskInfo& task, const RefBundle::Tier& files, const fs::path& dir,
                                   std::int64_t runId, ExtendedRun& run, const Slot& slot) const
{
    // A directory of its own (its request, outputs and Triton cache) beside the candidate's, not
    // inside it: it may run while the contract tier's process runs there, and the sandbox hands a
    // process's whole directory to a uid of its own (and takes it back when it ends).
    const auto edir = dir.parent_path() / (dir.filename().string() + "-extended");
    run.erec.runId = runId;
    run.erec.taskId = task.id;
    try {
        fs::create_directories(edir);
        fs::copy_file(dir / "candidate.py", edir / "candidate.py", fs::copy_options::overwrite_existing);
        run.judged = m_judge.judgeTier(sub, task, "extended", files, edir, run.erec, run.eout, slot.device, 0, &run.abandon);
    } catch (const std::exception& e) {
        run.judged = false;
        run.eout.harnessMessage = e.what();
    }
    run.ran = true;
}

void CorrectnessStage::mergeExtended(const RefBundle& ref, const RefBundle::Tier& files, ExtendedRun& run, EvaluationRecord& rec) const
{
    // The extended tier (cases the seed's own tests never make), after a contract tier whose
    // outputs were right; stored beside the verdict, deciding it only under --protocol strict.
    const int n = static_cast<int>(files.indices.size());
    if (!rec.exeOk) {
        // A run that started speculatively (or beside a sweep that then failed) is dropped unread.
        rec.evidence["extended"] = {{"cases", n}, {"ran", false}, {"why", "the contract tier failed"}};
        return;
    }
    if (!run.ran)  // not started: a contract tier that could not be judged returned before
        return;
    auto& erec = run.erec;
    for (const auto& [k, v] : erec.stageSeconds.items())
        rec.stageSeconds[k] = v;  // candidate_extended, compare_extended: the tier's cost is visible
    rec.stageSeconds["extended_started_after"] = run.startedAfter;
    nlohmann::json summary = {{"cases", n}, {"ran", true}};
    if (!run.judged) {
        // Not the candidate's doing (a worker that could not start): no extended figures.
        summary["ran"] = false;
        summary["why"] = "not judged: " + run.eout.harnessMessage.substr(0, 500);
        rec.evidence["extended"] = summary;
        return;
    }
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
    if (m_opt.protocol == Protocol::Strict && !erec.exeOk) {
        rec.pass = false;
        rec.callOk = rec.callOk && erec.callOk;
        rec.exeOk = false;
        rec.failureClass = erec.failureClass.value_or("value_mismatch");
        rec.failureDetail = "extended tier: " + erec.failureDetail;
        if (erec.evidence.contains("first_failure"))
            rec.evidence["first_failure"] = erec.evidence["first_failure"];
    }
    rec.evidence["extended"] = summary;
}

}  // namespace kbx
