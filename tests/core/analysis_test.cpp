// SPDX-License-Identifier: MIT
#include "analysis.h"
#include "query_reports.h"
#include "store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace fs = std::filesystem;
namespace an = kbx::analysis;

namespace {

fs::path tempDb(const std::string& name)
{
    auto p = fs::temp_directory_path() / ("kbx-analysis-" + name + "-" + std::to_string(getpid()) + ".sqlite");
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(p.string() + suffix);
    return p;
}

/// A small database with exactly known figures:
///   run 1 (cpu), run 2 (cuda "NVIDIA H200"); methods A and B; categories Activation and Math.
///   A r0 relu: pass on run 1 (CPU), runtime_error on run 2 (GPU): both count, one per device (issue 24)
///   A r0 gelu: value_mismatch (manually relabelled nan_inf_mismatch)
///   A r0 add : syntax_error
///   A r1 gelu: pass, speedup 3
///   B r0 relu: pass, speedups 2 and 4 on two shapes (geometric mean sqrt(8))
///   B r0 gelu: pass, speedup 0.5
///   B r0 add : value_mismatch
class AnalysisDb : public ::testing::Test {
protected:
    void SetUp() override
    {
        path = tempDb(::testing::UnitTest::GetInstance()->current_test_info()->name());
        store = std::make_unique<kbx::Store>(path);
        const auto a = store->ensureMethod("A");
        const auto b = store->ensureMethod("B");
        run1 = store->beginRun("cpu", {{"torch", "2.13"}}, {0}, 7, {});
        run2 = store->beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 8, {});
        auto sub = [&](std::int64_t m, const std::string& task, const std::string& code, int round) {
            return store->ensureSubmission(store->ensureCandidate(task, code).first, m, round, "test");
        };
        const auto aRelu = sub(a, "Activation/relu", "a relu", 0);
        const auto aGelu = sub(a, "Activation/gelu", "a gelu", 0);
        const auto aAdd = sub(a, "Math/add", "a add", 0);
        const auto aGelu1 = sub(a, "Activation/gelu", "a gelu r1", 1);
        const auto bRelu = sub(b, "Activation/relu", "b relu", 0);
        const auto bGelu = sub(b, "Activation/gelu", "b gelu", 0);
        const auto bAdd = sub(b, "Math/add", "b add", 0);
        add(run1, aRelu, "Activation/relu", "pass");
        aGeluEval = add(run1, aGelu, "Activation/gelu", "value_mismatch");
        add(run1, aAdd, "Math/add", "syntax_error");
        const auto e1 = add(run1, aGelu1, "Activation/gelu", "pass");
        const auto e2 = add(run1, bRelu, "Activation/relu", "pass");
        const auto e3 = add(run1, bGelu, "Activation/gelu", "pass");
        add(run1, bAdd, "Math/add", "value_mismatch");
        const auto e4 = add(run2, aRelu, "Activation/relu", "runtime_error");
        timing(e1, 1.0, 3.0);
        timing(e2, 1.0, 2.0);
        timing(e2, 2.0, 8.0);
        timing(e3, 2.0, 1.0);
        timing(e4, 1.0, 100.0);  // a failed evaluation: never a speedup
        store->setManualLabel(aGeluEval, "nan_inf_mismatch", "inf in the reference", "test");
    }
    void TearDown() override
    {
        store.reset();
        for (const char* suffix : {"", "-wal", "-shm"})
            fs::remove(path.string() + suffix);
    }
    std::int64_t add(std::int64_t run, std::int64_t sub, const std::string& task, const std::string& cls)
    {
        kbx::EvaluationRecord r;
        r.runId = run;
        r.submissionId = sub;
        r.taskId = task;
        r.pass = cls == "pass";
        r.exeOk = r.pass;
        r.callOk = r.pass || cls == "value_mismatch" || cls == "nan_inf_mismatch";
        if (!r.pass)
            r.failureClass = cls;
        r.startedAt = r.finishedAt = kbx::nowIso8601();
        return store->addEvaluation(r);
    }
    void timing(std::int64_t eval, double candMs, double baseMs)
    {
        store->query("INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms) VALUES(" +
                     std::to_string(eval) + ", 's', " + std::to_string(candMs) + ", " + std::to_string(baseMs) + ")");
    }

    fs::path path;
    std::unique_ptr<kbx::Store> store;
    std::int64_t run1 = 0, run2 = 0, aGeluEval = 0;
};

}  // namespace

TEST(Analysis, WilsonIntervalKnownValues)
{
    auto w = an::wilson(1, 4);
    EXPECT_NEAR(w.lo, 0.04559, 1e-4);
    EXPECT_NEAR(w.hi, 0.69936, 1e-4);
    w = an::wilson(10, 10);
    EXPECT_NEAR(w.lo, 0.72247, 1e-4);
    EXPECT_NEAR(w.hi, 1.0, 1e-12);
    w = an::wilson(0, 0);
    EXPECT_EQ(w.lo, 0.0);
    EXPECT_EQ(w.hi, 1.0);
}

TEST(Analysis, QuantilesAndBoxStats)
{
    EXPECT_DOUBLE_EQ(an::quantile({1, 2, 3, 4}, 0.25), 1.75);
    EXPECT_DOUBLE_EQ(an::quantile({1, 2, 3, 4}, 0.5), 2.5);
    auto b = an::boxStats({100, 3, 1, 4, 2});
    EXPECT_DOUBLE_EQ(b.q1, 2);
    EXPECT_DOUBLE_EQ(b.median, 3);
    EXPECT_DOUBLE_EQ(b.q3, 4);
    EXPECT_DOUBLE_EQ(b.lowerWhisker, 1);
    EXPECT_DOUBLE_EQ(b.upperWhisker, 4);
    ASSERT_EQ(b.outliers.size(), 1u);
    EXPECT_DOUBLE_EQ(b.outliers[0], 100);
}

TEST(Analysis, LogGridHitsDecadesExactly)
{
    auto g = an::logGrid();
    ASSERT_EQ(g.size(), 41u);
    EXPECT_DOUBLE_EQ(g.front(), 0.1);
    EXPECT_DOUBLE_EQ(g[20], 1.0);
    EXPECT_DOUBLE_EQ(g.back(), 10.0);
    for (std::size_t i = 1; i < g.size(); ++i)
        EXPECT_GT(g[i], g[i - 1]);
}

TEST_F(AnalysisDb, ChoicesListWhatIsThere)
{
    auto c = an::choices(*store);
    EXPECT_EQ(c.methods, (std::vector<std::string>{"A", "B"}));
    EXPECT_EQ(c.rounds, (std::vector<int>{0, 1}));
    EXPECT_EQ(c.gpus, (std::vector<std::string>{"CPU (Triton interpreter)", "NVIDIA H200"}));
    EXPECT_EQ(c.categories, (std::vector<std::string>{"Activation", "Math"}));
    EXPECT_EQ(c.runs, (std::vector<std::int64_t>{run1, run2}));
}

TEST_F(AnalysisDb, LatestEvaluationPerSubmissionCountsOncePerDevice)
{
    auto rows = an::loadRows(*store, {});
    ASSERT_EQ(rows.size(), 8u);  // 7 submissions, A r0 relu on two devices
    int withSpeedup = 0;
    for (const auto& r : rows)
        withSpeedup += r.speedup.has_value();
    EXPECT_EQ(withSpeedup, 3);
}

TEST_F(AnalysisDb, CorrectnessMatrixExactNumbers)
{
    auto d = an::compute(*store, {});
    const auto& m = d.correctness;
    ASSERT_EQ(m.categories, (std::vector<std::string>{"Activation", "Math"}));
    // A was evaluated in two rounds: one column per round, never pooled (issue 23); B in one.
    ASSERT_EQ(m.methods, (std::vector<std::string>{"A · r0", "A · r1", "B"}));
    // Activation x A r0: relu (pass on the CPU, runtime_error on the GPU), gelu (value_mismatch);
    // A r1: gelu (pass)
    EXPECT_EQ(m.cells[0][0].call.n, 3);
    EXPECT_EQ(m.cells[0][0].call.k, 2);
    EXPECT_EQ(m.cells[0][0].exe.k, 1);
    EXPECT_EQ(m.cells[0][1].call.n, 1);
    EXPECT_EQ(m.cells[0][1].exe.k, 1);
    EXPECT_EQ(m.cells[1][0].call.n, 1);
    EXPECT_EQ(m.cells[1][0].call.k, 0);
    EXPECT_EQ(m.cells[1][1].call.n, 0);  // A r1 has no Math task
    EXPECT_EQ(m.cells[0][2].call.k, 2);
    EXPECT_EQ(m.cells[0][2].exe.k, 2);
    EXPECT_EQ(m.cells[1][2].call.k, 1);
    EXPECT_EQ(m.cells[1][2].exe.k, 0);
    EXPECT_EQ(m.totals[0].exe.n, 4);
    EXPECT_EQ(m.totals[0].exe.k, 1);
    EXPECT_EQ(m.totals[1].exe.n, 1);
    EXPECT_EQ(m.totals[1].exe.k, 1);
    EXPECT_NEAR(m.totals[2].exe.ci().lo, 0.2077, 1e-4);  // 2 of 3
    EXPECT_EQ(m.totals[2].call.k, 3);
    EXPECT_EQ(m.totals[2].exe.k, 2);
    EXPECT_EQ(d.runs, (std::vector<std::int64_t>{run1, run2}));

    ASSERT_EQ(d.compile.size(), 3u);
    EXPECT_EQ(d.compile[0].method, "A · r0");
    EXPECT_EQ(d.compile[0].call.k, 2);
    EXPECT_EQ(d.compile[0].call.n, 4);
    EXPECT_EQ(d.compile[2].exe.k, 2);
    EXPECT_EQ(d.compile[2].exe.n, 3);
}

TEST_F(AnalysisDb, GpuFilterPicksThatRunsEvaluation)
{
    an::Filters f;
    f.gpus = {"CPU (Triton interpreter)"};
    auto m = an::compute(*store, f).correctness;
    EXPECT_EQ(m.cells[0][0].call.k, 2);  // A r0: relu passed on the CPU run, gelu ran (value_mismatch)
    EXPECT_EQ(m.cells[0][0].exe.k, 1);
    f.gpus = {"NVIDIA H200"};
    auto d = an::compute(*store, f);
    EXPECT_EQ(d.rowCount, 1u);
    EXPECT_EQ(d.runs, (std::vector<std::int64_t>{run2}));
    EXPECT_EQ(f.describe(), "method=all; round=all; gpu=NVIDIA H200; category=all");
}

TEST_F(AnalysisDb, MethodRoundCategoryFilters)
{
    an::Filters f;
    f.methods = {"B"};
    EXPECT_EQ(an::loadRows(*store, f).size(), 3u);
    f = {};
    f.rounds = {1};
    EXPECT_EQ(an::loadRows(*store, f).size(), 1u);
    f = {};
    f.categories = {"Math"};
    f.methods = {"A", "B"};
    auto d = an::compute(*store, f);
    EXPECT_EQ(d.rowCount, 2u);
    EXPECT_EQ(d.correctness.categories, (std::vector<std::string>{"Math"}));
    f.methods = {"O'Brien"};  // quoting
    EXPECT_EQ(an::loadRows(*store, f).size(), 0u);
}

TEST_F(AnalysisDb, SpeedupsAndFastP)
{
    auto d = an::compute(*store, {});
    ASSERT_TRUE(an::hasTimings(d.speedup));
    ASSERT_EQ(d.speedup.size(), 3u);  // A r0, A r1, B
    EXPECT_TRUE(d.speedup[0].speedups.empty());
    EXPECT_EQ(d.speedup[1].speedups, (std::vector<double>{3.0}));
    ASSERT_EQ(d.speedup[2].speedups.size(), 2u);
    EXPECT_DOUBLE_EQ(d.speedup[2].speedups[0], 0.5);
    EXPECT_NEAR(d.speedup[2].speedups[1], std::sqrt(8.0), 1e-12);
    EXPECT_EQ(d.speedup[1].correct, 1);
    EXPECT_EQ(d.speedup[1].total, 1);

    ASSERT_EQ(d.fastp.size(), 3u);
    EXPECT_EQ(d.fastp[0].n, 4);
    EXPECT_DOUBLE_EQ(d.fastp[0].fraction[0], 0.0);
    const auto& a = d.fastp[1];
    const auto& b = d.fastp[2];
    EXPECT_EQ(a.n, 1);
    EXPECT_DOUBLE_EQ(a.fraction[0], 1.0);   // p = 0.1
    EXPECT_DOUBLE_EQ(a.fraction[20], 1.0);  // p = 1
    EXPECT_DOUBLE_EQ(a.fraction[40], 0.0);  // p = 10
    EXPECT_DOUBLE_EQ(b.fraction[0], 2.0 / 3.0);
    EXPECT_DOUBLE_EQ(b.fraction[20], 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(b.fraction[40], 0.0);
}

TEST_F(AnalysisDb, NoTimingsIsEmptyNotAnError)
{
    store->query("DELETE FROM timings");
    auto d = an::compute(*store, {});
    EXPECT_FALSE(an::hasTimings(d.speedup));
    ASSERT_EQ(d.fastp.size(), 3u);
    EXPECT_DOUBLE_EQ(d.fastp[0].fraction[0], 0.0);
}

TEST_F(AnalysisDb, TaxonomyAutomaticAndReviewed)
{
    auto t = an::compute(*store, {}).taxonomyByCategory;
    EXPECT_EQ(t.groups, (std::vector<std::string>{"Activation", "Math"}));
    ASSERT_EQ(t.classes,
              (std::vector<std::string>{"syntax_error", "runtime_error", "nan_inf_mismatch", "value_mismatch"}));
    EXPECT_EQ(t.automatic[0], (std::vector<int>{0, 1, 0, 1}));
    EXPECT_EQ(t.automatic[1], (std::vector<int>{1, 0, 0, 1}));
    ASSERT_TRUE(t.reviewed.has_value());
    EXPECT_EQ((*t.reviewed)[0], (std::vector<int>{0, 1, 1, 0}));
    EXPECT_EQ((*t.reviewed)[1], (std::vector<int>{1, 0, 0, 1}));
    EXPECT_EQ(t.evaluations, (std::vector<int>{6, 2}));

    auto m = an::taxonomy(an::loadRows(*store, {}), an::GroupBy::Method);
    EXPECT_EQ(m.groups, (std::vector<std::string>{"A", "B"}));
    EXPECT_EQ(m.automatic[0], (std::vector<int>{1, 1, 0, 1}));
    EXPECT_EQ(m.automatic[1], (std::vector<int>{0, 0, 0, 1}));

    // A manual "pass" removes the failure from the reviewed series.
    store->setManualLabel(aGeluEval, "pass", "verdict was wrong", "test");
    t = an::compute(*store, {}).taxonomyByCategory;
    EXPECT_EQ(t.classes, (std::vector<std::string>{"syntax_error", "runtime_error", "value_mismatch"}));
    EXPECT_EQ((*t.reviewed)[0], (std::vector<int>{0, 1, 0}));
    // Without manual labels there is no reviewed series.
    store->setManualLabel(aGeluEval, "", "");
    EXPECT_FALSE(an::compute(*store, {}).taxonomyByCategory.reviewed.has_value());
}

TEST_F(AnalysisDb, RoundTrajectories)
{
    auto t = an::compute(*store, {}).rounds;
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].method, "A");
    ASSERT_EQ(t[0].points.size(), 2u);
    EXPECT_EQ(t[0].points[0].round, 0);
    EXPECT_EQ(t[0].points[0].pass.k, 1);  // relu passed on the CPU
    EXPECT_EQ(t[0].points[0].pass.n, 4);
    EXPECT_EQ(t[0].points[1].round, 1);
    EXPECT_EQ(t[0].points[1].pass.k, 1);
    EXPECT_EQ(t[0].points[1].pass.n, 1);
    ASSERT_EQ(t[1].points.size(), 1u);
    EXPECT_EQ(t[1].points[0].pass.k, 2);
    EXPECT_EQ(t[1].points[0].pass.n, 3);
}

TEST(Analysis, EmptyDatabaseGivesEmptyDatasets)
{
    auto p = tempDb("empty");
    {
        kbx::Store s(p);
        auto d = an::compute(s, {});
        EXPECT_EQ(d.rowCount, 0u);
        EXPECT_TRUE(d.correctness.empty());
        EXPECT_TRUE(d.taxonomyByMethod.empty());
        EXPECT_FALSE(an::hasTimings(d.speedup));
        EXPECT_TRUE(d.rounds.empty());
    }
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(p.string() + suffix);
}

// Issue 24: the one counting rule, defined once. Its SQL picks the latest evaluation of every
// submission on each device; re-evaluations on one device replace the earlier ones; the datasets say
// how many evaluations were stored under the filters and list only the runs with a counted one.
TEST_F(AnalysisDb, OneCountingRuleForEveryView)
{
    EXPECT_NE(an::countingRule().find("per device"), std::string::npos);
    auto ids = [&](const std::string& where) {
        std::vector<std::int64_t> v;
        for (const auto& j : store->query(kbx::query::countedEvaluationsSql(where) + " ORDER BY id"))
            v.push_back(j["id"].get<std::int64_t>());
        return v;
    };
    EXPECT_EQ(ids("").size(), 8u);
    EXPECT_EQ(ids("gpu = 'NVIDIA H200'").size(), 1u);
    EXPECT_EQ(ids("method = 'B'").size(), 3u);

    // A re-evaluation of B's relu on the CPU, in a third run: it replaces the earlier one, and run 1
    // still counts (other evaluations), so both are listed; the stored count says 9 exist.
    const auto run3 = store->beginRun("cpu", {}, {0}, 9, {});
    const auto bRelu = store->query("SELECT submission_id FROM evaluation_rows WHERE method = 'B' AND task_id = 'Activation/relu'")
                           .front()["submission_id"]
                           .get<std::int64_t>();
    const auto again = add(run3, bRelu, "Activation/relu", "value_mismatch");
    auto d = an::compute(*store, {});
    EXPECT_EQ(d.rowCount, 8u);
    EXPECT_EQ(d.storedCount, 9u);
    EXPECT_EQ(d.runs, (std::vector<std::int64_t>{run1, run2, run3}));
    const auto rows = an::loadRows(*store, {});
    EXPECT_EQ(std::count_if(rows.begin(), rows.end(), [&](const an::Row& r) { return r.id == again; }), 1);

    // A run whose every evaluation was replaced is not listed.
    an::Filters b;
    b.methods = {"B"};
    b.categories = {"Activation"};
    d = an::compute(*store, b);
    EXPECT_EQ(d.rowCount, 2u);
    EXPECT_EQ(d.storedCount, 3u);
    EXPECT_EQ(d.runs, (std::vector<std::int64_t>{run1, run3}));
    store->query("UPDATE evaluations SET run_id = " + std::to_string(run3) + " WHERE id = (SELECT id FROM evaluation_rows WHERE "
                 "method = 'B' AND task_id = 'Activation/gelu')");
    d = an::compute(*store, b);
    EXPECT_EQ(d.runs, (std::vector<std::int64_t>{run3})) << "run 1's only B/Activation evaluation was replaced";
}
