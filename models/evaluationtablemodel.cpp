// SPDX-License-Identifier: MIT
#include "evaluationtablemodel.h"
#include "evaluationreads.h"

#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbx::gui {

using namespace reads;

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
    const auto filter = coreFilter(m_filter);
    const quint64 gen = m_generation;
    const auto cancel = m_cancel;
    m_countLoading = true;
    m_countWatcher.setFuture(QtConcurrent::run([db, filter, gen, cancel]() {
        Count c = countRows(db, filter, cancel.get());
        c.generation = gen;
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
    RowQuery q = rowQuery(m_db, m_filter, m_sortColumn, m_order, limit);
    if (!m_rows.isEmpty())
        q.window.after = {toSqlValue(m_rows.last().key), m_rows.last().values[IdColumn].toLongLong()};
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
        RowQuery q = rowQuery(m_db, m_filter, m_sortColumn, m_order,
                              m_total >= 0 ? int(qMin<qint64>(m_pageSize, m_total - start)) : m_pageSize);
        auto& w = q.window;
        const auto prev = m_blocks.constFind(b - 1);
        const auto next = m_blocks.constFind(b + 1);
        if (b == 0) {
            // the start: nothing to skip
        } else if (prev != m_blocks.cend() && prev->generation == m_generation && prev->rows.size() == m_pageSize) {
            // Scrolling down: continue after the block above (keyset, no rows skipped over).
            w.after = {toSqlValue(prev->rows.last().key), prev->rows.last().values[IdColumn].toLongLong()};
        } else if (next != m_blocks.cend() && next->generation == m_generation && !next->rows.isEmpty()) {
            // Scrolling up: the rows before the block below, read backwards.
            w.reverse = true;
            w.limit = m_pageSize;
            w.after = {toSqlValue(next->rows.first().key), next->rows.first().values[IdColumn].toLongLong()};
        } else if (m_total >= 0 && start > m_total / 2) {
            // A jump into the second half (Ctrl+End, the scroll bar): count from the end.
            w.reverse = true;
            w.offset = m_total - start - w.limit;
        } else {
            w.offset = start;
        }
        if (w.limit <= 0)
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

}  // namespace kbx::gui
