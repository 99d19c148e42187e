// SPDX-License-Identifier: MIT
// Models of the workbench: tree of tasks, results table (incl. a million rows), facets, diff,
// evaluation details, manual labels, run controller (error paths). QAbstractItemModelTester watches
// every model while it loads, sorts and filters.
#include "chartdata.h"
#include "database.h"
#include "evaluationtablemodel.h"
#include "facetmodel.h"
#include "runcontroller.h"
#include "tasktreemodel.h"
#include "textdiff.h"
#include "testutil.h"

#include "catalogue.h"
#include "store.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <algorithm>
#include <optional>

#include <unistd.h>

#include <gtest/gtest.h>

using namespace kbx::gui;
using kbx::gui::test::TestSql;
using kbx::gui::test::waitUntil;

namespace {

using Tester = QAbstractItemModelTester;
constexpr auto kFatal = QAbstractItemModelTester::FailureReportingMode::Fatal;

qint64 scalar(const QString& db, const QString& sql)
{
    return TestSql(db).int64(sql);
}

QString scalarText(const QString& db, const QString& sql)
{
    return TestSql(db).text(sql);
}

class BenchDb : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir.isValid());
        db = kbx::gui::test::copyBenchDatabase(dir.path());
        ASSERT_FALSE(db.isEmpty());
        QString err;
        ASSERT_TRUE(prepareDatabase(db, &err)) << err.toStdString();
    }
    QTemporaryDir dir;
    QString db;
};

}  // namespace

TEST(TextDiff, LcsDiffMarksRemovedAndAddedLines)
{
    const auto d = diffTexts(QStringLiteral("a\nb\nc\nd\n"), QStringLiteral("a\nx\nc\nd\ne\n"));
    ASSERT_EQ(d.size(), 6);
    EXPECT_EQ(d[0], (DiffLine{DiffLine::Same, 1, 1, QStringLiteral("a")}));
    EXPECT_EQ(d[1], (DiffLine{DiffLine::Removed, 2, 0, QStringLiteral("b")}));
    EXPECT_EQ(d[2], (DiffLine{DiffLine::Added, 0, 2, QStringLiteral("x")}));
    EXPECT_EQ(d[3], (DiffLine{DiffLine::Same, 3, 3, QStringLiteral("c")}));
    EXPECT_EQ(d[4], (DiffLine{DiffLine::Same, 4, 4, QStringLiteral("d")}));
    EXPECT_EQ(d[5], (DiffLine{DiffLine::Added, 0, 5, QStringLiteral("e")}));
    EXPECT_TRUE(diffTexts({}, {}).isEmpty());
    const auto all = diffTexts(QStringLiteral("p\nq"), QString());
    ASSERT_EQ(all.size(), 2);
    EXPECT_EQ(all[0].kind, DiffLine::Removed);
    // A moved block: LCS keeps the longest common part.
    const auto mv = diffLines({"1", "2", "3", "4"}, {"3", "4", "1", "2"});
    int same = 0;
    for (const auto& l : mv)
        same += l.kind == DiffLine::Same;
    EXPECT_EQ(same, 2);
}

TEST(FailureMarkers, TracebackFramesOfTheCandidateAndEvidenceLines)
{
    const QString tb = QStringLiteral(
        "Traceback (most recent call last):\n"
        "  File \"/work/harness/candidate.py\", line 149, in run\n"  // not the candidate's file name pattern? it is: candidate.py
        "  File \"/tmp/kbx-run/candidates/00046/candidate.py\", line 17, in relu\n"
        "  File \"/usr/lib/python3.11/inspect.py\", line 1567, in getcallargs\n");
    const auto m = failureMarkers(QJsonObject{{"line", 17}}, tb, QStringLiteral("TypeError: boom"));
    EXPECT_TRUE(m.contains(17));
    EXPECT_EQ(m.value(17), QStringLiteral("TypeError: boom"));
    EXPECT_FALSE(m.contains(1567));
    EXPECT_TRUE(m.contains(149));  // a file called candidate.py outside the harness
    const auto h = failureMarkers({}, QStringLiteral("  File \"/work/main/tasks/worker/python/kbx_harness/candidate.py\", line 37, in run\n"), {});
    EXPECT_TRUE(h.isEmpty());
    const auto s = failureMarkers(QJsonObject{{"static", QJsonObject{{"line", 10}, {"message", "'(' was never closed"}}}}, {}, {});
    EXPECT_EQ(s.value(10), QStringLiteral("'(' was never closed"));
}

TEST(TaskTree, FifteenCategoriesWithTasks)
{
    TaskTreeModel model;
    Tester tester(&model, kFatal);
    QString err;
    ASSERT_TRUE(model.loadCatalogue({}, &err)) << err.toStdString();
    EXPECT_EQ(model.rowCount(), 15);
    int tasks = 0;
    for (int c = 0; c < model.rowCount(); ++c) {
        const auto cat = model.index(c, 0);
        EXPECT_TRUE(cat.data(TaskTreeModel::IsCategoryRole).toBool());
        EXPECT_GT(model.rowCount(cat), 0) << cat.data().toString().toStdString();
        EXPECT_EQ(model.index(c, TaskTreeModel::TasksColumn).data().toInt(), model.rowCount(cat));
        tasks += model.rowCount(cat);
    }
    EXPECT_EQ(tasks, int(model.catalogue()->tasks().size()));
    const auto relu = model.indexOfTask(QStringLiteral("Activation/relu"));
    ASSERT_TRUE(relu.isValid());
    EXPECT_EQ(relu.data().toString(), QStringLiteral("relu"));
    EXPECT_EQ(relu.parent().data().toString(), QStringLiteral("Activation"));
    EXPECT_FALSE(relu.data(TaskTreeModel::IsCategoryRole).toBool());
}

TEST_F(BenchDb, TaskTreePassRatesMatchTheDatabase)
{
    TaskTreeModel model;
    Tester tester(&model, kFatal);
    ASSERT_TRUE(model.loadCatalogue());
    QSignalSpy ready(&model, &TaskTreeModel::statsReady);
    model.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return ready.count() > 0 && !model.isLoading(); }));
    // Latest evaluation per submission and device: relu has several fixture variants.
    const qint64 n = scalar(db, "SELECT count(*) FROM evaluation_rows e JOIN (SELECT max(id) id FROM evaluation_rows GROUP BY submission_id, gpu) l "
                                "ON l.id = e.id WHERE task_id = 'Activation/relu'");
    const qint64 p = scalar(db, "SELECT count(*) FROM evaluation_rows e JOIN (SELECT max(id) id FROM evaluation_rows GROUP BY submission_id, gpu) l "
                                "ON l.id = e.id WHERE task_id = 'Activation/relu' AND verdict = 'pass'");
    ASSERT_GT(n, 1);
    const auto relu = model.indexOfTask(QStringLiteral("Activation/relu"));
    EXPECT_EQ(model.index(relu.row(), TaskTreeModel::EvaluatedColumn, relu.parent()).data().toInt(), n);
    EXPECT_NEAR(relu.data(TaskTreeModel::PassRateRole).toDouble(), double(p) / n, 1e-9);
    const auto act = model.categoryStats(QStringLiteral("Activation"));
    EXPECT_GE(act.evaluated, n);
    EXPECT_TRUE(model.index(relu.parent().row(), TaskTreeModel::PassColumn).data().toString().contains(QLatin1Char('%')));
    // Counts from 10,000 on are shortened in the cell (96.8k) and exact in the tooltip.
    {
        const QModelIndex pass = model.index(relu.parent().row(), TaskTreeModel::PassColumn);
        const int evaluated = model.index(relu.parent().row(), TaskTreeModel::EvaluatedColumn).data().toInt();
        EXPECT_TRUE(pass.data(Qt::ToolTipRole).toString().contains(QStringLiteral(" of %1 (").arg(evaluated)))
            << pass.data(Qt::ToolTipRole).toString().toStdString();
        if (evaluated < 10000) {  // braces: EXPECT_* expands to an if/else of its own
            EXPECT_TRUE(pass.data().toString().endsWith(QStringLiteral("/%1)").arg(evaluated))) << pass.data().toString().toStdString();
        }
    }

    // A method without evaluations empties the statistics.
    ready.clear();
    model.setMethod(QStringLiteral("no-such-method"));
    ASSERT_TRUE(waitUntil([&] { return ready.count() > 0 && !model.isLoading(); }));
    EXPECT_EQ(relu.data(TaskTreeModel::EvaluatedRole).toInt(), 0);
    EXPECT_FALSE(relu.data(TaskTreeModel::PassRateRole).isValid());
    ready.clear();
    model.setMethod(QStringLiteral("fixtures"));
    model.setRound(0);
    ASSERT_TRUE(waitUntil([&] { return ready.count() > 0 && !model.isLoading(); }));
    EXPECT_EQ(relu.data(TaskTreeModel::EvaluatedRole).toInt(), n);
}

TEST_F(BenchDb, FacetsListMethodsRoundsGpusAndClasses)
{
    FacetListModel methods(FacetListModel::Method), rounds(FacetListModel::Round), gpus(FacetListModel::Gpu),
        classes(FacetListModel::FailureClass), cats(FacetListModel::Category), stages(FacetListModel::Stage);
    Tester t1(&methods, kFatal), t2(&rounds, kFatal), t3(&gpus, kFatal), t4(&classes, kFatal), t5(&cats, kFatal), t6(&stages, kFatal);
    for (auto* m : {&methods, &rounds, &gpus, &classes, &cats, &stages})
        m->setDatabase(db);
    ASSERT_TRUE(waitUntil([&] {
        for (auto* m : {&methods, &rounds, &gpus, &classes, &cats, &stages})
            if (m->isLoading())
                return false;
        return true;
    }));
    EXPECT_EQ(methods.rowCount(), 2);  // All + fixtures
    EXPECT_EQ(methods.index(1).data().toString(), QStringLiteral("fixtures"));
    EXPECT_FALSE(methods.valueAt(0).isValid());
    EXPECT_EQ(rounds.rowCount(), 2);
    EXPECT_EQ(gpus.index(1).data().toString(), QStringLiteral("CPU (Triton interpreter)"));
    EXPECT_EQ(classes.rowCount(), 2 + 17);
    EXPECT_EQ(classes.rowOf(QStringLiteral("value_mismatch")), classes.rowOf(QStringLiteral("empty")) + 14);
    EXPECT_EQ(stages.rowCount(), 4);
    EXPECT_GE(cats.rowCount(), 3);
    EXPECT_GE(cats.rowOf(QStringLiteral("Activation")), 1);
}

TEST_F(BenchDb, EvaluationTableLoadsSortsAndFilters)
{
    EvaluationTableModel model;
    Tester tester(&model, kFatal);
    model.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }));
    const qint64 total = scalar(db, "SELECT count(*) FROM evaluations");
    EXPECT_EQ(model.totalCount(), total);
    EXPECT_EQ(model.rowCount(), total);  // one page holds them all
    EXPECT_FALSE(model.canFetchMore({}));
    EXPECT_EQ(model.index(0, EvaluationTableModel::IdColumn).data().toLongLong(), scalar(db, "SELECT min(id) FROM evaluations"));
    EXPECT_EQ(model.index(0, EvaluationTableModel::MethodColumn).data().toString(), QStringLiteral("fixtures"));

    model.sort(EvaluationTableModel::TaskColumn, Qt::DescendingOrder);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }));
    EXPECT_EQ(model.index(0, EvaluationTableModel::TaskColumn).data().toString(), scalarText(db, "SELECT max(task_id) FROM evaluations"));
    for (int r = 1; r < model.rowCount(); ++r)
        ASSERT_GE(model.index(r - 1, 1).data().toString(), model.index(r, 1).data().toString());

    EvaluationFilter f;
    f.failureClass = QStringLiteral("value_mismatch");
    model.setFilter(f);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }));
    EXPECT_EQ(model.rowCount(), scalar(db, "SELECT count(*) FROM evaluations WHERE failure_class = 'value_mismatch'"));
    EXPECT_EQ(model.index(0, EvaluationTableModel::ClassColumn).data().toString(), QStringLiteral("value_mismatch"));

    f = {};
    f.stage = QStringLiteral("call");
    model.setFilter(f);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }));
    EXPECT_EQ(model.rowCount(), scalar(db, "SELECT count(*) FROM evaluations WHERE call_ok = 0"));
    EXPECT_GT(model.rowCount(), 3);

    f = {};
    f.failureClass = QString("");  // passed
    f.category = QStringLiteral("Activation");
    model.setFilter(f);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }));
    EXPECT_EQ(model.rowCount(), scalar(db, "SELECT count(*) FROM evaluations WHERE failure_class IS NULL AND task_id LIKE 'Activation/%'"));

    f = {};
    f.text = QStringLiteral("SIGSEGV");
    model.setFilter(f);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }));
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.index(0, EvaluationTableModel::ClassColumn).data().toString(), QStringLiteral("crash"));
    EXPECT_EQ(model.totalCount(), 1);
}

// A million evaluations, made in one INSERT ... SELECT from a recursive CTE: the table stays fluid
// (first page, counts, next page, sort on an indexed and on a joined column, filters).
TEST(MillionRows, TableStaysFluid)
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("million.sqlite"));
    QElapsedTimer build;
    build.start();
    { kbx::Store store(db.toStdString()); }
    {
        TestSql c(db);
        c.exec(QStringLiteral(R"SQL(
BEGIN;
INSERT INTO methods(name) VALUES('alpha'), ('beta');
INSERT INTO runs(started_at, status, device, provenance, public_seeds, secret_seed, args) VALUES
 ('2026-01-01T00:00:00Z', 'finished', 'cpu', '{}', '[0,1]', 7, '{}'),
 ('2026-01-02T00:00:00Z', 'finished', 'cuda', '{"devices":[{"name":"NVIDIA H200"}]}', '[0,1]', 8, '{}');
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 59)
INSERT INTO candidates(task_id, code_hash, code, created_at)
SELECT (CASE i % 15 WHEN 0 THEN 'Activation' WHEN 1 THEN 'Convolution' WHEN 2 THEN 'Fusion' WHEN 3 THEN 'Index'
        WHEN 4 THEN 'LinearAlgebra' WHEN 5 THEN 'Loss' WHEN 6 THEN 'Math' WHEN 7 THEN 'MatrixMultiply'
        WHEN 8 THEN 'Normalization' WHEN 9 THEN 'Optimizer' WHEN 10 THEN 'Pooling' WHEN 11 THEN 'Quantization'
        WHEN 12 THEN 'Random' WHEN 13 THEN 'Reduce' ELSE 'SpatialOps' END) || '/t' || printf('%02d', i),
       'h' || i, 'def f(): pass', '2026-01-01T00:00:00Z' FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 239)
INSERT INTO submissions(candidate_id, method_id, round, origin) SELECT 1 + i % 60, 1 + (i / 60) % 2, i / 120, 'gen' FROM k;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
INSERT INTO evaluations(run_id, submission_id, task_id, verdict, call_ok, exe_ok, failure_class, failure_detail, evidence,
                        stage_seconds, taxonomy_version, started_at, finished_at)
SELECT 1 + i % 2, s.id, c.task_id,
       CASE WHEN i % 3 = 0 THEN 'pass' ELSE 'fail' END,
       CASE WHEN i % 3 = 0 OR i % 5 < 3 THEN 1 ELSE 0 END,
       CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END,
       CASE WHEN i % 3 = 0 THEN NULL ELSE CASE i % 5 WHEN 0 THEN 'value_mismatch' WHEN 1 THEN 'shape_mismatch'
            WHEN 2 THEN 'nan_inf_mismatch' WHEN 3 THEN 'runtime_error' ELSE 'timeout' END END,
       CASE WHEN i % 3 = 0 THEN '' ELSE 'detail ' || i END, '{}', '{}', 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z'
FROM n JOIN submissions s ON s.id = 1 + n.i % 240 JOIN candidates c ON c.id = s.candidate_id;
COMMIT;
)SQL"));
    }
    const auto buildMs = build.elapsed();
    ASSERT_EQ(scalar(db, "SELECT count(*) FROM evaluations"), 1000000);
    std::cerr << "built 1M rows in " << buildMs << " ms\n";

    EvaluationTableModel model;
    Tester tester(&model, kFatal);
    model.setPageSize(200);
    QElapsedTimer t;
    t.start();
    model.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return model.rowCount() > 0; }));
    const auto firstPageMs = t.elapsed();
    EXPECT_LT(firstPageMs, 3000) << "first page took " << firstPageMs << " ms";
    EXPECT_EQ(model.rowCount(), 200);
    EXPECT_TRUE(model.canFetchMore({}));
    EXPECT_EQ(model.index(0, EvaluationTableModel::IdColumn).data().toLongLong(), 1);
    EXPECT_EQ(model.index(199, EvaluationTableModel::IdColumn).data().toLongLong(), 200);
    EXPECT_EQ(model.index(1, EvaluationTableModel::TaskColumn).data().toString(), scalarText(db, "SELECT task_id FROM evaluations WHERE id = 2"));
    EXPECT_EQ(model.index(1, EvaluationTableModel::GpuColumn).data().toString(), QStringLiteral("CPU (Triton interpreter)"));
    EXPECT_EQ(model.index(0, EvaluationTableModel::GpuColumn).data().toString(), QStringLiteral("NVIDIA H200"));
    ASSERT_TRUE(waitUntil([&] { return model.totalCount() >= 0; }, 60000));
    EXPECT_EQ(model.totalCount(), 1000000);

    model.fetchMore({});
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }));
    EXPECT_EQ(model.rowCount(), 400);
    EXPECT_EQ(model.index(399, EvaluationTableModel::IdColumn).data().toLongLong(), 400);

    // Sort on an indexed column (task_id), descending: keyset pages continue where the last ended.
    t.restart();
    model.sort(EvaluationTableModel::TaskColumn, Qt::DescendingOrder);
    ASSERT_TRUE(waitUntil([&] { return model.rowCount() > 0; }));
    EXPECT_LT(t.elapsed(), 5000);
    const QString maxTask = scalarText(db, "SELECT max(task_id) FROM evaluations");
    EXPECT_EQ(model.index(0, EvaluationTableModel::TaskColumn).data().toString(), maxTask);
    model.fetchMore({});
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }, 60000));
    ASSERT_EQ(model.rowCount(), 400);
    for (int r = 1; r < model.rowCount(); ++r) {
        const auto a = model.index(r - 1, EvaluationTableModel::TaskColumn).data().toString();
        const auto b = model.index(r, EvaluationTableModel::TaskColumn).data().toString();
        ASSERT_TRUE(a > b || (a == b && model.evaluationId(r - 1) > model.evaluationId(r))) << r;
    }

    // Sort on a joined column (method) needs a full sort in SQLite: still off the GUI thread.
    model.sort(EvaluationTableModel::MethodColumn, Qt::AscendingOrder);
    ASSERT_TRUE(waitUntil([&] { return model.rowCount() > 0; }, 60000));
    EXPECT_EQ(model.index(0, EvaluationTableModel::MethodColumn).data().toString(), QStringLiteral("alpha"));

    // Filters: method (half), category + failure class, text.
    EvaluationFilter f;
    f.method = QStringLiteral("beta");
    model.setFilter(f);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }, 60000));
    EXPECT_EQ(model.totalCount(), scalar(db, "SELECT count(*) FROM evaluation_rows WHERE method = 'beta'"));
    EXPECT_GT(model.totalCount(), 400000);
    for (int r = 0; r < model.rowCount(); ++r)
        ASSERT_EQ(model.index(r, EvaluationTableModel::MethodColumn).data().toString(), QStringLiteral("beta"));
    f = {};
    f.category = QStringLiteral("Loss");
    f.failureClass = QStringLiteral("value_mismatch");
    f.round = 1;
    model.setFilter(f);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }, 60000));
    const qint64 expect = scalar(db, "SELECT count(*) FROM evaluation_rows WHERE task_id LIKE 'Loss/%' AND failure_class = 'value_mismatch' AND round = 1");
    EXPECT_GT(expect, 0);
    EXPECT_EQ(model.totalCount(), expect);
    EXPECT_EQ(model.rowCount(), qMin<qint64>(expect, 200));
    EXPECT_TRUE(model.index(0, EvaluationTableModel::TaskColumn).data().toString().startsWith(QStringLiteral("Loss/")));
    f = {};
    f.text = QStringLiteral("detail 99999");
    model.setFilter(f);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }, 60000));
    const qint64 textExpect = scalar(db, "SELECT count(*) FROM evaluations WHERE failure_detail LIKE '%detail 99999%'");
    EXPECT_GT(textExpect, 3);
    EXPECT_EQ(model.totalCount(), textExpect);
}

TEST_F(BenchDb, EvaluationDetailsMarkersAndManualLabels)
{
    // The runtime_error of relu (TypeError at candidate line 17).
    const qint64 id = scalar(db, "SELECT id FROM evaluations WHERE failure_detail LIKE '%missing 1 required positional%'");
    ASSERT_GT(id, 0);
    QString err;
    const auto d = loadEvaluation(db, id, &err);
    ASSERT_TRUE(d.valid) << err.toStdString();
    EXPECT_EQ(d.taskId, QStringLiteral("Activation/relu"));
    EXPECT_EQ(d.failureClass, QStringLiteral("runtime_error"));
    EXPECT_EQ(d.stage, QStringLiteral("call"));
    EXPECT_TRUE(d.markers.contains(17));
    EXPECT_TRUE(d.traceback.contains(QStringLiteral("Traceback")));
    EXPECT_EQ(d.failedCase, QStringLiteral("edge/special_values_f32"));
    EXPECT_TRUE(d.code.contains(QStringLiteral("@triton.jit")));
    EXPECT_EQ(d.publicSeeds, QStringLiteral("[0,1]"));

    const qint64 vm = scalar(db, "SELECT id FROM evaluations WHERE failure_class = 'value_mismatch'");
    const auto v = loadEvaluation(db, vm);
    ASSERT_TRUE(v.valid);
    EXPECT_GT(v.numericEvidence.value("max_abs_err").toDouble(), 0);
    EXPECT_GT(v.numericEvidence.value("mismatch_fraction").toDouble(), 0);

    EXPECT_EQ(labelAgreement(db).labelled, 0);
    ASSERT_TRUE(setManualLabel(db, id, QStringLiteral("runtime_error"), QStringLiteral("agreed"), &err)) << err.toStdString();
    ASSERT_TRUE(setManualLabel(db, vm, QStringLiteral("nan_inf_mismatch"), QStringLiteral("really NaN"), &err));
    EXPECT_FALSE(setManualLabel(db, vm, QStringLiteral("not_a_class"), {}, &err));
    EXPECT_TRUE(err.contains(QStringLiteral("unknown failure class")));
    const auto a = labelAgreement(db);
    EXPECT_EQ(a.labelled, 2);
    EXPECT_EQ(a.agree, 1);
    EXPECT_EQ(loadEvaluation(db, vm).manualClass, QStringLiteral("nan_inf_mismatch"));
    EXPECT_EQ(loadEvaluation(db, vm).manualNote, QStringLiteral("really NaN"));
    ASSERT_TRUE(setManualLabel(db, vm, QString(), QString(), &err));  // removed
    EXPECT_EQ(labelAgreement(db).labelled, 1);
    EXPECT_FALSE(loadEvaluation(db, 999999, &err).valid);
}

TEST(Database, EvaluationDetailsCarryThePerfShapesInTheOrderTimed)
{
    // The demo holds H200 runs with the perf stage: an evaluation's timings rows come with it, in
    // the order they were timed, medians and samples intact; an untimed evaluation has none.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("demo.sqlite"));
    ASSERT_TRUE(QFile::copy(QStringLiteral(KBX_SOURCE_DIR "/resources/demo/demo.sqlite"), db));
    QFile::setPermissions(db, QFile::ReadOwner | QFile::WriteOwner);
    const qint64 timed = scalar(db, "SELECT min(evaluation_id) FROM timings");
    ASSERT_GT(timed, 0);
    const qint64 n = scalar(db, QStringLiteral("SELECT count(*) FROM timings WHERE evaluation_id = %1").arg(timed));
    QString err;
    const auto d = loadEvaluation(db, timed, &err);
    ASSERT_TRUE(d.valid) << err.toStdString();
    ASSERT_EQ(d.timings.size(), n);
    ASSERT_GE(n, 2);
    const auto stored = TestSql(db).rows(QStringLiteral("SELECT shape, candidate_ms FROM timings WHERE evaluation_id = %1 ORDER BY id").arg(timed));
    ASSERT_EQ(stored.size(), d.timings.size());
    for (qsizetype i = 0; i < d.timings.size(); ++i) {
        const auto& t = d.timings[i];
        EXPECT_EQ(t.shape, stored[i][0].toString());
        EXPECT_DOUBLE_EQ(t.candidateMs, stored[i][1].toDouble());
        EXPECT_GT(t.baselineMs, 0.0);
        EXPECT_TRUE(t.samples.contains(QStringLiteral("speedup"))) << t.shape.toStdString();
    }
    const qint64 untimed = scalar(db, "SELECT min(id) FROM evaluations WHERE id NOT IN (SELECT evaluation_id FROM timings)");
    ASSERT_GT(untimed, 0);
    EXPECT_TRUE(loadEvaluation(db, untimed).timings.isEmpty());
}

TEST(Database, RefusesWhatIsNotAKbxDatabase)
{
    QTemporaryDir dir;
    QString err;
    EXPECT_FALSE(prepareDatabase(dir.filePath("missing.sqlite"), &err));
    EXPECT_TRUE(err.contains(QStringLiteral("does not exist")));
    QFile f(dir.filePath("text.sqlite"));
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("this is not a database, just some text that is long enough to be read as a header......");
    f.close();
    EXPECT_FALSE(prepareDatabase(f.fileName(), &err));
    EXPECT_FALSE(err.isEmpty());
}

namespace {

/// Sets environment variables for a scope (an empty value unsets), restoring them afterwards.
class EnvGuard {
public:
    void set(const char* name, const QString& value)
    {
        if (!m_saved.contains(name))
            m_saved.insert(name, qEnvironmentVariableIsSet(name) ? std::optional<QByteArray>(qgetenv(name)) : std::nullopt);
        if (value.isEmpty())
            qunsetenv(name);
        else
            qputenv(name, value.toUtf8());
    }
    ~EnvGuard()
    {
        for (auto it = m_saved.cbegin(); it != m_saved.cend(); ++it) {
            if (it.value())
                qputenv(it.key().constData(), *it.value());
            else
                qunsetenv(it.key().constData());
        }
    }

private:
    QMap<QByteArray, std::optional<QByteArray>> m_saved;
};

QByteArray sha256(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

const QString kDemo = QStringLiteral(KBX_SOURCE_DIR "/resources/demo/demo.sqlite");

/// For a scope, this process's real and effective uid/gid become nobody's (65534) when it runs as
/// root, so that file permissions apply (access() checks the real ids); the saved ids stay root's,
/// so the destructor can switch back. Not root: nothing changes (permissions apply anyway).
class Unprivileged {
public:
    Unprivileged()
    {
        if (::geteuid() != 0)
            return;
        m_switched = ::setresgid(65534, 65534, 0) == 0 && ::setresuid(65534, 65534, 0) == 0;
    }
    ~Unprivileged()
    {
        if (m_switched) {
            [[maybe_unused]] const int a = ::setresuid(0, 0, 0);
            [[maybe_unused]] const int b = ::setresgid(0, 0, 0);
        }
    }
    bool ok() const { return ::geteuid() != 0; }

private:
    bool m_switched = false;
};

}  // namespace

// Installed, the demo database is read-only (PREFIX/share/kbx/demo.sqlite); the workbench opens the
// user's copy of it, made once, kept (labels survive) and made afresh when the installed one changes.
TEST(Database, InstalledDemoIsOpenedAsTheUsersOwnCopy)
{
    ASSERT_TRUE(QFileInfo(kDemo).isFile());
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString share = dir.filePath(QStringLiteral("prefix/share/kbx"));
    ASSERT_TRUE(QDir().mkpath(share));
    const QString installed = share + QStringLiteral("/demo.sqlite");
    ASSERT_TRUE(QFile::copy(kDemo, installed));
    QFile::setPermissions(installed, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther);
    const QByteArray installedHash = sha256(installed);
    EnvGuard env;
    env.set("KBX_DATA_DIR", share);
    env.set("XDG_DATA_HOME", dir.filePath(QStringLiteral("data")));

    EXPECT_EQ(installedDemoDatabasePath(), installed);
    const QString copy = dir.filePath(QStringLiteral("data/kbx/demo.sqlite"));
    EXPECT_EQ(userDemoDatabasePath(), copy);
    QString err;
    ASSERT_EQ(demoDatabasePath(&err), copy) << err.toStdString();
    EXPECT_TRUE(QFileInfo(copy).isWritable());
    EXPECT_TRUE(QFileInfo::exists(copy + QStringLiteral(".origin")));
    // The installed file named anywhere (also through another spelling of its path) means the copy.
    EXPECT_EQ(resolveDatabasePath(installed), copy);
    EXPECT_EQ(resolveDatabasePath(share + QStringLiteral("/../kbx/demo.sqlite")), copy);
    EXPECT_EQ(resolveDatabasePath(kDemo), kDemo);
    EXPECT_EQ(resolveDatabasePath(QString()), QString());

    ASSERT_TRUE(prepareDatabase(copy, &err)) << err.toStdString();
    const qint64 labelled = labelAgreement(copy).labelled;
    const qint64 evaluation = scalar(copy, QStringLiteral("SELECT min(id) FROM evaluations"));
    ASSERT_TRUE(setManualLabel(copy, evaluation, QStringLiteral("runtime_error"), QStringLiteral("mine"), &err)) << err.toStdString();
    EXPECT_EQ(labelAgreement(copy).labelled, labelled + 1);
    // Opening the copy never touched the installed file (no journal beside it either).
    EXPECT_EQ(sha256(installed), installedHash);
    EXPECT_FALSE(QFileInfo::exists(installed + QStringLiteral("-wal")));
    EXPECT_FALSE(QFileInfo::exists(installed + QStringLiteral("-shm")));

    // Again: the same copy, with the label.
    ASSERT_EQ(demoDatabasePath(&err), copy);
    EXPECT_EQ(labelAgreement(copy).labelled, labelled + 1);

    // A package upgrade brings another demo: the copy is made afresh, a stale journal removed.
    QFile::setPermissions(installed, QFile::ReadOwner | QFile::WriteOwner);
    {
        QFile f(installed);
        ASSERT_TRUE(f.open(QIODevice::ReadWrite));
        ASSERT_TRUE(f.setFileTime(QDateTime::currentDateTimeUtc().addSecs(3600), QFileDevice::FileModificationTime));
    }
    {
        QFile wal(copy + QStringLiteral("-wal"));
        ASSERT_TRUE(wal.open(QIODevice::WriteOnly));
        wal.write("stale journal of the old copy");
    }
    ASSERT_EQ(demoDatabasePath(&err), copy) << err.toStdString();
    EXPECT_FALSE(QFileInfo::exists(copy + QStringLiteral("-wal")));
    EXPECT_EQ(sha256(copy), installedHash);
    ASSERT_TRUE(prepareDatabase(copy, &err)) << err.toStdString();
    EXPECT_EQ(labelAgreement(copy).labelled, labelled);

    // Not installed (this test runs in a build tree): the source tree's demo, no copy.
    env.set("KBX_DATA_DIR", QString());
    EXPECT_TRUE(installedDemoDatabasePath().isEmpty());
    EXPECT_EQ(demoDatabasePath(), QFileInfo(kDemo).canonicalFilePath());
    EXPECT_EQ(resolveDatabasePath(installed), installed);
}

// A database this user cannot write is refused with a message that says so (not SQLite's "attempt to
// write a readonly database"), for viewing and as a run's target; the installed demo's message
// points to the user's copy. Runs as nobody where the test runs as root.
TEST(Database, ReadOnlyDatabasesAreRefusedWithAMessage)
{
    QTemporaryDir dir(QStringLiteral("/tmp/kbx-models-ro-XXXXXX"));
    ASSERT_TRUE(dir.isValid());
    QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup |
                                          QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
    const QString ro = dir.filePath(QStringLiteral("share/kbx"));
    ASSERT_TRUE(QDir().mkpath(ro));
    const QString db = ro + QStringLiteral("/demo.sqlite");
    ASSERT_TRUE(QFile::copy(kDemo, db));
    QString err;
    ASSERT_TRUE(prepareDatabase(db, &err)) << err.toStdString();  // writable: fine
    EXPECT_TRUE(isDatabaseWritable(db));
    const auto rx = QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther;
    QFile::setPermissions(db, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther);
    QFile::setPermissions(ro, rx);
    QFile::setPermissions(dir.filePath(QStringLiteral("share")), rx);
    EnvGuard env;
    env.set("KBX_DATA_DIR", QString());
    env.set("XDG_DATA_HOME", dir.filePath(QStringLiteral("data")));
    {
        Unprivileged nobody;
        ASSERT_TRUE(nobody.ok()) << "cannot run as an ordinary user";
        EXPECT_FALSE(isDatabaseWritable(db));
        EXPECT_FALSE(prepareDatabase(db, &err));
        EXPECT_TRUE(err.contains(QStringLiteral("read-only for you"))) << err.toStdString();
        EXPECT_TRUE(err.contains(QStringLiteral("copy it to a place you can write"))) << err.toStdString();
        EXPECT_FALSE(createDatabase(db, &err));
        EXPECT_TRUE(err.contains(QStringLiteral("choose a database you can write"))) << err.toStdString();
        EXPECT_FALSE(createDatabase(ro + QStringLiteral("/new.sqlite"), &err));
        EXPECT_TRUE(err.contains(QStringLiteral("is not writable for you"))) << err.toStdString();
        EXPECT_FALSE(QFileInfo::exists(ro + QStringLiteral("/new.sqlite")));
        // Named as the installed demo, the message says where the user's copy is.
        env.set("KBX_DATA_DIR", ro);
        EXPECT_FALSE(prepareDatabase(db, &err));
        EXPECT_TRUE(err.contains(QStringLiteral("installed demo database"))) << err.toStdString();
        EXPECT_TRUE(err.contains(dir.filePath(QStringLiteral("data/kbx/demo.sqlite")))) << err.toStdString();
    }
    EXPECT_FALSE(QFileInfo::exists(db + QStringLiteral("-wal")));
    QFile::setPermissions(dir.filePath(QStringLiteral("share")), rx | QFile::WriteOwner);
    QFile::setPermissions(ro, rx | QFile::WriteOwner);
}

TEST(RunControllerTest, RefusesEmptyRequestsAndReportsBadSources)
{
    RunController rc;
    QString err;
    EXPECT_FALSE(rc.start({}, &err));
    EXPECT_FALSE(err.isEmpty());
    QTemporaryDir dir;
    RunRequest req;
    req.database = dir.filePath("r.sqlite");
    req.sources << dir.filePath("no-such-file.jsonl");
    QSignalSpy fin(&rc, &RunController::finished);
    QSignalSpy log(&rc, &RunController::logMessage);
    ASSERT_TRUE(rc.start(req, &err));
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }));
    const auto res = fin.at(0).at(0).value<RunResult>();
    EXPECT_FALSE(res.error.isEmpty());
    EXPECT_TRUE(res.error.contains(QStringLiteral("no-such-file"))) << res.error.toStdString();
    EXPECT_FALSE(rc.isRunning());
    EXPECT_EQ(formatDuration(65), QStringLiteral("1m05s"));

    // A task selection that leaves nothing to evaluate stops before any worker starts.
    RunRequest sel;
    sel.database = dir.filePath("r.sqlite");
    sel.sources << QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/relu.py");
    sel.tasks << QStringLiteral("Math");
    fin.clear();
    ASSERT_TRUE(rc.start(sel, &err));
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }));
    const auto r2 = fin.at(0).at(0).value<RunResult>();
    EXPECT_TRUE(r2.error.contains(QStringLiteral("no submission for the chosen tasks"))) << r2.error.toStdString();
    EXPECT_EQ(formatDuration(3.2), QStringLiteral("3s"));
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// Issue 24: the task tree counts by the one rule (latest evaluation of every submission per device),
// so a submission evaluated on the CPU and then on a GPU counts once on each device, re-evaluations on
// one device replace the earlier ones, and the device filter picks one device.
TEST(TaskTree, CountsPerSubmissionAndDeviceWithADeviceFilter)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("two-devices.sqlite"));
    { kbx::Store store(db.toStdString()); }  // the schema
    {
        TestSql c(db);
        for (const char* sql : {
                 "INSERT INTO methods(id, name) VALUES(1, 'm')",
                 "INSERT INTO candidates(id, task_id, code_hash, code, created_at) VALUES(1, 'Activation/relu', 'h1', 'x', 'now')",
                 "INSERT INTO submissions(id, candidate_id, method_id, round) VALUES(1, 1, 1, 0), (2, 1, 1, 1)",
                 "INSERT INTO runs(id, started_at, status, device, provenance, public_seeds, secret_seed, args) VALUES"
                 " (1, 'now', 'finished', 'cpu', '{}', '[]', 0, '{}'),"
                 " (2, 'now', 'finished', 'cuda', '{\"devices\":[{\"name\":\"NVIDIA H200\"}]}', '[]', 0, '{}')",
                 // submission 1: CPU fail, then GPU pass twice (the second replaces the first);
                 // submission 2 (round 1): GPU fail.
                 "INSERT INTO evaluations(id, run_id, submission_id, task_id, verdict, call_ok, exe_ok, evidence, stage_seconds, "
                 "taxonomy_version, started_at, finished_at) VALUES"
                 " (1, 1, 1, 'Activation/relu', 'fail', 0, 0, '{}', '{}', 1, 'now', 'now'),"
                 " (2, 2, 1, 'Activation/relu', 'fail', 1, 0, '{}', '{}', 1, 'now', 'now'),"
                 " (3, 2, 1, 'Activation/relu', 'pass', 1, 1, '{}', '{}', 1, 'now', 'now'),"
                 " (4, 2, 2, 'Activation/relu', 'fail', 1, 0, '{}', '{}', 1, 'now', 'now')"}) {
            c.exec(QString::fromLatin1(sql));
        }
    }
    TaskTreeModel model;
    Tester tester(&model, kFatal);
    ASSERT_TRUE(model.loadCatalogue());
    QSignalSpy ready(&model, &TaskTreeModel::statsReady);
    model.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return ready.count() > 0 && !model.isLoading(); }));
    EXPECT_EQ(model.devices(), (QStringList{QStringLiteral("CPU (Triton interpreter)"), QStringLiteral("NVIDIA H200")}));
    // All devices: CPU #1, GPU #3 (not #2), GPU #4 = 3 (the old rule, latest per submission only: 2).
    auto relu = model.taskStats(QStringLiteral("Activation/relu"));
    EXPECT_EQ(relu.evaluated, 3);
    EXPECT_EQ(relu.callOk, 2);
    EXPECT_EQ(relu.passed, 1);
    EXPECT_EQ(model.totalStats().evaluated, 3);
    EXPECT_EQ(model.headerData(TaskTreeModel::EvaluatedColumn, Qt::Horizontal, Qt::ToolTipRole).toString().contains(
                  TaskTreeModel::countingRule()),
              true);

    ready.clear();
    model.setGpu(QStringLiteral("CPU (Triton interpreter)"));
    ASSERT_TRUE(waitUntil([&] { return ready.count() > 0 && !model.isLoading(); }));
    relu = model.taskStats(QStringLiteral("Activation/relu"));
    EXPECT_EQ(relu.evaluated, 1);
    EXPECT_EQ(relu.passed, 0);

    ready.clear();
    model.setGpu(QStringLiteral("NVIDIA H200"));
    model.setRound(0);
    ASSERT_TRUE(waitUntil([&] { return ready.count() > 0 && !model.isLoading(); }));
    relu = model.taskStats(QStringLiteral("Activation/relu"));
    EXPECT_EQ(relu.evaluated, 1);
    EXPECT_EQ(relu.passed, 1);
    EXPECT_EQ(model.categoryStats(QStringLiteral("Activation")).evaluated, 1);
}

// Issue 24, item 8: the windowed results table reaches the last of 200,000 rows (Ctrl+End, the scroll
// bar) without reading the rows between, keeps a bounded cache, and its Speedup column follows the
// rule of kbx report (pass only; one shape the ratio itself, more the geometric mean; NULL otherwise).
TEST(WindowedTable, ReachesTheLastRowAndComputesTheReportsSpeedup)
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("window.sqlite"));
    QElapsedTimer built;
    built.start();
    { kbx::Store store(db.toStdString()); }
    {
        TestSql c(db);
        c.exec(QStringLiteral(R"SQL(
BEGIN;
INSERT INTO methods(id, name) VALUES(1, 'm');
INSERT INTO runs(id, started_at, status, device, provenance, public_seeds, secret_seed, args) VALUES
 (1, '2026-01-01T00:00:00Z', 'finished', 'cuda', '{"devices":[{"name":"NVIDIA H200"}]}', '[]', 0, '{}');
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 99)
INSERT INTO candidates(id, task_id, code_hash, code, created_at) SELECT i + 1, 'Math/t' || printf('%02d', i), 'h' || i, 'x', 'now' FROM k;
INSERT INTO submissions(id, candidate_id, method_id, round) SELECT id, id, 1, 0 FROM candidates;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
INSERT INTO evaluations(run_id, submission_id, task_id, verdict, call_ok, exe_ok, evidence, stage_seconds, taxonomy_version,
                        started_at, finished_at)
SELECT 1, 1 + i % 100, 'Math/t' || printf('%02d', i % 100), CASE WHEN i % 2 THEN 'pass' ELSE 'fail' END, 1, i % 2, '{}', '{}', 1,
       'now', 'now' FROM n;
-- Run 2, the last five: 200001 (pass): one shape, 2.0 / 0.5 = 4 exactly; 200003 (pass): shapes 2x and 8x,
-- geometric mean 4; 200002 (fail): timed but no speedup; 200004 (pass) untimed; 200005 (pass): a shape
-- without a candidate time is left out: 3x.
INSERT INTO runs(id, started_at, status, device, provenance, public_seeds, secret_seed, args) VALUES
 (2, '2026-01-02T00:00:00Z', 'finished', 'cuda', '{"devices":[{"name":"NVIDIA H200"}]}', '[]', 0, '{}');
INSERT INTO evaluations(id, run_id, submission_id, task_id, verdict, call_ok, exe_ok, evidence, stage_seconds, taxonomy_version,
                        started_at, finished_at) VALUES
 (200001, 2, 2, 'Math/t01', 'pass', 1, 1, '{}', '{}', 1, 'now', 'now'), (200002, 2, 3, 'Math/t02', 'fail', 1, 0, '{}', '{}', 1, 'now', 'now'),
 (200003, 2, 4, 'Math/t03', 'pass', 1, 1, '{}', '{}', 1, 'now', 'now'), (200004, 2, 5, 'Math/t04', 'pass', 1, 1, '{}', '{}', 1, 'now', 'now'),
 (200005, 2, 6, 'Math/t05', 'pass', 1, 1, '{}', '{}', 1, 'now', 'now');
INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms) VALUES
 (200001, 's', 0.5, 2.0), (200003, 'a', 1.0, 2.0), (200003, 'b', 1.0, 8.0), (200002, 's', 1.0, 5.0), (200005, 'a', 1.0, 3.0),
 (200005, 'b', NULL, 3.0);
COMMIT;
)SQL"));
    }
    std::cerr << "windowed: built 200k rows in " << built.elapsed() << " ms\n";
    EvaluationTableModel model;
    // QAbstractItemModelTester walks every row on every signal: it watches the small table below, not
    // the 200,000 rows (where it alone would take half a second per block).
    std::unique_ptr<Tester> tester;
    model.setWindowed(true);
    QElapsedTimer t;
    t.start();
    model.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return model.totalCount() >= 0 && !model.isLoading(); }));
    std::cerr << "windowed: first block and count in " << t.elapsed() << " ms\n";
    EXPECT_EQ(model.rowCount(), 200005);  // every row, read or not
    EXPECT_FALSE(model.canFetchMore({}));
    EXPECT_TRUE(model.isRowLoaded(0));
    EXPECT_FALSE(model.isRowLoaded(200004));
    EXPECT_EQ(model.index(0, EvaluationTableModel::RunColumn).data().toLongLong(), 1);

    // The last row: asked for, read from the end (not 200,000 rows through).
    t.restart();
    EXPECT_EQ(model.index(200004, EvaluationTableModel::TaskColumn).data().toString(), QStringLiteral("…"));
    ASSERT_TRUE(waitUntil([&] { return model.isRowLoaded(200004); }, 5000));
    std::cerr << "windowed: the last row in " << t.elapsed() << " ms\n";
    EXPECT_LT(t.elapsed(), 3000);
    EXPECT_EQ(model.evaluationId(200004), 200005);
    EXPECT_EQ(model.index(200004, EvaluationTableModel::RunColumn).data().toLongLong(), 2);
    // Speedups (the rule of kbx report).
    auto speedup = [&](int row) { return model.index(row, EvaluationTableModel::SpeedupColumn).data(EvaluationTableModel::SpeedupRole); };
    EXPECT_DOUBLE_EQ(speedup(200000).toDouble(), 4.0);
    EXPECT_TRUE(speedup(200001).isNull());
    EXPECT_NEAR(speedup(200002).toDouble(), 4.0, 1e-12);
    EXPECT_TRUE(speedup(200003).isNull());
    EXPECT_NEAR(speedup(200004).toDouble(), 3.0, 1e-12);
    EXPECT_TRUE(speedup(0).isNull());
    EXPECT_EQ(model.index(200000, EvaluationTableModel::SpeedupColumn).data().toString(), QStringLiteral("4.000×"));
    // The middle, and the rows just above it (read backwards from the block below).
    model.prefetch(100000, 100000);
    ASSERT_TRUE(waitUntil([&] { return model.isRowLoaded(100000) && !model.isLoading(); }, 5000));
    EXPECT_EQ(model.evaluationId(100000), 100001);
    ASSERT_FALSE(model.isRowLoaded(99839));  // the block above (rows 99584..99839)
    model.prefetch(99839, 99839);
    ASSERT_TRUE(waitUntil([&] { return model.isRowLoaded(99839) && !model.isLoading(); }, 5000));
    EXPECT_EQ(model.evaluationId(99839), 99840);
    EXPECT_EQ(model.evaluationId(99584), 99585);
    // The cache stays bounded however far one scrolls.
    model.setMaxCachedBlocks(4);
    for (int row = 0; row < 200000; row += 19997)
        model.prefetch(row, row);
    ASSERT_TRUE(waitUntil([&] { return !model.isLoading(); }, 8000));
    EXPECT_LE(model.cachedBlocks(), 4);
    std::cerr << "windowed: up to the bounded cache " << t.elapsed() << " ms\n";
    // Sorted by speedup, descending (run 2, the timed ones): the 4x ones, then 3x, then none.
    EvaluationFilter run2;
    run2.runId = 2;
    model.setFilter(run2);
    ASSERT_TRUE(waitUntil([&] { return model.totalCount() >= 0 && !model.isLoading(); }));
    tester = std::make_unique<Tester>(&model, kFatal);
    model.sort(EvaluationTableModel::SpeedupColumn, Qt::DescendingOrder);
    ASSERT_TRUE(waitUntil([&] { return model.totalCount() >= 0 && !model.isLoading(); }));
    ASSERT_EQ(model.rowCount(), 5);
    EXPECT_EQ(std::min(model.evaluationId(0), model.evaluationId(1)), 200001);  // one of the 4x is a rounded geometric mean
    EXPECT_EQ(std::max(model.evaluationId(0), model.evaluationId(1)), 200003);
    EXPECT_EQ(model.evaluationId(2), 200005);
    EXPECT_TRUE(speedup(3).isNull());
    model.sort(EvaluationTableModel::RunColumn, Qt::AscendingOrder);
    ASSERT_TRUE(waitUntil([&] { return model.totalCount() >= 0 && !model.isLoading(); }));
    EXPECT_EQ(model.evaluationId(4), 200005);
    tester.reset();
    model.setFilter({});
    model.sort(EvaluationTableModel::IdColumn, Qt::AscendingOrder);
    ASSERT_TRUE(waitUntil([&] { return model.totalCount() >= 0 && !model.isLoading(); }));
    std::cerr << "windowed: sorted by speedup " << t.elapsed() << " ms\n";
    // New results: the rows stay (no reset) and the count follows.
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    {
        TestSql c(db);
        c.exec(QStringLiteral("INSERT INTO evaluations(run_id, submission_id, task_id, verdict, call_ok, exe_ok, evidence, stage_seconds, "
                              "taxonomy_version, started_at, finished_at) SELECT run_id, submission_id, task_id, verdict, call_ok, exe_ok, "
                              "evidence, stage_seconds, taxonomy_version, started_at, finished_at FROM evaluations WHERE id <= 10"));
    }
    model.refresh();
    ASSERT_TRUE(waitUntil([&] { return model.totalCount() == 200015 && !model.isLoading(); }));
    EXPECT_EQ(model.rowCount(), 200015);
    EXPECT_EQ(reset.count(), 0);
    // The CSV export of the same rows and speedups.
    const QString csv = dir.filePath(QStringLiteral("top.csv"));
    QString err;
    EXPECT_EQ(EvaluationTableModel::writeCsv(db, {}, EvaluationTableModel::IdColumn, Qt::AscendingOrder, {200003, 200001}, csv, &err), 2)
        << err.toStdString();
    QFile f(csv);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const auto lines = f.readAll().trimmed().split('\n');
    ASSERT_EQ(lines.size(), 3);
    EXPECT_TRUE(lines[1].startsWith("200003,Math/t03,m,0,NVIDIA H200,pass,pass,")) << lines[1].toStdString();
    EXPECT_TRUE(lines[1].contains(",2,4,")) << lines[1].toStdString();  // run 2, speedup 4
    EXPECT_TRUE(lines[2].startsWith("200001,"));
}

TEST(WindowedTable, RowsAppendedByNewResultsAreReadAfterARefresh)
{
    // New results land (a merged Slurm shard, a finished candidate): refresh() keeps the rows on show
    // and must read the new ones too, not leave them empty because a block was read before the count.
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("grow.sqlite"));
    { kbx::Store store(db.toStdString()); }
    auto add = [&](int id) {
        TestSql c(db);
        c.exec(QStringLiteral("INSERT OR IGNORE INTO methods(id, name) VALUES(1, 'm');"
                              "INSERT OR IGNORE INTO runs(id, started_at, status, device, provenance, public_seeds, secret_seed, args) "
                              "VALUES(1, 'now', 'finished', 'cpu', '{}', '[]', 0, '{}');"
                              "INSERT INTO candidates(id, task_id, code_hash, code, created_at) VALUES(%1, 'Math/t%1', 'h%1', 'x', 'now');"
                              "INSERT INTO submissions(id, candidate_id, method_id, round) VALUES(%1, %1, 1, 0);"
                              "INSERT INTO evaluations(id, run_id, submission_id, task_id, verdict, call_ok, exe_ok, evidence, "
                              "stage_seconds, taxonomy_version, started_at, finished_at) VALUES(%1, 1, %1, 'Math/t%1', 'pass', 1, 1, "
                              "'{}', '{}', 1, 'now', 'now');")
                   .arg(id));
    };
    add(1);
    add(2);
    EvaluationTableModel model;
    model.setWindowed(true);
    model.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return model.totalCount() == 2 && !model.isLoading(); }));
    for (int r = 0; r < 2; ++r)
        ASSERT_TRUE(waitUntil([&] { return !model.index(r, EvaluationTableModel::VerdictColumn).data().toString().isEmpty(); }));
    for (int k = 3; k <= 5; ++k) {
        add(k);
        model.refresh();
        ASSERT_TRUE(waitUntil([&] { return model.totalCount() == k && !model.isLoading(); }));
        EXPECT_EQ(model.rowCount(), k);
        for (int r = 0; r < k; ++r)
            EXPECT_TRUE(waitUntil([&] { return model.index(r, EvaluationTableModel::VerdictColumn).data().toString() == QStringLiteral("pass"); }, 3000))
                << "row " << r << " of " << k;
    }
}

// The Charts tab's data (models/chartdata.h): a missing database says so; drawn figures of a
// database of 10 rounds are bounded to the latest kMaxDrawnRounds (the filters name them), tables
// and a round filter are not; the statistics come now when asked for, else later from the facts kept.
TEST(ChartData, BoundsDrawnFiguresToTheLatestRoundsAndLoadsStatisticsOnRequest)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const auto missing = loadChartData(dir.filePath(QStringLiteral("none.sqlite")), {}, true, 0, true);
    EXPECT_FALSE(missing.ok);
    EXPECT_TRUE(missing.error.contains(QStringLiteral("no such database"))) << missing.error.toStdString();
    EXPECT_FALSE(QFile::exists(dir.filePath(QStringLiteral("none.sqlite")))) << "a missing database must not be created";

    const QString db = dir.filePath(QStringLiteral("rounds.sqlite"));
    constexpr int kRounds = 10;
    {
        kbx::Store st(db.toStdString());
        const auto run = st.beginRun("cpu", {{"host", "h"}}, {0}, 1, {});
        const auto method = st.ensureMethod("m");
        for (int round = 0; round < kRounds; ++round)
            for (const std::string task : {"Activation/relu", "Math/sqrt"}) {
                kbx::EvaluationRecord r;
                r.runId = run;
                r.submissionId = st.ensureSubmission(st.ensureCandidate(task, task + std::to_string(round)).first, method, round, "t");
                r.taskId = task;
                r.pass = round % 2 == 0;
                r.callOk = true;
                r.exeOk = r.pass;
                if (!r.pass)
                    r.failureClass = "value_mismatch";
                r.startedAt = r.finishedAt = "2026-12-01T00:00:00Z";
                st.addEvaluation(r);
            }
        st.finishRun(run, "finished", {});
    }
    const auto drawn = loadChartData(db, {}, true, 0, true);
    ASSERT_TRUE(drawn.ok) << drawn.error.toStdString();
    EXPECT_EQ(drawn.roundsBefore, std::size_t(kRounds));
    EXPECT_EQ(drawn.data.filters.rounds, (std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9}));
    EXPECT_EQ(drawn.data.rowCount, 2 * kMaxDrawnRounds);
    EXPECT_EQ(drawn.choices.rounds.size(), std::size_t(kRounds)) << "the choices are every round of the database";
    EXPECT_FALSE(drawn.data.stats);
    ASSERT_TRUE(drawn.facts);
    const auto stats = loadChartStatistics(db, drawn.data.filters, drawn.facts);
    ASSERT_TRUE(stats);
    EXPECT_EQ(stats->methods.size(), kMaxDrawnRounds) << "one method summary per (method, round) drawn";

    const auto table = loadChartData(db, {}, false, kbx::stats::BundleMethods, false);
    ASSERT_TRUE(table.ok) << table.error.toStdString();
    EXPECT_EQ(table.roundsBefore, 0u);
    EXPECT_EQ(table.data.rowCount, std::size_t(2 * kRounds));
    ASSERT_TRUE(table.data.stats);
    EXPECT_EQ(table.data.stats->methods.size(), std::size_t(kRounds));
    EXPECT_FALSE(table.facts);

    kbx::analysis::Filters round0;
    round0.rounds = {0};
    const auto chosen = loadChartData(db, round0, false, 0, true);
    ASSERT_TRUE(chosen.ok);
    EXPECT_EQ(chosen.roundsBefore, 0u);
    EXPECT_EQ(chosen.data.rowCount, 2u);
}
