// SPDX-License-Identifier: MIT
#include "rounds.h"

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

std::optional<double> optDouble(const nlohmann::json& v)
{
    if (v.is_number())
        return v.get<double>();
    return std::nullopt;
}

bool truthy(const nlohmann::json& v) { return v.is_number() ? v.get<double>() != 0 : (v.is_boolean() && v.get<bool>()); }

/// Speedup per evaluation: geometric mean over its timing rows of baseline/candidate (both > 0), as
/// the figures compute it.
std::unordered_map<std::int64_t, double> speedups(const Store& store)
{
    struct Acc {
        double logSum = 0;
        double first = 0;
        int count = 0;
    };
    std::unordered_map<std::int64_t, Acc> acc;
    for (const auto& j : store.query("SELECT evaluation_id, candidate_ms, baseline_ms FROM timings WHERE candidate_ms > 0 AND baseline_ms > 0")) {
        const double s = j["baseline_ms"].get<double>() / j["candidate_ms"].get<double>();
        if (!std::isfinite(s) || s <= 0)
            continue;
        auto& a = acc[j["evaluation_id"].get<std::int64_t>()];
        a.logSum += std::log(s);
        a.first = a.count == 0 ? s : a.first;
        a.count += 1;
    }
    std::unordered_map<std::int64_t, double> out;
    for (const auto& [id, a] : acc)
        out[id] = a.count == 1 ? a.first : std::exp(a.logSum / a.count);
    return out;
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
    std::vector<Transition> out;
    std::set<std::string> seenImported;
    // (a) imported corpus records, with the kind they recorded.
    for (const auto& j : store.query(
             "SELECT t.gpu, t.method, t.task_id, t.from_round, t.to_round, t.kind, t.origin, t.before_call_ok, t.before_exe_ok, "
             "t.before_perf_ok, t.before_speedup, t.after_call_ok, t.after_exe_ok, t.after_perf_ok, t.after_speedup, "
             "(sb.candidate_id = sa.candidate_id) AS same_code, "
             "CASE WHEN json_extract(eb.evidence, '$.seed.code_kept') THEN sb.candidate_id END AS before_candidate, "
             "CASE WHEN json_extract(ea.evidence, '$.seed.code_kept') THEN sa.candidate_id END AS after_candidate "
             "FROM round_transitions t "
             "LEFT JOIN evaluations eb ON eb.id = t.before_evaluation_id LEFT JOIN submissions sb ON sb.id = eb.submission_id "
             "LEFT JOIN evaluations ea ON ea.id = t.after_evaluation_id LEFT JOIN submissions sa ON sa.id = ea.submission_id "
             "ORDER BY t.id")) {
        Transition t;
        t.gpu = j["gpu"].get<std::string>();
        t.method = j["method"].get<std::string>();
        t.taskId = j["task_id"].get<std::string>();
        t.fromRound = j["from_round"].get<int>();
        t.toRound = j["to_round"].get<int>();
        t.before = {truthy(j["before_call_ok"]), truthy(j["before_exe_ok"]), truthy(j["before_perf_ok"]), optDouble(j["before_speedup"])};
        t.after = {truthy(j["after_call_ok"]), truthy(j["after_exe_ok"]), truthy(j["after_perf_ok"]), optDouble(j["after_speedup"])};
        t.kinds = transitionKinds(t.before, t.after);
        if (!j["kind"].get<std::string>().empty())
            t.recordedKind = j["kind"].get<std::string>();
        t.origin = j["origin"].get<std::string>();
        t.sameCode = truthy(j["same_code"]);
        // The same record imported twice (a corpus file and its subset, imported one by one): the
        // same task, rounds and code on both sides (where the corpus kept the code; a placeholder
        // names its source file, so it is left out of the key), the same verdicts: one transition.
        const auto key = fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}{}{}{}{}{}", t.gpu, t.method, t.taskId, t.fromRound, t.toRound,
                                     j["before_candidate"].dump(), j["after_candidate"].dump(), t.before.callOk, t.before.exeOk,
                                     t.before.perfOk, t.after.callOk, t.after.exeOk, t.after.perfOk);
        if (!seenImported.insert(key).second)
            continue;
        out.push_back(std::move(t));
    }
    // (b) consecutive rounds of the same task, method and GPU among the other evaluations: the latest
    // evaluation of each (gpu, method, task, round).
    const auto sp = speedups(store);
    struct Point {
        std::int64_t id;
        std::int64_t candidate;
        State state;
    };
    std::map<std::tuple<std::string, std::string, std::string>, std::map<int, Point>> series;
    for (const auto& j : store.query(
             "SELECT v.id, v.candidate_id, v.gpu, v.method, v.task_id, v.round, v.verdict, v.call_ok, v.exe_ok, "
             "json_extract(e.evidence, '$.imported.perf_ok') AS perf_ok "
             "FROM evaluation_rows v JOIN evaluations e ON e.id = v.id JOIN runs r ON r.id = v.run_id "
             "JOIN (SELECT max(v2.id) AS id FROM evaluation_rows v2 GROUP BY v2.gpu, v2.method, v2.task_id, v2.round) latest ON latest.id = v.id "
             "WHERE coalesce(json_extract(r.provenance, '$.format'), '') <> 'corpus' ORDER BY v.id")) {
        const auto id = j["id"].get<std::int64_t>();
        State s;
        s.callOk = truthy(j["call_ok"]);
        s.exeOk = s.callOk && truthy(j["exe_ok"]) && j["verdict"] == "pass";
        // not_triton_kernel passes exe in the seed's sense but is no correct Triton kernel: count the verdict.
        if (auto it = sp.find(id); it != sp.end() && s.exeOk)
            s.speedup = it->second;
        s.perfOk = j["perf_ok"].is_null() ? (s.exeOk && s.speedup.has_value()) : (s.exeOk && truthy(j["perf_ok"]));
        if (!s.perfOk)
            s.speedup.reset();
        series[{j["gpu"].is_string() ? j["gpu"].get<std::string>() : "", j["method"].get<std::string>(), j["task_id"].get<std::string>()}]
            [j["round"].get<int>()] = {id, j["candidate_id"].get<std::int64_t>(), s};
    }
    for (const auto& [key, byRound] : series) {
        for (const auto& [round, p] : byRound) {
            auto next = byRound.find(round + 1);
            if (next == byRound.end())
                continue;
            Transition t;
            std::tie(t.gpu, t.method, t.taskId) = key;
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
    return analyseRounds(store, loadTransitions(store), onlyTasks);
}

RoundAnalysis analyseRounds(const Store& store, const std::vector<Transition>& transitions, const std::vector<std::string>& onlyTasks)
{
    RoundAnalysis out;
    const std::set<std::string> only(onlyTasks.begin(), onlyTasks.end());
    const auto sp = speedups(store);
    struct Acc {
        RoundRow row;
        double sum = 0, logSum = 0;
    };
    std::map<std::tuple<std::string, std::string, int>, Acc> rows;
    for (const auto& j : store.query(
             "SELECT v.id, v.gpu, v.method, v.round, v.verdict, v.call_ok, v.exe_ok, v.task_id FROM evaluation_rows v "
             "JOIN (SELECT max(id) AS id FROM evaluation_rows GROUP BY submission_id, gpu) latest ON latest.id = v.id")) {
        if (!only.empty() && !only.count(j["task_id"].get<std::string>()))
            continue;
        const std::string gpu = j["gpu"].is_string() ? j["gpu"].get<std::string>() : "";
        auto& a = rows[{gpu, j["method"].get<std::string>(), j["round"].get<int>()}];
        a.row.gpu = gpu;
        a.row.method = j["method"].get<std::string>();
        a.row.round = j["round"].get<int>();
        a.row.n += 1;
        a.row.callOk += truthy(j["call_ok"]);
        a.row.exeOk += truthy(j["exe_ok"]);
        if (j["verdict"] == "pass")
            if (auto it = sp.find(j["id"].get<std::int64_t>()); it != sp.end()) {
                a.row.timed += 1;
                a.sum += it->second;
                a.logSum += std::log(it->second);
            }
    }
    for (auto& [key, a] : rows) {
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
