// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the model and GUI tests.
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QString>
#include <QThread>

#include <functional>

#include <ostream>

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
/// into `dir` so that the migration to the current schema never touches the committed file.
inline QString copyBenchDatabase(const QString& dir)
{
    const QString src = QStringLiteral(KBX_SOURCE_DIR "/bench/results/2026-11-29-cpu/cpu-fixtures.sqlite");
    const QString dst = QDir(dir).filePath(QStringLiteral("cpu-fixtures.sqlite"));
    QFile::remove(dst);
    if (!QFile::copy(src, dst))
        return {};
    QFile::setPermissions(dst, QFile::ReadOwner | QFile::WriteOwner);
    return dst;
}

}  // namespace kbx::gui::test
