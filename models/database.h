// SPDX-License-Identifier: MIT
#pragma once
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace kbx::gui {

/// Makes `path` usable by the views: opens it through kbx::Store, which refuses non-kbx files and
/// newer schemas and brings an older kbx database (schema v1) forward to the current schema. Returns
/// false with a message for people in `error`.
bool prepareDatabase(const QString& path, QString* error);

/// Opens `path` through kbx::Store, creating an empty kbx database when there is none (a run's target).
bool createDatabase(const QString& path, QString* error);

/// kbx::defaultDatabasePath(): $KBX_DB, else ~/.local/share/kbx/kbx.sqlite.
QString defaultDatabasePath();

/// The bundled demo database (resources/demo/demo.sqlite in a source tree, share/kbx/demo.sqlite when
/// installed), or an empty string when there is none.
QString demoDatabasePath();

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

/// The first rows of the evaluation_rows view of a run (used by tests and the run panel).
QList<qint64> evaluationIdsOfRun(const QString& dbPath, qint64 runId);

}  // namespace kbx::gui
