// SPDX-License-Identifier: MIT
// The parts of kbx::Store that the read layer (core/query) needs beside store.cpp's: statements with
// bound parameters, a cancel flag for queries a newer one overtook, and the SQL functions every
// connection gets (kbx_speedup). The one SQLite wrapper is core/sqlite_stmt.h.
#include "store.h"
#include "store_sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>

namespace kbx {

namespace {

/// kbx_speedup(baseline, candidate): see Store::registerFunctions.
struct SpeedupAcc {
    double logSum;
    double first;
    std::int64_t count;
};

void speedupStep(sqlite3_context* ctx, int, sqlite3_value** argv)
{
    auto* a = static_cast<SpeedupAcc*>(sqlite3_aggregate_context(ctx, sizeof(SpeedupAcc)));
    if (!a || sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
        return;
    const double s = sqlite3_value_double(argv[0]) / sqlite3_value_double(argv[1]);
    if (!std::isfinite(s) || s <= 0)
        return;
    if (a->count == 0)
        a->first = s;
    a->logSum += std::log(s);
    ++a->count;
}

void speedupFinal(sqlite3_context* ctx)
{
    auto* a = static_cast<SpeedupAcc*>(sqlite3_aggregate_context(ctx, 0));
    if (!a || a->count == 0)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_double(ctx, a->count == 1 ? a->first : std::exp(a->logSum / double(a->count)));
}

int cancelHandler(void* flag)
{
    return static_cast<const std::atomic<bool>*>(flag)->load() ? 1 : 0;
}

/// One parameter of Store::each, bound by its type.
void bindValue(store_detail::Stmt& st, int index, const SqlValue& v)
{
    if (std::holds_alternative<std::int64_t>(v))
        st.bind(index, std::get<std::int64_t>(v));
    else if (std::holds_alternative<double>(v))
        st.bind(index, std::get<double>(v));
    else if (std::holds_alternative<std::string>(v))
        st.bind(index, std::get<std::string>(v));
    else
        st.bindNull(index);
}

}  // namespace

void Store::registerFunctions(sqlite3* db)
{
    sqlite3_create_function_v2(db, "kbx_speedup", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, nullptr, speedupStep,
                               speedupFinal, nullptr);
}

void Store::setCancelFlag(const std::atomic<bool>* flag)
{
    std::lock_guard lock(m_mutex);
    if (flag)
        sqlite3_progress_handler(m_db, 2000, &cancelHandler, const_cast<std::atomic<bool>*>(flag));
    else
        sqlite3_progress_handler(m_db, 0, nullptr, nullptr);
}

void Store::each(const std::string& sql, const std::vector<SqlValue>& params, const std::function<void(const Cursor&)>& fn) const
{
    std::lock_guard lock(m_mutex);
    store_detail::Stmt st(m_db, sql);
    for (std::size_t i = 0; i < params.size(); ++i)
        bindValue(st, static_cast<int>(i + 1), params[i]);
    const Cursor cursor(st.raw());
    while (st.step())
        fn(cursor);
}

SqlValue Store::Cursor::value(int c) const
{
    auto* st = static_cast<sqlite3_stmt*>(m_stmt);
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(st, c);
    case SQLITE_FLOAT: return sqlite3_column_double(st, c);
    case SQLITE_NULL: return std::monostate{};
    default: return text(c);
    }
}

}  // namespace kbx
