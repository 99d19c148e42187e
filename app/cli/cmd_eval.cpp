// SPDX-License-Identifier: MIT
#include "cmd_eval.h"

#include "cli_common.h"
#include "exitcodes.h"

#include "catalogue.h"
#include "evaluator.h"
#include "importers.h"
#include "resume.h"
#include "runplan.h"
#include "sandbox.h"
#include "scratch_removal.h"
#include "stage_phases.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace kbxcli {
namespace {

using enum ExitCode;  // app/cli/exitcodes.h (docs/CLI.md, "Exit codes")

std::atomic<bool> g_cancel{false};
extern "C" void onEvalSignal(int) { g_cancel.store(true); }

std::string fmtDuration(double s)
{
    if (s < 60)
        return fmt::format("{:.0f}s", s);
    if (s < 3600)
        return fmt::format("{}m{:02d}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    return fmt::format("{}h{:02d}m", static_cast<int>(s) / 3600, (static_cast<int>(s) % 3600) / 60);
}

std::int64_t parseSecretSeed(std::string text, const std::string& where)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.pop_back();
    std::size_t start = 0;
    while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start])))
        ++start;
    text = text.substr(start);
    std::size_t used = 0;
    std::int64_t v = 0;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (text.empty() || used != text.size())
        throw std::runtime_error(where + ": not an integer secret seed");
    return v;
}

std::int64_t readSecretSeedFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("--secret-seed-file " + path + ": cannot read it");
    std::stringstream ss;
    ss << in.rdbuf();
    return parseSecretSeed(ss.str(), "--secret-seed-file " + path);
}

/// $KBX_SECRET_SEED, read once and then blanked in place (the memory /proc/PID/environ shows) and
/// removed, so no child inherits it.
std::optional<std::int64_t> takeSecretSeedEnv()
{
    char* v = std::getenv("KBX_SECRET_SEED");
    if (!v)
        return std::nullopt;
    std::string text = v;
    std::memset(v, 'x', std::strlen(v));
    unsetenv("KBX_SECRET_SEED");
    if (text.empty())
        return std::nullopt;
    return parseSecretSeed(text, "$KBX_SECRET_SEED");
}

/// kbx eval's options as a run plan's request (core/runplan.h).
kbx::PlanRequest planRequest(const EvalArgs& a)
{
    kbx::PlanRequest r;
    r.device = a.device;
    r.gpus = a.gpus;
    r.jobs = a.jobs;
    r.timeout = a.timeout;
    r.sandbox = a.sandbox;
    r.warmWorkers = a.warmWorkers;
    r.referenceServers = a.referenceServers;
    r.protocol = a.protocol;
    r.extendedStart = a.extendedStart;
    r.perf = a.perf;
    r.perfWorkers = a.perfWorkers;
    r.perfConfig = a.perfConfig;
    r.perfBaselines = a.perfBaselines;
    r.autotuneReplay = a.autotuneReplay;
    return r;
}

/// The perf stage's line for one candidate (stderr), and its JSON with --json.
void printPerf(const kbx::Outcome& o, const nlohmann::json& p, int done, int total, bool json)
{
    std::string what;
    if (p.contains("geomean_speedup"))
        what = fmt::format("geomean {:.3f}x [{:.3f}, {:.3f}] over {} shape(s){}", p["geomean_speedup"].value("estimate", 0.0),
                           p["geomean_speedup"].value("lo", 0.0), p["geomean_speedup"].value("hi", 0.0),
                           p.value("shapes", nlohmann::json::array()).size(),
                           p.contains("vs_eager") ? " (" + p.value("vs_eager", std::string()) + " vs eager)" : std::string());
    else
        what = p.value("error", std::string("no speedup"));
    if (p.contains("attribution") && p["attribution"].value("available", false))
        what += fmt::format("  triton {:.0f}%", 100.0 * p["attribution"].value("triton_share", 0.0));
    if (!p.value("flags", nlohmann::json::array()).empty())
        what += "  flags: " + p["flags"].dump();
    std::cerr << fmt::format("[perf {}/{}] {:<4} {:<32} {}\n", done, total, o.record.pass ? "ok" : "FAIL", o.taskId, what);
    if (json)
        std::cout << nlohmann::json{{"type", "perf"}, {"task", o.taskId}, {"evaluation_id", o.evaluationId},
                                    {"verdict", o.record.pass ? "pass" : "fail"},
                                    {"failure_class", o.record.failureClass ? nlohmann::json(*o.record.failureClass) : nlohmann::json()},
                                    {"perf", p}}
                         .dump()
                  << std::endl;
}

/// One evaluated candidate as kbx eval --json prints it.
nlohmann::json outcomeJson(const kbx::Outcome& o, kbx::Device device)
{
    nlohmann::json j = {{"task", o.taskId},
                        {"verdict", o.harnessError ? "error" : (o.record.pass ? "pass" : "fail")},
                        {"failure_class", o.record.failureClass ? nlohmann::json(*o.record.failureClass) : nlohmann::json()},
                        {"detail", o.harnessError ? o.harnessMessage : o.record.failureDetail},
                        {"call_ok", o.record.callOk},
                        {"exe_ok", o.record.exeOk},
                        {"method", o.method},
                        {"round", o.round},
                        {"origin", o.origin},
                        {"code_hash", o.codeHash},
                        {"candidate_id", o.candidateId},
                        {"evaluation_id", o.evaluationId},
                        {"new_candidate", o.newCandidate},
                        {"device", device},
                        {"seconds", o.seconds}};
    if (o.record.evidence.contains("first_failure"))
        j["evidence"] = o.record.evidence["first_failure"];
    if (!o.harnessError) {
        // Both tiers (issue 21): which decided the verdict, and the extended cases beside it.
        j["protocol"] = o.record.protocol;
        j["extended"] = o.record.evidence.value("extended", nlohmann::json());
        j["correct_incl_extended"] = !o.record.pass ? nlohmann::json(false)
                                     : o.record.protocol == "strict" ? nlohmann::json(true)
                                     : o.record.extCases ? nlohmann::json(*o.record.extPassed == *o.record.extCases)
                                                         : nlohmann::json();
    }
    return j;
}

/// One `kbx eval` on this machine, in the order it happens: the sources, the worker and the
/// request checked; the warm worker started beside the probe; the plan; --resume; the run.
class LocalEval {
public:
    explicit LocalEval(const EvalArgs& a) : m_a(a) {}

    int run()
    {
        // Everything this run creates is ours alone from the start (issue 20): the database, the
        // scratch, reference inputs and outputs (candidates under a uid of their own get read access to
        // their inputs file only, core/sandbox).
        ::umask(077);
        m_started = std::chrono::steady_clock::now();
        m_cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
        if (auto rc = prepare())
            return *rc;
        // Ctrl-C / SIGTERM from the warm worker's start on: before the run begins (the probe takes
        // seconds) kbx stops there, its scratch removed; afterwards the run stops as docs/CLI.md says.
        std::signal(SIGINT, onEvalSignal);
        std::signal(SIGTERM, onEvalSignal);
        startWarm();
        if (auto rc = plan())
            return *rc;
        if (stoppedEarly())
            return ExitInterrupted;
        m_store = openStore(m_dbPath);
        if (!m_store)
            return ExitDatabase;
        if (auto rc = resume())
            return *rc;
        if (stoppedEarly())
            return ExitInterrupted;
        return evaluate();
    }

private:
    const EvalArgs& m_a;
    kbx::TaskCatalogue m_cat;
    std::vector<kbx::Submission> m_subs;
    kbx::WorkerConfig m_worker;
    kbx::PlanRequest m_request;
    kbx::RunPlan m_plan;
    kbx::EvalOptions m_opt;          ///< the plan's, with what is run (method, round, seeds, scratch)
    kbx::SandboxInfo m_sandbox;
    nlohmann::json m_shardArgs;      ///< --shard I/N: what the run's args record (cmd_slurm.h)
    std::optional<kbx::Evaluator::WarmStart> m_warm;
    kbx::ScratchRemoval m_scratchGuard;  ///< a prestarted run's scratch: removed if kbx stops before the run does
    nlohmann::json m_probe;
    std::filesystem::path m_dbPath;
    std::unique_ptr<kbx::Store> m_store;
    std::string m_sourcePath;        ///< what --resume matches
    std::optional<std::int64_t> m_resumes;
    std::chrono::steady_clock::time_point m_started;  ///< kbx's start: the time before the run is said after it
    double m_probeSeconds = 0;                        ///< the worker probe's wall (torch, the devices, one kernel)

    /// A signal came before the run began: nothing was evaluated or stored.
    bool stoppedEarly() const
    {
        if (!g_cancel.load())
            return false;
        std::cerr << "kbx: stopped before the run began (interrupted); nothing was evaluated\n";
        return true;
    }

    /// The submissions (of this shard), the database, the worker, the sandbox and the request.
    std::optional<int> prepare()
    {
        std::vector<std::string> skipped;
        try {
            m_subs = kbx::loadSubmissions(m_a.source, m_cat, m_a.skipUnknown ? &skipped : nullptr);
        } catch (const kbx::ImportError& e) {
            std::cerr << "kbx: " << e.what() << "\n";
            return ExitInput;
        }
        for (const auto& s : skipped)
            std::cerr << "kbx: skipped " << s << "\n";
        if (m_subs.empty()) {
            std::cerr << "kbx: " << m_a.source << ": no submission for a known task\n";
            return ExitInput;
        }
        // A database this user cannot write is refused now, before the worker starts; kbx::Store says why
        // (the file or its directory) and touches nothing.
        m_dbPath = databasePath(m_a.db);
        if (!kbx::readOnlyReason(m_dbPath).empty() && !openStore(m_dbPath))
            return ExitDatabase;
        m_worker.worker = kbx::findWorker();
        if (m_worker.worker.empty()) {
            std::cerr << "kbx: kbx-worker not found (set KBX_WORKER or build with -DKBX_BUILD_WORKER=ON)\n";
            return ExitEnvironment;
        }
        m_opt.publicSeeds = m_a.seeds;
        m_opt.secretSeed = m_a.secretSeed;
        if (!m_a.slurm.shard.empty())
            if (auto rc = applyShard(m_a.slurm.shard, m_a.source, m_a.method, m_a.round, m_a.device, m_a.seeds, m_subs, m_opt.secretSeed,
                                     m_shardArgs))
                return *rc;
        try {
            m_sandbox = kbx::resolveSandbox(m_a.sandbox);
        } catch (const std::exception& e) {
            std::cerr << "kbx: " << e.what() << "\n";
            return ExitEnvironment;
        }
        m_request = planRequest(m_a);
        try {
            kbx::checkRequest(m_request);
        } catch (const kbx::RunPlanError& e) {
            return planFailed(e);
        }
        return std::nullopt;
    }

    /// The warm worker starts before the probe, so the two import torch at once (issue 22): for the
    /// device the run will most likely get (core/runplan.h). The run starts its own if the probe says otherwise.
    void startWarm()
    {
        if (m_a.slurm.backend == "slurm")
            return;
        kbx::EvalOptions w;
        w.device = kbx::likelyDevice(m_request);
        w.sandbox = kbx::parseSandboxMode(m_a.sandbox).value_or(kbx::SandboxMode::Auto);
        w.warmWorkers = kbx::parseWarmWorkers(m_a.warmWorkers).value_or(kbx::WarmWorkers::Auto);
        try {
            // The run's own directory under --scratch (never --scratch itself): the run adopts it.
            w.scratchDir = kbx::makeRunScratch(m_a.scratch, m_a.keepScratch);
            m_scratchGuard.dir = w.scratchDir;
            m_scratchGuard.keep = m_a.keepScratch;
            m_warm = kbx::Evaluator::startWarm(m_worker, w, w.scratchDir);
            m_opt.scratchDir = w.scratchDir;
        } catch (const std::exception&) {
            m_warm.reset();  // the run starts it itself and reports what is wrong
        }
    }

    /// The worker's probe, and the run plan on what it sees.
    std::optional<int> plan()
    {
        try {
            const auto t = std::chrono::steady_clock::now();
            m_probe = kbx::Evaluator::probe(m_worker);
            m_probeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
        } catch (const std::exception& e) {
            std::cerr << "kbx: " << e.what() << "\n";
            return ExitEnvironment;
        }
        try {
            m_plan = kbx::resolvePlan(m_request, kbx::HostFacts::fromProbe(m_probe));
        } catch (const kbx::RunPlanError& e) {
            return planFailed(e);
        }
        auto opt = kbx::toEvalOptions(m_plan);
        opt.method = m_a.method;
        opt.round = m_a.round;
        opt.publicSeeds = m_opt.publicSeeds;
        opt.secretSeed = m_opt.secretSeed;
        opt.keepScratch = m_a.keepScratch;
        opt.scratchRoot = m_a.scratch;
        opt.scratchDir = m_opt.scratchDir;
        m_opt = std::move(opt);
        return std::nullopt;
    }

    /// --resume (core/resume.h): only what this database does not hold yet; continue the interrupted run.
    std::optional<int> resume()
    {
        m_sourcePath = std::filesystem::weakly_canonical(std::filesystem::absolute(m_a.source)).string();
        if (!m_a.resume)
            return std::nullopt;
        kbx::ResumePlan plan;
        try {
            plan = kbx::planResume(*m_store, m_subs, {m_a.source, m_sourcePath, m_a.method, m_a.round, kbx::deviceName(m_opt.device)});
        } catch (const std::exception& e) {
            std::cerr << "kbx: --resume: " << e.what() << "\n";
            return ExitDatabase;
        }
        if (!plan.inProgress.empty()) {
            std::cerr << fmt::format("kbx: --resume: run {} of this source is still in progress (kbx pid {} on this host); "
                                     "let it finish or stop it first\n",
                                     plan.inProgress.front().id, plan.inProgress.front().pid);
            return ExitUsage;
        }
        std::string continued;
        if (const auto* u = plan.continues()) {
            // The same cases as the interrupted run: its public and secret seeds.
            if (m_a.seedsGiven && u->publicSeeds != m_opt.publicSeeds) {
                std::cerr << fmt::format("kbx: --resume continues run {}, whose public seeds are {}; leave out --seeds\n", u->id,
                                         fmt::join(u->publicSeeds, ","));
                return ExitUsage;
            }
            if (m_a.secretSeed && *m_a.secretSeed != u->secretSeed) {
                std::cerr << fmt::format("kbx: --resume continues run {}, which has another secret seed; leave out --secret-seed\n", u->id);
                return ExitUsage;
            }
            m_opt.publicSeeds = u->publicSeeds;
            m_opt.secretSeed = u->secretSeed;
            m_resumes = u->id;
            continued = fmt::format("; continuing run {} (started {}, {} evaluation(s) committed), now marked 'interrupted'", u->id,
                                    u->startedAt, u->evaluations);
        }
        kbx::markInterrupted(*m_store, plan);
        std::cerr << fmt::format("kbx: --resume: {} of {} submission(s) already evaluated in {} (same task, code, method, round, device {}); "
                                 "{} to evaluate{}\n",
                                 plan.done.size(), m_subs.size(), m_dbPath.string(), kbx::deviceName(m_opt.device), plan.todo.size(), continued);
        m_subs = std::move(plan.todo);
        if (m_subs.empty()) {
            std::cerr << "kbx: --resume: nothing left to evaluate\n";
            return ExitOk;
        }
        return std::nullopt;
    }

    /// What the run records as its args.
    nlohmann::json runArgs(const kbx::Evaluator& ev) const
    {
        nlohmann::json args = {{"source", m_a.source}, {"method", m_a.method}, {"round", m_a.round}, {"device", m_opt.device},
                               {"jobs", m_opt.jobs}, {"perf", m_a.perf}};
        // With --perf, every setting the perf stage used (PerfConfig::toJson), else the overrides given.
        args["perf_config"] = m_a.perf ? ev.perfConfig().toJson() : m_opt.perfConfig;
        args["source_path"] = m_sourcePath;  // what --resume matches, with the pid that tells a live run from a killed one
        args["pid"] = static_cast<std::int64_t>(getpid());
        if (!m_shardArgs.is_null())
            args.update(m_shardArgs);
        if (m_resumes)
            args["resumes"] = *m_resumes;
        return args;
    }

    int evaluate()
    {
        const bool cuda = m_plan.cuda();
        std::cerr << fmt::format("kbx: evaluating {} candidate(s) from {} on {} ({}), {} job(s){}{}, database {}\n", m_subs.size(), m_a.source,
                                 kbx::deviceName(m_opt.device), cuda && !m_probe["devices"].empty() ? m_probe["devices"][0].value("name", "") : "Triton interpreter",
                                 m_opt.jobs, m_plan.gpus.empty() ? std::string() : fmt::format(" on each of {} GPU(s)", m_plan.gpus.size()),
                                 m_plan.jobsWhy.empty() ? std::string() : " (" + m_plan.jobsWhy + ")", m_dbPath.string());
        if (m_plan.perf && !cuda)
            std::cerr << "kbx: --perf on the CPU times the Triton interpreter: the plumbing works, the numbers mean nothing\n";
        std::cerr << "kbx: sandbox: " << m_sandbox.describe() << "\n";
        m_probe["sandbox"] = m_sandbox.toJson();  // the run's provenance
        if (auto placement = slurmProvenance(); !placement.is_null())
            m_probe["slurm"] = placement;  // node and GPUs of a Slurm array task
        kbx::Evaluator ev(m_cat, *m_store, m_worker, m_opt);
        ev.setProbe(m_probe);
        const bool warmBeside = m_warm && m_warm->worker;  // started before the probe, importing torch beside it
        if (m_warm)
            ev.adoptWarmStart(std::move(*m_warm));
        const auto start = std::chrono::steady_clock::now();
        const double beforeRun = std::chrono::duration<double>(start - m_started).count();
        ev.setPerfProgress([&](const kbx::Outcome& o, const nlohmann::json& p, int done, int total) { printPerf(o, p, done, total, m_a.json); });
        ev.setCorrectnessEnd([this](const kbx::RunSummary& s) {
            // Before the perf stage: when the correctness stage's last process ended, which may be
            // after the last verdict (the precompiles left for its tail are said apart).
            if (!m_plan.perf)
                return;
            std::cerr << fmt::format("kbx: correctness stage ended {:.1f} s after the run began{}; timing the correct candidates\n",
                                     s.correctnessSeconds,
                                     s.tailPrecompiles ? fmt::format(" (perf shapes precompiled at its tail: {} candidate(s), {:.0f} s of "
                                                                     "process time)", s.tailPrecompiles, s.tailPrecompileSeconds)
                                                       : std::string());
        });
        kbx::StagePhases phases;  // where the correctness stage's time went (printed after the run)
        double correctnessWall = 0;
        auto progress = [&](const kbx::Outcome& o, int done, int total) {
            double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            phases.add(o);
            correctnessWall = el;
            double eta = done ? el / done * (total - done) : 0;
            std::string verdict = o.harnessError ? "ERROR" : (o.record.pass ? "pass" : "fail");
            std::string cls = o.harnessError ? o.harnessMessage.substr(0, 200) : o.record.failureClass.value_or("");
            if (!o.harnessError && o.record.extCases)
                cls += fmt::format("{}ext {}/{}", cls.empty() ? "" : " ", *o.record.extPassed, *o.record.extCases);
            std::cerr << fmt::format("[{}/{}] {:<5} {:<32} {:<22} {:5.1f}s  ETA {}\n", done, total, verdict, o.taskId, cls, o.seconds,
                                     fmtDuration(eta));
            if (m_a.json)
                std::cout << outcomeJson(o, m_opt.device).dump() << std::endl;
        };
        kbx::RunSummary sum;
        try {
            sum = ev.run(m_subs, progress, &g_cancel, runArgs(ev));
        } catch (const kbx::StoreError& e) {
            std::cerr << "kbx: " << e.what() << "\n";
            return ExitDatabase;
        } catch (const std::exception& e) {
            std::cerr << "kbx: " << e.what() << "\n";
            return ExitEnvironment;
        }
        std::cerr << fmt::format("kbx: run {}: {} passed, {} failed, {} not judged, of {} in {}\n", sum.runId, sum.passed, sum.failed,
                                 sum.harnessErrors, sum.total, fmtDuration(sum.seconds));
        if (phases.evaluations())
            std::cerr << "kbx: correctness stage: " << phases.describe(m_opt.jobs, correctnessWall) << "\n";
        // What came before the run began: the stage's seconds above start there (issue 22's phases).
        std::cerr << fmt::format("kbx: before the run: {:.1f} s, {:.1f} s of them the worker probe (torch, the devices, one kernel{})\n",
                                 beforeRun, m_probeSeconds, warmBeside ? "; beside the warm worker's start" : "");
        if (m_opt.keepScratch)
            std::cerr << fmt::format("kbx: the run's scratch directory is kept: {}\n", sum.scratch.string());
        if (sum.cancelled)
            return ExitInterrupted;
        return sum.harnessErrors ? ExitUnjudged : ExitOk;
    }
};

}  // namespace

std::optional<int> takeSecretSeed(EvalArgs& a)
{
    try {
        const auto fromEnv = takeSecretSeedEnv();  // blanked whether used or not
        if (!a.secretSeedFile.empty())
            a.secretSeed = readSecretSeedFile(a.secretSeedFile);
        else if (fromEnv && !a.secretSeed)
            a.secretSeed = fromEnv;
    } catch (const std::exception& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitUsage;
    }
    return std::nullopt;
}

std::optional<int> checkPerfOverrides(const std::string& perfConfig, const std::vector<std::string>& baselines)
{
    try {
        kbx::perfOverrides(perfConfig, baselines);
    } catch (const kbx::RunPlanError& e) {
        return planFailed(e);
    }
    return std::nullopt;
}

int runEval(const CLI::App& eval, EvalArgs& a)
{
    if (!a.seedsText.empty()) {
        a.seedsGiven = true;
        a.seeds.clear();
        std::stringstream ss(a.seedsText);
        std::string s;
        while (std::getline(ss, s, ','))
            a.seeds.push_back(std::stoll(s));
    }
    if (slurmRequested(a.slurm)) {
        // The same checks as a local run and the workbench's Slurm runs, here on the submitting
        // machine: a misspelled option must not reach every array task (each would fail alike).
        try {
            kbx::checkRequest(planRequest(a));
        } catch (const kbx::RunPlanError& e) {
            return planFailed(e);
        }
        return runSlurmEval(eval, a.slurm, {a.source, a.db, a.secretSeed, a.method, a.round, a.skipUnknown});
    }
    return LocalEval(a).run();
}

CLI::App* addEvalCommand(CLI::App& app, EvalArgs& ea)
{
    auto* eval = app.add_subcommand("eval", "Evaluate submissions (JSONL, .py named after a task, or a directory)");
    eval->add_option("SOURCE", ea.source, "Submission file or directory")->required();
    eval->add_option("--method", ea.method, "Method name stored with the results")->capture_default_str();
    eval->add_option("--round", ea.round, "Round number when the source carries none")->capture_default_str();
    eval->add_option("--db", ea.db, "Database (default: $KBX_DB or ~/.local/share/kbx/kbx.sqlite)");
    eval->add_option("--device", ea.device, "auto, cpu (Triton interpreter) or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))->capture_default_str();
    eval->add_option("--jobs,-j", ea.jobs, "Candidates evaluated at once (default: picked from the host's cores, memory and GPUs, and said in the first progress line)")->check(CLI::Range(1, 256));
    eval->add_flag("--json", ea.json, "One JSON object per evaluated candidate on stdout");
    eval->add_option("--timeout", ea.timeout, "Candidate stage time limit in seconds (default 300 on cpu, 120 on cuda)");
    eval->add_option("--seeds", ea.seedsText, "Public seeds, comma-separated (default 0,1)");
    eval->add_option("--secret-seed", ea.secretSeed,
                     "Fix the secret seed (default: drawn per run). Visible to every process on this machine while kbx "
                     "starts (kbx blanks it from its command line once parsed): prefer --secret-seed-file or $KBX_SECRET_SEED");
    eval->add_option("--secret-seed-file", ea.secretSeedFile,
                     "Read the secret seed from this file (one integer; keep it mode 0600); the Slurm driver passes it so")
        ->excludes("--secret-seed");
    eval->add_flag("--keep-scratch", ea.keepScratch, "Keep the run's scratch directory");
    eval->add_option("--scratch", ea.scratch,
                     "Directory under which the run makes its own scratch directory (kbx-run-<pid>-XXXXXX, removed at the end "
                     "unless --keep-scratch; the directory given is never removed); default $TMPDIR");
    eval->add_option("--sandbox", ea.sandbox, "Candidate sandbox: auto (bwrap when it works, else rlimit), bwrap, rlimit or none")
        ->check(CLI::IsMember(kbx::sandboxModeWords()))
        ->capture_default_str();
    eval->add_option("--protocol", ea.protocol, "Which cases decide the verdict: contract (default: the argument patterns the "
                     "seed's own tests use, tasks/contracts.json; the other cases run as the extended tier beside it) or strict "
                     "(every case)")
        ->check(CLI::IsMember(kbx::protocolWords()));
    eval->add_option("--extended-start", ea.extendedStart, "When the extended tier's process starts: auto (with the contract "
                     "tier at the run's tail, when the queue is empty, and for the candidates expected to be the stage's "
                     "critical path; otherwise once the contract tier was right), after-contract (auto without the critical "
                     "path) or early (always with the contract tier: less latency per candidate, work thrown away for "
                     "candidates that fail)")
        ->check(CLI::IsMember(kbx::extendedStartWords()))->capture_default_str();
    eval->add_option("--warm-workers", ea.warmWorkers, "Worker processes forked from a warm worker that imported torch once, instead of a fresh interpreter each: auto (where the sandbox allows it: rlimit, none), on, off")
        ->check(CLI::IsMember(kbx::warmWorkersWords()))->capture_default_str();
    eval->add_option("--reference-servers", ea.referenceServers, "Reference processes per GPU that compute one task's references "
                     "after another with one CUDA context (-1: one per four jobs, at most 4; 0: a process per task)")
        ->check(CLI::Range(-1, 16))->capture_default_str();
    eval->add_flag("--perf", ea.perf, "Time every correct candidate against PyTorch eager after the correctness stage (docs/PERF_PROTOCOL.md)");
    eval->add_option("--perf-config", ea.perfConfig, "JSON overrides of the perf stage's settings, e.g. '{\"max_seconds\": 0.5}' (every key, its default and meaning: docs/PERF_PROTOCOL.md; an unknown key or a wrongly typed value is refused)");
    eval->add_option("--perf-baseline", ea.perfBaselines, "Also time these baselines beside PyTorch eager, interleaved: compile (torch.compile of the reference, fixed shapes, warmed), tf32 (eager with TF32 matmuls/convolutions)")
        ->delimiter(',')->check(CLI::IsMember({"compile", "tf32"}));
    eval->add_option("--autotune-replay", ea.autotuneReplay,
                     "With --perf: a kbx database of an earlier run; every autotuned kernel whose code it timed on this device kind takes, "
                     "per perf shape, the config recorded there instead of benchmarking (two runs time the same kernel; flagged "
                     "autotune_replay_missed where the recorded config is no longer among the kernel's)")
        ->check(CLI::ExistingFile);
    eval->add_option("--perf-workers", ea.perfWorkers, "Perf workers per GPU: one times while the others start up (only the timed part holds the GPU); default on cuda: half the host's cores per GPU, 4 to 12; 2 on cpu")->check(CLI::Range(1, 16));
    eval->add_option("--gpus", ea.gpus,
                     "Spread the run over these GPUs (indices or UUIDs, comma-separated, or 'all'): one pool of --jobs "
                     "workers per GPU, one timing at a time per GPU; a GPU that fails its health probe leaves the pool")
        ->delimiter(',');
    eval->add_flag("--resume", ea.resume,
                   "After a killed run: evaluate only the submissions this database has no evaluation of yet. Done means an "
                   "evaluation of the same task, code (SHA-256 of the cleaned code), method and round on the same device (cpu or "
                   "cuda), from any run; unjudged candidates and imported verdicts do not count. The unfinished run of the same "
                   "source, method, round and device is marked 'interrupted' and its seeds are reused");
    eval->add_flag("--skip-unknown", ea.skipUnknown, "Leave out records for tasks this benchmark does not have (default: refuse the source)");
    addSlurmOptions(eval, ea.slurm);
    return eval;
}

}  // namespace kbxcli
