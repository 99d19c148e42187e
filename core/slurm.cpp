// SPDX-License-Identifier: MIT
#include "slurm.h"

#include "source.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

namespace kbx {
namespace {

std::optional<long> toNumber(std::string_view s)
{
    long v = 0;
    if (s.empty())
        return std::nullopt;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        out.push_back(cur);
    if (!s.empty() && s.back() == sep)
        out.emplace_back();
    return out;
}

}  // namespace

ShardSpec parseShard(const std::string& text)
{
    const auto slash = text.find('/');
    if (slash == std::string::npos)
        throw std::invalid_argument(fmt::format("--shard '{}': expected I/N (e.g. 0/4: the first of four shards)", text));
    auto i = toNumber(std::string_view(text).substr(0, slash));
    auto n = toNumber(std::string_view(text).substr(slash + 1));
    if (!i || !n)
        throw std::invalid_argument(fmt::format("--shard '{}': I and N must be whole numbers (I/N, e.g. 0/4)", text));
    if (*n < 1 || *n > 100000)
        throw std::invalid_argument(fmt::format("--shard '{}': N must be between 1 and 100000", text));
    if (*i < 0 || *i >= *n)
        throw std::invalid_argument(fmt::format("--shard '{}': I must be between 0 and N-1 = {}", text, *n - 1));
    return {static_cast<int>(*i), static_cast<int>(*n)};
}

std::int64_t drawSecretSeed()
{
    std::random_device rd;
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(rd()) << 31) ^ rd()) & 0x7fffffffffffLL;
}

std::string shardKey(const Submission& s, const std::string& defaultMethod, int defaultRound)
{
    // '\x1f' cannot occur in a task id, a hex hash or a decimal number; methods are free text but
    // the method is the last text field, so keys stay unambiguous.
    return fmt::format("{}\x1f{}\x1f{:010d}\x1f{}", s.taskId, sha256Hex(s.code), s.round.value_or(defaultRound),
                       s.method.value_or(defaultMethod));
}

std::vector<std::size_t> shardIndices(const std::vector<Submission>& subs, const ShardSpec& shard,
                                      const std::string& defaultMethod, int defaultRound)
{
    if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
        throw std::invalid_argument(fmt::format("bad shard {}", shard.str()));
    std::vector<std::string> keys;
    keys.reserve(subs.size());
    for (const auto& s : subs)
        keys.push_back(shardKey(s, defaultMethod, defaultRound));
    std::vector<std::size_t> order(subs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    const std::size_t m = subs.size(), n = static_cast<std::size_t>(shard.count), i = static_cast<std::size_t>(shard.index);
    // Block i is [floor(i*m/n), floor((i+1)*m/n)): sizes differ by at most one, the blocks tile 0..m.
    const std::size_t lo = i * m / n, hi = (i + 1) * m / n;
    std::vector<std::size_t> mine(order.begin() + static_cast<std::ptrdiff_t>(lo), order.begin() + static_cast<std::ptrdiff_t>(hi));
    std::sort(mine.begin(), mine.end());
    return mine;
}

std::string shardGroup(const std::string& source, const std::string& method, int round, const std::string& device,
                       const std::vector<std::int64_t>& publicSeeds, std::int64_t secretSeed, int shardCount)
{
    const nlohmann::json j = {{"source", source}, {"method", method}, {"round", round}, {"device", device},
                              {"public_seeds", publicSeeds}, {"secret_seed", secretSeed}, {"shards", shardCount}};
    return sha256Hex(j.dump());
}

std::string shellQuote(const std::string& w)
{
    if (!w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=./:,%@") == std::string::npos)
        return w;
    std::string out = "'";
    for (char c : w) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::filesystem::path shardDatabase(const std::filesystem::path& workDir, int shard)
{
    return workDir / fmt::format("shard-{}.sqlite", shard);
}

std::filesystem::path shardExitFile(const std::filesystem::path& workDir, int shard)
{
    return workDir / fmt::format("shard-{}.rc", shard);
}

std::string arraySpec(int shards, int maxJobs, const std::vector<int>& only)
{
    std::string spec;
    if (only.empty()) {
        spec = shards == 1 ? "0" : fmt::format("0-{}", shards - 1);
    } else {
        std::set<int> s(only.begin(), only.end());
        for (int i : s) {
            if (i < 0 || i >= shards)
                throw std::invalid_argument(fmt::format("array task {} is not a shard of {}", i, shards));
        }
        spec = fmt::format("{}", fmt::join(s, ","));
    }
    if (maxJobs > 0)
        spec += fmt::format("%{}", maxJobs);
    return spec;
}

std::string arrayScript(const SlurmJobSpec& s)
{
    if (s.shards < 1)
        throw std::invalid_argument("the job array needs at least one shard");
    const auto work = s.workDir.string();
    std::ostringstream o;
    o << "#!/bin/bash\n";
    o << "#SBATCH --job-name=" << shellQuote(s.jobName) << "\n";
    o << "#SBATCH --array=" << arraySpec(s.shards, s.maxJobs) << "\n";
    o << "#SBATCH --output=" << shellQuote((s.workDir / "logs" / "shard-%a-job-%A.out").string()) << "\n";
    o << "#SBATCH --ntasks=1\n";
    if (!s.partition.empty())
        o << "#SBATCH --partition=" << shellQuote(s.partition) << "\n";
    if (s.gpusPerTask > 0)
        o << "#SBATCH --gres=gpu:" << s.gpusPerTask << "\n";
    if (s.cpusPerTask > 0)
        o << "#SBATCH --cpus-per-task=" << s.cpusPerTask << "\n";
    if (!s.timeLimit.empty())
        o << "#SBATCH --time=" << shellQuote(s.timeLimit) << "\n";
    o << "# Written by kbx eval --backend slurm: shard $SLURM_ARRAY_TASK_ID of " << s.shards
      << " runs kbx eval on its part of the submissions into its own database.\n";
    o << "set -u\n";
    o << "i=${SLURM_ARRAY_TASK_ID:?this script is a Slurm array job (sbatch)}\n";
    o << "work=" << shellQuote(work) << "\n";
    o << "db=\"$work/shard-$i.sqlite\"\n";
    o << "# One task per shard at a time (a cancelled task may still be ending when its re-submission starts).\n";
    o << "exec 9>\"$work/shard-$i.lock\"\n";
    o << "flock 9 || { echo \"kbx: cannot lock $work/shard-$i.lock\" >&2; exit 75; }\n";
    o << "# A shard always starts from scratch: a re-submitted shard never appends to a partial copy.\n";
    o << "rm -f \"$db\" \"$db-wal\" \"$db-shm\" \"$work/shard-$i.rc\"\n";
    o << "echo \"kbx shard $i/" << s.shards << " on ${SLURMD_NODENAME:-$(hostname)}, job ${SLURM_JOB_ID:-?}, "
      << "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}\" >&2\n";
    o << shellQuote(s.kbx.string()) << " eval " << shellQuote(s.source) << " --shard \"$i/" << s.shards << "\" --db \"$db\"";
    for (const auto& a : s.evalArgs)
        o << " " << shellQuote(a);
    o << " 9>&-\n";  // the lock stays with this script, out of reach of kbx and the candidates
    o << "rc=$?\n";
    o << "echo \"$rc\" > \"$work/shard-$i.rc.tmp\" && mv -f \"$work/shard-$i.rc.tmp\" \"$work/shard-$i.rc\"\n";
    o << "# kbx exit codes: 0 finished, 1 finished with candidates that could not be judged; others fail the task.\n";
    o << "if [ \"$rc\" -le 1 ]; then exit 0; fi\n";
    o << "exit \"$rc\"\n";
    return o.str();
}

std::vector<std::string> sbatchCommand(const std::filesystem::path& script, int shards, int maxJobs, const std::vector<int>& only)
{
    std::vector<std::string> argv = {"sbatch", "--parsable"};
    if (!only.empty())
        argv.push_back("--array=" + arraySpec(shards, maxJobs, only));
    argv.push_back(script.string());
    return argv;
}

std::optional<std::string> parseSbatchJobId(const std::string& out)
{
    // --parsable prints "jobid[;cluster]"; warnings may come on lines before it.
    std::istringstream in(out);
    std::string line, last;
    while (std::getline(in, line)) {
        line = std::string(trimSpace(line));
        if (!line.empty())
            last = line;
    }
    auto id = last.substr(0, last.find(';'));
    if (id.empty() || !toNumber(id))
        return std::nullopt;
    return id;
}

std::vector<std::string> squeueCommand(const std::string& jobId)
{
    return {"squeue", "--noheader", "--array", "--states=all", "--jobs=" + jobId, "--format=%i|%T|-|%N"};
}

std::vector<std::string> sacctCommand(const std::vector<std::string>& jobIds)
{
    return {"sacct", "--noheader", "--parsable2", "--allocations", fmt::format("--jobs={}", fmt::join(jobIds, ",")),
            "--format=JobID,State,ExitCode,NodeList"};
}

std::vector<std::string> scancelCommand(const std::string& jobId, std::optional<int> task)
{
    return {"scancel", task ? fmt::format("{}_{}", jobId, *task) : jobId};
}

std::map<int, ArrayTaskState> parseJobTable(const std::string& out, const std::string& jobId)
{
    std::map<int, ArrayTaskState> result;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
        line = std::string(trimSpace(line));
        if (line.empty())
            continue;
        auto f = split(line, '|');
        if (f.size() < 2)
            continue;
        const auto& id = f[0];
        const auto us = id.find('_');
        if (us == std::string::npos || id.substr(0, us) != jobId)
            continue;
        auto rest = id.substr(us + 1);
        if (rest.find('.') != std::string::npos)  // a step (123_4.batch, 123_4.0)
            continue;
        ArrayTaskState st;
        st.jobId = jobId;
        // "CANCELLED by 0" -> CANCELLED; squeue and sacct agree on the names otherwise.
        st.state = std::string(trimSpace(std::string_view(f[1]).substr(0, f[1].find(' '))));
        std::transform(st.state.begin(), st.state.end(), st.state.begin(), [](unsigned char c) { return std::toupper(c); });
        st.exitCode = f.size() > 2 ? std::string(trimSpace(f[2])) : "-";
        st.nodes = f.size() > 3 ? std::string(trimSpace(f[3])) : "";
        if (st.nodes == "None assigned" || st.nodes == "(null)")
            st.nodes.clear();
        std::vector<int> tasks;
        if (!rest.empty() && rest.front() == '[') {
            auto close = rest.find(']');
            auto body = rest.substr(1, close == std::string::npos ? std::string::npos : close - 1);
            body = body.substr(0, body.find('%'));
            for (const auto& part : split(body, ',')) {
                const auto dash = part.find('-');
                auto a = toNumber(part.substr(0, dash));
                auto b = dash == std::string::npos ? a : toNumber(part.substr(dash + 1));
                if (!a || !b || *b < *a || *b - *a > 1000000)
                    continue;
                for (long t = *a; t <= *b; ++t)
                    tasks.push_back(static_cast<int>(t));
            }
        } else if (auto t = toNumber(rest)) {
            tasks.push_back(static_cast<int>(*t));
        }
        for (int t : tasks) {
            st.task = t;
            result[t] = st;
        }
    }
    return result;
}

TaskPhase taskPhase(const std::string& state)
{
    static const std::set<std::string> pending = {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
                                                  "RESIZING", "SUSPENDED", "STOPPED", "RESV_DEL_HOLD"};
    static const std::set<std::string> failed = {"FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
                                                 "BOOT_FAIL", "DEADLINE", "REVOKED", "SPECIAL_EXIT"};
    if (state == "COMPLETED")
        return TaskPhase::Succeeded;
    if (pending.count(state))
        return TaskPhase::Pending;
    if (failed.count(state))
        return TaskPhase::Failed;
    return TaskPhase::Running;  // RUNNING, COMPLETING, STAGE_OUT, SIGNALING, and anything newer
}

std::string phaseName(TaskPhase p)
{
    switch (p) {
    case TaskPhase::Pending: return "pending";
    case TaskPhase::Running: return "running";
    case TaskPhase::Succeeded: return "done";
    case TaskPhase::Failed: return "failed";
    }
    return "?";
}

nlohmann::json slurmPlacement(const std::function<const char*(const char*)>& env)
{
    const char* job = env("SLURM_JOB_ID");
    if (!job || !*job)
        return nullptr;
    nlohmann::json j = nlohmann::json::object();
    auto put = [&](const char* key, const char* var) {
        const char* v = env(var);
        j[key] = v ? nlohmann::json(v) : nlohmann::json();
    };
    put("job_id", "SLURM_JOB_ID");
    put("array_job_id", "SLURM_ARRAY_JOB_ID");
    put("array_task_id", "SLURM_ARRAY_TASK_ID");
    put("node", "SLURMD_NODENAME");
    put("partition", "SLURM_JOB_PARTITION");
    put("cluster", "SLURM_CLUSTER_NAME");
    put("cuda_visible_devices", "CUDA_VISIBLE_DEVICES");
    put("job_gpus", "SLURM_JOB_GPUS");
    return j;
}

}  // namespace kbx
