// SPDX-License-Identifier: MIT
// The workbench on a large database (issue 24, item 2): window start to first content, the Charts
// tab cold, a figure export, and screenshots at 1366x768 of the main tabs and of the items
// (docs/screenshots/walkthrough: 3, 5, 6, 7 and 8). Runs only with KBX_SCALE_DB=PATH (e.g. the
// 1M database of bench/report_scale.py; opened writable, as the workbench does); prints the times
// ("[scale] ..."); KBX_SCALE_SHOTS=DIR saves the screenshots there (else under the screenshot dir,
// scale-*.png). Offscreen (QT_QPA_PLATFORM=offscreen).
#include "chartpanel.h"
#include "evaluationtablemodel.h"
#include "figurerenderer.h"
#include "errorheatmap.h"
#include "failureinspector.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "resultsview.h"
#include "syntax.h"
#include "taskbrowser.h"
#include "tasktreemodel.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QPainter>
#include <QTimer>
#include <QSettings>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>

#include <gtest/gtest.h>

#include <cstdio>

#include <sqlite3.h>

using namespace kbx::gui;
using namespace kbx::gui::test;

namespace {

QString shotPath(const QString& name)
{
    const QString dir = qEnvironmentVariable("KBX_SCALE_SHOTS");
    return dir.isEmpty() ? QDir(screenshotDir()).filePath(QStringLiteral("scale-") + name + QStringLiteral(".png"))
                         : QDir(dir).filePath(name + QStringLiteral(".png"));
}

void shoot(QWidget* w, const QString& name)
{
    QApplication::processEvents();
    const QImage img = w->grab().toImage();
    ASSERT_FALSE(img.isNull());
    ASSERT_TRUE(img.save(shotPath(name))) << shotPath(name).toStdString();
}

/// Answers the next modal dialog (answerNextModal) after shooting it over the window, dimmed, as a
/// user sees it.
void answerNext(QWidget* window, const QString& name, QString* text, QMessageBox::StandardButton button = QMessageBox::NoButton)
{
    answerNextModal(
        window, text, button,
        [=](QDialog* dlg) {
            QImage img = window->grab().toImage();
            const QImage box = dlg->grab().toImage();
            QPainter p(&img);
            p.fillRect(img.rect(), QColor(0, 0, 0, 70));
            p.drawImage(QPoint((img.width() - box.width()) / 2, (img.height() - box.height()) / 3), box);
            p.end();
            img.save(shotPath(name));
        },
        300);
}

}  // namespace

TEST(Scale, WindowOnALargeDatabase)
{
    const QString db = qEnvironmentVariable("KBX_SCALE_DB");
    if (db.isEmpty())
        GTEST_SKIP() << "KBX_SCALE_DB is not set";
    QElapsedTimer clock;
    clock.start();
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    QApplication::processEvents();
    const qint64 shown = clock.elapsed();
    auto* charts = qobject_cast<ChartPanel*>(w.chartsWidget());
    ASSERT_NE(charts, nullptr);
    QSignalSpy chartReady(charts, &ChartPanel::figureReady);
    auto* tasks = w.taskBrowser()->model();
    auto* results = w.resultsView()->model();
    // Each view's first content, timed when its signal arrives (the views load on worker threads).
    qint64 tasksAt = -1, countAt = -1, resultsAt = -1, chartsAt = -1;
    QObject::connect(tasks, &TaskTreeModel::statsReady, &w, [&] {
        if (tasksAt < 0 && tasks->rowCount() > 0)
            tasksAt = clock.elapsed();
    });
    QObject::connect(results, &EvaluationTableModel::totalCountChanged, &w, [&](qint64 total) {
        if (countAt < 0 && total > 0)
            countAt = clock.elapsed();
    });
    QObject::connect(results, &EvaluationTableModel::rowsLoaded, &w, [&] {
        if (resultsAt < 0 && results->isRowLoaded(0))
            resultsAt = clock.elapsed();
    });
    QObject::connect(results, &EvaluationTableModel::pageLoaded, &w, [&] {
        if (resultsAt < 0 && results->rowCount() > 0 && results->isRowLoaded(0))
            resultsAt = clock.elapsed();
    });
    QObject::connect(charts, &ChartPanel::figureReady, &w, [&] {
        if (chartsAt < 0)
            chartsAt = clock.elapsed();
    });
    ASSERT_TRUE(w.openDatabase(db));
    const qint64 opened = clock.elapsed();
    ASSERT_TRUE(waitUntil([&] { return tasksAt >= 0 && resultsAt >= 0; }, 600000));
    // The Charts tab computes its figures when it is first shown (ChartPanel::setDatabase): cold from
    // the switch to it.
    EXPECT_LT(chartsAt, 0) << "the hidden Charts tab loaded before it was shown";
    const qint64 switched = clock.elapsed();
    w.showTab(MainWindow::ChartsTab);
    ASSERT_TRUE(waitUntil([&] { return chartsAt >= 0; }, 600000));
    std::printf("[scale] %s: window shown %lld ms; database opened %lld ms; Tasks tab with counts %lld ms; Results count %lld ms, "
                "first rows %lld ms (%lld evaluations) (all from the window's start); Charts tab cold: first figure %lld ms after "
                "switching to it\n",
                qPrintable(db), shown, opened, tasksAt, countAt, resultsAt, static_cast<long long>(results->totalCount()),
                chartsAt - switched);
    std::fflush(stdout);

    // The main tabs at 1366x768.
    w.showTab(MainWindow::TasksTab);
    shoot(&w, QStringLiteral("tasks"));
    w.showTab(MainWindow::ResultsTab);
    shoot(&w, QStringLiteral("results"));
    // An evaluation everywhere: its code beside the reference, the inspector.
    const auto id = results->evaluationId(0);
    if (id > 0) {
        w.showEvaluation(id);
        waitUntil([] { return false; }, 3000);  // the code and inspector fill in the background
        w.showTab(MainWindow::CodeTab);
        shoot(&w, QStringLiteral("code"));
        w.showTab(MainWindow::InspectorTab);
        shoot(&w, QStringLiteral("inspector"));
    }
    w.showTab(MainWindow::ChartsTab);
    shoot(&w, QStringLiteral("charts-correctness_heatmap"));
    // A statistics figure: computed after the first figure (or now); timed from the switch.
    QElapsedTimer sw;
    sw.start();
    const int before = int(chartReady.count());
    charts->setCurrentFigure(QStringLiteral("method-summary"));
    ASSERT_TRUE(waitUntil([&] { return chartReady.count() > before; }, 600000));
    std::printf("[scale] Charts method-summary shown %lld ms after choosing it\n", sw.elapsed());
    std::fflush(stdout);
    shoot(&w, QStringLiteral("charts-method-summary"));
    charts->setCurrentFigure(QStringLiteral("speedup_ecdf"));
    QApplication::processEvents();
    shoot(&w, QStringLiteral("charts-speedup_ecdf"));

    // The other items on this database, at the same size (the walk-through's screenshots;
    // each item's behaviour is asserted by its own test in test_gui/test_navigation/test_counting).
    // Item 3: a failing evaluation with numeric evidence in the inspector (digits, heatmap, cases).
    const qint64 failing = queryInt64(db, QStringLiteral(
        "SELECT min(evaluation_id) FROM case_results WHERE failure_class = 'value_mismatch' AND evidence LIKE '%error_map%'"));
    if (failing > 0) {
        w.showEvaluation(failing);
        waitUntil([] { return false; }, 2000);
        w.showTab(MainWindow::InspectorTab);
        shoot(&w, QStringLiteral("item3-inspector-failing"));
        // Its error map: |cand - ref| / (atol + rtol |ref|), the 1.0 threshold marked.
        if (auto* heat = w.inspector()->heatmap())
            for (QWidget* p = heat->parentWidget(); p; p = p->parentWidget())
                if (auto* tabs = qobject_cast<QTabWidget*>(p)) {
                    tabs->setCurrentWidget(heat);  // a page of the inspector's tabs
                    break;
                }
        shoot(&w, QStringLiteral("item3-inspector-heatmap"));
        // Item 6: its code beside the reference (KF6 or the built-in Python highlighter).
        w.showTab(MainWindow::CodeTab);
        shoot(&w, QStringLiteral("item6-code-failing"));
    }
    // Item 8: a task's evaluations in Results (what double-clicking a task does), with the Run and
    // Speedup columns and the run filter; the Help entry on columns and the counting rule.
    const QString task = QStringLiteral("Activation/relu");
    w.showTaskEvaluations(task);
    waitUntil([&] { return !results->isLoading() && results->rowCount() > 0; }, 600000);
    shoot(&w, QStringLiteral("item8-task-evaluations"));
    w.showColumnsHelp();
    QApplication::processEvents();
    if (auto* help = w.findChild<QDialog*>(QStringLiteral("helpColumnsDialog"))) {
        help->resize(900, 640);
        shoot(help, QStringLiteral("item8-help-columns"));
        help->close();
    }

    // Item 5: the export's size and font options on a statistics figure, and an export at a
    // two-column width with an 11 pt font and the provenance line (timed: the bench's "figure export").
    w.showTab(MainWindow::ChartsTab);
    charts->setCurrentFigure(QStringLiteral("method-summary"));
    waitUntil([] { return false; }, 500);
    QString asked;
    answerNext(&w, QStringLiteral("item5-export-options"), &asked);
    auto* exportPng = charts->findChild<QAction*>(QStringLiteral("export_png"));  // Export > Figure as PNG…
    ASSERT_NE(exportPng, nullptr);
    exportPng->trigger();  // the options dialog, cancelled from the timer
    EXPECT_EQ(asked, QStringLiteral("Figure size"));
    QTemporaryDir out;
    FigureOptions opts;
    opts.widthPx = 7.0 * 96;
    opts.aspect = 1.6;
    opts.fontPt = 11;
    QString error;
    QElapsedTimer ex;
    ex.start();
    ASSERT_TRUE(exportFigure(QStringLiteral("method-summary"), db, out.filePath(QStringLiteral("f.png")), {}, true, opts, &error))
        << error.toStdString();
    std::printf("[scale] figure export (method-summary, PNG, 7 in wide, 11 pt, provenance line) %lld ms\n", ex.elapsed());
    std::fflush(stdout);
    QFile::remove(shotPath(QStringLiteral("item5-export-method-summary-7in-11pt")));
    ASSERT_TRUE(QFile::copy(out.filePath(QStringLiteral("f.png")), shotPath(QStringLiteral("item5-export-method-summary-7in-11pt"))));

    // Item 7: opening files safely, the dialogs as they appear (each one's behaviour and the files'
    // bytes are asserted in test_gui.cpp: GuiDb.AnEmptyFileBecomes..., ACorruptedDatabase...).
    QTemporaryDir files;
    const QString empty = files.filePath(QStringLiteral("empty.sqlite"));
    QFile(empty).open(QIODevice::WriteOnly);
    answerNext(&w, QStringLiteral("item7-empty-file"), &asked, QMessageBox::No);
    EXPECT_FALSE(w.openDatabase(empty, true));
    EXPECT_TRUE(asked.contains(QStringLiteral("empty file"))) << asked.toStdString();
    EXPECT_EQ(QFileInfo(empty).size(), 0);
    const QString foreign = files.filePath(QStringLiteral("places.sqlite"));
    {
        // another program's SQLite file (a browser's history, say)
        sqlite3* h = nullptr;
        ASSERT_EQ(sqlite3_open(foreign.toUtf8().constData(), &h), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(h);
    }
    const auto bytes = [](const QString& f) {
        QFile in(f);
        return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
    };
    const QByteArray foreignBytes = bytes(foreign);
    answerNext(&w, QStringLiteral("item7-foreign-sqlite"), &asked);
    EXPECT_FALSE(w.openDatabase(foreign, true));
    EXPECT_TRUE(asked.contains(QStringLiteral("not a kbx database"))) << asked.toStdString();
    EXPECT_TRUE(bytes(foreign) == foreignBytes) << "opening another program's file changed it";
    answerNext(&w, QStringLiteral("item7-missing-path"), &asked);
    w.openInitialDatabase(files.filePath(QStringLiteral("missing.sqlite")));
    EXPECT_TRUE(asked.contains(QStringLiteral("missing.sqlite"))) << asked.toStdString();
    EXPECT_EQ(w.database(), QFileInfo(db).absoluteFilePath()) << "a refused file replaced the open database";
}

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kbx-tests"));
    QApplication::setApplicationName(QStringLiteral("kbx-workbench-scale-tests"));
    QTemporaryDir settings;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
    initResources();
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
