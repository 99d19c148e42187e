// SPDX-License-Identifier: MIT
#include "evaluationtablemodel.h"

#include "analysis.h"

#include "sqlite.h"

#include <QFile>
#include <QSaveFile>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbx::gui {

namespace {

// The speedup of kbx report (core/analysis.cpp loadRows): verdict pass, shapes with both times > 0.
const char* const kSpeedupSql =
    "(CASE WHEN verdict = 'pass' THEN (SELECT kbx_speedup(t.baseline_ms, t.candidate_ms) FROM timings t "
    "WHERE t.evaluation_id = evaluation_rows.id AND t.candidate_ms > 0 AND t.baseline_ms > 0) END)";

const char* const kColumnSql[EvaluationTableModel::ColumnCount] = {
    "id", "task_id", "method", "round", "gpu", "verdict", "stage", "failure_class", "manual_class", "finished_at",
    "CASE WHEN ext_cases IS NULL THEN '' ELSE ext_passed || '/' || ext_cases END", "run_id", kSpeedupSql,
    "substr(failure_detail, 1, 300)"};

/// kbx_speedup(baseline, candidate): an aggregate over an evaluation's shapes, as analysis::loadRows
/// computes it: ratios that are not finite and > 0 are skipped; one shape gives the ratio itself (exact),
/// more the geometric mean; none NULL.
struct SpeedupAcc {
    double logSum;
    double first;
    qint64 count;
};

void speedupStep(sqlite3_context* ctx, int, sqlite3_value** argv)
{
    auto* a = static_cast<SpeedupAcc*>(sqlite3_aggregate_context(ctx, sizeof(SpeedupAcc)));
    if (!a || sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
        return;
    const double s = sqlite3_value_double(argv[0]) / sqlite3_value_double(argv[1]);
    if (!std::isfinite(s) || s <= 0)
        return;
    if (a->count == 0)
        a->first = s;
    a->logSum += std::log(s);
    ++a->count;
}

void speedupFinal(sqlite3_context* ctx)
{
    auto* a = static_cast<SpeedupAcc*>(sqlite3_aggregate_context(ctx, 0));
    if (!a || a->count == 0)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_double(ctx, a->count == 1 ? a->first : std::exp(a->logSum / double(a->count)));
}

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
    if (!f.taskId.isEmpty())
        add(QStringLiteral("task_id = ?"), f.taskId);
    if (f.countedOnly)  // the reports' counting rule (core/analysis.h countedEvaluationsSql)
        parts << QStringLiteral("id IN (%1)").arg(QString::fromStdString(kbx::analysis::countedEvaluationsSql({})));
    w.sql = parts.join(QLatin1String(" AND "));
    return w;
}

/// One read of rows: the filter, the order of the table, and where to start. `reverse` reads in the
/// opposite order (and flips the rows back): the end of the table is then as near as its start.
struct RowQuery {
    QString db;
    Where where;
    int sortColumn = EvaluationTableModel::IdColumn;
    bool desc = false;
    bool reverse = false;
    bool hasBoundary = false;  ///< rows strictly after (key, id) in reading order
    QVariant boundaryKey, boundaryId;
    int limit = 256;
    qint64 offset = 0;
};

EvaluationTableModel::Page readRows(const RowQuery& q, const std::atomic<bool>* cancel)
{
    EvaluationTableModel::Page p;
    try {
        SqlConnection conn(q.db);
        conn.setInterruptFlag(cancel);
        EvaluationTableModel::registerFunctions(conn.handle());
        const QString key = EvaluationTableModel::sortKeyExpression(q.sortColumn);
        const bool keyIsId = q.sortColumn == EvaluationTableModel::IdColumn;
        const bool desc = q.desc != q.reverse;
        QStringList cols;
        for (const char* c : kColumnSql)
            cols << QString::fromLatin1(c);
        QString sql = QStringLiteral("SELECT %1, %2 FROM evaluation_rows").arg(cols.join(QLatin1String(", ")), key);
        QStringList where;
        if (!q.where.sql.isEmpty())
            where << q.where.sql;
        QVariantList values = q.where.values;
        const QString cmp = desc ? QStringLiteral("<") : QStringLiteral(">");
        qint64 offset = q.offset;
        if (keyIsId && q.where.sql.isEmpty() && offset > 0 && !q.hasBoundary) {
            // The whole table in id order (the default): the row `offset` places in comes from the
            // evaluations' own b-tree, without the view's joins for every row skipped over.
            SqlStatement b(conn, QStringLiteral("SELECT id FROM evaluations ORDER BY id%1 LIMIT 1 OFFSET %2")
                                     .arg(desc ? QStringLiteral(" DESC") : QString())
                                     .arg(offset));
            if (b.step()) {
                where << QStringLiteral("id %1= ?").arg(cmp);
                values << b.int64(0);
                offset = 0;
            }
        }
        if (q.hasBoundary) {
            if (keyIsId) {
                where << QStringLiteral("id %1 ?").arg(cmp);
                values << q.boundaryId;
            } else {
                where << QStringLiteral("(%1, id) %2 (?, ?)").arg(key, cmp);
                values << q.boundaryKey << q.boundaryId;
            }
        }
        if (!where.isEmpty())
            sql += QStringLiteral(" WHERE ") + where.join(QLatin1String(" AND "));
        const QString dir = desc ? QStringLiteral(" DESC") : QString();
        sql += keyIsId ? QStringLiteral(" ORDER BY id%1").arg(dir) : QStringLiteral(" ORDER BY %1%2, id%2").arg(key, dir);
        sql += QStringLiteral(" LIMIT %1").arg(q.limit);
        if (offset > 0)
            sql += QStringLiteral(" OFFSET %1").arg(offset);
        SqlStatement st(conn, sql);
        for (int i = 0; i < values.size(); ++i)
            st.bind(i + 1, values[i]);
        while (st.step()) {
            EvaluationTableModel::Row r;
            for (int c = 0; c < EvaluationTableModel::ColumnCount; ++c)
                r.values[c] = st.value(c);
            r.key = st.value(EvaluationTableModel::ColumnCount);
            p.rows.append(std::move(r));
        }
        p.atEnd = p.rows.size() < q.limit;
        if (q.reverse)
            std::reverse(p.rows.begin(), p.rows.end());
    } catch (const std::exception& e) {
        p.error = QString::fromStdString(e.what());
        p.atEnd = true;
    }
    return p;
}

QString csvField(const QVariant& v)
{
    QString t = v.isNull() ? QString() : v.toString();
    if (t.contains(QLatin1Char(',')) || t.contains(QLatin1Char('"')) || t.contains(QLatin1Char('\n')) || t.contains(QLatin1Char('\r')))
        t = QLatin1Char('"') + t.replace(QLatin1Char('"'), QLatin1String("\"\"")) + QLatin1Char('"');
    return t;
}

}  // namespace

QString EvaluationTableModel::speedupExpression()
{
    return QString::fromLatin1(kSpeedupSql);
}

void EvaluationTableModel::registerFunctions(void* handle)
{
    sqlite3_create_function_v2(static_cast<sqlite3*>(handle), "kbx_speedup", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, nullptr,
                               speedupStep, speedupFinal, nullptr);
}

QString EvaluationTableModel::sortKeyExpression(int column)
{
    switch (column) {
    case ClassColumn: return QStringLiteral("ifnull(failure_class, '')");
    case ManualColumn: return QStringLiteral("ifnull(manual_class, '')");
    case DetailColumn: return QStringLiteral("ifnull(failure_detail, '')");
    // NULL never takes part in a keyset comparison: no speedup sorts below every speedup.
    case SpeedupColumn: return QStringLiteral("ifnull(%1, -1.0)").arg(speedupExpression());
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
    connect(&m_blockWatcher, &QFutureWatcher<Page>::finished, this, &EvaluationTableModel::applyBlock);
}

EvaluationTableModel::~EvaluationTableModel()
{
    if (m_cancel)
        m_cancel->store(true);
    m_pageWatcher.waitForFinished();
    m_countWatcher.waitForFinished();
    m_blockWatcher.waitForFinished();
}

bool EvaluationTableModel::isLoading() const
{
    if (m_windowed)
        return m_countLoading || m_blockLoading || !m_wanted.isEmpty();
    return m_pageLoading || m_countLoading || m_pendingPage;
}

void EvaluationTableModel::setWindowed(bool windowed)
{
    if (windowed == m_windowed)
        return;
    m_windowed = windowed;
    restart(0);
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
    if (m_windowed && !m_db.isEmpty())
        refreshWindow();
    else
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
    m_windowRows = 0;
    m_blocks.clear();
    m_lru.clear();
    m_wanted.clear();
    m_blockLoading = false;
    endResetModel();
    m_inserting = false;
    if (m_total != -1) {
        m_total = -1;
        emit totalCountChanged(m_total);
    }
    if (m_db.isEmpty())
        return;
    if (m_windowed)
        want(0);
    else
        startPage(qMin(qMax(m_pageSize, keepRows), 20000));

    startCount();
}

void EvaluationTableModel::startCount()
{
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
    RowQuery q;
    q.db = m_db;
    q.where = whereOf(m_filter);
    q.sortColumn = m_sortColumn;
    q.desc = m_order == Qt::DescendingOrder;
    q.limit = limit;
    if (!m_rows.isEmpty()) {
        q.hasBoundary = true;
        q.boundaryKey = m_rows.last().key;
        q.boundaryId = m_rows.last().values[IdColumn];
    }
    const quint64 gen = m_generation;
    const auto cancel = m_cancel;
    m_pageWatcher.setProperty("generation", QVariant::fromValue(gen));
    m_pageWatcher.setFuture(QtConcurrent::run([q, gen, cancel]() {
        Page p = readRows(q, cancel.get());
        p.generation = gen;
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
    if (m_windowed && m_total >= 0) {
        // A block read in this generation before the count arrived was sized by the previous count
        // (new results appended rows): read it again, or its new rows would stay empty.
        for (auto it = m_blocks.begin(); it != m_blocks.end();) {
            const qint64 start = qint64(it.key()) * m_pageSize;
            const qint64 expected = qMax<qint64>(0, qMin<qint64>(m_pageSize, m_total - start));
            if (it->generation == m_generation && it->rows.size() < expected) {
                m_wanted.removeOne(it.key());
                m_wanted.append(it.key());
                it = m_blocks.erase(it);
            } else {
                ++it;
            }
        }
        setWindowRowCount(int(qMin<qint64>(m_total, std::numeric_limits<int>::max())));
    }
    emit totalCountChanged(m_total);
    if (m_windowed)
        startNextBlock();  // blocks beyond the end are dropped now that it is known
    if (!isLoading())
        emit loadingChanged(false);
}

// ---- windowed reading ----------------------------------------------------------------------------

const EvaluationTableModel::Row* EvaluationTableModel::windowRow(int row) const
{
    if (row < 0 || row >= m_windowRows)
        return nullptr;
    const auto it = m_blocks.constFind(row / m_pageSize);
    if (it == m_blocks.cend() || row % m_pageSize >= it->rows.size())
        return nullptr;
    return &it->rows[row % m_pageSize];
}

void EvaluationTableModel::want(int block) const
{
    if (block < 0 || m_db.isEmpty())
        return;
    if (m_total >= 0 && qint64(block) * m_pageSize >= m_total)
        return;
    m_wanted.removeOne(block);
    m_wanted.append(block);
    // Scrolling fast asks for many blocks: only the latest ones are still worth reading.
    while (m_wanted.size() > 12)
        m_wanted.removeFirst();
    scheduleBlocks();
}

void EvaluationTableModel::scheduleBlocks() const
{
    if (m_blocksScheduled)
        return;
    m_blocksScheduled = true;
    auto* self = const_cast<EvaluationTableModel*>(this);
    QTimer::singleShot(0, self, [self] {
        self->m_blocksScheduled = false;
        self->startNextBlock();
    });
}

void EvaluationTableModel::prefetch(int first, int last) const
{
    if (!m_windowed || m_pageSize <= 0)
        return;
    first = qMax(0, first);
    last = qMin(last, m_windowRows - 1);
    for (int b = first / m_pageSize; first <= last && b <= last / m_pageSize; ++b) {
        const auto it = m_blocks.constFind(b);
        if (it == m_blocks.cend() || it->generation != m_generation)
            want(b);
    }
}

bool EvaluationTableModel::isRowLoaded(int row) const
{
    if (!m_windowed)
        return row >= 0 && row < m_rows.size();
    return windowRow(row) != nullptr;
}

void EvaluationTableModel::startNextBlock()
{
    if (!m_windowed || m_blockLoading || m_db.isEmpty())
        return;
    // After new results (refreshWindow) the count is read again: a block sized or placed by the old
    // count (its limit, an offset from the end) would miss the new rows or show the wrong ones, so
    // blocks wait for the new count (applyCount starts them). The first load reads its first block
    // beside the count (no count yet: sized by the page).
    if (m_countLoading && m_total >= 0)
        return;
    while (!m_wanted.isEmpty()) {
        const int b = m_wanted.takeLast();
        const auto have = m_blocks.constFind(b);
        if (have != m_blocks.cend() && have->generation == m_generation)
            continue;
        const qint64 start = qint64(b) * m_pageSize;
        if (m_total >= 0 && start >= m_total)
            continue;
        RowQuery q;
        q.db = m_db;
        q.where = whereOf(m_filter);
        q.sortColumn = m_sortColumn;
        q.desc = m_order == Qt::DescendingOrder;
        q.limit = m_total >= 0 ? int(qMin<qint64>(m_pageSize, m_total - start)) : m_pageSize;
        const auto prev = m_blocks.constFind(b - 1);
        const auto next = m_blocks.constFind(b + 1);
        if (b == 0) {
            // the start: nothing to skip
        } else if (prev != m_blocks.cend() && prev->generation == m_generation && prev->rows.size() == m_pageSize) {
            // Scrolling down: continue after the block above (keyset, no rows skipped over).
            q.hasBoundary = true;
            q.boundaryKey = prev->rows.last().key;
            q.boundaryId = prev->rows.last().values[IdColumn];
        } else if (next != m_blocks.cend() && next->generation == m_generation && !next->rows.isEmpty()) {
            // Scrolling up: the rows before the block below, read backwards.
            q.reverse = true;
            q.limit = m_pageSize;
            q.hasBoundary = true;
            q.boundaryKey = next->rows.first().key;
            q.boundaryId = next->rows.first().values[IdColumn];
        } else if (m_total >= 0 && start > m_total / 2) {
            // A jump into the second half (Ctrl+End, the scroll bar): count from the end.
            q.reverse = true;
            q.offset = m_total - start - q.limit;
        } else {
            q.offset = start;
        }
        if (q.limit <= 0)
            continue;
        const quint64 gen = m_generation;
        const auto cancel = m_cancel;
        m_blockLoading = true;
        m_blockWatcher.setFuture(QtConcurrent::run([q, gen, cancel, b]() {
            Page p = readRows(q, cancel.get());
            p.generation = gen;
            p.block = b;
            return p;
        }));
        emit loadingChanged(true);
        return;
    }
    if (!isLoading())
        emit loadingChanged(false);
}

void EvaluationTableModel::applyBlock()
{
    const Page p = m_blockWatcher.result();
    m_blockLoading = false;
    if (p.generation != m_generation || !m_windowed) {
        startNextBlock();
        return;
    }
    if (!p.error.isEmpty()) {
        m_error = p.error;
        emit errorOccurred(p.error);
    }
    // Stored even when empty (an error): a block is not asked for again and again.
    m_blocks.insert(p.block, Block{p.generation, p.rows});
    m_lru.removeOne(p.block);
    m_lru.append(p.block);
    while (m_blocks.size() > m_maxBlocks && !m_lru.isEmpty())
        m_blocks.remove(m_lru.takeFirst());
    const int first = p.block * m_pageSize;
    if (m_total < 0 && p.block == 0)
        setWindowRowCount(qMax(m_windowRows, int(p.rows.size())));  // the first rows before the count
    const int last = qMin(first + int(p.rows.size()), m_windowRows) - 1;
    if (last >= first) {
        emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
        emit rowsLoaded(first, last);
    }
    emit pageLoaded(int(p.rows.size()));
    startNextBlock();
}

void EvaluationTableModel::setWindowRowCount(int rows)
{
    if (rows == m_windowRows)
        return;
    if (rows > m_windowRows) {
        beginInsertRows({}, m_windowRows, rows - 1);
        m_windowRows = rows;
        endInsertRows();
        return;
    }
    beginRemoveRows({}, rows, m_windowRows - 1);
    m_windowRows = rows;
    for (auto it = m_blocks.begin(); it != m_blocks.end();) {
        if (qint64(it.key()) * m_pageSize >= rows) {
            m_lru.removeOne(it.key());
            it = m_blocks.erase(it);
        } else {
            ++it;
        }
    }
    endRemoveRows();
}

void EvaluationTableModel::refreshWindow()
{
    // New results: the rows on show stay (stale) until their blocks are read again; the row count
    // follows the new count. No reset: the current row, the selection and the scroll position stay.
    if (m_cancel)
        m_cancel->store(true);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    ++m_generation;
    m_blockLoading = false;
    m_error.clear();
    m_wanted.clear();
    for (int i = qMax(0, int(m_lru.size()) - 4); i < m_lru.size(); ++i)
        m_wanted.append(m_lru[i]);
    for (auto it = m_blocks.begin(); it != m_blocks.end();)
        it = m_wanted.contains(it.key()) ? std::next(it) : m_blocks.erase(it);
    m_lru = m_wanted;
    if (m_wanted.isEmpty())
        m_wanted.append(0);
    startCount();
    scheduleBlocks();
}

// ---- rows ---------------------------------------------------------------------------------------

qint64 EvaluationTableModel::evaluationId(int row) const
{
    if (m_windowed) {
        const Row* r = windowRow(row);
        return r ? r->values[IdColumn].toLongLong() : 0;
    }
    return row >= 0 && row < m_rows.size() ? m_rows[row].values[IdColumn].toLongLong() : 0;
}

int EvaluationTableModel::rowOfEvaluation(qint64 id) const
{
    if (m_windowed) {
        for (auto it = m_blocks.cbegin(); it != m_blocks.cend(); ++it)
            for (int i = 0; i < it->rows.size(); ++i)
                if (it->rows[i].values[IdColumn].toLongLong() == id && it.key() * m_pageSize + i < m_windowRows)
                    return it.key() * m_pageSize + i;
        return -1;
    }
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].values[IdColumn].toLongLong() == id)
            return i;
    return -1;
}

int EvaluationTableModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid())
        return 0;
    return m_windowed ? m_windowRows : int(m_rows.size());
}

int EvaluationTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EvaluationTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row* row = nullptr;
    if (m_windowed) {
        const int b = index.row() / m_pageSize;
        const auto it = m_blocks.constFind(b);
        if (it == m_blocks.cend() || it->generation != m_generation)
            want(b);  // not read yet, or read before new results landed: shown as it was until read again
        else if (m_lru.isEmpty() || m_lru.last() != b) {
            m_lru.removeOne(b);
            m_lru.append(b);
        }
        row = windowRow(index.row());
        if (!row)
            return role == Qt::DisplayRole && index.column() == TaskColumn ? QVariant(QStringLiteral("…")) : QVariant();
    } else {
        row = &m_rows[index.row()];
    }
    const Row& r = *row;
    switch (role) {
    case Qt::DisplayRole: {
        const QVariant& v = r.values[index.column()];
        if (index.column() == DetailColumn)
            return v.toString().section(QLatin1Char('\n'), 0, 0);
        if (index.column() == SpeedupColumn)
            return v.isNull() ? QVariant(QString()) : QVariant(QStringLiteral("%1×").arg(v.toDouble(), 0, 'f', 3));
        return v;
    }
    case Qt::ToolTipRole:
        if (index.column() == DetailColumn || index.column() == ClassColumn)
            return r.values[DetailColumn];
        if (index.column() == SpeedupColumn && !r.values[SpeedupColumn].isNull())
            return tr("eager time / candidate time: %1 (geometric mean over the timed shapes, as kbx report counts it)")
                .arg(r.values[SpeedupColumn].toDouble(), 0, 'g', 6);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == IdColumn || index.column() == RoundColumn || index.column() == RunColumn || index.column() == SpeedupColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case EvaluationIdRole: return r.values[IdColumn];
    case VerdictRole: return r.values[VerdictColumn];
    case TaskIdRole: return r.values[TaskColumn];
    case StageRole: return r.values[StageColumn];
    case RunIdRole: return r.values[RunColumn];
    case SpeedupRole: return r.values[SpeedupColumn];
    }
    return {};
}

QVariant EvaluationTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        switch (section) {
        case RunColumn: return tr("The run that produced the evaluation (filter: Run)");
        case SpeedupColumn:
            return tr("Eager time / candidate time, geometric mean over the timed shapes; only passing evaluations "
                      "timed with --perf have one");
        case ExtendedColumn: return tr("Extended-tier cases passed / run; empty where none ran");
        case ManualColumn: return tr("A class set by hand in the inspector, beside the automatic one");
        default: return {};
        }
    }
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
    case RunColumn: return tr("Run");
    case SpeedupColumn: return tr("Speedup");
    case DetailColumn: return tr("Detail");
    }
    return {};
}

bool EvaluationTableModel::canFetchMore(const QModelIndex& parent) const
{
    return !m_windowed && !parent.isValid() && !m_atEnd;
}

void EvaluationTableModel::fetchMore(const QModelIndex& parent)
{
    if (m_windowed || parent.isValid() || m_atEnd || m_inserting)
        return;
    startPage(m_pageSize);
}

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
        SqlConnection conn(db);
        registerFunctions(conn.handle());
        QStringList cols;
        for (int c = 0; c < ColumnCount; ++c)
            cols << (c == DetailColumn ? QStringLiteral("failure_detail") : QString::fromLatin1(kColumnSql[c]));
        QString sql = QStringLiteral("SELECT %1 FROM evaluation_rows").arg(cols.join(QLatin1String(", ")));
        QVariantList values;
        if (!ids.isEmpty()) {
            QStringList list;
            for (qint64 id : ids)
                list << QString::number(id);
            sql += QStringLiteral(" WHERE id IN (SELECT value FROM json_each(?))");
            values << QStringLiteral("[%1]").arg(list.join(QLatin1Char(',')));
        } else {
            const Where w = whereOf(filter);
            if (!w.sql.isEmpty())
                sql += QStringLiteral(" WHERE ") + w.sql;
            values = w.values;
            const QString dir = order == Qt::DescendingOrder ? QStringLiteral(" DESC") : QString();
            sql += sortColumn == IdColumn ? QStringLiteral(" ORDER BY id%1").arg(dir)
                                          : QStringLiteral(" ORDER BY %1%2, id%2").arg(sortKeyExpression(sortColumn), dir);
        }
        SqlStatement st(conn, sql);
        for (int i = 0; i < values.size(); ++i)
            st.bind(i + 1, values[i]);
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
        auto line = [&] {
            QStringList fields;
            for (int c = 0; c < ColumnCount; ++c)
                fields << (c == SpeedupColumn && !st.isNull(c) ? QString::number(st.real(c), 'g', 6) : csvField(st.value(c)));
            return fields.join(QLatin1Char(',')).toUtf8() + '\n';
        };
        qint64 n = 0;
        if (ids.isEmpty()) {
            while (st.step()) {
                f.write(line());
                ++n;
            }
        } else {
            // In the order asked for (the table's rows as selected).
            QHash<qint64, QByteArray> byId;
            while (st.step())
                byId.insert(st.int64(IdColumn), line());
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
