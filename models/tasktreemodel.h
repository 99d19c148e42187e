// SPDX-License-Identifier: MIT
#pragma once
#include <QAbstractItemModel>
#include <QFutureWatcher>
#include <QHash>
#include <QString>
#include <QStringList>

#include <memory>

namespace kbx {
class TaskCatalogue;
struct TaskInfo;
}  // namespace kbx

namespace kbx::gui {

/// Counts of a task (or a category) under the counting rule of every view and of kbx report
/// (kbx::analysis::countingRule(): the latest evaluation of every submission per device).
struct TaskStats {
    int evaluated = 0;
    int callOk = 0;
    int passed = 0;
};

/// The benchmark's categories -> tasks, with the number of tasks per category and, for the chosen
/// method, round and device, the number of evaluated candidates, call rate and pass rate (from the
/// database's evaluation_rows under the one counting rule, kbx::query::countedEvaluationsSql():
/// the latest evaluation of every submission on each device counts once, as in kbx report, Charts
/// and the figures; with all devices, a submission evaluated on two devices counts twice).
/// Statistics are computed on a worker thread; statsReady() says when they changed.
class TaskTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, TasksColumn, EvaluatedColumn, CallColumn, PassColumn, ColumnCount };
    enum Role {
        TaskIdRole = Qt::UserRole + 1,  ///< "Category/stem" (tasks), category name (categories)
        IsCategoryRole,
        PassRateRole,                   ///< double in [0, 1], or invalid when nothing was evaluated
        CallRateRole,
        EvaluatedRole,
    };

    explicit TaskTreeModel(QObject* parent = nullptr);
    ~TaskTreeModel() override;

    /// Loads tasks/index.json from `tasksDir` (default: kbx::findTasksDir()). False + error on failure.
    bool loadCatalogue(const QString& tasksDir = {}, QString* error = nullptr);
    const kbx::TaskCatalogue* catalogue() const { return m_catalogue.get(); }
    const kbx::TaskInfo* task(const QString& id) const;

    void setDatabase(const QString& path);
    QString database() const { return m_db; }
    /// Empty method = all methods; round < 0 = all rounds; empty gpu = all devices (the view's gpu
    /// column: "NVIDIA H200", "CPU (Triton interpreter)", an imported run's GPU).
    void setMethod(const QString& method);
    void setRound(int round);
    void setGpu(const QString& gpu);
    QString method() const { return m_method; }
    int round() const { return m_round; }
    QString gpu() const { return m_gpu; }
    /// The devices (gpu values) of the database's evaluations, sorted; loaded with the statistics.
    QStringList devices() const { return m_devices; }
    /// The counting rule in words (kbx::analysis::countingRule()), for tooltips and footers.
    static QString countingRule();
    /// Recomputes the statistics in the background.
    void refresh();
    bool isLoading() const { return m_loading; }

    TaskStats categoryStats(const QString& category) const;
    /// Over every task of the catalogue.
    TaskStats totalStats() const;
    TaskStats taskStats(const QString& taskId) const { return m_stats.value(taskId); }
    QModelIndex indexOfTask(const QString& taskId) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void statsReady();
    void errorOccurred(const QString& message);

private:
    struct Result {
        quint64 generation = 0;
        QHash<QString, TaskStats> stats;
        QStringList devices;
        QString error;
    };
    void applyStats();

    std::unique_ptr<kbx::TaskCatalogue> m_catalogue;
    QStringList m_categories;
    QList<QList<int>> m_tasksOf;  ///< per category: indexes into catalogue tasks()
    QHash<QString, TaskStats> m_stats;
    QString m_db;
    QString m_method;
    int m_round = -1;
    QString m_gpu;
    QStringList m_devices;
    quint64 m_generation = 0;
    bool m_pending = false;
    bool m_loading = false;
    QFutureWatcher<Result> m_watcher;
};

}  // namespace kbx::gui
