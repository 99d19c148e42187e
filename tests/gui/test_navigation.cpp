// SPDX-License-Identifier: MIT
// Issue 24, items 4 and 8: the window fits a laptop screen (1366×768) with every dock shown, and the
// navigation between the views: Run and Speedup columns and a run filter in Results, run-panel rows
// and context menus that open the inspector and the code, CSV export, a task's evaluations, a Help
// entry for the columns and the counting rule, and Ctrl+End / the scroll bar reaching the last of
// hundreds of thousands of rows. Linked into kbx_gui_tests (its main() is in test_gui.cpp).
#include "analysis.h"
#include "codecompare.h"
#include "codeview.h"
#include "database.h"
#include "evaluationtablemodel.h"
#include "facetmodel.h"
#include "failureinspector.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "palette.h"
#include "resultsview.h"
#include "runpanel.h"
#include "store.h"
#include "taskbrowser.h"

#include <QAction>
#include <QCheckBox>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QScrollArea>
#include <QDialog>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>

#include <gtest/gtest.h>

#include <iostream>

using namespace kbx::gui;
using namespace kbx::gui::test;

namespace {

/// The bundled demo database, copied (never modified in place).
QString copyDemo(const QString& dir)
{
    const QString dst = QDir(dir).filePath(QStringLiteral("demo.sqlite"));
    if (!QFile::copy(QStringLiteral(KBX_SOURCE_DIR "/resources/demo/demo.sqlite"), dst))
        return {};
    QFile::setPermissions(dst, QFile::ReadOwner | QFile::WriteOwner);
    QString err;
    if (!prepareDatabase(dst, &err))
        return {};
    return dst;
}

QAction* actionNamed(QMenu* menu, const QString& startsWith)
{
    for (auto* a : menu->actions())
        if (a->text().remove(QLatin1Char('&')).startsWith(startsWith))
            return a;
    return nullptr;
}

void settle(int ms = 60)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        QApplication::processEvents();
        QThread::msleep(5);
    }
}

}  // namespace

// Item 4: "Minimum size 1746×541 with the Run dock (1351 px wide without) ... Fit 1366×768 with every
// dock shown." The real default state (no settings), the demo database, every tab.
TEST(Laptop, TheWindowFits1366x768WithEveryDockShown)
{
    QTemporaryDir dir;
    const QString db = copyDemo(dir.path());
    ASSERT_FALSE(db.isEmpty());
    QSettings().clear();
    applyPalette(false);
    MainWindow w;
    ASSERT_TRUE(w.openDatabase(db));
    ASSERT_TRUE(waitUntil([&] { return !w.resultsView()->model()->isLoading(); }));
    const auto docks = w.findChildren<QDockWidget*>();
    ASSERT_FALSE(docks.isEmpty());
    for (auto* d : docks)
        EXPECT_FALSE(d->isHidden()) << d->objectName().toStdString();

    // A title bar and a task bar take about 28 px of the 768.
    const QSize limit(1366, 740);
    auto check = [&](const char* what) {
        const QSize m = w.minimumSizeHint().expandedTo(w.minimumSize());
        std::cerr << what << ": minimumSizeHint " << m.width() << "x" << m.height() << " (dock "
                  << docks.first()->minimumSizeHint().width() << ", central " << w.centralWidget()->minimumSizeHint().width() << ")\n";
        EXPECT_LE(m.width(), limit.width()) << what;
        EXPECT_LE(m.height(), limit.height()) << what;
    };
    check("default");
    for (int t = 0; t < w.tabs()->count(); ++t)
        std::cerr << "  page " << qPrintable(w.tabs()->tabText(t)) << ": minimumSizeHint " << w.tabs()->widget(t)->minimumSizeHint().width()
                  << "x" << w.tabs()->widget(t)->minimumSizeHint().height() << "\n";
    for (int t = 0; t < w.tabs()->count(); ++t) {
        w.showTab(MainWindow::Tab(t));
        check(qPrintable(w.tabs()->tabText(t)));
    }
    // What a timed evaluation puts in the inspector (perf panel, evidence) must not widen it either.
    const qint64 timed = queryInt64(db, QStringLiteral("SELECT max(evaluation_id) FROM timings"));
    ASSERT_GT(timed, 0);
    w.showEvaluation(timed);
    check("timed evaluation");
    // The Slurm options of the run panel (shown with that backend) fit too.
    w.runPanel()->slurmOptionsBox()->setVisible(true);
    check("Slurm options shown");
    w.runPanel()->slurmOptionsBox()->setVisible(false);
    // A long database path in the status bar is elided, not a minimum width.
    const QString deep = QDir(dir.path()).filePath(QString(200, QLatin1Char('d')));
    ASSERT_TRUE(QDir().mkpath(deep));
    ASSERT_TRUE(QFile::copy(db, deep + QStringLiteral("/a-database-with-a-rather-long-name.sqlite")));
    ASSERT_TRUE(w.openDatabase(deep + QStringLiteral("/a-database-with-a-rather-long-name.sqlite")));
    check("long database path");

    // On the screen: 1366×768 less the title bar. Every dock and the central view lie inside it.
    w.showTab(MainWindow::ResultsTab);
    const QImage img = screenshot(&w, QStringLiteral("laptop-1366x768-results"), {1366, 740});
    EXPECT_EQ(w.size(), QSize(1366, 740));
    for (auto* d : docks) {
        const QRect g(d->mapTo(&w, QPoint(0, 0)), d->size());
        EXPECT_TRUE(QRect(QPoint(0, 0), w.size()).contains(g)) << d->objectName().toStdString();
        EXPECT_GE(d->width(), 300) << "the dock is too narrow to use";
    }
    EXPECT_GE(w.centralWidget()->width(), 700);
    auto* filterBar = w.resultsView()->findChild<QWidget*>(QStringLiteral("resultsFilterBar"));
    ASSERT_NE(filterBar, nullptr);
    EXPECT_LE(filterBar->mapTo(&w, QPoint(filterBar->width(), 0)).x(), w.centralWidget()->width() + 8);
    for (auto* box : filterBar->findChildren<QComboBox*>())  // every filter is on screen, none cut off
        EXPECT_TRUE(QRect(QPoint(0, 0), filterBar->size()).contains(QRect(box->mapTo(filterBar, QPoint(0, 0)), box->size())))
            << box->objectName().toStdString();
    EXPECT_GE(w.resultsView()->table()->height(), 250);
    EXPECT_GT(inkPixels(img, QRect(0, 0, img.width() / 2, img.height()), Qt::white), 2000);
    w.showEvaluation(timed);
    w.showTab(MainWindow::InspectorTab);
    screenshot(&w, QStringLiteral("laptop-1366x768-inspector"), {1366, 740});
    w.showTab(MainWindow::TasksTab);
    screenshot(&w, QStringLiteral("laptop-1366x768-tasks"), {1366, 740});
    w.showTab(MainWindow::ChartsTab);
    screenshot(&w, QStringLiteral("laptop-1366x768-charts"), {1366, 740});
    EXPECT_TRUE(w.chartsWidget()->isVisible());
    // The Charts page fits beside the run dock: no sideways scrolling, the Export button on screen.
    auto* chartsScroll = w.findChild<QScrollArea*>(QStringLiteral("chartsScroll"));
    ASSERT_NE(chartsScroll, nullptr);
    EXPECT_FALSE(chartsScroll->horizontalScrollBar()->isVisible())
        << "page " << w.chartsWidget()->minimumSizeHint().width() << " px, viewport " << chartsScroll->viewport()->width() << " px";
    auto* exportButton = w.chartsWidget()->findChild<QToolButton*>(QStringLiteral("exportMenu"));
    ASSERT_NE(exportButton, nullptr);
    const QRect eb(exportButton->mapTo(chartsScroll->viewport(), QPoint(0, 0)), exportButton->size());
    EXPECT_TRUE(chartsScroll->viewport()->rect().contains(eb)) << eb.x() << "," << eb.y() << " " << eb.width() << "x" << eb.height();
    EXPECT_EQ(exportButton->menu()->actions().size(), 5);
    w.close();
}

// Item 8: Run and Speedup columns (the speedup of kbx report: the same rule, the same number) and a
// run filter.
TEST(Navigation, ResultsHaveRunAndSpeedupColumnsAndARunFilter)
{
    QTemporaryDir dir;
    const QString db = copyDemo(dir.path());
    ASSERT_FALSE(db.isEmpty());
    ResultsView rv;
    rv.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading() && rv.model()->totalCount() >= 0; }));
    auto* m = rv.model();
    EXPECT_EQ(m->headerData(EvaluationTableModel::RunColumn, Qt::Horizontal).toString(), QStringLiteral("Run"));
    EXPECT_EQ(m->headerData(EvaluationTableModel::SpeedupColumn, Qt::Horizontal).toString(), QStringLiteral("Speedup"));
    // On screen the run is beside the id.
    EXPECT_EQ(rv.table()->horizontalHeader()->visualIndex(EvaluationTableModel::RunColumn), 1);

    // Speedups: those of kbx report's rows (analysis::loadRows, every evaluation that is the latest of
    // its submission per GPU), evaluation by evaluation.
    const kbx::Store store(db.toStdString());
    const auto rows = kbx::analysis::loadRows(store, {});
    rv.model()->sort(EvaluationTableModel::SpeedupColumn, Qt::DescendingOrder);
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading(); }));
    int compared = 0;
    std::map<qint64, double> bySpeedup;
    for (const auto& r : rows)
        if (r.speedup)
            bySpeedup[r.id] = *r.speedup;
    ASSERT_GT(bySpeedup.size(), 5u) << "the demo has timed evaluations";
    double previous = 1e300;
    for (int row = 0; row < qMin(m->rowCount(), 200); ++row) {
        m->prefetch(row, row);
        ASSERT_TRUE(waitUntil([&] { return m->isRowLoaded(row); }));
        const QVariant s = m->index(row, EvaluationTableModel::SpeedupColumn).data(EvaluationTableModel::SpeedupRole);
        if (s.isNull())
            break;  // sorted descending: the rest have none
        EXPECT_LE(s.toDouble(), previous);
        previous = s.toDouble();
        const qint64 id = m->evaluationId(row);
        if (auto it = bySpeedup.find(id); it != bySpeedup.end()) {
            EXPECT_NEAR(s.toDouble(), it->second, 1e-9 * it->second) << id;
            ++compared;
        }
        EXPECT_TRUE(m->index(row, EvaluationTableModel::SpeedupColumn).data().toString().endsWith(QStringLiteral("×")));
    }
    EXPECT_GE(compared, 5);
    // A failing evaluation has none, timed or not.
    const qint64 failTimed = queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations e WHERE verdict = 'fail' AND "
                                                         "EXISTS (SELECT 1 FROM timings t WHERE t.evaluation_id = e.id)"));
    std::cerr << "timed failing evaluations in the demo: " << failTimed << "\n";

    // The run filter: one entry per run, newest first; choosing one shows its evaluations only.
    auto* runs = rv.facetBox(FacetListModel::Run);
    ASSERT_NE(runs, nullptr);
    ASSERT_TRUE(waitUntil([&] { return runs->count() > 1; }));
    EXPECT_EQ(runs->count(), 1 + queryInt64(db, QStringLiteral("SELECT count(*) FROM runs")));
    const qint64 runId = runs->itemData(2, FacetListModel::ValueRole).toLongLong();
    EXPECT_TRUE(runs->itemText(2).startsWith(QStringLiteral("#%1 ").arg(runId))) << runs->itemText(2).toStdString();
    runs->setCurrentIndex(2);
    ASSERT_TRUE(waitUntil([&] { return rv.model()->filter().runId == runId && !rv.model()->isLoading(); }));
    EXPECT_EQ(rv.model()->totalCount(), queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations WHERE run_id = %1").arg(runId)));
    EXPECT_EQ(rv.model()->index(0, EvaluationTableModel::RunColumn).data().toLongLong(), runId);
    EXPECT_TRUE(runs->itemText(2).contains(QString::number(rv.model()->totalCount())));
    rv.table()->sortByColumn(EvaluationTableModel::IdColumn, Qt::AscendingOrder);
    screenshot(&rv, QStringLiteral("results-run-filter"), {1100, 420});
}

// Item 8: from a task (the task browser's double click / Enter) to its evaluations; back to all.
TEST(Navigation, ATaskLeadsToItsEvaluations)
{
    QTemporaryDir dir;
    const QString db = copyDemo(dir.path());
    ASSERT_FALSE(db.isEmpty());
    QSettings().clear();
    MainWindow w;
    ASSERT_TRUE(w.openDatabase(db));
    const QString task = QStringLiteral("Activation/relu");
    const qint64 n = queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations WHERE task_id = 'Activation/relu'"));
    ASSERT_GT(n, 1);
    emit w.taskBrowser()->evaluationsRequested(task);
    EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::ResultsTab));
    ASSERT_TRUE(waitUntil([&] { return !w.resultsView()->model()->isLoading(); }));
    EXPECT_EQ(w.resultsView()->model()->filter().taskId, task);
    EXPECT_EQ(w.resultsView()->model()->totalCount(), n);  // every evaluation of it, not one per submission
    for (int r = 0; r < w.resultsView()->model()->rowCount(); ++r)
        EXPECT_EQ(w.resultsView()->model()->index(r, EvaluationTableModel::TaskColumn).data().toString(), task);
    auto* chip = w.resultsView()->taskChip();
    EXPECT_FALSE(chip->isHidden());
    EXPECT_TRUE(chip->text().contains(task));
    chip->click();
    ASSERT_TRUE(waitUntil([&] { return w.resultsView()->model()->filter().taskId.isEmpty() && !w.resultsView()->model()->isLoading(); }));
    EXPECT_EQ(w.resultsView()->model()->totalCount(), queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations")));
    EXPECT_TRUE(chip->isHidden());
    // A category filters by category.
    w.showTaskEvaluations(QStringLiteral("Math"));
    ASSERT_TRUE(waitUntil([&] { return !w.resultsView()->model()->isLoading(); }));
    EXPECT_EQ(w.resultsView()->model()->totalCount(), queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations WHERE task_id LIKE 'Math/%'")));
    w.close();
}

// Item 5's drill-down: a clicked chart mark (ChartPanel::filterRequested) shows its evaluations in
// Results, filtered by what the mark names.
TEST(Navigation, AChartMarkLeadsToItsEvaluations)
{
    QTemporaryDir dir;
    const QString db = copyDemo(dir.path());
    ASSERT_FALSE(db.isEmpty());
    QSettings().clear();
    MainWindow w;
    ASSERT_TRUE(w.openDatabase(db));
    const QString method = QStringLiteral("fixtures");
    const qint64 n = queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluation_rows WHERE method = 'fixtures' AND category = 'Activation'"));
    ASSERT_GT(n, 0) << "the demo has fixtures Activation evaluations";
    w.showChartSelection({{QStringLiteral("figure"), QStringLiteral("correctness_heatmap")},
                          {QStringLiteral("method"), method},
                          {QStringLiteral("category"), QStringLiteral("Activation")},
                          {QStringLiteral("stage"), QStringLiteral("exe")}});
    EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::ResultsTab));
    ASSERT_TRUE(waitUntil([&] { return !w.resultsView()->model()->isLoading(); }));
    EXPECT_EQ(w.resultsView()->model()->filter().method, method);
    EXPECT_EQ(w.resultsView()->model()->filter().category, QStringLiteral("Activation"));
    EXPECT_TRUE(w.resultsView()->model()->filter().stage.isEmpty()) << "a rate's stage is not Results' failure stage";
    EXPECT_EQ(w.resultsView()->model()->totalCount(), n);
    w.close();
}

// Item 1: Results can show exactly what the reports count ("Counted only"), and says which it shows.
TEST(Navigation, CountedOnlyAgreesWithTheReports)
{
    QTemporaryDir dir;
    const QString db = copyDemo(dir.path());
    ASSERT_FALSE(db.isEmpty());
    QSettings().clear();
    MainWindow w;
    ASSERT_TRUE(w.openDatabase(db));
    auto* m = w.resultsView()->model();
    ASSERT_TRUE(waitUntil([&] { return m->totalCount() >= 0 && !m->isLoading(); }));
    const qint64 all = queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations"));
    EXPECT_EQ(m->totalCount(), all);
    // What kbx report counts: analysis::loadRows under the counting rule.
    kbx::Store store(db.toStdString(), kbx::OpenMode::ReadOnly);
    const auto counted = static_cast<qint64>(kbx::analysis::loadRows(store, {}).size());
    ASSERT_LT(counted, all) << "the demo has evaluations the rule does not count (a submission evaluated twice)";
    w.resultsView()->countedOnlyBox()->setChecked(true);
    ASSERT_TRUE(waitUntil([&] { return m->filter().countedOnly && m->totalCount() >= 0 && !m->isLoading(); }));
    EXPECT_EQ(m->totalCount(), counted);
    EXPECT_TRUE(w.resultsView()->countLabel()->text().contains(QStringLiteral("counted"))) << w.resultsView()->countLabel()->text().toStdString();
    // With a category as well: the rule then the filter, as kbx report --category does.
    w.showTaskEvaluations(QStringLiteral("Activation"));  // a new filter: every evaluation again
    ASSERT_TRUE(waitUntil([&] { return !m->isLoading() && m->totalCount() >= 0; }));
    EXPECT_FALSE(m->filter().countedOnly);
    auto f = m->filter();
    f.countedOnly = true;
    w.resultsView()->setFilter(f);
    ASSERT_TRUE(waitUntil([&] { return !m->isLoading() && m->totalCount() >= 0; }));
    EXPECT_TRUE(w.resultsView()->countedOnlyBox()->isChecked());
    kbx::analysis::Filters af;
    af.categories = {"Activation"};
    EXPECT_EQ(m->totalCount(), static_cast<qint64>(kbx::analysis::loadRows(store, af).size()));
    w.close();
}

// Item 8: the context menus (copy, open in the inspector, show the code, export) and the run panel's
// rows opening their evaluation in the inspector.
TEST(Navigation, ContextMenusAndRunPanelRowsOpenTheInspector)
{
    QTemporaryDir dir;
    const QString db = copyDemo(dir.path());
    ASSERT_FALSE(db.isEmpty());
    QSettings().clear();
    MainWindow w;
    ASSERT_TRUE(w.openDatabase(db));
    auto* rv = w.resultsView();
    ASSERT_TRUE(waitUntil([&] { return !rv->model()->isLoading() && rv->model()->totalCount() > 0; }));
    w.showTab(MainWindow::ResultsTab);
    QSignalSpy resets(rv->model(), &QAbstractItemModel::modelReset);
    QSignalSpy removed(rv->model(), &QAbstractItemModel::rowsRemoved);
    // (selectRow() would follow whatever modifier keys an earlier test left pressed)
    rv->table()->selectionModel()->setCurrentIndex(rv->table()->model()->index(3, 0),
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    const qint64 id3 = rv->model()->evaluationId(3);
    ASSERT_GT(id3, 0);
    EXPECT_EQ(rv->currentEvaluationId(), id3);

    settle(200);  // late arrivals (the facets) leave the selection alone
    ASSERT_EQ(rv->selectedRowCount(), 1);
    EXPECT_EQ(resets.count(), 0);
    EXPECT_EQ(removed.count(), 0);
    std::unique_ptr<QMenu> menu(rv->createContextMenu());
    for (const char* a : {"Copy rows", "Copy evaluation IDs", "Open in inspector", "Show code", "Diff", "Re-run", "Export the selected",
                          "Export all"})
        ASSERT_NE(actionNamed(menu.get(), QLatin1String(a)), nullptr) << a;
    EXPECT_FALSE(actionNamed(menu.get(), QStringLiteral("Diff"))->isEnabled());  // one row selected
    actionNamed(menu.get(), QStringLiteral("Copy rows"))->trigger();
    const QString copied = QApplication::clipboard()->text();
    EXPECT_TRUE(copied.startsWith(QStringLiteral("ID\tRun\t"))) << copied.left(80).toStdString();
    EXPECT_TRUE(copied.contains(QStringLiteral("Speedup")));
    EXPECT_TRUE(copied.section(QLatin1Char('\n'), 1, 1).startsWith(QString::number(id3) + QLatin1Char('\t')));
    actionNamed(menu.get(), QStringLiteral("Copy evaluation IDs"))->trigger();
    EXPECT_EQ(QApplication::clipboard()->text(), QString::number(id3));

    actionNamed(menu.get(), QStringLiteral("Open in inspector"))->trigger();
    EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::InspectorTab));
    EXPECT_EQ(w.inspector()->details().id, id3);
    w.showTab(MainWindow::ResultsTab);
    actionNamed(menu.get(), QStringLiteral("Show code"))->trigger();
    EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::CodeTab));
    EXPECT_FALSE(w.codeView()->candidateView()->toPlainText().isEmpty());

    // Export: the selection, and every matching row (in the table's order).
    rv->table()->selectionModel()->select(rv->table()->model()->index(5, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    EXPECT_EQ(rv->selectedRowCount(), 2);
    QSignalSpy exported(rv, &ResultsView::exportFinished);
    const QString sel = dir.filePath(QStringLiteral("selected.csv"));
    ASSERT_TRUE(rv->exportCsv(sel, false));
    ASSERT_TRUE(waitUntil([&] { return exported.count() == 1; }));
    EXPECT_EQ(exported.at(0).at(1).toLongLong(), 2);
    {
        QFile f(sel);
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        const auto lines = f.readAll().trimmed().split('\n');
        ASSERT_EQ(lines.size(), 3);
        EXPECT_TRUE(lines[0].startsWith("id,task,method,round,gpu,verdict"));
        EXPECT_TRUE(lines[0].contains("run,speedup"));
        EXPECT_TRUE(lines[1].startsWith(QByteArray::number(id3) + ','));
    }
    const QString all = dir.filePath(QStringLiteral("all.csv"));
    ASSERT_TRUE(rv->exportCsv(all, true));
    ASSERT_TRUE(waitUntil([&] { return exported.count() == 2; }));
    const qint64 total = queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations"));
    EXPECT_EQ(exported.at(1).at(1).toLongLong(), total);
    {
        QFile f(all);
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        // Multi-line details are quoted: count records by the id column of lines that start one.
        int records = 0;
        bool inQuote = false;
        const QByteArray body = f.readAll();
        for (char c : body) {
            if (c == '"')
                inQuote = !inQuote;
            else if (c == '\n' && !inQuote)
                ++records;
        }
        EXPECT_EQ(records, total + 1);
    }
    QApplication::processEvents();
    EXPECT_TRUE(w.statusBar()->currentMessage().contains(QStringLiteral("written to"))) << w.statusBar()->currentMessage().toStdString();

    // Double click / Enter on a row: the inspector.
    w.showTab(MainWindow::ResultsTab);
    rv->table()->selectionModel()->setCurrentIndex(rv->table()->model()->index(7, 2), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    const qint64 id7 = rv->model()->evaluationId(7);
    QTest::keyClick(rv->table(), Qt::Key_Return);
    EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::InspectorTab));
    EXPECT_EQ(w.inspector()->details().id, id7);

    // The run panel: a finished candidate's row opens its evaluation (as a run reports it).
    auto* rp = w.runPanel();
    CandidateResult c;
    c.index = 1;
    c.taskId = QStringLiteral("Math/rsqrt");
    c.verdict = QStringLiteral("pass");
    c.seconds = 1.5;
    c.evaluationId = id3;
    emit rp->controller()->candidateFinished(c);
    ASSERT_EQ(rp->statusTable()->rowCount(), 1);
    EXPECT_EQ(rp->evaluationIdAt(0), id3);
    w.showTab(MainWindow::ResultsTab);
    rp->statusTable()->setCurrentCell(0, 1);
    QTest::keyClick(rp->statusTable(), Qt::Key_Return);
    EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::InspectorTab));
    EXPECT_EQ(w.inspector()->details().id, id3);
    std::unique_ptr<QMenu> runMenu(rp->createStatusMenu());
    ASSERT_NE(actionNamed(runMenu.get(), QStringLiteral("Open in inspector")), nullptr);
    EXPECT_TRUE(actionNamed(runMenu.get(), QStringLiteral("Open in inspector"))->isEnabled());
    w.showTab(MainWindow::ResultsTab);
    actionNamed(runMenu.get(), QStringLiteral("Show code"))->trigger();
    EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::CodeTab));
    actionNamed(runMenu.get(), QStringLiteral("Copy the row"))->trigger();
    EXPECT_TRUE(QApplication::clipboard()->text().startsWith(QStringLiteral("1\tMath/rsqrt\tpass")));
    w.close();
}

// Item 8: a Help entry that explains the columns ("Evaluated") and the counting rule.
TEST(Navigation, HelpExplainsTheColumnsAndTheCountingRule)
{
    QSettings().clear();
    MainWindow w;
    QAction* help = w.findChild<QAction*>(QStringLiteral("helpColumnsAction"));
    ASSERT_NE(help, nullptr);
    bool inHelpMenu = false;
    for (auto* a : w.menuBar()->actions())
        if (a->menu() && a->text().remove(QLatin1Char('&')) == QStringLiteral("Help"))
            inHelpMenu = a->menu()->actions().contains(help);
    EXPECT_TRUE(inHelpMenu);
    help->trigger();
    auto* dlg = w.findChild<QDialog*>(QStringLiteral("helpColumnsDialog"));
    ASSERT_NE(dlg, nullptr);
    EXPECT_TRUE(dlg->isVisible());
    const QString text = dlg->findChild<QTextBrowser*>(QStringLiteral("helpColumnsText"))->toPlainText();
    EXPECT_TRUE(text.contains(QStringLiteral("Evaluated")));
    EXPECT_TRUE(text.contains(QString::fromStdString(kbx::analysis::countingRule()))) << "the rule of kbx report, in its words";
    EXPECT_TRUE(text.contains(QStringLiteral("every evaluation")));  // what Results lists
    for (const char* col : {"Run", "Speedup", "Extended", "Manual label"})
        EXPECT_TRUE(text.contains(QLatin1String(col))) << col;
    screenshot(dlg, QStringLiteral("help-columns"), {620, 560});
    dlg->close();
}

// Item 8: "scrolling and Ctrl+End reach the whole 1M-row table". 229,376 evaluations (the fixture
// database doubled 12 times in SQL): Ctrl+End selects the last row, in the table's order, and the
// inspector is told which evaluation it is; the scroll bar's middle shows the rows that are there.
TEST(Navigation, CtrlEndAndTheScrollBarReachTheLastRowOfABigTable)
{
    QTemporaryDir dir;
    const QString db = copyBenchDatabase(dir.path());
    ASSERT_FALSE(db.isEmpty());
    QString err;
    ASSERT_TRUE(prepareDatabase(db, &err)) << err.toStdString();
    QElapsedTimer t;
    t.start();
    {
        kbx::gui::test::TestSql c(db);
        c.exec(QStringLiteral("BEGIN"));
        for (int i = 0; i < 12; ++i)
            c.exec(QStringLiteral("INSERT INTO evaluations(run_id, submission_id, task_id, verdict, call_ok, exe_ok, failure_class, "
                                  "failure_detail, evidence, stage_seconds, taxonomy_version, started_at, finished_at) "
                                  "SELECT run_id, submission_id, task_id, verdict, call_ok, exe_ok, failure_class, "
                                  "substr(failure_detail, 1, 40), '{}', '{}', taxonomy_version, started_at, finished_at FROM evaluations"));
        c.exec(QStringLiteral("COMMIT"));
    }
    const qint64 total = queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations"));
    std::cerr << "built " << total << " evaluations in " << t.elapsed() << " ms\n";
    ASSERT_GE(total, 200000);

    ResultsView rv;
    QSignalSpy selected(&rv, &ResultsView::evaluationSelected);
    rv.resize(1000, 500);
    rv.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&rv));
    t.restart();
    rv.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return rv.model()->totalCount() == total && !rv.model()->isLoading(); }));
    std::cerr << "first rows and the count in " << t.elapsed() << " ms\n";
    auto* table = rv.table();
    EXPECT_EQ(table->model()->rowCount(), total) << "the table has every row, not only the pages read";
    EXPECT_TRUE(rv.countLabel()->text().contains(QLocale().toString(total)));

    // Ctrl+End: the last row, read from the end of the table.
    table->setFocus();
    table->setCurrentIndex(table->model()->index(0, 0));
    selected.clear();
    t.restart();
    QTest::keyClick(table, Qt::Key_End, Qt::ControlModifier);
    EXPECT_EQ(table->currentIndex().row(), total - 1);
    const qint64 lastId = queryInt64(db, QStringLiteral("SELECT max(id) FROM evaluations"));
    ASSERT_TRUE(waitUntil([&] { return selected.count() > 0; }, 8000));
    std::cerr << "Ctrl+End: last row's evaluation in " << t.elapsed() << " ms\n";
    EXPECT_LT(t.elapsed(), 3000);
    EXPECT_EQ(selected.last().at(0).toLongLong(), lastId);
    EXPECT_EQ(rv.currentEvaluationId(), lastId);
    EXPECT_EQ(table->verticalScrollBar()->value(), table->verticalScrollBar()->maximum());
    settle();
    // The rows on screen at the end are read and in order.
    const int bottom = table->rowAt(table->viewport()->height() - 2);
    ASSERT_TRUE(waitUntil([&] { return rv.model()->isRowLoaded(bottom) && rv.model()->isRowLoaded(int(total) - 1); }));
    EXPECT_EQ(rv.model()->evaluationId(int(total) - 2), lastId - 1);

    // The scroll bar's middle: the rows there, the same as SQL's OFFSET says.
    t.restart();
    table->verticalScrollBar()->setValue(table->verticalScrollBar()->maximum() / 2);
    settle();
    const int top = table->rowAt(0);
    ASSERT_GT(top, 1000);
    ASSERT_TRUE(waitUntil([&] { return rv.model()->isRowLoaded(top) && !rv.model()->isLoading(); }, 8000));
    std::cerr << "middle of the scroll bar in " << t.elapsed() << " ms\n";
    EXPECT_EQ(rv.model()->evaluationId(top), queryInt64(db, QStringLiteral("SELECT id FROM evaluations ORDER BY id LIMIT 1 OFFSET %1").arg(top)));
    // Scrolling up a bit from there reads the rows above (keyset, backwards).
    table->verticalScrollBar()->setValue(table->verticalScrollBar()->value() - 300);
    settle();
    const int above = table->rowAt(0);
    ASSERT_TRUE(waitUntil([&] { return rv.model()->isRowLoaded(above) && !rv.model()->isLoading(); }, 8000));
    EXPECT_EQ(rv.model()->evaluationId(above), queryInt64(db, QStringLiteral("SELECT id FROM evaluations ORDER BY id LIMIT 1 OFFSET %1").arg(above)));

    // Sorted by task, descending: Ctrl+End is the smallest (task, id).
    rv.table()->sortByColumn(EvaluationTableModel::TaskColumn, Qt::DescendingOrder);
    ASSERT_TRUE(waitUntil([&] { return rv.model()->totalCount() == total && !rv.model()->isLoading(); }, 8000));
    selected.clear();
    t.restart();
    table->setCurrentIndex(table->model()->index(0, 0));
    QTest::keyClick(table, Qt::Key_End, Qt::ControlModifier);
    ASSERT_TRUE(waitUntil([&] { return !selected.isEmpty() && selected.last().at(0).toLongLong() ==
                                                                  queryInt64(db, QStringLiteral("SELECT id FROM evaluations ORDER BY task_id, id LIMIT 1")); },
                          8000));
    std::cerr << "Ctrl+End sorted by task in " << t.elapsed() << " ms\n";
    EXPECT_LE(rv.model()->cachedBlocks(), rv.model()->maxCachedBlocks());
}
