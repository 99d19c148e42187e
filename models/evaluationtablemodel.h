// SPDX-License-Identifier: MIT
#pragma once
#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QList>
#include <QString>
#include <QVariant>

#include <atomic>
#include <memory>

namespace kbx::gui {

/// What the results table shows. Empty strings / invalid variants mean "any".
struct EvaluationFilter {
    QString method;
    QVariant round;         ///< int
    QString gpu;            ///< as in evaluation_rows.gpu ("CPU (Triton interpreter)", "NVIDIA H200", ...)
    QString category;
    QString stage;          ///< pass | call | exe
    QVariant failureClass;  ///< a class id; "" = no failure class (passed)
    QString text;           ///< substring of task, method, class or detail
    qint64 runId = 0;       ///< 0 = all runs
    bool operator==(const EvaluationFilter&) const = default;
};

/// The evaluations of a database (the evaluation_rows view), filtered and sorted in SQL and loaded
/// page by page with keyset paging (WHERE (key, id) > (last key, last id) ORDER BY key, id LIMIT n), so
/// a database of a million evaluations stays fluid: only the pages scrolled to are read, every query
/// runs on a worker thread, and the total count arrives separately (totalCount()).
class EvaluationTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        TaskColumn,
        MethodColumn,
        RoundColumn,
        GpuColumn,
        VerdictColumn,
        StageColumn,
        ClassColumn,
        ManualColumn,
        FinishedColumn,
        ExtendedColumn,  ///< extended-tier cases passed / run (issue 21); empty where none ran
        DetailColumn,
        ColumnCount
    };
    enum Role { EvaluationIdRole = Qt::UserRole + 1, VerdictRole, TaskIdRole, StageRole };

    explicit EvaluationTableModel(QObject* parent = nullptr);
    ~EvaluationTableModel() override;

    void setDatabase(const QString& path);
    QString database() const { return m_db; }
    void setFilter(const EvaluationFilter& filter);
    EvaluationFilter filter() const { return m_filter; }
    void setPageSize(int rows) { m_pageSize = qMax(16, rows); }
    int pageSize() const { return m_pageSize; }
    int sortColumn() const { return m_sortColumn; }
    Qt::SortOrder sortOrder() const { return m_order; }
    /// Re-reads from the database (new results), keeping as many rows loaded as before.
    void refresh();

    /// Rows matching the filter (-1 while being counted).
    qint64 totalCount() const { return m_total; }
    bool isLoading() const { return m_pageLoading || m_countLoading || m_pendingPage; }
    qint64 evaluationId(int row) const;
    int rowOfEvaluation(qint64 id) const;
    QString lastError() const { return m_error; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

    /// SQL expression of a column's sort key in evaluation_rows (for tests and exports).
    static QString sortKeyExpression(int column);

signals:
    void totalCountChanged(qint64 total);
    void pageLoaded(int rowsAdded);
    void loadingChanged(bool loading);
    void errorOccurred(const QString& message);

public:
    struct Row {
        QVariant values[ColumnCount];
        QVariant key;
    };
    struct Page {
        quint64 generation = 0;
        QList<Row> rows;
        bool atEnd = false;
        QString error;
    };
    struct Count {
        quint64 generation = 0;
        qint64 total = -1;
        QString error;
    };

private:
    void restart(int keepRows);
    void startPage(int limit);
    void applyPage();
    void applyCount();

    QString m_db;
    EvaluationFilter m_filter;
    int m_sortColumn = IdColumn;
    Qt::SortOrder m_order = Qt::AscendingOrder;
    int m_pageSize = 256;
    QList<Row> m_rows;
    bool m_atEnd = true;
    bool m_pendingPage = false;  ///< a fetchMore arrived while a page was loading
    bool m_pageLoading = false;
    bool m_countLoading = false;
    bool m_inserting = false;    ///< fetchMore calls made from our own change notifications are ignored
    qint64 m_total = -1;
    quint64 m_generation = 0;
    QString m_error;
    std::shared_ptr<std::atomic<bool>> m_cancel;  ///< stops the queries of the previous filter/sort
    QFutureWatcher<Page> m_pageWatcher;
    QFutureWatcher<Count> m_countWatcher;
};

}  // namespace kbx::gui
