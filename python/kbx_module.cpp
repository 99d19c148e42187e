// SPDX-License-Identifier: MIT
// The `kbx` Python module: read-only access to a kbx result database and the statistics of core/
// for notebooks. Everything comes back as plain Python objects (lists of dicts, or dicts of
// equal-length columns with columns=True), so pandas.DataFrame(...) takes any table directly.
//
// The database is opened through kbx::Store with OpenMode::Auto (as kbx report), so a missing,
// corrupt, foreign or newer-schema file is refused with the store's own message, and a database this
// user cannot write (the installed demo, a file on a read-only mount) is opened read-only. Only reads
// follow; the module never writes results. A database this user can write, of an older schema, is
// migrated forward on open, as every kbx program does; one this user cannot write is refused with
// the store's message (copy it first). Every read goes through the core's read layer (core/query.h)
// or its analyses (database.cpp); conversions to Python objects are in pyconvert.h.

#include "pyconvert.h"

#include "analysis.h"
#include "catalogue.h"
#include "glm.h"
#include "paths.h"
#include "perfstats.h"
#include "rounds.h"
#include "stats_tables.h"
#include "store.h"
#include "taxonomy.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#ifndef KBX_VERSION
#define KBX_VERSION "0.0.0"
#endif

using namespace kbxpy;

namespace {

// ---- statistics without a database -------------------------------------------------------------

py::dict geomeanCI(const py::object& speedups, double level, int resamples, std::uint64_t seed)
{
    const auto xs = positiveValues(speedups, "geomean_ci");
    if (xs.empty())
        throw py::value_error("geomean_ci: no speedups");
    if (!(level > 0 && level < 1))
        throw py::value_error(fmt::format("geomean_ci: level must be in (0, 1), got {}", level));
    if (resamples < 1)
        throw py::value_error(fmt::format("geomean_ci: resamples must be >= 1, got {}", resamples));
    double sum = 0;
    for (double x : xs)
        sum += std::log(x);
    // The same bootstrap as kbx report's method summary (core/stats_tables).
    const auto ci = kbx::stats::bootstrapGeomeanCI(xs, seed, resamples, level);
    py::dict d;
    d["estimate"] = std::exp(sum / static_cast<double>(xs.size()));
    d["lo"] = ci.lo;
    d["hi"] = ci.hi;
    d["n"] = xs.size();
    d["level"] = level;
    d["resamples"] = resamples;
    d["seed"] = seed;
    return d;
}

py::dict speedupStats(const py::object& speedups, const py::object& baselineMs, const py::object& candidateMs)
{
    const auto xs = positiveValues(speedups, "speedup_stats");
    std::vector<double> base, cand;
    if (!baselineMs.is_none() || !candidateMs.is_none()) {
        if (baselineMs.is_none() || candidateMs.is_none())
            throw py::value_error("speedup_stats: give baseline_ms and candidate_ms together");
        base = baselineMs.cast<std::vector<double>>();
        cand = candidateMs.cast<std::vector<double>>();
        if (base.size() != xs.size() || cand.size() != xs.size())
            throw py::value_error(fmt::format("speedup_stats: {} speedups but {} baseline and {} candidate times", xs.size(),
                                              base.size(), cand.size()));
    }
    const auto st = kbx::stats::speedupStats(xs, base, cand);
    py::dict d;
    d["n"] = st.n;
    d["geomean"] = optDouble(st.geomean);
    d["geomean_lo"] = st.geomeanCI ? py::object(py::float_(st.geomeanCI->lo)) : py::object(py::none());
    d["geomean_hi"] = st.geomeanCI ? py::object(py::float_(st.geomeanCI->hi)) : py::object(py::none());
    d["mean"] = optDouble(st.mean);
    d["sum_ratio"] = optDouble(st.sumRatio);
    d["median"] = optDouble(st.median);
    d["slower"] = st.slower;
    d["slower_fraction"] = optDouble(st.slowerFraction);
    return d;
}

py::dict devianceFromData(const py::object& data, const std::vector<std::string>& factors, const std::string& outcome)
{
    if (factors.empty())
        throw py::value_error("deviance_analysis: give at least one factor");
    std::vector<kbx::glm::Outcome> outcomes;
    std::size_t i = 0;
    for (auto rowObj : recordsOf(data)) {
        if (!py::isinstance<py::dict>(rowObj))
            throw py::type_error(fmt::format("deviance_analysis: row {} is not a dict", i));
        auto row = rowObj.cast<py::dict>();
        kbx::glm::Outcome o;
        for (const auto& f : factors) {
            if (!row.contains(f))
                throw py::key_error(fmt::format("deviance_analysis: row {} has no column '{}'", i, f));
            o.levels.push_back(py::str(row[py::str(f)]).cast<std::string>());
        }
        if (!row.contains(outcome))
            throw py::key_error(fmt::format("deviance_analysis: row {} has no outcome column '{}'", i, outcome));
        py::object y = row[py::str(outcome)];
        if (y.is_none())
            throw py::value_error(fmt::format("deviance_analysis: row {}: outcome '{}' is None", i, outcome));
        o.success = py::bool_(y).cast<bool>();
        outcomes.push_back(std::move(o));
        ++i;
    }
    return devianceDict(kbx::glm::devianceAnalysis(factors, outcomes));
}

py::dict fastPFromSpeedups(const py::object& speedups, const py::object& n, const py::object& grid)
{
    // None entries: incorrect kernels (no speedup); n: all kernels (default: the entries given).
    std::vector<kbx::analysis::Row> rows;
    for (auto v : py::iter(speedups)) {
        kbx::analysis::Row r;
        r.method = "all";
        if (!v.is_none()) {
            double s = 0;
            try {
                s = v.cast<double>();
            } catch (const py::cast_error&) {
                throw py::type_error(fmt::format("fast_p: expected numbers or None, got {}", py::repr(v).cast<std::string>()));
            }
            if (!std::isfinite(s) || s <= 0)
                throw py::value_error(fmt::format("fast_p: a speedup must be a finite number > 0 (None for an incorrect kernel), got {}", s));
            r.pass = r.callOk = r.exeOk = true;
            r.speedup = s;
        }
        rows.push_back(r);
    }
    if (!n.is_none()) {
        const auto total = n.cast<long long>();
        if (total < static_cast<long long>(rows.size()))
            throw py::value_error(fmt::format("fast_p: n = {} is less than the {} speedups given", total, rows.size()));
        while (static_cast<long long>(rows.size()) < total) {
            kbx::analysis::Row r;
            r.method = "all";
            rows.push_back(r);
        }
    }
    if (rows.empty())
        throw py::value_error("fast_p: no kernels");
    const auto g = grid.is_none() ? kbx::analysis::logGrid() : grid.cast<std::vector<double>>();
    const auto curves = kbx::analysis::fastP(rows, g);
    py::dict d;
    d["n"] = rows.size();
    d["p"] = g;
    d["fraction"] = curves.empty() ? std::vector<double>(g.size(), 0.0) : curves.front().fraction;
    return d;
}

py::list catalogue(const py::object& tasksDir)
{
    const std::filesystem::path dir = tasksDir.is_none() ? kbx::findTasksDir() : std::filesystem::path(fsPath(tasksDir));
    kbx::TaskCatalogue cat = [&] {
        try {
            return kbx::TaskCatalogue::load(dir);
        } catch (const kbx::CatalogueError& e) {
            PyErr_SetString(PyExc_FileNotFoundError, e.what());
            throw py::error_already_set();
        }
    }();
    py::list l;
    for (const auto& t : cat.tasks()) {
        py::dict d;
        d["id"] = t.id;
        d["category"] = t.category;
        d["stem"] = t.stem;
        d["entry"] = t.entry;
        d["signature"] = t.signature;
        d["description"] = t.description;
        d["difficulty"] = t.difficulty;
        d["comparison"] = t.comparison;
        py::dict tol;
        for (const auto& [dtype, v] : t.tolerance)
            tol[py::str(dtype)] = py::make_tuple(v.atol, v.rtol);
        d["tolerance"] = tol;
        d["tf32"] = t.tf32;
        d["oracle"] = t.oracle;
        d["perf_shapes"] = toPy(t.perfShapes);
        d["case_count"] = t.caseCount;
        d["file"] = (cat.dir() / t.file).string();
        l.append(d);
    }
    return l;
}

const char* kModuleDoc = R"doc(Read-only access to KernelBench-X Workbench result databases, and its statistics.

Open a database written by `kbx eval` / `kbx import` and turn any table into a DataFrame:

    import kbx, pandas as pd
    db = kbx.open("results.sqlite")          # kbx.StoreError / FileNotFoundError on a bad file
    df = pd.DataFrame(db.evaluations())      # one row per evaluation (the evaluation_rows view)
    df.groupby(["method", "category"]).exe_ok.mean()
    kbx.wilson(30, 176)                      # (lo, hi) of the 95 % Wilson interval
    db.deviance_analysis()                   # exe correctness ~ category + method, per GPU and round

Every table method returns a list of dicts, or with columns=True a dict of equal-length lists;
both go straight into pandas.DataFrame. Booleans are Python bools, absent values None, JSON
columns (provenance, evidence, options) parsed into dicts and lists.

Counting rule of the statistics (as `kbx report`): the latest evaluation of every submission
(one candidate code, method and round) counts once; `evaluations()` returns every evaluation
unless latest=True. Speedups are geometric means over the perf shapes of baseline/candidate
(correct evaluations only).

Database: kbx.open(path) -> kbx.Database (also a context manager).
Report tables: db.table(name) for the names in kbx.TABLES (as `kbx report --table NAME`).
Statistics: wilson, geomean_ci, speedup_stats, fast_p, log_grid, deviance_analysis, chi2_sf, quantile, box_stats,
summarize, speedup_ci, geomean_speedup_ci, sum_time_ratio, roofline, transition_kinds.
Reference data: failure_classes(), catalogue().
Scale bench: grow_copy(source, target, n) writes a new database, source grown to about n evaluations.
)doc";

/// Statistics of rates and speedups for data from anywhere (as kbx report computes them).
void bindStatistics(py::module_& m)
{
    m.def("wilson", [](int k, int n, double z) {
        if (n < 0 || k < 0 || k > n)
            throw py::value_error(fmt::format("wilson: need 0 <= k <= n, got k = {}, n = {}", k, n));
        const auto iv = kbx::analysis::wilson(k, n, z);
        return py::make_tuple(iv.lo, iv.hi);
    }, py::arg("k"), py::arg("n"), py::arg("z") = 1.959963984540054,
          "Wilson score interval (lo, hi) for k successes in n trials; z = 1.96 gives 95 %. n = 0 gives (0, 1).");

    m.def("geomean_ci", &geomeanCI, py::arg("speedups"), py::kw_only(), py::arg("level") = 0.95, py::arg("resamples") = 2000,
          py::arg("seed") = 20261130,
          R"doc(Geometric mean of speedups (all > 0) with a percentile bootstrap confidence interval over
kernels (the speedups resampled with replacement; deterministic for a seed; the default seed is
the one `kbx report` uses, so the bounds agree with its method summary). One value: both bounds
are the estimate.
Returns {estimate, lo, hi, n, level, resamples, seed}.)doc");

    m.def("speedup_stats", &speedupStats, py::arg("speedups"), py::kw_only(), py::arg("baseline_ms") = py::none(),
          py::arg("candidate_ms") = py::none(),
          R"doc(The speedup columns of `kbx report --table method-summary` for one set of correct, timed
kernels (core/stats_tables): {n, geomean, geomean_lo, geomean_hi (95 % bootstrap over kernels),
mean, sum_ratio (the seed's sum of eager ms / sum of candidate ms; needs baseline_ms and
candidate_ms, one per kernel), median, slower (kernels with speedup < 1), slower_fraction}.)doc");

    m.def("fast_p", &fastPFromSpeedups, py::arg("speedups"), py::kw_only(), py::arg("n") = py::none(), py::arg("grid") = py::none(),
          R"doc(fast_p of one set of kernels: for each p of grid (default log_grid()), the fraction of all n
kernels that are correct and have speedup > p. speedups holds one entry per kernel, None for an
incorrect one; n (default: len(speedups)) counts kernels not listed as incorrect too.
Returns {n, p, fraction}.)doc");

    m.def("log_grid", &kbx::analysis::logGrid, py::arg("lo") = 0.1, py::arg("hi") = 10.0, py::arg("points") = 41,
          "The p grid of fast_p: points values log-spaced from lo to hi (the default contains p = 1 exactly).");

    m.def("deviance_analysis", &devianceFromData, py::arg("data"), py::arg("factors") = std::vector<std::string>{"category", "method"},
          py::arg("outcome") = "exe_ok",
          R"doc(Binomial GLM (logistic regression by IRLS, core/glm) deviance analysis of a 0/1 outcome on
categorical factors: the explained-deviance share of each factor alone and the drop of each from
the joint additive model, with likelihood-ratio chi2, df and p (the paper's "category 9.4 % vs
method 3.3 %").

data: a list of dicts, a dict of equal-length columns or a pandas DataFrame (e.g. db.rows()).
factors: the columns to use as factors (values compared as str). outcome: a column read as a bool.
Returns {factors, n, successes, null_deviance, joint_deviance, joint_df, joint_chi2, joint_p,
joint_share, separation, converged, alone: [...], drop: [...]}, each test {factor, levels,
deviance, chi2, df, p, share, separation}.)doc");

    m.def("chi2_sf", &kbx::glm::chiSquareSurvival, py::arg("x"), py::arg("df"),
          "Upper tail P(X >= x) of a chi-square distribution with df degrees of freedom.");
}

/// The perf stage's statistics: quantiles, summaries, speedup intervals, roofline.
void bindPerfStatistics(py::module_& m)
{
    m.def("quantile", [](std::vector<double> values, double q) { return kbx::perf::quantile(std::move(values), q); },
          py::arg("values"), py::arg("q"), "Quantile by linear interpolation (type 7, numpy's default); ValueError for no values.");

    m.def("box_stats", [](std::vector<double> values) {
        if (values.empty())
            throw py::value_error("box_stats: no values");
        return boxDict(kbx::analysis::boxStats(std::move(values)));
    }, py::arg("values"), "Box-plot statistics: min, q1, median, q3, max, lower_whisker, upper_whisker (1.5 IQR), outliers.");

    m.def("summarize", [](const std::vector<double>& samples) {
        const auto s = kbx::perf::summarize(samples);
        py::dict d;
        d["n"] = s.n;
        d["median"] = s.median;
        d["q1"] = s.q1;
        d["q3"] = s.q3;
        d["iqr"] = s.iqr;
        d["mean"] = s.mean;
        d["min"] = s.min;
        d["max"] = s.max;
        d["cv"] = s.cv;
        return d;
    }, py::arg("samples"), "Robust summary of timing samples: n, median, q1, q3, iqr, mean, min, max, cv (IQR/1.349/median).");

    m.def("speedup_ci", [](const py::object& candidateMs, const py::object& referenceMs, std::uint64_t seed, int resamples, double level) {
        const auto iv = kbx::perf::speedupCI(positiveValues(candidateMs, "candidate_ms"), positiveValues(referenceMs, "reference_ms"),
                                             seed, resamples, level);
        py::dict d;
        d["estimate"] = iv.estimate;
        d["lo"] = iv.lo;
        d["hi"] = iv.hi;
        return d;
    }, py::arg("candidate_ms"), py::arg("reference_ms"), py::kw_only(), py::arg("seed") = 0, py::arg("resamples") = 2000,
          py::arg("level") = 0.95,
          "Speedup of one perf shape, median(reference)/median(candidate), with a percentile bootstrap CI "
          "(docs/PERF_PROTOCOL.md). Returns {estimate, lo, hi}.");

    m.def("geomean_speedup_ci", [](const py::object& candidateMs, const py::object& referenceMs, std::uint64_t seed, int resamples,
                                   double level) {
        const auto iv = kbx::perf::geomeanSpeedupCI(shapeSamples(candidateMs, "candidate_ms"), shapeSamples(referenceMs, "reference_ms"),
                                                    seed, resamples, level);
        py::dict d;
        d["estimate"] = iv.estimate;
        d["lo"] = iv.lo;
        d["hi"] = iv.hi;
        return d;
    }, py::arg("candidate_ms"), py::arg("reference_ms"), py::kw_only(), py::arg("seed") = 0, py::arg("resamples") = 1000,
          py::arg("level") = 0.95,
          "A task's geometric-mean speedup over its perf shapes from raw samples (one list per shape on each side), "
          "with the perf stage's bootstrap CI. Returns {estimate, lo, hi}.");

    m.def("sum_time_ratio", &kbx::perf::sumTimeRatio, py::arg("candidate_ms"), py::arg("reference_ms"),
          "The seed's aggregate speedup: sum of reference times / sum of candidate times (0 when the candidate sum is 0).");

    m.def("roofline", [](double ms, double bytes, double flops, double peakGBs, double peakTflops) {
        const auto r = kbx::perf::roofline(ms, bytes, flops, peakGBs, peakTflops);
        py::dict d;
        d["gbs"] = r.gbs;
        d["tflops"] = r.tflops;
        d["bandwidth_util"] = r.bandwidthUtil;
        d["compute_util"] = r.computeUtil;
        d["bound_ms"] = r.boundMs;
        d["faster_than_bound"] = r.fasterThanBound;
        return d;
    }, py::arg("ms"), py::arg("bytes"), py::arg("flops"), py::arg("peak_gbs"), py::arg("peak_tflops"),
          "Roofline numbers of one timing: achieved GB/s and TFLOP/s, utilisation of the peaks, the roofline time "
          "bound_ms and faster_than_bound (below 0.9 x the bound: audit).");
}

/// Reference data: round transitions' kinds, the failure taxonomy, the task catalogue.
void bindReference(py::module_& m)
{
    m.def("transition_kinds", [](const py::dict& before, const py::dict& after) {
        return kbx::rounds::transitionKinds(stateFrom(before, "before"), stateFrom(after, "after"));
    }, py::arg("before"), py::arg("after"),
          "Kinds of a round-to-round transition as the seed's corpus names them, from two states "
          "{call_ok, exe_ok, perf_ok, speedup}: e.g. ['exe_fail_to_pass']; [] when nothing changed.");

    m.def("failure_classes", [] {
        py::list l;
        for (const auto& c : kbx::failureClasses()) {
            py::dict d;
            d["id"] = std::string(c.id);
            d["stage"] = std::string(c.stage);
            d["title"] = std::string(c.title);
            l.append(d);
        }
        return l;
    }, "The failure taxonomy (v1) in precedence order: [{id, stage ('call' or 'exe'), title}].");

    m.def("catalogue", &catalogue, py::arg("tasks_dir") = py::none(),
          R"doc(The benchmark's tasks from <tasks_dir>/index.json (default: $KBX_TASKS_DIR, else the source
tree's or the installed tasks/): [{id, category, stem, entry, signature, description, difficulty,
comparison, tolerance {dtype: (atol, rtol)}, tf32, oracle, perf_shapes, case_count, file}].
FileNotFoundError (with the catalogue's message) when there is no readable index.)doc");
}

}  // namespace

PYBIND11_MODULE(kbx, m)
{
    m.doc() = kModuleDoc;
    m.attr("__version__") = KBX_VERSION;
    m.attr("SCHEMA_VERSION") = kbx::kSchemaVersion;
    m.attr("TAXONOMY_VERSION") = kbx::kTaxonomyVersion;

    static py::exception<kbx::StoreError> storeError(m, "StoreError", PyExc_RuntimeError);
    storeError.doc() = "A kbx database could not be opened or read (not a database, not a kbx database, a "
                       "newer schema, an older schema in a file this user cannot write, a closed Database, a failed "
                       "query, a write to a database opened read-only). The message is the store's.";
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const kbx::StoreError& e) {
            PyErr_SetString(storeError.ptr(), e.what());
        } catch (const kbx::CatalogueError& e) {
            PyErr_SetString(PyExc_FileNotFoundError, e.what());
        } catch (const std::invalid_argument& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        }
    });
    bindDatabase(m);

    bindStatistics(m);
    bindPerfStatistics(m);
    bindReference(m);
}
