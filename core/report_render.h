// SPDX-License-Identifier: MIT
#pragma once
// A report of `kbx report` (tables of raw JSON values, notes, provenance) and its four renderings:
// terminal text, CSV, JSON and LaTeX booktabs. Plain C++20, no Qt.

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kbx::stats {

/// How a column's values are shown (the JSON and CSV keep the raw value).
enum class Kind { Text, Int, Percent, Ratio, Real, PValue, Interval, PercentInterval };

struct Column {
    std::string key;     ///< CSV/JSON name (Interval columns: key_lo and key_hi in CSV)
    std::string header;  ///< terminal/LaTeX header
    Kind kind = Kind::Text;
};

/// One table: rows of raw JSON values (null: not available, shown "n/a"; intervals as [lo, hi]).
struct Table {
    std::string name;
    std::string title;
    std::vector<Column> columns;
    std::vector<std::vector<nlohmann::json>> rows;
    std::vector<std::string> notes;  ///< printed under the table (and kept in JSON/CSV/LaTeX)
};

struct Report {
    std::string name;
    nlohmann::json provenance = nlohmann::json::object();
    std::vector<Table> tables;
    std::vector<std::string> notes;  ///< for the whole report (e.g. "code quality n/a: radon missing")
};

/// The tables moved into a vector (a braced list would copy them: an initializer_list holds const
/// elements, and a table of a million-row database has hundreds of thousands of rows).
template <class... Ts>
std::vector<Table> tablesOf(Ts&&... tables)
{
    std::vector<Table> v;
    v.reserve(sizeof...(tables));
    (v.push_back(std::forward<Ts>(tables)), ...);
    return v;
}

enum class Format { Text, Csv, Json, Latex };
std::string render(const Report& report, Format format);

}  // namespace kbx::stats
