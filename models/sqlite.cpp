// SPDX-License-Identifier: MIT
#include "sqlite.h"

#include <sqlite3.h>

namespace kbx::gui {

SqlConnection::SqlConnection(const QString& path, bool writable)
{
    const QByteArray p = path.toUtf8();
    const int flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(p.constData(), &m_db, flags, nullptr) != SQLITE_OK) {
        std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
        sqlite3_close(m_db);
        m_db = nullptr;
        throw SqlError("cannot open " + path.toStdString() + ": " + msg);
    }
    sqlite3_busy_timeout(m_db, 5000);
}

SqlConnection::~SqlConnection()
{
    if (m_db)
        sqlite3_close_v2(m_db);
}

void SqlConnection::exec(const QString& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(m_db, sql.toUtf8().constData(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "?";
        sqlite3_free(err);
        throw SqlError(msg);
    }
}

void SqlConnection::interrupt()
{
    if (m_db)
        sqlite3_interrupt(m_db);
}

namespace {
int progressHandler(void* flag)
{
    return static_cast<const std::atomic<bool>*>(flag)->load() ? 1 : 0;
}
}  // namespace

void SqlConnection::setInterruptFlag(const std::atomic<bool>* flag)
{
    if (flag)
        sqlite3_progress_handler(m_db, 2000, &progressHandler, const_cast<std::atomic<bool>*>(flag));
    else
        sqlite3_progress_handler(m_db, 0, nullptr, nullptr);
}

SqlStatement::SqlStatement(SqlConnection& db, const QString& sql) : m_db(db.handle())
{
    const QByteArray s = sql.toUtf8();
    if (sqlite3_prepare_v2(m_db, s.constData(), static_cast<int>(s.size()), &m_stmt, nullptr) != SQLITE_OK)
        throw SqlError(std::string("SQL prepare failed: ") + sqlite3_errmsg(m_db) + " in: " + s.left(160).toStdString());
}

SqlStatement::~SqlStatement()
{
    sqlite3_finalize(m_stmt);
}

SqlStatement& SqlStatement::bind(int index, const QVariant& v)
{
    if (v.isNull() || !v.isValid()) {
        sqlite3_bind_null(m_stmt, index);
        return *this;
    }
    switch (v.typeId()) {
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::UInt:
    case QMetaType::ULongLong:
    case QMetaType::Bool:
        sqlite3_bind_int64(m_stmt, index, v.toLongLong());
        break;
    case QMetaType::Double:
    case QMetaType::Float:
        sqlite3_bind_double(m_stmt, index, v.toDouble());
        break;
    default: {
        const QByteArray t = v.toString().toUtf8();
        sqlite3_bind_text(m_stmt, index, t.constData(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
    }
    }
    return *this;
}

bool SqlStatement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    throw SqlError(std::string("SQL step failed: ") + sqlite3_errmsg(m_db));
}

void SqlStatement::reset()
{
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

int SqlStatement::columnCount() const
{
    return sqlite3_column_count(m_stmt);
}

QVariant SqlStatement::value(int c) const
{
    switch (sqlite3_column_type(m_stmt, c)) {
    case SQLITE_INTEGER: return QVariant::fromValue<qint64>(sqlite3_column_int64(m_stmt, c));
    case SQLITE_FLOAT: return sqlite3_column_double(m_stmt, c);
    case SQLITE_NULL: return {};
    default: return text(c);
    }
}

qint64 SqlStatement::int64(int c) const
{
    return sqlite3_column_int64(m_stmt, c);
}

double SqlStatement::real(int c) const
{
    return sqlite3_column_double(m_stmt, c);
}

QString SqlStatement::text(int c) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, c));
    return p ? QString::fromUtf8(p, sqlite3_column_bytes(m_stmt, c)) : QString();
}

bool SqlStatement::isNull(int c) const
{
    return sqlite3_column_type(m_stmt, c) == SQLITE_NULL;
}

}  // namespace kbx::gui
