// SPDX-License-Identifier: MIT
#include "cmd_slurm.h"
#include "exitcodes.h"

#include "catalogue.h"
#include "merge.h"
#include "paths.h"
#include "process.h"
#include "slurm.h"
#include "store.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace kbxcli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::atomic<bool> g_slurmCancel{false};
extern "C" void onSlurmSignal(int) { g_slurmCancel.store(true); }

/// With --json: one JSON object per event on stdout (what the workbench reads; docs/SCALING.md).
bool g_jsonEvents = false;
void event(const json& j)
{
    if (!g_jsonEvents)
        return;
    std::cout << j.dump() << std::endl;  // flushed: a reader follows the run live
}

/// Says why kbx stops (stderr, and an "error" event) and returns the exit code.
int failWith(int rc, const std::string& message)
{
    std::cerr << "kbx: " << message << "\n";
    event({{"event", "error"}, {"exit", rc}, {"message", message}});
    return rc;
}

/// Options of kbx eval that the driver handles itself and never forwards to the array tasks.
const std::set<std::string> kNotForwarded = {"SOURCE",      "--db",       "--json",    "--secret-seed", "--secret-seed-file", "--shard",  "--backend",
                                             "--partition", "--gpus-per-task", "--cpus-per-task", "--max-jobs", "--shards",
                                             "--work-dir",  "--resubmit", "--retries", "--poll",        "--time-limit",
                                             "--scratch",   "--resume",   "--help"};

std::int64_t drawSecretSeed()
{
    std::random_device rd;
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(rd()) << 31) ^ rd()) & 0x7fffffffffffLL;
}

std::string randomHex(int bytes)
{
    std::random_device rd;
    std::string s;
    for (int i = 0; i < bytes; ++i)
        s += fmt::format("{:02x}", rd() & 0xff);
    return s;
}

std::string fmtSeconds(double s)
{
    if (s < 60)
        return fmt::format("{:.0f}s", s);
    return fmt::format("{}m{:02d}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
}

/// The kbx eval options given on the command line that every array task gets too.
std::vector<std::string> forwardedOptions(const CLI::App& eval)
{
    std::vector<std::string> out;
    for (const CLI::Option* o : eval.get_options()) {
        if (o->count() == 0 || o->get_lnames().empty())
            continue;
        const auto name = "--" + o->get_lnames().front();
        if (kNotForwarded.count(name))
            continue;
        if (o->get_type_size() == 0) {  // a flag
            for (std::size_t i = 0; i < o->count(); ++i)
                out.push_back(name);
            continue;
        }
        for (const auto& v : o->results()) {
            out.push_back(name);
            out.push_back(v);
        }
    }
    return out;
}

void writeAtomically(const fs::path& p, const std::string& text)
{
    const auto tmp = p.string() + ".tmp";
    {
        std::ofstream f(tmp, std::ios::trunc);
        f << text;
        if (!f)
            throw std::runtime_error(fmt::format("cannot write {}", tmp));
    }
    fs::rename(tmp, p);
}

/// The tool's path from $PATH ("" when it is not there).
std::string onPath(const std::string& tool)
{
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "");
    for (std::string dir; std::getline(ss, dir, ':');)
        if (!dir.empty() && ::access((fs::path(dir) / tool).c_str(), X_OK) == 0)
            return (fs::path(dir) / tool).string();
    return {};
}

/// Runs a Slurm client command (argv[0] looked up on $PATH), output captured.
kbx::ProcessResult run(std::vector<std::string> argv, double timeout = 120)
{
    kbx::ProcessSpec spec;
    if (auto p = onPath(argv.at(0)); !p.empty())
        argv[0] = p;
    spec.argv = std::move(argv);
    spec.timeoutSeconds = timeout;
    return kbx::runProcess(spec);
}

std::string firstLine(const std::string& s)
{
    auto l = s.substr(0, s.find('\n'));
    return l.size() > 300 ? l.substr(0, 300) + "..." : l;
}

/// Where a shard stands after its array task ended: its database holds a finished run of this shard.
struct ShardResult {
    bool complete = false;
    int exitCode = -1;       ///< kbx's exit code from shard-I.rc (-1: none written)
    std::string why;         ///< when not complete
    int evaluations = 0;
    int passed = 0;
    std::string node;
};

ShardResult inspectShard(const fs::path& work, int shard, int shards)
{
    ShardResult r;
    {
        std::ifstream rc(kbx::shardExitFile(work, shard));
        if (!(rc >> r.exitCode))
            r.exitCode = -1;
    }
    const auto db = kbx::shardDatabase(work, shard);
    if (r.exitCode < 0) {
        r.why = "its kbx eval did not end (no exit status written)";
        return r;
    }
    if (r.exitCode > ExitUnjudged) {
        r.why = fmt::format("its kbx eval exited with {}", r.exitCode);
        return r;
    }
    if (!fs::exists(db)) {
        r.why = "no shard database";
        return r;
    }
    try {
        kbx::Store st(db);
        const auto rows = st.query(fmt::format(
            "SELECT r.status, json_extract(r.provenance, '$.slurm.node') AS node, json_extract(r.provenance, '$.host') AS host, "
            "(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id) AS n, "
            "(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id AND e.verdict = 'pass') AS passed FROM runs r WHERE json_extract(r.args, '$.shard') = '{}/{}'",
            shard, shards));
        if (rows.size() != 1) {
            r.why = fmt::format("its database holds {} runs of shard {}/{}", rows.size(), shard, shards);
            return r;
        }
        const auto status = rows[0]["status"].get<std::string>();
        r.evaluations = static_cast<int>(rows[0]["n"].get<std::int64_t>());
        r.passed = static_cast<int>(rows[0]["passed"].get<std::int64_t>());
        r.node = rows[0]["node"].is_string() ? rows[0]["node"].get<std::string>() : rows[0]["host"].is_string() ? rows[0]["host"].get<std::string>() : "";
        if (status != "finished" && status != "finished_with_errors") {
            r.why = fmt::format("its run ended '{}'", status);
            return r;
        }
    } catch (const std::exception& e) {
        r.why = fmt::format("its database cannot be read: {}", e.what());
        return r;
    }
    r.complete = true;
    return r;
}

struct Driver {
    fs::path work;
    json state;  ///< run.json
    const SlurmArgs& args;
    std::map<int, std::string> jobOf;          ///< shard -> the array job running it now
    std::map<int, std::string> shown;          ///< shard -> the state last printed
    std::map<int, kbx::TaskPhase> phase;
    std::map<int, int> unseen;                 ///< polls in which neither squeue nor sacct knew the task
    std::map<int, int> attempts;               ///< submissions in this invocation

    int shards() const { return state["shards"].get<int>(); }
    void save() { writeAtomically(work / "run.json", state.dump(2) + "\n"); }

    std::string sbatchError;  ///< why the last submission failed

    /// Submits the given shards (all: the script's own --array); false when sbatch fails.
    bool submit(const std::vector<int>& which, bool all)
    {
        const auto script = work / "kbx-array.sh";
        auto argv = kbx::sbatchCommand(script, shards(), state.value("max_jobs", 0), all ? std::vector<int>{} : which);
        auto res = run(argv);
        auto id = res.exitCode == 0 ? kbx::parseSbatchJobId(res.stdoutText) : std::nullopt;
        if (!id) {
            sbatchError = fmt::format("sbatch failed (exit {}): {}{}", res.exitCode, firstLine(res.stderrText), firstLine(res.stdoutText));
            std::cerr << "kbx: " << sbatchError << "\n";
            event({{"event", "sbatch_failed"}, {"exit", res.exitCode}, {"message", sbatchError}, {"shards", which}});
            return false;
        }
        state["jobs"].push_back({{"job_id", *id}, {"shards", which}, {"submitted_at", kbx::nowIso8601()}});
        save();
        for (int s : which) {
            jobOf[s] = *id;
            phase[s] = kbx::TaskPhase::Pending;
            shown.erase(s);
            unseen[s] = 0;
            ++attempts[s];
        }
        const auto spec = kbx::arraySpec(shards(), state.value("max_jobs", 0), which);
        std::cerr << fmt::format("kbx: submitted job array {} ({} shard(s): {}), work directory {}\n", *id, which.size(), spec,
                                 work.string());
        event({{"event", "submitted"}, {"job_id", *id}, {"shards", which}, {"array", spec}});
        return true;
    }

    void poll()
    {
        std::map<std::string, std::vector<int>> byJob;
        for (const auto& [s, j] : jobOf)
            if (phase[s] == kbx::TaskPhase::Pending || phase[s] == kbx::TaskPhase::Running)
                byJob[j].push_back(s);
        if (byJob.empty())
            return;
        std::map<int, kbx::ArrayTaskState> seen;
        std::vector<std::string> missingJobs;
        for (const auto& [job, list] : byJob) {
            auto res = run(kbx::squeueCommand(job), 60);
            auto table = kbx::parseJobTable(res.stdoutText, job);
            bool missing = false;
            for (int s : list) {
                if (table.count(s))
                    seen[s] = table[s];
                else
                    missing = true;
            }
            if (missing)
                missingJobs.push_back(job);
        }
        if (!missingJobs.empty() && !onPath("sacct").empty()) {  // squeue forgot them (MinJobAge): ask the accounting
            auto res = run(kbx::sacctCommand(missingJobs), 60);
            if (res.exitCode == 0)
                for (const auto& job : missingJobs) {
                    auto table = kbx::parseJobTable(res.stdoutText, job);
                    for (int s : byJob[job])
                        if (!seen.count(s) && table.count(s))
                            seen[s] = table[s];
                }
        }
        for (const auto& [job, list] : byJob)
            for (int s : list) {
                std::string line, stateName, nodes;
                if (seen.count(s)) {
                    const auto& t = seen[s];
                    phase[s] = kbx::taskPhase(t.state);
                    unseen[s] = 0;
                    stateName = t.state;
                    nodes = t.nodes;
                    line = fmt::format("{}{}", t.state, t.nodes.empty() ? "" : " on " + t.nodes);
                } else if (++unseen[s] >= 3) {
                    // Neither squeue nor sacct knows it any more: it ended; its files say how.
                    phase[s] = kbx::TaskPhase::Failed;
                    stateName = "ENDED";
                    line = "ENDED (no longer known to Slurm)";
                } else {
                    continue;
                }
                if (shown[s] != line) {
                    shown[s] = line;
                    std::cerr << fmt::format("[slurm] shard {}/{}: {} (job {}_{})\n", s, shards(), line, job, s);
                    event({{"event", "shard"}, {"shard", s}, {"shards", shards()}, {"job_id", job}, {"state", stateName},
                           {"phase", kbx::phaseName(phase[s])}, {"nodes", nodes}});
                }
            }
    }

    std::map<kbx::TaskPhase, int> phaseCounts() const
    {
        std::map<kbx::TaskPhase, int> n;
        for (const auto& [s, p] : phase)
            ++n[p];
        return n;
    }

    std::string summary() const
    {
        auto n = phaseCounts();
        return fmt::format("{} pending, {} running, {} ended, {} failed", n[kbx::TaskPhase::Pending], n[kbx::TaskPhase::Running],
                           n[kbx::TaskPhase::Succeeded], n[kbx::TaskPhase::Failed]);
    }

    void cancelAll()
    {
        std::set<std::pair<std::string, int>> todo;
        for (const auto& [s, j] : jobOf)
            if (phase[s] == kbx::TaskPhase::Pending || phase[s] == kbx::TaskPhase::Running)
                todo.insert({j, s});
        json tasks = json::array();
        for (const auto& [j, s] : todo) {
            auto res = run(kbx::scancelCommand(j, s), 60);
            std::cerr << fmt::format("kbx: scancel {}_{}{}\n", j, s, res.exitCode == 0 ? "" : ": " + firstLine(res.stderrText));
            tasks.push_back({{"task", fmt::format("{}_{}", j, s)}, {"shard", s}, {"exit", res.exitCode},
                             {"message", res.exitCode == 0 ? "" : firstLine(res.stderrText)}});
        }
        event({{"event", "cancelled"}, {"scancel", tasks}});
    }
};

/// Sleeps `seconds`, returning early (true) when Ctrl-C came.
bool sleepOrCancel(double seconds)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        if (g_slurmCancel.load())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return g_slurmCancel.load();
}

}  // namespace

void addSlurmOptions(CLI::App* eval, SlurmArgs& a)
{
    eval->add_option("--shard", a.shard,
                     "Evaluate only shard I of N (I/N, 0-based): submissions ordered by task, code SHA-256, method and round, "
                     "cut into N contiguous blocks; N runs of the same source cover everything once (give them one --secret-seed)");
    eval->add_option("--backend", a.backend, "Where to run: local (this machine) or slurm (a job array of --shards kbx eval runs, merged into --db)")
        ->check(CLI::IsMember({"local", "slurm"}))
        ->capture_default_str();
    eval->add_option("--partition", a.partition, "With --backend slurm: the Slurm partition");
    eval->add_option("--gpus-per-task", a.gpusPerTask, "With --backend slurm: GPUs per array task (--gres=gpu:N)")->check(CLI::Range(0, 64));
    eval->add_option("--cpus-per-task", a.cpusPerTask, "With --backend slurm: CPUs per array task")->check(CLI::Range(0, 1024));
    eval->add_option("--max-jobs", a.maxJobs, "With --backend slurm: array tasks running at once (0: no limit)")->check(CLI::Range(0, 100000));
    eval->add_option("--shards", a.shards, "With --backend slurm: number of shards (default: min(submissions, --max-jobs or 8))")
        ->check(CLI::Range(0, 100000));
    eval->add_option("--work-dir", a.workDir,
                     "With --backend slurm: directory for the script, shard databases and logs, on a file system the nodes share "
                     "(default: ./kbx-slurm-<date>-<id>)");
    eval->add_option("--resubmit", a.resubmit,
                     "Continue a --backend slurm run from its work directory: re-submit the shards that did not finish, then merge");
    eval->add_option("--retries", a.retries, "With --backend slurm: automatic re-submissions of a failed shard")
        ->check(CLI::Range(0, 10))
        ->capture_default_str();
    eval->add_option("--poll", a.poll, "With --backend slurm: seconds between squeue/sacct polls")->check(CLI::Range(0.2, 3600.0))->capture_default_str();
    eval->add_option("--time-limit", a.timeLimit, "With --backend slurm: sbatch --time of each array task (e.g. 2:00:00)");
    // SOURCE may be left out with --resubmit (the work directory names it).
    if (auto* src = eval->get_option_no_throw("SOURCE")) {
        src->required(false);
        eval->final_callback([src, &a] {
            if (src->count() == 0 && a.resubmit.empty())
                throw CLI::RequiredError("SOURCE");
        });
    }
}

bool slurmRequested(const SlurmArgs& a) { return a.backend == "slurm" || !a.resubmit.empty(); }

nlohmann::json slurmProvenance()
{
    return kbx::slurmPlacement([](const char* k) { return std::getenv(k); });
}

std::optional<int> applyShard(const std::string& spec, const std::string& source, const std::string& method, int round,
                              const std::string& device, const std::vector<std::int64_t>& publicSeeds, std::vector<kbx::Submission>& subs,
                              std::optional<std::int64_t>& secretSeed, nlohmann::json& args)
{
    kbx::ShardSpec shard;
    try {
        shard = kbx::parseShard(spec);
    } catch (const std::invalid_argument& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitUsage;
    }
    if (!secretSeed) {
        secretSeed = drawSecretSeed();
        std::cerr << fmt::format("kbx: --shard without --secret-seed: this shard draws its own secret seed ({}); give every shard "
                                 "of one run the same --secret-seed so they see the same cases\n",
                                 *secretSeed);
    }
    const auto total = subs.size();
    auto idx = kbx::shardIndices(subs, shard, method, round);
    std::vector<kbx::Submission> mine;
    mine.reserve(idx.size());
    for (auto i : idx)
        mine.push_back(std::move(subs[i]));
    subs = std::move(mine);
    args = {{"shard", shard.str()},
            {"shard_group", kbx::shardGroup(source, method, round, device, publicSeeds, *secretSeed, shard.count)},
            {"shard_of", total},
            {"shard_size", subs.size()}};
    if (auto p = slurmProvenance(); !p.is_null())
        args["slurm"] = p;
    std::cerr << fmt::format("kbx: shard {}: {} of {} submission(s)\n", shard.str(), subs.size(), total);
    if (subs.empty()) {
        std::cerr << "kbx: this shard is empty; nothing to do\n";
        return ExitOk;
    }
    return std::nullopt;
}

int runSlurmEval(const CLI::App& eval, const SlurmArgs& a, const SlurmEvalInput& in)
{
    if (const auto* j = eval.get_option_no_throw("--json"))
        g_jsonEvents = j->count() > 0;
    // Ctrl-C / SIGTERM from here on: before anything is submitted it just stops (130); afterwards the
    // array tasks are scancelled first.
    std::signal(SIGINT, onSlurmSignal);
    std::signal(SIGTERM, onSlurmSignal);
    for (const char* tool : {"sbatch", "squeue", "scancel"})
        if (onPath(tool).empty())
            return failWith(ExitEnvironment, fmt::format("--backend slurm needs {} on PATH (Slurm client tools)", tool));
    Driver d{{}, json::object(), a, {}, {}, {}, {}, {}, {}};
    bool createdWork = false;  // a new run's work directory made here (removed again when nothing could be submitted)
    std::vector<int> todo;
    bool all = false;
    int submissions = 0;
    if (!a.resubmit.empty()) {
        d.work = fs::absolute(a.resubmit);
        std::ifstream f(d.work / "run.json");
        d.state = json::parse(f, nullptr, false);
        if (!f || !d.state.is_object() || !d.state.contains("shards") || !d.state.contains("db"))
            return failWith(ExitInput, fmt::format("--resubmit {}: no run.json of a kbx --backend slurm run there", d.work.string()));
        if (!in.source.empty() && fs::absolute(in.source) != fs::path(d.state.value("source", "")))
            std::cerr << fmt::format("kbx: --resubmit: the work directory's source is {}; {} is ignored\n", d.state.value("source", ""), in.source);
        if (!in.db.empty())
            d.state["db"] = fs::absolute(in.db).string();
        submissions = d.state.value("submissions", 0);
        event({{"event", "plan"}, {"resubmit", true}, {"work_dir", d.work.string()}, {"db", d.state["db"]},
               {"source", d.state.value("source", "")}, {"submissions", submissions}, {"shards", d.shards()},
               {"max_jobs", d.state.value("max_jobs", 0)}, {"secret_seed", d.state.value("secret_seed", json())}});
        for (int s = 0; s < d.shards(); ++s) {
            auto r = inspectShard(d.work, s, d.shards());
            if (r.complete) {
                std::cerr << fmt::format("[slurm] shard {}/{}: complete ({} evaluation(s){})\n", s, d.shards(), r.evaluations,
                                         r.node.empty() ? "" : " on " + r.node);
            } else {
                std::cerr << fmt::format("[slurm] shard {}/{}: {} -> re-submitting\n", s, d.shards(), r.why);
                todo.push_back(s);
            }
            event({{"event", "shard_checked"}, {"shard", s}, {"shards", d.shards()}, {"complete", r.complete},
                   {"why", r.why}, {"evaluations", r.evaluations}, {"passed", r.passed}, {"node", r.node}});
        }
    } else {
        // A new run: validate the source here, before anything is submitted.
        std::vector<kbx::Submission> subs;
        std::vector<std::string> skipped;
        try {
            auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
            subs = kbx::loadSubmissions(in.source, cat, in.skipUnknown ? &skipped : nullptr);
        } catch (const kbx::ImportError& e) {
            return failWith(ExitInput, e.what());
        }
        if (subs.empty())
            return failWith(ExitInput, in.source + ": no submission for a known task");
        const int m = static_cast<int>(subs.size());
        submissions = m;
        int n = a.shards > 0 ? a.shards : std::min(m, a.maxJobs > 0 ? a.maxJobs : 8);
        if (n > m) {
            std::cerr << fmt::format("kbx: --shards {} > {} submission(s): using {} shards\n", n, m, m);
            n = m;
        }
        const auto batch = randomHex(4);
        d.work = fs::absolute(a.workDir.empty() ? fmt::format("kbx-slurm-{}-{}", kbx::nowIso8601().substr(0, 10), batch) : a.workDir);
        if (fs::exists(d.work / "run.json"))
            return failWith(ExitUsage, fmt::format("{} already holds a Slurm run; continue it with --resubmit {} or choose another --work-dir",
                                           d.work.string(), d.work.string()));
        std::error_code ec;
        createdWork = !fs::exists(d.work);
        fs::create_directories(d.work / "logs", ec);
        if (ec)
            return failWith(ExitInput, fmt::format("cannot create {}: {}", d.work.string(), ec.message()));
        const auto secret = in.secretSeed ? *in.secretSeed : drawSecretSeed();
        auto forward = forwardedOptions(eval);
        // Never on a command line (sbatch's, the array task's: /proc/PID/cmdline is world-readable):
        // a file only its owner reads, which every shard reads (issue 20).
        const fs::path seedFile = d.work / "secret-seed";
        {
            const int fd = ::open(seedFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
            const std::string text = std::to_string(secret) + "\n";
            const bool ok = fd >= 0 && ::fchmod(fd, 0600) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
            if (fd >= 0)
                ::close(fd);
            if (!ok)
                return failWith(ExitInput, fmt::format("cannot write {}: {}", seedFile.string(), std::strerror(errno)));
        }
        forward.push_back("--secret-seed-file");
        forward.push_back(seedFile.string());
        kbx::SlurmJobSpec spec;
        spec.kbx = kbx::executableDir() / "kbx";
        spec.workDir = d.work;
        spec.source = fs::absolute(in.source).string();
        spec.shards = n;
        spec.maxJobs = a.maxJobs;
        spec.partition = a.partition;
        spec.gpusPerTask = a.gpusPerTask;
        spec.cpusPerTask = a.cpusPerTask;
        spec.timeLimit = a.timeLimit;
        spec.evalArgs = forward;
        d.state = {{"version", 1},
                   {"batch", batch},
                   {"created_at", kbx::nowIso8601()},
                   {"source", spec.source},
                   {"db", fs::absolute(in.db.empty() ? kbx::defaultDatabasePath() : fs::path(in.db)).string()},
                   {"submissions", m},
                   {"shards", n},
                   {"max_jobs", a.maxJobs},
                   {"partition", a.partition},
                   {"gpus_per_task", a.gpusPerTask},
                   {"secret_seed", secret},
                   {"eval_args", forward},
                   {"kbx", spec.kbx.string()},
                   {"jobs", json::array()}};
        try {
            writeAtomically(d.work / "kbx-array.sh", kbx::arrayScript(spec));
            fs::permissions(d.work / "kbx-array.sh", fs::perms::owner_exec, fs::perm_options::add);
            d.save();
        } catch (const std::exception& e) {
            return failWith(ExitInput, e.what());
        }
        std::cerr << fmt::format("kbx: {} submission(s) from {} in {} shard(s), secret seed {}, merged into {}\n", m, in.source, n, secret,
                                 d.state["db"].get<std::string>());
        event({{"event", "plan"}, {"resubmit", false}, {"work_dir", d.work.string()}, {"db", d.state["db"]}, {"source", spec.source},
               {"submissions", m}, {"shards", n}, {"max_jobs", a.maxJobs}, {"secret_seed", secret}});
        for (int s = 0; s < n; ++s)
            todo.push_back(s);
        all = true;
    }

    const std::string resubmitCommand = fmt::format("kbx eval --backend slurm --resubmit {}", kbx::shellQuote(d.work.string()));
    auto removeNewRun = [&] {  // a new run that never started: leave nothing behind
        std::error_code ec;
        if (createdWork) {
            fs::remove_all(d.work, ec);
        } else {
            for (const char* f : {"run.json", "kbx-array.sh"})
                fs::remove(d.work / f, ec);
            fs::remove(d.work / "logs", ec);
        }
    };
    if (g_slurmCancel.load()) {
        std::cerr << "kbx: interrupted before anything was submitted\n";
        if (all)
            removeNewRun();
        event({{"event", "cancelled"}, {"scancel", json::array()}});
        event({{"event", "end"}, {"exit", ExitInterrupted}, {"cancelled", true}, {"work_dir", d.work.string()}, {"db", d.state["db"]},
               {"shards", d.shards()}, {"merged", 0}, {"incomplete", json::array()}, {"resubmit", all ? "" : resubmitCommand}});
        return ExitInterrupted;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (!todo.empty() && !d.submit(todo, all)) {
        if (all)
            removeNewRun();
        return failWith(ExitEnvironment, "sbatch refused the job array: " + d.sbatchError);
    }

    // Complete shards are merged into the target as they come in, one transaction each
    // (idempotent: core/merge.h), so that the results of a long run show up early.
    const fs::path target = d.state["db"].get<std::string>();
    std::set<int> mergedShards;
    int mergedEvaluations = 0;
    bool unjudged = false;
    std::string mergeError;  // the last merge that failed (tried again at the end)
    auto mergeShard = [&](int s, const ShardResult& r) -> bool {
        try {
            auto rep = kbx::mergeDatabase(target, kbx::shardDatabase(d.work, s));
            const std::string how = rep.runsAdded ? "merged" : rep.runsReplaced ? "replaced an earlier copy" : "already merged";
            std::cerr << fmt::format("[merge] shard {}/{} ({} evaluation(s){}): {}\n", s, d.shards(), r.evaluations,
                                     r.node.empty() ? "" : " on " + r.node, how);
            for (const auto& n : rep.notes)
                std::cerr << "  " << n << "\n";
            mergedShards.insert(s);
            mergedEvaluations += r.evaluations;
            unjudged |= r.exitCode == ExitUnjudged;
            event({{"event", "merged"}, {"shard", s}, {"shards", d.shards()}, {"evaluations", r.evaluations}, {"passed", r.passed},
                   {"failed", r.evaluations - r.passed}, {"exit", r.exitCode}, {"node", r.node}, {"result", how},
                   {"merged_shards", mergedShards.size()}, {"merged_evaluations", mergedEvaluations}});
            mergeError.clear();
            return true;
        } catch (const kbx::StoreError& e) {
            mergeError = e.what();
        } catch (const std::exception& e) {
            mergeError = fmt::format("merging shard {}: {}", s, e.what());
        }
        std::cerr << "kbx: " << mergeError << "\n";
        event({{"event", "merge_failed"}, {"shard", s}, {"message", mergeError}});
        return false;
    };

    std::string lastSummary;
    std::set<int> settled;        // ended, and either done or out of retries
    std::map<int, int> lagging;   // COMPLETED but its files do not say so yet (a shared file system's delay)
    std::map<int, std::string> whyFailed;
    auto unsettled = [&] {
        for (const auto& [s, p] : d.phase)
            if (!settled.count(s))
                return true;
        return false;
    };
    while (unsettled()) {
        if (sleepOrCancel(a.poll)) {
            std::cerr << "kbx: interrupted: cancelling the array tasks\n";
            d.cancelAll();
            std::cerr << fmt::format("kbx: continue later with: {}\n", resubmitCommand);
            event({{"event", "end"}, {"exit", ExitInterrupted}, {"cancelled", true}, {"work_dir", d.work.string()}, {"db", target.string()},
                   {"shards", d.shards()}, {"merged", mergedShards.size()}, {"merged_evaluations", mergedEvaluations},
                   {"incomplete", json::array()}, {"resubmit", resubmitCommand}});
            return ExitInterrupted;
        }
        d.poll();
        // A shard whose task ended: done, or re-submitted from scratch right away (up to --retries times).
        std::vector<int> again;
        for (const auto& [s, p] : d.phase) {
            if (settled.count(s) || p == kbx::TaskPhase::Pending || p == kbx::TaskPhase::Running)
                continue;
            auto r = inspectShard(d.work, s, d.shards());
            if (r.complete) {
                settled.insert(s);
                whyFailed.erase(s);
                std::cerr << fmt::format("[slurm] shard {}/{}: done, {} evaluation(s){}\n", s, d.shards(), r.evaluations,
                                         r.node.empty() ? "" : " on " + r.node);
                event({{"event", "shard_done"}, {"shard", s}, {"shards", d.shards()}, {"evaluations", r.evaluations},
                       {"passed", r.passed}, {"exit", r.exitCode}, {"node", r.node}});
                mergeShard(s, r);
                continue;
            }
            if (p == kbx::TaskPhase::Succeeded && ++lagging[s] < 4)
                continue;  // look again at the next poll
            whyFailed[s] = r.why;
            const bool retry = d.attempts[s] <= a.retries;
            event({{"event", "shard_failed"}, {"shard", s}, {"shards", d.shards()}, {"why", r.why}, {"retry", retry},
                   {"attempts", d.attempts[s]}, {"logs", (d.work / "logs").string()}});
            if (!retry) {
                settled.insert(s);
                std::cerr << fmt::format("[slurm] shard {}/{} failed ({}); no retries left; logs in {}\n", s, d.shards(), r.why,
                                         (d.work / "logs").string());
                continue;
            }
            std::cerr << fmt::format("[slurm] shard {}/{} failed ({}): re-submitting it from scratch\n", s, d.shards(), r.why);
            again.push_back(s);
        }
        if (!again.empty()) {
            for (int s : again)
                lagging.erase(s);
            if (!d.submit(again, false))
                for (int s : again) {
                    settled.insert(s);
                    whyFailed[s] += "; its re-submission failed: " + d.sbatchError;
                }
        }
        auto sum = d.summary();
        if (sum != lastSummary) {
            const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::cerr << fmt::format("[slurm] {} shard(s) submitted: {} ({})\n", d.phase.size(), sum, fmtSeconds(el));
            auto n = d.phaseCounts();
            event({{"event", "summary"}, {"submitted", d.phase.size()}, {"pending", n[kbx::TaskPhase::Pending]},
                   {"running", n[kbx::TaskPhase::Running]}, {"ended", n[kbx::TaskPhase::Succeeded]}, {"failed", n[kbx::TaskPhase::Failed]},
                   {"elapsed", el}});
            lastSummary = sum;
        }
    }

    // Every complete shard not merged yet (the ones a --resubmit found complete, or a merge that
    // failed above) is merged now.
    std::vector<int> incomplete;
    for (int s = 0; s < d.shards(); ++s) {
        if (mergedShards.count(s))
            continue;
        auto r = inspectShard(d.work, s, d.shards());
        if (!r.complete) {
            incomplete.push_back(s);
            if (!whyFailed.count(s))
                whyFailed[s] = r.why;
            continue;
        }
        if (!mergeShard(s, r)) {
            event({{"event", "end"}, {"exit", ExitDatabase}, {"cancelled", false}, {"work_dir", d.work.string()}, {"db", target.string()},
                   {"shards", d.shards()}, {"merged", mergedShards.size()}, {"merged_evaluations", mergedEvaluations},
                   {"incomplete", json::array()}, {"message", mergeError}, {"resubmit", resubmitCommand}});
            return ExitDatabase;
        }
    }
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << fmt::format("kbx: {} of {} shard(s) merged into {} in {}\n", mergedShards.size(), d.shards(), target.string(), fmtSeconds(el));
    json why = json::object();
    for (int s : incomplete)
        why[std::to_string(s)] = whyFailed[s];
    const int rc = !incomplete.empty() || unjudged ? ExitUnjudged : ExitOk;
    if (!incomplete.empty())
        std::cerr << fmt::format("kbx: shard(s) {} did not finish (logs in {}); re-run them with: {}\n", fmt::join(incomplete, ","),
                                 (d.work / "logs").string(), resubmitCommand);
    event({{"event", "end"}, {"exit", rc}, {"cancelled", false}, {"work_dir", d.work.string()}, {"db", target.string()},
           {"shards", d.shards()}, {"submissions", submissions}, {"merged", mergedShards.size()},
           {"merged_evaluations", mergedEvaluations}, {"incomplete", incomplete}, {"why", why}, {"unjudged", unjudged},
           {"logs", (d.work / "logs").string()}, {"elapsed", el}, {"resubmit", incomplete.empty() ? "" : resubmitCommand}});
    return rc;
}

}  // namespace kbxcli
