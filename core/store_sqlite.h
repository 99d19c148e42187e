// SPDX-License-Identifier: MIT
// The SQLite statement and transaction wrappers that store.cpp, store_write.cpp and store_import.cpp
// share: internal to kbx::Store's implementation, included by no caller.
#pragma once

#include "store.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace kbx::store_detail {

struct Stmt {
    sqlite3_stmt* s = nullptr;
    Stmt(sqlite3* db, const std::string& sql)
    {
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
            throw StoreError(fmt::format("SQL prepare failed: {} ({})", sqlite3_errmsg(db), sql.substr(0, 80)));
    }
    ~Stmt() { sqlite3_finalize(s); }
    Stmt& bind(int i, const std::string& v)
    {
        sqlite3_bind_text(s, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt& bind(int i, std::int64_t v)
    {
        sqlite3_bind_int64(s, i, v);
        return *this;
    }
    Stmt& bindNull(int i)
    {
        sqlite3_bind_null(s, i);
        return *this;
    }
    bool step()
    {
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        throw StoreError(fmt::format("SQL step failed: {}", sqlite3_errmsg(sqlite3_db_handle(s))));
    }
    std::int64_t i64(int c) { return sqlite3_column_int64(s, c); }
    std::string text(int c)
    {
        auto* p = sqlite3_column_text(s, c);
        return p ? reinterpret_cast<const char*>(p) : "";
    }
};

class Transaction {
public:
    explicit Transaction(sqlite3* db) : m_db(db) { run("BEGIN IMMEDIATE"); }
    ~Transaction()
    {
        if (!m_done)
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit()
    {
        run("COMMIT");
        m_done = true;
    }

private:
    void run(const char* sql)
    {
        char* err = nullptr;
        if (sqlite3_exec(m_db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "?";
            sqlite3_free(err);
            throw StoreError(fmt::format("{} failed: {}", sql, msg));
        }
    }
    sqlite3* m_db;
    bool m_done = false;
};

}  // namespace kbx::store_detail
