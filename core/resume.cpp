// SPDX-License-Identifier: MIT
#include "resume.h"

#include "query_engine.h"
#include "source.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace kbx {
namespace {

std::string readSmall(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

using DoneKey = std::tuple<std::string, std::string, std::string, std::int64_t>;  // task, code sha256, method, round

}  // namespace

std::string thisHost()
{
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return buf;
}

bool kbxProcessAlive(std::int64_t pid)
{
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM))
        return false;
    const auto proc = std::filesystem::path("/proc") / std::to_string(pid);
    const auto stat = readSmall(proc / "stat");  // "pid (comm) S ..."
    const auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size())
        return false;  // gone meanwhile
    if (stat[close + 2] == 'Z' || stat[close + 2] == 'X')
        return false;  // a zombie: dead, not yet reaped
    // The pid may have been reused by another program since: only a kbx counts.
    return stat.substr(open + 1, close - open - 1).starts_with("kbx");
}

ResumePlan planResume(const Store& store, const std::vector<Submission>& submissions, const ResumeKey& key)
{
    if (key.device.empty() || key.device.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
        throw std::invalid_argument(fmt::format("--resume: device '{}' is not a device name", key.device));
    ResumePlan plan;
    // Evaluations of these tasks on this device, from any run (imported runs have device 'imported').
    std::set<std::string> tasks;
    for (const auto& s : submissions)
        tasks.insert(s.taskId);
    std::set<DoneKey> done;
    for (const auto& r : query::evaluatedWork(store, key.device, tasks))
        done.emplace(r["task"].get<std::string>(), r["hash"].get<std::string>(), r["method"].get<std::string>(), r["round"].get<std::int64_t>());
    for (const auto& s : submissions) {
        DoneKey k{s.taskId, sha256Hex(s.code), s.method.value_or(key.method), s.round.value_or(key.round)};
        (done.count(k) ? plan.done : plan.todo).push_back(s);
    }

    // Unfinished runs of the same work (source, default method and round, device), newest first.
    const auto runs = query::runningRuns(store, key.device);
    const auto host = thisHost();
    for (const auto& r : runs) {
        UnfinishedRun u;
        u.id = r["id"].get<std::int64_t>();
        u.startedAt = r["started_at"].get<std::string>();
        u.secretSeed = r["secret_seed"].get<std::int64_t>();
        u.evaluations = static_cast<int>(r["evaluations"].get<std::int64_t>());
        u.host = r["host"].is_string() ? r["host"].get<std::string>() : "";
        auto seeds = nlohmann::json::parse(r["public_seeds"].get<std::string>(), nullptr, false);
        if (seeds.is_array())
            for (const auto& x : seeds)
                if (x.is_number_integer())
                    u.publicSeeds.push_back(x.get<std::int64_t>());
        u.args = nlohmann::json::parse(r["args"].get<std::string>(), nullptr, false);
        if (!u.args.is_object())
            continue;  // not a kbx eval run (e.g. tasks --check keeps other args)
        const bool sameSource = u.args.contains("source_path") && u.args["source_path"].is_string()
                                    ? u.args["source_path"].get<std::string>() == key.sourcePath
                                    : u.args.value("source", std::string()) == key.source;
        if (!sameSource || u.args.value("method", std::string()) != key.method || u.args.value("round", -1) != key.round)
            continue;
        u.pid = u.args.value("pid", std::int64_t(0));
        u.alive = u.host == host && kbxProcessAlive(u.pid);
        (u.alive ? plan.inProgress : plan.interrupted).push_back(std::move(u));
    }
    return plan;
}

int markInterrupted(Store& store, const ResumePlan& plan)
{
    int n = 0;
    for (const auto& u : plan.interrupted)
        n += store.markRunInterrupted(u.id);
    return n;
}

}  // namespace kbx
