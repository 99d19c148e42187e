// SPDX-License-Identifier: MIT
#pragma once
// A small RAII wrapper over the sqlite3 C API for the workbench's read paths. Each thread opens its
// own connection (connections are cheap; the database is in WAL mode, so readers never block the
// evaluator writing results).
#include <QString>
#include <QVariant>

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>

struct sqlite3;
struct sqlite3_stmt;

namespace kbx::gui {

class SqlError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class SqlStatement;

class SqlConnection {
public:
    /// Opens `path`; read-only unless `writable`. Throws SqlError.
    explicit SqlConnection(const QString& path, bool writable = false);
    ~SqlConnection();
    SqlConnection(const SqlConnection&) = delete;
    SqlConnection& operator=(const SqlConnection&) = delete;

    sqlite3* handle() const { return m_db; }
    void exec(const QString& sql);
    /// Interrupts a query running in another thread (sqlite3_interrupt).
    void interrupt();
    /// Makes running statements fail ("interrupted") soon after *flag becomes true.
    void setInterruptFlag(const std::atomic<bool>* flag);

private:
    sqlite3* m_db = nullptr;
};

class SqlStatement {
public:
    SqlStatement(SqlConnection& db, const QString& sql);
    ~SqlStatement();
    SqlStatement(const SqlStatement&) = delete;
    SqlStatement& operator=(const SqlStatement&) = delete;

    /// Binds QVariant values: null, integers, doubles, anything else as text. 1-based.
    SqlStatement& bind(int index, const QVariant& value);
    /// True while a row is available; throws SqlError on failure.
    bool step();
    void reset();
    int columnCount() const;
    QVariant value(int column) const;
    qint64 int64(int column) const;
    double real(int column) const;
    QString text(int column) const;
    bool isNull(int column) const;

private:
    sqlite3_stmt* m_stmt = nullptr;
    sqlite3* m_db = nullptr;
};

}  // namespace kbx::gui
