// SPDX-License-Identifier: MIT
#include "tasktreemodel.h"

#include "database.h"

#include "analysis.h"
#include "catalogue.h"
#include "paths.h"
#include "query.h"
#include "store.h"

#include <QtConcurrent/QtConcurrentRun>

namespace kbx::gui {

namespace {
/// A count short enough for the column at a million evaluations: exact below 10,000, then "96.8k", "1.2M"
/// (the exact counts are in the tooltip).
QString shortCount(int n)
{
    if (n < 10000)
        return QString::number(n);
    if (n < 1000000)
        return QString::number(n / 1000.0, 'f', n < 100000 ? 1 : 0) + QLatin1Char('k');
    return QString::number(n / 1e6, 'f', 1) + QLatin1Char('M');
}

QString percent(int n, int d)
{
    if (d == 0)
        return QStringLiteral("–");
    return QStringLiteral("%1% (%2/%3)").arg(100.0 * n / d, 0, 'f', 1).arg(shortCount(n), shortCount(d));
}

QString exactPercent(int n, int d)
{
    if (d == 0)
        return {};
    return QStringLiteral("%1 of %2 (%3%)").arg(n).arg(d).arg(100.0 * n / d, 0, 'f', 2);
}
}  // namespace

TaskTreeModel::TaskTreeModel(QObject* parent) : QAbstractItemModel(parent)
{
    connect(&m_watcher, &QFutureWatcher<Result>::finished, this, &TaskTreeModel::applyStats);
}

TaskTreeModel::~TaskTreeModel()
{
    m_watcher.waitForFinished();
}

bool TaskTreeModel::loadCatalogue(const QString& tasksDir, QString* error)
{
    std::unique_ptr<kbx::TaskCatalogue> cat;
    try {
        const auto dir = tasksDir.isEmpty() ? kbx::findTasksDir() : std::filesystem::path(tasksDir.toStdString());
        cat = std::make_unique<kbx::TaskCatalogue>(kbx::TaskCatalogue::load(dir));
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    beginResetModel();
    m_catalogue = std::move(cat);
    m_categories.clear();
    m_tasksOf.clear();
    for (const auto& c : m_catalogue->categories())
        m_categories << QString::fromStdString(c);
    m_tasksOf.resize(m_categories.size());
    const auto& tasks = m_catalogue->tasks();
    for (int i = 0; i < static_cast<int>(tasks.size()); ++i) {
        const auto c = m_categories.indexOf(QString::fromStdString(tasks[static_cast<std::size_t>(i)].category));
        if (c >= 0)
            m_tasksOf[c].append(i);
    }
    endResetModel();
    return true;
}

const kbx::TaskInfo* TaskTreeModel::task(const QString& id) const
{
    return m_catalogue ? m_catalogue->find(id.toStdString()) : nullptr;
}

void TaskTreeModel::setDatabase(const QString& path)
{
    m_db = path;
    refresh();
}

void TaskTreeModel::setMethod(const QString& method)
{
    if (method == m_method)
        return;
    m_method = method;
    refresh();
}

void TaskTreeModel::setRound(int round)
{
    if (round == m_round)
        return;
    m_round = round;
    refresh();
}

void TaskTreeModel::setGpu(const QString& gpu)
{
    if (gpu == m_gpu)
        return;
    m_gpu = gpu;
    refresh();
}

QString TaskTreeModel::countingRule()
{
    return QString::fromStdString(kbx::analysis::countingRule());
}

void TaskTreeModel::refresh()
{
    ++m_generation;
    if (m_watcher.isRunning()) {
        m_pending = true;  // recomputed when the running query ends
        return;
    }
    m_pending = false;
    m_loading = true;
    const QString db = m_db;
    const QString method = m_method;
    const int round = m_round;
    const QString gpu = m_gpu;
    const quint64 gen = m_generation;
    m_watcher.setFuture(QtConcurrent::run([db, method, round, gpu, gen]() {
        Result r;
        r.generation = gen;
        if (db.isEmpty())
            return r;
        try {
            const auto store = openReadStore(db);
            // The one counting rule (core/analysis), the filters inside, as in kbx report.
            const auto counts = kbx::query::countedByTask(*store, method.toStdString(), round < 0 ? std::nullopt : std::optional<int>(round),
                                                          gpu.toStdString());
            for (const auto& [task, c] : counts)
                r.stats.insert(QString::fromStdString(task), {c.evaluated, c.callOk, c.passed});
            for (const auto& g : kbx::query::evaluatedGpus(*store))
                r.devices << QString::fromStdString(g);
        } catch (const std::exception& e) {
            r.error = QString::fromStdString(e.what());
        }
        return r;
    }));
}

void TaskTreeModel::applyStats()
{
    const Result r = m_watcher.result();
    m_loading = false;
    if (m_pending) {
        refresh();
        return;
    }
    if (r.generation != m_generation)
        return;
    if (!r.error.isEmpty())
        emit errorOccurred(r.error);
    m_stats = r.stats;
    m_devices = r.devices;
    for (int c = 0; c < m_categories.size(); ++c) {
        const QModelIndex cat = index(c, 0);
        emit dataChanged(index(c, EvaluatedColumn), index(c, PassColumn));
        if (!m_tasksOf[c].isEmpty())
            emit dataChanged(index(0, EvaluatedColumn, cat), index(int(m_tasksOf[c].size()) - 1, PassColumn, cat));
    }
    emit statsReady();
}

TaskStats TaskTreeModel::categoryStats(const QString& category) const
{
    TaskStats s;
    const auto c = m_categories.indexOf(category);
    if (c < 0)
        return s;
    for (int i : m_tasksOf[c]) {
        const auto t = m_stats.value(QString::fromStdString(m_catalogue->tasks()[static_cast<std::size_t>(i)].id));
        s.evaluated += t.evaluated;
        s.callOk += t.callOk;
        s.passed += t.passed;
    }
    return s;
}

TaskStats TaskTreeModel::totalStats() const
{
    TaskStats s;
    for (const auto& c : m_categories) {
        const TaskStats t = categoryStats(c);
        s.evaluated += t.evaluated;
        s.callOk += t.callOk;
        s.passed += t.passed;
    }
    return s;
}

QModelIndex TaskTreeModel::indexOfTask(const QString& taskId) const
{
    if (!m_catalogue)
        return {};
    for (int c = 0; c < m_categories.size(); ++c)
        for (int r = 0; r < m_tasksOf[c].size(); ++r)
            if (QString::fromStdString(m_catalogue->tasks()[static_cast<std::size_t>(m_tasksOf[c][r])].id) == taskId)
                return index(r, 0, index(c, 0));
    return {};
}

QModelIndex TaskTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    if (!parent.isValid())
        return row < m_categories.size() ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0 || parent.row() >= m_categories.size())
        return {};
    if (row >= m_tasksOf[parent.row()].size())
        return {};
    return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex TaskTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int TaskTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_categories.size());
    if (parent.column() != 0 || parent.internalId() != 0)
        return 0;
    return int(m_tasksOf.value(parent.row()).size());
}

int TaskTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant TaskTreeModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const bool isCat = index.internalId() == 0;
    QString name;
    TaskStats s;
    int taskCount = 0;
    const kbx::TaskInfo* t = nullptr;
    if (isCat) {
        name = m_categories[index.row()];
        s = categoryStats(name);
        taskCount = int(m_tasksOf[index.row()].size());
    } else {
        t = &m_catalogue->tasks()[static_cast<std::size_t>(m_tasksOf[int(index.internalId() - 1)][index.row()])];
        name = QString::fromStdString(t->id);
        s = m_stats.value(name);
    }
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return isCat ? name : QString::fromStdString(t->stem);
        case TasksColumn: return isCat ? QVariant(taskCount) : QVariant();
        case EvaluatedColumn: return s.evaluated;
        case CallColumn: return percent(s.callOk, s.evaluated);
        case PassColumn: return percent(s.passed, s.evaluated);
        }
        return {};
    case Qt::ToolTipRole:
        if (!isCat && index.column() == NameColumn)
            return QString::fromStdString(t->signature);
        if (index.column() == CallColumn)
            return exactPercent(s.callOk, s.evaluated);
        if (index.column() == PassColumn)
            return exactPercent(s.passed, s.evaluated);
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == NameColumn ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case TaskIdRole: return name;
    case IsCategoryRole: return isCat;
    case PassRateRole: return s.evaluated ? QVariant(double(s.passed) / s.evaluated) : QVariant();
    case CallRateRole: return s.evaluated ? QVariant(double(s.callOk) / s.evaluated) : QVariant();
    case EvaluatedRole: return s.evaluated;
    }
    return {};
}

QVariant TaskTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case TasksColumn: return tr("Tasks of the category in the benchmark");
        case EvaluatedColumn:
            return tr("Evaluations counted: the %1, as kbx report, Charts and the figures count them. "
                      "With all devices a submission evaluated on two devices counts twice.")
                .arg(countingRule());
        case CallColumn: return tr("Counted evaluations whose kernel compiled and ran (call_ok)");
        case PassColumn: return tr("Counted evaluations with verdict pass");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Task");
    case TasksColumn: return tr("Tasks");
    case EvaluatedColumn: return tr("Evaluated");
    case CallColumn: return tr("Call");
    case PassColumn: return tr("Pass");
    }
    return {};
}

}  // namespace kbx::gui
