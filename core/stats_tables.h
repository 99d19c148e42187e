// SPDX-License-Identifier: MIT
#pragma once
// The statistics behind `kbx report --table NAME` (issue #5) and the analysis figures: per-method
// rates with Wilson intervals, speedups over correct kernels (geometric mean with a bootstrap CI,
// arithmetic mean, the seed's sum-of-times ratio, median, fraction slower than eager, fast_p),
// category x method correctness with the all-method failure fraction, the binomial GLM deviance
// analysis, rescued vs persistently correct kernels over rounds, cross-hardware spread of the same
// kernel and of the seed's golden eager timings, slow fraction per GPU, failure taxonomy; and the
// tables built from them (report_render.h renders them: terminal, CSV, JSON, LaTeX booktabs), each with its
// provenance. Plain C++20, no Qt.
//
// Counting rule: after the filters, the latest evaluation of every submission on each GPU counts
// once (analysis::countingRule(), analysis::loadFacts); verdicts and speedups of different GPUs are never
// pooled. Every function over rows has a twin over analysis::Facts (the compact form the reports and
// figures use at a million evaluations); the rows' one interns them and calls it, so both count alike. A speedup is an evaluation's geometric mean of baseline/candidate over its perf shapes
// (analysis::Row::speedup); only correct evaluations (verdict pass) have one.

#include "analysis.h"
#include "glm.h"
#include "report_render.h"
#include "stats.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbx {

class Store;

namespace stats {

using analysis::Filters;
using analysis::Interval;
using analysis::Rate;
using analysis::Row;

/// speedupStats over the timed correct rows (their speedups and summed eager and kernel ms).
SpeedupStats speedupStats(const std::vector<const Row*>& rows);

// ---- Table 1: per GPU, method and round --------------------------------------------------------

struct QualityStats {
    int measured = 0;                 ///< correct kernels with a maintainability index
    std::optional<double> miMean;
    std::optional<double> ccMean;     ///< mean over kernels of their mean cyclomatic complexity
};

struct MethodSummary {
    std::string gpu;
    std::string method;
    int round = 0;
    int n = 0;
    Rate call;                 ///< compiles and runs
    Rate exe;                  ///< correct
    Rate exeGivenCall;         ///< correct among those that compile (k = exe, n = call)
    Rate exeExt;               ///< correct including the extended tier (issue 21)
    SpeedupStats speedup;
    std::vector<double> fastP; ///< per fastPThresholds(): correct with speedup > p, over n (needs timings)
    QualityStats quality;      ///< of the correct kernels
};
/// quality: maintainability index and mean cyclomatic complexity by submission id (may be empty).
struct QualityValues {
    std::optional<double> mi;
    std::optional<double> ccMean;
};
std::vector<MethodSummary> methodSummary(const std::vector<Row>& rows, const std::map<std::int64_t, QualityValues>& quality = {});
std::vector<MethodSummary> methodSummary(const analysis::Facts& facts, const std::map<std::int64_t, QualityValues>& quality = {});

// ---- category x method -------------------------------------------------------------------------

struct CategoryMethodCell {
    std::string gpu;
    int round = 0;
    std::string category;
    std::string method;  ///< "all methods" for the pooled row of a category
    Rate call;
    Rate exe;
};
/// Tasks of a category that every method of the (GPU, round) evaluated, and of those the tasks no
/// method solved (the paper's Fusion 72 %).
struct AllMethodFailure {
    std::string gpu;
    int round = 0;
    std::string category;
    int methods = 0;
    Rate failedByAll;  ///< k tasks failed by every method of n tasks every method attempted
};
struct CategoryMethod {
    std::vector<CategoryMethodCell> cells;  ///< sorted by gpu, round, category, method; pooled rows after each category's methods
    std::vector<AllMethodFailure> failures;
};
CategoryMethod categoryMethod(const std::vector<Row>& rows);
CategoryMethod categoryMethod(const analysis::Facts& facts);

// ---- deviance ------------------------------------------------------------------------------------

struct DevianceGroup {
    std::string gpu;
    int round = 0;
    glm::DevianceAnalysis analysis;
};
/// exe correctness ~ category + method, one analysis per (GPU, round).
std::vector<DevianceGroup> deviance(const std::vector<Row>& rows);
std::vector<DevianceGroup> deviance(const analysis::Facts& facts);

// ---- rescued vs persistent ----------------------------------------------------------------------

/// Per (GPU, method, task) over the rounds observed: rescued = not correct in the first round,
/// correct in the last; persistent = correct in every observed round. The speedup is the last
/// round's. Tasks seen in one round only are neither.
struct CohortStats {
    std::string gpu;
    std::string method;       ///< "all methods" for the pooled rows
    std::string cohort;       ///< rescued | persistent
    int kernels = 0;          ///< tasks in the cohort
    SpeedupStats speedup;     ///< of those with a speedup in the last round
};
/// Tasks rescued for one method and persistent for another on the same GPU: paired speedup ratio
/// rescued / persistent (geometric mean over pairs, bootstrap CI).
struct PairedCohorts {
    std::string gpu;
    int pairs = 0;            ///< (task, rescued method, persistent method) pairs with both speedups
    int tasks = 0;
    std::optional<double> geomeanRatio;
    std::optional<Interval> ci;
    int rescuedFaster = 0;    ///< pairs where the rescued kernel is faster
};
struct Rescued {
    std::vector<CohortStats> cohorts;
    std::vector<PairedCohorts> paired;
    int seriesWithRounds = 0;  ///< (gpu, method, task) series with two or more rounds
};
Rescued rescued(const std::vector<Row>& rows);
Rescued rescued(const analysis::Facts& facts);

// ---- cross-hardware --------------------------------------------------------------------------------

/// The same kernel (method, round, candidate code) timed on several GPUs.
struct CrossKernel {
    std::string method;
    int round = 0;
    std::string taskId;
    std::map<std::string, double> speedups;  ///< by GPU
    double spread = 1;                       ///< max / min speedup over GPUs
    std::string fastestGpu, slowestGpu;
};
struct SlowFraction {
    std::string gpu;
    std::string method;  ///< "all methods" for the pooled row
    Rate slower;         ///< timed correct kernels with speedup < 1 among the timed correct ones
};
/// One task's eager time across GPUs from imported golden timings: the sum over the input sizes
/// every GPU has (by position and input_size).
struct GoldenTask {
    std::string task;
    std::string taskId;
    int sizes = 0;
    std::map<std::string, double> ms;  ///< by GPU
    double spread = 1;                 ///< slowest / fastest GPU
    std::string fastestGpu, slowestGpu;
};
struct GoldenGpu {
    std::string gpu;
    int tasks = 0;
    std::optional<double> geomeanRelative;  ///< geometric mean of ms / fastest GPU's ms over its tasks
    int fastest = 0;                        ///< tasks where this GPU is the fastest
};
struct CrossHardware {
    std::vector<std::string> gpus;          ///< GPUs with timed kernels
    std::vector<CrossKernel> kernels;       ///< kernels timed on >= 2 GPUs
    std::optional<double> spreadMedian, spreadMax;
    std::vector<SlowFraction> slow;
    std::vector<std::string> goldenGpus;
    std::vector<GoldenTask> golden;         ///< tasks with golden timings on >= 2 GPUs
    std::vector<GoldenGpu> goldenPerGpu;
    std::optional<double> goldenSpreadMedian, goldenSpreadMax;
    std::vector<std::string> goldenByPosition;  ///< tasks whose input sizes the GPUs write differently: compared row by row
    std::vector<std::string> goldenNoCommon;    ///< tasks on >= 2 GPUs with no comparable input size (left out)
};
CrossHardware crossHardware(const std::vector<Row>& rows);
CrossHardware crossHardware(const analysis::Facts& facts);
/// Adds the golden-timing comparison (all GPUs of the golden_timings table; filters: gpu names).
void addGolden(CrossHardware& out, const Store& store, const Filters& filters);
std::vector<SlowFraction> slowFraction(const std::vector<Row>& rows);
std::vector<SlowFraction> slowFraction(const analysis::Facts& facts);

// ---- the figures' statistics --------------------------------------------------------------------

/// What the analysis figures draw (analysis::Datasets::stats), under per-GPU counting.
struct Bundle {
    std::vector<MethodSummary> methods;   ///< without code quality
    std::vector<DevianceGroup> deviance;
    Rescued rescued;
    CrossHardware cross;                  ///< with the golden timings
};
Bundle computeBundle(const Store& store, const Filters& filters);
/// The same from rows already loaded under `filters` (analysis::loadRows(store, filters)).
Bundle computeBundle(const Store& store, const Filters& filters, const std::vector<Row>& rows);
Bundle computeBundle(const Store& store, const Filters& filters, const analysis::Facts& facts);
/// Only some parts (a figure drawn from one of them need not wait for the others' bootstraps).
enum BundleParts : unsigned { BundleMethods = 1, BundleDeviance = 2, BundleRescued = 4, BundleCross = 8, BundleAll = 15 };
Bundle computeBundle(const Store& store, const Filters& filters, const analysis::Facts& facts, unsigned parts);

// ---- reports -----------------------------------------------------------------------------------------

/// The table names of `kbx report --table`.
const std::vector<std::string>& tableNames();
bool isTableName(const std::string& name);

struct ReportOptions {
    bool quality = true;  ///< method-summary: measure missing code quality (radon subprocess)
};

/// Builds report `name` from the database under the filters. Throws std::invalid_argument for an
/// unknown name, StoreError for database errors. May write code_quality rows (cache).
Report buildReport(Store& store, const std::string& name, const Filters& filters, const ReportOptions& options = {});

/// Provenance of rows read under filters: database, filters, counting rule, runs (device, GPU, kbx,
/// harness protocol, torch, Triton, source of imports), GPUs, methods, protocols, time.
nlohmann::json provenance(const Store& store, const std::string& name, const Filters& filters, const std::vector<Row>& rows);
nlohmann::json provenance(const Store& store, const std::string& name, const Filters& filters, const analysis::Facts& facts);

}  // namespace stats
}  // namespace kbx
