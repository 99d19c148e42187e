// SPDX-License-Identifier: MIT
// The `kbx` Python module's conversions (pyconvert.h).
#include "pyconvert.h"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <cmath>

namespace kbxpy {

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

}  // namespace kbxpy
