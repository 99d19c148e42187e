// SPDX-License-Identifier: MIT
// Reports at a million evaluations (issue 24, item 2): the counted evaluations come from the derived
// table counted_evaluations (core/store_derived.h), kept by triggers, and the tables and figures from the
// compact analysis::Facts. Here, on a generated database with several devices (CPU, two GPU models,
// an imported GPU), methods, rounds, re-evaluations, manual labels and timings, the fast path must
// count exactly what the counting rule's SQL over the view evaluation_rows counts (the definition,
// query::countedEvaluationsSql): the same evaluations, none dropped, none twice, with the same
// columns and speedups; under every filter; after the writes that move the rule (a re-evaluation, a
// deleted run, a run's GPU changed, a verdict changed by the perf stage); through kbx merge; and on a
// read-only open of a file without the derived tables (computed on the fly).
#include "analysis.h"
#include "query_reports.h"
#include "rounds.h"
#include "stats_tables.h"
#include "store.h"
#include "store_derived.h"
#include "store_merge.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

namespace fs = std::filesystem;
namespace an = kbx::analysis;
namespace st = kbx::stats;
using nlohmann::json;

namespace {

fs::path tempDb(const std::string& name)
{
    auto p = fs::temp_directory_path() / ("kbx-counting-" + name + "-" + std::to_string(getpid()) + ".sqlite");
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(p.string() + suffix);
    return p;
}

void removeDb(const fs::path& p)
{
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(p.string() + suffix);
}

/// A database with mixed devices, methods, rounds and re-evaluations, generated from a seed.
struct Generated {
    std::vector<std::int64_t> runs;
    std::vector<std::int64_t> evaluations;
    std::vector<std::int64_t> submissions;
};

Generated generate(kbx::Store& store, std::uint64_t seed, int perRun = 120)
{
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return int(rng() % std::uint64_t(n)); };
    Generated g;
    const std::vector<std::string> methods = {"zero-shot", "reflexion", "agent"};
    const std::vector<std::string> tasks = {"Activation/relu", "Activation/gelu", "Math/add", "Math/sqrt", "Fusion/gemm_relu",
                                            "Reduce/sum", "Normalization/layer_norm_backward_fused", "notask"};
    const std::vector<std::string> classes = {"value_mismatch", "runtime_error", "syntax_error", "timeout", "nan_inf_mismatch"};
    std::vector<std::int64_t> methodIds;
    for (const auto& m : methods)
        methodIds.push_back(store.ensureMethod(m));
    // Submissions: task x method x round x a few codes.
    for (int i = 0; i < 90; ++i) {
        const auto& task = tasks[std::size_t(pick(int(tasks.size())))];
        const auto cand = store.ensureCandidate(task, task + " code " + std::to_string(pick(6))).first;
        g.submissions.push_back(store.ensureSubmission(cand, methodIds[std::size_t(pick(3))], pick(3), "test"));
    }
    const json h200 = {{"devices", {{{"name", "NVIDIA H200"}, {"driver", "570"}}}}, {"versions", {{"torch", "2.9"}, {"triton", "3.4"}}}};
    const json a100 = {{"devices", {{{"name", "NVIDIA A100-SXM4-80GB"}}}}, {"versions", {{"torch", "2.9"}, {"triton", "3.4"}}}};
    const std::vector<std::pair<std::string, json>> devices = {
        {"cpu", json::object()}, {"cuda", h200}, {"cuda", a100}, {"cuda", h200}, {"imported", {{"gpu", "L40S"}, {"format", "metrics"}}},
        {"cuda", json{{"devices", json::array()}}},  // no name: the view calls it "cuda"
        {"cpu", json::object()}};
    for (const auto& [device, prov] : devices) {
        const auto run = store.beginRun(device, prov, {0}, 7, {{"source", "gen"}});
        g.runs.push_back(run);
        for (int i = 0; i < perRun; ++i) {
            kbx::EvaluationRecord r;
            r.runId = run;
            r.submissionId = g.submissions[std::size_t(pick(int(g.submissions.size())))];
            const auto task = store.query("SELECT c.task_id FROM submissions s JOIN candidates c ON c.id = s.candidate_id WHERE s.id = " +
                                          std::to_string(r.submissionId));
            r.taskId = task.front()["task_id"].get<std::string>();
            const int outcome = pick(4);
            r.callOk = outcome > 0;
            r.exeOk = outcome > 1;
            r.pass = r.exeOk && pick(5) > 0;
            if (!r.pass)
                r.failureClass = classes[std::size_t(pick(int(classes.size())))];
            if (pick(3) == 0) {
                // Stored with tiers: the contract tier's verdict in the evidence, cases of both tiers.
                r.extCases = 3;
                r.extPassed = pick(4);
                r.protocol = pick(5) == 0 ? "strict" : "contract";
                const bool contractPass = r.pass || pick(3) == 0;
                r.evidence["tiers"] = {{"contract", {{"pass", contractPass}, {"exe_ok", contractPass || pick(2) == 0},
                                                    {"failure_class", contractPass ? json() : json(pick(4) == 0 ? "not_triton_kernel" : "value_mismatch")}}}};
                for (int c = 0, n = 2 + pick(6); c < n; ++c) {
                    kbx::EvaluationRecord::Case k;
                    k.index = c;
                    k.name = fmt::format("seed{}/case{}", pick(2), c);
                    k.tier = pick(3) == 0 ? "extended" : "contract";
                    k.status = pick(4) == 0 ? "fail" : "pass";
                    if (k.status != "pass")
                        k.failureClass = "value_mismatch";
                    k.evidence = {{"extended_because", "dtype float16"}};
                    r.cases.push_back(k);
                }
            }
            if (device == "imported")
                r.evidence = {{"imported", {{"perf_ok", pick(2) == 0}}}};
            r.startedAt = r.finishedAt = "2026-12-02T00:00:00Z";
            const auto id = store.addEvaluation(r);
            g.evaluations.push_back(id);
            if (r.pass && device != "cpu" && pick(3) > 0) {
                std::vector<kbx::TimingRow> shapes;
                for (int s = 0, n = 1 + pick(3); s < n; ++s) {
                    kbx::TimingRow t;
                    t.shape = "shape" + std::to_string(s);
                    t.candidateMs = 0.1 + double(pick(1000)) / 100.0;
                    t.baselineMs = 0.1 + double(pick(1000)) / 100.0;
                    if (pick(2) == 0)
                        t.samples = {{"roofline", {{"bound_ms", 0.05 + double(pick(100)) / 1000.0}, {"bandwidth_util", double(pick(100)) / 100.0},
                                                   {"compute_util", double(pick(100)) / 1000.0}, {"faster_than_bound", pick(9) == 0}}}};
                    shapes.push_back(t);
                }
                store.addPerf(id, shapes, {{"protocol", pick(4) == 0 ? "kbx-perf v2" : "kbx-perf v1"}});
            }
            if (pick(12) == 0)
                store.setManualLabel(id, pick(3) == 0 ? "pass" : classes[std::size_t(pick(int(classes.size())))], "checked", "test");
        }
        store.finishRun(run, "finished", prov);
    }
    return g;
}

/// The counting rule by its definition: the view and countedEvaluationsSql, with the view's columns.
std::map<std::int64_t, json> expectedCounted(const kbx::Store& store, const an::Filters& f = {})
{
    std::map<std::int64_t, json> out;
    for (auto& j :
         store.query("SELECT v.* FROM evaluation_rows v JOIN (" +
                     kbx::query::countedEvaluationsSql(kbx::query::filterSql(f)) + ") c ON c.id = v.id ORDER BY v.id"))
        out[j["id"].get<std::int64_t>()] = j;
    return out;
}

/// Speedups as the figures define them (geometric mean over shapes of baseline/candidate, pass only).
std::map<std::int64_t, double> expectedSpeedups(const kbx::Store& store)
{
    std::map<std::int64_t, std::vector<double>> ratios;
    for (const auto& j : store.query("SELECT t.evaluation_id AS e, t.candidate_ms AS c, t.baseline_ms AS b FROM timings t "
                                     "JOIN evaluations e ON e.id = t.evaluation_id WHERE e.verdict = 'pass' ORDER BY t.evaluation_id, t.id"))
        if (j["c"].get<double>() > 0 && j["b"].get<double>() > 0)
            ratios[j["e"].get<std::int64_t>()].push_back(j["b"].get<double>() / j["c"].get<double>());
    std::map<std::int64_t, double> out;
    for (const auto& [id, r] : ratios) {
        double s = 0;
        for (double x : r)
            s += std::log(x);
        out[id] = r.size() == 1 ? r.front() : std::exp(s / double(r.size()));
    }
    return out;
}

/// Every counted row of the fast path against the definition: the same ids (none dropped, none
/// twice), the same columns, the same speedups, the same stored count.
void expectSameAsDefinition(const kbx::Store& store, const an::Filters& f, const std::string& what)
{
    SCOPED_TRACE(what + " / " + f.describe());
    const auto expected = expectedCounted(store, f);
    const auto facts = an::loadFacts(store, f);
    ASSERT_EQ(facts.rows.size(), expected.size());
    const auto speedups = expectedSpeedups(store);
    std::set<std::int64_t> seen;
    for (const auto& r : facts.rows) {
        ASSERT_TRUE(seen.insert(r.id).second) << "evaluation " << r.id << " counted twice";
        auto it = expected.find(r.id);
        ASSERT_NE(it, expected.end()) << "evaluation " << r.id << " is not counted by the rule";
        const auto& v = it->second;
        EXPECT_EQ(facts.tasks[std::size_t(r.task)], v["task_id"].get<std::string>());
        EXPECT_EQ(facts.categories[std::size_t(r.category)], v["category"].get<std::string>());
        EXPECT_EQ(facts.methods[std::size_t(r.method)], v["method"].get<std::string>());
        EXPECT_EQ(facts.gpus[std::size_t(r.gpu)], v["gpu"].get<std::string>());
        EXPECT_EQ(r.round, v["round"].get<int>());
        EXPECT_EQ(r.runId, v["run_id"].get<std::int64_t>());
        EXPECT_EQ(r.submissionId, v["submission_id"].get<std::int64_t>());
        EXPECT_EQ(r.candidateId, v["candidate_id"].get<std::int64_t>());
        EXPECT_EQ(r.pass, v["verdict"] == "pass");
        EXPECT_EQ(r.callOk, v["call_ok"].get<int>() != 0);
        EXPECT_EQ(r.exeOk, v["exe_ok"].get<int>() != 0);
        EXPECT_EQ(r.failureClass >= 0 ? json(facts.classes[std::size_t(r.failureClass)]) : json(), v["failure_class"]);
        EXPECT_EQ(r.manualClass >= 0 ? json(facts.classes[std::size_t(r.manualClass)]) : json(), v["manual_class"]);
        EXPECT_EQ(r.extOk >= 0, v["ext_cases"].is_number());
        auto sp = speedups.find(r.id);
        ASSERT_EQ(r.timed, sp != speedups.end()) << r.id;
        if (r.timed) {
            EXPECT_DOUBLE_EQ(r.speedup, sp->second);
        }
    }
    const auto stored = store.query("SELECT count(*) AS n FROM evaluation_rows WHERE " + kbx::query::filterSql(f));
    EXPECT_EQ(facts.stored, stored.front()["n"].get<std::size_t>());
    // The rows of loadRows are the facts' rows.
    EXPECT_EQ(an::loadRows(store, f).size(), expected.size());
}

std::vector<an::Filters> someFilters()
{
    std::vector<an::Filters> out(1);
    an::Filters f;
    f.methods = {"reflexion"};
    out.push_back(f);
    f = {};
    f.gpus = {"NVIDIA H200", "L40S"};
    out.push_back(f);
    f = {};
    f.rounds = {1, 2};
    f.categories = {"Activation", "Math"};
    out.push_back(f);
    f = {};
    f.tasks = {"Activation/relu", "Fusion/gemm_relu"};
    f.gpus = {"CPU (Triton interpreter)"};
    out.push_back(f);
    return out;
}

/// A report as JSON without its time and path.
std::string reportJson(kbx::Store& store, const std::string& table, const an::Filters& f = {})
{
    auto rep = st::buildReport(store, table, f, {false});
    rep.provenance.erase("generated_at");
    rep.provenance.erase("database");
    return st::render(rep, st::Format::Json);
}

class CountingScale : public ::testing::Test {
protected:
    void SetUp() override
    {
        path = tempDb(::testing::UnitTest::GetInstance()->current_test_info()->name());
        store = std::make_unique<kbx::Store>(path);
        gen = generate(*store, 20261202);
    }
    void TearDown() override
    {
        store.reset();
        removeDb(path);
    }
    fs::path path;
    std::unique_ptr<kbx::Store> store;
    Generated gen;
};

}  // namespace

TEST_F(CountingScale, DerivedTablesAreCurrentAfterAWritableOpen)
{
    EXPECT_TRUE(kbx::derived::current(*store));
    EXPECT_FALSE(kbx::derived::prepare(*store));  // the file's own tables, nothing computed
    // Re-evaluations are there: more stored than counted, and a submission on two devices.
    const auto facts = an::loadFacts(*store, {});
    EXPECT_LT(facts.rows.size(), facts.stored);
    EXPECT_GT(facts.rows.size(), 100u);
    EXPECT_GE(facts.gpus.size(), 4u);
}

TEST_F(CountingScale, FastPathCountsWhatTheRuleCountsUnderEveryFilter)
{
    for (const auto& f : someFilters())
        expectSameAsDefinition(*store, f, "generated");
}

TEST_F(CountingScale, TriggersFollowEveryWrite)
{
    // A re-evaluation of counted submissions in a new run on the same GPU: it replaces them.
    const auto run = store->beginRun("cuda", {{"devices", {{{"name", "NVIDIA A100-SXM4-80GB"}}}}}, {0}, 9, {});
    for (int i = 0; i < 20; ++i) {
        kbx::EvaluationRecord r;
        r.runId = run;
        r.submissionId = gen.submissions[std::size_t(i)];
        r.taskId = store->query("SELECT c.task_id FROM submissions s JOIN candidates c ON c.id = s.candidate_id WHERE s.id = " +
                                std::to_string(r.submissionId))
                       .front()["task_id"]
                       .get<std::string>();
        r.pass = r.callOk = r.exeOk = i % 2 == 0;
        if (!r.pass)
            r.failureClass = "timeout";
        store->addEvaluation(r);
    }
    expectSameAsDefinition(*store, {}, "re-evaluated");
    // The run's GPU named only when it finishes (the view's GPU of every evaluation changes).
    store->finishRun(run, "finished", {{"devices", {{{"name", "NVIDIA H200"}}}}});
    expectSameAsDefinition(*store, {}, "GPU changed");
    // The perf stage fails a kernel that passed (verdict and class change after the insert).
    for (const auto& j : store->query("SELECT c.evaluation_id AS id FROM counted_evaluations c WHERE c.verdict = 'pass' LIMIT 3")) {
        const auto id = j["id"].get<std::int64_t>();
        store->addPerf(id, {}, {{"protocol", "kbx-perf v1"}}, std::make_pair(std::string("not_triton_kernel"), std::string("x")));
        // The verdict and class change; call_ok and exe_ok stay (exe in the seed's sense: the outputs were right).
        const auto e = store->query("SELECT verdict, failure_class, call_ok, exe_ok FROM evaluations WHERE id = " + std::to_string(id));
        EXPECT_EQ(e.at(0)["verdict"], "fail");
        EXPECT_EQ(e.at(0)["failure_class"], "not_triton_kernel");
        EXPECT_EQ(e.at(0)["call_ok"], 1);
        EXPECT_EQ(e.at(0)["exe_ok"], 1);
    }
    expectSameAsDefinition(*store, {}, "verdict changed");
    // A run removed as kbx merge replaces one (its rows deleted): the earlier evaluations count again.
    const auto victim = gen.runs[3];
    for (const char* t : {"case_results", "timings", "manual_labels"})
        store->query(std::string("DELETE FROM ") + t + " WHERE evaluation_id IN (SELECT id FROM evaluations WHERE run_id = " +
                     std::to_string(victim) + ")");
    store->query("DELETE FROM evaluations WHERE run_id = " + std::to_string(victim));
    store->query("DELETE FROM runs WHERE id = " + std::to_string(victim));
    expectSameAsDefinition(*store, {}, "run deleted");
    // A labelled evaluation and its label deleted one by one.
    store->query("DELETE FROM manual_labels WHERE evaluation_id IN (SELECT evaluation_id FROM manual_labels LIMIT 2)");
    for (const auto& f : someFilters())
        expectSameAsDefinition(*store, f, "after every write");
    // Cases removed and changed one by one (the protocol table's summaries follow).
    store->query("DELETE FROM case_results WHERE id IN (SELECT id FROM case_results WHERE id % 5 = 0)");
    store->query("UPDATE case_results SET status = 'pass', failure_class = NULL WHERE id % 7 = 0");
    // And the tables equal what a fill from scratch gives (the TEMP computation of a read-only open).
    const auto mine = store->query("SELECT * FROM counted_evaluations ORDER BY evaluation_id");
    const auto cases = store->query("SELECT * FROM case_summaries ORDER BY evaluation_id");
    const auto rooflines = store->query("SELECT * FROM timing_rooflines ORDER BY timing_id");
    EXPECT_FALSE(cases.empty());
    EXPECT_FALSE(rooflines.empty());
    store->query("DROP TRIGGER counted_evaluations_insert");  // no longer current: computed on the fly
    EXPECT_FALSE(kbx::derived::current(*store));
    EXPECT_TRUE(kbx::derived::prepare(*store, true, true));
    EXPECT_EQ(store->query("SELECT * FROM temp.counted_evaluations ORDER BY evaluation_id"), mine);
    EXPECT_EQ(store->query("SELECT * FROM temp.case_summaries ORDER BY evaluation_id"), cases);
    EXPECT_EQ(store->query("SELECT * FROM temp.timing_rooflines ORDER BY timing_id"), rooflines);
}

TEST_F(CountingScale, ReadOnlyOpenWithoutDerivedTablesGivesTheSameReports)
{
    std::map<std::string, std::string> writable;
    for (const auto& t : st::tableNames())
        writable[t] = reportJson(*store, t);
    // The file as an older kbx left it: no derived tables, no triggers.
    for (const auto& j : store->query("SELECT type, name FROM sqlite_master WHERE name LIKE 'counted_evaluations%' OR name LIKE "
                                      "'timing_rooflines%' OR name LIKE 'case_summaries%' OR name = 'evaluations_run_taxonomy'"))
        if (j["type"] == "trigger")
            store->query("DROP TRIGGER " + j["name"].get<std::string>());
    store->query("DROP TABLE counted_evaluations");
    store->query("DROP TABLE timing_rooflines");
    store->query("DROP TABLE case_summaries");
    store->query("DROP INDEX evaluations_run_taxonomy");
    store.reset();
    kbx::Store ro(path, kbx::OpenMode::ReadOnly);
    EXPECT_FALSE(kbx::derived::current(ro));
    expectSameAsDefinition(ro, {}, "read-only, on the fly");
    for (const auto& t : st::tableNames())
        EXPECT_EQ(reportJson(ro, t), writable[t]) << t;
    EXPECT_TRUE(ro.query("SELECT name FROM main.sqlite_master WHERE name = 'counted_evaluations'").empty());  // nothing written
}

TEST_F(CountingScale, RowAndFactFunctionsAgree)
{
    // The tables from rows built by the definition's SQL (the view) equal those of the fast path.
    const auto expected = expectedCounted(*store);
    const auto speedups = expectedSpeedups(*store);
    std::vector<an::Row> rows;
    for (const auto& [id, v] : expected) {
        an::Row r;
        r.id = id;
        r.runId = v["run_id"].get<std::int64_t>();
        r.submissionId = v["submission_id"].get<std::int64_t>();
        r.candidateId = v["candidate_id"].get<std::int64_t>();
        r.taskId = v["task_id"].get<std::string>();
        r.category = v["category"].get<std::string>();
        r.method = v["method"].get<std::string>();
        r.round = v["round"].get<int>();
        r.gpu = v["gpu"].get<std::string>();
        r.pass = v["verdict"] == "pass";
        r.callOk = v["call_ok"].get<int>() != 0;
        r.exeOk = v["exe_ok"].get<int>() != 0;
        if (v["failure_class"].is_string())
            r.failureClass = v["failure_class"].get<std::string>();
        if (v["manual_class"].is_string())
            r.manualClass = v["manual_class"].get<std::string>();
        if (v["ext_cases"].is_number())
            r.extOk = v["ext_passed"] == v["ext_cases"];
        if (auto it = speedups.find(id); it != speedups.end()) {
            r.speedup = it->second;
            double b = 0, c = 0;
            for (const auto& t : store->query("SELECT candidate_ms AS c, baseline_ms AS b FROM timings WHERE evaluation_id = " +
                                              std::to_string(id) + " ORDER BY id")) {
                b += t["b"].get<double>();
                c += t["c"].get<double>();
            }
            r.baselineMsSum = b;
            r.candidateMsSum = c;
        }
        rows.push_back(std::move(r));
    }
    const auto facts = an::loadFacts(*store, {});
    auto summary = [](const std::vector<st::MethodSummary>& ms) {
        json j = json::array();
        for (const auto& m : ms)
            j.push_back({m.gpu, m.method, m.round, m.n, m.call.k, m.exe.k, m.exeExt.k, m.exeGivenCall.k, m.speedup.n,
                         m.speedup.geomean.value_or(0), m.speedup.geomeanCI ? m.speedup.geomeanCI->lo : 0, m.fastP});
        return j;
    };
    EXPECT_EQ(summary(st::methodSummary(rows)), summary(st::methodSummary(facts)));
    EXPECT_FALSE(st::methodSummary(facts).empty());
    const auto a = an::compute(rows, {}), b = an::compute(*store, {});
    EXPECT_EQ(a.rowCount, b.rowCount);
    EXPECT_EQ(a.runs, b.runs);
    ASSERT_EQ(a.correctness.methods, b.correctness.methods);
    ASSERT_EQ(a.correctness.categories, b.correctness.categories);
    for (std::size_t c = 0; c < a.correctness.categories.size(); ++c)
        for (std::size_t m = 0; m < a.correctness.methods.size(); ++m) {
            EXPECT_EQ(a.correctness.cells[c][m].exe.k, b.correctness.cells[c][m].exe.k);
            EXPECT_EQ(a.correctness.cells[c][m].exe.n, b.correctness.cells[c][m].exe.n);
        }
    EXPECT_EQ(a.taxonomyByMethod.automatic, b.taxonomyByMethod.automatic);
    EXPECT_EQ(a.taxonomyByCategory.reviewed, b.taxonomyByCategory.reviewed);
    // The per-round counts of core/rounds against the rule's SQL.
    const auto ra = kbx::rounds::analyseRounds(*store);
    std::map<std::tuple<std::string, std::string, int>, std::tuple<int, int, int>> byRound;
    for (const auto& [id, v] : expected) {
        auto& [n, call, exe] = byRound[{v["gpu"].get<std::string>(), v["method"].get<std::string>(), v["round"].get<int>()}];
        ++n;
        call += v["call_ok"].get<int>() != 0;
        exe += v["exe_ok"].get<int>() != 0;
    }
    ASSERT_EQ(ra.rounds.size(), byRound.size());
    for (const auto& r : ra.rounds)
        EXPECT_EQ(std::make_tuple(r.n, r.callOk, r.exeOk), byRound.at({r.gpu, r.method, r.round})) << r.gpu << " " << r.method << " " << r.round;
    // Store::report() (the summary of kbx report, its own SQL over the view) counts the same.
    int total = 0;
    for (const auto& r : store->report())
        total += r.total;
    EXPECT_EQ(std::size_t(total), facts.rows.size());
}

TEST_F(CountingScale, MergedDatabaseCountsLikeItsDefinition)
{
    store.reset();
    const auto other = tempDb("merge-other");
    {
        kbx::Store s(other);
        generate(s, 7, 60);
    }
    const auto out = tempDb("merge-out");
    kbx::mergeDatabase(out, path);
    kbx::mergeDatabase(out, other);
    kbx::mergeDatabase(out, path);  // again: nothing changes
    {
        kbx::Store s(out);
        EXPECT_TRUE(kbx::derived::current(s));
        for (const auto& f : someFilters())
            expectSameAsDefinition(s, f, "merged");
    }
    removeDb(other);
    removeDb(out);
}

// The protocol table (the seed's cases, the contract tier, strict) against its definition written
// out over the evaluations' evidence and cases, as the table read them before the summaries.
TEST_F(CountingScale, ProtocolTableCountsWhatTheCasesSay)
{
    std::map<std::pair<std::string, std::string>, std::tuple<int, int, int, int>> expected;  // (gpu, method) -> n, seed, contract, strict
    const auto counted = expectedCounted(*store);
    for (const auto& e : store->query(R"SQL(
SELECT e.id, e.ext_cases, e.ext_passed,
       json_extract(e.evidence, '$.tiers.contract.exe_ok') AS c_exe, json_extract(e.evidence, '$.tiers.contract.pass') AS c_pass,
       json_extract(e.evidence, '$.tiers.contract.failure_class') AS c_class,
       (SELECT count(*) FROM case_results c WHERE c.evaluation_id = e.id AND c.tier = 'contract' AND c.name LIKE 'seed0/%') AS a_n,
       (SELECT count(*) FROM case_results c WHERE c.evaluation_id = e.id AND c.tier = 'contract' AND c.name LIKE 'seed0/%'
          AND c.status = 'pass') AS a_pass
FROM evaluations e WHERE e.protocol IS NOT NULL)SQL")) {
        auto it = counted.find(e["id"].get<std::int64_t>());
        if (it == counted.end())
            continue;
        auto truthy = [](const json& v) { return v.is_number() && v.get<double>() != 0; };
        const bool b = truthy(e["c_pass"]);
        const bool a = e["a_n"].get<int>() > 0 && e["a_pass"] == e["a_n"] && (truthy(e["c_exe"]) || e["c_class"] == "not_triton_kernel");
        const bool c = b && (e["ext_cases"].is_null() || e["ext_passed"] == e["ext_cases"]);
        auto& [n, sa, sb, sc] = expected[{it->second["gpu"].get<std::string>(), it->second["method"].get<std::string>()}];
        ++n;
        sa += a;
        sb += b;
        sc += c;
    }
    ASSERT_FALSE(expected.empty());
    const auto rep = st::buildReport(*store, "protocol", {}, {false});
    std::map<std::pair<std::string, std::string>, std::tuple<int, int, int, int>> got;
    for (const auto& row : rep.tables.at(0).rows)
        if (row[2] == "(all)")
            got[{row[0].get<std::string>(), row[1].get<std::string>()}] = {row[3].get<int>(), row[4].get<int>(), row[6].get<int>(), row[9].get<int>()};
    EXPECT_EQ(got, expected);
    EXPECT_FALSE(rep.tables.at(1).rows.empty());  // some verdicts differ between protocols
}

// The statistics of many groups at once give each group's own interval.
TEST(CountingScaleStats, BootstrapOfManyGroupsEqualsOneByOne)
{
    std::mt19937_64 rng(5);
    std::vector<st::BootstrapJob> jobs(40);
    std::vector<std::optional<kbx::analysis::Interval>> out(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        for (std::size_t k = 0, n = 1 + rng() % 3000; k < n; ++k)
            jobs[i].values.push_back(0.1 + double(rng() % 10000) / 1000.0);
        jobs[i].out = i % 7 == 3 ? nullptr : &out[i];
    }
    auto copy = jobs;
    st::bootstrapGeomeanCIs(jobs);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (!copy[i].out) {
            EXPECT_FALSE(out[i]);
            continue;
        }
        ASSERT_TRUE(out[i]);
        const auto one = st::bootstrapGeomeanCI(copy[i].values);
        EXPECT_EQ(out[i]->lo, one.lo);
        EXPECT_EQ(out[i]->hi, one.hi);
    }
}
