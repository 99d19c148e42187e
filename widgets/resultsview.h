// SPDX-License-Identifier: MIT
#pragma once
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QMenu;
class QPushButton;
class QTableView;
class QTimer;
class QToolButton;

namespace kbx::gui {

class EvaluationTableModel;
class FacetListModel;
struct EvaluationFilter;

/// The results table: every evaluation of the database (not only the latest of each submission: that
/// is the rule of the reports and of the task tree), filterable by method, round, category, GPU, run,
/// stage, failure class, task and text, sortable by any column (in SQL). The model is windowed: the
/// scroll bar and Ctrl+End reach the last of a million rows, read block by block as they are shown.
/// The filter bar wraps onto more lines in a narrow window. Context menu: copy, open in the inspector,
/// show the code, diff, re-run, export (CSV) of the selection or of every matching row.
class ResultsView : public QWidget {
    Q_OBJECT
public:
    explicit ResultsView(QWidget* parent = nullptr);

    EvaluationTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QLabel* countLabel() const { return m_count; }
    QComboBox* facetBox(int kind) const;  ///< FacetListModel::Kind
    QLineEdit* textFilter() const { return m_text; }

    void setDatabase(const QString& path);
    /// New results landed: reload facets and rows, keeping the filter.
    void refresh();
    void setFilter(const EvaluationFilter& f);
    /// Every evaluation of one task (the other filters cleared); a category name (no '/') filters
    /// by category instead.
    void showTask(const QString& taskId);
    /// The "Task: … ✕" button that shows (and clears) a task filter; hidden when there is none.
    QToolButton* taskChip() const { return m_taskChip; }
    /// "Counted only": the evaluations the reports count (EvaluationFilter::countedOnly).
    QCheckBox* countedOnlyBox() const { return m_counted; }
    qint64 currentEvaluationId() const;
    /// The evaluation ids of the selected rows, in row order.
    QList<qint64> selectedEvaluationIds() const;
    /// Rows selected (counted from the selection ranges: a million selected rows are not read for it).
    qint64 selectedRowCount() const;
    /// The selected rows as tab-separated text with a header line (what Copy puts on the clipboard).
    QString selectedRowsText() const;
    /// The context menu of the table for its current selection (tests; shown on right click).
    QMenu* createContextMenu();
    /// Writes the selected rows (or, with `all`, every row matching the filter, in the table's order)
    /// as CSV; runs off the GUI thread and says when done (exportFinished). False when nothing to do.
    bool exportCsv(const QString& path, bool all);

signals:
    void evaluationSelected(qint64 id);
    void evaluationActivated(qint64 id);
    /// The user asked to diff two evaluations' code.
    void diffRequested(qint64 a, qint64 b);
    /// The user asked to evaluate the selected evaluations' candidates again (a new run).
    void rerunRequested(const QList<qint64>& ids);
    /// The user asked for an evaluation's code beside the reference.
    void showCodeRequested(qint64 id);
    /// A CSV export ended: rows written, or -1 and why.
    void exportFinished(const QString& path, qint64 rows, const QString& error);

private:
    // The constructor's parts: the filter bar (its facet boxes added by addFacets), the table's
    // settings, and the connections of the table and the model.
    QWidget* buildFilterBar();
    void addFacets(QLayout* bar);
    void setUpTable();
    void connectTable();
    void applyFilter();
    void updateCount();
    void updateTaskChip();
    void copySelection();

    EvaluationTableModel* m_model;
    QList<FacetListModel*> m_facets;
    QList<QComboBox*> m_boxes;
    QLineEdit* m_text;
    QTimer* m_textTimer;
    QTableView* m_table;
    QLabel* m_count;
    QPushButton* m_diff;
    QPushButton* m_rerun;
    QToolButton* m_taskChip;
    QCheckBox* m_counted;
    QString m_task;           ///< the task filter (EvaluationFilter::taskId)
    int m_pendingRow = -1;    ///< current row whose block is still being read: evaluationSelected when it is
    bool m_restoring = false;
    qint64 m_restoreId = 0;   ///< selection to put back after a refresh
    int m_restoreScroll = -1;
};

}  // namespace kbx::gui
