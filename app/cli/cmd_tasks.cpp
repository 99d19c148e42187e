// SPDX-License-Identifier: MIT
#include "cmd_tasks.h"

#include "cli_common.h"
#include "exitcodes.h"

#include "catalogue.h"
#include "evaluator.h"
#include "importers.h"
#include "runplan.h"
#include "source.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace kbxcli {
namespace {

using enum ExitCode;  // app/cli/exitcodes.h (docs/CLI.md, "Exit codes")

std::atomic<bool> g_cancel{false};
extern "C" void onCheckSignal(int) { g_cancel.store(true); }

int listTasks(const std::string& category, bool json)
{
    auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
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

/// The self-check's candidates: every chosen task's reference, and its known-good solution where one exists.
std::vector<kbx::Submission> checkSubmissions(const TasksArgs& a, const kbx::TaskCatalogue& cat)
{
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
    return subs;
}

/// The run plan of the self-check's options on what the worker sees; prints why not and returns an exit code.
std::optional<int> planCheck(const TasksArgs& a, const kbx::WorkerConfig& wc, kbx::RunPlan& plan, nlohmann::json& probe)
{
    kbx::PlanRequest r;
    r.device = a.device;
    r.gpus = a.gpus;
    r.jobs = a.jobs;
    r.perf = a.perf;
    r.perfWorkers = a.perfWorkers;
    r.warmWorkers = a.warmWorkers;
    r.perfConfig = a.perfConfig;
    r.perfBaselines = a.perfBaselines;
    try {
        kbx::checkRequest(r);
        probe = kbx::Evaluator::probe(wc);
        plan = kbx::resolvePlan(r, kbx::HostFacts::fromProbe(probe));
    } catch (const kbx::RunPlanError& e) {
        if (e.code() == kbx::RunPlanError::Code::GpusNeedCuda) {
            std::cerr << "kbx: --gpus needs --device cuda\n";  // tasks --check has no device auto
            return ExitUsage;
        }
        return planFailed(e);
    } catch (const std::exception& e) {  // the probe
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitEnvironment;
    }
    return std::nullopt;
}

/// One self-check outcome: a reference is right when its outputs are (exe_ok; it is PyTorch, so
/// not_triton_kernel is expected), a known-good solution when it passes. Our own code must also pass
/// every extended case (issue 21: both protocols), which run in a process of their own after the
/// contract tier. Empty: ok; otherwise why not.
std::optional<std::string> checkFailure(const kbx::Outcome& o)
{
    const bool isRef = o.origin.starts_with("reference:");
    const auto ext = o.record.evidence.value("extended", nlohmann::json::object());
    // (an extended tier whose every case hits a gap of the CPU interpreter is not judged there: no failure)
    const bool extOk = !o.record.extCases ? !ext.contains("cases") || ext.value("ran", false) ||
                                                ext.value("why", std::string()).find("on the CPU") != std::string::npos
                                          : *o.record.extPassed == *o.record.extCases;
    const bool judgedOk = !o.harnessError && (isRef ? o.record.exeOk : o.record.pass);
    if (judgedOk && extOk)
        return std::nullopt;
    if (judgedOk)
        return fmt::format("extended tier: {} of {} cases passed; {}", o.record.extPassed.value_or(0), ext.value("cases", 0),
                           ext.value("failure_detail", ext.value("why", std::string())));
    return o.harnessError ? o.harnessMessage : o.record.failureClass.value_or("") + ": " + o.record.failureDetail;
}

/// Task self-check: every task's reference, run through the whole engine as a candidate, must be
/// judged correct (its verdict is not_triton_kernel, with exe_ok), and its known-good Triton
/// solution, where one exists, must pass.
int checkTasks(const TasksArgs& a)
{
    auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
    auto subs = checkSubmissions(a, cat);
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
    kbx::RunPlan plan;
    nlohmann::json probe;
    if (auto rc = planCheck(a, wc, plan, probe))
        return *rc;
    const bool keepDb = !a.db.empty();
    const auto dbPath = keepDb ? std::filesystem::path(a.db)
                               : std::filesystem::temp_directory_path() / fmt::format("kbx-check-{}.sqlite", getpid());
    auto store = openStore(dbPath);
    if (!store)
        return ExitDatabase;
    auto opt = kbx::toEvalOptions(plan);
    opt.method = "self-check";
    kbx::Evaluator ev(cat, *store, wc, opt);
    ev.setProbe(probe);
    int bad = 0;
    std::cerr << fmt::format("kbx: self-check of {} candidate(s) (references and known-good solutions) on {}{}\n", subs.size(),
                             plan.deviceName(), plan.jobsWhy.empty() ? std::string() : fmt::format(", {} job(s) ({})", plan.jobs, plan.jobsWhy));
    auto progress = [&](const kbx::Outcome& o, int done, int total) {
        const auto why = checkFailure(o);
        bad += why.has_value();
        std::cout << fmt::format("[{}/{}] {:<4} {:<11} {:<34} {}\n", done, total, why ? "FAIL" : "ok",
                                 o.origin.starts_with("reference:") ? "reference" : "known-good", o.taskId, why.value_or(""))
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

}  // namespace

CLI::App* addTasksCommand(CLI::App& app, TasksArgs& ca)
{
    auto* tasks = app.add_subcommand("tasks", "List the benchmark's tasks");
    tasks->add_option("--category", ca.category, "Only this category");
    tasks->add_flag("--json", ca.json, "JSON array of tasks");
    tasks->add_flag("--check", ca.check, "Self-check: every reference, run as a candidate, is judged correct; known-good solutions pass");
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
        ->check(CLI::IsMember(kbx::warmWorkersWords()))->capture_default_str();
    tasks->add_option("--gpus", ca.gpus, "With --check --device cuda: spread over these GPUs (as kbx eval --gpus)")->delimiter(',');
    tasks->add_option("--fixtures", ca.fixtures, "With --check: folder of known-good solutions (Category/stem.py)");
    return tasks;
}

int runTasks(const TasksArgs& a)
{
    if (!a.check)
        return listTasks(a.category, a.json);
    std::signal(SIGINT, onCheckSignal);  // as kbx eval: stop, keep what was committed, remove the scratch, 130
    std::signal(SIGTERM, onCheckSignal);
    return checkTasks(a);
}

}  // namespace kbxcli
