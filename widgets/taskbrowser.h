// SPDX-License-Identifier: MIT
#pragma once
#include <QWidget>

class QComboBox;
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
    QString html() const;
    QTextBrowser* browser() const { return m_browser; }

signals:
    void showReferenceRequested(const QString& taskId);

private:
    QTextBrowser* m_browser;
    QString m_taskId;
};

/// Categories -> tasks with task counts and pass rates for a method and round, a filter box and the
/// task page.
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
    /// Number of task rows visible through the filter.
    int visibleTaskCount() const;

    void setDatabase(const QString& path);
    void refresh();
    bool selectTask(const QString& taskId);
    QString currentTaskId() const;

signals:
    void taskSelected(const QString& taskId);
    void showReferenceRequested(const QString& taskId);

private:
    void onCurrentChanged();
    void onFacetsChanged();

    TaskTreeModel* m_model;
    QSortFilterProxyModel* m_proxy;
    FacetListModel* m_methods;
    FacetListModel* m_rounds;
    QLineEdit* m_filter;
    QComboBox* m_method;
    QComboBox* m_round;
    QTreeView* m_tree;
    TaskPage* m_page;
};

}  // namespace kbx::gui
