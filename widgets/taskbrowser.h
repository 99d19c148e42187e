// SPDX-License-Identifier: MIT
#pragma once
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTextBrowser;
class QTreeView;

namespace kbx {
struct TaskInfo;
}

namespace kbx::gui {

class FacetListModel;
class TaskTreeModel;

/// The task page: description, signature, precision contract (per-dtype atol/rtol, oracle, TF32,
/// quantization or distribution checks), tolerance note and perf shapes, plus the pass rate of the
/// chosen method and round.
class TaskPage : public QWidget {
    Q_OBJECT
public:
    explicit TaskPage(QWidget* parent = nullptr);
    void showTask(const kbx::TaskInfo* task, const QString& statsLine = {});
    void showCategory(const QString& category, int tasks, const QString& statsLine);
    /// The chosen task (or category) is hidden by the tree's filter.
    void showHidden(const QString& id);
    QString html() const;
    QTextBrowser* browser() const { return m_browser; }

signals:
    void showReferenceRequested(const QString& taskId);

private:
    QTextBrowser* m_browser;
    QString m_taskId;
};

/// Categories -> tasks with task counts and pass rates for a method, round and device, a filter box,
/// a footer that states the counting rule (the one of kbx report, Results and Charts) and the task
/// page. Double-click or Enter on a task asks for its evaluations (evaluationsRequested). Filtering
/// never moves the page to another task: the chosen task stays chosen while visible, and the page
/// says so when the filter hides it.
class TaskBrowser : public QWidget {
    Q_OBJECT
public:
    explicit TaskBrowser(QWidget* parent = nullptr);

    TaskTreeModel* model() const { return m_model; }
    QTreeView* tree() const { return m_tree; }
    TaskPage* page() const { return m_page; }
    QLineEdit* filterEdit() const { return m_filter; }
    QComboBox* methodBox() const { return m_method; }
    QComboBox* roundBox() const { return m_round; }
    /// "All devices" + the database's devices (the gpu column of evaluation_rows).
    QComboBox* deviceBox() const { return m_device; }
    /// The footer: the counting rule and the total counted under the chosen method, round and device.
    QLabel* countingLabel() const { return m_counting; }
    /// Number of task rows visible through the filter.
    int visibleTaskCount() const;

    void setDatabase(const QString& path);
    void refresh();
    bool selectTask(const QString& taskId);
    QString currentTaskId() const;

signals:
    void taskSelected(const QString& taskId);
    void showReferenceRequested(const QString& taskId);
    /// Double-click or Enter on a task row: show that task's evaluations.
    void evaluationsRequested(const QString& taskId);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void onCurrentChanged();
    void onFacetsChanged();
    void onStatsReady();
    void onFilterChanged(const QString& text);
    void showIndex(const QModelIndex& sourceIndex);
    QString scopeText() const;
    QModelIndex sourceIndexOfChoice() const;

    TaskTreeModel* m_model;
    QSortFilterProxyModel* m_proxy;
    FacetListModel* m_methods;
    FacetListModel* m_rounds;
    QLineEdit* m_filter;
    QComboBox* m_method;
    QComboBox* m_round;
    QComboBox* m_device;
    QTreeView* m_tree;
    QLabel* m_counting;
    TaskPage* m_page;
    QString m_chosen;  ///< task id or category the user chose (kept while a filter hides it)
    bool m_chosenIsCategory = false;
    bool m_filtering = false;  ///< the proxy is refiltering: its current-index moves are not choices
};

}  // namespace kbx::gui
