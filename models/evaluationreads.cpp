// SPDX-License-Identifier: MIT
// EvaluationTableModel's reads (evaluationreads.h) and its CSV export, through core/query.
#include "evaluationreads.h"

#include "database.h"

#include "store.h"

#include <QHash>
#include <QSaveFile>
#include <QtConcurrent/QtConcurrentRun>

namespace kbx::gui {

namespace reads {

using kbx::query::Column;
static_assert(int(Column::Count) == EvaluationTableModel::ColumnCount, "the model's columns are core/query's");

namespace {

QVariant toVariant(const kbx::SqlValue& v)
{
    if (const auto* i = std::get_if<std::int64_t>(&v))
        return QVariant::fromValue<qint64>(*i);
    if (const auto* d = std::get_if<double>(&v))
        return *d;
    if (const auto* t = std::get_if<std::string>(&v))
        return QString::fromStdString(*t);
    return {};
}

QVariant text(const std::string& s)
{
    return QString::fromStdString(s);
}

QVariant text(const std::optional<std::string>& s)
{
    return s ? QVariant(QString::fromStdString(*s)) : QVariant();
}

QString csvField(const QVariant& v)
{
    QString t = v.isNull() ? QString() : v.toString();
    if (t.contains(QLatin1Char(',')) || t.contains(QLatin1Char('"')) || t.contains(QLatin1Char('\n')) || t.contains(QLatin1Char('\r')))
        t = QLatin1Char('"') + t.replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"');
    return t;
}

QByteArray csvLine(const EvaluationTableModel::Row& r)
{
    QStringList fields;
    for (int c = 0; c < EvaluationTableModel::ColumnCount; ++c) {
        const QVariant& v = r.values[c];
        fields << (c == EvaluationTableModel::SpeedupColumn && !v.isNull() ? QString::number(v.toDouble(), 'g', 6) : csvField(v));
    }
    return fields.join(QLatin1Char(',')).toUtf8() + '\n';
}

}  // namespace

kbx::query::EvaluationFilter coreFilter(const EvaluationFilter& f)
{
    kbx::query::EvaluationFilter q;
    q.method = f.method.toStdString();
    if (f.round.isValid() && !f.round.isNull())
        q.round = f.round.toLongLong();
    q.gpu = f.gpu.toStdString();
    q.category = f.category.toStdString();
    q.stage = f.stage.toStdString();
    if (f.failureClass.isValid() && !f.failureClass.isNull())
        q.failureClass = f.failureClass.toString().toStdString();
    q.text = f.text.trimmed().toStdString();
    q.runId = f.runId;
    q.taskId = f.taskId.toStdString();
    q.countedOnly = f.countedOnly;
    return q;
}

kbx::SqlValue toSqlValue(const QVariant& v)
{
    if (v.isNull() || !v.isValid())
        return {};
    switch (v.typeId()) {
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::UInt:
    case QMetaType::ULongLong:
    case QMetaType::Bool: return std::int64_t{v.toLongLong()};
    case QMetaType::Double:
    case QMetaType::Float: return v.toDouble();
    default: return v.toString().toStdString();
    }
}

EvaluationTableModel::Row toRow(const kbx::query::ListedEvaluation& e)
{
    EvaluationTableModel::Row r;
    r.values[EvaluationTableModel::IdColumn] = QVariant::fromValue<qint64>(e.id);
    r.values[EvaluationTableModel::TaskColumn] = text(e.taskId);
    r.values[EvaluationTableModel::MethodColumn] = text(e.method);
    r.values[EvaluationTableModel::RoundColumn] = QVariant::fromValue<qint64>(e.round);
    r.values[EvaluationTableModel::GpuColumn] = text(e.gpu);
    r.values[EvaluationTableModel::VerdictColumn] = text(e.verdict);
    r.values[EvaluationTableModel::StageColumn] = text(e.stage);
    r.values[EvaluationTableModel::ClassColumn] = text(e.failureClass);
    r.values[EvaluationTableModel::ManualColumn] = text(e.manualClass);
    r.values[EvaluationTableModel::FinishedColumn] = text(e.finishedAt);
    r.values[EvaluationTableModel::ExtendedColumn] = text(e.extended);
    r.values[EvaluationTableModel::RunColumn] = QVariant::fromValue<qint64>(e.runId);
    r.values[EvaluationTableModel::SpeedupColumn] = e.speedup ? QVariant(*e.speedup) : QVariant();
    r.values[EvaluationTableModel::DetailColumn] = text(e.detail);
    r.key = toVariant(e.key);
    return r;
}

RowQuery rowQuery(const QString& db, const EvaluationFilter& filter, int sortColumn, Qt::SortOrder order, int limit)
{
    RowQuery q;
    q.db = db;
    q.filter = coreFilter(filter);
    q.window.sort = Column(sortColumn);
    q.window.descending = order == Qt::DescendingOrder;
    q.window.limit = limit;
    return q;
}

EvaluationTableModel::Page readRows(const RowQuery& q, const std::atomic<bool>* cancel)
{
    EvaluationTableModel::Page p;
    try {
        const auto store = openReadStore(q.db);
        store->setCancelFlag(cancel);
        for (const auto& e : kbx::query::listEvaluations(*store, q.filter, q.window))
            p.rows.append(toRow(e));
        p.atEnd = p.rows.size() < q.window.limit;
    } catch (const std::exception& e) {
        p.error = QString::fromStdString(e.what());
        p.atEnd = true;
    }
    return p;
}

EvaluationTableModel::Count countRows(const QString& db, const kbx::query::EvaluationFilter& filter, const std::atomic<bool>* cancel)
{
    EvaluationTableModel::Count c;
    try {
        const auto store = openReadStore(db);
        store->setCancelFlag(cancel);
        c.total = kbx::query::countEvaluations(*store, filter);
    } catch (const std::exception& e) {
        c.error = QString::fromStdString(e.what());
    }
    return c;
}

}  // namespace reads

using namespace reads;

QFuture<QPair<qint64, QString>> EvaluationTableModel::writeCsvAsync(const QString& db, const EvaluationFilter& filter, int sortColumn,
                                                                     Qt::SortOrder order, const QList<qint64>& ids, const QString& path)
{
    return QtConcurrent::run([=]() {
        QString err;
        const qint64 n = writeCsv(db, filter, sortColumn, order, ids, path, &err);
        return qMakePair(n, err);
    });
}

qint64 EvaluationTableModel::writeCsv(const QString& db, const EvaluationFilter& filter, int sortColumn, Qt::SortOrder order,
                                      const QList<qint64>& ids, const QString& path, QString* error)
{
    static const char* const names[ColumnCount] = {"id",          "task",     "method",   "round", "gpu",     "verdict", "stage",
                                                   "failure_class", "manual_label", "finished_at", "extended", "run", "speedup", "detail"};
    try {
        const auto store = openReadStore(db);
        // The evaluations asked for are read before the file is made: a failing read leaves none.
        QHash<qint64, QByteArray> byId;
        if (!ids.isEmpty())
            for (const auto& e : kbx::query::evaluationsById(*store, std::vector<std::int64_t>(ids.begin(), ids.end())))
                byId.insert(e.id, csvLine(toRow(e)));
        QSaveFile f(path);
        if (!f.open(QIODevice::WriteOnly)) {
            if (error)
                *error = f.errorString();
            return -1;
        }
        QStringList header;
        for (const char* n : names)
            header << QString::fromLatin1(n);
        f.write(header.join(QLatin1Char(',')).toUtf8() + '\n');
        qint64 n = 0;
        if (ids.isEmpty()) {
            kbx::query::eachEvaluation(*store, coreFilter(filter), kbx::query::Column(sortColumn), order == Qt::DescendingOrder,
                                       [&](const kbx::query::ListedEvaluation& e) {
                                           f.write(csvLine(toRow(e)));
                                           ++n;
                                       });
        } else {
            // In the order asked for (the table's rows as selected).
            for (qint64 id : ids)
                if (const auto it = byId.constFind(id); it != byId.cend()) {
                    f.write(*it);
                    ++n;
                }
        }
        if (!f.commit()) {
            if (error)
                *error = f.errorString();
            return -1;
        }
        return n;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return -1;
    }
}

}  // namespace kbx::gui
