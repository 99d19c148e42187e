// SPDX-License-Identifier: MIT
// What merge.cpp (inputs, the transaction) and merge_copy.cpp (the rows copied, the ledger) share:
// a prepared statement and exec over the target connection (the input attached as `src`), and the
// copy itself. Internal to kbx merge: included by no caller.
#pragma once

#include "merge.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace kbx::merge_detail {

class Stmt {
public:
    Stmt(sqlite3* db, const std::string& sql) : m_db(db)
    {
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &m_s, nullptr) != SQLITE_OK)
            throw MergeError(fmt::format("SQL prepare failed: {} ({})", sqlite3_errmsg(db), sql.substr(0, 120)));
    }
    ~Stmt() { sqlite3_finalize(m_s); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    Stmt& reset()
    {
        sqlite3_reset(m_s);
        sqlite3_clear_bindings(m_s);
        return *this;
    }
    Stmt& bind(int i, const std::string& v)
    {
        sqlite3_bind_text(m_s, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt& bind(int i, std::int64_t v)
    {
        sqlite3_bind_int64(m_s, i, v);
        return *this;
    }
    Stmt& bindValue(int i, sqlite3_value* v)
    {
        sqlite3_bind_value(m_s, i, v);
        return *this;
    }
    bool step()
    {
        const int rc = sqlite3_step(m_s);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        throw MergeError(fmt::format("SQL failed: {} ({})", sqlite3_errmsg(m_db), std::string(sqlite3_sql(m_s)).substr(0, 120)));
    }
    std::int64_t i64(int c) const { return sqlite3_column_int64(m_s, c); }
    std::string text(int c) const
    {
        auto* p = sqlite3_column_text(m_s, c);
        return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(m_s, c))) : std::string();
    }
    bool isNull(int c) const { return sqlite3_column_type(m_s, c) == SQLITE_NULL; }
    sqlite3_value* value(int c) const { return sqlite3_column_value(m_s, c); }
    int columns() const { return sqlite3_column_count(m_s); }
    sqlite3_stmt* raw() const { return m_s; }

private:
    sqlite3* m_db;
    sqlite3_stmt* m_s = nullptr;
};

inline void exec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errmsg(db);
        sqlite3_free(err);
        throw MergeError(fmt::format("{} ({})", msg, sql.substr(0, 80)));
    }
}

/// Merges the input attached as `src` into `main` (db), inside the caller's transaction: merge_copy.cpp.
MergeReport mergeRows(sqlite3* db, const std::string& sourceName);

}  // namespace kbx::merge_detail
