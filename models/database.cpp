// SPDX-License-Identifier: MIT
#include "database.h"

#include "paths.h"
#include "query.h"
#include "store.h"
#include "taxonomy.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSaveFile>

#include <cstdio>

#include <unistd.h>

namespace kbx::gui {
namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString qs(const std::optional<std::string>& s)
{
    return s ? QString::fromStdString(*s) : QString();
}

QJsonObject jsonObject(const std::string& text)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}

bool sameFile(const QString& a, const QString& b)
{
    if (a.isEmpty() || b.isEmpty())
        return false;
    const QFileInfo fa(a), fb(b);
    const QString ca = fa.canonicalFilePath(), cb = fb.canonicalFilePath();
    return !ca.isEmpty() && ca == cb;
}

/// Why `path` cannot be used read-write, for people; empty when it can.
QString readOnlyReason(const QString& path)
{
    const QFileInfo fi(path);
    const QString dir = fi.absolutePath();
    if (fi.exists() && ::access(QFile::encodeName(fi.absoluteFilePath()).constData(), W_OK) != 0)
        return QStringLiteral("%1 is read-only for you").arg(fi.absoluteFilePath());
    if (::access(QFile::encodeName(dir).constData(), W_OK | X_OK) != 0)
        return QStringLiteral("its directory %1 is not writable for you (SQLite keeps its journal there)").arg(dir);
    return {};
}

/// The message for a database this user cannot write.
QString readOnlyMessage(const QString& path, const QString& reason)
{
    if (sameFile(path, installedDemoDatabasePath()))
        return QStringLiteral("%1 is the installed demo database, which is read-only (%2). Open the demo with "
                              "File > Open the demo database, or kbx-workbench without arguments: that opens your own "
                              "copy of it, %3.")
            .arg(path, reason, userDemoDatabasePath());
    return QStringLiteral("%1: %2. kbx-workbench writes to the databases it opens (WAL journal, schema upgrades, "
                          "manual labels, runs), so it cannot open this one; copy it to a place you can write "
                          "(e.g. cp %1 ~/) and open the copy.")
        .arg(path, reason);
}

/// The provenance of the user's demo copy: the installed file's path, size and modification time.
QByteArray demoOrigin(const QFileInfo& installed)
{
    return QStringLiteral("%1\n%2\n%3\n")
        .arg(installed.absoluteFilePath())
        .arg(installed.size())
        .arg(installed.lastModified().toMSecsSinceEpoch())
        .toUtf8();
}

/// Makes (or refreshes) `copy` from the installed demo `installed`; true when `copy` is up to date.
bool ensureDemoCopy(const QString& installed, const QString& copy, QString* error)
{
    const QFileInfo src(installed);
    const QByteArray origin = demoOrigin(src);
    const QString originFile = copy + QStringLiteral(".origin");
    {
        QFile o(originFile);
        if (QFileInfo(copy).isFile() && o.open(QIODevice::ReadOnly) && o.readAll() == origin)
            return true;
    }
    auto fail = [&](const QString& why) {
        if (error)
            *error = QStringLiteral("cannot copy the demo database %1 to %2: %3").arg(installed, copy, why);
        return false;
    };
    if (!QDir().mkpath(QFileInfo(copy).absolutePath()))
        return fail(QStringLiteral("cannot create %1").arg(QFileInfo(copy).absolutePath()));
    const QString tmp = copy + QStringLiteral(".tmp-%1").arg(QCoreApplication::applicationPid());
    QFile::remove(tmp);
    if (!QFile::copy(installed, tmp))
        return fail(QStringLiteral("copy failed"));
    QFile::setPermissions(tmp, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
    // The old copy's WAL journal belongs to the old file: it must not be replayed into the new one.
    QFile::remove(copy + QStringLiteral("-wal"));
    QFile::remove(copy + QStringLiteral("-shm"));
    if (std::rename(QFile::encodeName(tmp).constData(), QFile::encodeName(copy).constData()) != 0) {
        QFile::remove(tmp);
        return fail(QStringLiteral("cannot rename %1").arg(tmp));
    }
    QSaveFile o(originFile);
    if (!o.open(QIODevice::WriteOnly) || o.write(origin) != origin.size() || !o.commit())
        return fail(QStringLiteral("cannot write %1").arg(originFile));
    return true;
}

}  // namespace

bool prepareDatabase(const QString& path, QString* error)
{
    if (path.isEmpty()) {
        if (error)
            *error = QStringLiteral("no database chosen");
        return false;
    }
    if (!QFileInfo::exists(path)) {
        if (error)
            *error = QStringLiteral("%1 does not exist").arg(path);
        return false;
    }
    // kbx::Store opens read-write (WAL journal, migrations): say so plainly for a database this user
    // cannot write instead of SQLite's "attempt to write a readonly database".
    if (const QString reason = readOnlyReason(path); !reason.isEmpty()) {
        if (error)
            *error = readOnlyMessage(path, reason);
        return false;
    }
    try {
        kbx::Store store(path.toStdString());
        if (store.schemaVersion() != kbx::kSchemaVersion) {
            if (error)
                *error = QStringLiteral("%1 has an unexpected schema version").arg(path);
            return false;
        }
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

bool createDatabase(const QString& path, QString* error)
{
    if (path.isEmpty()) {
        if (error)
            *error = QStringLiteral("no database chosen");
        return false;
    }
    // A run writes its results: a database (or a directory for a new one) this user cannot write is
    // refused before anything starts. A directory that does not exist yet is made by kbx::Store.
    if (QFileInfo::exists(path) || QFileInfo::exists(QFileInfo(path).absolutePath())) {
        if (const QString reason = readOnlyReason(path); !reason.isEmpty()) {
            if (error)
                *error = QStringLiteral("%1: %2; choose a database you can write for the run's results").arg(path, reason);
            return false;
        }
    }
    try {
        kbx::Store store(path.toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

bool isDatabaseWritable(const QString& path)
{
    return !path.isEmpty() && readOnlyReason(path).isEmpty();
}

QString defaultDatabasePath()
{
    return QString::fromStdString(kbx::defaultDatabasePath().string());
}

QString installedDemoDatabasePath()
{
    const auto data = kbx::installedDataDir();
    if (data.empty())
        return {};
    const QFileInfo fi(QString::fromStdString((data / "demo.sqlite").string()));
    return fi.isFile() ? QDir::cleanPath(fi.absoluteFilePath()) : QString();
}

QString userDemoDatabasePath()
{
    QString base = qEnvironmentVariable("XDG_DATA_HOME");
    if (base.isEmpty()) {
        const QString home = qEnvironmentVariable("HOME");
        if (home.isEmpty())
            return {};
        base = home + QStringLiteral("/.local/share");
    }
    return QDir::cleanPath(base + QStringLiteral("/kbx/demo.sqlite"));
}

QString demoDatabasePath(QString* error)
{
    // Installed: the user's own copy (the installed file is read-only, and kbx writes to what it opens).
    if (const QString installed = installedDemoDatabasePath(); !installed.isEmpty()) {
        const QString copy = userDemoDatabasePath();
        if (copy.isEmpty()) {
            if (error)
                *error = QStringLiteral("neither XDG_DATA_HOME nor HOME is set: no place for a copy of the demo database");
            return {};
        }
        return ensureDemoCopy(installed, copy, error) ? copy : QString();
    }
#ifdef KBX_SOURCE_DIR
    const QFileInfo src(QStringLiteral(KBX_SOURCE_DIR "/resources/demo/demo.sqlite"));
    if (src.isFile())
        return QDir::cleanPath(src.absoluteFilePath());
#endif
    if (error)
        *error = QStringLiteral("this installation has no demo database");
    return {};
}

QString resolveDatabasePath(const QString& path)
{
    if (path.isEmpty() || !sameFile(path, installedDemoDatabasePath()))
        return path;
    const QString copy = demoDatabasePath();
    return copy.isEmpty() ? path : copy;
}

QStringList failureClassIds()
{
    QStringList ids;
    for (const auto& c : kbx::failureClasses())
        ids << QString::fromUtf8(c.id.data(), static_cast<qsizetype>(c.id.size()));
    return ids;
}

QString failureClassTitle(const QString& id)
{
    for (const auto& c : kbx::failureClasses())
        if (id == QLatin1String(c.id.data(), static_cast<qsizetype>(c.id.size())))
            return QString::fromUtf8(c.title.data(), static_cast<qsizetype>(c.title.size()));
    return {};
}

QMap<int, QString> failureMarkers(const QJsonObject& evidence, const QString& traceback, const QString& message)
{
    QMap<int, QString> markers;
    // Frames in the candidate's own file: File "/.../candidate.py", line 17, in relu
    // (An escaped literal, not a raw string: lizard, which measures function length, misreads the raw one.)
    static const char* const kFrame = "File \"([^\"]*candidate\\.py)\", line (\\d+)(?:, in (\\S+))?";
    static const QRegularExpression frame(QString::fromLatin1(kFrame));
    auto it = frame.globalMatch(traceback);
    while (it.hasNext()) {
        const auto m = it.next();
        const int line = m.captured(2).toInt();
        if (m.captured(1).contains(QLatin1String("kbx_harness/")))
            continue;  // the harness's own candidate.py, not the submission
        if (line > 0)
            markers[line] = message.isEmpty() ? QStringLiteral("traceback: in %1").arg(m.captured(3)) : message;
    }
    auto addLine = [&](const QJsonValue& v, const QString& msg) {
        if (v.isDouble() && v.toInt() > 0 && !markers.contains(v.toInt()))
            markers[v.toInt()] = msg;
    };
    addLine(evidence.value(QStringLiteral("line")), message);
    const auto st = evidence.value(QStringLiteral("static")).toObject();
    addLine(st.value(QStringLiteral("line")), st.value(QStringLiteral("message")).toString(message));
    const auto ff = evidence.value(QStringLiteral("first_failure")).toObject().value(QStringLiteral("evidence")).toObject();
    addLine(ff.value(QStringLiteral("line")), ff.value(QStringLiteral("message")).toString(message));
    return markers;
}

EvaluationDetails loadEvaluation(const QString& dbPath, qint64 evaluationId, QString* error)
{
    EvaluationDetails d;
    try {
        const auto store = openReadStore(dbPath);
        const auto e = kbx::query::loadEvaluation(*store, evaluationId);
        if (!e) {
            if (error)
                *error = QStringLiteral("no evaluation %1").arg(evaluationId);
            return d;
        }
        const auto& r = e->row;
        d.id = r.id;
        d.runId = r.runId;
        d.taskId = qs(r.taskId);
        d.category = qs(r.category);
        d.method = qs(r.method);
        d.round = r.round;
        d.device = qs(r.device);
        d.gpu = qs(r.gpu);
        d.verdict = qs(r.verdict);
        d.callOk = r.callOk;
        d.exeOk = r.exeOk;
        d.stage = qs(r.stage);
        d.failureClass = qs(r.failureClass);
        d.failureDetail = qs(r.failureDetail);
        d.manualClass = qs(r.manualClass);
        d.manualNote = qs(r.manualNote);
        d.candidateId = r.candidateId;
        d.code = qs(e->code);
        d.codeHash = qs(e->codeHash);
        d.origin = qs(e->origin);
        d.startedAt = qs(r.startedAt);
        d.finishedAt = qs(r.finishedAt);
        d.evidence = jsonObject(e->evidence);
        d.publicSeeds = qs(e->publicSeeds);
        d.secretSeed = e->secretSeed;
        for (const auto& c : e->cases)
            d.cases.append({c.index, qs(c.name), qs(c.status), qs(c.failureClass), jsonObject(c.evidence.value_or(std::string())), qs(c.tier)});
        for (const auto& t : e->timings)
            d.timings.append({qs(t.shape), t.candidateMs.value_or(0.0), t.baselineMs.value_or(0.0), jsonObject(t.samples.value_or(std::string()))});
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return d;
    }
    const auto ff = d.evidence.value(QStringLiteral("first_failure")).toObject();
    d.failedCase = ff.value(QStringLiteral("case")).toString();
    d.numericEvidence = ff.value(QStringLiteral("evidence")).toObject();
    d.traceback = d.numericEvidence.value(QStringLiteral("traceback")).toString();
    if (d.traceback.isEmpty())
        d.traceback = d.evidence.value(QStringLiteral("traceback")).toString();
    if (d.failedCase.isEmpty()) {
        for (const auto& c : d.cases)
            if (c.status != QLatin1String("pass")) {
                d.failedCase = c.name;
                break;
            }
    }
    // A failing case's numeric evidence lives in its first failing leaf when the evaluation has none.
    if (d.numericEvidence.isEmpty()) {
        for (const auto& c : d.cases) {
            if (c.name != d.failedCase)
                continue;
            const auto leaves = c.evidence.value(QStringLiteral("leaves")).toArray();
            for (const auto& l : leaves)
                if (l.toObject().value(QStringLiteral("mismatch_count")).toInt() > 0) {
                    d.numericEvidence = l.toObject();
                    break;
                }
        }
    }
    QString message = d.numericEvidence.value(QStringLiteral("message")).toString();
    if (message.isEmpty())
        message = d.failureDetail;
    d.markers = failureMarkers(d.evidence, d.traceback, message);
    d.valid = true;
    return d;
}

LabelAgreement labelAgreement(const QString& dbPath)
{
    LabelAgreement a;
    try {
        const auto l = kbx::query::labelAgreement(*openReadStore(dbPath));
        a.labelled = l.labelled;
        a.agree = l.agree;
    } catch (const std::exception&) {
    }
    return a;
}

bool setManualLabel(const QString& dbPath, qint64 evaluationId, const QString& failureClass, const QString& note, QString* error)
{
    try {
        kbx::Store store(dbPath.toStdString());
        const QByteArray user = qgetenv("USER");
        store.setManualLabel(evaluationId, failureClass.toStdString(), note.toStdString(), user.toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

QList<qint64> evaluationIdsOfRun(const QString& dbPath, qint64 runId)
{
    QList<qint64> ids;
    try {
        for (const auto id : kbx::query::evaluationIdsOfRun(*openReadStore(dbPath), runId))
            ids << id;
    } catch (const std::exception&) {
    }
    return ids;
}

std::unique_ptr<kbx::Store> openReadStore(const QString& path)
{
    return std::make_unique<kbx::Store>(std::filesystem::path(path.toStdString()), kbx::OpenMode::ReadOnly);
}

}  // namespace kbx::gui
