// SPDX-License-Identifier: MIT
// The one SQLite wrapper of core's implementation (issue 25): a prepared statement, exec and an
// immediate transaction, each throwing the caller's error type (StoreError for kbx::Store, MergeError
// for kbx merge) with the same wording. Internal: included by the store's own files only (store*.cpp,
// kbx merge's store_merge_internal.h); every other reader goes through kbx::Store (core/store.h) and
// the query layer (core/query.h).
#pragma once

#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace kbx::sql {

template <class Error>
class Stmt {
public:
    Stmt(sqlite3* db, const std::string& sql) : m_db(db)
    {
        if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &m_s, nullptr) != SQLITE_OK)
            throw Error(fmt::format("SQL prepare failed: {} ({})", sqlite3_errmsg(db), sql.substr(0, 160)));
    }
    ~Stmt() { sqlite3_finalize(m_s); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    /// Ready for the next row of bindings: reset, every parameter NULL again.
    Stmt& reset()
    {
        sqlite3_reset(m_s);
        sqlite3_clear_bindings(m_s);
        return *this;
    }
    Stmt& bind(int i, const std::string& v) { return check(sqlite3_bind_text(m_s, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT), i); }
    /// Any integer (int, std::int64_t, long long) as a 64-bit integer.
    template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
    Stmt& bind(int i, I v)
    {
        return check(sqlite3_bind_int64(m_s, i, static_cast<sqlite3_int64>(v)), i);
    }
    Stmt& bind(int i, double v) { return check(sqlite3_bind_double(m_s, i, v), i); }
    Stmt& bindNull(int i) { return check(sqlite3_bind_null(m_s, i), i); }
    Stmt& bindValue(int i, sqlite3_value* v) { return check(sqlite3_bind_value(m_s, i, v), i); }

    /// True: a row is ready; false: done. Anything else throws with the statement's text.
    bool step()
    {
        const int rc = sqlite3_step(m_s);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        throw Error(fmt::format("SQL failed: {} ({})", sqlite3_errmsg(m_db), std::string(sqlite3_sql(m_s)).substr(0, 160)));
    }
    std::int64_t i64(int c) const { return sqlite3_column_int64(m_s, c); }
    double real(int c) const { return sqlite3_column_double(m_s, c); }
    std::string text(int c) const
    {
        auto* p = sqlite3_column_text(m_s, c);
        return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(m_s, c))) : std::string();
    }
    bool isNull(int c) const { return sqlite3_column_type(m_s, c) == SQLITE_NULL; }
    int type(int c) const { return sqlite3_column_type(m_s, c); }
    const char* name(int c) const { return sqlite3_column_name(m_s, c); }
    sqlite3_value* value(int c) const { return sqlite3_column_value(m_s, c); }
    int columns() const { return sqlite3_column_count(m_s); }
    sqlite3_stmt* raw() const { return m_s; }

private:
    Stmt& check(int rc, int i)
    {
        if (rc != SQLITE_OK)
            throw Error(fmt::format("SQL bind of parameter {} failed: {}", i, sqlite3_errmsg(m_db)));
        return *this;
    }
    sqlite3* m_db;
    sqlite3_stmt* m_s = nullptr;
};

template <class Error>
void exec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errmsg(db);
        sqlite3_free(err);
        throw Error(fmt::format("{} ({})", msg, sql.substr(0, 160)));
    }
}

/// BEGIN IMMEDIATE now; ROLLBACK unless commit() was called.
template <class Error>
class Transaction {
public:
    explicit Transaction(sqlite3* db) : m_db(db) { exec<Error>(m_db, "BEGIN IMMEDIATE"); }
    ~Transaction()
    {
        if (!m_done)
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit()
    {
        exec<Error>(m_db, "COMMIT");
        m_done = true;
    }

private:
    sqlite3* m_db;
    bool m_done = false;
};

}  // namespace kbx::sql
