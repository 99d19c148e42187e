// SPDX-License-Identifier: MIT
// kbx: the command line of the KernelBench-X Workbench. Everything the GUI does, without a screen.
#include "catalogue.h"
#include "cmd_import.h"
#include "cmd_merge.h"
#include "cmd_slurm.h"
#include "cmd_report.h"
#include "cmd_setup_python.h"
#include "cmd_show.h"
#include "evaluator.h"
#include "exitcodes.h"
#include "importers.h"
#include "paths.h"
#include "perfconfig.h"
#include "resume.h"
#include "sandbox.h"
#include "source.h"
#include "store.h"
#include "taxonomy.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <optional>
#include <csignal>
#include <cstring>
#include <fstream>
#include <set>
#include <iostream>
#include <map>
#include <sstream>

namespace {

using enum kbxcli::ExitCode;  // app/cli/exitcodes.h (docs/CLI.md, "Exit codes")

std::atomic<bool> g_cancel{false};
extern "C" void onSignal(int) { g_cancel.store(true); }

std::string fmtDuration(double s)
{
    if (s < 60)
        return fmt::format("{:.0f}s", s);
    if (s < 3600)
        return fmt::format("{}m{:02d}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    return fmt::format("{}h{:02d}m", static_cast<int>(s) / 3600, (static_cast<int>(s) % 3600) / 60);
}

std::filesystem::path databasePath(const std::string& db)
{
    return db.empty() ? kbx::defaultDatabasePath() : std::filesystem::path(db);
}

/// Opens (or creates) the database; prints the error and returns null when it cannot.
std::unique_ptr<kbx::Store> openStore(const std::filesystem::path& path)
{
    try {
        return std::make_unique<kbx::Store>(path);
    } catch (const kbx::StoreError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return nullptr;
    }
}

/// --perf-config TEXT and --perf-baseline (its "baselines") as the Evaluator's overrides: a JSON
/// object of PerfConfig's keys (core/perfconfig.h), checked now; the Evaluator applies them to the
/// device's defaults. Says why and returns nothing for text that is not such an object.
std::optional<nlohmann::json> perfOverrides(const std::string& text, const std::vector<std::string>& baselines)
{
    auto j = text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) {
        std::cerr << "kbx: --perf-config must be a JSON object, e.g. '{\"max_seconds\": 0.5}'\n";
        return std::nullopt;
    }
    if (!baselines.empty())
        j["baselines"] = baselines;
    try {
        kbx::PerfConfig::fromJson(j, "cpu");  // the keys and their types; the device changes only defaults
    } catch (const kbx::PerfConfigError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return std::nullopt;
    }
    return j;
}

kbx::TaskCatalogue loadCatalogue()
{
    return kbx::TaskCatalogue::load(kbx::findTasksDir());
}

int cmdTasks(const std::string& category, bool json)
{
    auto cat = loadCatalogue();
    nlohmann::json arr = nlohmann::json::array();
    std::map<std::string, int> counts;
    for (const auto& t : cat.tasks()) {
        if (!category.empty() && t.category != category)
            continue;
        counts[t.category]++;
        if (json) {
            arr.push_back({{"id", t.id}, {"category", t.category}, {"stem", t.stem}, {"entry", t.entry},
                           {"signature", t.signature}, {"difficulty", t.difficulty}, {"comparison", t.comparison},
                           {"tf32", t.tf32}, {"oracle", t.oracle.empty() ? nlohmann::json() : nlohmann::json(t.oracle)},
                           {"tolerance", t.contract()["tolerance"]}, {"perf_shapes", t.perfShapes.size()},
                           {"file", t.file}});
        } else {
            std::cout << fmt::format("{:<34} d{}  {}\n", t.id, t.difficulty, t.signature.substr(0, 90));
        }
    }
    if (!category.empty() && counts.empty()) {
        std::cerr << fmt::format("kbx: unknown category '{}' (known: {})\n", category, fmt::join(cat.categories(), ", "));
        return ExitInput;
    }
    if (json) {
        std::cout << arr.dump(1) << "\n";
    } else {
        int total = 0;
        std::ostringstream os;
        for (const auto& [c, n] : counts) {
            os << fmt::format(" {} {}", c, n);
            total += n;
        }
        std::cout << fmt::format("{} tasks:{}\n", total, os.str());
    }
    return ExitOk;
}

struct CheckArgs {
    int perfWorkers = 0;
    std::string warmWorkers = "auto";
    std::vector<std::string> perfBaselines;
    std::string category;
    std::vector<std::string> tasks;  ///< only these task ids (Category/stem)
    bool onePerCategory = false;
    std::string device = "cpu";
    int jobs = 0;  ///< 0: kbx::autoJobs
    std::string fixtures;  ///< known-good solutions, Category/stem.py (default: the source tree's)
    std::string db;        ///< keep the results there (default: a temporary database, removed)
    bool perf = false;     ///< also time references (self-speedup: the noise floor) and solutions
    std::string perfConfig;
    std::vector<std::string> gpus;  ///< multi-GPU pools (cuda only), as kbx eval --gpus
};

/// The candidate source that makes a task's own reference the entry point.
std::string referenceAsCandidate(const kbx::TaskCatalogue& cat, const kbx::TaskInfo& t)
{
    return fmt::format("# kbx tasks --check: the task's PyTorch reference as a candidate\n"
                       "import importlib.util as _kbx_u\n"
                       "_kbx_s = _kbx_u.spec_from_file_location('kbx_task_reference', {:?})\n"
                       "_kbx_m = _kbx_u.module_from_spec(_kbx_s)\n"
                       "_kbx_s.loader.exec_module(_kbx_m)\n"
                       "{} = _kbx_m.reference\n",
                       std::filesystem::absolute(cat.taskFile(t)).string(), t.entry);
}

/// Task self-check: every task's reference, run through the whole engine as a candidate, must be
/// judged correct (its verdict is not_triton_kernel, with exe_ok), and its known-good Triton
/// solution, where one exists, must pass.
int cmdTasksCheck(const CheckArgs& a)
{
    auto cat = loadCatalogue();
    std::filesystem::path fixtures = a.fixtures.empty() ? cat.dir() / ".." / "tests" / "fixtures" / "good" : std::filesystem::path(a.fixtures);
    std::vector<kbx::Submission> subs;
    std::set<std::string> seenCategory;
    for (const auto& t : cat.tasks()) {
        if (!a.category.empty() && t.category != a.category)
            continue;
        if (!a.tasks.empty() && std::find(a.tasks.begin(), a.tasks.end(), t.id) == a.tasks.end())
            continue;
        if (a.onePerCategory && !seenCategory.insert(t.category).second)
            continue;
        kbx::Submission ref{t.id, referenceAsCandidate(cat, t), "reference:" + t.id, 0, "reference"};
        ref.selfCheckReference = true;
        subs.push_back(ref);
        auto good = fixtures / (t.id + ".py");
        if (std::filesystem::exists(good)) {
            std::ifstream in(good);
            std::stringstream ss;
            ss << in.rdbuf();
            subs.push_back({t.id, kbx::cleanSubmission(ss.str()), "known-good:" + t.id, 0, "known-good"});
        }
    }
    if (subs.empty()) {
        std::cerr << fmt::format("kbx: no task matches (category '{}')\n", a.category);
        return ExitInput;
    }
    kbx::WorkerConfig wc;
    wc.worker = kbx::findWorker();
    if (wc.worker.empty()) {
        std::cerr << "kbx: kbx-worker not found\n";
        return ExitEnvironment;
    }
    const bool keepDb = !a.db.empty();
    const auto dbPath = keepDb ? std::filesystem::path(a.db)
                               : std::filesystem::temp_directory_path() / fmt::format("kbx-check-{}.sqlite", getpid());
    auto store = openStore(dbPath);
    if (!store)
        return ExitDatabase;
    kbx::EvalOptions opt;
    opt.device = a.device;
    opt.jobs = a.jobs;
    opt.method = "self-check";
    opt.candidateTimeout = a.device == "cpu" ? 300 : 120;
    if (!a.gpus.empty()) {
        if (a.device != "cuda") {
            std::cerr << "kbx: --gpus needs --device cuda\n";
            return ExitUsage;
        }
        try {
            opt.deviceSlots = kbx::gpuSlots(a.gpus);
        } catch (const std::exception& e) {
            std::cerr << "kbx: --gpus: " << e.what() << "\n";
            return ExitUsage;
        }
    }
    opt.perf = a.perf;
    opt.perfPipeline = a.perfWorkers;
    opt.warmWorkers = a.warmWorkers;
    if (auto overrides = perfOverrides(a.perfConfig, a.perfBaselines))
        opt.perfConfig = std::move(*overrides);
    else
        return ExitUsage;
    std::string jobsWhy;
    if (a.jobs == 0) {
        const auto [cores, mem] = kbx::hostResources();
        const auto aj = kbx::autoJobs(a.device, static_cast<int>(opt.deviceSlots.size()), cores, mem);
        opt.jobs = aj.jobs;
        jobsWhy = fmt::format(", {} job(s) ({})", aj.jobs, aj.why);
    }
    kbx::Evaluator ev(cat, *store, wc, opt);
    int bad = 0;
    std::cerr << fmt::format("kbx: self-check of {} candidate(s) (references and known-good solutions) on {}{}\n", subs.size(), a.device,
                             jobsWhy);
    auto progress = [&](const kbx::Outcome& o, int done, int total) {
        const bool isRef = o.origin.starts_with("reference:");
        // A reference is right when its outputs are (exe_ok); it is PyTorch, so not_triton_kernel is expected.
        // Our own code must also pass every extended case (issue 21: both protocols), which run
        // in a process of their own after the contract tier.
        const auto ext = o.record.evidence.value("extended", nlohmann::json::object());
        // (an extended tier whose every case hits a gap of the CPU interpreter is not judged there: no failure)
        const bool extOk = !o.record.extCases ? !ext.contains("cases") || ext.value("ran", false) ||
                                                    ext.value("why", std::string()).find("on the CPU") != std::string::npos
                                              : *o.record.extPassed == *o.record.extCases;
        const bool ok = !o.harnessError && (isRef ? o.record.exeOk : o.record.pass) && extOk;
        bad += !ok;
        std::string why = o.harnessError ? o.harnessMessage : o.record.failureClass.value_or("") + ": " + o.record.failureDetail;
        if (!o.harnessError && (isRef ? o.record.exeOk : o.record.pass) && !extOk)
            why = fmt::format("extended tier: {} of {} cases passed; {}", o.record.extPassed.value_or(0), ext.value("cases", 0),
                              ext.value("failure_detail", ext.value("why", std::string())));
        std::cout << fmt::format("[{}/{}] {:<4} {:<11} {:<34} {}\n", done, total, ok ? "ok" : "FAIL", isRef ? "reference" : "known-good", o.taskId,
                                 ok ? "" : why)
                  << std::flush;
    };
    ev.setPerfProgress([&](const kbx::Outcome& o, const nlohmann::json& p, int done, int total) {
        const bool isRef = o.origin.starts_with("reference:");
        std::string what = p.value("error", std::string());
        if (p.contains("geomean_speedup"))
            what = fmt::format("{} {:.3f}x [{:.3f}, {:.3f}]", isRef ? "self-speedup" : "speedup", p["geomean_speedup"].value("estimate", 0.0),
                               p["geomean_speedup"].value("lo", 0.0), p["geomean_speedup"].value("hi", 0.0));
        std::cout << fmt::format("[perf {}/{}] {:<11} {:<34} {}\n", done, total, isRef ? "reference" : "known-good", o.taskId, what)
                  << std::flush;
    });
    int rc = ExitOk;
    try {
        auto sum = ev.run(subs, progress, &g_cancel, {{"command", "tasks --check"}, {"perf", a.perf}});
        std::cout << fmt::format("self-check: {} of {} ok in {:.0f}s\n", sum.total - bad, sum.total, sum.seconds);
        rc = sum.cancelled ? ExitInterrupted : (bad ? ExitCheckFailed : ExitOk);
    } catch (const std::exception& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        rc = ExitEnvironment;
    }
    store.reset();
    if (!keepDb)
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(dbPath.string() + suffix);
    return rc;
}

struct EvalArgs {
    int perfWorkers = 0;
    std::string autotuneReplay;  ///< --autotune-replay DB
    std::vector<std::string> perfBaselines;
    std::string source;
    std::string method = "default";
    int round = 0;
    std::string db;
    std::string device = "auto";
    int jobs = 0;  ///< 0: kbx::autoJobs
    bool json = false;
    double timeout = 0;
    std::vector<std::int64_t> seeds{0, 1};
    std::optional<std::int64_t> secretSeed;
    bool keepScratch = false;
    std::string scratch;
    bool skipUnknown = false;
    std::string sandbox = "auto";
    std::string warmWorkers = "auto";
    std::string protocol = "contract";
    bool perf = false;
    std::string perfConfig;
    std::vector<std::string> gpus;
    bool resume = false;      ///< evaluate only what the database lacks (core/resume.h)
    bool seedsGiven = false;  ///< --seeds was on the command line
    kbxcli::SlurmArgs slurm;  ///< --shard, --backend slurm and its options (cmd_slurm.h)
};

int cmdEval(const EvalArgs& a)
{
    // Everything this run creates is ours alone from the start (issue 20): the database, the
    // scratch, reference inputs and outputs (candidates under a uid of their own get read access to
    // their inputs file only, core/sandbox).
    ::umask(077);
    auto cat = loadCatalogue();
    std::vector<kbx::Submission> subs;
    std::vector<std::string> skipped;
    try {
        subs = kbx::loadSubmissions(a.source, cat, a.skipUnknown ? &skipped : nullptr);
    } catch (const kbx::ImportError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitInput;
    }
    for (const auto& s : skipped)
        std::cerr << "kbx: skipped " << s << "\n";
    if (subs.empty()) {
        std::cerr << "kbx: " << a.source << ": no submission for a known task\n";
        return ExitInput;
    }
    // A database this user cannot write is refused now, before the worker starts; kbx::Store says why
    // (the file or its directory) and touches nothing.
    if (!kbx::readOnlyReason(databasePath(a.db)).empty() && !openStore(databasePath(a.db)))
        return ExitDatabase;
    kbx::WorkerConfig wc;
    wc.worker = kbx::findWorker();
    if (wc.worker.empty()) {
        std::cerr << "kbx: kbx-worker not found (set KBX_WORKER or build with -DKBX_BUILD_WORKER=ON)\n";
        return ExitEnvironment;
    }
    kbx::EvalOptions opt;
    opt.jobs = a.jobs;
    opt.method = a.method;
    opt.round = a.round;
    opt.publicSeeds = a.seeds;
    opt.secretSeed = a.secretSeed;
    nlohmann::json shardArgs;  // --shard I/N: only this shard's submissions (cmd_slurm.h)
    if (!a.slurm.shard.empty())
        if (auto rc = kbxcli::applyShard(a.slurm.shard, a.source, a.method, a.round, a.device, a.seeds, subs, opt.secretSeed, shardArgs))
            return *rc;
    opt.keepScratch = a.keepScratch;
    if (!a.scratch.empty())
        opt.scratchRoot = a.scratch;
    opt.sandbox = a.sandbox;
    opt.warmWorkers = a.warmWorkers;
    opt.protocol = a.protocol;
    kbx::SandboxInfo sandbox;
    try {
        sandbox = kbx::resolveSandbox(a.sandbox);
    } catch (const std::exception& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitEnvironment;
    }
    opt.perf = a.perf;
    opt.perfPipeline = a.perfWorkers;
    if (!a.autotuneReplay.empty()) {
        if (!a.perf) {
            std::cerr << "kbx: --autotune-replay replays recorded choices in the perf stage: give --perf too\n";
            return ExitUsage;
        }
        opt.autotuneReplay = a.autotuneReplay;
    }
    if (auto overrides = perfOverrides(a.perfConfig, a.perfBaselines))
        opt.perfConfig = std::move(*overrides);
    else
        return ExitUsage;
    // The warm worker starts before the probe, so the two import torch at once (issue 22): for the
    // device asked for, or under auto the one the probe will most likely find (a GPU where the NVIDIA
    // driver's control device exists). The run starts its own if the probe says otherwise.
    std::optional<kbx::Evaluator::WarmStart> warm;
    struct ScratchGuard {  // a prestarted run's scratch goes if kbx stops before the run does
        std::filesystem::path dir;
        bool keep = false;
        ~ScratchGuard()
        {
            std::error_code ec;
            if (!dir.empty() && !keep)
                std::filesystem::remove_all(dir, ec);
        }
    } scratchGuard;
    if (a.slurm.backend != "slurm") {
        kbx::EvalOptions w = opt;
        w.device = a.device != "auto" ? a.device : (std::filesystem::exists("/dev/nvidiactl") ? "cuda" : "cpu");
        if (w.scratchRoot.empty()) {
            w.scratchRoot = std::filesystem::temp_directory_path() /
                            fmt::format("kbx-run-{}-{}", getpid(), std::chrono::steady_clock::now().time_since_epoch().count());
            scratchGuard.dir = w.scratchRoot;
            scratchGuard.keep = a.keepScratch;
        }
        try {
            std::filesystem::create_directories(w.scratchRoot);
            warm = kbx::Evaluator::startWarm(wc, w, w.scratchRoot);
            opt.scratchRoot = w.scratchRoot;
        } catch (const std::exception&) {
            warm.reset();  // the run starts it itself and reports what is wrong
        }
    }
    nlohmann::json probe;
    try {
        probe = kbx::Evaluator::probe(wc);
    } catch (const std::exception& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitEnvironment;
    }
    const bool cudaAvailable = probe.value("cuda_available", false);
    if (a.device == "auto")
        opt.device = cudaAvailable ? "cuda" : "cpu";
    else
        opt.device = a.device;
    if (opt.device == "cuda" && !cudaAvailable) {
        std::cerr << "kbx: --device cuda asked for, but the worker's torch sees no CUDA device\n";
        return ExitEnvironment;
    }
    if (!a.gpus.empty()) {
        if (opt.device != "cuda") {
            std::cerr << "kbx: --gpus needs CUDA (--device cuda or auto on a machine with GPUs)\n";
            return ExitUsage;
        }
        std::vector<std::string> gpus = a.gpus;
        if (gpus.size() == 1 && gpus[0] == "all") {
            // Every device this process sees, by its index (inside any CUDA_VISIBLE_DEVICES given to kbx,
            // the indices are relative to it: map them back to what the user set).
            gpus.clear();
            std::vector<std::string> parent;
            if (const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES"); cvd && *cvd) {
                std::stringstream ss(cvd);
                for (std::string x; std::getline(ss, x, ',');)
                    parent.push_back(x);
            }
            for (std::size_t i = 0; i < probe["devices"].size(); ++i)
                gpus.push_back(i < parent.size() ? parent[i] : std::to_string(i));
        }
        try {
            opt.deviceSlots = kbx::gpuSlots(gpus);
        } catch (const std::exception& e) {
            std::cerr << "kbx: --gpus: " << e.what() << "\n";
            return ExitUsage;
        }
    }
    const auto dbPath = databasePath(a.db);
    auto store = openStore(dbPath);
    if (!store)
        return ExitDatabase;
    // --resume (core/resume.h): only what this database does not hold yet; continue the interrupted run.
    const auto sourcePath = std::filesystem::weakly_canonical(std::filesystem::absolute(a.source)).string();
    std::optional<std::int64_t> resumes;
    if (a.resume) {
        kbx::ResumePlan plan;
        try {
            plan = kbx::planResume(*store, subs, {a.source, sourcePath, a.method, a.round, opt.device});
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
            if (a.seedsGiven && u->publicSeeds != opt.publicSeeds) {
                std::cerr << fmt::format("kbx: --resume continues run {}, whose public seeds are {}; leave out --seeds\n", u->id,
                                         fmt::join(u->publicSeeds, ","));
                return ExitUsage;
            }
            if (a.secretSeed && *a.secretSeed != u->secretSeed) {
                std::cerr << fmt::format("kbx: --resume continues run {}, which has another secret seed; leave out --secret-seed\n", u->id);
                return ExitUsage;
            }
            opt.publicSeeds = u->publicSeeds;
            opt.secretSeed = u->secretSeed;
            resumes = u->id;
            continued = fmt::format("; continuing run {} (started {}, {} evaluation(s) committed), now marked 'interrupted'", u->id,
                                    u->startedAt, u->evaluations);
        }
        kbx::markInterrupted(*store, plan);
        std::cerr << fmt::format("kbx: --resume: {} of {} submission(s) already evaluated in {} (same task, code, method, round, device {}); "
                                 "{} to evaluate{}\n",
                                 plan.done.size(), subs.size(), dbPath.string(), opt.device, plan.todo.size(), continued);
        subs = std::move(plan.todo);
        if (subs.empty()) {
            std::cerr << "kbx: --resume: nothing left to evaluate\n";
            return ExitOk;
        }
    }
    if (a.timeout > 0)
        opt.candidateTimeout = a.timeout;
    else
        opt.candidateTimeout = opt.device == "cpu" ? 300 : 120;

    std::string jobsWhy;
    if (a.jobs == 0) {
        const auto [cores, mem] = kbx::hostResources();
        const auto aj = kbx::autoJobs(opt.device, static_cast<int>(opt.deviceSlots.size()), cores, mem);
        opt.jobs = aj.jobs;
        jobsWhy = " (" + aj.why + ")";
    }
    std::cerr << fmt::format("kbx: evaluating {} candidate(s) from {} on {} ({}), {} job(s){}{}, database {}\n", subs.size(), a.source,
                             opt.device, opt.device == "cuda" && !probe["devices"].empty() ? probe["devices"][0].value("name", "") : "Triton interpreter",
                             opt.jobs, opt.deviceSlots.empty() ? std::string() : fmt::format(" on each of {} GPU(s)", opt.deviceSlots.size()),
                             jobsWhy, dbPath.string());
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    if (opt.perf && opt.device != "cuda")
        std::cerr << "kbx: --perf on the CPU times the Triton interpreter: the plumbing works, the numbers mean nothing\n";
    std::cerr << "kbx: sandbox: " << sandbox.describe() << "\n";
    probe["sandbox"] = sandbox.toJson();  // the run's provenance
    if (auto placement = kbxcli::slurmProvenance(); !placement.is_null())
        probe["slurm"] = placement;  // node and GPUs of a Slurm array task
    kbx::Evaluator ev(cat, *store, wc, opt);
    ev.setProbe(probe);
    if (warm)
        ev.adoptWarmStart(std::move(*warm));
    const auto start = std::chrono::steady_clock::now();
    ev.setPerfProgress([&](const kbx::Outcome& o, const nlohmann::json& p, int done, int total) {
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
        if (a.json)
            std::cout << nlohmann::json{{"type", "perf"}, {"task", o.taskId}, {"evaluation_id", o.evaluationId},
                                        {"verdict", o.record.pass ? "pass" : "fail"},
                                        {"failure_class", o.record.failureClass ? nlohmann::json(*o.record.failureClass) : nlohmann::json()},
                                        {"perf", p}}
                             .dump()
                      << std::endl;
    });
    const bool tty = isatty(2);
    auto progress = [&](const kbx::Outcome& o, int done, int total) {
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double eta = done ? el / done * (total - done) : 0;
        std::string verdict = o.harnessError ? "ERROR" : (o.record.pass ? "pass" : "fail");
        std::string cls = o.harnessError ? o.harnessMessage.substr(0, 200) : o.record.failureClass.value_or("");
        if (!o.harnessError && o.record.extCases)
            cls += fmt::format("{}ext {}/{}", cls.empty() ? "" : " ", *o.record.extPassed, *o.record.extCases);
        std::cerr << fmt::format("[{}/{}] {:<5} {:<32} {:<22} {:5.1f}s  ETA {}{}", done, total, verdict, o.taskId, cls, o.seconds,
                                 fmtDuration(eta), tty ? "\n" : "\n");
        if (a.json) {
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
                                {"device", opt.device},
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
            std::cout << j.dump() << std::endl;
        }
    };
    kbx::RunSummary sum;
    try {
        nlohmann::json args = {{"source", a.source}, {"method", a.method}, {"round", a.round}, {"device", opt.device}, {"jobs", opt.jobs},
                               {"perf", a.perf}};
        // With --perf, every setting the perf stage used (PerfConfig::toJson), else the overrides given.
        args["perf_config"] = a.perf ? ev.perfConfig().toJson() : opt.perfConfig;
        args["source_path"] = sourcePath;  // what --resume matches, with the pid that tells a live run from a killed one
        args["pid"] = static_cast<std::int64_t>(getpid());
        if (!shardArgs.is_null())
            args.update(shardArgs);
        if (resumes)
            args["resumes"] = *resumes;
        sum = ev.run(subs, progress, &g_cancel, args);
    } catch (const kbx::StoreError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitDatabase;
    } catch (const std::exception& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitEnvironment;
    }
    std::cerr << fmt::format("kbx: run {}: {} passed, {} failed, {} not judged, of {} in {}\n", sum.runId, sum.passed, sum.failed,
                             sum.harnessErrors, sum.total, fmtDuration(sum.seconds));
    if (sum.cancelled)
        return ExitInterrupted;
    return sum.harnessErrors ? ExitUnjudged : ExitOk;
}

}  // namespace

namespace {

/// Blanks the value of --secret-seed in this process's own argv (what /proc/PID/cmdline shows).
void scrubSecretSeedArgs(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        char* a = argv[i];
        if (std::strcmp(a, "--secret-seed") == 0 && i + 1 < argc) {
            std::memset(argv[i + 1], 'x', std::strlen(argv[i + 1]));
            ++i;
        } else if (std::strncmp(a, "--secret-seed=", 14) == 0) {
            std::memset(a + 14, 'x', std::strlen(a + 14));
        }
    }
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

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"kbx — KernelBench-X Workbench command line: tasks, evaluation, reports"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "kbx 0.1.0");

    std::string category;
    bool tasksJson = false;
    auto* tasks = app.add_subcommand("tasks", "List the benchmark's tasks");
    tasks->add_option("--category", category, "Only this category");
    tasks->add_flag("--json", tasksJson, "JSON array of tasks");
    bool tasksCheck = false;
    CheckArgs ca;
    tasks->add_flag("--check", tasksCheck, "Self-check: every reference, run as a candidate, is judged correct; known-good solutions pass");
    tasks->add_flag("--one-per-category", ca.onePerCategory, "With --check: the first task of each category only");
    tasks->add_option("--device", ca.device, "With --check: cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}))->capture_default_str();
    tasks->add_option("--jobs,-j", ca.jobs, "With --check: candidates at once (default: picked from the host's cores and memory)")->check(CLI::Range(1, 256));
    tasks->add_option("--task", ca.tasks, "With --check: only these tasks (Category/stem; repeat or comma-separate)")->delimiter(',');
    tasks->add_option("--db", ca.db, "With --check: keep the results in this database");
    tasks->add_flag("--perf", ca.perf, "With --check: also time references against themselves (noise floor) and known-good solutions");
    tasks->add_option("--perf-config", ca.perfConfig, "With --check --perf: JSON overrides of the perf stage's settings (as kbx eval --perf-config)");
    tasks->add_option("--perf-baseline", ca.perfBaselines, "With --check --perf: " "Also time these baselines beside PyTorch eager, interleaved: compile (torch.compile of the reference, fixed shapes, warmed), tf32 (eager with TF32 matmuls/convolutions)")
        ->delimiter(',')->check(CLI::IsMember({"compile", "tf32"}));
    tasks->add_option("--perf-workers", ca.perfWorkers, "With --check --perf: " "Perf workers per GPU: one times while the others start up (only the timed part holds the GPU); default on cuda: half the host's cores per GPU, 4 to 12; 2 on cpu")->check(CLI::Range(1, 16));
    tasks->add_option("--warm-workers", ca.warmWorkers, "With --check: " "Worker processes forked from a warm worker that imported torch once, instead of a fresh interpreter each: auto (where the sandbox allows it: rlimit, none), on, off")
        ->check(CLI::IsMember({"auto", "on", "off"}))->capture_default_str();
    tasks->add_option("--gpus", ca.gpus, "With --check --device cuda: spread over these GPUs (as kbx eval --gpus)")->delimiter(',');
    tasks->add_option("--fixtures", ca.fixtures, "With --check: folder of known-good solutions (Category/stem.py)");

    EvalArgs ea;
    std::string seeds;
    std::string secretSeedFile;
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
    eval->add_option("--seeds", seeds, "Public seeds, comma-separated (default 0,1)");
    eval->add_option("--secret-seed", ea.secretSeed,
                     "Fix the secret seed (default: drawn per run). Visible to every process on this machine while kbx "
                     "starts (kbx blanks it from its command line once parsed): prefer --secret-seed-file or $KBX_SECRET_SEED");
    eval->add_option("--secret-seed-file", secretSeedFile,
                     "Read the secret seed from this file (one integer; keep it mode 0600); the Slurm driver passes it so")
        ->excludes("--secret-seed");
    eval->add_flag("--keep-scratch", ea.keepScratch, "Keep the run's scratch directory");
    eval->add_option("--scratch", ea.scratch, "Scratch directory for this run");
    eval->add_option("--sandbox", ea.sandbox, "Candidate sandbox: auto (bwrap when it works, else rlimit), bwrap, rlimit or none")
        ->check(CLI::IsMember({"auto", "bwrap", "rlimit", "none"}))
        ->capture_default_str();
    eval->add_option("--protocol", ea.protocol, "Which cases decide the verdict: contract (default: the argument patterns the "
                     "seed's own tests use, tasks/contracts.json; the other cases run as the extended tier beside it) or strict "
                     "(every case)")
        ->check(CLI::IsMember({"contract", "strict"}));
    eval->add_option("--warm-workers", ea.warmWorkers, "Worker processes forked from a warm worker that imported torch once, instead of a fresh interpreter each: auto (where the sandbox allows it: rlimit, none), on, off")
        ->check(CLI::IsMember({"auto", "on", "off"}))->capture_default_str();
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
    kbxcli::addSlurmOptions(eval, ea.slurm);

    kbxcli::ReportArgs reportArgs;
    auto* report = kbxcli::addReportCommand(app, reportArgs);

    kbxcli::ImportArgs importArgs;
    auto* importCmd = kbxcli::addImportCommand(app, importArgs);
    kbxcli::MergeArgs mergeArgs;
    auto* mergeCmd = kbxcli::addMergeCommand(app, mergeArgs);
    kbxcli::ShowArgs showArgs;
    auto* showCmd = kbxcli::addShowCommand(app, showArgs);
    kbxcli::SetupPythonArgs setupPythonArgs;
    auto* setupPythonCmd = kbxcli::addSetupPythonCommand(app, setupPythonArgs);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? ExitOk : ExitUsage;
    }
    // The secret seed never stays where other processes read it (issue 20): /proc/PID/cmdline is
    // readable by every uid, /proc/PID/environ by ours.
    scrubSecretSeedArgs(argc, argv);
    if (*eval) {
        try {
            const auto fromEnv = takeSecretSeedEnv();  // blanked whether used or not
            if (!secretSeedFile.empty())
                ea.secretSeed = readSecretSeedFile(secretSeedFile);
            else if (fromEnv && !ea.secretSeed)
                ea.secretSeed = fromEnv;
        } catch (const std::exception& e) {
            std::cerr << "kbx: " << e.what() << "\n";
            return ExitUsage;
        }
    }
    // A --perf-config that is not an object of known keys and types is a usage error, said before
    // anything starts (the commands apply it again; a Slurm shard's kbx eval too).
    if ((*eval && !perfOverrides(ea.perfConfig, ea.perfBaselines)) || (*tasks && tasksCheck && !perfOverrides(ca.perfConfig, ca.perfBaselines)))
        return ExitUsage;
    try {
        if (*tasks)
        {
            if (tasksCheck) {
                ca.category = category;
                std::signal(SIGINT, onSignal);
                return cmdTasksCheck(ca);
            }
            return cmdTasks(category, tasksJson);
        }
        if (*eval) {
            if (!seeds.empty()) {
                ea.seedsGiven = true;
                ea.seeds.clear();
                std::stringstream ss(seeds);
                std::string s;
                while (std::getline(ss, s, ','))
                    ea.seeds.push_back(std::stoll(s));
            }
            if (kbxcli::slurmRequested(ea.slurm))
                return kbxcli::runSlurmEval(*eval, ea.slurm, {ea.source, ea.db, ea.secretSeed, ea.method, ea.round, ea.skipUnknown});
            return cmdEval(ea);
        }
        if (*report)
            return kbxcli::runReport(reportArgs);
        if (*setupPythonCmd)
            return kbxcli::runSetupPython(setupPythonArgs);
        if (*mergeCmd)
            return kbxcli::runMerge(mergeArgs);
        if (*showCmd)
            return kbxcli::runShow(showArgs);
        if (*importCmd)
            return kbxcli::runImport(importArgs);
    } catch (const kbx::CatalogueError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitEnvironment;
    } catch (const std::invalid_argument& e) {
        std::cerr << "kbx: bad number: " << e.what() << "\n";
        return ExitUsage;
    }
    return ExitUsage;
}
