// SPDX-License-Identifier: MIT
#include "rounds.h"

#include "analysis.h"
#include "query_reports.h"
#include "store.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace kbx::rounds {
namespace {

/// A candidate id as JSON text ("null" where unset), as a key's part.
std::string candidateKey(const std::optional<std::int64_t>& id)
{
    return id ? std::to_string(*id) : std::string("null");
}

}  // namespace

std::vector<std::string> transitionKinds(const State& b, const State& a)
{
    std::vector<std::string> k;
    if (!b.exeOk && a.exeOk)
        k.emplace_back("exe_fail_to_pass");
    if (!b.callOk && a.callOk)
        k.emplace_back("call_fail_to_pass");
    if (!b.perfOk && a.perfOk)
        k.emplace_back("perf_ok_newly");
    if (b.callOk && !a.callOk)
        k.emplace_back("regression_call");
    if (b.exeOk && !a.exeOk)
        k.emplace_back("regression_exe");
    if (b.perfOk && !a.perfOk)
        k.emplace_back("regression_perf");
    if (b.perfOk && a.perfOk && b.speedup && a.speedup) {
        if (*a.speedup > *b.speedup)
            k.emplace_back("speedup_increase");
        else if (*a.speedup < *b.speedup)
            k.emplace_back("speedup_decrease");
    }
    return k;
}

std::string kindString(const std::vector<std::string>& kinds)
{
    if (kinds.empty())
        return "unchanged";
    std::string s;
    for (const auto& k : kinds)
        s += (s.empty() ? "" : ",") + k;
    return s;
}

std::vector<std::string> splitKinds(const std::string& kind)
{
    std::vector<std::string> out;
    std::stringstream ss(kind);
    std::string part;
    while (std::getline(ss, part, ',')) {
        part.erase(0, part.find_first_not_of(" \t"));
        part.erase(part.find_last_not_of(" \t") + 1);
        if (!part.empty() && part != "unchanged")
            out.push_back(part);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool sameKinds(const std::string& a, const std::string& b) { return splitKinds(a) == splitKinds(b); }

std::vector<Transition> loadTransitions(const Store& store)
{
    return loadTransitions(store, analysis::loadFacts(store, {}));
}

std::vector<Transition> loadTransitions(const Store& store, const analysis::Facts& all)
{
    std::vector<Transition> out;
    std::set<std::string> seenImported;
    // (a) imported corpus records, with the kind they recorded.
    for (auto& r : query::roundTransitions(store)) {
        Transition t;
        t.gpu = std::move(r.gpu);
        t.method = std::move(r.method);
        t.taskId = std::move(r.taskId);
        t.fromRound = r.fromRound;
        t.toRound = r.toRound;
        t.before = {r.beforeCallOk, r.beforeExeOk, r.beforePerfOk, r.beforeSpeedup};
        t.after = {r.afterCallOk, r.afterExeOk, r.afterPerfOk, r.afterSpeedup};
        t.kinds = transitionKinds(t.before, t.after);
        if (!r.kind.empty())
            t.recordedKind = r.kind;
        t.origin = std::move(r.origin);
        t.sameCode = r.sameCode;
        // The same record imported twice (a corpus file and its subset, imported one by one): the
        // same task, rounds and code on both sides (where the corpus kept the code; a placeholder
        // names its source file, so it is left out of the key), the same verdicts: one transition.
        const auto key =
            fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}{}{}{}{}{}", t.gpu, t.method, t.taskId, t.fromRound, t.toRound,
                        candidateKey(r.beforeCandidate), candidateKey(r.afterCandidate), t.before.callOk,
                        t.before.exeOk, t.before.perfOk, t.after.callOk, t.after.exeOk, t.after.perfOk);
        if (!seenImported.insert(key).second)
            continue;
        out.push_back(std::move(t));
    }
    // (b) consecutive rounds of the same task, method and GPU among the other evaluations: the latest
    // evaluation of each (gpu, method, task, round), which is the latest of its counted evaluations
    // (each submission's latest on the GPU); left out when it belongs to an imported corpus.
    std::set<std::int64_t> corpus;
    for (auto id : query::corpusRunIds(store))
        corpus.insert(id);
    using Key = std::tuple<std::int32_t, std::int32_t, std::int32_t>;  // gpu, method, task
    std::map<Key, std::map<int, std::uint32_t>> latest;
    for (std::size_t i = 0; i < all.rows.size(); ++i) {
        const auto& r = all.rows[i];
        auto [slot, fresh] = latest[{r.gpu, r.method, r.task}].try_emplace(r.round, std::uint32_t(i));
        if (!fresh && all.rows[slot->second].id < r.id)
            slot->second = std::uint32_t(i);
    }
    struct Point {
        std::int64_t id;
        std::int64_t candidate;
        State state;
    };
    for (const auto& [key, byRound] : latest) {
        std::map<int, Point> points;
        for (const auto& [round, i] : byRound) {
            const auto& r = all.rows[i];
            if (corpus.count(r.runId))
                continue;
            State s;
            s.callOk = r.callOk;
            s.exeOk = s.callOk && r.exeOk && r.pass;
            // not_triton_kernel passes exe in the seed's sense but is no correct Triton kernel: count the verdict.
            if (r.timed && s.exeOk)
                s.speedup = r.speedup;
            s.perfOk = r.perfOk < 0 ? (s.exeOk && s.speedup.has_value()) : (s.exeOk && r.perfOk == 1);
            if (!s.perfOk)
                s.speedup.reset();
            points[round] = {r.id, r.candidateId, s};
        }
        for (const auto& [round, p] : points) {
            auto next = points.find(round + 1);
            if (next == points.end())
                continue;
            Transition t;
            t.gpu = all.gpus[std::size_t(std::get<0>(key))];
            t.method = all.methods[std::size_t(std::get<1>(key))];
            t.taskId = all.tasks[std::size_t(std::get<2>(key))];
            t.fromRound = round;
            t.toRound = round + 1;
            t.before = p.state;
            t.after = next->second.state;
            t.kinds = transitionKinds(t.before, t.after);
            t.origin = fmt::format("evaluations {} -> {}", p.id, next->second.id);
            t.sameCode = p.candidate == next->second.candidate;
            out.push_back(std::move(t));
        }
    }
    return out;
}

RoundAnalysis analyseRounds(const Store& store, const std::vector<std::string>& onlyTasks)
{
    return analyseRounds(store, analysis::loadFacts(store, {}), onlyTasks);
}

RoundAnalysis analyseRounds(const Store& store, const analysis::Facts& all, const std::vector<std::string>& onlyTasks)
{
    return analyseRounds(all, loadTransitions(store, all), onlyTasks);
}

RoundAnalysis analyseRounds(const Store& store, const std::vector<Transition>& transitions, const std::vector<std::string>& onlyTasks)
{
    return analyseRounds(analysis::loadFacts(store, {}), transitions, onlyTasks);
}

RoundAnalysis analyseRounds(const analysis::Facts& all, const std::vector<Transition>& transitions, const std::vector<std::string>& onlyTasks)
{
    RoundAnalysis out;
    const std::set<std::string> only(onlyTasks.begin(), onlyTasks.end());
    std::vector<char> taskOk(all.tasks.size(), 1);
    if (!only.empty())
        for (std::size_t t = 0; t < all.tasks.size(); ++t)
            taskOk[t] = only.count(all.tasks[t]) ? 1 : 0;
    struct Acc {
        RoundRow row;
        double sum = 0, logSum = 0;
    };
    // Per (gpu, method, round) over the counted evaluations: counts, and the speedups of the timed
    // correct ones summed in the order of (submission, GPU), as the SQL this replaces read them.
    std::map<std::tuple<std::int32_t, std::int32_t, int>, Acc> rows;
    std::vector<std::uint32_t> timed;
    for (std::size_t i = 0; i < all.rows.size(); ++i) {
        const auto& r = all.rows[i];
        if (!taskOk[std::size_t(r.task)])
            continue;
        auto& a = rows[{r.gpu, r.method, r.round}];
        a.row.n += 1;
        a.row.callOk += r.callOk;
        a.row.exeOk += r.exeOk;
        if (r.pass && r.timed)
            timed.push_back(std::uint32_t(i));
    }
    std::sort(timed.begin(), timed.end(), [&](std::uint32_t x, std::uint32_t y) {
        const auto &a = all.rows[x], &b = all.rows[y];
        return a.submissionId != b.submissionId ? a.submissionId < b.submissionId : a.gpu < b.gpu;
    });
    for (auto i : timed) {
        const auto& r = all.rows[i];
        auto& a = rows[{r.gpu, r.method, r.round}];
        a.row.timed += 1;
        a.sum += r.speedup;
        a.logSum += std::log(r.speedup);
    }
    for (auto& [key, a] : rows) {
        a.row.gpu = all.gpus[std::size_t(std::get<0>(key))];
        a.row.method = all.methods[std::size_t(std::get<1>(key))];
        a.row.round = std::get<2>(key);
        if (a.row.timed) {
            a.row.meanSpeedup = a.sum / a.row.timed;
            a.row.geoMeanSpeedup = std::exp(a.logSum / a.row.timed);
        }
        out.rounds.push_back(a.row);
    }
    std::map<std::tuple<std::string, std::string, int, int>, TransitionCounts> counts;
    for (const auto& t : transitions) {
        if (!only.empty() && !only.count(t.taskId))
            continue;
        auto& c = counts[{t.gpu, t.method, t.fromRound, t.toRound}];
        c.gpu = t.gpu;
        c.method = t.method;
        c.fromRound = t.fromRound;
        c.toRound = t.toRound;
        c.total += 1;
        if (t.kinds.empty())
            c.kinds["unchanged"] += 1;
        for (const auto& k : t.kinds) {
            c.kinds[k] += 1;
            if (t.sameCode && k.starts_with("speedup_"))
                c.sameCodeSpeedupChanges += 1;
        }
        if (t.recordedKind) {
            c.recorded += 1;
            out.recorded += 1;
            if (t.agrees()) {
                c.agree += 1;
                out.agree += 1;
            } else {
                out.disagreements.push_back(t);
            }
        }
    }
    for (auto& [key, c] : counts)
        out.transitions.push_back(std::move(c));
    return out;
}

}  // namespace kbx::rounds
