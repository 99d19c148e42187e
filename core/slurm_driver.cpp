// SPDX-License-Identifier: MIT
#include "slurm_driver.h"

#include "catalogue.h"
#include "importers.h"
#include "paths.h"
#include "process.h"
#include "query_reports.h"
#include "slurm.h"
#include "store.h"
#include "store_merge.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace kbx {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

int code(SlurmExit e) { return static_cast<int>(e); }

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
ProcessResult runTool(std::vector<std::string> argv, double timeout = 120, const std::map<std::string, std::string>& env = {},
                      const fs::path& cwd = {})
{
    ProcessSpec spec;
    spec.env = env;
    spec.cwd = cwd;
    if (auto p = onPath(argv.at(0)); !p.empty())
        argv[0] = p;
    spec.argv = std::move(argv);
    spec.timeoutSeconds = timeout;
    return runProcess(spec);
}

std::string firstLine(const std::string& s)
{
    auto l = s.substr(0, s.find('\n'));
    return l.size() > 300 ? l.substr(0, 300) + "..." : l;
}

/// The secret seed in a file only its owner reads (never on a command line: /proc/PID/cmdline is
/// world-readable); every shard reads it (issue 20). False (errno set) when it cannot be written.
bool writeSecretSeed(const fs::path& file, std::int64_t secret)
{
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    const std::string text = std::to_string(secret) + "\n";
    const bool ok = fd >= 0 && ::fchmod(fd, 0600) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (fd >= 0) {
        const int saved = errno;
        ::close(fd);
        errno = saved;
    }
    return ok;
}

/// One Slurm run from plan (or --resubmit) to the last merge.
class Driver {
public:
    Driver(const SlurmDriverOptions& o, const SlurmEventFn& on, const std::atomic<bool>* cancel) : m_o(o), m_on(on), m_cancel(cancel) {}

    SlurmExit run()
    {
        for (const char* tool : {"sbatch", "squeue", "scancel"})
            if (onPath(tool).empty())
                return fail(SlurmExit::Environment, fmt::format("--backend slurm needs {} on PATH (Slurm client tools)", tool));
        if (auto rc = m_o.resubmit.empty() ? planNewRun() : openResubmit())
            return *rc;
        m_resubmitCommand = fmt::format("kbx eval --backend slurm --resubmit {}", shellQuote(m_work.string()));
        if (cancelled()) {
            say("kbx: interrupted before anything was submitted");
            if (m_all)
                removeNewRun();
            emit({{"event", "cancelled"}, {"scancel", json::array()}});
            emit({{"event", "end"}, {"exit", code(SlurmExit::Interrupted)}, {"cancelled", true}, {"work_dir", m_work.string()},
                  {"db", m_state["db"]}, {"shards", shards()}, {"merged", 0}, {"incomplete", json::array()},
                  {"resubmit", m_all ? "" : m_resubmitCommand}});
            return SlurmExit::Interrupted;
        }
        m_t0 = std::chrono::steady_clock::now();
        if (!m_todo.empty() && !submit(m_todo, m_all)) {
            if (m_all)
                removeNewRun();
            return fail(SlurmExit::Environment, "sbatch refused the job array: " + m_sbatchError);
        }
        // Complete shards are merged into the target as they come in, one transaction each
        // (idempotent: core/store_merge.h), so that the results of a long run show up early.
        m_target = m_state["db"].get<std::string>();
        while (unsettled()) {
            if (sleepOrCancel(m_o.poll))
                return interrupted();
            poll();
            settleEnded();
            reportSummary();
        }
        return finish();
    }

private:
    const SlurmDriverOptions& m_o;
    const SlurmEventFn& m_on;
    const std::atomic<bool>* m_cancel;

    fs::path m_work;
    json m_state = json::object();             ///< run.json
    std::map<int, std::string> m_jobOf;        ///< shard -> the array job running it now
    std::map<int, std::string> m_shown;        ///< shard -> the state last printed
    std::map<int, TaskPhase> m_phase;
    std::map<int, int> m_unseen;               ///< polls in which neither squeue nor sacct knew the task
    std::map<int, int> m_attempts;             ///< submissions in this invocation
    std::string m_sbatchError;                 ///< why the last submission failed

    bool m_createdWork = false;  ///< a new run's work directory made here (removed again when nothing could be submitted)
    std::vector<int> m_todo;     ///< shards to submit first
    bool m_all = false;          ///< a new run: all of them, with the script's own --array
    int m_submissions = 0;
    std::string m_resubmitCommand;
    std::chrono::steady_clock::time_point m_t0;
    fs::path m_target;

    std::set<int> m_merged;
    int m_mergedEvaluations = 0;
    bool m_unjudged = false;
    std::string m_mergeError;        ///< the last merge that failed (tried again at the end)
    std::string m_lastSummary;
    std::set<int> m_settled;         ///< ended, and either done or out of retries
    std::map<int, int> m_lagging;    ///< COMPLETED but its files do not say so yet (a shared file system's delay)
    std::map<int, std::string> m_whyFailed;

    void say(std::string text) { m_on({std::move(text), json()}); }
    void emit(json j) { m_on({{}, std::move(j)}); }
    void report(std::string text, json j) { m_on({std::move(text), std::move(j)}); }
    /// Says why the run stops (a line, and an "error" event) and returns the result.
    SlurmExit fail(SlurmExit rc, const std::string& message)
    {
        report("kbx: " + message, {{"event", "error"}, {"exit", code(rc)}, {"message", message}});
        return rc;
    }
    bool cancelled() const { return m_cancel && m_cancel->load(); }

    int shards() const { return m_state["shards"].get<int>(); }
    void save() { writeAtomically(m_work / "run.json", m_state.dump(2) + "\n"); }
    std::string shardName(int s) const { return fmt::format("{}/{}", s, shards()); }
    static std::string onNode(const ShardResult& r) { return r.node.empty() ? "" : " on " + r.node; }

    /// Sleeps `seconds`, returning early (true) when cancelled.
    bool sleepOrCancel(double seconds) const
    {
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (std::chrono::steady_clock::now() < until) {
            if (cancelled())
                return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return cancelled();
    }

    /// --resubmit WORK: the run's state, and which of its shards are to be submitted again.
    std::optional<SlurmExit> openResubmit()
    {
        m_work = fs::absolute(m_o.resubmit);
        std::ifstream f(m_work / "run.json");
        m_state = json::parse(f, nullptr, false);
        if (!f || !m_state.is_object() || !m_state.contains("shards") || !m_state.contains("db"))
            return fail(SlurmExit::Input, fmt::format("--resubmit {}: no run.json of a kbx --backend slurm run there", m_work.string()));
        if (!m_o.source.empty() && fs::absolute(m_o.source) != fs::path(m_state.value("source", "")))
            say(fmt::format("kbx: --resubmit: the work directory's source is {}; {} is ignored", m_state.value("source", ""), m_o.source));
        if (!m_o.db.empty())
            m_state["db"] = fs::absolute(m_o.db).string();
        m_submissions = m_state.value("submissions", 0);
        emit({{"event", "plan"}, {"resubmit", true}, {"work_dir", m_work.string()}, {"db", m_state["db"]},
              {"source", m_state.value("source", "")}, {"submissions", m_submissions}, {"shards", shards()},
              {"max_jobs", m_state.value("max_jobs", 0)}, {"secret_seed", m_state.value("secret_seed", json())}});
        for (int s = 0; s < shards(); ++s) {
            auto r = inspectShard(m_work, s, shards());
            std::string line;
            if (r.complete) {
                line = fmt::format("[slurm] shard {}: complete ({} evaluation(s){})", shardName(s), r.evaluations, onNode(r));
            } else {
                line = fmt::format("[slurm] shard {}: {} -> re-submitting", shardName(s), r.why);
                m_todo.push_back(s);
            }
            report(line, {{"event", "shard_checked"}, {"shard", s}, {"shards", shards()}, {"complete", r.complete},
                          {"why", r.why}, {"evaluations", r.evaluations}, {"passed", r.passed}, {"node", r.node}});
        }
        return std::nullopt;
    }

    /// A new run: the source validated here, before anything is submitted; the work directory with
    /// the script, the secret seed and run.json.
    std::optional<SlurmExit> planNewRun()
    {
        std::vector<Submission> subs;
        std::vector<std::string> skipped;
        try {
            auto cat = TaskCatalogue::load(m_o.tasksDir.empty() ? findTasksDir() : m_o.tasksDir);
            subs = loadSubmissions(m_o.source, cat, m_o.skipUnknown ? &skipped : nullptr);
        } catch (const ImportError& e) {
            return fail(SlurmExit::Input, e.what());
        }
        if (subs.empty())
            return fail(SlurmExit::Input, m_o.source + ": no submission for a known task");
        const int m = static_cast<int>(subs.size());
        m_submissions = m;
        int n = m_o.shards > 0 ? m_o.shards : std::min(m, m_o.maxJobs > 0 ? m_o.maxJobs : 8);
        if (n > m) {
            say(fmt::format("kbx: --shards {} > {} submission(s): using {} shards", n, m, m));
            n = m;
        }
        const auto batch = randomHex(4);
        m_work = fs::absolute(m_o.workDir.empty() ? fmt::format("kbx-slurm-{}-{}", nowIso8601().substr(0, 10), batch) : m_o.workDir);
        if (fs::exists(m_work / "run.json"))
            return fail(SlurmExit::Usage, fmt::format("{} already holds a Slurm run; continue it with --resubmit {} or choose another --work-dir",
                                                      m_work.string(), m_work.string()));
        std::error_code ec;
        m_createdWork = !fs::exists(m_work);
        fs::create_directories(m_work / "logs", ec);
        if (ec)
            return fail(SlurmExit::Input, fmt::format("cannot create {}: {}", m_work.string(), ec.message()));
        const auto secret = m_o.secretSeed ? *m_o.secretSeed : drawSecretSeed();
        auto forward = m_o.evalArgs;
        const fs::path seedFile = m_work / "secret-seed";
        if (!writeSecretSeed(seedFile, secret))
            return fail(SlurmExit::Input, fmt::format("cannot write {}: {}", seedFile.string(), std::strerror(errno)));
        forward.push_back("--secret-seed-file");
        forward.push_back(seedFile.string());
        SlurmJobSpec spec;
        spec.kbx = m_o.kbx;
        spec.workDir = m_work;
        spec.source = fs::absolute(m_o.source).string();
        spec.shards = n;
        spec.maxJobs = m_o.maxJobs;
        spec.partition = m_o.partition;
        spec.gpusPerTask = m_o.gpusPerTask;
        spec.cpusPerTask = m_o.cpusPerTask;
        spec.timeLimit = m_o.timeLimit;
        spec.evalArgs = forward;
        m_state = {{"version", 1},
                   {"batch", batch},
                   {"created_at", nowIso8601()},
                   {"source", spec.source},
                   {"db", fs::absolute(m_o.db.empty() ? defaultDatabasePath() : fs::path(m_o.db)).string()},
                   {"submissions", m},
                   {"shards", n},
                   {"max_jobs", m_o.maxJobs},
                   {"partition", m_o.partition},
                   {"gpus_per_task", m_o.gpusPerTask},
                   {"secret_seed", secret},
                   {"eval_args", forward},
                   {"kbx", spec.kbx.string()},
                   {"jobs", json::array()}};
        try {
            writeAtomically(m_work / "kbx-array.sh", arrayScript(spec));
            fs::permissions(m_work / "kbx-array.sh", fs::perms::owner_exec, fs::perm_options::add);
            save();
        } catch (const std::exception& e) {
            return fail(SlurmExit::Input, e.what());
        }
        report(fmt::format("kbx: {} submission(s) from {} in {} shard(s), secret seed {}, merged into {}", m, m_o.source, n, secret,
                           m_state["db"].get<std::string>()),
               {{"event", "plan"}, {"resubmit", false}, {"work_dir", m_work.string()}, {"db", m_state["db"]}, {"source", spec.source},
                {"submissions", m}, {"shards", n}, {"max_jobs", m_o.maxJobs}, {"secret_seed", secret}});
        for (int s = 0; s < n; ++s)
            m_todo.push_back(s);
        m_all = true;
        return std::nullopt;
    }

    /// A new run that never started: leave nothing behind.
    void removeNewRun()
    {
        std::error_code ec;
        if (m_createdWork) {
            fs::remove_all(m_work, ec);
        } else {
            for (const char* f : {"run.json", "kbx-array.sh", "secret-seed"})
                fs::remove(m_work / f, ec);
            fs::remove(m_work / "logs", ec);
        }
    }

    /// Submits the given shards (all: the script's own --array); false when sbatch fails.
    bool submit(const std::vector<int>& which, bool all)
    {
        const auto script = m_work / "kbx-array.sh";
        auto argv = sbatchCommand(script, shards(), m_state.value("max_jobs", 0), all ? std::vector<int>{} : which);
        auto res = runTool(argv, 120, m_o.env, m_o.submitDir);
        auto id = res.exitCode == 0 ? parseSbatchJobId(res.stdoutText) : std::nullopt;
        if (!id) {
            m_sbatchError = fmt::format("sbatch failed (exit {}): {}{}", res.exitCode, firstLine(res.stderrText), firstLine(res.stdoutText));
            report("kbx: " + m_sbatchError, {{"event", "sbatch_failed"}, {"exit", res.exitCode}, {"message", m_sbatchError}, {"shards", which}});
            return false;
        }
        m_state["jobs"].push_back({{"job_id", *id}, {"shards", which}, {"submitted_at", nowIso8601()}});
        save();
        for (int s : which) {
            m_jobOf[s] = *id;
            m_phase[s] = TaskPhase::Pending;
            m_shown.erase(s);
            m_unseen[s] = 0;
            ++m_attempts[s];
        }
        const auto spec = arraySpec(shards(), m_state.value("max_jobs", 0), which);
        report(fmt::format("kbx: submitted job array {} ({} shard(s): {}), work directory {}", *id, which.size(), spec, m_work.string()),
               {{"event", "submitted"}, {"job_id", *id}, {"shards", which}, {"array", spec}});
        return true;
    }

    /// What squeue (or, for jobs it forgot, sacct) says of the shards still pending or running.
    std::map<int, ArrayTaskState> lookUp(const std::map<std::string, std::vector<int>>& byJob) const
    {
        std::map<int, ArrayTaskState> seen;
        std::vector<std::string> missingJobs;
        for (const auto& [job, list] : byJob) {
            auto res = runTool(squeueCommand(job), 60);
            auto table = parseJobTable(res.stdoutText, job);
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
            auto res = runTool(sacctCommand(missingJobs), 60);
            if (res.exitCode == 0)
                for (const auto& job : missingJobs) {
                    auto table = parseJobTable(res.stdoutText, job);
                    for (int s : byJob.at(job))
                        if (!seen.count(s) && table.count(s))
                            seen[s] = table[s];
                }
        }
        return seen;
    }

    void poll()
    {
        std::map<std::string, std::vector<int>> byJob;
        for (const auto& [s, j] : m_jobOf)
            if (m_phase[s] == TaskPhase::Pending || m_phase[s] == TaskPhase::Running)
                byJob[j].push_back(s);
        if (byJob.empty())
            return;
        auto seen = lookUp(byJob);
        for (const auto& [job, list] : byJob)
            for (int s : list) {
                std::string line, stateName, nodes;
                if (seen.count(s)) {
                    const auto& t = seen[s];
                    m_phase[s] = taskPhase(t.state);
                    m_unseen[s] = 0;
                    stateName = t.state;
                    nodes = t.nodes;
                    line = fmt::format("{}{}", t.state, t.nodes.empty() ? "" : " on " + t.nodes);
                } else if (++m_unseen[s] >= 3) {
                    // Neither squeue nor sacct knows it any more: it ended; its files say how.
                    m_phase[s] = TaskPhase::Failed;
                    stateName = "ENDED";
                    line = "ENDED (no longer known to Slurm)";
                } else {
                    continue;
                }
                if (m_shown[s] != line) {
                    m_shown[s] = line;
                    report(fmt::format("[slurm] shard {}: {} (job {}_{})", shardName(s), line, job, s),
                           {{"event", "shard"}, {"shard", s}, {"shards", shards()}, {"job_id", job}, {"state", stateName},
                            {"phase", phaseName(m_phase[s])}, {"nodes", nodes}});
                }
            }
    }

    std::map<TaskPhase, int> phaseCounts() const
    {
        std::map<TaskPhase, int> n;
        for (const auto& [s, p] : m_phase)
            ++n[p];
        return n;
    }

    void cancelAll()
    {
        std::set<std::pair<std::string, int>> todo;
        for (const auto& [s, j] : m_jobOf)
            if (m_phase[s] == TaskPhase::Pending || m_phase[s] == TaskPhase::Running)
                todo.insert({j, s});
        json tasks = json::array();
        for (const auto& [j, s] : todo) {
            auto res = runTool(scancelCommand(j, s), 60);
            say(fmt::format("kbx: scancel {}_{}{}", j, s, res.exitCode == 0 ? "" : ": " + firstLine(res.stderrText)));
            tasks.push_back({{"task", fmt::format("{}_{}", j, s)}, {"shard", s}, {"exit", res.exitCode},
                             {"message", res.exitCode == 0 ? "" : firstLine(res.stderrText)}});
        }
        emit({{"event", "cancelled"}, {"scancel", tasks}});
    }

    SlurmExit interrupted()
    {
        say("kbx: interrupted: cancelling the array tasks");
        cancelAll();
        say(fmt::format("kbx: continue later with: {}", m_resubmitCommand));
        emit({{"event", "end"}, {"exit", code(SlurmExit::Interrupted)}, {"cancelled", true}, {"work_dir", m_work.string()},
              {"db", m_target.string()}, {"shards", shards()}, {"merged", m_merged.size()}, {"merged_evaluations", m_mergedEvaluations},
              {"incomplete", json::array()}, {"resubmit", m_resubmitCommand}});
        return SlurmExit::Interrupted;
    }

    bool mergeShard(int s, const ShardResult& r)
    {
        try {
            auto rep = mergeDatabase(m_target, shardDatabase(m_work, s));
            const std::string how = rep.runsAdded ? "merged" : rep.runsReplaced ? "replaced an earlier copy" : "already merged";
            std::string text = fmt::format("[merge] shard {} ({} evaluation(s){}): {}", shardName(s), r.evaluations, onNode(r), how);
            for (const auto& n : rep.notes)
                text += "\n  " + n;
            m_merged.insert(s);
            m_mergedEvaluations += r.evaluations;
            m_unjudged |= r.exitCode == code(SlurmExit::Unjudged);
            report(text, {{"event", "merged"}, {"shard", s}, {"shards", shards()}, {"evaluations", r.evaluations}, {"passed", r.passed},
                          {"failed", r.evaluations - r.passed}, {"exit", r.exitCode}, {"node", r.node}, {"result", how},
                          {"merged_shards", m_merged.size()}, {"merged_evaluations", m_mergedEvaluations}});
            m_mergeError.clear();
            return true;
        } catch (const StoreError& e) {
            m_mergeError = e.what();
        } catch (const std::exception& e) {
            m_mergeError = fmt::format("merging shard {}: {}", s, e.what());
        }
        report("kbx: " + m_mergeError, {{"event", "merge_failed"}, {"shard", s}, {"message", m_mergeError}});
        return false;
    }

    bool unsettled() const
    {
        for (const auto& [s, p] : m_phase)
            if (!m_settled.count(s))
                return true;
        return false;
    }

    /// A shard whose task ended: done (and merged), or re-submitted from scratch right away (up to
    /// retries times).
    void settleEnded()
    {
        std::vector<int> again;
        for (const auto& [s, p] : m_phase) {
            if (m_settled.count(s) || p == TaskPhase::Pending || p == TaskPhase::Running)
                continue;
            auto r = inspectShard(m_work, s, shards());
            if (r.complete) {
                m_settled.insert(s);
                m_whyFailed.erase(s);
                report(fmt::format("[slurm] shard {}: done, {} evaluation(s){}", shardName(s), r.evaluations, onNode(r)),
                       {{"event", "shard_done"}, {"shard", s}, {"shards", shards()}, {"evaluations", r.evaluations},
                        {"passed", r.passed}, {"exit", r.exitCode}, {"node", r.node}});
                mergeShard(s, r);
                continue;
            }
            if (p == TaskPhase::Succeeded && ++m_lagging[s] < 4)
                continue;  // look again at the next poll
            m_whyFailed[s] = r.why;
            const bool retry = m_attempts[s] <= m_o.retries;
            emit({{"event", "shard_failed"}, {"shard", s}, {"shards", shards()}, {"why", r.why}, {"retry", retry},
                  {"attempts", m_attempts[s]}, {"logs", (m_work / "logs").string()}});
            if (!retry) {
                m_settled.insert(s);
                say(fmt::format("[slurm] shard {} failed ({}); no retries left; logs in {}", shardName(s), r.why, (m_work / "logs").string()));
                continue;
            }
            say(fmt::format("[slurm] shard {} failed ({}): re-submitting it from scratch", shardName(s), r.why));
            again.push_back(s);
        }
        if (again.empty())
            return;
        for (int s : again)
            m_lagging.erase(s);
        if (!submit(again, false))
            for (int s : again) {
                m_settled.insert(s);
                m_whyFailed[s] += "; its re-submission failed: " + m_sbatchError;
            }
    }

    void reportSummary()
    {
        auto n = phaseCounts();
        auto sum = fmt::format("{} pending, {} running, {} ended, {} failed", n[TaskPhase::Pending], n[TaskPhase::Running],
                               n[TaskPhase::Succeeded], n[TaskPhase::Failed]);
        if (sum == m_lastSummary)
            return;
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
        report(fmt::format("[slurm] {} shard(s) submitted: {} ({})", m_phase.size(), sum, fmtSeconds(el)),
               {{"event", "summary"}, {"submitted", m_phase.size()}, {"pending", n[TaskPhase::Pending]}, {"running", n[TaskPhase::Running]},
                {"ended", n[TaskPhase::Succeeded]}, {"failed", n[TaskPhase::Failed]}, {"elapsed", el}});
        m_lastSummary = sum;
    }

    /// Every complete shard not merged yet (the ones a --resubmit found complete, or a merge that
    /// failed above) is merged now; then the end.
    SlurmExit finish()
    {
        std::vector<int> incomplete;
        for (int s = 0; s < shards(); ++s) {
            if (m_merged.count(s))
                continue;
            auto r = inspectShard(m_work, s, shards());
            if (!r.complete) {
                incomplete.push_back(s);
                if (!m_whyFailed.count(s))
                    m_whyFailed[s] = r.why;
                continue;
            }
            if (!mergeShard(s, r)) {
                emit({{"event", "end"}, {"exit", code(SlurmExit::Database)}, {"cancelled", false}, {"work_dir", m_work.string()},
                      {"db", m_target.string()}, {"shards", shards()}, {"merged", m_merged.size()}, {"merged_evaluations", m_mergedEvaluations},
                      {"incomplete", json::array()}, {"message", m_mergeError}, {"resubmit", m_resubmitCommand}});
                return SlurmExit::Database;
            }
        }
        const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
        say(fmt::format("kbx: {} of {} shard(s) merged into {} in {}", m_merged.size(), shards(), m_target.string(), fmtSeconds(el)));
        json why = json::object();
        for (int s : incomplete)
            why[std::to_string(s)] = m_whyFailed[s];
        const auto rc = !incomplete.empty() || m_unjudged ? SlurmExit::Unjudged : SlurmExit::Ok;
        if (!incomplete.empty())
            say(fmt::format("kbx: shard(s) {} did not finish (logs in {}); re-run them with: {}", fmt::join(incomplete, ","),
                            (m_work / "logs").string(), m_resubmitCommand));
        emit({{"event", "end"}, {"exit", code(rc)}, {"cancelled", false}, {"work_dir", m_work.string()}, {"db", m_target.string()},
              {"shards", shards()}, {"submissions", m_submissions}, {"merged", m_merged.size()},
              {"merged_evaluations", m_mergedEvaluations}, {"incomplete", incomplete}, {"why", why}, {"unjudged", m_unjudged},
              {"logs", (m_work / "logs").string()}, {"elapsed", el}, {"resubmit", incomplete.empty() ? "" : m_resubmitCommand}});
        return rc;
    }
};

}  // namespace

ShardResult inspectShard(const fs::path& work, int shard, int shards)
{
    ShardResult r;
    {
        std::ifstream rc(shardExitFile(work, shard));
        if (!(rc >> r.exitCode))
            r.exitCode = -1;
    }
    const auto db = shardDatabase(work, shard);
    if (r.exitCode < 0) {
        r.why = "its kbx eval did not end (no exit status written)";
        return r;
    }
    if (r.exitCode > code(SlurmExit::Unjudged)) {
        r.why = fmt::format("its kbx eval exited with {}", r.exitCode);
        return r;
    }
    if (!fs::exists(db)) {
        r.why = "no shard database";
        return r;
    }
    try {
        Store st(db);
        const auto rows = query::shardRuns(st, shard, shards);
        if (rows.size() != 1) {
            r.why = fmt::format("its database holds {} runs of shard {}/{}", rows.size(), shard, shards);
            return r;
        }
        const auto& status = rows[0].status;
        r.evaluations = static_cast<int>(rows[0].evaluations);
        r.passed = static_cast<int>(rows[0].passed);
        r.node = rows[0].node ? *rows[0].node : rows[0].host ? *rows[0].host : "";
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

SlurmExit runSlurmDriver(const SlurmDriverOptions& options, const SlurmEventFn& onEvent, const std::atomic<bool>* cancel)
{
    Driver d(options, onEvent, cancel);
    return d.run();
}

}  // namespace kbx
