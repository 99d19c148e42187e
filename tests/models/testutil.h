// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the model and GUI tests.
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QList>
#include <QProcess>
#include <QString>
#include <QThread>
#include <QVariant>

#include <sqlite3.h>

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>

QT_BEGIN_NAMESPACE
inline void PrintTo(const QString& s, std::ostream* os)
{
    *os << '"' << s.toStdString() << '"';
}
QT_END_NAMESPACE

namespace kbx::gui::test {

/// Processes events until `pred` holds or `ms` passed; returns pred().
inline bool waitUntil(const std::function<bool()>& pred, int ms = 20000)
{
    QDeadlineTimer deadline(ms);
    while (!pred()) {
        if (deadline.hasExpired())
            return pred();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(2);
    }
    return true;
}

/// The CPU fixture database of bench/results (schema v1: 56 evaluations, method "fixtures"), copied
/// into `dir` so that the migration to the current schema never touches the committed file. The
/// committed file is compressed (cpu-fixtures.sqlite.xz): unpacked with xz into `dir`.
inline QString copyBenchDatabase(const QString& dir)
{
    const QString src = QStringLiteral(KBX_SOURCE_DIR "/bench/results/2026-11-29-cpu/cpu-fixtures.sqlite");
    const QString dst = QDir(dir).filePath(QStringLiteral("cpu-fixtures.sqlite"));
    QFile::remove(dst);
    if (QFile::exists(src)) {
        if (!QFile::copy(src, dst))
            return {};
    } else {
        QProcess xz;
        xz.setStandardOutputFile(dst);
        xz.start(QStringLiteral("xz"), {QStringLiteral("-dc"), src + QStringLiteral(".xz")});
        if (!xz.waitForFinished(60000) || xz.exitStatus() != QProcess::NormalExit || xz.exitCode() != 0)
            return {};
    }
    QFile::setPermissions(dst, QFile::ReadOwner | QFile::WriteOwner);
    return dst;
}

/// Raw SQL on a test's database: fixtures built or changed underneath the product, and counts to
/// compare with. (The product reads through core/query.h; tests may look under it.) Throws
/// std::runtime_error with SQLite's message.
class TestSql {
public:
    explicit TestSql(const QString& path)
    {
        if (sqlite3_open_v2(path.toUtf8().constData(), &m_db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
            const std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
            sqlite3_close(m_db);
            throw std::runtime_error("cannot open " + path.toStdString() + ": " + msg);
        }
        sqlite3_busy_timeout(m_db, 10000);
    }
    ~TestSql() { sqlite3_close(m_db); }
    TestSql(const TestSql&) = delete;
    TestSql& operator=(const TestSql&) = delete;

    /// Runs one or more statements.
    void exec(const QString& sql)
    {
        char* err = nullptr;
        if (sqlite3_exec(m_db, sql.toUtf8().constData(), nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string msg = err ? err : "?";
            sqlite3_free(err);
            throw std::runtime_error(msg + " in: " + sql.left(200).toStdString());
        }
    }
    /// Every row of a query, each value with its SQLite type (qint64, double, QString, null).
    QList<QVariantList> rows(const QString& sql)
    {
        sqlite3_stmt* st = nullptr;
        const QByteArray s = sql.toUtf8();
        if (sqlite3_prepare_v2(m_db, s.constData(), int(s.size()), &st, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string(sqlite3_errmsg(m_db)) + " in: " + sql.left(200).toStdString());
        QList<QVariantList> out;
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            QVariantList row;
            for (int c = 0; c < sqlite3_column_count(st); ++c) {
                switch (sqlite3_column_type(st, c)) {
                case SQLITE_INTEGER: row << QVariant::fromValue<qint64>(sqlite3_column_int64(st, c)); break;
                case SQLITE_FLOAT: row << sqlite3_column_double(st, c); break;
                case SQLITE_NULL: row << QVariant(); break;
                default: row << QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, c)), sqlite3_column_bytes(st, c));
                }
            }
            out << row;
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            throw std::runtime_error(std::string(sqlite3_errmsg(m_db)) + " in: " + sql.left(200).toStdString());
        return out;
    }
    /// The first column of the first row (0 / empty when there is none).
    qint64 int64(const QString& sql)
    {
        const auto r = rows(sql);
        return r.isEmpty() || r[0].isEmpty() ? 0 : r[0][0].toLongLong();
    }
    QString text(const QString& sql)
    {
        const auto r = rows(sql);
        return r.isEmpty() || r[0].isEmpty() ? QString() : r[0][0].toString();
    }

private:
    sqlite3* m_db = nullptr;
};

}  // namespace kbx::gui::test
