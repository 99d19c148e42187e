// SPDX-License-Identifier: MIT
// The run panel's Slurm backend against fake Slurm client tools (tests/gui/fake-slurm: sbatch,
// squeue, sacct and scancel as bash scripts driven by files; no scheduler, no worker). The GUI runs
// core's Slurm driver itself (the one of `kbx eval --backend slurm`), starting no kbx; the test plays
// the array tasks: it sets each task's Slurm state and writes the shard databases and exit files a
// real array task would leave in the work directory.
#include "database.h"
#include "evaluationtablemodel.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "resultsview.h"
#include "runpanel.h"
#include "taskbrowser.h"
#include "tasktreemodel.h"

#include "paths.h"
#include "store.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGroupBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <memory>
#include <optional>

using namespace kbx::gui;
using namespace kbx::gui::test;

namespace {

QString readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// The fake Slurm tools on PATH (or, with `withSbatch` false, squeue and scancel only, and nothing
/// else on PATH), their state in a temporary directory ($KBX_FAKE_SLURM). Restores PATH when done.
class FakeSlurm {
public:
    explicit FakeSlurm(bool withSbatch = true) : m_oldPath(qgetenv("PATH"))
    {
        QDir().mkpath(stateDir());
        const QString tools = QStringLiteral(KBX_SOURCE_DIR "/tests/gui/fake-slurm");
        if (withSbatch) {
            qputenv("PATH", (tools + QLatin1Char(':')).toUtf8() + m_oldPath);
        } else {
            const QString bin = m_dir.filePath(QStringLiteral("bin"));
            QDir().mkpath(bin);
            for (const char* t : {"squeue", "scancel", "sacct"})
                QFile::link(tools + QLatin1Char('/') + QLatin1String(t), bin + QLatin1Char('/') + QLatin1String(t));
            qputenv("PATH", bin.toUtf8());
        }
        qputenv("KBX_FAKE_SLURM", stateDir().toUtf8());
    }
    ~FakeSlurm()
    {
        qputenv("PATH", m_oldPath);
        qunsetenv("KBX_FAKE_SLURM");
    }
    QString stateDir() const { return m_dir.filePath(QStringLiteral("state")); }
    /// What squeue says of array task `task` of every job (or of job `job` only).
    void setState(int task, const QString& state, const QString& job = {})
    {
        QSaveFile f(QDir(stateDir()).filePath(job.isEmpty() ? QStringLiteral("state-%1").arg(task)
                                                            : QStringLiteral("state-%1-%2").arg(job).arg(task)));
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(state.toUtf8() + "\n");
        ASSERT_TRUE(f.commit());
    }
    void refuseSbatch(const QString& message)
    {
        QFile f(QDir(stateDir()).filePath(QStringLiteral("sbatch.fail")));
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(message.toUtf8() + "\n");
    }
    QStringList calls() const
    {
        return readFile(QDir(stateDir()).filePath(QStringLiteral("calls.log"))).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
    QStringList callsOf(const QString& tool) const { return calls().filter(QRegularExpression(QStringLiteral("^%1 ").arg(tool))); }
    QString script(int job) const { return readFile(QDir(stateDir()).filePath(QStringLiteral("script-%1.sh").arg(job))); }
    /// The KBX_* variables sbatch had for job `job` ("NAME=value" lines, sorted), and its working directory.
    QStringList env(int job) const
    {
        return readFile(QDir(stateDir()).filePath(QStringLiteral("env-%1").arg(job))).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
    QString cwd(int job) const { return readFile(QDir(stateDir()).filePath(QStringLiteral("cwd-%1").arg(job))).trimmed(); }

private:
    QTemporaryDir m_dir;
    QByteArray m_oldPath;
};

struct Cand {
    QString task;
    QString fixture;  ///< under tests/fixtures/
    bool pass;
    QString cls;
};

const QList<Cand>& candidates()
{
    static const QList<Cand> c = {
        {QStringLiteral("Activation/relu"), QStringLiteral("good/Activation/relu.py"), true, {}},
        {QStringLiteral("Activation/sigmoid"), QStringLiteral("good/Activation/sigmoid.py"), true, {}},
        {QStringLiteral("Activation/tanh"), QStringLiteral("variants/value_mismatch.py"), false, QStringLiteral("value_mismatch")},
    };
    return c;
}

QString fixture(const QString& rel) { return readFile(QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/") + rel); }

/// Sets an environment variable for the scope; restores it (or its absence) when done.
class ScopedEnv {
public:
    /// Sets `name` to `value`; or, with no value, unsets it.
    ScopedEnv(const char* name, const std::optional<QByteArray>& value)
        : m_name(name), m_had(qEnvironmentVariableIsSet(name)), m_old(qgetenv(name))
    {
        if (value)
            qputenv(name, *value);
        else
            qunsetenv(name);
    }
    ~ScopedEnv()
    {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }

private:
    const char* m_name;
    bool m_had;
    QByteArray m_old;
};

/// A seed JSONL of candidates() in `dir`.
QString writeSubmissions(const QString& dir, const QString& name = QStringLiteral("subs.jsonl"))
{
    const QString path = QDir(dir).filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    for (const auto& c : candidates()) {
        f.write(QJsonDocument(QJsonObject{{"predict", fixture(c.fixture)}, {"file", c.task + QStringLiteral(".py")}}).toJson(QJsonDocument::Compact));
        f.write("\n");
    }
    return path;
}

/// What array task `shard` of `shards` leaves in the work directory when its kbx eval finished:
/// shard-I.sqlite with one finished run of shard I/N holding candidates()[shard], and shard-I.rc.
void writeShard(const QString& work, int shard, int shards, int rc = 0)
{
    const auto& c = candidates().at(shard);
    {
        kbx::Store st(QDir(work).filePath(QStringLiteral("shard-%1.sqlite").arg(shard)).toStdString());
        const nlohmann::json args = {{"source", "subs.jsonl"}, {"method", "slurm-gui"}, {"device", "cpu"},
                                     {"shard", QStringLiteral("%1/%2").arg(shard).arg(shards).toStdString()},
                                     {"shard_group", "gui-test-group"}, {"shard_of", shards}, {"shard_size", 1}};
        const auto run = st.beginRun("cpu", {{"host", "fake-host"}, {"slurm", {{"node", "fake-node" + std::to_string(shard)}}}}, {0, 1}, 4242, args);
        const auto [candId, fresh] = st.ensureCandidate(c.task.toStdString(), fixture(c.fixture).toStdString());
        (void)fresh;
        kbx::EvaluationRecord r;
        r.runId = run;
        r.submissionId = st.ensureSubmission(candId, st.ensureMethod("slurm-gui"), 0, "subs.jsonl");
        r.taskId = c.task.toStdString();
        r.pass = c.pass;
        r.callOk = true;
        r.exeOk = c.pass;
        if (!c.pass) {
            r.failureClass = c.cls.toStdString();
            r.failureDetail = "max abs error 0.5";
        }
        r.startedAt = r.finishedAt = kbx::nowIso8601();
        r.cases = {{0, "case0", c.pass ? "pass" : "fail", r.failureClass, nlohmann::json::object()}};
        st.addEvaluation(r);
        st.finishRun(run, "finished", {{"host", "fake-host"}, {"slurm", {{"node", "fake-node" + std::to_string(shard)}}}});
    }
    QSaveFile f(QDir(work).filePath(QStringLiteral("shard-%1.rc").arg(shard)));
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::number(rc) + "\n");
    ASSERT_TRUE(f.commit());
}

/// The text of column `col` of the shard's row in the run panel's table.
QString cell(RunPanel* rp, int row, int col)
{
    auto* it = rp->statusTable()->item(row, col);
    return it ? it->text() : QString();
}

/// A panel set up for a fake Slurm run of subs.jsonl into `db` with a fast poll.
void setUpSlurm(RunPanel* rp, const QString& db, const QString& subs, const QString& work, int shards = 3)
{
    rp->setDatabase(db);
    rp->addSources({subs});
    rp->methodEdit()->setText(QStringLiteral("slurm-gui"));
    ASSERT_TRUE(rp->setBackend(QStringLiteral("slurm")));
    rp->shardsBox()->setValue(shards);
    rp->pollBox()->setValue(0.2);
    rp->workDirEdit()->setText(work);
}

}  // namespace

TEST(GuiSlurm, SlurmIsDisabledWithATooltipWithoutSbatch)
{
    QString why;
    {
        FakeSlurm fake(/*withSbatch=*/false);
        why = slurmUnavailableReason();
        EXPECT_TRUE(why.startsWith(QStringLiteral("sbatch not on PATH"))) << why.toStdString();  // squeue and scancel are there
        RunPanel rp;
        auto* box = rp.backendBox();
        ASSERT_EQ(box->count(), 2);
        auto* model = qobject_cast<QStandardItemModel*>(box->model());
        ASSERT_NE(model, nullptr);
        EXPECT_TRUE(model->item(0)->isEnabled());
        EXPECT_FALSE(model->item(1)->isEnabled());
        EXPECT_TRUE(model->item(1)->toolTip().contains(QStringLiteral("sbatch not on PATH"))) << model->item(1)->toolTip().toStdString();
        EXPECT_TRUE(box->toolTip().contains(QStringLiteral("sbatch"))) << box->toolTip().toStdString();
        EXPECT_FALSE(rp.setBackend(QStringLiteral("slurm")));
        EXPECT_EQ(box->currentData().toString(), QStringLiteral("local"));
        rp.show();
        EXPECT_FALSE(rp.slurmOptionsBox()->isVisible());
        // A request for Slurm from elsewhere (the menu, a script) is refused with the same reason.
        QTemporaryDir dir;
        rp.setDatabase(dir.filePath(QStringLiteral("db.sqlite")));
        rp.addSources({writeSubmissions(dir.path())});
        box->setCurrentIndex(1);  // what a disabled item cannot get by the mouse, forced
        EXPECT_FALSE(rp.start());
        EXPECT_TRUE(rp.logView()->toPlainText().contains(QStringLiteral("sbatch not on PATH"))) << rp.logView()->toPlainText().toStdString();
        EXPECT_FALSE(rp.isRunning());
    }
    // With the tools on PATH the same panel offers Slurm and shows its options.
    FakeSlurm fake;
    EXPECT_TRUE(slurmUnavailableReason().isEmpty()) << slurmUnavailableReason().toStdString();
    RunPanel rp;
    auto* model = qobject_cast<QStandardItemModel*>(rp.backendBox()->model());
    EXPECT_TRUE(model->item(1)->isEnabled());
    rp.show();
    EXPECT_FALSE(rp.slurmOptionsBox()->isVisible());
    EXPECT_TRUE(rp.setBackend(QStringLiteral("slurm")));
    EXPECT_TRUE(rp.slurmOptionsBox()->isVisible());
    EXPECT_TRUE(rp.setBackend(QStringLiteral("local")));
    EXPECT_FALSE(rp.slurmOptionsBox()->isVisible());
}

TEST(GuiSlurm, OptionsReachTheCommandLineAndTheJobArray)
{
    FakeSlurm fake;
    QTemporaryDir dir;
    const QString work = dir.filePath(QStringLiteral("work"));
    const QString db = dir.filePath(QStringLiteral("results.sqlite"));
    // Two sources and a task selection: one JSONL of the chosen tasks' candidates in the work directory.
    const QString a = writeSubmissions(dir.path(), QStringLiteral("a.jsonl"));
    const QString b = QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/leaky_relu.py");
    RunPanel rp;
    setUpSlurm(&rp, db, a, work, 2);
    rp.addSources({b});
    rp.tasksEdit()->setText(QStringLiteral("Activation/relu, Activation/leaky_relu.py, Activation/tanh"));
    rp.roundBox()->setValue(2);
    rp.partitionEdit()->setText(QStringLiteral("gpu-h200"));
    rp.gpusPerTaskBox()->setValue(2);
    rp.cpusPerTaskBox()->setValue(6);
    rp.maxJobsBox()->setValue(1);
    rp.timeLimitEdit()->setText(QStringLiteral("0:30:00"));
    rp.retriesBox()->setValue(0);
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());
    // Submitted (the panel shows the array's job id).
    ASSERT_TRUE(waitUntil([&] { return cell(&rp, 0, 1) == QStringLiteral("1001_0") || fin.count() > 0; }))
        << rp.logView()->toPlainText().toStdString();
    ASSERT_EQ(fin.count(), 0) << rp.logView()->toPlainText().toStdString();
    EXPECT_EQ(fake.callsOf(QStringLiteral("sbatch")).size(), 1);

    const QStringList cmd = rp.controller()->slurmCommand();
    ASSERT_FALSE(cmd.isEmpty());
    const QString line = cmd.join(QLatin1Char(' '));
    for (const char* want : {"eval ", " --backend slurm", " --partition gpu-h200", " --gpus-per-task 2", " --cpus-per-task 6",
                             " --max-jobs 1", " --shards 2", " --time-limit 0:30:00", " --retries 0", " --poll 0.2", " --json",
                             " --method slurm-gui", " --round 2", " --device cpu"})
        EXPECT_TRUE(line.contains(QLatin1String(want))) << want << " not in: " << line.toStdString();
    EXPECT_TRUE(line.contains(QStringLiteral(" --work-dir ") + work)) << line.toStdString();
    EXPECT_TRUE(line.contains(QStringLiteral(" --db ") + db)) << line.toStdString();
    EXPECT_EQ(cmd.at(2), QDir(work).filePath(QStringLiteral("sources.jsonl")));  // the combined source

    // What kbx made of them: the job array's #SBATCH lines and the options of every array task.
    const QString script = fake.script(1001);
    for (const char* want : {"#SBATCH --partition=gpu-h200", "#SBATCH --gres=gpu:2", "#SBATCH --cpus-per-task=6", "#SBATCH --time=0:30:00",
                             "#SBATCH --array=0-1%1", "--method slurm-gui", "--round 2", "--device cpu", "--shard \"$i/2\""})
        EXPECT_TRUE(script.contains(QLatin1String(want))) << want << " not in:\n" << script.toStdString();
    const auto run = QJsonDocument::fromJson(readFile(QDir(work).filePath(QStringLiteral("run.json"))).toUtf8()).object();
    EXPECT_EQ(run.value(QStringLiteral("shards")).toInt(), 2);
    EXPECT_EQ(run.value(QStringLiteral("submissions")).toInt(), 3);  // relu, tanh of a.jsonl and leaky_relu; not sigmoid
    EXPECT_EQ(run.value(QStringLiteral("partition")).toString(), QStringLiteral("gpu-h200"));
    const QString combined = readFile(QDir(work).filePath(QStringLiteral("sources.jsonl")));
    EXPECT_EQ(combined.count(QLatin1Char('\n')), 3);
    EXPECT_TRUE(combined.contains(QStringLiteral("Activation/leaky_relu.py")));
    EXPECT_FALSE(combined.contains(QStringLiteral("Activation/sigmoid.py")));

    // The panel shows the array: one row per shard, options locked while it runs.
    ASSERT_TRUE(waitUntil([&] { return cell(&rp, 1, 2).startsWith(QStringLiteral("PENDING")); }));
    EXPECT_EQ(rp.statusTable()->rowCount(), 2);
    EXPECT_EQ(cell(&rp, 0, 1), QStringLiteral("1001_0"));
    EXPECT_FALSE(rp.slurmOptionsBox()->isEnabled());
    EXPECT_FALSE(rp.backendBox()->isEnabled());
    rp.cancel();
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 60000));
}

TEST(GuiSlurm, ProgressFromSqueueAndSacctAndMergedResultsInTheViews)
{
    FakeSlurm fake;
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("gui-slurm.sqlite"));
    const QString work = dir.filePath(QStringLiteral("work"));
    QString err;
    ASSERT_TRUE(createDatabase(db, &err)) << err.toStdString();
    MainWindow w;
    ASSERT_TRUE(w.openDatabase(db));
    ASSERT_TRUE(waitUntil([&] { return !w.resultsView()->model()->isLoading(); }));
    EXPECT_EQ(w.resultsView()->model()->rowCount(), 0);
    RunPanel* rp = w.runPanel();
    setUpSlurm(rp, db, writeSubmissions(dir.path()), work);
    EXPECT_EQ(rp->database(), db);
    QSignalSpy fin(rp, &RunPanel::runFinished);
    QSignalSpy merged(rp, &RunPanel::resultsMerged);
    fake.setState(0, QStringLiteral("RUNNING"));
    ASSERT_TRUE(rp->start());
    EXPECT_TRUE(rp->cancelButton()->isEnabled());

    // squeue: shard 0 running on its node, 1 and 2 pending.
    ASSERT_TRUE(waitUntil([&] { return cell(rp, 0, 2) == QStringLiteral("RUNNING") && cell(rp, 2, 2) == QStringLiteral("PENDING"); }))
        << rp->logView()->toPlainText().toStdString();
    EXPECT_EQ(cell(rp, 0, 3), QStringLiteral("fake-node0"));
    EXPECT_TRUE(rp->etaLabel()->text().startsWith(QStringLiteral("2 pending · 1 running · 0 done · 0 failed"))) << rp->etaLabel()->text().toStdString();
    EXPECT_EQ(rp->progressBar()->maximum(), 3);
    EXPECT_EQ(rp->progressBar()->value(), 0);

    // Shard 0 completes: merged at once, the views show its evaluation while the others still run.
    writeShard(work, 0, 3);
    fake.setState(0, QStringLiteral("COMPLETED"));
    fake.setState(1, QStringLiteral("RUNNING"));
    ASSERT_TRUE(waitUntil([&] { return cell(rp, 0, 2).startsWith(QStringLiteral("MERGED")); })) << rp->logView()->toPlainText().toStdString();
    EXPECT_EQ(cell(rp, 0, 4), QStringLiteral("1 (1 pass)"));
    EXPECT_EQ(rp->progressBar()->value(), 1);
    EXPECT_TRUE(rp->etaLabel()->text().contains(QStringLiteral("1 evaluation(s) merged"))) << rp->etaLabel()->text().toStdString();
    EXPECT_GE(merged.count(), 1);
    ASSERT_TRUE(waitUntil([&] { return w.resultsView()->model()->rowCount() == 1 && !w.resultsView()->model()->isLoading(); }, 20000));
    EXPECT_TRUE(rp->isRunning());

    // Shard 2 ends while squeue has already forgotten it: sacct says COMPLETED.
    writeShard(work, 2, 3);
    fake.setState(2, QStringLiteral("gone:COMPLETED"));
    ASSERT_TRUE(waitUntil([&] { return cell(rp, 2, 2).startsWith(QStringLiteral("MERGED")); })) << rp->logView()->toPlainText().toStdString();
    EXPECT_FALSE(fake.callsOf(QStringLiteral("sacct")).isEmpty());
    EXPECT_TRUE(rp->etaLabel()->text().startsWith(QStringLiteral("0 pending · 1 running · 2 done · 0 failed · 2 evaluation(s) merged")))
        << rp->etaLabel()->text().toStdString();
    EXPECT_EQ(cell(rp, 0, 3), QStringLiteral("fake-node0"));  // where the shard ran, from its run's provenance
    w.showTab(MainWindow::ResultsTab);
    ASSERT_TRUE(waitUntil([&] { return w.resultsView()->model()->rowCount() == 2 && !w.resultsView()->model()->isLoading(); }, 20000));
    screenshot(&w, QStringLiteral("main-window-slurm-run"), {1500, 900});
    // The run panel alone at a dock's width, Slurm selected, mid-run.
    rp->setParent(nullptr);
    screenshot(rp, QStringLiteral("run-panel-slurm"), {560, 900});
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("runDock"));
    ASSERT_NE(dock, nullptr);
    dock->setWidget(rp);

    writeShard(work, 1, 3);
    fake.setState(1, QStringLiteral("COMPLETED"));
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 60000)) << rp->logView()->toPlainText().toStdString();
    const auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_TRUE(r.error.isEmpty()) << r.error.toStdString();
    EXPECT_FALSE(r.cancelled);
    EXPECT_EQ(r.backend, QStringLiteral("slurm"));
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.shards, 3);
    EXPECT_EQ(r.mergedShards, 3);
    EXPECT_EQ(r.total, 3);
    EXPECT_EQ(r.passed, 2);
    EXPECT_EQ(r.failed, 1);
    EXPECT_TRUE(r.incompleteShards.isEmpty());
    EXPECT_EQ(rp->progressBar()->value(), 3);
    EXPECT_FALSE(rp->cancelButton()->isEnabled());
    EXPECT_TRUE(fake.callsOf(QStringLiteral("scancel")).isEmpty());

    // The merged results are in the views like a local run's.
    ASSERT_TRUE(waitUntil([&] { return w.resultsView()->model()->rowCount() == 3 && !w.resultsView()->model()->isLoading(); }, 20000));
    auto* m = w.resultsView()->model();
    // The results model is windowed: a row's block is read when the view asks for it, so the rows
    // of the merged results arrive a moment after the count.
    QStringList verdicts;
    EXPECT_TRUE(waitUntil([&] {
        verdicts.clear();
        for (int i = 0; i < 3; ++i)
            verdicts << m->index(i, EvaluationTableModel::VerdictColumn).data().toString();
        return !verdicts.contains(QString()) && !verdicts.contains(QStringLiteral("…"));
    }, 20000)) << verdicts.join(QLatin1Char(',')).toStdString();
    verdicts.sort();
    EXPECT_EQ(verdicts, (QStringList{QStringLiteral("fail"), QStringLiteral("pass"), QStringLiteral("pass")}));
    const auto tanh = w.taskBrowser()->model()->indexOfTask(QStringLiteral("Activation/tanh"));
    ASSERT_TRUE(waitUntil([&] { return tanh.data(TaskTreeModel::EvaluatedRole).toInt() == 1; }, 20000));
    EXPECT_NEAR(tanh.data(TaskTreeModel::PassRateRole).toDouble(), 0.0, 1e-9);
    w.close();
}

TEST(GuiSlurm, CancelScancelsTheArrayTasks)
{
    FakeSlurm fake;
    QTemporaryDir dir;
    const QString work = dir.filePath(QStringLiteral("work"));
    RunPanel rp;
    setUpSlurm(&rp, dir.filePath(QStringLiteral("db.sqlite")), writeSubmissions(dir.path()), work);
    rp.maxJobsBox()->setValue(2);
    fake.setState(0, QStringLiteral("RUNNING"));
    fake.setState(1, QStringLiteral("RUNNING"));
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return cell(&rp, 1, 2) == QStringLiteral("RUNNING"); })) << rp.logView()->toPlainText().toStdString();
    EXPECT_FALSE(rp.resubmitButton()->isEnabled());
    rp.cancelButton()->click();
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 60000)) << rp.logView()->toPlainText().toStdString();
    const auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.exitCode, 130);
    EXPECT_EQ(r.mergedShards, 0);
    // Every array task that was pending or running is scancelled, one by one.
    QStringList scancels = fake.callsOf(QStringLiteral("scancel"));
    scancels.sort();
    EXPECT_EQ(scancels, (QStringList{QStringLiteral("scancel 1001_0"), QStringLiteral("scancel 1001_1"), QStringLiteral("scancel 1001_2")}));
    for (int s = 0; s < 3; ++s)
        EXPECT_TRUE(cell(&rp, s, 2).startsWith(QStringLiteral("CANCELLED"))) << s << ": " << cell(&rp, s, 2).toStdString();
    EXPECT_TRUE(rp.etaLabel()->text().contains(QStringLiteral("cancelled"))) << rp.etaLabel()->text().toStdString();
    EXPECT_TRUE(rp.logView()->toPlainText().contains(QStringLiteral("--resubmit ") + work)) << rp.logView()->toPlainText().toStdString();
    // The run can be continued: its work directory is in the field and Resubmit is enabled.
    EXPECT_EQ(rp.workDirEdit()->text(), work);
    EXPECT_TRUE(rp.resubmitButton()->isEnabled());
}

TEST(GuiSlurm, AFailedShardIsReportedAndResubmitCompletesTheRun)
{
    FakeSlurm fake;
    QTemporaryDir dir;
    const QString work = dir.filePath(QStringLiteral("work"));
    const QString db = dir.filePath(QStringLiteral("db.sqlite"));
    RunPanel rp;
    setUpSlurm(&rp, db, writeSubmissions(dir.path()), work);
    rp.retriesBox()->setValue(1);
    fake.setState(1, QStringLiteral("FAILED"));  // shard 1 fails, and fails again when re-submitted
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return fake.callsOf(QStringLiteral("sbatch")).size() == 1; }));
    writeShard(work, 0, 3);
    writeShard(work, 2, 3);
    fake.setState(0, QStringLiteral("COMPLETED"));
    fake.setState(2, QStringLiteral("COMPLETED"));
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 60000)) << rp.logView()->toPlainText().toStdString();
    auto r = fin.at(0).at(0).value<RunResult>();
    // One automatic re-submission of shard 1 alone, then the report.
    const QStringList sbatch = fake.callsOf(QStringLiteral("sbatch"));
    ASSERT_EQ(sbatch.size(), 2);
    EXPECT_TRUE(sbatch[1].contains(QStringLiteral("--array=1 "))) << sbatch[1].toStdString();
    EXPECT_FALSE(r.cancelled);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.incompleteShards, QList<int>{1});
    EXPECT_EQ(r.mergedShards, 2);
    EXPECT_EQ(r.total, 2);
    EXPECT_TRUE(r.error.contains(QStringLiteral("shard 1/3: its kbx eval did not end"))) << r.error.toStdString();
    EXPECT_TRUE(r.error.contains(QStringLiteral("kbx eval --backend slurm --resubmit ") + work)) << r.error.toStdString();
    EXPECT_TRUE(r.error.contains(QDir(work).filePath(QStringLiteral("logs")))) << r.error.toStdString();
    EXPECT_TRUE(cell(&rp, 1, 2).startsWith(QStringLiteral("FAILED"))) << cell(&rp, 1, 2).toStdString();
    EXPECT_TRUE(cell(&rp, 1, 2).contains(QStringLiteral("no retries left"))) << cell(&rp, 1, 2).toStdString();
    EXPECT_EQ(rp.statusTable()->item(1, 2)->foreground().color(), QColor(205, 50, 45));
    EXPECT_TRUE(cell(&rp, 0, 2).startsWith(QStringLiteral("MERGED")));
    EXPECT_TRUE(rp.etaLabel()->text().contains(QStringLiteral("2 of 3 shards merged"))) << rp.etaLabel()->text().toStdString();
    EXPECT_TRUE(rp.logView()->toPlainText().contains(QStringLiteral("Error: 1 shard(s) did not finish"))) << rp.logView()->toPlainText().toStdString();
    EXPECT_EQ(rp.workDirEdit()->text(), work);
    ASSERT_TRUE(rp.resubmitButton()->isEnabled());

    // Resubmit: kbx finds shards 0 and 2 complete and re-submits shard 1, which now finishes.
    fake.setState(1, QStringLiteral("PENDING"));
    rp.resubmitButton()->click();
    ASSERT_TRUE(rp.isRunning());
    ASSERT_TRUE(waitUntil([&] { return cell(&rp, 1, 1) == QStringLiteral("1003_1") || fin.count() == 2; }))
        << rp.logView()->toPlainText().toStdString();
    EXPECT_TRUE(fake.callsOf(QStringLiteral("sbatch")).value(2).contains(QStringLiteral("--array=1 ")));
    EXPECT_TRUE(cell(&rp, 0, 2).startsWith(QStringLiteral("COMPLETE — complete from an earlier submission"))) << cell(&rp, 0, 2).toStdString();
    EXPECT_EQ(cell(&rp, 1, 2), QStringLiteral("PENDING"));
    writeShard(work, 1, 3);
    fake.setState(1, QStringLiteral("COMPLETED"));
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 2; }, 60000)) << rp.logView()->toPlainText().toStdString();
    r = fin.at(1).at(0).value<RunResult>();
    EXPECT_TRUE(r.error.isEmpty()) << r.error.toStdString();
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.mergedShards, 3);
    EXPECT_TRUE(r.incompleteShards.isEmpty());
    EXPECT_EQ(cell(&rp, 0, 2), QStringLiteral("MERGED — already merged"));
    EXPECT_EQ(cell(&rp, 1, 2), QStringLiteral("MERGED"));
    EXPECT_EQ(cell(&rp, 2, 2), QStringLiteral("MERGED — already merged"));
    EXPECT_EQ(rp.progressBar()->value(), 3);
    // Each shard once in the database (shards 0 and 2 were merged before: "already merged").
    kbx::Store st(db.toStdString());
    EXPECT_EQ(st.query("SELECT count(*) AS n FROM evaluations")[0]["n"].get<int>(), 3);
    EXPECT_EQ(st.query("SELECT count(*) AS n FROM runs")[0]["n"].get<int>(), 3);
}

TEST(GuiSlurm, SbatchRefusedIsReportedAndNothingIsLeftBehind)
{
    FakeSlurm fake;
    fake.refuseSbatch(QStringLiteral("sbatch: error: invalid partition specified: nope"));
    QTemporaryDir dir;
    const QString work = dir.filePath(QStringLiteral("work"));
    RunPanel rp;
    setUpSlurm(&rp, dir.filePath(QStringLiteral("db.sqlite")), writeSubmissions(dir.path()), work);
    rp.partitionEdit()->setText(QStringLiteral("nope"));
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 60000));
    const auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_FALSE(r.cancelled);
    EXPECT_TRUE(r.error.contains(QStringLiteral("sbatch refused the job array"))) << r.error.toStdString();
    EXPECT_TRUE(r.error.contains(QStringLiteral("invalid partition specified: nope"))) << r.error.toStdString();
    EXPECT_EQ(rp.etaLabel()->text(), QStringLiteral("failed"));
    EXPECT_FALSE(QFileInfo::exists(work)) << "the work directory of a run that was never submitted is removed";
    EXPECT_FALSE(rp.resubmitButton()->isEnabled());
}

TEST(GuiSlurm, ABadSourceIsRefusedBeforeAnythingIsSubmitted)
{
    FakeSlurm fake;
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.jsonl"));
    {
        QFile f(bad);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("{\"predict\": \"x\", \"file\": \"NoSuch/task.py\"}\n");
    }
    RunPanel rp;
    setUpSlurm(&rp, dir.filePath(QStringLiteral("db.sqlite")), bad, dir.filePath(QStringLiteral("work")));
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 60000));
    const auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_TRUE(r.error.contains(QStringLiteral("unknown task 'NoSuch/task"))) << r.error.toStdString();
    EXPECT_TRUE(fake.callsOf(QStringLiteral("sbatch")).isEmpty());

    // GPUs on a CPU run: every array task would refuse them, so the panel says so at once.
    rp.clearSources();
    rp.addSources({writeSubmissions(dir.path())});
    rp.findChild<QLineEdit*>(QStringLiteral("runGpus"))->setText(QStringLiteral("0,1"));
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 2; }, 60000));
    const auto g = fin.at(1).at(0).value<RunResult>();
    EXPECT_TRUE(g.error.contains(QStringLiteral("not on CUDA"))) << g.error.toStdString();
    EXPECT_TRUE(fake.callsOf(QStringLiteral("sbatch")).isEmpty());
    EXPECT_FALSE(QFileInfo::exists(dir.filePath(QStringLiteral("work"))));
}

TEST(GuiSlurm, TheWorkbenchDrivesTheRunItselfAndStartsNoKbx)
{
    // Issue 25: the workbench drives the run with core's Slurm driver in its own process. kbx is
    // what the array tasks run on the nodes (written into the job-array script), never started
    // here: $KBX_CLI is a program that records every start of it.
    FakeSlurm fake;
    QTemporaryDir dir;
    const QString ranLog = dir.filePath(QStringLiteral("kbx-started.log"));
    const QString recorder = dir.filePath(QStringLiteral("kbx-recorder"));
    {
        QFile f(recorder);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("#!/bin/sh\necho \"$*\" >> '%1'\nexit 3\n").arg(ranLog).toUtf8());
        f.close();
        ASSERT_TRUE(f.setPermissions(f.permissions() | QFile::ExeOwner));
    }
    ScopedEnv cli("KBX_CLI", recorder.toUtf8());
    const QString work = dir.filePath(QStringLiteral("work"));
    const QString db = dir.filePath(QStringLiteral("db.sqlite"));
    RunPanel rp;
    setUpSlurm(&rp, db, writeSubmissions(dir.path()), work);
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return cell(&rp, 2, 1) == QStringLiteral("1001_2") || fin.count() > 0; }))
        << rp.logView()->toPlainText().toStdString();
    ASSERT_EQ(fin.count(), 0) << rp.logView()->toPlainText().toStdString();
    // The cluster saw the array submitted, with $KBX_CLI as the program of every array task.
    EXPECT_EQ(fake.callsOf(QStringLiteral("sbatch")).size(), 1);
    const QString script = fake.script(1001);
    EXPECT_TRUE(script.contains(recorder + QStringLiteral(" eval "))) << script.toStdString();
    EXPECT_EQ(rp.controller()->slurmCommand().value(0), recorder);
    for (int s = 0; s < 3; ++s) {
        writeShard(work, s, 3);
        fake.setState(s, QStringLiteral("COMPLETED"));
    }
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 60000)) << rp.logView()->toPlainText().toStdString();
    const auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_TRUE(r.error.isEmpty()) << r.error.toStdString();
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.mergedShards, 3);
    EXPECT_EQ(r.total, 3);
    EXPECT_FALSE(QFileInfo::exists(ranLog)) << "kbx was started on the submitting machine: " << readFile(ranLog).toStdString();

    // A kbx that exists only on the nodes: the run is submitted all the same (the log says where
    // the array tasks must find it); cancelled, its array tasks are scancelled.
    const QString nodesOnly = QStringLiteral("/nonexistent-on-this-machine/bin/kbx");
    ScopedEnv cli2("KBX_CLI", nodesOnly.toUtf8());
    const QString work2 = dir.filePath(QStringLiteral("work2"));
    rp.workDirEdit()->setText(work2);
    for (int s = 0; s < 3; ++s)
        fake.setState(s, QStringLiteral("RUNNING"));
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return cell(&rp, 2, 2) == QStringLiteral("RUNNING") || fin.count() > 1; }))
        << rp.logView()->toPlainText().toStdString();
    ASSERT_EQ(fin.count(), 1) << rp.logView()->toPlainText().toStdString();
    EXPECT_TRUE(fake.script(1002).contains(nodesOnly + QStringLiteral(" eval "))) << fake.script(1002).toStdString();
    EXPECT_TRUE(rp.logView()->toPlainText().contains(QStringLiteral("must find it on their nodes"))) << rp.logView()->toPlainText().toStdString();
    rp.cancel();
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 2; }, 60000)) << rp.logView()->toPlainText().toStdString();
    const auto c = fin.at(1).at(0).value<RunResult>();
    EXPECT_TRUE(c.cancelled);
    EXPECT_EQ(c.exitCode, 130);
    QStringList scancels = fake.callsOf(QStringLiteral("scancel"));
    scancels.sort();
    EXPECT_EQ(scancels, (QStringList{QStringLiteral("scancel 1002_0"), QStringLiteral("scancel 1002_1"), QStringLiteral("scancel 1002_2")}));
    EXPECT_FALSE(QFileInfo::exists(ranLog));
}

TEST(GuiSlurm, ARefusedOrEarlyCancelledRunWithSeveralSourcesLeavesNoWorkDirectory)
{
    // Several sources: the panel writes WORK/sources.jsonl into a work directory it made itself,
    // and the driver adds its script, run.json and the secret seed; all of it goes when nothing ran.
    FakeSlurm fake;
    QTemporaryDir dir;
    const QString work = dir.filePath(QStringLiteral("work"));
    RunPanel rp;
    setUpSlurm(&rp, dir.filePath(QStringLiteral("db.sqlite")), writeSubmissions(dir.path()), work);
    rp.addSources({QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/leaky_relu.py")});
    fake.refuseSbatch(QStringLiteral("sbatch: error: Batch job submission failed: Invalid account"));
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 60000));
    const auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_TRUE(r.error.contains(QStringLiteral("Invalid account"))) << r.error.toStdString();
    EXPECT_EQ(fake.callsOf(QStringLiteral("sbatch")).size(), 1);
    EXPECT_FALSE(QFileInfo::exists(work)) << "left behind: " << QDir(work).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).join(QLatin1Char(' ')).toStdString();

    // Cancelled at once (before the driver started): nothing submitted, nothing left.
    QFile::remove(QDir(fake.stateDir()).filePath(QStringLiteral("sbatch.fail")));
    ASSERT_TRUE(rp.start());
    rp.cancel();
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 2; }, 60000));
    const auto c = fin.at(1).at(0).value<RunResult>();
    EXPECT_TRUE(c.cancelled);
    EXPECT_EQ(fake.callsOf(QStringLiteral("sbatch")).size(), 1);
    EXPECT_FALSE(QFileInfo::exists(work));

    // A bad source after a good one: refused while sources.jsonl is half written; that goes too.
    const QString bad = dir.filePath(QStringLiteral("bad.jsonl"));
    {
        QFile f(bad);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("{\"predict\": \"x\", \"file\": \"NoSuch/task.py\"}\n");
    }
    rp.addSources({bad});
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 3; }, 60000));
    const auto b = fin.at(2).at(0).value<RunResult>();
    EXPECT_TRUE(b.error.contains(QStringLiteral("unknown task 'NoSuch/task"))) << b.error.toStdString();
    EXPECT_EQ(fake.callsOf(QStringLiteral("sbatch")).size(), 1);
    EXPECT_FALSE(QFileInfo::exists(work)) << "left behind: " << QDir(work).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).join(QLatin1Char(' ')).toStdString();
}

TEST(GuiSlurm, NoArrayTaskIsLeftBehindByAWaitThatRunsOutOrAClosedPanel)
{
    FakeSlurm fake;
    QTemporaryDir dir;
    fake.setState(0, QStringLiteral("RUNNING"));
    // A wait that runs out cancels the run and waits for its scancel (it never just walks away).
    {
        RunController rc;
        RunRequest req;
        req.backend = QStringLiteral("slurm");
        req.sources = {writeSubmissions(dir.path())};
        req.database = dir.filePath(QStringLiteral("db.sqlite"));
        req.slurm.shards = 2;
        req.slurm.pollSeconds = 0.2;
        req.slurm.workDir = dir.filePath(QStringLiteral("work"));
        QSignalSpy fin(&rc, &RunController::finished);
        QStringList running;
        QObject::connect(&rc, &RunController::shardChanged, [&](const ShardStatus& s) {
            if (s.state == QLatin1String("RUNNING"))
                running << s.jobId;
        });
        ASSERT_TRUE(rc.start(req));
        ASSERT_TRUE(waitUntil([&] { return !running.isEmpty() || fin.count() > 0; }));
        ASSERT_EQ(fin.count(), 0);
        rc.wait(300);
        ASSERT_EQ(fin.count(), 1);  // emitted on the way, as a finished run's
        const auto r = fin.at(0).at(0).value<RunResult>();
        EXPECT_TRUE(r.cancelled);
        EXPECT_EQ(r.exitCode, 130);
        QStringList scancels = fake.callsOf(QStringLiteral("scancel"));
        scancels.sort();
        EXPECT_EQ(scancels, (QStringList{QStringLiteral("scancel 1001_0"), QStringLiteral("scancel 1001_1")}));
    }
    // A panel closed mid-run: its controller cancels the run and waits for the scancel.
    {
        auto rp = std::make_unique<RunPanel>();
        setUpSlurm(rp.get(), dir.filePath(QStringLiteral("db.sqlite")), writeSubmissions(dir.path()), dir.filePath(QStringLiteral("work2")), 2);
        ASSERT_TRUE(rp->start());
        ASSERT_TRUE(waitUntil([&] { return cell(rp.get(), 0, 2) == QStringLiteral("RUNNING"); })) << rp->logView()->toPlainText().toStdString();
        rp.reset();
        QStringList scancels = fake.callsOf(QStringLiteral("scancel")).filter(QStringLiteral("1002_"));
        scancels.sort();
        EXPECT_EQ(scancels, (QStringList{QStringLiteral("scancel 1002_0"), QStringLiteral("scancel 1002_1")}));
    }
}

TEST(GuiSlurm, TheArrayTasksGetTheRequestsTasksDirAndWorkerAndStartInTheDatabasesFolder)
{
    // What the kbx process of the workbench's Slurm runs used to hand sbatch (its environment and
    // working directory, which sbatch passes on to every array task) is handed to it still.
    FakeSlurm fake;
    ScopedEnv noTasks("KBX_TASKS_DIR", std::nullopt);
    ScopedEnv noWorker("KBX_WORKER", std::nullopt);
    QTemporaryDir dir;
    const QString dbDir = dir.filePath(QStringLiteral("results"));
    ASSERT_TRUE(QDir().mkpath(dbDir));
    const QString tasks = QString::fromStdString(kbx::findTasksDir().string());
    const QString worker = QStringLiteral("/opt/on-the-nodes/bin/kbx-worker");
    RunController rc;
    RunRequest req;
    req.backend = QStringLiteral("slurm");
    req.sources = {writeSubmissions(dir.path())};
    req.database = QDir(dbDir).filePath(QStringLiteral("db.sqlite"));
    req.tasksDir = tasks;
    req.worker = worker;
    req.slurm.shards = 1;
    req.slurm.pollSeconds = 0.2;
    req.slurm.workDir = dir.filePath(QStringLiteral("work"));
    QSignalSpy fin(&rc, &RunController::finished);
    ASSERT_TRUE(rc.start(req));
    ASSERT_TRUE(waitUntil([&] { return !fake.callsOf(QStringLiteral("sbatch")).isEmpty() || fin.count() > 0; }));
    ASSERT_EQ(fin.count(), 0);
    ASSERT_TRUE(waitUntil([&] { return !fake.cwd(1001).isEmpty(); }));
    const QStringList env = fake.env(1001);
    EXPECT_TRUE(env.contains(QStringLiteral("KBX_TASKS_DIR=") + tasks)) << env.join(QLatin1Char(' ')).toStdString();
    EXPECT_TRUE(env.contains(QStringLiteral("KBX_WORKER=") + worker)) << env.join(QLatin1Char(' ')).toStdString();
    EXPECT_EQ(fake.cwd(1001), dbDir);
    rc.cancel();
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 60000));
    EXPECT_EQ(fake.callsOf(QStringLiteral("scancel")), QStringList{QStringLiteral("scancel 1001_0")});
}

// Against a real Slurm (opt-in: it submits jobs). Run it on a test cluster, e.g. the one-node
// cluster of scripts/slurm-test.sh while it is up:  KBX_SLURM_GUI_TEST=1 SLURM_CONF=... kbx_gui_slurm_tests
// --gtest_filter='GuiSlurmReal.*'. Needs kbx-worker (CPU evaluation in the array tasks).
TEST(GuiSlurmReal, RunAndCancelOnARealCluster)
{
    if (qEnvironmentVariable("KBX_SLURM_GUI_TEST") != QLatin1String("1"))
        GTEST_SKIP() << "set KBX_SLURM_GUI_TEST=1 to submit jobs to the Slurm cluster this machine's client tools reach";
    if (!slurmUnavailableReason().isEmpty())
        GTEST_SKIP() << slurmUnavailableReason().toStdString();
    const auto worker = kbx::findWorker();
    if (worker.empty() || !std::filesystem::exists(worker))
        GTEST_SKIP() << "kbx-worker not found";
    QTemporaryDir dir(QStringLiteral("/tmp/kbx-gui-slurm-XXXXXX"));
    QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup |
                                          QFile::ReadOther | QFile::ExeOther);
    const QString db = dir.filePath(QStringLiteral("real.sqlite"));
    QString err;
    ASSERT_TRUE(createDatabase(db, &err)) << err.toStdString();
    MainWindow w;
    ASSERT_TRUE(w.openDatabase(db));
    RunPanel* rp = w.runPanel();
    setUpSlurm(rp, db, writeSubmissions(dir.path()), dir.filePath(QStringLiteral("work")), 2);
    rp->pollBox()->setValue(0.5);
    QSignalSpy fin(rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp->start());
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }, 400000)) << rp->logView()->toPlainText().toStdString();
    auto r = fin.at(0).at(0).value<RunResult>();
    EXPECT_TRUE(r.error.isEmpty()) << r.error.toStdString() << "\n" << rp->logView()->toPlainText().toStdString();
    EXPECT_EQ(r.mergedShards, 2);
    EXPECT_EQ(r.total, 3);
    EXPECT_EQ(r.passed, 2);
    EXPECT_EQ(r.failed, 1);
    for (int s = 0; s < 2; ++s) {
        EXPECT_TRUE(cell(rp, s, 2).startsWith(QStringLiteral("MERGED"))) << cell(rp, s, 2).toStdString();
        EXPECT_FALSE(cell(rp, s, 3).isEmpty());  // the node
    }
    ASSERT_TRUE(waitUntil([&] { return w.resultsView()->model()->rowCount() == 3 && !w.resultsView()->model()->isLoading(); }, 20000));
    screenshot(rp, QStringLiteral("run-panel-slurm-real"), {560, 900});

    // Cancel while the array tasks run: kbx scancels them; squeue then shows none pending or running.
    rp->workDirEdit()->setText(dir.filePath(QStringLiteral("work2")));
    ASSERT_TRUE(rp->start());
    ASSERT_TRUE(waitUntil([&] { return cell(rp, 0, 2) == QStringLiteral("RUNNING") || fin.count() == 2; }, 120000))
        << rp->logView()->toPlainText().toStdString();
    ASSERT_EQ(fin.count(), 1);
    const QString job = cell(rp, 0, 1).section(QLatin1Char('_'), 0, 0);
    rp->cancelButton()->click();
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 2; }, 120000)) << rp->logView()->toPlainText().toStdString();
    r = fin.at(1).at(0).value<RunResult>();
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.exitCode, 130);
    QString left;
    ASSERT_TRUE(waitUntil(
        [&] {
            QProcess sq;
            sq.start(QStringLiteral("squeue"), {QStringLiteral("-h"), QStringLiteral("-r"), QStringLiteral("-j"), job, QStringLiteral("-t"),
                                                 QStringLiteral("PENDING,RUNNING,CONFIGURING"), QStringLiteral("-o"), QStringLiteral("%i")});
            sq.waitForFinished(20000);
            left = QString::fromUtf8(sq.readAllStandardOutput()).trimmed();
            return left.isEmpty();
        },
        30000))
        << "array job " << job.toStdString() << " still has tasks: " << left.toStdString();
    w.close();
}

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kbx-tests"));
    QApplication::setApplicationName(QStringLiteral("kbx-workbench-slurm-tests"));
    QTemporaryDir settings;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
