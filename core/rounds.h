// SPDX-License-Identifier: MIT
#pragma once
// Round analysis: per-round compile/correct rates and speedups, and round-to-round transitions of the
// same task (method, GPU) with the kinds the seed's corpus uses.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbx {

class Store;

namespace analysis {
struct Facts;
}

namespace rounds {

/// A candidate's verdict as the seed records it. perfOk: timed (the seed: perf stage passed after a
/// correct exe); speedup: the seed's speedup over eager (or ours), when timed.
struct State {
    bool callOk = false;
    bool exeOk = false;
    bool perfOk = false;
    std::optional<double> speedup;
};

/// The kinds of a transition, in the seed corpus's order: exe_fail_to_pass, call_fail_to_pass,
/// perf_ok_newly, regression_call, regression_exe, regression_perf, speedup_increase,
/// speedup_decrease (both timed, speedups differ). Empty when nothing changed.
std::vector<std::string> transitionKinds(const State& before, const State& after);
/// Comma-joined kinds as the corpus writes them; "unchanged" for none.
std::string kindString(const std::vector<std::string>& kinds);
/// Splits a kind field ("a,b") into its sorted parts; "" and "unchanged" give none.
std::vector<std::string> splitKinds(const std::string& kind);
/// The same set of kinds, whatever the order.
bool sameKinds(const std::string& a, const std::string& b);

struct Transition {
    std::string gpu;
    std::string method;
    std::string taskId;
    int fromRound = 0;
    int toRound = 0;
    State before;
    State after;
    std::vector<std::string> kinds;            ///< computed from before/after
    std::optional<std::string> recordedKind;   ///< the corpus record's own kind field (imported corpora)
    std::string origin;                        ///< "file:line" for imported records, else "evaluations a -> b"
    bool sameCode = false;                     ///< before and after are the same candidate code (a speedup change is then timing noise)
    bool agrees() const { return !recordedKind || sameKinds(*recordedKind, kindString(kinds)); }
};

struct RoundRow {
    std::string gpu;
    std::string method;
    int round = 0;
    int n = 0;
    int callOk = 0;
    int exeOk = 0;
    int timed = 0;                  ///< correct evaluations with a speedup
    double meanSpeedup = 0;         ///< arithmetic mean over the timed ones (0 when none)
    double geoMeanSpeedup = 0;      ///< geometric mean over the timed ones (0 when none)
};

struct TransitionCounts {
    std::string gpu;
    std::string method;
    int fromRound = 0;
    int toRound = 0;
    int total = 0;
    std::map<std::string, int> kinds;  ///< single kinds (a transition may count under several); "unchanged" too
    int sameCodeSpeedupChanges = 0;    ///< speedup_increase/decrease with unchanged code: re-timing, not optimisation
    int recorded = 0;                  ///< transitions with a recorded kind
    int agree = 0;                     ///< of which the computed kinds equal the recorded ones
};

struct RoundAnalysis {
    std::vector<RoundRow> rounds;                ///< sorted by gpu, method, round
    std::vector<TransitionCounts> transitions;   ///< sorted by gpu, method, from, to
    std::vector<Transition> disagreements;       ///< recorded kind != computed kinds
    int recorded = 0;
    int agree = 0;
};

/// Transitions in a database: every imported corpus record (with its recorded kind), plus, for
/// evaluations not imported from a corpus, each task's latest evaluation in round r against round
/// r+1 of the same method and GPU.
std::vector<Transition> loadTransitions(const Store& store);
/// The same from the counted evaluations already loaded without filters (analysis::loadFacts(store, {})):
/// the latest evaluation of a task's method, round and GPU is the latest of its counted ones.
std::vector<Transition> loadTransitions(const Store& store, const analysis::Facts& all);

/// Counts and rates per (gpu, method, round) and per transition. Round rates count the latest
/// evaluation of every submission per GPU, as `kbx report` does.
/// onlyTasks: when not empty, the rates and transitions of these task ids alone.
RoundAnalysis analyseRounds(const Store& store, const std::vector<std::string>& onlyTasks = {});
RoundAnalysis analyseRounds(const Store& store, const std::vector<Transition>& transitions, const std::vector<std::string>& onlyTasks = {});
/// From the counted evaluations already loaded without filters (analysis::loadFacts(store, {})).
RoundAnalysis analyseRounds(const Store& store, const analysis::Facts& all, const std::vector<std::string>& onlyTasks = {});
RoundAnalysis analyseRounds(const analysis::Facts& all, const std::vector<Transition>& transitions,
                            const std::vector<std::string>& onlyTasks = {});

}  // namespace rounds
}  // namespace kbx
