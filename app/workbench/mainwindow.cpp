// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "codecompare.h"
#include "database.h"
#include "evaluationtablemodel.h"
#include "failureinspector.h"
#include "palette.h"
#include "resultsview.h"
#include "runpanel.h"
#include "syntax.h"
#include "taskbrowser.h"
#include "tasktreemodel.h"

#include "analysis.h"
#include "catalogue.h"

#ifdef KBX_HAVE_CHARTS
#include "chartpanel.h"
#endif

#include <QAction>
#include <QDateTime>
#include <climits>
#include <QDialog>
#include <QDialogButtonBox>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

namespace kbx::gui {

namespace {
bool isDatabaseFile(const QString& path)
{
    const QString s = QFileInfo(path).suffix().toLower();
    return s == QLatin1String("sqlite") || s == QLatin1String("sqlite3") || s == QLatin1String("db");
}

/// A label that shows as much of its text as fits, the middle elided ("/home/…/kbx.sqlite"), the whole
/// text in its tooltip: a long database path in the status bar no longer sets the window's minimum
/// width (issue 24: laptop screens).
class ElidedLabel : public QLabel {
public:
    using QLabel::QLabel;
    void setFullText(const QString& t)
    {
        m_full = t;
        setToolTip(t);
        updateGeometry();
        elide();
    }
    QString fullText() const { return m_full; }
    QSize sizeHint() const override
    {
        return {qMin(fontMetrics().horizontalAdvance(m_full) + 8, 520), QLabel::sizeHint().height()};
    }
    QSize minimumSizeHint() const override { return {60, QLabel::minimumSizeHint().height()}; }

protected:
    void resizeEvent(QResizeEvent* e) override
    {
        QLabel::resizeEvent(e);
        elide();
    }

private:
    void elide() { QLabel::setText(fontMetrics().elidedText(m_full, Qt::ElideMiddle, qMax(0, width() - 4))); }
    QString m_full;
};
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_tabs(new QTabWidget), m_tasks(new TaskBrowser), m_results(new ResultsView), m_code(new CodeCompareView),
      m_diff(new DiffView), m_inspector(new FailureInspector), m_run(new RunPanel), m_runDock(new QDockWidget(tr("Run"))),
      m_dbLabel(new ElidedLabel), m_refreshTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("kbxMainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/kbx/icons/kbx-workbench.svg")));
    setAcceptDrops(true);
    m_tabs->setObjectName(QStringLiteral("mainTabs"));
    m_tabs->addTab(m_tasks, tr("&Tasks"));
    m_tabs->addTab(m_results, tr("&Results"));
    m_tabs->addTab(m_code, tr("&Code"));
    m_tabs->addTab(m_diff, tr("&Diff"));
    m_tabs->addTab(m_inspector, tr("&Inspector"));
#ifdef KBX_HAVE_CHARTS
    auto* charts = new ChartPanel;
    m_charts = charts;
#else
    auto* charts = new QLabel(tr("Charts are not part of this build."));
    charts->setAlignment(Qt::AlignCenter);
    m_charts = charts;
#endif
    // The figures need more width than a laptop screen leaves beside the run dock: they scroll there
    // instead of widening the window past the screen (issue 24: fit 1366×768 with every dock shown).
    auto* chartsScroll = new QScrollArea;
    chartsScroll->setObjectName(QStringLiteral("chartsScroll"));
    chartsScroll->setWidget(m_charts);
    chartsScroll->setWidgetResizable(true);
    chartsScroll->setFrameShape(QFrame::NoFrame);
    m_tabs->addTab(chartsScroll, tr("C&harts"));
    // A database whose queries fail (a damaged file) says so once, in a window-modal box that does
    // not stop the event loop (issue 24: it showed "counting…" and nothing else).
    connect(m_results->model(), &EvaluationTableModel::errorOccurred, this, [this](const QString& e) {
        if (m_dbErrorShown || m_db.isEmpty())
            return;
        m_dbErrorShown = true;
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Database"),
                                    tr("%1 cannot be read:\n%2\n\nThe file may be damaged (cut short, overwritten); the "
                                       "views stay empty. Open another database or a backup of this one.")
                                        .arg(m_db, e),
                                    QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("databaseErrorBox"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    m_tabs->setDocumentMode(true);
    setCentralWidget(m_tabs);

    m_runDock->setObjectName(QStringLiteral("runDock"));
    m_runDock->setWidget(m_run);
    m_runDock->setAllowedAreas(Qt::AllDockWidgetAreas);
    addDockWidget(Qt::RightDockWidgetArea, m_runDock);

    m_dbLabel->setObjectName(QStringLiteral("databaseLabel"));
    statusBar()->addPermanentWidget(m_dbLabel);
    m_refreshTimer->setSingleShot(true);
    m_refreshTimer->setInterval(600);
    connect(m_refreshTimer, &QTimer::timeout, this, [this] {
        m_results->refresh();
        m_tasks->refresh();
    });

    connect(m_results, &ResultsView::evaluationSelected, this, &MainWindow::showEvaluation);
    connect(m_results, &ResultsView::evaluationActivated, this, [this](qint64 id) {
        showEvaluation(id);
        showTab(InspectorTab);
    });
    connect(m_results, &ResultsView::showCodeRequested, this, [this](qint64 id) {
        showEvaluation(id);
        showTab(CodeTab);
    });
    connect(m_results, &ResultsView::exportFinished, this, [this](const QString& path, qint64 rows, const QString& error) {
        statusBar()->showMessage(rows < 0 ? tr("Export failed: %1").arg(error) : tr("%n evaluation(s) written to %1", nullptr, int(qMin<qint64>(rows, INT_MAX))).arg(path),
                                 8000);
    });
    connect(m_results, &ResultsView::diffRequested, this, &MainWindow::diffEvaluations);
    connect(m_results, &ResultsView::rerunRequested, this, &MainWindow::rerunEvaluations);
    connect(m_tasks, &TaskBrowser::showReferenceRequested, this, &MainWindow::showReference);
    // From a task (double click, Enter) to its evaluations.
    connect(m_tasks, &TaskBrowser::evaluationsRequested, this, &MainWindow::showTaskEvaluations);
#ifdef KBX_HAVE_CHARTS
    // Drill-down (issue 24): a click on a bar, cell, box or segment shows its evaluations in Results.
    connect(charts, &ChartPanel::filterRequested, this, &MainWindow::showChartSelection);
#endif
    connect(m_inspector, &FailureInspector::labelChanged, this, [this] { m_results->refresh(); });
    connect(m_inspector, &FailureInspector::showCodeRequested, this, [this](qint64) { showTab(CodeTab); });
    connect(m_run, &RunPanel::runStarted, this, [this](const QString& db) {
        if (QFileInfo(db).absoluteFilePath() != QFileInfo(m_db).absoluteFilePath())
            openDatabase(db);
        statusBar()->showMessage(tr("Run started"), 4000);
    });
    connect(m_run, &RunPanel::evaluationStored, this, [this] { m_refreshTimer->start(); });
    connect(m_run, &RunPanel::resultsMerged, this, [this] { m_refreshTimer->start(); });  // a Slurm shard merged
    connect(m_run, &RunPanel::runFinished, this, &MainWindow::onRunFinished);
    // A row of the run panel opens its evaluation (the views may not have read it yet: a run in progress).
    connect(m_run, &RunPanel::evaluationActivated, this, [this](qint64 id) {
        showEvaluation(id);
        showTab(InspectorTab);
    });
    connect(m_run, &RunPanel::showCodeRequested, this, [this](qint64 id) {
        showEvaluation(id);
        showTab(CodeTab);
    });

    buildMenus();
    restoreSettings();
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("&Open database…"), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Open a kbx database"), QFileInfo(m_db).absolutePath(),
                                                       tr("kbx databases (*.sqlite *.sqlite3 *.db);;All files (*)"));
        if (!p.isEmpty())
            openDatabase(p, true);
    });
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open the &demo database"), this, [this] {
        const QString demo = demoDatabasePath();
        if (demo.isEmpty())
            QMessageBox::information(this, tr("Demo database"), tr("This installation has no demo database."));
        else
            openDatabase(demo, true);
    });
    auto* reload = file->addAction(tr("&Reload"), this, &MainWindow::refreshViews);
    reload->setShortcut(QKeySequence::Refresh);
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto* view = menuBar()->addMenu(tr("&View"));
    const char* names[] = {QT_TR_NOOP("Tasks"), QT_TR_NOOP("Results"), QT_TR_NOOP("Code"), QT_TR_NOOP("Diff"), QT_TR_NOOP("Inspector"),
                           QT_TR_NOOP("Charts")};
    for (int i = 0; i < 6; ++i) {
        auto* a = view->addAction(tr(names[i]), this, [this, i] { showTab(Tab(i)); });
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
    auto* next = view->addAction(tr("Next tab"), this, [this] { m_tabs->setCurrentIndex((m_tabs->currentIndex() + 1) % m_tabs->count()); });
    next->setShortcut(QKeySequence::NextChild);
    auto* prev = view->addAction(tr("Previous tab"), this,
                                 [this] { m_tabs->setCurrentIndex((m_tabs->currentIndex() + m_tabs->count() - 1) % m_tabs->count()); });
    prev->setShortcut(QKeySequence::PreviousChild);
    auto* find = view->addAction(tr("&Find task…"), this, [this] {
        showTab(TasksTab);
        m_tasks->filterEdit()->setFocus();
        m_tasks->filterEdit()->selectAll();
    });
    find->setShortcut(QKeySequence::Find);
    view->addSeparator();
    auto* dock = m_runDock->toggleViewAction();
    dock->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    view->addAction(dock);
    m_darkAction = view->addAction(tr("&Dark palette"));
    m_darkAction->setCheckable(true);
    m_darkAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    connect(m_darkAction, &QAction::toggled, this, &MainWindow::setDarkMode);

    auto* run = menuBar()->addMenu(tr("&Run"));
    auto* add = run->addAction(tr("Add &submissions…"), this, [this] {
        m_runDock->show();
        m_run->addSources(QFileDialog::getOpenFileNames(this, tr("Submission files"), {},
                                                        tr("Submissions (*.jsonl *.json *.py);;All files (*)")));
    });
    add->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    auto* start = run->addAction(tr("&Start"), m_run, &RunPanel::start);
    start->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    auto* cancel = run->addAction(tr("&Cancel"), m_run, &RunPanel::cancel);
    cancel->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));

    auto* help = menuBar()->addMenu(tr("&Help"));
    auto* columns = help->addAction(tr("&Columns and counting"), this, &MainWindow::showColumnsHelp);
    columns->setShortcut(QKeySequence::HelpContents);
    columns->setObjectName(QStringLiteral("helpColumnsAction"));
    help->addAction(tr("&About"), this, [this] {
        QMessageBox::about(this, tr("KernelBench-X Workbench"),
                           tr("<h3>KernelBench-X Workbench</h3><p>Browse the benchmark's tasks, run and inspect LLM-generated "
                              "Triton kernels, and chart the results.</p><p>Syntax highlighting: %1</p>")
                               .arg(syntaxEngineName()));
    });
}

void MainWindow::restoreSettings()
{
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    if (!restoreState(s.value(QStringLiteral("window/state")).toByteArray()))
        // First start: a run dock that leaves the figures their width on a 1366 px laptop screen.
        resizeDocks({m_runDock}, {420}, Qt::Horizontal);
    const bool dark = s.value(QStringLiteral("view/dark"), false).toBool();
    m_darkAction->setChecked(dark);
    setDarkMode(dark);
    m_tabs->setCurrentIndex(s.value(QStringLiteral("view/tab"), 0).toInt());
    const QString method = s.value(QStringLiteral("run/method")).toString();
    if (!method.isEmpty())
        m_run->methodEdit()->setText(method);
    // The Slurm options (the backend itself only when Slurm is available here).
    s.beginGroup(QStringLiteral("run/slurm"));
    m_run->partitionEdit()->setText(s.value(QStringLiteral("partition")).toString());
    m_run->gpusPerTaskBox()->setValue(s.value(QStringLiteral("gpus_per_task"), 0).toInt());
    m_run->cpusPerTaskBox()->setValue(s.value(QStringLiteral("cpus_per_task"), 0).toInt());
    m_run->maxJobsBox()->setValue(s.value(QStringLiteral("max_jobs"), 0).toInt());
    m_run->shardsBox()->setValue(s.value(QStringLiteral("shards"), 0).toInt());
    m_run->timeLimitEdit()->setText(s.value(QStringLiteral("time_limit")).toString());
    m_run->retriesBox()->setValue(s.value(QStringLiteral("retries"), 1).toInt());
    m_run->pollBox()->setValue(s.value(QStringLiteral("poll"), 10.0).toDouble());
    s.endGroup();
    m_run->setBackend(s.value(QStringLiteral("run/backend"), QStringLiteral("local")).toString());
}

void MainWindow::saveSettings()
{
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("view/dark"), m_dark);
    s.setValue(QStringLiteral("view/tab"), m_tabs->currentIndex());
    s.setValue(QStringLiteral("run/method"), m_run->methodEdit()->text());
    s.setValue(QStringLiteral("run/backend"), m_run->backendBox()->currentData().toString());
    s.beginGroup(QStringLiteral("run/slurm"));
    s.setValue(QStringLiteral("partition"), m_run->partitionEdit()->text());
    s.setValue(QStringLiteral("gpus_per_task"), m_run->gpusPerTaskBox()->value());
    s.setValue(QStringLiteral("cpus_per_task"), m_run->cpusPerTaskBox()->value());
    s.setValue(QStringLiteral("max_jobs"), m_run->maxJobsBox()->value());
    s.setValue(QStringLiteral("shards"), m_run->shardsBox()->value());
    s.setValue(QStringLiteral("time_limit"), m_run->timeLimitEdit()->text());
    s.setValue(QStringLiteral("retries"), m_run->retriesBox()->value());
    s.setValue(QStringLiteral("poll"), m_run->pollBox()->value());
    s.endGroup();
    if (!m_db.isEmpty())
        s.setValue(QStringLiteral("database/last"), m_db);
}

void MainWindow::setDarkMode(bool dark)
{
    m_dark = dark;
    applyPalette(dark);
    if (m_darkAction && m_darkAction->isChecked() != dark)
        m_darkAction->setChecked(dark);
}

bool MainWindow::openDatabase(const QString& path, bool interactive)
{
    // An empty file becomes a kbx database only when the user says so (issue 24: it was made one
    // silently); unasked (the last database, a drop) it is left as it is.
    if (const QFileInfo fi(path); fi.exists() && fi.isFile() && fi.size() == 0) {
        const QString q = tr("%1 is an empty file. Make it a new kbx database?").arg(path);
        if (!interactive) {
            statusBar()->showMessage(tr("Not opened: %1 is an empty file (File > Open asks whether to make it a kbx database)").arg(path),
                                     10000);
            return false;
        }
        if (QMessageBox::question(this, tr("Open database"), q, QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes) {
            statusBar()->showMessage(tr("Not opened: %1").arg(path), 5000);
            return false;
        }
    }
    QString err;
    if (!prepareDatabase(path, &err)) {
        // The reason names the whole path where it matters ("... does not exist", "... is not a kbx
        // database"); the headline names the file.
        const QString name = QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName();
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(name, err), 10000);
        if (interactive)
            QMessageBox::warning(this, tr("Open database"), tr("Cannot open %1:\n%2").arg(name, err));
        return false;
    }
    m_db = QFileInfo(path).absoluteFilePath();
    m_dbErrorShown = false;
    m_tasks->setDatabase(m_db);
    m_results->setDatabase(m_db);
    m_inspector->setDatabase(m_db);
    m_code->clear();
#ifdef KBX_HAVE_CHARTS
    static_cast<ChartPanel*>(m_charts)->setDatabase(m_db);
#endif
    // Runs go into the open database, except the bundled demo: then into the user's own.
    if (!m_run->isRunning())
        m_run->setDatabase(m_db == demoDatabasePath() ? defaultDatabasePath() : m_db);
    QSettings().setValue(QStringLiteral("database/last"), m_db);
    updateTitle();
    // The file's name only: the whole path is in the status bar's database label (elided, tooltip);
    // a long path here ran over that label (issue 24, laptop screens).
    statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(m_db).fileName()), 5000);
    return true;
}

void MainWindow::openInitialDatabase(const QString& requested)
{
    if (!requested.isEmpty()) {
        // Asked for by name (command line): a path that cannot be opened gets a dialog, not only a
        // status message.
        openDatabase(requested, true);
        return;
    }
    const QString last = QSettings().value(QStringLiteral("database/last")).toString();
    if (!last.isEmpty() && QFileInfo::exists(last) && openDatabase(last))
        return;
    const QString demo = demoDatabasePath();
    if (!demo.isEmpty() && openDatabase(demo))
        return;
    m_run->setDatabase(defaultDatabasePath());
    statusBar()->showMessage(tr("No database: open one (Ctrl+O) or start a run; the demo database is not installed."));
    updateTitle();
}

void MainWindow::updateTitle()
{
    setWindowTitle(m_db.isEmpty() ? tr("KernelBench-X Workbench")
                                  : tr("%1 — KernelBench-X Workbench").arg(QFileInfo(m_db).fileName()));
    static_cast<ElidedLabel*>(m_dbLabel)->setFullText(m_db.isEmpty() ? tr("no database") : m_db);
}

void MainWindow::showTab(Tab tab)
{
    m_tabs->setCurrentIndex(int(tab));
}

void MainWindow::showEvaluation(qint64 id)
{
    if (!m_inspector->showEvaluation(id))
        return;
    const auto& d = m_inspector->details();
    const auto* task = m_tasks->model()->task(d.taskId);
    if (task)
        m_code->setReferenceFile(tr("Reference: %1").arg(QString::fromStdString(task->file)),
                                 QString::fromStdString(m_tasks->model()->catalogue()->taskFile(*task).string()));
    else
        m_code->setReference(tr("Reference"), tr("# %1 is not in this benchmark's catalogue").arg(d.taskId));
    m_code->setCandidate(tr("Candidate: evaluation #%1, %2 round %3 — %4").arg(d.id).arg(d.method).arg(d.round).arg(d.verdict), d.code,
                         d.markers);
}

void MainWindow::showTaskEvaluations(const QString& taskId)
{
    if (taskId.isEmpty())
        return;
    m_results->showTask(taskId);
    showTab(ResultsTab);
    m_results->table()->setFocus();
    statusBar()->showMessage(tr("Every evaluation of %1 (the task button above the table shows all tasks again)").arg(taskId), 5000);
}

void MainWindow::showChartSelection(const QVariantMap& mark)
{
    // What the clicked mark names (method, round, GPU, category, failure class) becomes the Results
    // filter; the rest is cleared. A rate's stage ("call"/"exe") is not a filter: Results' stage column
    // is where an evaluation failed, and the cell's rate is over all of them.
    EvaluationFilter f;
    f.method = mark.value(QStringLiteral("method")).toString();
    if (mark.contains(QStringLiteral("round")))
        f.round = mark.value(QStringLiteral("round")).toInt();
    f.gpu = mark.value(QStringLiteral("gpu")).toString();
    f.category = mark.value(QStringLiteral("category")).toString();
    if (mark.contains(QStringLiteral("failureClass")))
        f.failureClass = mark.value(QStringLiteral("failureClass")).toString();
    m_results->setFilter(f);
    showTab(ResultsTab);
    m_results->table()->setFocus();
    QStringList parts;
    for (const auto& [key, label] : {std::pair{"method", "method"}, {"round", "round"}, {"gpu", "GPU"}, {"category", "category"},
                                     {"failureClass", "class"}})
        if (mark.contains(QLatin1String(key)))
            parts << QStringLiteral("%1 %2").arg(QLatin1String(label), mark.value(QLatin1String(key)).toString());
    statusBar()->showMessage(tr("From the figure: every evaluation with %1 (Results lists every evaluation; the figure counts "
                                "the latest per submission and device)")
                                 .arg(parts.isEmpty() ? tr("no filter") : parts.join(QStringLiteral(", "))),
                             8000);
}

QString MainWindow::columnsHelpHtml()
{
    return tr(
        "<h3>Columns and counting</h3>"
        "<h4>The counting rule</h4>"
        "<p>A <i>submission</i> is one candidate code of a method for a task in a round. It can be evaluated more than "
        "once (a run repeated, another GPU, a re-run). Every count of the workbench (Tasks tab, Charts) and of "
        "<b>kbx report</b> takes the <b>%1</b>: re-evaluations on the same device replace the earlier ones, a submission "
        "evaluated on two devices counts once per device (never pooled), rounds count separately, and a speedup is only "
        "counted for a correct (pass) evaluation.</p>"
        "<p>The <b>Results</b> tab is the exception: it lists <b>every evaluation</b>, older ones and re-evaluations "
        "included, so its count can be larger than a report's; filter by <i>Run</i> to see one run alone.</p>"
        "<h4>Tasks tab</h4>"
        "<table cellspacing='4'>"
        "<tr><td><b>Tasks</b></td><td>tasks of the category in the benchmark</td></tr>"
        "<tr><td><b>Evaluated</b></td><td>evaluations counted by the rule above for the chosen method, round and device: "
        "one per submission and device, not every evaluation stored; with all devices a submission evaluated on two "
        "devices counts twice</td></tr>"
        "<tr><td><b>Call</b></td><td>share of the counted evaluations whose candidate ran (call stage passed)</td></tr>"
        "<tr><td><b>Pass</b></td><td>share of the counted evaluations that are correct (verdict pass)</td></tr>"
        "</table>"
        "<p>Double click or Enter on a task: all its evaluations in the Results tab.</p>"
        "<h4>Results tab</h4>"
        "<table cellspacing='4'>"
        "<tr><td><b>ID</b></td><td>the evaluation's number in the database</td></tr>"
        "<tr><td><b>Run</b></td><td>the run (kbx eval, a run from the window, an import) that produced it</td></tr>"
        "<tr><td><b>Task, Method, Round</b></td><td>what was evaluated: the submission</td></tr>"
        "<tr><td><b>GPU</b></td><td>where it ran (CPU: the Triton interpreter)</td></tr>"
        "<tr><td><b>Verdict, Stage</b></td><td>pass or fail; the stage it reached: call (did not run), exe (ran, "
        "wrong output), pass</td></tr>"
        "<tr><td><b>Speedup</b></td><td>eager time / candidate time, geometric mean over the timed shapes (one shape: the "
        "ratio itself), as kbx report computes it; only passing evaluations timed with --perf have one; green ≥ 1×, red "
        "below</td></tr>"
        "<tr><td><b>Failure class</b></td><td>the automatic class of a failure; <b>Manual label</b> the one set by hand "
        "in the inspector</td></tr>"
        "<tr><td><b>Finished</b></td><td>when the evaluation ended (UTC)</td></tr>"
        "<tr><td><b>Extended</b></td><td>extended-tier cases passed / run (empty where none ran)</td></tr>"
        "<tr><td><b>Detail</b></td><td>first line of the failure detail (the inspector shows all of it)</td></tr>"
        "</table>"
        "<p>Double click or Enter on a row opens it in the inspector; the right-click menu copies rows or ids, shows the "
        "code beside the reference, diffs two rows, re-runs candidates and exports the selection or every matching row "
        "as CSV. The scroll bar and Ctrl+End reach the last row of any table size: rows are read as they come into "
        "view.</p>"
        "<h4>Run panel</h4>"
        "<p>Each finished candidate is a row; double click or Enter opens its evaluation in the inspector.</p>")
        .arg(QString::fromStdString(kbx::analysis::countingRule()).toHtmlEscaped());
}

void MainWindow::showColumnsHelp()
{
    auto* dlg = findChild<QDialog*>(QStringLiteral("helpColumnsDialog"));
    if (!dlg) {
        dlg = new QDialog(this);
        dlg->setObjectName(QStringLiteral("helpColumnsDialog"));
        dlg->setWindowTitle(tr("Columns and counting"));
        auto* text = new QTextBrowser;
        text->setObjectName(QStringLiteral("helpColumnsText"));
        text->setHtml(columnsHelpHtml());
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
        connect(buttons, &QDialogButtonBox::rejected, dlg, &QDialog::close);
        auto* l = new QVBoxLayout(dlg);
        l->addWidget(text);
        l->addWidget(buttons);
        dlg->resize(620, 560);
    }
    dlg->show();
    dlg->raise();
    dlg->activateWindow();
}

void MainWindow::showReference(const QString& taskId)
{
    const auto* task = m_tasks->model()->task(taskId);
    if (!task)
        return;
    m_code->setReferenceFile(tr("Reference: %1").arg(QString::fromStdString(task->file)),
                             QString::fromStdString(m_tasks->model()->catalogue()->taskFile(*task).string()));
    showTab(CodeTab);
}

void MainWindow::diffEvaluations(qint64 a, qint64 b)
{
    const auto da = loadEvaluation(m_db, a);
    const auto db = loadEvaluation(m_db, b);
    if (!da.valid || !db.valid)
        return;
    auto title = [](const EvaluationDetails& d) {
        return tr("#%1 %2 — %3 round %4 (%5)").arg(d.id).arg(d.taskId, d.method).arg(d.round).arg(d.verdict);
    };
    m_diff->setTexts(title(da), da.code, title(db), db.code);
    showTab(DiffTab);
}

QString MainWindow::rerunEvaluations(const QList<qint64>& ids)
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/reruns");
    QDir().mkpath(dir);
    const QString path = QStringLiteral("%1/rerun-%2.jsonl").arg(dir, QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        statusBar()->showMessage(tr("Cannot write %1").arg(path), 8000);
        return {};
    }
    int n = 0;
    for (qint64 id : ids) {
        const auto d = loadEvaluation(m_db, id);
        if (!d.valid)
            continue;
        // The seed's JSONL format: {"predict": code, "file": "Category/stem.py"}.
        f.write(QJsonDocument(QJsonObject{{QStringLiteral("predict"), d.code}, {QStringLiteral("file"), d.taskId + QStringLiteral(".py")}})
                    .toJson(QJsonDocument::Compact));
        f.write("\n");
        ++n;
    }
    f.close();
    m_runDock->show();
    m_run->addSources({path});
    statusBar()->showMessage(tr("%n candidate(s) added to the run panel", nullptr, n), 5000);
    return path;
}

void MainWindow::refreshViews()
{
    if (m_db.isEmpty())
        return;
    m_results->refresh();
    m_tasks->refresh();
#ifdef KBX_HAVE_CHARTS
    static_cast<ChartPanel*>(m_charts)->setDatabase(m_db);
#endif
}

void MainWindow::onRunFinished(const RunResult& r)
{
    if (r.backend == QLatin1String("slurm") && r.error.isEmpty())
        statusBar()->showMessage(tr("Slurm run %1: %2 of %3 shard(s) merged, %4 passed, %5 failed")
                                     .arg(r.cancelled ? tr("cancelled (array tasks scancelled)") : tr("finished"))
                                     .arg(r.mergedShards)
                                     .arg(r.shards)
                                     .arg(r.passed)
                                     .arg(r.failed),
                                 10000);
    else if (!r.error.isEmpty())
        statusBar()->showMessage(tr("Run failed: %1").arg(r.error), 10000);
    else
        statusBar()->showMessage(tr("Run %1 %2: %3 passed, %4 failed, %5 not judged")
                                     .arg(r.runId)
                                     .arg(r.cancelled ? tr("cancelled") : tr("finished"))
                                     .arg(r.passed)
                                     .arg(r.failed)
                                     .arg(r.notJudged),
                                 10000);
    m_refreshTimer->stop();
    refreshViews();
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (m_run->isRunning()) {
        const auto answer = QMessageBox::question(this, tr("Run in progress"), tr("A run is in progress. Cancel it and quit?"));
        if (answer != QMessageBox::Yes) {
            e->ignore();
            return;
        }
        m_run->controller()->cancel();
        m_run->controller()->wait();
    }
    saveSettings();
    QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasUrls())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    QStringList subs;
    for (const auto& u : e->mimeData()->urls()) {
        if (!u.isLocalFile())
            continue;
        const QString p = u.toLocalFile();
        if (isDatabaseFile(p))
            openDatabase(p, true);
        else
            subs << p;
    }
    if (!subs.isEmpty()) {
        m_runDock->show();
        m_run->addSources(subs);
        statusBar()->showMessage(tr("%n submission source(s) added to the run panel", nullptr, int(subs.size())), 5000);
    }
    e->acceptProposedAction();
}

}  // namespace kbx::gui
