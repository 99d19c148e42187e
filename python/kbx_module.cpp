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
// the store's message (copy it first).

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

namespace py = pybind11;
using nlohmann::json;

namespace {

// ---- conversions -------------------------------------------------------------------------------

py::object toPy(const json& j)
{
    switch (j.type()) {
    case json::value_t::null: return py::none();
    case json::value_t::boolean: return py::bool_(j.get<bool>());
    case json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
    case json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
    case json::value_t::number_float: return py::float_(j.get<double>());
    case json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case json::value_t::array: {
        py::list l;
        for (const auto& v : j)
            l.append(toPy(v));
        return l;
    }
    case json::value_t::object: {
        py::dict d;
        for (const auto& [k, v] : j.items())
            d[py::str(k)] = toPy(v);
        return d;
    }
    default: return py::none();  // binary / discarded: never produced by the store
    }
}

/// A text column holding JSON (provenance, options, evidence): parsed, or the text itself when it
/// is not JSON.
py::object parsedJson(const json& cell)
{
    if (!cell.is_string())
        return toPy(cell);
    auto parsed = json::parse(cell.get_ref<const std::string&>(), nullptr, false);
    return parsed.is_discarded() ? toPy(cell) : toPy(parsed);
}

py::object optDouble(const std::optional<double>& v) { return v ? py::object(py::float_(*v)) : py::object(py::none()); }
py::object optStr(const std::optional<std::string>& v) { return v ? py::object(py::str(*v)) : py::object(py::none()); }

/// A table with a fixed column order: a list of dicts, or with columns=True a dict of equal-length
/// lists (the keys are there even when there is no row).
struct Table {
    std::vector<std::string> keys;
    std::vector<std::vector<py::object>> rows;

    explicit Table(std::vector<std::string> k) : keys(std::move(k)) {}
    void add(std::vector<py::object> row)
    {
        if (row.size() != keys.size())
            throw std::logic_error("kbx: row width differs from the table's columns");
        rows.push_back(std::move(row));
    }
    py::object toPython(bool columns) const
    {
        if (columns) {
            py::dict d;
            for (std::size_t c = 0; c < keys.size(); ++c) {
                py::list col;
                for (const auto& r : rows)
                    col.append(r[c]);
                d[py::str(keys[c])] = col;
            }
            return d;
        }
        py::list l;
        for (const auto& r : rows) {
            py::dict d;
            for (std::size_t c = 0; c < keys.size(); ++c)
                d[py::str(keys[c])] = r[c];
            l.append(d);
        }
        return l;
    }
};

/// A str or os.PathLike (pathlib.Path) as a file name.
std::string fsPath(const py::object& p)
{
    py::object s = py::module_::import("os").attr("fspath")(p);
    if (!py::isinstance<py::str>(s))
        throw py::type_error("expected a str or os.PathLike path naming a file, got bytes");
    return s.cast<std::string>();
}

/// None, one value or an iterable of values, as strings (for filters).
std::vector<std::string> stringList(const py::object& o, const char* name)
{
    std::vector<std::string> out;
    if (o.is_none())
        return out;
    if (py::isinstance<py::str>(o))
        return {o.cast<std::string>()};
    if (py::isinstance<py::int_>(o) || py::isinstance<py::float_>(o))
        return {py::str(o).cast<std::string>()};
    try {
        for (auto v : py::iter(o))
            out.push_back(py::str(v).cast<std::string>());
    } catch (const py::error_already_set&) {
        throw py::type_error(fmt::format("{}: expected a value or a list of values, got {}", name,
                                         py::str(py::type::of(o).attr("__name__")).cast<std::string>()));
    }
    return out;
}

std::vector<int> intList(const py::object& o, const char* name)
{
    std::vector<int> out;
    if (o.is_none())
        return out;
    auto one = [&](py::handle v) {
        if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v))
            throw py::type_error(fmt::format("{}: expected an integer round (or a list of them), got {}", name,
                                             py::repr(v).cast<std::string>()));
        out.push_back(v.cast<int>());
    };
    if (py::isinstance<py::int_>(o)) {
        one(o);
        return out;
    }
    if (py::isinstance<py::str>(o))
        throw py::type_error(fmt::format("{}: expected an integer round, got the string {}", name, py::repr(o).cast<std::string>()));
    for (auto v : py::iter(o))
        one(v);
    return out;
}

kbx::analysis::Filters makeFilters(const py::object& method, const py::object& round, const py::object& gpu,
                                   const py::object& category)
{
    kbx::analysis::Filters f;
    f.methods = stringList(method, "method");
    f.rounds = intList(round, "round");
    f.gpus = stringList(gpu, "gpu");
    f.categories = stringList(category, "category");
    return f;
}

template <class T, class F>
std::string inList(const char* column, const std::vector<T>& values, F&& fmtValue)
{
    if (values.empty())
        return {};
    std::string s = fmt::format(" AND {} IN (", column);
    for (std::size_t i = 0; i < values.size(); ++i)
        s += (i ? "," : "") + fmtValue(values[i]);
    return s + ")";
}

std::string whereClause(const kbx::analysis::Filters& f, const std::vector<std::string>& tasks = {})
{
    std::string w = " WHERE 1";
    w += inList("method", f.methods, kbx::sqlQuote);
    w += inList("round", f.rounds, [](int r) { return std::to_string(r); });
    w += inList("gpu", f.gpus, kbx::sqlQuote);
    w += inList("category", f.categories, kbx::sqlQuote);
    w += inList("task_id", tasks, kbx::sqlQuote);
    return w;
}

py::dict filtersDict(const kbx::analysis::Filters& f)
{
    py::dict d;
    d["method"] = f.methods;
    d["round"] = f.rounds;
    d["gpu"] = f.gpus;
    d["category"] = f.categories;
    d["describe"] = f.describe();
    return d;
}

py::dict rateDict(const kbx::analysis::Rate& r)
{
    py::dict d;
    d["k"] = r.k;
    d["n"] = r.n;
    d["rate"] = r.n > 0 ? py::object(py::float_(r.value())) : py::object(py::none());
    const auto ci = r.ci();
    d["lo"] = ci.lo;
    d["hi"] = ci.hi;
    return d;
}

py::dict factorTestDict(const kbx::glm::FactorTest& t)
{
    py::dict d;
    d["factor"] = t.factor;
    d["levels"] = t.levels;
    d["deviance"] = t.deviance;
    d["chi2"] = t.chi2;
    d["df"] = t.df;
    d["p"] = t.p;
    d["share"] = t.share;
    d["separation"] = t.separation;
    return d;
}

py::dict devianceDict(const kbx::glm::DevianceAnalysis& a)
{
    py::dict d;
    d["factors"] = a.factors;
    d["n"] = a.n;
    d["successes"] = a.successes;
    d["null_deviance"] = a.nullDeviance;
    d["joint_deviance"] = a.jointDeviance;
    d["joint_df"] = a.jointDf;
    d["joint_chi2"] = a.jointChi2;
    d["joint_p"] = a.jointP;
    d["joint_share"] = a.jointShare;
    d["separation"] = a.separation;
    d["converged"] = a.converged;
    py::list alone, drop;
    for (const auto& t : a.alone)
        alone.append(factorTestDict(t));
    for (const auto& t : a.drop)
        drop.append(factorTestDict(t));
    d["alone"] = alone;
    d["drop"] = drop;
    return d;
}

kbx::rounds::State stateFrom(const py::dict& d, const char* name)
{
    kbx::rounds::State s;
    auto flag = [&](const char* key) { return d.contains(key) && py::bool_(d[key]).cast<bool>(); };
    s.callOk = flag("call_ok");
    s.exeOk = flag("exe_ok");
    s.perfOk = flag("perf_ok");
    if (d.contains("speedup") && !d["speedup"].is_none()) {
        try {
            s.speedup = d["speedup"].cast<double>();
        } catch (const py::cast_error&) {
            throw py::type_error(fmt::format("{}['speedup'] must be a number or None", name));
        }
    }
    return s;
}

py::dict boxDict(const kbx::analysis::BoxStats& b)
{
    py::dict d;
    d["min"] = b.min;
    d["q1"] = b.q1;
    d["median"] = b.median;
    d["q3"] = b.q3;
    d["max"] = b.max;
    d["lower_whisker"] = b.lowerWhisker;
    d["upper_whisker"] = b.upperWhisker;
    d["outliers"] = b.outliers;
    return d;
}

py::list fastPList(const std::vector<kbx::analysis::FastPCurve>& curves)
{
    py::list l;
    for (const auto& c : curves) {
        py::dict d;
        d["method"] = c.method;
        d["n"] = c.n;
        d["p"] = c.p;
        d["fraction"] = c.fraction;
        l.append(d);
    }
    return l;
}

py::dict taxonomyDict(const kbx::analysis::Taxonomy& t)
{
    py::dict d;
    d["groups"] = t.groups;
    d["classes"] = t.classes;
    d["automatic"] = t.automatic;
    d["reviewed"] = t.reviewed ? py::object(py::cast(*t.reviewed)) : py::object(py::none());
    d["evaluations"] = t.evaluations;
    return d;
}

py::dict datasetsDict(const kbx::analysis::Datasets& ds)
{
    py::dict d;
    d["filters"] = filtersDict(ds.filters);
    d["runs"] = ds.runs;
    d["row_count"] = ds.rowCount;
    {
        const auto& m = ds.correctness;
        py::list cells;
        for (std::size_t ci = 0; ci < m.categories.size(); ++ci)
            for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
                const auto& c = m.cells[ci][mi];
                if (c.call.n == 0)
                    continue;
                py::dict cell;
                cell["category"] = m.categories[ci];
                cell["method"] = m.methods[mi];
                cell["call"] = rateDict(c.call);
                cell["exe"] = rateDict(c.exe);
                cells.append(cell);
            }
        py::list totals;
        for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
            py::dict t;
            t["method"] = m.methods[mi];
            t["call"] = rateDict(m.totals[mi].call);
            t["exe"] = rateDict(m.totals[mi].exe);
            totals.append(t);
        }
        py::dict cm;
        cm["categories"] = m.categories;
        cm["methods"] = m.methods;
        cm["cells"] = cells;
        cm["totals"] = totals;
        d["correctness"] = cm;
    }
    py::list compile;
    for (const auto& r : ds.compile) {
        py::dict x;
        x["method"] = r.method;
        x["call"] = rateDict(r.call);
        x["exe"] = rateDict(r.exe);
        compile.append(x);
    }
    d["compile"] = compile;
    py::list sp;
    for (const auto& s : ds.speedup) {
        py::dict x;
        x["method"] = s.method;
        x["speedups"] = s.speedups;
        x["correct"] = s.correct;
        x["total"] = s.total;
        x["box"] = s.speedups.empty() ? py::object(py::none()) : py::object(boxDict(kbx::analysis::boxStats(s.speedups)));
        sp.append(x);
    }
    d["speedup"] = sp;
    d["fast_p"] = fastPList(ds.fastp);
    d["taxonomy_by_category"] = taxonomyDict(ds.taxonomyByCategory);
    d["taxonomy_by_method"] = taxonomyDict(ds.taxonomyByMethod);
    py::list rounds;
    for (const auto& t : ds.rounds) {
        py::list pts;
        for (const auto& p : t.points) {
            py::dict x;
            x["round"] = p.round;
            x["pass"] = rateDict(p.pass);
            x["compile"] = rateDict(p.compile);
            x["timed"] = p.timed;
            x["geomean_speedup"] = p.geomeanSpeedup ? py::object(py::float_(*p.geomeanSpeedup)) : py::object(py::none());
            pts.append(x);
        }
        py::dict x;
        x["method"] = t.method;
        x["gpu"] = t.gpu;
        x["points"] = pts;
        rounds.append(x);
    }
    d["rounds"] = rounds;
    return d;
}

std::vector<double> positiveValues(const py::object& values, const char* what)
{
    std::vector<double> out;
    for (auto v : py::iter(values)) {
        double x;
        try {
            x = v.cast<double>();
        } catch (const py::cast_error&) {
            throw py::type_error(fmt::format("{}: expected numbers, got {}", what, py::repr(v).cast<std::string>()));
        }
        if (!std::isfinite(x) || x <= 0)
            throw py::value_error(fmt::format("{}: every value must be a finite number > 0, got {}", what, x));
        out.push_back(x);
    }
    return out;
}

std::vector<std::vector<double>> shapeSamples(const py::object& o, const char* what)
{
    std::vector<std::vector<double>> out;
    for (auto shape : py::iter(o))
        out.push_back(positiveValues(py::reinterpret_borrow<py::object>(shape), what));
    return out;
}

/// Rows for deviance_analysis(): a list of dicts, a dict of equal-length columns, or anything with
/// to_dict("records") (a pandas DataFrame).
py::list recordsOf(const py::object& data)
{
    if (py::hasattr(data, "to_dict") && !py::isinstance<py::dict>(data))
        return data.attr("to_dict")("records").cast<py::list>();
    if (py::isinstance<py::dict>(data)) {
        auto cols = data.cast<py::dict>();
        py::list rows;
        std::optional<std::size_t> len;
        std::vector<std::pair<py::object, py::list>> lists;
        for (auto [k, v] : cols) {
            py::list l(py::reinterpret_borrow<py::object>(v));
            if (len && *len != l.size())
                throw py::value_error(fmt::format("columns differ in length: '{}' has {} values, an earlier column {}",
                                                  py::str(k).cast<std::string>(), l.size(), *len));
            len = l.size();
            lists.emplace_back(py::reinterpret_borrow<py::object>(k), l);
        }
        for (std::size_t i = 0; i < len.value_or(0); ++i) {
            py::dict r;
            for (auto& [k, l] : lists)
                r[k] = l[i];
            rows.append(r);
        }
        return rows;
    }
    return py::list(data);
}

// ---- the database ------------------------------------------------------------------------------

class Database {
public:
    explicit Database(const std::string& path) : m_path(path)
    {
        std::error_code ec;
        if (path.empty())
            throw py::value_error("kbx.open: empty database path");
        // kbx::Store creates a missing file; a notebook asking to read one wants an error instead.
        if (!std::filesystem::exists(m_path, ec)) {
            PyErr_SetString(PyExc_FileNotFoundError, fmt::format("no kbx database at {}", path).c_str());
            throw py::error_already_set();
        }
        if (std::filesystem::is_directory(m_path, ec)) {
            PyErr_SetString(PyExc_IsADirectoryError, fmt::format("{} is a directory, not a kbx database", path).c_str());
            throw py::error_already_set();
        }
        m_store = std::make_unique<kbx::Store>(m_path, kbx::OpenMode::Auto);
    }

    const kbx::Store& store() const
    {
        if (!m_store)
            throw kbx::StoreError(fmt::format("{} is closed", m_path.string()));
        return *m_store;
    }

    void close() { m_store.reset(); }
    bool closed() const { return !m_store; }
    std::string path() const { return m_path.string(); }
    int schemaVersion() const { return store().schemaVersion(); }
    bool readOnly() const { return store().readOnly(); }

    std::string repr() const
    {
        if (!m_store)
            return fmt::format("<kbx.Database {} (closed)>", m_path.string());
        const auto n = m_store->query("SELECT count(*) AS n FROM evaluations");
        return fmt::format("<kbx.Database {} schema v{}, {} evaluations{}>", m_path.string(), m_store->schemaVersion(),
                           n.at(0).at("n").get<std::int64_t>(), m_store->readOnly() ? ", read-only" : "");
    }

    /// Speedup per evaluation (correct ones only): geometric mean of baseline/candidate over the
    /// shapes with both times > 0, as core/analysis computes it; with the number of such shapes.
    std::unordered_map<std::int64_t, std::pair<double, int>> speedups() const
    {
        struct Acc {
            double logSum = 0, first = 0;
            int count = 0;
        };
        std::unordered_map<std::int64_t, Acc> acc;
        for (const auto& j : store().query("SELECT t.evaluation_id, t.candidate_ms, t.baseline_ms FROM timings t "
                                           "JOIN evaluations e ON e.id = t.evaluation_id "
                                           "WHERE e.verdict = 'pass' AND t.candidate_ms > 0 AND t.baseline_ms > 0")) {
            const double s = j["baseline_ms"].get<double>() / j["candidate_ms"].get<double>();
            if (!std::isfinite(s) || s <= 0)
                continue;
            auto& a = acc[j["evaluation_id"].get<std::int64_t>()];
            a.logSum += std::log(s);
            a.first = a.count == 0 ? s : a.first;
            a.count += 1;
        }
        std::unordered_map<std::int64_t, std::pair<double, int>> out;
        for (const auto& [id, a] : acc)
            out[id] = {a.count == 1 ? a.first : std::exp(a.logSum / a.count), a.count};
        return out;
    }

    py::object evaluations(const py::object& method, const py::object& round, const py::object& gpu,
                           const py::object& category, const py::object& task, bool latest, bool columns) const
    {
        const auto f = makeFilters(method, round, gpu, category);
        const auto where = whereClause(f, stringList(task, "task"));
        std::string sql = "SELECT v.* FROM evaluation_rows v";
        if (latest)
            sql += fmt::format(" JOIN (SELECT max(id) AS id FROM evaluation_rows{} GROUP BY submission_id) latest ON latest.id = v.id",
                               where);
        else
            sql += fmt::format(" JOIN (SELECT id FROM evaluation_rows{}) sel ON sel.id = v.id", where);
        sql += " ORDER BY v.id";
        const auto sp = speedups();
        Table t({"id", "run_id", "task", "category", "method", "round", "device", "gpu", "imported", "verdict", "stage",
                 "call_ok", "exe_ok", "failure_class", "manual_class", "manual_note", "failure_detail", "speedup",
                 "timed_shapes", "candidate_id", "submission_id", "started_at", "finished_at", "protocol", "ext_cases",
                 "ext_passed", "ext_failure_class", "correct_incl_extended"});
        auto optBool = [](const nlohmann::json& v) -> py::object {
            return v.is_number() ? py::object(py::bool_(v.get<int>() != 0)) : py::object(py::none());
        };
        auto col = [](const nlohmann::json& r, const char* k) { return r.contains(k) ? r[k] : nlohmann::json(); };
        for (const auto& r : store().query(sql)) {
            const auto id = r["id"].get<std::int64_t>();
            auto it = sp.find(id);
            t.add({toPy(r["id"]), toPy(r["run_id"]), toPy(r["task_id"]), toPy(r["category"]), toPy(r["method"]),
                   toPy(r["round"]), toPy(r["device"]), toPy(r["gpu"]),
                   py::bool_(r.contains("imported") && r["imported"].is_number() && r["imported"].get<int>() != 0),
                   toPy(r["verdict"]), toPy(r["stage"]), py::bool_(r["call_ok"].get<int>() != 0),
                   py::bool_(r["exe_ok"].get<int>() != 0), toPy(r["failure_class"]), toPy(r["manual_class"]),
                   toPy(r["manual_note"]), toPy(r["failure_detail"]),
                   it == sp.end() ? py::object(py::none()) : py::object(py::float_(it->second.first)),
                   py::int_(it == sp.end() ? 0 : it->second.second), toPy(r["candidate_id"]), toPy(r["submission_id"]),
                   toPy(r["started_at"]), toPy(r["finished_at"]), toPy(col(r, "protocol")), toPy(col(r, "ext_cases")),
                   toPy(col(r, "ext_passed")), toPy(col(r, "ext_failure_class")), optBool(col(r, "correct_ext"))});
        }
        return t.toPython(columns);
    }

    py::dict evaluation(std::int64_t id) const
    {
        const auto rows = store().query(fmt::format(
            "SELECT v.*, e.evidence, e.stage_seconds, e.taxonomy_version, c.code, c.code_hash, s.origin "
            "FROM evaluation_rows v JOIN evaluations e ON e.id = v.id JOIN candidates c ON c.id = v.candidate_id "
            "JOIN submissions s ON s.id = v.submission_id WHERE v.id = {}",
            id));
        if (rows.empty())
            throw py::key_error(fmt::format("no evaluation {} in {}", id, m_path.string()));
        const auto& r = rows[0];
        py::dict d;
        for (const auto& [k, v] : r.items()) {
            if (k == "evidence" || k == "stage_seconds")
                d[py::str(k)] = parsedJson(v);
            else if (k == "call_ok" || k == "exe_ok" || k == "imported")
                d[py::str(k)] = py::bool_(v.is_number() && v.get<int>() != 0);
            else if (k == "task_id")
                d["task"] = toPy(v);
            else
                d[py::str(k)] = toPy(v);
        }
        const auto sp = speedups();
        auto it = sp.find(id);
        d["speedup"] = it == sp.end() ? py::object(py::none()) : py::object(py::float_(it->second.first));
        Table cases({"index", "name", "status", "failure_class", "evidence"});
        for (const auto& c : store().query(fmt::format(
                 "SELECT idx, name, status, failure_class, evidence FROM case_results WHERE evaluation_id = {} ORDER BY idx", id)))
            cases.add({toPy(c["idx"]), toPy(c["name"]), toPy(c["status"]), toPy(c["failure_class"]), parsedJson(c["evidence"])});
        d["cases"] = cases.toPython(false);
        d["timings"] = timings(py::int_(id), true, false);
        return d;
    }

    py::object timings(const py::object& evaluationId, bool samples, bool columns) const
    {
        std::string where;
        if (!evaluationId.is_none())
            where = fmt::format(" WHERE t.evaluation_id = {}", evaluationId.cast<std::int64_t>());
        std::vector<std::string> keys = {"id", "evaluation_id", "task", "category", "method", "round", "gpu", "verdict",
                                         "shape", "candidate_ms", "baseline_ms", "speedup"};
        if (samples)
            keys.push_back("samples");
        Table t(keys);
        for (const auto& r : store().query(
                 "SELECT t.id, t.evaluation_id, v.task_id, v.category, v.method, v.round, v.gpu, v.verdict, t.shape, "
                 "t.candidate_ms, t.baseline_ms, t.samples FROM timings t JOIN evaluation_rows v ON v.id = t.evaluation_id" +
                 where + " ORDER BY t.evaluation_id, t.id")) {
            py::object speed = py::none();
            if (r["candidate_ms"].is_number() && r["baseline_ms"].is_number() && r["candidate_ms"].get<double>() > 0 &&
                r["baseline_ms"].get<double>() > 0)
                speed = py::float_(r["baseline_ms"].get<double>() / r["candidate_ms"].get<double>());
            std::vector<py::object> row = {toPy(r["id"]), toPy(r["evaluation_id"]), toPy(r["task_id"]), toPy(r["category"]),
                                           toPy(r["method"]), toPy(r["round"]), toPy(r["gpu"]), toPy(r["verdict"]),
                                           toPy(r["shape"]), toPy(r["candidate_ms"]), toPy(r["baseline_ms"]), speed};
            if (samples)
                row.push_back(parsedJson(r["samples"]));
            t.add(std::move(row));
        }
        return t.toPython(columns);
    }

    py::object runs(bool columns) const
    {
        Table t({"id", "started_at", "finished_at", "status", "device", "provenance", "public_seeds", "secret_seed", "args",
                 "evaluations"});
        for (const auto& r : store().query("SELECT r.*, (SELECT count(*) FROM evaluations e WHERE e.run_id = r.id) AS n "
                                           "FROM runs r ORDER BY r.id"))
            t.add({toPy(r["id"]), toPy(r["started_at"]), toPy(r["finished_at"]), toPy(r["status"]), toPy(r["device"]),
                   parsedJson(r["provenance"]), parsedJson(r["public_seeds"]), toPy(r["secret_seed"]), parsedJson(r["args"]),
                   toPy(r["n"])});
        return t.toPython(columns);
    }

    py::object imports(bool columns) const
    {
        Table t({"id", "imported_at", "format", "source", "sha256", "options", "files", "notes"});
        for (const auto& r : store().query("SELECT * FROM imports ORDER BY id"))
            t.add({toPy(r["id"]), toPy(r["imported_at"]), toPy(r["format"]), toPy(r["source"]), toPy(r["sha256"]),
                   parsedJson(r["options"]), parsedJson(r["files"]), parsedJson(r["notes"])});
        return t.toPython(columns);
    }

    py::object goldenTimings(const py::object& gpu, const py::object& task, bool columns) const
    {
        std::string where = " WHERE 1";
        where += inList("gpu", stringList(gpu, "gpu"), kbx::sqlQuote);
        const auto tasks = stringList(task, "task");
        if (!tasks.empty()) {  // the seed's stem or our "Category/stem"
            const auto a = inList("task", tasks, kbx::sqlQuote), b = inList("task_id", tasks, kbx::sqlQuote);
            where += fmt::format(" AND ({} OR {})", a.substr(5), b.substr(5));
        }
        Table t({"id", "import_id", "gpu", "task", "task_id", "index", "input_size", "ms", "gbs", "tflops", "file"});
        for (const auto& r : store().query("SELECT * FROM golden_timings" + where + " ORDER BY gpu, task, idx"))
            t.add({toPy(r["id"]), toPy(r["import_id"]), toPy(r["gpu"]), toPy(r["task"]), toPy(r["task_id"]), toPy(r["idx"]),
                   parsedJson(r["input_size"]), toPy(r["ms"]), toPy(r["gbs"]), toPy(r["tflops"]), toPy(r["file"])});
        return t.toPython(columns);
    }

    py::object seedSummaries(bool columns) const
    {
        Table t({"id", "import_id", "gpu", "method", "round", "total", "call_pass", "exe_pass", "perf_pass", "avg_speedup",
                 "avg_speedup_per_task", "fields", "file"});
        for (const auto& r : store().query("SELECT * FROM seed_summaries ORDER BY id"))
            t.add({toPy(r["id"]), toPy(r["import_id"]), toPy(r["gpu"]), toPy(r["method"]), toPy(r["round"]), toPy(r["total"]),
                   toPy(r["call_pass"]), toPy(r["exe_pass"]), toPy(r["perf_pass"]), toPy(r["avg_speedup"]),
                   toPy(r["avg_speedup_per_task"]), parsedJson(r["fields"]), toPy(r["file"])});
        return t.toPython(columns);
    }

    py::object transitions(bool columns) const
    {
        Table t({"gpu", "method", "task", "from_round", "to_round", "kind", "kinds", "recorded_kind", "agrees", "same_code",
                 "before_call_ok", "before_exe_ok", "before_perf_ok", "before_speedup", "after_call_ok", "after_exe_ok",
                 "after_perf_ok", "after_speedup", "origin"});
        for (const auto& x : kbx::rounds::loadTransitions(store()))
            t.add({py::str(x.gpu), py::str(x.method), py::str(x.taskId), py::int_(x.fromRound), py::int_(x.toRound),
                   py::str(kbx::rounds::kindString(x.kinds)), py::cast(x.kinds), optStr(x.recordedKind), py::bool_(x.agrees()),
                   py::bool_(x.sameCode), py::bool_(x.before.callOk), py::bool_(x.before.exeOk), py::bool_(x.before.perfOk),
                   optDouble(x.before.speedup), py::bool_(x.after.callOk), py::bool_(x.after.exeOk), py::bool_(x.after.perfOk),
                   optDouble(x.after.speedup), py::str(x.origin)});
        return t.toPython(columns);
    }

    py::dict roundAnalysis() const
    {
        const auto a = kbx::rounds::analyseRounds(store());
        Table rounds({"gpu", "method", "round", "n", "call_ok", "exe_ok", "timed", "mean_speedup", "geomean_speedup"});
        for (const auto& r : a.rounds)
            rounds.add({py::str(r.gpu), py::str(r.method), py::int_(r.round), py::int_(r.n), py::int_(r.callOk), py::int_(r.exeOk),
                        py::int_(r.timed), r.timed ? py::object(py::float_(r.meanSpeedup)) : py::object(py::none()),
                        r.timed ? py::object(py::float_(r.geoMeanSpeedup)) : py::object(py::none())});
        Table trans({"gpu", "method", "from_round", "to_round", "total", "kinds", "same_code_speedup_changes", "recorded", "agree"});
        for (const auto& c : a.transitions)
            trans.add({py::str(c.gpu), py::str(c.method), py::int_(c.fromRound), py::int_(c.toRound), py::int_(c.total),
                       py::cast(c.kinds), py::int_(c.sameCodeSpeedupChanges), py::int_(c.recorded), py::int_(c.agree)});
        py::list dis;
        for (const auto& x : a.disagreements) {
            py::dict d;
            d["gpu"] = x.gpu;
            d["method"] = x.method;
            d["task"] = x.taskId;
            d["from_round"] = x.fromRound;
            d["to_round"] = x.toRound;
            d["kind"] = kbx::rounds::kindString(x.kinds);
            d["recorded_kind"] = optStr(x.recordedKind);
            d["origin"] = x.origin;
            dis.append(d);
        }
        py::dict d;
        d["rounds"] = rounds.toPython(false);
        d["transitions"] = trans.toPython(false);
        d["disagreements"] = dis;
        d["recorded"] = a.recorded;
        d["agree"] = a.agree;
        return d;
    }

    py::object tasks(bool columns) const
    {
        // Per task: every evaluation, and the latest evaluation of each submission per GPU (the
        // counting rule of kbx report) for the rates.
        const auto rows = store().query(
            "SELECT v.task_id, v.category, count(*) AS n, sum(v.call_ok) AS call_ok, sum(v.exe_ok) AS exe_ok, "
            "sum(v.verdict = 'pass') AS passed, group_concat(DISTINCT v.method) AS methods, "
            "group_concat(DISTINCT v.gpu) AS gpus, "
            "(SELECT count(*) FROM evaluations e WHERE e.task_id = v.task_id) AS evaluations "
            "FROM evaluation_rows v JOIN (SELECT max(id) AS id FROM evaluation_rows GROUP BY submission_id, gpu) latest "
            "ON latest.id = v.id GROUP BY v.task_id ORDER BY v.task_id");
        auto split = [](const json& cell) {
            std::set<std::string> s;
            if (cell.is_string()) {
                const auto& t = cell.get_ref<const std::string&>();
                std::size_t start = 0;
                for (;;) {
                    auto comma = t.find(',', start);
                    s.insert(t.substr(start, comma - start));
                    if (comma == std::string::npos)
                        break;
                    start = comma + 1;
                }
            }
            return std::vector<std::string>(s.begin(), s.end());
        };
        Table t({"task", "category", "n", "call_ok", "exe_ok", "passed", "methods", "gpus", "evaluations"});
        for (const auto& r : rows)
            t.add({toPy(r["task_id"]), toPy(r["category"]), toPy(r["n"]), toPy(r["call_ok"]), toPy(r["exe_ok"]),
                   toPy(r["passed"]), py::cast(split(r["methods"])), py::cast(split(r["gpus"])), toPy(r["evaluations"])});
        return t.toPython(columns);
    }

    py::object report(bool columns) const
    {
        Table t({"gpu", "method", "round", "category", "total", "call_ok", "exe_ok"});
        for (const auto& r : store().report())
            t.add({py::str(r.gpu), py::str(r.method), py::int_(r.round), py::str(r.category), py::int_(r.total),
                   py::int_(r.callOk), py::int_(r.exeOk)});
        return t.toPython(columns);
    }

    py::dict choices() const
    {
        const auto c = kbx::analysis::choices(store());
        py::dict d;
        d["methods"] = c.methods;
        d["rounds"] = c.rounds;
        d["gpus"] = c.gpus;
        d["categories"] = c.categories;
        d["runs"] = c.runs;
        return d;
    }

    py::object rows(const py::object& method, const py::object& round, const py::object& gpu, const py::object& category,
                    bool columns) const
    {
        Table t({"id", "run_id", "submission_id", "task", "category", "method", "round", "gpu", "pass", "call_ok", "exe_ok",
                 "failure_class", "manual_class", "speedup"});
        for (const auto& r : kbx::analysis::loadRows(store(), makeFilters(method, round, gpu, category)))
            t.add({py::int_(r.id), py::int_(r.runId), py::int_(r.submissionId), py::str(r.taskId), py::str(r.category),
                   py::str(r.method), py::int_(r.round), py::str(r.gpu), py::bool_(r.pass), py::bool_(r.callOk),
                   py::bool_(r.exeOk), optStr(r.failureClass), optStr(r.manualClass), optDouble(r.speedup)});
        return t.toPython(columns);
    }

    py::dict datasets(const py::object& method, const py::object& round, const py::object& gpu, const py::object& category) const
    {
        return datasetsDict(kbx::analysis::compute(store(), makeFilters(method, round, gpu, category)));
    }

    py::list fastP(const py::object& grid, const py::object& method, const py::object& round, const py::object& gpu,
                   const py::object& category) const
    {
        const auto rows = kbx::analysis::loadRows(store(), makeFilters(method, round, gpu, category));
        return fastPList(kbx::analysis::fastP(rows, grid.is_none() ? kbx::analysis::logGrid() : grid.cast<std::vector<double>>()));
    }

    py::list devianceAnalysis(const std::vector<std::string>& factors, const py::object& method, const py::object& round,
                              const py::object& gpu, const py::object& category) const
    {
        static const std::set<std::string> known = {"category", "method", "task", "gpu", "round"};
        if (factors.empty())
            throw py::value_error("deviance_analysis: give at least one factor");
        for (const auto& f : factors)
            if (!known.count(f))
                throw py::value_error(fmt::format("deviance_analysis: unknown factor '{}' (known: category, method, task, gpu, round)", f));
        // exe correctness ~ factors, one analysis per (GPU, round) as kbx report --table deviance:
        // the latest evaluation of every submission per GPU; verdicts of different devices or rounds
        // are never pooled.
        const auto where = whereClause(makeFilters(method, round, gpu, category));
        std::map<std::pair<std::string, int>, std::vector<kbx::glm::Outcome>> groups;
        for (const auto& r : store().query(fmt::format(
                 "SELECT v.gpu, v.round, v.category, v.method, v.task_id, v.exe_ok FROM evaluation_rows v "
                 "JOIN (SELECT max(id) AS id FROM evaluation_rows{} GROUP BY submission_id, gpu) latest ON latest.id = v.id",
                 where))) {
            const std::string g = r["gpu"].is_string() ? r["gpu"].get<std::string>() : "";
            const int rd = r["round"].get<int>();
            kbx::glm::Outcome o;
            for (const auto& f : factors)
                o.levels.push_back(f == "category" ? r["category"].get<std::string>()
                                   : f == "method" ? r["method"].get<std::string>()
                                   : f == "task"   ? r["task_id"].get<std::string>()
                                   : f == "gpu"    ? g
                                                   : std::to_string(rd));
            o.success = r["exe_ok"].get<int>() != 0;
            groups[{g, rd}].push_back(std::move(o));
        }
        py::list out;
        for (const auto& [key, outcomes] : groups) {
            auto d = devianceDict(kbx::glm::devianceAnalysis(factors, outcomes));
            d["gpu"] = key.first;
            d["round"] = key.second;
            out.append(d);
        }
        return out;
    }

    py::object table(const std::string& name, const std::string& format, const py::object& method, const py::object& round,
                     const py::object& gpu, const py::object& category, bool allTasks)
    {
        static const std::map<std::string, kbx::stats::Format> formats = {
            {"json", kbx::stats::Format::Json}, {"records", kbx::stats::Format::Json}, {"text", kbx::stats::Format::Text},
            {"csv", kbx::stats::Format::Csv}, {"latex", kbx::stats::Format::Latex}};
        const auto fmtIt = formats.find(format);
        if (fmtIt == formats.end())
            throw py::value_error(fmt::format("table: unknown format '{}' (json, records, text, csv, latex)", format));
        if (!kbx::stats::isTableName(name)) {
            std::string known;
            for (const auto& n : kbx::stats::tableNames())
                known += (known.empty() ? "" : ", ") + n;
            throw py::value_error(fmt::format("table: unknown table '{}' (known: {})", name, known));
        }
        if (!m_store)
            throw kbx::StoreError(fmt::format("{} is closed", m_path.string()));
        // Code quality only from the cache: the module never runs radon nor writes.
        kbx::stats::ReportOptions options;
        options.quality = false;
        auto filters = makeFilters(method, round, gpu, category);
        if (!allTasks) {
            // As kbx report: the benchmark's own tasks unless all_tasks=True (imported corpora carry others).
            try {
                const auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
                for (const auto& t : cat.tasks())
                    filters.tasks.push_back(t.id);
                filters.tasksLabel = fmt::format("the benchmark's {} tasks", filters.tasks.size());
            } catch (const std::exception&) {
                // no task index beside this module: every task counts (as all_tasks=True)
            }
        }
        const auto report = kbx::stats::buildReport(*m_store, name, filters, options);
        const auto text = kbx::stats::render(report, fmtIt->second);
        if (fmtIt->second != kbx::stats::Format::Json)
            return py::str(text);
        if (format != "records")
            return toPy(json::parse(text));
        // Flat records, DataFrame-ready: one dict per row, its table's name in "table", an interval
        // column as KEY_lo and KEY_hi.
        const auto doc = json::parse(text);
        json records = json::array();
        for (const auto& t : doc.value("tables", json::array())) {
            for (const auto& row : t.value("rows", json::array())) {
                json r = {{"table", t.value("name", "")}};
                for (const auto& [key, v] : row.items()) {
                    if (v.is_object() && v.contains("lo") && v.contains("hi")) {
                        r[key + "_lo"] = v["lo"];
                        r[key + "_hi"] = v["hi"];
                    } else {
                        r[key] = v;
                    }
                }
                records.push_back(std::move(r));
            }
        }
        return toPy(records);
    }

private:
    std::filesystem::path m_path;
    std::unique_ptr<kbx::Store> m_store;
};

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
)doc";

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

    py::class_<Database>(m, "Database", R"doc(A kbx result database, opened for reading by kbx.open(path).

Tables (list of dicts; columns=True: dict of equal-length lists; both for pandas.DataFrame):
  evaluations, evaluation, rows, timings, runs, imports, golden_timings, seed_summaries,
  transitions, tasks, report.
Analyses (plain dicts and lists): choices, datasets, fast_p, deviance_analysis, round_analysis,
table (every `kbx report --table` table).
Filters (method, round, gpu, category) take one value or a list; None means all. gpu is the
view's gpu column, e.g. "NVIDIA H200", "CPU (Triton interpreter)" or an imported run's GPU.
)doc")
        .def_property_readonly("path", &Database::path, "The database file as given to kbx.open.")
        .def_property_readonly("schema_version", &Database::schemaVersion, "The schema version (PRAGMA user_version).")
        .def_property_readonly("read_only", &Database::readOnly,
                               "Whether the database was opened read-only: this user cannot write the file or its directory "
                               "(e.g. the installed demo). The module only reads either way.")
        .def_property_readonly("closed", &Database::closed, "Whether close() was called.")
        .def("close", &Database::close, "Closes the database; later calls raise kbx.StoreError.")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](Database& d, py::args) { d.close(); return false; })
        .def("__repr__", &Database::repr)
        .def("evaluations", &Database::evaluations, py::kw_only(), py::arg("method") = py::none(), py::arg("round") = py::none(),
             py::arg("gpu") = py::none(), py::arg("category") = py::none(), py::arg("task") = py::none(),
             py::arg("latest") = false, py::arg("columns") = false,
             R"doc(Evaluations from the store's evaluation_rows view, one row each, sorted by id.

Columns: id, run_id, task ("Category/stem"), category, method, round, device ("cpu", "cuda" or
"imported"), gpu, imported (bool), verdict ("pass"/"fail"), stage ("pass", "call" or "exe": where
it failed), call_ok, exe_ok (bools), failure_class (taxonomy id or None), manual_class and
manual_note (the failure inspector's label or None), failure_detail, speedup (geometric mean of
baseline_ms/candidate_ms over the timed perf shapes, correct evaluations only, else None),
timed_shapes, candidate_id, submission_id, started_at, finished_at.

latest=True keeps only the latest evaluation of each submission among the filtered ones (the
counting rule of the statistics). task filters on "Category/stem" ids.)doc")
        .def("evaluation", &Database::evaluation, py::arg("id"),
             R"doc(One evaluation in full: the evaluations() columns plus evidence and stage_seconds (parsed
JSON), taxonomy_version, the candidate's code and code_hash, the submission's origin, cases (index,
name, status, failure_class, evidence) and timings (with raw samples). KeyError when there is none.)doc")
        .def("rows", &Database::rows, py::kw_only(), py::arg("method") = py::none(), py::arg("round") = py::none(),
             py::arg("gpu") = py::none(), py::arg("category") = py::none(), py::arg("columns") = false,
             R"doc(The rows the figures and statistics count (core/analysis loadRows): the latest evaluation of
every submission under the filters, with pass, call_ok, exe_ok, failure_class, manual_class, speedup.)doc")
        .def("timings", &Database::timings, py::kw_only(), py::arg("evaluation_id") = py::none(), py::arg("samples") = false,
             py::arg("columns") = false,
             R"doc(Perf-stage timings, one row per evaluation and perf shape: id, evaluation_id, task, category,
method, round, gpu, verdict, shape, candidate_ms and baseline_ms (medians), speedup
(baseline/candidate). samples=True adds the raw samples and derived numbers (parsed JSON).)doc")
        .def("runs", &Database::runs, py::kw_only(), py::arg("columns") = false,
             R"doc(Runs: id, started_at, finished_at, status, device, provenance (dict: versions, GPU, sandbox,
or for imports the format, file, GPU and method), public_seeds, secret_seed, args, evaluations.)doc")
        .def("imports", &Database::imports, py::kw_only(), py::arg("columns") = false,
             "kbx import runs: id, imported_at, format, source, sha256, options, files, notes.")
        .def("golden_timings", &Database::goldenTimings, py::kw_only(), py::arg("gpu") = py::none(), py::arg("task") = py::none(),
             py::arg("columns") = false,
             R"doc(The seed's imported golden eager timings: id, import_id, gpu, task (the seed's name), task_id
("Category/stem" where known, else None), index, input_size (parsed), ms, gbs, tflops, file.
task filters on either name; gpu on the seed's GPU folder name.)doc")
        .def("seed_summaries", &Database::seedSummaries, py::kw_only(), py::arg("columns") = false,
             "Imported seed summary.json aggregates: gpu, method, round, total, call_pass, exe_pass, perf_pass, "
             "avg_speedup, avg_speedup_per_task, fields (all of the file's fields), file.")
        .def("transitions", &Database::transitions, py::kw_only(), py::arg("columns") = false,
             R"doc(Round-to-round transitions (core/rounds loadTransitions): every imported corpus record with
its recorded kind, and for our own evaluations each task's round r against round r+1 of the same
method and GPU. Columns: gpu, method, task, from_round, to_round, kind (computed, comma-joined or
"unchanged"), kinds (list), recorded_kind (the corpus's own, or None), agrees, same_code, the
before_/after_ call_ok, exe_ok, perf_ok, speedup, and origin.)doc")
        .def("round_analysis", &Database::roundAnalysis,
             R"doc(Per-round rates and transition counts (core/rounds analyseRounds, as kbx report --table
rounds): {"rounds": [gpu, method, round, n, call_ok, exe_ok, timed, mean_speedup,
geomean_speedup], "transitions": [gpu, method, from_round, to_round, total, kinds (kind -> count),
same_code_speedup_changes, recorded, agree], "disagreements": [...], "recorded", "agree"}.)doc")
        .def("tasks", &Database::tasks, py::kw_only(), py::arg("columns") = false,
             R"doc(The tasks this database has evaluations of: task, category, n (latest evaluation of each
submission per GPU), call_ok, exe_ok, passed (counts among those), methods, gpus (lists),
evaluations (all, every run). For the benchmark's own task list see kbx.catalogue().)doc")
        .def("report", &Database::report, py::kw_only(), py::arg("columns") = false,
             "The rows of `kbx report`: gpu, method, round, category, total, call_ok, exe_ok (latest evaluation of "
             "every submission per GPU).")
        .def("choices", &Database::choices, "The methods, rounds, gpus, categories and runs present (for filters).")
        .def("datasets", &Database::datasets, py::kw_only(), py::arg("method") = py::none(), py::arg("round") = py::none(),
             py::arg("gpu") = py::none(), py::arg("category") = py::none(),
             R"doc(Every figure dataset of the workbench (core/analysis compute) as plain dicts: filters, runs,
row_count, correctness (category x method cells and per-method totals of call/exe rates, each
{k, n, rate, lo, hi} with Wilson bounds), compile (per method), speedup (per method: sorted
speedups, correct, total, box statistics), fast_p, taxonomy_by_category, taxonomy_by_method,
rounds (pass rate per round per method).)doc")
        .def("fast_p", &Database::fastP, py::kw_only(), py::arg("grid") = py::none(), py::arg("method") = py::none(),
             py::arg("round") = py::none(), py::arg("gpu") = py::none(), py::arg("category") = py::none(),
             R"doc(fast_p per method: for each p of grid (default log_grid(): 41 points 0.1 .. 10), the fraction
of the method's evaluations that are correct AND faster than p x eager. [{method, n, p, fraction}].)doc")
        .def("table", &Database::table, py::arg("name"), py::kw_only(), py::arg("format") = "json",
             py::arg("method") = py::none(), py::arg("round") = py::none(), py::arg("gpu") = py::none(),
             py::arg("category") = py::none(), py::arg("all_tasks") = false,
             R"doc(One table of `kbx report --table NAME` (names in kbx.TABLES: method-summary, category-method,
deviance, rounds, rescued, cross-hardware, slow-fraction, taxonomy) under the filters, with its
provenance. format "json" (default) gives the report as a dict {name, provenance, tables: [{name,
title, columns, rows, notes}], notes}; "records" gives flat rows for pandas.DataFrame: a list of
dicts, each with its table's name in "table" and an interval column as KEY_lo and KEY_hi; "text",
"csv" and "latex" give the rendered str. As `kbx report`, the benchmark's own tasks only unless
all_tasks=True (a report note says what was left out). Code quality comes from the database's
cache only (`kbx report` measures what is missing).)doc")
        .def("deviance_analysis", &Database::devianceAnalysis, py::arg("factors") = std::vector<std::string>{"category", "method"},
             py::kw_only(), py::arg("method") = py::none(), py::arg("round") = py::none(), py::arg("gpu") = py::none(),
             py::arg("category") = py::none(),
             R"doc(Binomial GLM deviance analysis of exe correctness on factors (any of category, method, task,
gpu, round), one analysis per (GPU, round) as `kbx report --table deviance`: a list of the dicts
kbx.deviance_analysis returns, each with its gpu and round.)doc");

    m.attr("TABLES") = kbx::stats::tableNames();

    m.def("open", [](const py::object& path) { return std::make_unique<Database>(fsPath(path)); }, py::arg("path"),
          R"doc(Opens a kbx result database for reading and returns a kbx.Database.

A database this user cannot write (the file or its directory; e.g. the installed demo
/usr/share/kbx/demo.sqlite) is opened read-only (Database.read_only) and never changed: no journal
file is made beside it. Raises FileNotFoundError when there is no such file (nothing is created),
and kbx.StoreError with the store's message when the file is not an SQLite database, not a kbx
database, or has a newer schema than this module understands. A database of an older kbx is
migrated forward when this user can write it, as every kbx program does on open; when this user
cannot, kbx.StoreError says so and suggests working on a copy.)doc");

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
