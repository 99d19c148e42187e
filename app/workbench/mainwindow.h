// SPDX-License-Identifier: MIT
#pragma once
#include <QMainWindow>
#include <QVariantMap>

class QAction;
class QDockWidget;
class QLabel;
class QTabWidget;
class QTimer;

namespace kbx::gui {

class ChartPanel;
class CodeCompareView;
class DiffView;
class FailureInspector;
class ResultsView;
class RunPanel;
class TaskBrowser;
struct RunResult;

/// The workbench window: tabs for tasks, results, code (reference beside candidate), diff, failure
/// inspector and charts; the run panel as a dock. Remembers geometry, layout, palette and the last
/// database (QSettings); opens any kbx database, and the bundled demo database when none was chosen.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum Tab { TasksTab, ResultsTab, CodeTab, DiffTab, InspectorTab, ChartsTab };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a kbx database (migrating an older schema). With `interactive`, failures show a dialog;
    /// otherwise only the status bar says why. Returns false when it cannot be opened.
    bool openDatabase(const QString& path, bool interactive = false);
    /// What to open at start: `requested` (command line), the last database, the demo, or nothing.
    void openInitialDatabase(const QString& requested = {});
    QString database() const { return m_db; }

    void setDarkMode(bool dark);
    bool darkMode() const { return m_dark; }
    void showTab(Tab tab);
    /// Shows an evaluation everywhere: inspector, code beside reference.
    void showEvaluation(qint64 id);
    void showReference(const QString& taskId);
    /// Every evaluation of a task (or, without '/', of a category) in the Results tab.
    void showTaskEvaluations(const QString& taskId);
    /// Results filtered to what a clicked chart mark names (ChartPanel::filterRequested).
    void showChartSelection(const QVariantMap& mark);
    /// Help ▸ Columns and counting: what the columns of the Tasks and Results tabs mean, and which
    /// evaluations the counts count (the rule of kbx report).
    void showColumnsHelp();
    static QString columnsHelpHtml();
    void diffEvaluations(qint64 a, qint64 b);
    /// Writes the candidates of these evaluations as a seed JSONL and adds it to the run panel.
    QString rerunEvaluations(const QList<qint64>& ids);
    /// Refreshes every view from the database (new results).
    void refreshViews();

    TaskBrowser* taskBrowser() const { return m_tasks; }
    ResultsView* resultsView() const { return m_results; }
    CodeCompareView* codeView() const { return m_code; }
    DiffView* diffView() const { return m_diff; }
    FailureInspector* inspector() const { return m_inspector; }
    RunPanel* runPanel() const { return m_run; }
    QTabWidget* tabs() const { return m_tabs; }
    QWidget* chartsWidget() const { return m_charts; }

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void buildMenus();
    void restoreSettings();
    void saveSettings();
    void onRunFinished(const kbx::gui::RunResult& r);
    void updateTitle();

    QString m_db;
    bool m_dark = false;
    bool m_dbErrorShown = false;  ///< the current database's read error was shown
    QTabWidget* m_tabs;
    TaskBrowser* m_tasks;
    ResultsView* m_results;
    CodeCompareView* m_code;
    DiffView* m_diff;
    FailureInspector* m_inspector;
    QWidget* m_charts = nullptr;
    RunPanel* m_run;
    QDockWidget* m_runDock;
    QLabel* m_dbLabel;
    QAction* m_darkAction = nullptr;
    QTimer* m_refreshTimer;
};

}  // namespace kbx::gui
