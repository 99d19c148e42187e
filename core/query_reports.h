// SPDX-License-Identifier: MIT
#pragma once
// The read-query layer's part for the reports (issue 25: SQL lives in the query layer and the store):
// what core/analysis, core/rounds, core/stats_tables, the report tables and their provenance, and the
// Slurm driver's look at a shard read from a result database, as typed functions over kbx::Store. The
// counting rule's SQL is here too. The reads over every counted evaluation or timing (a million rows)
// stream each row to a callback; the row and its text (string_views into SQLite's row, no copies) are
// valid during the call only. The small reads return plain values.
//
// Tables named counted_evaluations, timing_rooflines and case_summaries are the derived tables of
// core/store_derived.h: the caller makes them readable first (derived::prepare).

#include "analysis.h"
#include "store.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kbx::query {

// ---- the counting rule -----------------------------------------------------------------------------

/// The counting rule (analysis::countingRule()) as SQL: a SELECT of one column, id, with the ids of
/// the evaluations that count (the latest, max(id), of every submission_id and gpu of the view
/// evaluation_rows). `where` is an SQL condition on the view's columns (e.g. "method = 'a'", empty
/// for all rows); as every filter of the views (method, round, task, category, GPU) is constant within
/// a submission on one device, filtering before or after picking the latest gives the same rows. Use
/// it as `JOIN (<countedEvaluationsSql()>) counted ON counted.id = v.id`.
std::string countedEvaluationsSql(const std::string& where = {});

/// The filters as an SQL condition on evaluation_rows' columns ("1" for none).
std::string filterSql(const analysis::Filters& filters);

// ---- the analysis's facts (core/analysis) ----------------------------------------------------------

/// The runs with an evaluation in the view evaluation_rows, ascending ids.
std::vector<std::int64_t> runsWithEvaluations(const Store& store);

/// Every method's name by its id.
std::unordered_map<std::int64_t, std::string> methodNamesById(const Store& store);

/// Rows of counted_evaluations.
std::size_t countedEvaluationCount(const Store& store);

/// One row of counted_evaluations as the analysis reads it.
struct CountedEvaluation {
    std::int64_t evaluationId = 0;
    std::int64_t runId = 0;
    std::int64_t submissionId = 0;
    std::int64_t candidateId = 0;
    std::int64_t methodId = 0;
    std::int64_t round = 0;
    std::optional<std::string_view> taskId;  ///< unset where it is not text (the row is not in the view)
    std::string_view gpu;                    ///< "" where it is not text
    std::string_view verdict;                ///< "" where it is not text
    bool callOk = false;
    bool exeOk = false;
    std::optional<std::string_view> failureClass;  ///< where it is text
    std::optional<std::int64_t> extCases;          ///< where it is a number
    std::optional<std::int64_t> extPassed;         ///< where it is a number
    std::int64_t evaluations = 0;                  ///< stored evaluations of its submission on its device
    /// The evidence's imported.perf_ok: unset where NULL, else whether it is a non-zero number.
    std::optional<bool> perfOk;
};
/// Every row of counted_evaluations, in the table's order.
void eachCountedEvaluation(const Store& store, const std::function<void(const CountedEvaluation&)>& fn);

/// A manual label's class (table manual_labels; unset where it is not text).
struct LabelClass {
    std::int64_t evaluationId = 0;
    std::optional<std::string> failureClass;
};
std::vector<LabelClass> manualLabelClasses(const Store& store);

/// Every timing with candidate_ms > 0 and baseline_ms > 0, by evaluation id and then in the order
/// stored (timings.id): fn(evaluation id, candidate ms, baseline ms).
void eachPositiveTiming(const Store& store, const std::function<void(std::int64_t, double, double)>& fn);

// ---- rounds (core/rounds) --------------------------------------------------------------------------

/// One record of an imported round-transition corpus (table round_transitions) with what its
/// evaluations say of the code.
struct RecordedTransition {
    std::string gpu;
    std::string method;
    std::string taskId;
    int fromRound = 0;
    int toRound = 0;
    std::string kind;  ///< the kind the corpus recorded ("" where none)
    std::string origin;
    /// Verdicts before and after: call_ok, exe_ok, perf_ok true where a non-zero number; the
    /// speedups where a number.
    bool beforeCallOk = false, beforeExeOk = false, beforePerfOk = false;
    std::optional<double> beforeSpeedup;
    bool afterCallOk = false, afterExeOk = false, afterPerfOk = false;
    std::optional<double> afterSpeedup;
    bool sameCode = false;  ///< both sides' submissions have the same candidate
    /// Each side's candidate where its evidence says the corpus kept the code ($.seed.code_kept).
    std::optional<std::int64_t> beforeCandidate, afterCandidate;
};
/// Every record, in the order imported.
std::vector<RecordedTransition> roundTransitions(const Store& store);

/// The runs of imported round-transition corpora (provenance format "corpus"), in the table's order.
std::vector<std::int64_t> corpusRunIds(const Store& store);

// ---- report tables (core/stats_tables, report_tables, report_hardware) -----------------------------

/// A golden eager timing with ms > 0 (table golden_timings), ordered by task, GPU, index.
struct GoldenMs {
    std::string gpu;
    std::string task;    ///< the seed's stem
    std::string taskId;  ///< "" where unknown
    int index = 0;
    std::string inputSize;  ///< JSON text
    double ms = 0;
};
std::vector<GoldenMs> positiveGoldenTimings(const Store& store);

/// One pass over the whole code-quality cache: the rows of the submissions `sortedIds` (ascending).
std::map<std::int64_t, CodeQualityRow> codeQualityAmong(const Store& store, const std::vector<std::int64_t>& sortedIds);

/// A GPU (the view's gpu column, "" where it is not text) and a method.
struct GpuMethod {
    std::string gpu;
    std::string method;
};
/// The distinct (GPU, method) of the evaluations of these runs (not empty).
std::vector<GpuMethod> gpuMethodsOfRuns(const Store& store, const std::vector<std::int64_t>& runIds);

/// One row of counted_evaluations with a protocol (evaluations stored with tiers), with its
/// case_summaries row, as the protocol table reads it.
struct CountedProtocol {
    std::int64_t evaluationId = 0;
    std::string_view protocol;
    /// No extended case ran (ext_cases NULL), or every one passed (ext_passed = ext_cases, numbers).
    bool extendedAllPassed = false;
    std::optional<std::string_view> extFailureClass;  ///< where it is text
    bool contractExeOk = false;                       ///< a non-zero number
    bool contractPass = false;                        ///< a non-zero number
    std::optional<std::string_view> contractClass;    ///< where it is text
    int seed0Cases = 0;                               ///< 0 where NULL
    int seed0Passed = 0;                              ///< 0 where NULL
    std::optional<std::string_view> contractFirst;    ///< where it is text
    std::optional<std::string_view> extendedFirst;    ///< where it is text
};
/// Every such row, in the order SQLite gives them.
void eachCountedProtocol(const Store& store, const std::function<void(const CountedProtocol&)>& fn);

/// One row of timing_rooflines: its candidate_ms as stored (any type) and its roofline object's text
/// (unset where it is not text).
struct TimingRoofline {
    std::int64_t evaluationId = 0;
    SqlValue candidateMs;
    std::optional<std::string_view> roofline;
};
/// Every row of timing_rooflines, in the order of the timings.
void eachTimingRoofline(const Store& store, const std::function<void(const TimingRoofline&)>& fn);

// ---- a report's provenance (core/report_provenance) ------------------------------------------------

/// The device of each of these runs (ascending ids, not empty) that exists.
std::map<std::int64_t, std::string> runDevices(const Store& store, const std::set<std::int64_t>& runIds);

/// Every evaluation with timings: fn(its run, its perf protocol or ""). First the counted ones (the
/// protocol from counted_evaluations), then those not counted among the runs `runIds` (ascending
/// ids, not empty; the protocol from their evidence).
void eachTimedEvaluationProtocol(const Store& store, const std::set<std::int64_t>& runIds,
                                 const std::function<void(std::int64_t, const std::string&)>& fn);

/// A run as a report's provenance lists it.
struct RunRecord {
    std::int64_t id = 0;
    std::string device;
    std::string startedAt;
    std::string provenance;  ///< JSON text
    std::string args;        ///< JSON text
};
/// These runs (ascending ids, not empty), ascending ids.
std::vector<RunRecord> runRecords(const Store& store, const std::set<std::int64_t>& runIds);

/// The smallest taxonomy version of the run's evaluations (above `above` where given), by the index
/// evaluations_run_taxonomy; unset where there is none.
std::optional<int> minTaxonomyVersion(const Store& store, std::int64_t runId, std::optional<int> above);

/// The distinct taxonomy versions of the evaluations of these runs (ascending ids, not empty), in one
/// pass over the evaluations (no index needed).
std::vector<int> taxonomyVersionsOfRuns(const Store& store, const std::set<std::int64_t>& runIds);

// ---- the Slurm driver (core/slurm_driver) ------------------------------------------------------------

/// A run of `kbx eval --shard I/N` in a shard's database: its status, node (the Slurm node, else the
/// host, where text) and evaluations.
struct ShardRun {
    std::string status;
    std::optional<std::string> node;
    std::optional<std::string> host;
    std::int64_t evaluations = 0;
    std::int64_t passed = 0;
};
/// The runs whose args say shard `shard`/`shards`.
std::vector<ShardRun> shardRuns(const Store& store, int shard, int shards);

}  // namespace kbx::query
