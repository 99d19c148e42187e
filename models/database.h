// SPDX-License-Identifier: MIT
#pragma once
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <memory>

namespace kbx {
class Store;
}

namespace kbx::gui {

/// Makes `path` usable by the views: opens it through kbx::Store, which refuses non-kbx files and
/// newer schemas and brings an older kbx database (schema v1) forward to the current schema. Returns
/// false with a message for people in `error`. kbx opens its databases read-write (WAL journal beside
/// the file, schema upgrades, manual labels): a database this user cannot write is refused with a
/// message that says so and what to do (the installed demo: File > Open the demo database opens the
/// user's own copy; anything else: copy it somewhere writable).
bool prepareDatabase(const QString& path, QString* error);

/// Opens `path` through kbx::Store, creating an empty kbx database when there is none (a run's target).
/// A database (or a directory) this user cannot write is refused with a message that says so.
bool createDatabase(const QString& path, QString* error);

/// Whether this process may write `path` (when it exists) and create files in its directory (the
/// -wal and -shm files of SQLite's WAL journal live beside the database).
bool isDatabaseWritable(const QString& path);

/// kbx::defaultDatabasePath(): $KBX_DB, else ~/.local/share/kbx/kbx.sqlite.
QString defaultDatabasePath();

/// The demo database the workbench opens. Installed (PREFIX/share/kbx/demo.sqlite, read-only for
/// users): the user's own copy of it, userDemoDatabasePath(), made on first use and made afresh when
/// the installed demo changes (a package upgrade; the copy's manual labels are then replaced too).
/// In a build tree: the source tree's resources/demo/demo.sqlite. Empty when there is none, or when
/// the copy cannot be made (`error` then says why).
QString demoDatabasePath(QString* error = nullptr);

/// The installed, read-only demo: kbx::installedDataDir()/demo.sqlite ($KBX_DATA_DIR overrides the
/// directory), or empty when this is not an installed kbx or it has no demo.
QString installedDemoDatabasePath();

/// Where the user's copy of the installed demo lives: $XDG_DATA_HOME/kbx/demo.sqlite, else
/// ~/.local/share/kbx/demo.sqlite (empty without either variable). Its provenance is recorded beside
/// it in demo.sqlite.origin (the installed file's path, size and modification time).
QString userDemoDatabasePath();

/// The database to open for `path`: the user's copy (demoDatabasePath()) for the installed demo,
/// `path` itself for anything else (also when the copy cannot be made: opening then says why).
QString resolveDatabasePath(const QString& path);

/// The failure classes of taxonomy v1 in precedence order (ids as stored).
QStringList failureClassIds();
/// One-line title of a failure class id (empty for unknown ids).
QString failureClassTitle(const QString& id);

/// One case of an evaluation (case_results).
struct CaseRow {
    int index = 0;
    QString name;
    QString status;
    QString failureClass;
    QJsonObject evidence;
    QString tier = QStringLiteral("contract");  ///< contract | extended (issue 21)
};

/// One perf shape of an evaluation (table `timings`): the medians of both sides and the stored
/// samples object (raw samples, summaries, speedup CI, roofline, launch gap; docs/PERF_PROTOCOL.md).
struct TimingRow {
    QString shape;
    double candidateMs = 0;  ///< 0 where the shape failed (samples then hold error/message)
    double baselineMs = 0;
    QJsonObject samples;
};

/// Everything the failure inspector and the code views show about one evaluation.
struct EvaluationDetails {
    bool valid = false;
    qint64 id = 0;
    qint64 runId = 0;
    qint64 candidateId = 0;
    QString taskId;
    QString category;
    QString method;
    int round = 0;
    QString device;
    QString gpu;
    QString verdict;
    bool callOk = false;
    bool exeOk = false;
    QString stage;
    QString failureClass;
    QString failureDetail;
    QString manualClass;
    QString manualNote;
    QString code;
    QString codeHash;
    QString origin;
    QString startedAt;
    QString finishedAt;
    QJsonObject evidence;           ///< evaluations.evidence
    QString publicSeeds;            ///< runs.public_seeds (JSON text)
    qint64 secretSeed = 0;
    QString failedCase;             ///< name of the first failing case, when known
    QJsonObject numericEvidence;    ///< the first failure's evidence (max_abs_err, ...)
    QString traceback;
    QMap<int, QString> markers;     ///< candidate line (1-based) -> message
    QList<CaseRow> cases;
    QList<TimingRow> timings;       ///< the perf stage's shapes, in the order timed (none without --perf)
};

/// Loads one evaluation; `valid` is false (and `error` says why) when it cannot.
EvaluationDetails loadEvaluation(const QString& dbPath, qint64 evaluationId, QString* error = nullptr);

/// Lines of the candidate named by a traceback (frames in a file called candidate.py) and by the
/// evidence's "line" fields, with the message to show there.
QMap<int, QString> failureMarkers(const QJsonObject& evidence, const QString& traceback, const QString& message);

/// Agreement between automatic and manual labels over the whole database.
struct LabelAgreement {
    int labelled = 0;  ///< evaluations with a manual label
    int agree = 0;     ///< manual class == automatic class ("pass" == a passing verdict)
    double fraction() const { return labelled ? double(agree) / labelled : 0.0; }
};
LabelAgreement labelAgreement(const QString& dbPath);

/// Stores (or, with an empty class, removes) a manual label through kbx::Store::setManualLabel.
bool setManualLabel(const QString& dbPath, qint64 evaluationId, const QString& failureClass, const QString& note,
                    QString* error);

/// The ids of a run's evaluations, ascending (used by tests and the run panel).
QList<qint64> evaluationIdsOfRun(const QString& dbPath, qint64 runId);

/// A store of its own on `path` for the reads of one query (kbx::query), opened read-only: it never
/// migrates nor writes. The models make one per query on the worker thread that runs it (connections
/// are cheap; the database's WAL journal keeps readers from blocking a run writing results).
/// Throws kbx::StoreError.
std::unique_ptr<kbx::Store> openReadStore(const QString& path);

}  // namespace kbx::gui
