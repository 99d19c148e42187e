// SPDX-License-Identifier: MIT
#pragma once
#include <QAbstractTableModel>
#include <QFuture>
#include <QFutureWatcher>
#include <QPair>
#include <QHash>
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
    QString taskId;         ///< exactly this task ("Category/stem"); empty = any
    /// Only the evaluations the reports count (kbx::analysis::countingRule(): the latest evaluation of
    /// every submission per device); false = every evaluation.
    bool countedOnly = false;
    bool operator==(const EvaluationFilter&) const = default;
};

/// The evaluations of a database (the evaluation_rows view), filtered and sorted in SQL, every
/// evaluation a row (no "latest per submission" rule: that is the reports' and the task tree's).
/// Every query runs on a worker thread and the total count arrives separately (totalCount()).
///
/// Two ways of reading rows:
///  - paged (the default): rowCount() is what was loaded; fetchMore() appends a page read with keyset
///    paging (WHERE (key, id) > (last key, last id) ORDER BY key, id LIMIT n).
///  - windowed (setWindowed(true), what the results view uses): rowCount() is the whole match once
///    counted, so the scroll bar and Ctrl+End reach the last of a million rows; blocks of pageSize()
///    rows are read when data() asks for them (keyset from a loaded neighbour block, else OFFSET from
///    the nearer end), at most maxCachedBlocks() are kept, and rowsLoaded() says when a block arrived.
///    A row not loaded yet shows "…" and has no EvaluationIdRole.
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
        RunColumn,       ///< the run (runs.id) the evaluation belongs to
        SpeedupColumn,   ///< geometric mean over shapes of eager / candidate time; passing, timed evaluations only
        DetailColumn,
        ColumnCount
    };
    enum Role { EvaluationIdRole = Qt::UserRole + 1, VerdictRole, TaskIdRole, StageRole, RunIdRole, SpeedupRole };

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
    bool isLoading() const;
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

    /// Windowed reading (see the class comment). Switching resets the model.
    void setWindowed(bool windowed);
    bool isWindowed() const { return m_windowed; }
    /// Windowed: whether `row`'s data is loaded (paged: whether row < rowCount()).
    bool isRowLoaded(int row) const;
    /// Windowed: asks for the blocks holding rows first..last (what data() does for one row).
    void prefetch(int first, int last) const;
    int maxCachedBlocks() const { return m_maxBlocks; }
    int cachedBlocks() const { return int(m_blocks.size()); }
    void setMaxCachedBlocks(int blocks) { m_maxBlocks = qMax(4, blocks); }

    /// Writes the rows matching `filter`, sorted like the table, or only the evaluations `ids` (in that
    /// order) when given, as CSV (a header line, then one line per evaluation; the full failure detail).
    /// Runs where it is called (call it off the GUI thread for big tables). Returns the rows written,
    /// -1 on failure (error says why).
    static qint64 writeCsv(const QString& db, const EvaluationFilter& filter, int sortColumn, Qt::SortOrder order,
                           const QList<qint64>& ids, const QString& path, QString* error = nullptr);
    /// writeCsv on a worker thread: (rows written or -1, error).
    static QFuture<QPair<qint64, QString>> writeCsvAsync(const QString& db, const EvaluationFilter& filter, int sortColumn,
                                                         Qt::SortOrder order, const QList<qint64>& ids, const QString& path);

signals:
    void totalCountChanged(qint64 total);
    void pageLoaded(int rowsAdded);
    void loadingChanged(bool loading);
    /// Windowed: rows first..last were read (their data changed from "…" or from stale values).
    void rowsLoaded(int first, int last);
    void errorOccurred(const QString& message);

public:
    struct Row {
        QVariant values[ColumnCount];
        QVariant key;
    };
    struct Page {
        quint64 generation = 0;
        int block = -1;  ///< windowed: the block read
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
    void startCount();
    void startPage(int limit);
    void applyPage();
    void applyCount();
    // Windowed reading.
    struct Block {
        quint64 generation = 0;
        QList<Row> rows;
    };
    const Row* windowRow(int row) const;
    void want(int block) const;
    void scheduleBlocks() const;
    void startNextBlock();
    void applyBlock();
    void setWindowRowCount(int rows);
    void refreshWindow();

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

    bool m_windowed = false;
    int m_windowRows = 0;                   ///< rowCount() in windowed mode
    int m_maxBlocks = 64;
    mutable QHash<int, Block> m_blocks;     ///< block index -> rows (possibly of an older generation: stale, shown until re-read)
    mutable QList<int> m_lru;               ///< block indices, most recently used last
    mutable QList<int> m_wanted;            ///< blocks to read, most recently asked for last
    mutable bool m_blocksScheduled = false;
    bool m_blockLoading = false;
    QFutureWatcher<Page> m_blockWatcher;
};

}  // namespace kbx::gui
