// SPDX-License-Identifier: MIT
// The statistics of kbx report --table (core/stats_tables) on synthetic data whose values are
// computed by hand, and the four renderings.
#include "seed_import.h"
#include "stats_tables.h"
#include "store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>

namespace fs = std::filesystem;
namespace st = kbx::stats;
namespace an = kbx::analysis;

namespace {

fs::path tempDb(const std::string& name)
{
    auto p = fs::temp_directory_path() / ("kbx-stats-" + name + "-" + std::to_string(getpid()) + ".sqlite");
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(p.string() + suffix);
    return p;
}

an::Row row(std::int64_t id, const std::string& gpu, const std::string& method, const std::string& task, int round, bool pass,
            std::optional<double> speedup = std::nullopt, std::int64_t candidate = 0)
{
    an::Row r;
    r.id = id;
    r.submissionId = id;
    r.candidateId = candidate ? candidate : id;
    r.gpu = gpu;
    r.method = method;
    r.taskId = task;
    r.category = task.substr(0, task.find('/'));
    r.round = round;
    r.pass = r.exeOk = r.callOk = pass;
    if (pass && speedup) {
        r.speedup = speedup;
        r.baselineMsSum = *speedup;
        r.candidateMsSum = 1.0;
    }
    return r;
}

const st::CohortStats* cohort(const st::Rescued& r, const std::string& method, const std::string& c)
{
    for (const auto& x : r.cohorts)
        if (x.method == method && x.cohort == c)
            return &x;
    return nullptr;
}

/// A database with hand-computable tables on one GPU ("NVIDIA H200"):
///   A: Math/t1 pass (eager 2 ms, kernel 1 ms: 2x), Math/t2 pass (1 ms vs 2 ms: 0.5x),
///      Math/t3 value_mismatch, Math/t4 syntax_error
///   B: Math/t1 pass (1.5 ms vs 1 ms: 1.5x), Math/t2 runtime_error
class StatsDb : public ::testing::Test {
protected:
    void SetUp() override
    {
        path = tempDb(::testing::UnitTest::GetInstance()->current_test_info()->name());
        store = std::make_unique<kbx::Store>(path);
        const auto a = store->ensureMethod("A");
        const auto b = store->ensureMethod("B");
        run = store->beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}, {"kbx_version", "0.1.0"},
                                       {"versions", {{"harness", 1}, {"torch", "2.11"}, {"triton", "3.6.0"}}}},
                              {0}, 8, {{"source", "fixtures.jsonl"}});
        auto add = [&](std::int64_t m, const std::string& task, const std::string& cls, double base = 0, double cand = 0) {
            const auto sub = store->ensureSubmission(store->ensureCandidate(task, std::to_string(m) + task).first, m, 0, "test");
            kbx::EvaluationRecord r;
            r.runId = run;
            r.submissionId = sub;
            r.taskId = task;
            r.pass = r.exeOk = cls == "pass";
            r.callOk = r.pass || cls == "value_mismatch";
            if (!r.pass)
                r.failureClass = cls;
            r.startedAt = r.finishedAt = kbx::nowIso8601();
            const auto e = store->addEvaluation(r);
            if (base > 0)
                store->query("INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms) VALUES(" + std::to_string(e) + ", 's', " +
                             std::to_string(cand) + ", " + std::to_string(base) + ")");
            return e;
        };
        add(a, "Math/t1", "pass", 2.0, 1.0);
        add(a, "Math/t2", "pass", 1.0, 2.0);
        add(a, "Math/t3", "value_mismatch");
        add(a, "Math/t4", "syntax_error");
        add(b, "Math/t1", "pass", 1.5, 1.0);
        add(b, "Math/t2", "runtime_error");
    }
    void TearDown() override
    {
        store.reset();
        for (const char* suffix : {"", "-wal", "-shm"})
            fs::remove(path.string() + suffix);
    }
    fs::path path;
    std::unique_ptr<kbx::Store> store;
    std::int64_t run = 0;
};

}  // namespace

TEST(Stats, BootstrapGeomeanCI)
{
    auto ci = st::bootstrapGeomeanCI({2, 2, 2});
    EXPECT_DOUBLE_EQ(ci.lo, 2.0);
    EXPECT_DOUBLE_EQ(ci.hi, 2.0);
    // Two values 1 and 4: the resampled geometric means are 1, 2 or 4 (probabilities 1/4, 1/2, 1/4),
    // so the 2.5 % and 97.5 % quantiles are 1 and 4.
    ci = st::bootstrapGeomeanCI({1, 4});
    EXPECT_NEAR(ci.lo, 1.0, 1e-12);
    EXPECT_NEAR(ci.hi, 4.0, 1e-12);
    // Deterministic for a seed, and the interval covers the estimate.
    const std::vector<double> v = {0.5, 0.9, 1.3, 2.0, 3.1, 0.7, 1.1};
    const auto a = st::bootstrapGeomeanCI(v, 7), b = st::bootstrapGeomeanCI(v, 7);
    EXPECT_EQ(a.lo, b.lo);
    EXPECT_EQ(a.hi, b.hi);
    double logs = 0;
    for (double x : v)
        logs += std::log(x);
    const double g = std::exp(logs / double(v.size()));
    EXPECT_LT(a.lo, g);
    EXPECT_GT(a.hi, g);
    EXPECT_THROW(st::bootstrapGeomeanCI({1.0, 0.0}), std::invalid_argument);
}

TEST(Stats, SpeedupStatsByHand)
{
    // Kernels: eager 1 / kernel 2 ms (0.5x), 4 / 1 (4x), 16 / 2 (8x).
    const auto s = st::speedupStats({0.5, 4, 8}, {1, 4, 16}, {2, 1, 2});
    EXPECT_EQ(s.n, 3);
    EXPECT_NEAR(*s.geomean, std::cbrt(16.0), 1e-12);
    EXPECT_NEAR(*s.mean, 12.5 / 3.0, 1e-12);
    EXPECT_NEAR(*s.median, 4.0, 1e-12);
    EXPECT_NEAR(*s.sumRatio, 21.0 / 5.0, 1e-12);  // the seed's aggregate differs from both means
    EXPECT_EQ(s.slower, 1);
    EXPECT_NEAR(*s.slowerFraction, 1.0 / 3.0, 1e-12);
    EXPECT_LE(s.geomeanCI->lo, *s.geomean);
    EXPECT_GE(s.geomeanCI->hi, *s.geomean);
    const auto none = st::speedupStats(std::vector<double>{});
    EXPECT_EQ(none.n, 0);
    EXPECT_FALSE(none.geomean.has_value());
    EXPECT_FALSE(none.sumRatio.has_value());
}

TEST_F(StatsDb, MethodSummaryRatesSpeedupsAndFastP)
{
    const auto rows = an::loadRows(*store, {}, an::Latest::PerSubmissionAndGpu);
    std::map<std::int64_t, st::QualityValues> q;
    for (const auto& r : rows)
        if (r.pass)
            q[r.submissionId] = {r.method == "A" ? 60.0 : 80.0, 2.0};
    const auto ms = st::methodSummary(rows, q);
    ASSERT_EQ(ms.size(), 2u);
    const auto& a = ms[0];
    EXPECT_EQ(a.method, "A");
    EXPECT_EQ(a.gpu, "NVIDIA H200");
    EXPECT_EQ(a.n, 4);
    EXPECT_EQ(a.call.k, 3);
    EXPECT_EQ(a.exe.k, 2);
    EXPECT_EQ(a.exeGivenCall.k, 2);
    EXPECT_EQ(a.exeGivenCall.n, 3);
    EXPECT_NEAR(a.exe.ci().lo, an::wilson(2, 4).lo, 1e-15);
    EXPECT_EQ(a.speedup.n, 2);
    EXPECT_NEAR(*a.speedup.geomean, 1.0, 1e-12);   // sqrt(2 x 0.5)
    EXPECT_NEAR(*a.speedup.mean, 1.25, 1e-12);
    EXPECT_NEAR(*a.speedup.sumRatio, 1.0, 1e-12);  // (2 + 1) / (1 + 2)
    EXPECT_NEAR(*a.speedup.median, 1.25, 1e-12);
    EXPECT_EQ(a.speedup.slower, 1);
    // fast_p over all 4 evaluations: speedups 2 and 0.5, strictly greater than p.
    ASSERT_EQ(a.fastP.size(), 5u);
    EXPECT_DOUBLE_EQ(a.fastP[0], 0.5);   // p = 0
    EXPECT_DOUBLE_EQ(a.fastP[1], 0.25);  // p = 0.5: 0.5 is not > 0.5
    EXPECT_DOUBLE_EQ(a.fastP[2], 0.25);  // p = 1
    EXPECT_DOUBLE_EQ(a.fastP[3], 0.25);  // p = 1.5
    EXPECT_DOUBLE_EQ(a.fastP[4], 0.0);   // p = 2: 2 is not > 2
    EXPECT_EQ(a.quality.measured, 2);
    EXPECT_DOUBLE_EQ(*a.quality.miMean, 60.0);
    const auto& b = ms[1];
    EXPECT_EQ(b.n, 2);
    EXPECT_EQ(b.call.k, 1);
    EXPECT_NEAR(*b.speedup.geomean, 1.5, 1e-12);
    EXPECT_DOUBLE_EQ(b.fastP[3], 0.0);  // 1.5 is not > 1.5
}

TEST(Stats, CategoryMethodAllMethodFailure)
{
    // Fusion f1: both fail; f2: A solves; f3: both fail; f4: only A attempted (left out).
    std::vector<an::Row> rows = {row(1, "G", "A", "Fusion/f1", 0, false), row(2, "G", "B", "Fusion/f1", 0, false),
                                 row(3, "G", "A", "Fusion/f2", 0, true),  row(4, "G", "B", "Fusion/f2", 0, false),
                                 row(5, "G", "A", "Fusion/f3", 0, false), row(6, "G", "B", "Fusion/f3", 0, false),
                                 row(7, "G", "A", "Fusion/f4", 0, false), row(8, "G", "A", "Quantization/q1", 0, false),
                                 row(9, "G", "B", "Quantization/q1", 0, false)};
    const auto cm = st::categoryMethod(rows);
    ASSERT_EQ(cm.failures.size(), 2u);
    EXPECT_EQ(cm.failures[0].category, "Fusion");
    EXPECT_EQ(cm.failures[0].failedByAll.n, 3);
    EXPECT_EQ(cm.failures[0].failedByAll.k, 2);
    EXPECT_EQ(cm.failures[0].methods, 2);
    EXPECT_EQ(cm.failures[1].failedByAll.k, 1);
    // Cells: Fusion A, B, all methods; Quantization A, B, all methods (0/2: the quantization outcomes).
    ASSERT_EQ(cm.cells.size(), 6u);
    EXPECT_EQ(cm.cells[2].method, "all methods");
    EXPECT_EQ(cm.cells[2].exe.k, 1);
    EXPECT_EQ(cm.cells[2].exe.n, 7);
    EXPECT_EQ(cm.cells[5].exe.k, 0);
    EXPECT_EQ(cm.cells[5].exe.n, 2);
}

TEST(Stats, RescuedPersistentAndPaired)
{
    std::vector<an::Row> rows = {
        row(1, "G", "A", "M/x", 0, false),      row(2, "G", "A", "M/x", 1, true, 1.2),  // rescued
        row(3, "G", "A", "M/y", 0, true, 2.0),  row(4, "G", "A", "M/y", 1, true, 1.6),  // persistent (last: 1.6)
        row(5, "G", "A", "M/z", 0, true, 1.0),  row(6, "G", "A", "M/z", 1, false),      // regression: neither
        row(7, "G", "A", "M/w", 0, false),                                                // one round: neither
        row(8, "G", "B", "M/x", 0, true, 3.0),  row(9, "G", "B", "M/x", 1, true, 2.4),  // persistent
    };
    const auto r = st::rescued(rows);
    EXPECT_EQ(r.seriesWithRounds, 4);
    const auto* ar = cohort(r, "A", "rescued");
    const auto* ap = cohort(r, "A", "persistent");
    const auto* allp = cohort(r, "all methods", "persistent");
    ASSERT_TRUE(ar && ap && allp);
    EXPECT_EQ(ar->kernels, 1);
    EXPECT_NEAR(*ar->speedup.geomean, 1.2, 1e-12);
    EXPECT_NEAR(*ap->speedup.geomean, 1.6, 1e-12);
    EXPECT_EQ(allp->kernels, 2);
    EXPECT_NEAR(*allp->speedup.geomean, std::sqrt(1.6 * 2.4), 1e-12);
    ASSERT_EQ(r.paired.size(), 1u);
    EXPECT_EQ(r.paired[0].pairs, 1);  // M/x: rescued for A, persistent for B
    EXPECT_EQ(r.paired[0].tasks, 1);
    EXPECT_NEAR(*r.paired[0].geomeanRatio, 0.5, 1e-12);
    EXPECT_EQ(r.paired[0].rescuedFaster, 0);
}

TEST(Stats, CrossHardwareSpreadAndSlowFraction)
{
    std::vector<an::Row> rows = {
        row(1, "G1", "A", "M/t", 0, true, 4.0, 7), row(2, "G2", "A", "M/t", 0, true, 0.5, 7), row(3, "G3", "A", "M/t", 0, true, 1.0, 7),
        row(4, "G1", "A", "M/u", 0, true, 2.0, 8), row(5, "G2", "A", "M/u", 0, true, 1.0, 8), row(6, "G1", "A", "M/v", 0, true, 3.0, 9),
    };
    const auto x = st::crossHardware(rows);
    EXPECT_EQ(x.gpus, (std::vector<std::string>{"G1", "G2", "G3"}));
    ASSERT_EQ(x.kernels.size(), 2u);  // M/v is on one GPU only
    EXPECT_DOUBLE_EQ(x.kernels[0].spread, 8.0);
    EXPECT_EQ(x.kernels[0].fastestGpu, "G1");
    EXPECT_EQ(x.kernels[0].slowestGpu, "G2");
    EXPECT_DOUBLE_EQ(*x.spreadMedian, 5.0);
    EXPECT_DOUBLE_EQ(*x.spreadMax, 8.0);
    ASSERT_EQ(x.slow.size(), 3u);  // one method: no pooled rows
    EXPECT_EQ(x.slow[1].gpu, "G2");
    EXPECT_EQ(x.slow[1].slower.n, 2);
    EXPECT_EQ(x.slow[1].slower.k, 1);  // 0.5 < 1; 1.0 is not slower
    EXPECT_EQ(x.slow[0].slower.k, 0);
}

TEST(Stats, GoldenEagerTimesAcrossGpus)
{
    const auto p = tempDb("golden");
    {
        kbx::Store s(p);
        kbx::ImportBatch b;
        b.format = "golden-results";
        b.source = "test";
        b.sha256 = "golden-test";
        auto g = [](const std::string& gpu, const std::string& task, int idx, double ms) {
            kbx::GoldenTiming t;
            t.gpu = gpu;
            t.task = task;
            t.taskId = "Math/" + task;
            t.index = idx;
            t.inputSize = "[[" + std::to_string(4096 << idx) + "]]";
            t.ms = ms;
            t.file = gpu + "/" + task + ".json";
            return t;
        };
        // add: g2 lacks the second size, so only the first counts (1 ms vs 3 ms); relu: 2 ms vs 1 ms.
        b.golden = {g("g1", "add", 0, 1.0), g("g1", "add", 1, 2.0), g("g2", "add", 0, 3.0), g("g1", "relu", 0, 2.0), g("g2", "relu", 0, 1.0),
                    g("g3", "exp", 0, 1.0)};
        s.writeImport(b);
        st::CrossHardware x;
        st::addGolden(x, s, {});
        EXPECT_EQ(x.goldenGpus, (std::vector<std::string>{"g1", "g2", "g3"}));
        ASSERT_EQ(x.golden.size(), 2u);  // exp is on one GPU only
        EXPECT_EQ(x.golden[0].task, "add");
        EXPECT_EQ(x.golden[0].sizes, 1);
        EXPECT_DOUBLE_EQ(x.golden[0].ms.at("g1"), 1.0);
        EXPECT_DOUBLE_EQ(x.golden[0].spread, 3.0);
        EXPECT_EQ(x.golden[1].fastestGpu, "g2");
        ASSERT_EQ(x.goldenPerGpu.size(), 3u);
        EXPECT_NEAR(*x.goldenPerGpu[0].geomeanRelative, std::sqrt(2.0), 1e-12);  // g1: 1x (add), 2x (relu)
        EXPECT_NEAR(*x.goldenPerGpu[1].geomeanRelative, std::sqrt(3.0), 1e-12);  // g2: 3x, 1x
        EXPECT_EQ(x.goldenPerGpu[0].fastest, 1);
        EXPECT_EQ(x.goldenPerGpu[2].tasks, 0);
        EXPECT_DOUBLE_EQ(*x.goldenSpreadMedian, 2.5);
        // A GPU filter keeps only those GPUs.
        st::CrossHardware y;
        st::addGolden(y, s, [] {
            an::Filters f;
            f.gpus = {"g1", "g3"};
            return f;
        }());
        EXPECT_TRUE(y.golden.empty());
    }
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(p.string() + suffix);
}

TEST(Stats, DevianceOfThePaperTable1Counts)
{
    // 176 tasks x 4 methods with 30, 54, 19, 40 correct (the paper's Table 1): method share 3.34 %.
    std::vector<an::Row> rows;
    std::int64_t id = 0;
    const std::vector<std::pair<std::string, int>> methods = {{"AutoTriton", 30}, {"GEAK", 54}, {"KernelAgent", 19}, {"Claude", 40}};
    for (const auto& [m, correct] : methods)
        for (int t = 0; t < 176; ++t)
            rows.push_back(row(++id, "G", m, "X/t" + std::to_string(t), 0, t < correct));
    const auto d = st::deviance(rows);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_NEAR(d[0].analysis.nullDeviance, 710.62, 0.01);
    ASSERT_EQ(d[0].analysis.alone.size(), 2u);
    EXPECT_EQ(d[0].analysis.alone[1].factor, "method");
    EXPECT_NEAR(d[0].analysis.alone[1].share, 0.0334, 0.00005);
    EXPECT_NEAR(d[0].analysis.alone[1].chi2, 23.8, 0.05);
    EXPECT_EQ(d[0].analysis.alone[1].df, 3);
}

TEST(Stats, RenderEveryFormat)
{
    st::Report r;
    r.name = "demo";
    r.provenance = {{"report", "demo"}, {"database", "/tmp/x.sqlite"}, {"schema_version", 4}, {"filters", "method=all"}, {"counting", "latest"},
                    {"runs", nlohmann::json::array({{{"id", 3}, {"gpu", "NVIDIA H200"}, {"torch", "2.11"}}})},
                    {"gpus", {"NVIDIA H200"}}, {"methods", {"A_1"}}, {"protocol", {{"harness", {"1"}}}}, {"generated_at", "now"}};
    st::Table t;
    t.name = "t";
    t.title = "Title & more";
    t.columns = {{"method", "method"}, {"n", "n", st::Kind::Int}, {"rate", "rate %", st::Kind::Percent}, {"ci", "95% CI", st::Kind::PercentInterval},
                 {"x", "x", st::Kind::Ratio}};
    t.rows = {{"A_1", 4, 0.5, nlohmann::json::array({0.15, 0.85}), nullptr}, {"B, c", 2, 1.0, nullptr, 1.23456}};
    t.notes = {"a note"};
    r.tables = {t};
    const auto text = st::render(r, st::Format::Text);
    EXPECT_NE(text.find("# kbx report --table demo; database /tmp/x.sqlite (schema v4)"), std::string::npos) << text;
    EXPECT_NE(text.find("runs: #3 (NVIDIA H200, torch 2.11)"), std::string::npos) << text;
    EXPECT_NE(text.find("A_1     4   50.0%  [15.0, 85.0]    n/a"), std::string::npos) << text;
    EXPECT_NE(text.find("1.235"), std::string::npos);
    const auto csv = st::render(r, st::Format::Csv);
    EXPECT_NE(csv.find("method,n,rate,ci_lo,ci_hi,x\nA_1,4,0.5,0.15,0.85,\n\"B, c\",2,1,,,1.23456\n"), std::string::npos) << csv;
    const auto json = nlohmann::json::parse(st::render(r, st::Format::Json));
    EXPECT_EQ(json["provenance"]["database"], "/tmp/x.sqlite");
    EXPECT_EQ(json["tables"][0]["rows"][0]["ci"]["lo"], 0.15);
    EXPECT_TRUE(json["tables"][0]["rows"][1]["ci"].is_null());
    const auto tex = st::render(r, st::Format::Latex);
    EXPECT_NE(tex.find("\\begin{tabular}{lrrrr}\n\\toprule\nmethod & n & rate \\% & 95\\% CI & x \\\\\n\\midrule\n"), std::string::npos) << tex;
    EXPECT_NE(tex.find("A\\_1 & 4 & 50.0\\% & [15.0, 85.0] & -- \\\\"), std::string::npos) << tex;
    EXPECT_NE(tex.find("\\bottomrule\n\\end{tabular}"), std::string::npos);
    EXPECT_NE(tex.find("% kbx report --table demo"), std::string::npos);
}

TEST_F(StatsDb, EveryTableBuildsWithProvenanceAndFilters)
{
    for (const auto& name : st::tableNames()) {
        SCOPED_TRACE(name);
        st::ReportOptions opt;
        opt.quality = false;
        const auto rep = st::buildReport(*store, name, {}, opt);
        EXPECT_EQ(rep.provenance["database"], path.string());
        EXPECT_EQ(rep.provenance["methods"], (nlohmann::json{"A", "B"}));
        EXPECT_EQ(rep.provenance["runs"][0]["torch"], "2.11");
        EXPECT_EQ(rep.provenance["runs"][0]["source"], "fixtures.jsonl");
        EXPECT_FALSE(rep.tables.empty());
        for (auto f : {st::Format::Text, st::Format::Csv, st::Format::Json, st::Format::Latex})
            EXPECT_FALSE(st::render(rep, f).empty());
    }
    an::Filters f;
    f.methods = {"B"};
    const auto rep = st::buildReport(*store, "method-summary", f, {false});
    ASSERT_EQ(rep.tables[0].rows.size(), 1u);
    EXPECT_EQ(rep.tables[0].rows[0][1], "B");
    EXPECT_EQ(rep.provenance["filters"], "method=B; round=all; gpu=all; category=all");
    const auto slow = st::buildReport(*store, "slow-fraction", {}, {false});
    // One GPU, two methods: A (1 of 2 slower), B (0 of 1), all methods (1 of 3).
    ASSERT_EQ(slow.tables[0].rows.size(), 3u);
    EXPECT_EQ(slow.tables[0].rows[0][1], "A");
    EXPECT_EQ(slow.tables[0].rows[0][3], 1);
    EXPECT_EQ(slow.tables[0].rows[2][1], "all methods");
    EXPECT_EQ(slow.tables[0].rows[2][2], 3);
    EXPECT_THROW(st::buildReport(*store, "nope", {}, {false}), std::invalid_argument);
}

// The protocol table's three columns for the three ways a kernel with right outputs can end: a Triton
// kernel that passes, one whose GPU time the perf stage's kernel attribution finds in PyTorch (failed
// after its contract tier passed), and one that launched no Triton kernel (failed by its contract tier).
// The seed's column counts all three (the seed does not check this); the contract column agrees with
// the stored verdicts.
TEST(Stats, ProtocolTableCountsThePerfStagesKernelAttributionAsTheVerdictDoes)
{
    const auto path = tempDb("protocol-attribution");
    {
        kbx::Store store(path);
        const auto m = store.ensureMethod("A");
        const auto run = store.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 8, {{"source", "x.jsonl"}});
        auto add = [&](const std::string& task, bool contractPass, const std::string& contractClass) {
            kbx::EvaluationRecord r;
            r.runId = run;
            r.submissionId = store.ensureSubmission(store.ensureCandidate(task, task + " code").first, m, 0, "test");
            r.taskId = task;
            r.callOk = r.exeOk = true;
            r.pass = contractPass;
            if (!contractPass)
                r.failureClass = contractClass;
            r.protocol = "contract";
            r.extCases = 1;
            r.extPassed = 1;
            r.evidence["tiers"] = {{"contract", {{"pass", contractPass}, {"exe_ok", true},
                                                {"failure_class", contractPass ? nlohmann::json() : nlohmann::json(contractClass)}}}};
            for (int c = 0; c < 2; ++c) {
                kbx::EvaluationRecord::Case k;
                k.index = c;
                k.name = "seed" + std::to_string(c) + "/case";
                k.tier = "contract";
                k.status = "pass";
                r.cases.push_back(k);
            }
            kbx::EvaluationRecord::Case x;
            x.index = 2;
            x.name = "edge/x";
            x.tier = "extended";
            x.status = "pass";
            r.cases.push_back(x);
            r.startedAt = r.finishedAt = kbx::nowIso8601();
            return store.addEvaluation(r);
        };
        add("Math/ok", true, "");
        const auto torch = add("LinearAlgebra/svd", true, "");
        add("Math/pytorch_only", false, "not_triton_kernel");
        store.addPerf(torch, {}, {{"protocol", "kbx-perf-2"}},
                      std::make_pair(std::string("not_triton_kernel"), std::string("only 1% of the GPU time ...")));
        store.finishRun(run, "finished", {{"devices", {{{"name", "NVIDIA H200"}}}}});
        const auto rep = st::buildReport(store, "protocol", {}, {false});
        const auto& t = rep.tables.at(0);
        bool found = false;
        for (const auto& row : t.rows)
            if (row[2] == "(all)") {
                found = true;
                EXPECT_EQ(row[3], 3);  // n
                EXPECT_EQ(row[4], 3);  // seed: all three ran right on the seed's cases
                EXPECT_EQ(row[6], 1);  // contract: as the stored verdicts (one pass)
                EXPECT_EQ(row[9], 1);  // strict
            }
        EXPECT_TRUE(found);
        const auto& flips = rep.tables.at(1);
        ASSERT_EQ(flips.rows.size(), 2u);
        std::map<std::string, std::string> why;
        for (const auto& row : flips.rows) {
            EXPECT_EQ(row[4], "pass");
            EXPECT_EQ(row[5], "fail");
            why[row[3].get<std::string>()] = row[7].get<std::string>();
        }
        EXPECT_NE(why["LinearAlgebra/svd"].find("kernel attribution"), std::string::npos) << why["LinearAlgebra/svd"];
        EXPECT_EQ(why["Math/pytorch_only"], "no Triton kernel ran (the seed only flags this)");
        // The summary's exe column counts all three: exe in the seed's sense is right outputs.
        EXPECT_EQ(store.query("SELECT sum(exe_ok) AS n FROM evaluations")[0]["n"], 3);
    }
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(path.string() + suffix);
}

TEST_F(StatsDb, SpeedupsFromDifferentSoftwareStacksAreWarnedAbout)
{
    // One stack: no warning.
    auto one = st::buildReport(*store, "method-summary", {}, {.quality = false});
    EXPECT_TRUE(one.provenance["warnings"].empty()) << one.provenance.dump();
    // A second timed run on the same GPU model with another torch: the report says the speedups
    // are not comparable, in its provenance and in its notes (every output format carries them).
    const auto a = store->ensureMethod("A");
    const auto run2 = store->beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}, {"driver", "590.1"}}}}, {"kbx_version", "0.1.0"},
                                               {"versions", {{"harness", 1}, {"torch", "2.12"}, {"triton", "3.7.0"}}}},
                                      {0}, 8, {{"source", "later.jsonl"}});
    const auto sub = store->ensureSubmission(store->ensureCandidate("Math/t5", "later code").first, a, 0, "test");
    kbx::EvaluationRecord r;
    r.runId = run2;
    r.submissionId = sub;
    r.taskId = "Math/t5";
    r.pass = r.exeOk = r.callOk = true;
    r.startedAt = r.finishedAt = kbx::nowIso8601();
    const auto e = store->addEvaluation(r);
    store->query("INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms) VALUES(" + std::to_string(e) + ", 's', 1.0, 1.0)");
    auto two = st::buildReport(*store, "method-summary", {}, {.quality = false});
    ASSERT_EQ(two.provenance["warnings"].size(), 1u) << two.provenance.dump();
    const auto w = two.provenance["warnings"][0].get<std::string>();
    EXPECT_NE(w.find("torch 2.11"), std::string::npos) << w;
    EXPECT_NE(w.find("torch 2.12, Triton 3.7.0"), std::string::npos) << w;
    EXPECT_NE(w.find("driver 590.1"), std::string::npos) << w;
    bool noted = false;
    for (const auto& n : two.notes)
        noted = noted || n.rfind("warning: timings on NVIDIA H200", 0) == 0;
    EXPECT_TRUE(noted);
    EXPECT_NE(st::render(two, st::Format::Text).find("not comparable"), std::string::npos);
}

TEST_F(StatsDb, UtilisationAgainstTheRooflineOfTheMeasuredPeaks)
{
    // The fixture's timings carry no roofline: the table is empty and says why.
    auto none = st::buildReport(*store, "utilisation", {}, {.quality = false});
    ASSERT_EQ(none.tables.size(), 1u);
    EXPECT_TRUE(none.tables[0].rows.empty());
    // A correct kernel of method A with two shapes at 50 % and 90 % of their bound (median 70 %), one
    // of them flagged faster than the bound; B's kernel at 25 %.
    const auto a = store->ensureMethod("A");
    const auto b = store->ensureMethod("B");
    auto add = [&](std::int64_t m, const std::string& task, std::vector<std::tuple<double, double, double, bool>> shapes) {
        const auto sub = store->ensureSubmission(store->ensureCandidate(task, "roofline " + task + std::to_string(m)).first, m, 0, "test");
        kbx::EvaluationRecord r;
        r.runId = run;
        r.submissionId = sub;
        r.taskId = task;
        r.pass = r.exeOk = r.callOk = true;
        r.startedAt = r.finishedAt = kbx::nowIso8601();
        const auto e = store->addEvaluation(r);
        int k = 0;
        for (const auto& [ms, bound, bw, fast] : shapes) {
            nlohmann::json smp = {{"roofline", {{"bound_ms", bound}, {"bandwidth_util", bw}, {"compute_util", 0.01}, {"faster_than_bound", fast}}}};
            store->query("INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms, samples) VALUES(" + std::to_string(e) + ", 's" +
                         std::to_string(k++) + "', " + std::to_string(ms) + ", 1.0, '" + smp.dump() + "')");
        }
    };
    add(a, "Math/r1", {{1.0, 0.5, 0.5, false}, {1.0, 0.9, 0.9, true}});
    add(b, "Math/r2", {{2.0, 0.5, 0.25, false}});
    auto rep = st::buildReport(*store, "utilisation", {}, {.quality = false});
    ASSERT_EQ(rep.tables[0].rows.size(), 2u);
    const auto& ra = rep.tables[0].rows[0];  // A sorts first
    EXPECT_EQ(ra[1], "A");
    EXPECT_EQ(ra[3].get<int>(), 1);
    EXPECT_NEAR(ra[4].get<double>(), 0.70, 1e-9);  // of roofline, median of the kernel's shapes
    EXPECT_NEAR(ra[6].get<double>(), 0.70, 1e-9);  // bandwidth util
    EXPECT_EQ(ra[8].get<int>(), 1);                // flagged
    const auto& rb = rep.tables[0].rows[1];
    EXPECT_NEAR(rb[4].get<double>(), 0.25, 1e-9);
    EXPECT_EQ(rb[8].get<int>(), 0);
    EXPECT_NE(st::render(rep, st::Format::Text).find("of roofline"), std::string::npos);
}

// The seed writes some input sizes differently on some GPUs (its 5090/L20 files: [[64, 1024], [64, 1024]]
// where the others have [[2, 64, 1024]]); such a task is compared row by row when every GPU has as
// many rows, and a task with nothing comparable is named in a note, never dropped silently (issue 23).
TEST(Stats, GoldenTasksWrittenDifferentlyAreComparedByPositionOrNamed)
{
    const auto p = tempDb("golden-position");
    {
        kbx::Store s(p);
        kbx::ImportBatch b;
        b.format = "golden-results";
        b.source = "test";
        b.sha256 = "golden-position-test";
        auto g = [](const std::string& gpu, const std::string& task, int idx, double ms, const std::string& size) {
            kbx::GoldenTiming t;
            t.gpu = gpu;
            t.task = task;
            t.taskId = "Pooling/" + task;
            t.index = idx;
            t.inputSize = size;
            t.ms = ms;
            t.file = gpu + "/" + task + ".json";
            return t;
        };
        b.golden = {g("a100", "pool", 0, 1.0, "[[2, 64, 1024]]"), g("a100", "pool", 1, 2.0, "[[2, 64, 2048]]"),
                    g("l20", "pool", 0, 2.0, "[[64, 1024], [64, 1024]]"), g("l20", "pool", 1, 4.0, "[[64, 2048], [64, 2048]]"),
                    g("a100", "tanh", 0, 1.0, "[1]"), g("l20", "tanh", 0, 1.0, "[2]"), g("l20", "tanh", 1, 1.0, "[3]")};
        s.writeImport(b);
        st::CrossHardware x;
        st::addGolden(x, s, {});
        ASSERT_EQ(x.golden.size(), 1u);
        EXPECT_EQ(x.golden[0].task, "pool");
        EXPECT_EQ(x.golden[0].sizes, 2);
        EXPECT_DOUBLE_EQ(x.golden[0].ms.at("a100"), 3.0);
        EXPECT_DOUBLE_EQ(x.golden[0].ms.at("l20"), 6.0);
        EXPECT_EQ(x.goldenByPosition, (std::vector<std::string>{"pool"}));
        EXPECT_EQ(x.goldenNoCommon, (std::vector<std::string>{"tanh"}));
        // and the report says both
        auto rep = st::buildReport(s, "cross-hardware", {});
        std::string notes;
        for (const auto& t : rep.tables)
            for (const auto& n : t.notes)
                notes += n + "\n";
        EXPECT_NE(notes.find("compared row by row (1 task(s)"), std::string::npos) << notes;
        EXPECT_NE(notes.find("left out (1 task(s) on 2+ GPUs without one input size in common"), std::string::npos) << notes;
    }
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(p.string() + suffix);
}

// Issue 24: a table's provenance names the counting rule and lists only the runs whose evaluations
// it counted: B's two submissions re-evaluated on the same GPU in a second run replace run 1's.
TEST_F(StatsDb, ProvenanceListsOnlyTheRunsItCounted)
{
    const auto run2 = store->beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 9, {});
    for (const auto& j : store->query("SELECT submission_id, task_id FROM evaluation_rows WHERE method = 'B'")) {
        kbx::EvaluationRecord r;
        r.runId = run2;
        r.submissionId = j["submission_id"].get<std::int64_t>();
        r.taskId = j["task_id"].get<std::string>();
        r.pass = r.exeOk = r.callOk = true;
        r.startedAt = r.finishedAt = kbx::nowIso8601();
        store->addEvaluation(r);
    }
    auto runsOf = [](const st::Report& rep) {
        std::vector<std::int64_t> v;
        for (const auto& r : rep.provenance["runs"])
            v.push_back(r["id"].get<std::int64_t>());
        return v;
    };
    st::ReportOptions opt;
    opt.quality = false;
    an::Filters b;
    b.methods = {"B"};
    const auto rep = st::buildReport(*store, "method-summary", b, opt);
    EXPECT_EQ(runsOf(rep), (std::vector<std::int64_t>{run2}));
    EXPECT_NE(rep.provenance["counting"].get<std::string>().find(an::countingRule()), std::string::npos);
    const auto all = st::buildReport(*store, "method-summary", {}, opt);
    EXPECT_EQ(runsOf(all), (std::vector<std::int64_t>{run, run2}));
    const auto ms = st::methodSummary(an::loadRows(*store, b));
    ASSERT_EQ(ms.size(), 1u);
    EXPECT_EQ(ms[0].n, 2);  // not 4: the re-evaluations replace the first ones
    EXPECT_EQ(ms[0].exe.k, 2);
}
