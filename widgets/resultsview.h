// SPDX-License-Identifier: MIT
#pragma once
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTimer;

namespace kbx::gui {

class EvaluationTableModel;
class FacetListModel;
struct EvaluationFilter;

/// The results table: every evaluation of the database, filterable by method, round, category, GPU,
/// stage, failure class and text, sortable by any column (in SQL), loaded page by page.
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
    qint64 currentEvaluationId() const;
    /// The evaluation ids of the selected rows, in row order.
    QList<qint64> selectedEvaluationIds() const;

signals:
    void evaluationSelected(qint64 id);
    void evaluationActivated(qint64 id);
    /// The user asked to diff two evaluations' code.
    void diffRequested(qint64 a, qint64 b);
    /// The user asked to evaluate the selected evaluations' candidates again (a new run).
    void rerunRequested(const QList<qint64>& ids);

private:
    void applyFilter();
    void updateCount();

    EvaluationTableModel* m_model;
    QList<FacetListModel*> m_facets;
    QList<QComboBox*> m_boxes;
    QLineEdit* m_text;
    QTimer* m_textTimer;
    QTableView* m_table;
    QLabel* m_count;
    QPushButton* m_diff;
    QPushButton* m_rerun;
    bool m_restoring = false;
    qint64 m_restoreId = 0;   ///< selection to put back after a refresh
    int m_restoreScroll = -1;
};

}  // namespace kbx::gui
