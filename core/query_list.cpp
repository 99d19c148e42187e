// SPDX-License-Identifier: MIT
// The read-query layer (query.h), part two: the Results table over the view evaluation_rows,
// filtered and sorted in SQL, read a window at a time (keyset after a row, or an offset), counted
// apart, and streamed whole for the CSV export.
#include "query.h"
#include "query_reports.h"

#include <fmt/format.h>

#include <algorithm>

namespace kbx::query {

namespace {

using Cursor = Store::Cursor;

// The speedup of kbx report (core/analysis loadRows): verdict pass, shapes with both times > 0.
constexpr const char* kSpeedupSql =
    "(CASE WHEN verdict = 'pass' THEN (SELECT kbx_speedup(t.baseline_ms, t.candidate_ms) FROM timings t "
    "WHERE t.evaluation_id = evaluation_rows.id AND t.candidate_ms > 0 AND t.baseline_ms > 0) END)";

constexpr int kColumns = static_cast<int>(Column::Count);

/// Each column's SQL in evaluation_rows (the detail's first 300 characters).
constexpr const char* kColumnSql[kColumns] = {
    "id", "task_id", "method", "round", "gpu", "verdict", "stage", "failure_class", "manual_class", "finished_at",
    "CASE WHEN ext_cases IS NULL THEN '' ELSE ext_passed || '/' || ext_cases END", "run_id", kSpeedupSql,
    "substr(failure_detail, 1, 300)"};

/// A column's sort key. NULL never takes part in a keyset comparison: NULLs sort as '' (text) or,
/// without a speedup, below every speedup.
std::string sortKey(Column column)
{
    switch (column) {
    case Column::FailureClass: return "ifnull(failure_class, '')";
    case Column::ManualClass: return "ifnull(manual_class, '')";
    case Column::Detail: return "ifnull(failure_detail, '')";
    case Column::Speedup: return fmt::format("ifnull({}, -1.0)", kSpeedupSql);
    default: {
        const int c = static_cast<int>(column);
        return c >= 0 && c < kColumns ? kColumnSql[c] : "id";
    }
    }
}

std::string columnsSql(bool wholeDetail)
{
    std::string cols;
    for (int c = 0; c < kColumns; ++c)
        cols += fmt::format("{}{}", c ? ", " : "", c == static_cast<int>(Column::Detail) && wholeDetail ? "failure_detail" : kColumnSql[c]);
    return cols;
}

std::optional<std::string> optText(const Cursor& c, int col)
{
    return c.isNull(col) ? std::nullopt : std::optional<std::string>(c.text(col));
}

ListedEvaluation readListed(const Cursor& c)
{
    ListedEvaluation r;
    r.id = c.i64(0);
    r.taskId = c.text(1);
    r.method = c.text(2);
    r.round = c.i64(3);
    r.gpu = c.text(4);
    r.verdict = c.text(5);
    r.stage = c.text(6);
    r.failureClass = optText(c, 7);
    r.manualClass = optText(c, 8);
    r.finishedAt = c.text(9);
    r.extended = optText(c, 10);
    r.runId = c.i64(11);
    if (!c.isNull(12))
        r.speedup = c.f64(12);
    r.detail = optText(c, 13);
    return r;
}

/// A WHERE condition and its bound values.
struct Where {
    std::string sql;
    std::vector<SqlValue> params;
};

Where whereOf(const EvaluationFilter& f)
{
    Where w;
    std::vector<std::string> parts;
    auto add = [&](std::string clause, SqlValue v) {
        parts.push_back(std::move(clause));
        w.params.push_back(std::move(v));
    };
    if (!f.method.empty())
        add("method = ?", f.method);
    if (f.round)
        add("round = ?", *f.round);
    if (!f.gpu.empty())
        add("gpu = ?", f.gpu);
    if (!f.category.empty()) {
        // A range on task_id uses its index: "Cat/" <= task_id < "Cat0" ('0' follows '/').
        add("task_id >= ?", f.category + '/');
        add("task_id < ?", f.category + '0');
    }
    if (!f.stage.empty())
        add("stage = ?", f.stage);
    if (f.failureClass) {
        if (f.failureClass->empty())
            parts.push_back("failure_class IS NULL");
        else
            add("failure_class = ?", *f.failureClass);
    }
    if (!f.text.empty()) {
        std::string like = "%";
        for (char ch : f.text) {
            if (ch == '\\' || ch == '%' || ch == '_')
                like += '\\';
            like += ch;
        }
        like += '%';
        parts.push_back("(task_id LIKE ? ESCAPE '\\' OR method LIKE ? ESCAPE '\\' OR ifnull(failure_class, '') LIKE ? ESCAPE '\\' "
                        "OR ifnull(failure_detail, '') LIKE ? ESCAPE '\\')");
        for (int i = 0; i < 4; ++i)
            w.params.emplace_back(like);
    }
    if (f.runId > 0)
        add("run_id = ?", f.runId);
    if (!f.taskId.empty())
        add("task_id = ?", f.taskId);
    if (f.countedOnly)  // the reports' counting rule (countedEvaluationsSql, core/query_reports.h)
        parts.push_back(fmt::format("id IN ({})", countedEvaluationsSql({})));
    for (std::size_t i = 0; i < parts.size(); ++i)
        w.sql += (i ? " AND " : "") + parts[i];
    return w;
}

std::string orderBy(Column sort, bool desc)
{
    const char* dir = desc ? " DESC" : "";
    return sort == Column::Id ? fmt::format(" ORDER BY id{}", dir) : fmt::format(" ORDER BY {}{}, id{}", sortKey(sort), dir, dir);
}

}  // namespace

std::int64_t countEvaluations(const Store& store, const EvaluationFilter& filter)
{
    const Where w = whereOf(filter);
    std::int64_t n = 0;
    store.each("SELECT count(*) FROM evaluation_rows" + (w.sql.empty() ? std::string() : " WHERE " + w.sql), w.params,
               [&](const Cursor& c) { n = c.i64(0); });
    return n;
}

std::vector<ListedEvaluation> listEvaluations(const Store& store, const EvaluationFilter& filter, const Window& window)
{
    const Where where = whereOf(filter);
    const std::string key = sortKey(window.sort);
    const bool keyIsId = window.sort == Column::Id;
    const bool desc = window.descending != window.reverse;
    const char* cmp = desc ? "<" : ">";
    std::vector<std::string> conds;
    if (!where.sql.empty())
        conds.push_back(where.sql);
    std::vector<SqlValue> params = where.params;
    std::int64_t offset = window.offset;
    if (keyIsId && where.sql.empty() && offset > 0 && !window.after) {
        // The whole table in id order (the default): the row `offset` places in comes from the
        // evaluations' own b-tree, without the view's joins for every row skipped over.
        std::optional<std::int64_t> start;
        store.each(fmt::format("SELECT id FROM evaluations ORDER BY id{} LIMIT 1 OFFSET {}", desc ? " DESC" : "", offset), {},
                   [&](const Cursor& c) { start = c.i64(0); });
        if (start) {
            conds.push_back(fmt::format("id {}= ?", cmp));
            params.emplace_back(*start);
            offset = 0;
        }
    }
    if (window.after) {
        if (keyIsId) {
            conds.push_back(fmt::format("id {} ?", cmp));
        } else {
            conds.push_back(fmt::format("({}, id) {} (?, ?)", key, cmp));
            params.push_back(window.after->first);
        }
        params.emplace_back(window.after->second);
    }
    std::string sql = fmt::format("SELECT {}, {} FROM evaluation_rows", columnsSql(false), key);
    for (std::size_t i = 0; i < conds.size(); ++i)
        sql += (i ? " AND " : " WHERE ") + conds[i];
    sql += orderBy(window.sort, desc);
    sql += fmt::format(" LIMIT {}", window.limit);
    if (offset > 0)
        sql += fmt::format(" OFFSET {}", offset);
    std::vector<ListedEvaluation> rows;
    store.each(sql, params, [&](const Cursor& c) {
        rows.push_back(readListed(c));
        rows.back().key = c.value(kColumns);
    });
    if (window.reverse)
        std::reverse(rows.begin(), rows.end());
    return rows;
}

void eachEvaluation(const Store& store, const EvaluationFilter& filter, Column sort, bool descending,
                    const std::function<void(const ListedEvaluation&)>& fn)
{
    const Where w = whereOf(filter);
    std::string sql = fmt::format("SELECT {} FROM evaluation_rows", columnsSql(true));
    if (!w.sql.empty())
        sql += " WHERE " + w.sql;
    sql += orderBy(sort, descending);
    store.each(sql, w.params, [&](const Cursor& c) { fn(readListed(c)); });
}

std::vector<ListedEvaluation> evaluationsById(const Store& store, const std::vector<std::int64_t>& ids)
{
    std::string list = "[";
    for (std::size_t i = 0; i < ids.size(); ++i)
        list += fmt::format("{}{}", i ? "," : "", ids[i]);
    list += "]";
    std::vector<ListedEvaluation> rows;
    store.each(fmt::format("SELECT {} FROM evaluation_rows WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id", columnsSql(true)),
               {list}, [&](const Cursor& c) { rows.push_back(readListed(c)); });
    return rows;
}

}  // namespace kbx::query
