// SPDX-License-Identifier: MIT
#pragma once
// Figure datasets of the workbench (issue #4): computed from a kbx::Store, read through the query layer
// (core/query_reports.h) from the view evaluation_rows, its derived tables and the table timings.
// Plain C++20, no Qt.
//
// Counting rule (issue 24; the same as Store::report() and every view, table and figure): after the
// filters are applied, the latest evaluation of every submission on each device (GPU model, or the
// CPU interpreter) counts once. A submission is one (task's candidate code, method, round), so rounds
// are counted separately and a kernel evaluated on two devices counts once per device. The rule is
// defined once: countingRule() here gives its sentence, query::countedEvaluationsSql()
// (core/query_reports.h) its SQL. "n" below is the number of such evaluations. Speedups come from
// timings (baseline_ms / candidate_ms per perf shape, both > 0); an evaluation's speedup is the
// geometric mean over its shapes, and only correct evaluations (verdict pass) have one.

#include "interval.h"
#include "stats.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kbx {

class Store;
namespace stats {
struct Bundle;  // stats_tables.h
}

namespace analysis {

/// Empty vector = no restriction.
struct Filters {
    std::vector<std::string> methods;
    std::vector<int> rounds;
    std::vector<std::string> gpus;  ///< the view's gpu column, e.g. "NVIDIA H200" or "CPU (Triton interpreter)"
    std::vector<std::string> categories;
    /// Only these task ids (kbx report: the benchmark's own tasks unless --all-tasks); tasksLabel
    /// names the set in describe() and provenance ("benchmark (176)").
    std::vector<std::string> tasks;
    std::string tasksLabel;
    bool empty() const { return methods.empty() && rounds.empty() && gpus.empty() && categories.empty() && tasks.empty(); }
    /// One line for people and provenance, e.g. "method=a,b; round=1; gpu=all; category=all".
    std::string describe() const;
};

using kbx::Interval;  // core/interval.h
using stats::wilson;  // core/stats.h (kbx_stats)

struct Rate {
    int k = 0;
    int n = 0;
    double value() const { return n > 0 ? double(k) / double(n) : 0.0; }
    Interval ci() const { return wilson(k, n); }
};

/// One evaluation as the figures see it (the latest of its submission on its device under the filters).
struct Row {
    std::int64_t id = 0;
    std::int64_t runId = 0;
    std::int64_t submissionId = 0;
    std::int64_t candidateId = 0;
    std::string taskId;
    std::string category;
    std::string method;
    int round = 0;
    std::string gpu;
    bool pass = false;
    bool callOk = false;
    bool exeOk = false;
    std::optional<std::string> failureClass;
    std::optional<std::string> manualClass;
    /// The extended tier (issue 21): all its cases passed; unset where it did not run (no extended
    /// case, the contract tier failed, or an evaluation stored before tiers, when every case decided).
    std::optional<bool> extOk;
    std::optional<double> speedup;  ///< geometric mean of baseline/candidate over shapes; correct rows only
    /// Sums of the shapes' baseline (eager) and candidate medians behind `speedup`, for the seed's
    /// sum-of-times ratio; set exactly when speedup is.
    double baselineMsSum = 0;
    double candidateMsSum = 0;
};

/// The counted evaluations in compact form (issue 24, item 2: every table and figure over a million
/// evaluations in seconds). A Row's strings are interned in sorted dictionaries, so that grouping
/// by them is grouping by small integers, in the order of the strings (as a std::map of the strings
/// would). The dictionaries hold every value of the database (before the filters); `rows` holds the
/// counted evaluations under the filters, in the order they were given (loadFacts: by id).
struct Facts {
    std::vector<std::string> tasks;       ///< sorted, unique
    std::vector<std::string> categories;  ///< sorted, unique
    std::vector<std::string> methods;     ///< sorted, unique
    std::vector<std::string> gpus;        ///< sorted, unique
    std::vector<std::string> classes;     ///< failure classes, automatic and manual; sorted, unique
    struct Fact {
        std::int64_t id = 0;
        std::int64_t runId = 0;
        std::int64_t submissionId = 0;
        std::int64_t candidateId = 0;
        std::int32_t task = 0;      ///< index in tasks (the same for category, method, gpu)
        std::int32_t category = 0;
        std::int32_t method = 0;
        std::int32_t gpu = 0;
        int round = 0;
        std::int32_t failureClass = -1;  ///< index in classes; -1: none
        std::int32_t manualClass = -1;
        std::int8_t extOk = -1;          ///< Row::extOk: -1 unset, 0, 1
        bool pass = false;
        bool callOk = false;
        bool exeOk = false;
        bool timed = false;  ///< has a speedup (Row::speedup set)
        std::int32_t evaluations = 0;  ///< stored evaluations of its submission on its device (0: made from rows)
        /// The evidence's imported.perf_ok (the seed's perf stage; core/rounds): -1 none, else 1 when
        /// it is a non-zero number (true), 0 otherwise. -1 when made from rows.
        std::int8_t perfOk = -1;
        double speedup = 0;
        double baselineMsSum = 0;
        double candidateMsSum = 0;
    };
    std::vector<Fact> rows;
    /// Evaluations stored under the filters before the counting rule (every re-evaluation); 0 when
    /// made from rows (factsOf).
    std::size_t stored = 0;
    /// Evaluations stored per task of `tasks` (every filter but the task filter left out), from loadFacts.
    std::vector<std::int64_t> storedPerTask;
};

/// The counted evaluations under the filters (the counting rule), by id, with their speedups: the
/// same as loadRows() (read from the derived table counted_evaluations, core/store_derived.h).
Facts loadFacts(const Store& store, const Filters& filters);
/// The rows of facts (in their order) / facts of rows (interned; their order kept).
std::vector<Row> rowsOf(const Facts& facts);
Facts factsOf(const std::vector<Row>& rows);
/// Only the rows under the filters (the dictionaries and storedPerTask kept; `stored` summed again).
Facts filtered(const Facts& facts, const Filters& filters);
Facts filtered(Facts&& facts, const Filters& filters);

/// The values present in a database, for filter choosers.
struct Choices {
    std::vector<std::string> methods;
    std::vector<int> rounds;
    std::vector<std::string> gpus;
    std::vector<std::string> categories;
    std::vector<std::int64_t> runs;
};
Choices choices(const Store& store);
/// The choices of facts loaded without filters (runs: every run with an evaluation, from the store).
Choices choices(const Store& store, const Facts& all);

/// The counting rule in words, for footers, tooltips and provenance: "latest evaluation of every
/// submission (task code, method, round) per device".
const std::string& countingRule();

/// Loads the rows under the filters (the counting rule above), sorted by id.
std::vector<Row> loadRows(const Store& store, const Filters& filters);
/// There is one way to count (issue 24: the figures' former "latest per submission" pooled devices
/// and dropped a CPU run beside a GPU run); this spelling of loadRows() stays for existing callers.
enum class Latest { PerSubmissionAndGpu };
inline std::vector<Row> loadRows(const Store& store, const Filters& filters, Latest) { return loadRows(store, filters); }

// ---- datasets ---------------------------------------------------------------------------------

struct CorrectnessCell {
    Rate call;
    Rate exe;
};
/// Category x method. categories and methods are sorted; cells[ci][mi]; a cell with n = 0 has no data.
struct CorrectnessMatrix {
    std::vector<std::string> categories;
    std::vector<std::string> methods;
    std::vector<std::vector<CorrectnessCell>> cells;
    std::vector<CorrectnessCell> totals;  ///< per method over all categories
    bool empty() const { return categories.empty(); }
};
CorrectnessMatrix correctnessMatrix(const std::vector<Row>& rows);

/// Compile (call) vs correct (exe) per method, methods sorted.
struct MethodRates {
    std::string method;
    Rate call;
    Rate exe;
};
std::vector<MethodRates> compileVsCorrect(const std::vector<Row>& rows);

struct BoxStats {
    double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
    double lowerWhisker = 0, upperWhisker = 0;  ///< most extreme values within 1.5 IQR of the box
    std::vector<double> outliers;
};
/// Quantiles by linear interpolation (type 7, as numpy's default). values must not be empty.
double quantile(const std::vector<double>& sorted, double q);
BoxStats boxStats(std::vector<double> values);

/// Speedups of correct evaluations per method (sorted ascending). Methods without any timing are
/// listed with an empty vector; when no method has one, the whole figure has no timing data.
struct SpeedupSeries {
    std::string method;
    std::vector<double> speedups;
    int correct = 0;  ///< correct evaluations of the method (with or without timings)
    int total = 0;    ///< all evaluations of the method
};
std::vector<SpeedupSeries> speedups(const std::vector<Row>& rows);
bool hasTimings(const std::vector<SpeedupSeries>& s);

/// The p grid of fast_p: 10^(-1 + 2i/(points-1)), i = 0..points-1 (0.1 .. 10; with 41 points p = 1 is
/// grid point 20 exactly).
std::vector<double> logGrid(double lo = 0.1, double hi = 10.0, int points = 41);

/// fast_p per method: fraction of the method's evaluations that are correct AND have speedup > p.
struct FastPCurve {
    std::string method;
    int n = 0;
    std::vector<double> p;
    std::vector<double> fraction;
};
std::vector<FastPCurve> fastP(const std::vector<Row>& rows, const std::vector<double>& grid = logGrid());

/// Failure counts per group (category or method) and class. automatic: the stored class of failed
/// evaluations; reviewed (present when any row has a manual label): the class after manual review
/// (the manual class where there is one, "pass" labels removed; the automatic one elsewhere).
struct Taxonomy {
    std::vector<std::string> groups;   ///< sorted
    std::vector<std::string> classes;  ///< in taxonomy order, only classes that occur
    std::vector<std::vector<int>> automatic;  ///< [group][class]
    std::optional<std::vector<std::vector<int>>> reviewed;
    std::vector<int> evaluations;  ///< evaluations per group (the denominator)
    bool empty() const;
};
enum class GroupBy { Category, Method };
Taxonomy taxonomy(const std::vector<Row>& rows, GroupBy by);
Taxonomy taxonomy(const Facts& facts, GroupBy by);

/// Pass rate per round per method.
struct RoundPoint {
    int round = 0;
    Rate pass;
    Rate compile;                          ///< call_ok (the seed's compile rate)
    std::optional<double> geomeanSpeedup;  ///< over the round's timed correct kernels
    int timed = 0;
};
struct Trajectory {
    std::string method;
    std::string gpu;                 ///< the GPU of all its rows, "" when they come from several
    std::vector<RoundPoint> points;  ///< sorted by round
};
std::vector<Trajectory> roundTrajectories(const std::vector<Row>& rows);

/// Everything the figures need, computed at once (cheap once the rows are loaded).
struct Datasets {
    Filters filters;
    std::vector<std::int64_t> runs;  ///< runs the rows come from (only those: runs with no counted evaluation are not listed)
    std::size_t rowCount = 0;       ///< evaluations counted (countingRule())
    /// Evaluations in the database under the filters before the counting rule (every re-evaluation);
    /// set by compute(store, filters), 0 when computed from rows alone.
    std::size_t storedCount = 0;
    CorrectnessMatrix correctness;
    std::vector<MethodRates> compile;
    std::vector<SpeedupSeries> speedup;
    std::vector<FastPCurve> fastp;
    Taxonomy taxonomyByCategory;
    Taxonomy taxonomyByMethod;
    std::vector<Trajectory> rounds;
    /// The statistics of the analysis figures (per-GPU counting, stats_tables.h); set by
    /// compute(store, filters), null when computed from rows alone.
    std::shared_ptr<const stats::Bundle> stats;
};
Datasets compute(const std::vector<Row>& rows, const Filters& filters);
Datasets compute(const Facts& facts, const Filters& filters);
/// From the store: the facts under the filters, and with `statistics` the statistics bundle too
/// (Datasets::stats; the bootstrap CIs of every group: the costly part at a million evaluations).
Datasets compute(const Store& store, const Filters& filters, bool statistics = true);
/// From facts already loaded under `filters` (loadFacts or filtered()).
Datasets compute(const Store& store, const Facts& facts, const Filters& filters, bool statistics = true);

}  // namespace analysis
}  // namespace kbx
