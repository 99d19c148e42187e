// SPDX-License-Identifier: MIT
// A run started from the GUI on the CPU (Triton interpreter) completes and its results appear in the
// views without restarting; cancel stops a run. Needs kbx-worker (KBX_WORKER, or beside the
// executable): skipped without it.
#include "database.h"
#include "evaluationtablemodel.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "resultsview.h"
#include "runpanel.h"
#include "taskbrowser.h"
#include "tasktreemodel.h"

#include "paths.h"

#include <QApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QPlainTextEdit>

#include <gtest/gtest.h>

using namespace kbx::gui;
using namespace kbx::gui::test;

namespace {

bool haveWorker()
{
    const auto w = kbx::findWorker();
    return !w.empty() && std::filesystem::exists(w);
}

QString jsonlOf(const QString& dir, const QString& variant, const QString& file)
{
    QFile in(QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/variants/") + variant);
    if (!in.open(QIODevice::ReadOnly))
        return {};
    const QString path = QDir(dir).filePath(QStringLiteral("variant.jsonl"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(QJsonDocument(QJsonObject{{"predict", QString::fromUtf8(in.readAll())}, {"file", file}}).toJson(QJsonDocument::Compact));
    out.write("\n");
    return path;
}

}  // namespace

TEST(GuiRun, CpuRunFromTheWindowLandsInTheViews)
{
    if (!haveWorker())
        GTEST_SKIP() << "kbx-worker not found (set KBX_WORKER)";
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("gui-run.sqlite"));
    QString err;
    ASSERT_TRUE(createDatabase(db, &err)) << err.toStdString();
    MainWindow w;
    ASSERT_TRUE(w.openDatabase(db));
    ASSERT_TRUE(waitUntil([&] { return !w.resultsView()->model()->isLoading(); }));
    EXPECT_EQ(w.resultsView()->model()->rowCount(), 0);

    const QString variant = jsonlOf(dir.path(), QStringLiteral("runtime_error.py"), QStringLiteral("Activation/relu.py"));
    ASSERT_FALSE(variant.isEmpty());
    RunPanel* rp = w.runPanel();
    rp->addSources({QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/relu.py"), variant});
    rp->methodEdit()->setText(QStringLiteral("gui-test"));
    EXPECT_EQ(rp->database(), db);
    QSignalSpy stored(rp, &RunPanel::evaluationStored);
    QSignalSpy fin(rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp->start());
    EXPECT_TRUE(rp->cancelButton()->isEnabled());
    EXPECT_FALSE(rp->startButton()->isEnabled());
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 400000)) << rp->logView()->toPlainText().toStdString();
    const auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_TRUE(r.error.isEmpty()) << r.error.toStdString();
    EXPECT_EQ(r.total, 2);
    EXPECT_EQ(r.passed, 1);
    EXPECT_EQ(r.failed, 1);
    EXPECT_EQ(stored.count(), 2);
    EXPECT_EQ(rp->statusTable()->rowCount(), 2);
    EXPECT_EQ(rp->progressBar()->value(), 2);
    EXPECT_TRUE(rp->logView()->toPlainText().contains(QStringLiteral("1 passed, 1 failed")));

    // The views show the new results without restarting (refreshed by the window itself).
    ASSERT_TRUE(waitUntil([&] { return w.resultsView()->model()->rowCount() == 2 && !w.resultsView()->model()->isLoading(); }, 20000));
    auto* m = w.resultsView()->model();
    QStringList verdicts, methods;
    for (int i = 0; i < 2; ++i) {
        verdicts << m->index(i, EvaluationTableModel::VerdictColumn).data().toString();
        methods << m->index(i, EvaluationTableModel::MethodColumn).data().toString();
    }
    verdicts.sort();
    EXPECT_EQ(verdicts, (QStringList{QStringLiteral("fail"), QStringLiteral("pass")}));
    EXPECT_EQ(methods.first(), QStringLiteral("gui-test"));
    const auto relu = w.taskBrowser()->model()->indexOfTask(QStringLiteral("Activation/relu"));
    ASSERT_TRUE(waitUntil([&] { return relu.data(TaskTreeModel::EvaluatedRole).toInt() == 2; }, 20000));
    EXPECT_NEAR(relu.data(TaskTreeModel::PassRateRole).toDouble(), 0.5, 1e-9);
    w.showTab(MainWindow::ResultsTab);
    screenshot(&w, QStringLiteral("main-window-after-run"), {1400, 800});
    w.close();
}

TEST(GuiRun, CancelStopsTheRun)
{
    if (!haveWorker())
        GTEST_SKIP() << "kbx-worker not found (set KBX_WORKER)";
    QTemporaryDir dir;
    RunPanel rp;
    rp.setDatabase(dir.filePath(QStringLiteral("cancel.sqlite")));
    rp.addSources({QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation")});
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());
    rp.cancelButton()->click();
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 300000));
    const auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_TRUE(r.cancelled);
    EXPECT_LT(r.passed + r.failed, 2);
    EXPECT_TRUE(rp.logView()->toPlainText().contains(QStringLiteral("Cancelling")));
}

TEST(GuiRun, GpusOnACpuRunAreRefusedWithAClearMessage)
{
    if (!haveWorker())
        GTEST_SKIP() << "kbx-worker not found (set KBX_WORKER)";
    QTemporaryDir dir;
    RunPanel rp;
    rp.setDatabase(dir.filePath(QStringLiteral("gpus.sqlite")));
    rp.addSources({QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/relu.py")});
    auto* gpus = rp.findChild<QLineEdit*>(QStringLiteral("runGpus"));
    ASSERT_NE(gpus, nullptr);
    gpus->setText(QStringLiteral(" 0, 1 ,"));
    const auto req = rp.request();
    EXPECT_EQ(req.gpus, (QStringList{QStringLiteral("0"), QStringLiteral("1")}));
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());  // device: CPU (the default)
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 120000));
    const auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_TRUE(r.error.contains(QStringLiteral("not on CUDA"))) << r.error.toStdString();
    EXPECT_EQ(r.passed + r.failed, 0);
}

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kbx-tests"));
    QApplication::setApplicationName(QStringLiteral("kbx-workbench-run-tests"));
    QTemporaryDir settings;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
