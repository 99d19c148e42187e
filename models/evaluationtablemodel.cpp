// SPDX-License-Identifier: MIT
#include "evaluationtablemodel.h"

#include "sqlite.h"

#include <QtConcurrent/QtConcurrentRun>

namespace kbx::gui {

namespace {

const char* const kColumnSql[EvaluationTableModel::ColumnCount] = {
    "id", "task_id", "method", "round", "gpu", "verdict", "stage", "failure_class", "manual_class", "finished_at",
    "CASE WHEN ext_cases IS NULL THEN '' ELSE ext_passed || '/' || ext_cases END", "substr(failure_detail, 1, 300)"};

/// WHERE clause and its bound values for a filter.
struct Where {
    QString sql;
    QVariantList values;
};

Where whereOf(const EvaluationFilter& f)
{
    Where w;
    QStringList parts;
    auto add = [&](const QString& clause, const QVariant& v) {
        parts << clause;
        w.values << v;
    };
    if (!f.method.isEmpty())
        add(QStringLiteral("method = ?"), f.method);
    if (f.round.isValid() && !f.round.isNull())
        add(QStringLiteral("round = ?"), f.round.toLongLong());
    if (!f.gpu.isEmpty())
        add(QStringLiteral("gpu = ?"), f.gpu);
    if (!f.category.isEmpty()) {
        // A range on task_id uses its index: "Cat/" <= task_id < "Cat0" ('0' follows '/').
        add(QStringLiteral("task_id >= ?"), f.category + QLatin1Char('/'));
        add(QStringLiteral("task_id < ?"), f.category + QLatin1Char('0'));
    }
    if (!f.stage.isEmpty())
        add(QStringLiteral("stage = ?"), f.stage);
    if (f.failureClass.isValid() && !f.failureClass.isNull()) {
        if (f.failureClass.toString().isEmpty())
            parts << QStringLiteral("failure_class IS NULL");
        else
            add(QStringLiteral("failure_class = ?"), f.failureClass.toString());
    }
    if (!f.text.trimmed().isEmpty()) {
        QString t = f.text.trimmed();
        t.replace(QLatin1Char('\\'), QLatin1String("\\\\")).replace(QLatin1Char('%'), QLatin1String("\\%")).replace(QLatin1Char('_'), QLatin1String("\\_"));
        const QString like = QLatin1Char('%') + t + QLatin1Char('%');
        parts << QStringLiteral("(task_id LIKE ?1x ESCAPE '\\' OR method LIKE ?1x ESCAPE '\\' OR ifnull(failure_class, '') LIKE ?1x ESCAPE '\\' "
                                "OR ifnull(failure_detail, '') LIKE ?1x ESCAPE '\\')");
        w.values << like << like << like << like;
        parts.last().replace(QLatin1String("?1x"), QLatin1String("?"));
    }
    if (f.runId > 0)
        add(QStringLiteral("run_id = ?"), f.runId);
    w.sql = parts.join(QLatin1String(" AND "));
    return w;
}

}  // namespace

QString EvaluationTableModel::sortKeyExpression(int column)
{
    switch (column) {
    case ClassColumn: return QStringLiteral("ifnull(failure_class, '')");
    case ManualColumn: return QStringLiteral("ifnull(manual_class, '')");
    case DetailColumn: return QStringLiteral("ifnull(failure_detail, '')");
    default:
        if (column >= 0 && column < ColumnCount)
            return QString::fromLatin1(kColumnSql[column]);
        return QStringLiteral("id");
    }
}

EvaluationTableModel::EvaluationTableModel(QObject* parent) : QAbstractTableModel(parent)
{
    connect(&m_pageWatcher, &QFutureWatcher<Page>::finished, this, &EvaluationTableModel::applyPage);
    connect(&m_countWatcher, &QFutureWatcher<Count>::finished, this, &EvaluationTableModel::applyCount);
}

EvaluationTableModel::~EvaluationTableModel()
{
    if (m_cancel)
        m_cancel->store(true);
    m_pageWatcher.waitForFinished();
    m_countWatcher.waitForFinished();
}

void EvaluationTableModel::setDatabase(const QString& path)
{
    m_db = path;
    restart(0);
}

void EvaluationTableModel::setFilter(const EvaluationFilter& filter)
{
    if (filter == m_filter)
        return;
    m_filter = filter;
    restart(0);
}

void EvaluationTableModel::refresh()
{
    restart(int(m_rows.size()));
}

void EvaluationTableModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        return;
    if (column == m_sortColumn && order == m_order)
        return;
    m_sortColumn = column;
    m_order = order;
    restart(0);
}

void EvaluationTableModel::restart(int keepRows)
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    ++m_generation;
    m_inserting = true;
    beginResetModel();
    m_rows.clear();
    m_atEnd = m_db.isEmpty();
    m_pendingPage = false;
    m_pageLoading = false;
    m_countLoading = false;
    m_error.clear();
    endResetModel();
    m_inserting = false;
    if (m_total != -1) {
        m_total = -1;
        emit totalCountChanged(m_total);
    }
    if (m_db.isEmpty())
        return;
    startPage(qMin(qMax(m_pageSize, keepRows), 20000));

    const QString db = m_db;
    const Where w = whereOf(m_filter);
    const quint64 gen = m_generation;
    const auto cancel = m_cancel;
    m_countLoading = true;
    m_countWatcher.setFuture(QtConcurrent::run([db, w, gen, cancel]() {
        Count c;
        c.generation = gen;
        try {
            SqlConnection conn(db);
            conn.setInterruptFlag(cancel.get());
            SqlStatement st(conn, QStringLiteral("SELECT count(*) FROM evaluation_rows") +
                                      (w.sql.isEmpty() ? QString() : QStringLiteral(" WHERE ") + w.sql));
            for (int i = 0; i < w.values.size(); ++i)
                st.bind(i + 1, w.values[i]);
            if (st.step())
                c.total = st.int64(0);
        } catch (const std::exception& e) {
            c.error = QString::fromStdString(e.what());
        }
        return c;
    }));
    emit loadingChanged(true);
}

void EvaluationTableModel::startPage(int limit)
{
    if (m_pageLoading && m_pageWatcher.property("generation").toULongLong() == m_generation) {
        // A page of the current query is on its way (a stale one is abandoned: setFuture below).
        m_pendingPage = true;
        return;
    }
    m_pageLoading = true;
    const QString db = m_db;
    const Where w = whereOf(m_filter);
    const quint64 gen = m_generation;
    const auto cancel = m_cancel;
    const QString key = sortKeyExpression(m_sortColumn);
    const bool desc = m_order == Qt::DescendingOrder;
    const bool keyIsId = m_sortColumn == IdColumn;
    QVariant afterKey, afterId;
    if (!m_rows.isEmpty()) {
        afterKey = m_rows.last().key;
        afterId = m_rows.last().values[IdColumn];
    }
    m_pageWatcher.setProperty("generation", QVariant::fromValue(gen));
    m_pageWatcher.setFuture(QtConcurrent::run([=]() {
        Page p;
        p.generation = gen;
        try {
            SqlConnection conn(db);
            conn.setInterruptFlag(cancel.get());
            QStringList cols;
            for (const char* c : kColumnSql)
                cols << QString::fromLatin1(c);
            QString sql = QStringLiteral("SELECT %1, %2 FROM evaluation_rows").arg(cols.join(QLatin1String(", ")), key);
            QStringList where;
            if (!w.sql.isEmpty())
                where << w.sql;
            QVariantList values = w.values;
            const QString cmp = desc ? QStringLiteral("<") : QStringLiteral(">");
            if (afterId.isValid()) {
                if (keyIsId) {
                    where << QStringLiteral("id %1 ?").arg(cmp);
                    values << afterId;
                } else {
                    where << QStringLiteral("(%1, id) %2 (?, ?)").arg(key, cmp);
                    values << afterKey << afterId;
                }
            }
            if (!where.isEmpty())
                sql += QStringLiteral(" WHERE ") + where.join(QLatin1String(" AND "));
            const QString dir = desc ? QStringLiteral(" DESC") : QString();
            sql += keyIsId ? QStringLiteral(" ORDER BY id%1").arg(dir) : QStringLiteral(" ORDER BY %1%2, id%2").arg(key, dir);
            sql += QStringLiteral(" LIMIT %1").arg(limit);
            SqlStatement st(conn, sql);
            for (int i = 0; i < values.size(); ++i)
                st.bind(i + 1, values[i]);
            while (st.step()) {
                Row r;
                for (int c = 0; c < ColumnCount; ++c)
                    r.values[c] = st.value(c);
                r.key = st.value(ColumnCount);
                p.rows.append(std::move(r));
            }
            p.atEnd = p.rows.size() < limit;
        } catch (const std::exception& e) {
            p.error = QString::fromStdString(e.what());
            p.atEnd = true;
        }
        return p;
    }));
    emit loadingChanged(true);
}

void EvaluationTableModel::applyPage()
{
    const Page p = m_pageWatcher.result();
    if (p.generation != m_generation)
        return;
    m_pageLoading = false;
    if (!p.error.isEmpty()) {
        m_error = p.error;
        emit errorOccurred(p.error);
    }
    m_atEnd = p.atEnd;
    if (!p.rows.isEmpty()) {
        m_inserting = true;
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + p.rows.size()) - 1);
        m_rows.append(p.rows);
        endInsertRows();
        m_inserting = false;
    }
    emit pageLoaded(int(p.rows.size()));
    if (m_pendingPage) {
        m_pendingPage = false;
        if (!m_atEnd)
            startPage(m_pageSize);
    }
    if (!isLoading())
        emit loadingChanged(false);
}

void EvaluationTableModel::applyCount()
{
    const Count c = m_countWatcher.result();
    if (c.generation != m_generation)
        return;
    m_countLoading = false;
    if (!c.error.isEmpty()) {
        m_error = c.error;
        emit errorOccurred(c.error);
    }
    m_total = c.total;
    emit totalCountChanged(m_total);
    if (!isLoading())
        emit loadingChanged(false);
}

qint64 EvaluationTableModel::evaluationId(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows[row].values[IdColumn].toLongLong() : 0;
}

int EvaluationTableModel::rowOfEvaluation(qint64 id) const
{
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].values[IdColumn].toLongLong() == id)
            return i;
    return -1;
}

int EvaluationTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EvaluationTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EvaluationTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole: {
        const QVariant& v = r.values[index.column()];
        if (index.column() == DetailColumn)
            return v.toString().section(QLatin1Char('\n'), 0, 0);
        return v;
    }
    case Qt::ToolTipRole:
        if (index.column() == DetailColumn || index.column() == ClassColumn)
            return r.values[DetailColumn];
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == IdColumn || index.column() == RoundColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case EvaluationIdRole: return r.values[IdColumn];
    case VerdictRole: return r.values[VerdictColumn];
    case TaskIdRole: return r.values[TaskColumn];
    case StageRole: return r.values[StageColumn];
    }
    return {};
}

QVariant EvaluationTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IdColumn: return tr("ID");
    case TaskColumn: return tr("Task");
    case MethodColumn: return tr("Method");
    case RoundColumn: return tr("Round");
    case GpuColumn: return tr("GPU");
    case VerdictColumn: return tr("Verdict");
    case StageColumn: return tr("Stage");
    case ClassColumn: return tr("Failure class");
    case ManualColumn: return tr("Manual label");
    case FinishedColumn: return tr("Finished");
    case ExtendedColumn: return tr("Extended");
    case DetailColumn: return tr("Detail");
    }
    return {};
}

bool EvaluationTableModel::canFetchMore(const QModelIndex& parent) const
{
    return !parent.isValid() && !m_atEnd;
}

void EvaluationTableModel::fetchMore(const QModelIndex& parent)
{
    if (parent.isValid() || m_atEnd || m_inserting)
        return;
    startPage(m_pageSize);
}

}  // namespace kbx::gui
