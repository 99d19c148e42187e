// SPDX-License-Identifier: MIT
// Issue 24, item 1: one counting rule (the latest evaluation of every submission per device) on the
// Tasks tab, the charts' footer, the exported figures' provenance and kbx report, checked against each
// other on a copy of the demo database (which holds a CPU run beside the GPU runs). Item 8: the task
// tree's double-click/Enter and a filter that never moves the task page to a hidden task.
// Offscreen (QT_QPA_PLATFORM=offscreen); the Tasks tab's screenshot goes to tests/gui/screenshots.
#include "chartpanel.h"
#include "database.h"
#include "guitestutil.h"
#include "taskbrowser.h"
#include "tasktreemodel.h"

#include "analysis.h"
#include "catalogue.h"
#include "stats_tables.h"
#include "store.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>

#include <map>
#include <set>

#include <gtest/gtest.h>

using namespace kbx::gui;
using namespace kbx::gui::test;

namespace {

struct Count {
    int total = 0;
    int callOk = 0;
};

/// A copy of the demo database (the original is never opened).
class DemoDb : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir.isValid());
        db = dir.filePath(QStringLiteral("demo.sqlite"));
        ASSERT_TRUE(QFile::copy(QStringLiteral(KBX_SOURCE_DIR "/resources/demo/demo.sqlite"), db));
        QFile::setPermissions(db, QFile::ReadOwner | QFile::WriteOwner);
        QString err;
        ASSERT_TRUE(prepareDatabase(db, &err)) << err.toStdString();
        // kbx report's counts (Store::report(): what `kbx report` prints), per device and category.
        kbx::Store store(db.toStdString());
        for (const auto& r : store.report()) {
            auto& c = report[r.gpu][QString::fromStdString(r.category)];
            c.total += r.total;
            c.callOk += r.callOk;
            total += r.total;
            perDevice[r.gpu] += r.total;
        }
        stored = int(store.query("SELECT count(*) AS n FROM evaluations").front()["n"].get<int>());
    }
    QTemporaryDir dir;
    QString db;
    std::map<std::string, std::map<QString, Count>> report;
    std::map<std::string, int> perDevice;
    int total = 0;
    int stored = 0;
};

void settle()
{
    for (int i = 0; i < 10; ++i)
        QApplication::processEvents();
}

bool waitForStats(TaskBrowser& tb, QSignalSpy& ready)
{
    return waitUntil([&] { return ready.count() > 0 && !tb.model()->isLoading(); });
}

}  // namespace

// The Tasks tab's Evaluated counts, per device and category, are kbx report's; so are the totals of
// "All devices" (the demo's CPU run counts beside the GPU runs, as in kbx report) and the footer.
TEST_F(DemoDb, TasksTabAgreesWithKbxReportPerDeviceAndCategory)
{
    ASSERT_EQ(perDevice.size(), 2u) << "the demo holds a CPU and a GPU run";
    ASSERT_GT(stored, total) << "the demo holds re-evaluations that do not count";
    TaskBrowser tb;
    QSignalSpy ready(tb.model(), &TaskTreeModel::statsReady);
    tb.setDatabase(db);
    ASSERT_TRUE(waitForStats(tb, ready));
    settle();

    EXPECT_EQ(tb.model()->totalStats().evaluated, total);
    std::map<QString, Count> all;
    for (const auto& [gpu, cats] : report)
        for (const auto& [cat, c] : cats) {
            all[cat].total += c.total;
            all[cat].callOk += c.callOk;
        }
    for (const auto& [cat, c] : all) {
        EXPECT_EQ(tb.model()->categoryStats(cat).evaluated, c.total) << cat.toStdString() << " (all devices)";
        EXPECT_EQ(tb.model()->categoryStats(cat).callOk, c.callOk) << cat.toStdString() << " (all devices)";
    }
    // The rule is stated on the tab: the Evaluated column's tooltip and the footer.
    const QString rule = QString::fromStdString(kbx::analysis::countingRule());
    EXPECT_TRUE(tb.tree()->model()->headerData(TaskTreeModel::EvaluatedColumn, Qt::Horizontal, Qt::ToolTipRole).toString().contains(rule));
    EXPECT_TRUE(tb.countingLabel()->text().contains(rule)) << tb.countingLabel()->text().toStdString();
    EXPECT_TRUE(tb.countingLabel()->text().contains(QString::number(total))) << tb.countingLabel()->text().toStdString();

    // One device at a time.
    QStringList devices;
    for (int i = 1; i < tb.deviceBox()->count(); ++i)
        devices << tb.deviceBox()->itemText(i);
    QStringList expected;
    for (const auto& [gpu, n] : perDevice)
        expected << QString::fromStdString(gpu);
    EXPECT_EQ(devices, expected);
    for (const auto& [gpu, cats] : report) {
        ready.clear();
        tb.deviceBox()->setCurrentIndex(tb.deviceBox()->findText(QString::fromStdString(gpu)));
        ASSERT_TRUE(waitForStats(tb, ready));
        EXPECT_EQ(tb.model()->gpu(), QString::fromStdString(gpu));
        EXPECT_EQ(tb.model()->totalStats().evaluated, perDevice[gpu]) << gpu;
        for (const auto& [cat, c] : all) {
            const Count want = cats.count(cat) ? cats.at(cat) : Count{};
            EXPECT_EQ(tb.model()->categoryStats(cat).evaluated, want.total) << cat.toStdString() << " on " << gpu;
            EXPECT_EQ(tb.model()->categoryStats(cat).callOk, want.callOk) << cat.toStdString() << " on " << gpu;
        }
        EXPECT_TRUE(tb.countingLabel()->text().contains(QString::number(perDevice[gpu]))) << tb.countingLabel()->text().toStdString();
    }

    // The screenshot: the GPU only, every category open.
    const int h200 = tb.deviceBox()->findText(QStringLiteral("NVIDIA H200"));
    if (tb.deviceBox()->currentIndex() != h200) {
        ready.clear();
        tb.deviceBox()->setCurrentIndex(h200);
        ASSERT_TRUE(waitForStats(tb, ready));
    }
    tb.tree()->expand(tb.tree()->model()->index(0, 0));
    ASSERT_TRUE(tb.selectTask(QStringLiteral("Activation/relu")));
    screenshot(&tb, QStringLiteral("tasks-device-filter"), {1200, 760});
}

// The charts count the same evaluations (footer and rows), from the same runs, and say by which
// rule; per GPU too. The exported figure's provenance lists only the runs it used.
TEST_F(DemoDb, ChartsAndExportedFiguresAgreeWithKbxReport)
{
    kbx::Store store(db.toStdString());
    const auto rows = kbx::analysis::loadRows(store, {});
    EXPECT_EQ(int(rows.size()), total);
    std::set<std::int64_t> used;
    for (const auto& r : rows)
        used.insert(r.runId);

    ChartPanel panel;
    QSignalSpy ready(&panel, &ChartPanel::figureReady);
    panel.setDatabase(db);
    ASSERT_TRUE(ready.wait(30000));
    auto* status = panel.findChild<QLabel*>(QStringLiteral("status"));
    ASSERT_NE(status, nullptr);
    const QString rule = QString::fromStdString(kbx::analysis::countingRule());
    EXPECT_TRUE(status->text().contains(QStringLiteral("%L1 of %L2 evaluations counted").arg(total).arg(stored))) << status->text().toStdString();
    EXPECT_TRUE(status->text().contains(rule)) << status->text().toStdString();
    EXPECT_TRUE(status->text().contains(QStringLiteral("from %1 run").arg(used.size()))) << status->text().toStdString();
    EXPECT_FALSE(status->toolTip().isEmpty());

    auto* gpu = panel.findChild<QComboBox*>(QStringLiteral("gpuFilter"));
    ASSERT_NE(gpu, nullptr);
    for (const auto& [name, n] : perDevice) {
        const int before = ready.count();
        gpu->setCurrentIndex(gpu->findText(QString::fromStdString(name)));
        ASSERT_TRUE(ready.count() > before || ready.wait(30000));
        EXPECT_TRUE(status->text().startsWith(QStringLiteral("%L1 of ").arg(n))) << name << ": " << status->text().toStdString();
    }

    // Exported figure (method-summary: the statistics' rows): provenance = the counted runs and the rule.
    const QString tex = dir.filePath(QStringLiteral("method-summary.tex"));
    QString error;
    ASSERT_TRUE(exportFigure(QStringLiteral("method-summary"), db, tex, &error)) << error.toStdString();
    QFile f(tex);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QStringList ids;
    for (auto id : used)
        ids << QString::number(id);
    EXPECT_TRUE(text.contains(QStringLiteral("runs=%1;").arg(ids.join(QLatin1Char(','))))) << text.left(600).toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("counted: %1: %2 of %3 evaluations").arg(rule).arg(total).arg(stored))) << text.left(600).toStdString();

    // The statistics tables of kbx report --table name the same rule and the same runs.
    const auto rep = kbx::stats::buildReport(store, "category-method", {}, {});
    EXPECT_NE(rep.provenance.value("counting", std::string()).find(kbx::analysis::countingRule()), std::string::npos);
    std::set<std::int64_t> listed;
    for (const auto& r : rep.provenance["runs"])
        listed.insert(r["id"].get<std::int64_t>());
    EXPECT_EQ(listed, used);
}

// The figure chooser lists every figure once (category-method, rounds and taxonomy are report names
// of figures that are already listed); choosing such a name shows its figure.
TEST(ChartList, EveryTitleOnce)
{
    ChartPanel panel;
    auto* box = panel.findChild<QComboBox*>(QStringLiteral("figureChooser"));
    ASSERT_NE(box, nullptr);
    QStringList titles;
    for (int i = 0; i < box->count(); ++i)
        titles << box->itemText(i);
    EXPECT_EQ(titles.size(), QSet<QString>(titles.begin(), titles.end()).size()) << titles.join(QLatin1Char('|')).toStdString();
    EXPECT_EQ(box->count(), figureNames().size() - 3);
    panel.setCurrentFigure(QStringLiteral("rounds"));
    EXPECT_EQ(panel.currentFigure(), QStringLiteral("round_trajectories"));
}

// Select relu, type "soft": the page must not move to selu (which matched "s" on the way) nor to any
// task the filter hides; it says relu is hidden, and clearing the filter brings relu back.
TEST(TaskBrowserNavigation, FilterNeverMovesThePageToAnotherTask)
{
    TaskBrowser tb;
    ASSERT_NE(tb.model()->catalogue(), nullptr);
    tb.resize(1000, 600);
    tb.show();
    ASSERT_TRUE(tb.selectTask(QStringLiteral("Activation/relu")));
    QSignalSpy selected(&tb, &TaskBrowser::taskSelected);
    QTest::keyClicks(tb.filterEdit(), QStringLiteral("soft"));
    settle();
    EXPECT_EQ(selected.count(), 0) << "the filter chose a task";
    const QString page = tb.page()->browser()->toPlainText();
    EXPECT_FALSE(page.contains(QStringLiteral("selu"))) << page.toStdString();
    EXPECT_TRUE(page.contains(QStringLiteral("Activation/relu"))) << page.toStdString();
    EXPECT_TRUE(page.contains(QStringLiteral("hidden by the filter"))) << page.toStdString();
    const QString current = tb.currentTaskId();
    EXPECT_TRUE(current.isEmpty() || current.contains(QStringLiteral("soft"), Qt::CaseInsensitive)) << current.toStdString();

    tb.filterEdit()->clear();
    settle();
    EXPECT_EQ(tb.currentTaskId(), QStringLiteral("Activation/relu"));
    EXPECT_TRUE(tb.page()->browser()->toPlainText().contains(QStringLiteral("Activation/relu")));
    EXPECT_EQ(selected.count(), 0);

    // A filter that keeps the chosen task keeps it chosen and shown.
    QTest::keyClicks(tb.filterEdit(), QStringLiteral("rel"));
    settle();
    EXPECT_EQ(tb.currentTaskId(), QStringLiteral("Activation/relu"));
    EXPECT_TRUE(tb.page()->browser()->toPlainText().contains(QStringLiteral("Activation/relu")));

    // A choice made under the filter is the new choice.
    tb.filterEdit()->setText(QStringLiteral("soft"));
    settle();
    ASSERT_TRUE(tb.selectTask(QStringLiteral("Math/softmax")));
    EXPECT_EQ(selected.count(), 1);
    tb.filterEdit()->clear();
    settle();
    EXPECT_EQ(tb.currentTaskId(), QStringLiteral("Math/softmax"));
    EXPECT_TRUE(tb.page()->browser()->toPlainText().contains(QStringLiteral("Math/softmax")));
    EXPECT_EQ(selected.count(), 1);
}

// Double-click or Enter on a task asks for its evaluations; on a category it does not.
TEST(TaskBrowserNavigation, DoubleClickAndEnterAskForTheTasksEvaluations)
{
    TaskBrowser tb;
    tb.resize(1000, 600);
    tb.show();
    QSignalSpy wanted(&tb, &TaskBrowser::evaluationsRequested);
    ASSERT_TRUE(tb.selectTask(QStringLiteral("Activation/relu")));
    settle();
    tb.tree()->setFocus();
    QTest::keyClick(tb.tree(), Qt::Key_Return);
    ASSERT_EQ(wanted.count(), 1);
    EXPECT_EQ(wanted.at(0).at(0).toString(), QStringLiteral("Activation/relu"));
    QTest::keyClick(tb.tree(), Qt::Key_Enter);
    EXPECT_EQ(wanted.count(), 2);

    ASSERT_TRUE(tb.selectTask(QStringLiteral("Activation/gelu")));
    settle();
    const QRect r = tb.tree()->visualRect(tb.tree()->currentIndex());
    ASSERT_TRUE(r.isValid());
    QTest::mousePress(tb.tree()->viewport(), Qt::LeftButton, {}, r.center());  // as a real double-click starts
    QTest::mouseDClick(tb.tree()->viewport(), Qt::LeftButton, {}, r.center());
    ASSERT_EQ(wanted.count(), 3);
    EXPECT_EQ(wanted.at(2).at(0).toString(), QStringLiteral("Activation/gelu"));

    const QModelIndex cat = tb.tree()->model()->index(0, 0);
    tb.tree()->setCurrentIndex(cat);
    QTest::keyClick(tb.tree(), Qt::Key_Return);
    EXPECT_EQ(wanted.count(), 3);
}

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
