// SPDX-License-Identifier: MIT
#pragma once
// The read-query layer: every read of a result database that the workbench's models, the `kbx`
// command line (kbx show) and the Python module make, as typed functions over kbx::Store (issue 25).
// Its other parts: core/query_reports.h (what the reports, the analysis, rounds, their provenance and
// the Slurm driver read; the counting rule's SQL) and core/query_engine.h (what the evaluation engine
// reads). SQL lives in these files and in the store (core/store*: schema, writes, the derived tables
// in store_derived, kbx merge in store_merge) only; every other file of core/, the models, the CLI and
// the Python module hold none (tests/core/sql_placement_test.cpp fails on SQL elsewhere in core/,
// models/, app/ and widgets/).
//
// Every function reads through the store it is given and throws StoreError on a database error.
// The models call them on worker threads, each query with a store of its own (OpenMode::ReadOnly)
// and a cancel flag (Store::setCancelFlag).

#include "analysis.h"
#include "store.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kbx::query {

// ---- one evaluation -----------------------------------------------------------------------------

/// One row of the view evaluation_rows: every column, the nullable ones optional.
struct EvaluationRow {
    std::int64_t id = 0;
    std::int64_t runId = 0;
    std::string taskId;
    std::string category;
    std::string method;
    int round = 0;
    std::string device;  ///< runs.device: cpu | cuda | imported
    std::string gpu;     ///< the GPU's name, "CPU (Triton interpreter)", or an imported run's GPU
    std::string verdict;
    bool callOk = false;
    bool exeOk = false;
    std::string stage;   ///< pass | call | exe
    std::optional<std::string> failureClass;
    std::optional<std::string> manualClass;
    std::optional<std::string> manualNote;
    std::optional<std::string> failureDetail;
    std::int64_t candidateId = 0;
    std::int64_t submissionId = 0;
    std::string startedAt;
    std::string finishedAt;
    bool imported = false;
    std::optional<std::string> protocol;  ///< contract | strict; unset: stored before tiers
    std::optional<int> extCases;
    std::optional<int> extPassed;
    std::optional<std::string> extFailureClass;
    std::optional<bool> correctExt;  ///< correct including the extended tier, where known
};

/// The row as the view gives it, by column name (integers, text, null): `kbx show --json`.
nlohmann::json toJson(const EvaluationRow& row);

/// One case of an evaluation (table case_results).
struct CaseResult {
    int index = 0;
    std::string name;
    std::string status;  ///< pass | fail | error | skipped
    std::optional<std::string> failureClass;
    std::optional<std::string> evidence;  ///< JSON text
    std::string tier;                     ///< contract | extended
};

/// One perf shape of an evaluation (table timings).
struct Timing {
    std::int64_t id = 0;
    std::int64_t evaluationId = 0;
    std::string shape;
    std::optional<double> candidateMs;  ///< median; unset where the shape failed
    std::optional<double> baselineMs;
    std::optional<std::string> samples;  ///< JSON text (raw samples, summaries, roofline, ...)
};

/// Everything stored about one evaluation: its row, evidence, code, submission, run, cases and timings.
struct Evaluation {
    EvaluationRow row;
    std::string evidence;      ///< evaluations.evidence (JSON text)
    std::string stageSeconds;  ///< evaluations.stage_seconds (JSON text)
    int taxonomyVersion = 0;
    std::string code;
    std::string codeHash;
    std::optional<std::string> origin;  ///< the submission's origin (file:line, record)
    std::string publicSeeds;            ///< runs.public_seeds (JSON text)
    std::int64_t secretSeed = 0;
    std::vector<CaseResult> cases;  ///< by index
    std::vector<Timing> timings;    ///< in the order timed
};

/// The evaluation `id`, or nothing when there is none.
std::optional<Evaluation> loadEvaluation(const Store& store, std::int64_t id);

/// The ids of a run's evaluations, ascending.
std::vector<std::int64_t> evaluationIdsOfRun(const Store& store, std::int64_t runId);

/// Manual labels over the whole database: how many, and how many agree with the automatic class
/// ("pass" agrees with a passing verdict).
struct LabelAgreement {
    int labelled = 0;
    int agree = 0;
};
LabelAgreement labelAgreement(const Store& store);

/// Speedup of every timed, passing evaluation (the reports' rule, kbx_speedup): id -> (speedup,
/// shapes counted).
std::unordered_map<std::int64_t, std::pair<double, int>> speedups(const Store& store);

/// Evaluations in the database (every run).
std::int64_t evaluationCount(const Store& store);

// ---- the Results table (query_list.cpp) -----------------------------------------------------------

/// What the Results table shows; empty strings and unset values mean "any".
struct EvaluationFilter {
    std::string method;
    std::optional<std::int64_t> round;
    std::string gpu;  ///< as the view's gpu column
    std::string category;
    std::string stage;                        ///< pass | call | exe
    std::optional<std::string> failureClass;  ///< "" = no failure class (passed)
    std::string text;                         ///< substring of task, method, class or detail
    std::int64_t runId = 0;                   ///< 0 = every run
    std::string taskId;                       ///< exactly this task
    /// Only the evaluations the reports count (countedEvaluationsSql, core/query_reports.h).
    bool countedOnly = false;
};

/// The Results table's columns, in its order.
enum class Column { Id, Task, Method, Round, Gpu, Verdict, Stage, FailureClass, ManualClass, Finished, Extended, Run, Speedup, Detail, Count };

/// One line of the Results table.
struct ListedEvaluation {
    std::int64_t id = 0;
    std::string taskId;
    std::string method;
    std::int64_t round = 0;
    std::string gpu;
    std::string verdict;
    std::string stage;
    std::optional<std::string> failureClass;
    std::optional<std::string> manualClass;
    std::string finishedAt;
    std::optional<std::string> extended;  ///< "passed/run" of the extended tier, "" where none ran
    std::int64_t runId = 0;
    std::optional<double> speedup;  ///< passing, timed evaluations (the reports' rule)
    std::optional<std::string> detail;  ///< failure detail: its first 300 characters in listEvaluations, whole otherwise
    SqlValue key;  ///< the value of the sort column's key (keyset reading), listEvaluations only
};

/// Which rows of the sorted, filtered table to read.
struct Window {
    Column sort = Column::Id;
    bool descending = false;
    /// Read in the opposite order (the rows still come back in the table's order): the table's end is
    /// then as near as its start.
    bool reverse = false;
    /// Rows strictly after this (key, id) in reading order (keyset paging).
    std::optional<std::pair<SqlValue, std::int64_t>> after;
    int limit = 256;
    std::int64_t offset = 0;  ///< rows skipped in reading order
};

/// Rows matching the filter.
std::int64_t countEvaluations(const Store& store, const EvaluationFilter& filter);
/// The window's rows, in the table's order.
std::vector<ListedEvaluation> listEvaluations(const Store& store, const EvaluationFilter& filter, const Window& window);
/// Every row matching the filter, sorted like the table, whole failure details (the CSV export).
void eachEvaluation(const Store& store, const EvaluationFilter& filter, Column sort, bool descending,
                    const std::function<void(const ListedEvaluation&)>& fn);
/// The evaluations `ids` that exist, in id order, whole failure details.
std::vector<ListedEvaluation> evaluationsById(const Store& store, const std::vector<std::int64_t>& ids);

// ---- filters' choices ------------------------------------------------------------------------------

std::vector<std::string> methodNames(const Store& store);        ///< every method, by name
std::vector<std::int64_t> submissionRounds(const Store& store);  ///< distinct rounds of the submissions
/// The GPU of every run (its first device's name on cuda, else the CPU), distinct, sorted.
std::vector<std::string> runGpus(const Store& store);
/// The categories of the evaluations' tasks, distinct, sorted.
std::vector<std::string> evaluatedCategories(const Store& store);
/// The gpu column of every run with evaluations, distinct, sorted (the view's, imported runs included).
std::vector<std::string> evaluatedGpus(const Store& store);

/// One run (table runs) with its number of evaluations.
struct Run {
    std::int64_t id = 0;
    std::string startedAt;
    std::optional<std::string> finishedAt;
    std::string status;
    std::string device;
    std::string provenance;   ///< JSON text
    std::string publicSeeds;  ///< JSON text
    std::int64_t secretSeed = 0;
    std::string args;         ///< JSON text
    std::int64_t evaluations = 0;
    /// Where it ran, for people: the first device's name on cuda, "imported GPU", or "CPU".
    std::string where;
};
/// Every run, ascending ids.
std::vector<Run> listRuns(const Store& store);

// ---- counts per task -----------------------------------------------------------------------------

struct TaskCounts {
    int evaluated = 0;
    int callOk = 0;
    int passed = 0;
};
/// Per task, the evaluations the reports count (countedEvaluationsSql, core/query_reports.h) among
/// those of the method, round and gpu given (empty / unset: any).
std::map<std::string, TaskCounts> countedByTask(const Store& store, const std::string& method, std::optional<int> round,
                                                const std::string& gpu);

/// Per task over the whole database (kbx.Database.tasks()): the latest evaluation of every submission
/// per GPU counted (n, call_ok, exe_ok, passed), the methods and GPUs among them, and every evaluation.
struct TaskSummary {
    std::string taskId;
    std::string category;
    std::int64_t n = 0;
    std::int64_t callOk = 0;
    std::int64_t exeOk = 0;
    std::int64_t passed = 0;
    std::vector<std::string> methods;  ///< sorted
    std::vector<std::string> gpus;     ///< sorted
    std::int64_t evaluations = 0;
};
std::vector<TaskSummary> taskSummaries(const Store& store);

// ---- the Python module's tables --------------------------------------------------------------------

/// The view's rows under the filters (and filters.tasks), by id; latest: only the latest evaluation of
/// every submission among them.
std::vector<EvaluationRow> evaluationRows(const Store& store, const analysis::Filters& filters, bool latest);

/// A timings row with its evaluation's task, method, round, GPU and verdict.
struct TimedShape {
    Timing timing;
    std::string taskId;
    std::string category;
    std::string method;
    int round = 0;
    std::string gpu;
    std::string verdict;
};
/// Every timings row (or those of one evaluation), by evaluation and order timed; samples read only
/// when asked for.
std::vector<TimedShape> timedShapes(const Store& store, std::optional<std::int64_t> evaluationId, bool samples);

/// The outcome of a counted evaluation (the latest of every submission per GPU under the filters).
struct Outcome {
    std::string gpu;
    int round = 0;
    std::string category;
    std::string method;
    std::string taskId;
    bool exeOk = false;
};
std::vector<Outcome> countedOutcomes(const Store& store, const analysis::Filters& filters);

/// One kbx import (table imports).
struct Import {
    std::int64_t id = 0;
    std::string importedAt;
    std::string format;
    std::string source;
    std::string sha256;
    std::string options;  ///< JSON text
    std::string files;    ///< JSON text
    std::string notes;    ///< JSON text
};
std::vector<Import> listImports(const Store& store);

/// One golden eager timing of the seed (table golden_timings).
struct GoldenTiming {
    std::int64_t id = 0;
    std::int64_t importId = 0;
    std::string gpu;
    std::string task;  ///< the seed's stem
    std::optional<std::string> taskId;
    std::int64_t index = 0;
    std::string inputSize;  ///< JSON text
    double ms = 0;
    std::optional<double> gbs;
    std::optional<double> tflops;
    std::string file;
};
/// Those of the GPUs and tasks given (the seed's stem or "Category/stem"; empty: all), by GPU, task, index.
std::vector<GoldenTiming> listGoldenTimings(const Store& store, const std::vector<std::string>& gpus,
                                            const std::vector<std::string>& tasks);

/// One summary file of the seed (table seed_summaries).
struct SeedSummary {
    std::int64_t id = 0;
    std::int64_t importId = 0;
    std::string gpu;
    std::string method;
    std::int64_t round = 0;
    std::optional<std::int64_t> total;
    std::optional<std::int64_t> callPass;
    std::optional<std::int64_t> exePass;
    std::optional<std::int64_t> perfPass;
    std::optional<double> avgSpeedup;
    std::optional<double> avgSpeedupPerTask;
    std::string fields;  ///< JSON text
    std::string file;
};
std::vector<SeedSummary> listSeedSummaries(const Store& store);

}  // namespace kbx::query
