// SPDX-License-Identifier: MIT
#pragma once
// The `kbx` Python module's conversions: JSON and the core's results to Python objects, Python
// arguments (filters, numbers, rows) to the core's types, and the Table of fixed columns that every
// table method returns (a list of dicts, or with columns=True a dict of equal-length lists).

#include "analysis.h"
#include "glm.h"
#include "rounds.h"

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbxpy {

namespace py = pybind11;
using nlohmann::json;

py::object toPy(const json& j);
/// A text column holding JSON (provenance, options, evidence): parsed, or the text itself when it
/// is not JSON.
py::object parsedJson(const json& cell);

inline py::object optDouble(const std::optional<double>& v) { return v ? py::object(py::float_(*v)) : py::object(py::none()); }
inline py::object optStr(const std::optional<std::string>& v) { return v ? py::object(py::str(*v)) : py::object(py::none()); }
template <class T>
py::object optInt(const std::optional<T>& v) { return v ? py::object(py::int_(*v)) : py::object(py::none()); }
/// A nullable text column holding JSON: parsed (the text itself when it is not JSON), or None.
inline py::object optJson(const std::optional<std::string>& v) { return v ? parsedJson(json(*v)) : py::object(py::none()); }

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
std::string fsPath(const py::object& p);
/// One value or a list of them (None: none), as str / int; `name` is the argument's, for errors.
std::vector<std::string> stringList(const py::object& o, const char* name);
std::vector<int> intList(const py::object& o, const char* name);
kbx::analysis::Filters makeFilters(const py::object& method, const py::object& round, const py::object& gpu,
                                   const py::object& category);

py::dict filtersDict(const kbx::analysis::Filters& f);
py::dict rateDict(const kbx::analysis::Rate& r);
py::dict factorTestDict(const kbx::glm::FactorTest& t);
py::dict devianceDict(const kbx::glm::DevianceAnalysis& a);
kbx::rounds::State stateFrom(const py::dict& d, const char* name);
py::dict boxDict(const kbx::analysis::BoxStats& b);
py::list fastPList(const std::vector<kbx::analysis::FastPCurve>& curves);
py::dict taxonomyDict(const kbx::analysis::Taxonomy& t);
py::dict datasetsDict(const kbx::analysis::Datasets& ds);

/// Finite numbers > 0 (speedups, times); `what` names the function, for errors.
std::vector<double> positiveValues(const py::object& values, const char* what);
std::vector<std::vector<double>> shapeSamples(const py::object& o, const char* what);
/// Rows for deviance_analysis(): a list of dicts, a dict of equal-length columns, or anything with
/// to_dict("records") (a pandas DataFrame).
py::list recordsOf(const py::object& data);

/// Registers kbx.Database, kbx.open and kbx.TABLES on the module (database.cpp).
void bindDatabase(py::module_& m);

}  // namespace kbxpy
