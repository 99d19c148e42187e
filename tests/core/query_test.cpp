// SPDX-License-Identifier: MIT
// The read-query layer (core/query.h) on a small database built here: every evaluation comes back
// whole (a join that drops a row, a NULL or a column fails these), the Results window gives the same
// rows whichever way it is read, and the counts follow the reports' rule.
#include "query.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <unistd.h>

using namespace kbx;
namespace q = kbx::query;
namespace fs = std::filesystem;

namespace {

fs::path tempDb(const std::string& name)
{
    auto p = fs::temp_directory_path() / ("kbx-query-" + name + "-" + std::to_string(getpid()) + ".sqlite");
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(p.string() + suffix);
    return p;
}

/// Evaluations of three tasks by two methods on a CPU run, an H200 run and an imported run: a
/// re-evaluation, failures at both stages, a manual label, timings (one shape, two shapes, a failed
/// shape), the extended tier, a submission without origin and an evaluation without cases.
class QueryDb : public ::testing::Test {
protected:
    void SetUp() override
    {
        path = tempDb(::testing::UnitTest::GetInstance()->current_test_info()->name());
        store = std::make_unique<Store>(path);
        Store& s = *store;
        const auto alpha = s.ensureMethod("alpha"), beta = s.ensureMethod("beta");
        const auto relu = s.ensureCandidate("Activation/relu", "def relu(x): pass\n").first;
        const auto add = s.ensureCandidate("Math/add", "def add(a, b): pass\n").first;
        const auto mse = s.ensureCandidate("Loss/mse_100%_x", "def mse(a, b): pass\n").first;
        subRelu = s.ensureSubmission(relu, alpha, 0, "relu.jsonl:1");
        subAdd = s.ensureSubmission(add, beta, 1, "");
        subMse = s.ensureSubmission(mse, alpha, 2, "mse.jsonl:3");
        cpu = s.beginRun("cpu", {{"torch", "2"}}, {0, 1}, 11, {});
        const auto h200 = nlohmann::json::parse(R"({"devices": [{"name": "NVIDIA H200"}]})");
        gpu = s.beginRun("cuda", h200, {2, 3}, 12, {});
        s.query(fmt::format("UPDATE submissions SET origin = NULL WHERE id = {}", subAdd));

        // relu: failed on the CPU, passed twice on the GPU (the second counts), two shapes timed.
        eReluCpu = s.addEvaluation(record(cpu, subRelu, "Activation/relu", false, true, "value_mismatch", "max abs err 0.5"));
        eReluGpu1 = s.addEvaluation(record(gpu, subRelu, "Activation/relu", true, true, {}, ""));
        eReluGpu2 = s.addEvaluation(record(gpu, subRelu, "Activation/relu", true, true, {}, ""));
        s.addPerf(eReluGpu2, {{"small", 2.0, 4.0, {{"k", 1}}}, {"large", 1.0, 9.0, {{"k", 2}}}}, {{"geomean", 3}});
        s.addPerf(eReluGpu1, {{"small", 2.0, 3.0, nlohmann::json::object()}}, nlohmann::json::object());
        // add: fails to call on the GPU, no cases stored.
        auto r = record(gpu, subAdd, "Math/add", false, false, "syntax_error", "SyntaxError: bad_thing 100%");
        r.cases.clear();
        eAdd = s.addEvaluation(r);
        // mse: passes with the extended tier run, one timed shape failed, labelled by hand.
        r = record(gpu, subMse, "Loss/mse_100%_x", true, true, {}, "");
        r.protocol = "contract";
        r.extCases = 4;
        r.extPassed = 3;
        r.extFailureClass = "value_mismatch";
        eMse = s.addEvaluation(r);
        s.addPerf(eMse, {{"bad", std::nullopt, 1.0, {{"error", "x"}}}}, nlohmann::json::object());
        s.setManualLabel(eReluCpu, "value_mismatch", "right", "tester");
        s.setManualLabel(eAdd, "runtime_error", "wrong", "tester");
        s.finishRun(cpu, "finished", {});
        s.finishRun(gpu, "finished", h200);  // the provenance is replaced at the end
    }
    void TearDown() override
    {
        store.reset();
        for (const char* suffix : {"", "-wal", "-shm"})
            fs::remove(path.string() + suffix);
    }

    static EvaluationRecord record(std::int64_t run, std::int64_t sub, const std::string& task, bool pass, bool callOk,
                                   std::optional<std::string> cls, const std::string& detail)
    {
        EvaluationRecord r;
        r.runId = run;
        r.submissionId = sub;
        r.taskId = task;
        r.pass = pass;
        r.callOk = callOk;
        r.exeOk = pass;
        r.failureClass = cls;
        r.failureDetail = detail;
        r.evidence = {{"first_failure", {{"case", "edge"}}}};
        r.startedAt = r.finishedAt = nowIso8601();
        r.cases.push_back({0, "edge", pass ? "pass" : "fail", cls, {{"max_abs_err", 0.5}}, "contract"});
        r.cases.push_back({1, "wide", "pass", std::nullopt, nlohmann::json(), "extended"});
        return r;
    }

    std::vector<std::int64_t> allIds() const
    {
        std::vector<std::int64_t> ids;
        for (const auto& r : store->query("SELECT id FROM evaluations ORDER BY id"))
            ids.push_back(r["id"].get<std::int64_t>());
        return ids;
    }

    fs::path path;
    std::unique_ptr<Store> store;
    std::int64_t subRelu = 0, subAdd = 0, subMse = 0, cpu = 0, gpu = 0;
    std::int64_t eReluCpu = 0, eReluGpu1 = 0, eReluGpu2 = 0, eAdd = 0, eMse = 0;
};

std::vector<std::int64_t> idsOf(const std::vector<q::ListedEvaluation>& rows)
{
    std::vector<std::int64_t> ids;
    for (const auto& r : rows)
        ids.push_back(r.id);
    return ids;
}

}  // namespace

TEST_F(QueryDb, EveryEvaluationLoadsWholeAndItsRowIsTheViews)
{
    for (const auto id : allIds()) {
        const auto e = q::loadEvaluation(*store, id);
        ASSERT_TRUE(e) << id;
        // Every column of the view, with its type and NULLs, as the view gives it.
        EXPECT_EQ(q::toJson(e->row), store->query(fmt::format("SELECT * FROM evaluation_rows WHERE id = {}", id)).at(0)) << id;
        const auto raw = store->query(fmt::format("SELECT e.evidence, e.stage_seconds, c.code, c.code_hash, s.origin, ru.public_seeds, "
                                                  "ru.secret_seed FROM evaluations e JOIN submissions s ON s.id = e.submission_id "
                                                  "JOIN candidates c ON c.id = s.candidate_id JOIN runs ru ON ru.id = e.run_id "
                                                  "WHERE e.id = {}",
                                                  id))
                             .at(0);
        EXPECT_EQ(nlohmann::json(e->evidence), raw["evidence"]);
        EXPECT_EQ(nlohmann::json(e->stageSeconds), raw["stage_seconds"]);
        EXPECT_EQ(nlohmann::json(e->code), raw["code"]);
        EXPECT_EQ(nlohmann::json(e->codeHash), raw["code_hash"]);
        EXPECT_EQ(e->origin.has_value(), !raw["origin"].is_null());
        EXPECT_EQ(nlohmann::json(e->publicSeeds), raw["public_seeds"]);
        EXPECT_EQ(nlohmann::json(e->secretSeed), raw["secret_seed"]);
        EXPECT_EQ(e->cases.size(), store->query(fmt::format("SELECT count(*) AS n FROM case_results WHERE evaluation_id = {}", id))[0]["n"]);
        EXPECT_EQ(e->timings.size(), store->query(fmt::format("SELECT count(*) AS n FROM timings WHERE evaluation_id = {}", id))[0]["n"]);
    }
    EXPECT_FALSE(q::loadEvaluation(*store, 99999));
}

TEST_F(QueryDb, OneEvaluationInDetail)
{
    const auto e = q::loadEvaluation(*store, eReluGpu2);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->row.taskId, "Activation/relu");
    EXPECT_EQ(e->row.category, "Activation");
    EXPECT_EQ(e->row.method, "alpha");
    EXPECT_EQ(e->row.gpu, "NVIDIA H200");
    EXPECT_EQ(e->row.stage, "pass");
    EXPECT_FALSE(e->row.manualClass);
    EXPECT_EQ(e->origin, "relu.jsonl:1");
    EXPECT_EQ(e->publicSeeds, "[2,3]");
    EXPECT_EQ(e->secretSeed, 12);
    ASSERT_EQ(e->cases.size(), 2u);
    EXPECT_EQ(e->cases[0].name, "edge");
    EXPECT_EQ(e->cases[1].tier, "extended");
    EXPECT_FALSE(e->cases[1].evidence && *e->cases[1].evidence != "null");
    ASSERT_EQ(e->timings.size(), 2u);  // in the order timed
    EXPECT_EQ(e->timings[0].shape, "small");
    EXPECT_EQ(e->timings[1].shape, "large");
    EXPECT_DOUBLE_EQ(*e->timings[1].baselineMs, 9.0);

    const auto add = q::loadEvaluation(*store, eAdd);  // no origin, no cases, a manual label
    ASSERT_TRUE(add);
    EXPECT_FALSE(add->origin);
    EXPECT_TRUE(add->cases.empty());
    EXPECT_EQ(add->row.stage, "call");
    EXPECT_EQ(add->row.manualClass, "runtime_error");
    EXPECT_EQ(add->row.manualNote, "wrong");

    const auto mse = q::loadEvaluation(*store, eMse);
    ASSERT_TRUE(mse);
    EXPECT_EQ(mse->row.extCases, 4);
    EXPECT_EQ(mse->row.extPassed, 3);
    EXPECT_EQ(mse->row.correctExt, false);
    EXPECT_EQ(mse->row.protocol, "contract");
    ASSERT_EQ(mse->timings.size(), 1u);
    EXPECT_FALSE(mse->timings[0].candidateMs);
}

TEST_F(QueryDb, LabelsRunsAndSpeedups)
{
    const auto a = q::labelAgreement(*store);
    EXPECT_EQ(a.labelled, 2);
    EXPECT_EQ(a.agree, 1);  // the CPU failure's class agrees, add's does not
    EXPECT_EQ(q::evaluationIdsOfRun(*store, gpu), (std::vector<std::int64_t>{eReluGpu1, eReluGpu2, eAdd, eMse}));
    EXPECT_EQ(q::evaluationIdsOfRun(*store, cpu), (std::vector<std::int64_t>{eReluCpu}));
    EXPECT_EQ(q::evaluationCount(*store), 5);

    // The reports' rule: one shape the ratio itself, two the geometric mean, none without a usable shape.
    const auto sp = q::speedups(*store);
    ASSERT_EQ(sp.size(), 2u);
    EXPECT_EQ(sp.at(eReluGpu1).first, 1.5);
    EXPECT_EQ(sp.at(eReluGpu1).second, 1);
    EXPECT_DOUBLE_EQ(sp.at(eReluGpu2).first, std::sqrt(2.0 * 9.0));
    EXPECT_EQ(sp.at(eReluGpu2).second, 2);
    EXPECT_FALSE(sp.count(eMse));
}

TEST_F(QueryDb, ChoicesAndRuns)
{
    EXPECT_EQ(q::methodNames(*store), (std::vector<std::string>{"alpha", "beta"}));
    EXPECT_EQ(q::submissionRounds(*store), (std::vector<std::int64_t>{0, 1, 2}));
    EXPECT_EQ(q::runGpus(*store), (std::vector<std::string>{"CPU (Triton interpreter)", "NVIDIA H200"}));
    EXPECT_EQ(q::evaluatedCategories(*store), (std::vector<std::string>{"Activation", "Loss", "Math"}));
    EXPECT_EQ(q::evaluatedGpus(*store), (std::vector<std::string>{"CPU (Triton interpreter)", "NVIDIA H200"}));
    const auto runs = q::listRuns(*store);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].id, cpu);
    EXPECT_EQ(runs[0].where, "CPU");
    EXPECT_EQ(runs[0].evaluations, 1);
    EXPECT_EQ(runs[1].where, "NVIDIA H200");
    EXPECT_EQ(runs[1].evaluations, 4);
    EXPECT_EQ(runs[1].status, "finished");
    EXPECT_EQ(runs[1].secretSeed, 12);
}

TEST_F(QueryDb, CountsPerTaskFollowTheReportsRule)
{
    // relu: CPU #1 and GPU #3 (not #2) count; add and mse once each.
    auto c = q::countedByTask(*store, "", std::nullopt, "");
    ASSERT_EQ(c.size(), 3u);
    EXPECT_EQ(c["Activation/relu"].evaluated, 2);
    EXPECT_EQ(c["Activation/relu"].callOk, 2);
    EXPECT_EQ(c["Activation/relu"].passed, 1);
    EXPECT_EQ(c["Math/add"].callOk, 0);
    c = q::countedByTask(*store, "alpha", 0, "NVIDIA H200");
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c["Activation/relu"].evaluated, 1);
    EXPECT_TRUE(q::countedByTask(*store, "beta", 0, "").empty());

    const auto tasks = q::taskSummaries(*store);
    ASSERT_EQ(tasks.size(), 3u);
    EXPECT_EQ(tasks[0].taskId, "Activation/relu");
    EXPECT_EQ(tasks[0].n, 2);
    EXPECT_EQ(tasks[0].evaluations, 3);
    EXPECT_EQ(tasks[0].gpus, (std::vector<std::string>{"CPU (Triton interpreter)", "NVIDIA H200"}));
    EXPECT_EQ(tasks[0].methods, (std::vector<std::string>{"alpha"}));

    analysis::Filters f;
    EXPECT_EQ(q::countedOutcomes(*store, f).size(), 4u);
    f.gpus = {"NVIDIA H200"};
    EXPECT_EQ(q::countedOutcomes(*store, f).size(), 3u);
}

TEST_F(QueryDb, EvaluationRowsAndTimedShapesForThePythonModule)
{
    analysis::Filters f;
    EXPECT_EQ(q::evaluationRows(*store, f, false).size(), 5u);
    EXPECT_EQ(q::evaluationRows(*store, f, true).size(), 3u);  // the latest of each submission
    f.methods = {"alpha"};
    f.tasks = {"Activation/relu"};
    const auto rows = q::evaluationRows(*store, f, false);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].id, eReluCpu);
    EXPECT_EQ(rows[0].manualClass, "value_mismatch");
    EXPECT_EQ(q::timedShapes(*store, std::nullopt, false).size(), 4u);
    const auto t = q::timedShapes(*store, eReluGpu2, true);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].method, "alpha");
    EXPECT_EQ(t[0].gpu, "NVIDIA H200");
    EXPECT_EQ(*t[0].timing.samples, "{\"k\":1}");
    EXPECT_FALSE(q::timedShapes(*store, eReluGpu2, false)[0].timing.samples);
    EXPECT_TRUE(q::listImports(*store).empty());
    EXPECT_TRUE(q::listGoldenTimings(*store, {}, {}).empty());
    EXPECT_TRUE(q::listSeedSummaries(*store).empty());
}

TEST_F(QueryDb, ResultsFilters)
{
    auto ids = [&](const q::EvaluationFilter& f) {
        const auto rows = q::listEvaluations(*store, f, {});
        EXPECT_EQ(q::countEvaluations(*store, f), static_cast<std::int64_t>(rows.size()));
        return idsOf(rows);
    };
    using V = std::vector<std::int64_t>;
    EXPECT_EQ(ids({}), allIds());
    q::EvaluationFilter f;
    f.method = "beta";
    EXPECT_EQ(ids(f), V{eAdd});
    f = {};
    f.round = 2;
    EXPECT_EQ(ids(f), V{eMse});
    f = {};
    f.gpu = "CPU (Triton interpreter)";
    EXPECT_EQ(ids(f), V{eReluCpu});
    f = {};
    f.category = "Activation";
    EXPECT_EQ(ids(f), (V{eReluCpu, eReluGpu1, eReluGpu2}));
    f = {};
    f.stage = "call";
    EXPECT_EQ(ids(f), V{eAdd});
    f = {};
    f.failureClass = "";
    EXPECT_EQ(ids(f), (V{eReluGpu1, eReluGpu2, eMse}));
    f.failureClass = "syntax_error";
    EXPECT_EQ(ids(f), V{eAdd});
    f = {};
    f.text = "100%";  // LIKE's wildcards are literal: the task name and add's detail hold "100%"
    EXPECT_EQ(ids(f), (V{eAdd, eMse}));
    f.text = "bad_";
    EXPECT_EQ(ids(f), V{eAdd});
    f.text = "bad%";
    EXPECT_TRUE(ids(f).empty());
    f = {};
    f.runId = cpu;
    EXPECT_EQ(ids(f), V{eReluCpu});
    f = {};
    f.taskId = "Math/add";
    EXPECT_EQ(ids(f), V{eAdd});
    f = {};
    f.countedOnly = true;
    EXPECT_EQ(ids(f), (V{eReluCpu, eReluGpu2, eAdd, eMse}));
}

TEST_F(QueryDb, ResultsLinesAndSpeedupColumn)
{
    const auto rows = q::listEvaluations(*store, {}, {});
    ASSERT_EQ(rows.size(), 5u);
    std::map<std::int64_t, q::ListedEvaluation> byId;
    for (const auto& r : rows)
        byId[r.id] = r;
    EXPECT_EQ(byId[eReluGpu1].speedup, 1.5);
    EXPECT_DOUBLE_EQ(*byId[eReluGpu2].speedup, std::sqrt(18.0));
    EXPECT_FALSE(byId[eMse].speedup);
    EXPECT_FALSE(byId[eReluCpu].speedup);
    EXPECT_EQ(byId[eMse].extended, "3/4");
    EXPECT_EQ(byId[eAdd].extended, "");
    EXPECT_EQ(byId[eAdd].detail, "SyntaxError: bad_thing 100%");
    EXPECT_EQ(byId[eAdd].manualClass, "runtime_error");
    EXPECT_FALSE(byId[eMse].failureClass);
    EXPECT_EQ(byId[eMse].round, 2);
    EXPECT_EQ(byId[eMse].runId, gpu);

    // The CSV export's reads: whole details, the same lines.
    std::vector<std::int64_t> streamed;
    q::eachEvaluation(*store, {}, q::Column::Id, true, [&](const q::ListedEvaluation& e) { streamed.push_back(e.id); });
    auto desc = allIds();
    std::reverse(desc.begin(), desc.end());
    EXPECT_EQ(streamed, desc);
    EXPECT_EQ(idsOf(q::evaluationsById(*store, {eMse, 12345, eReluCpu})), (std::vector<std::int64_t>{eReluCpu, eMse}));
}

TEST_F(QueryDb, TheWindowReadsTheSameRowsEveryWay)
{
    // For every column and order: pages read by keyset, backwards from the end, and by offset give
    // the rows of one full read, in its order.
    for (int c = 0; c < static_cast<int>(q::Column::Count); ++c) {
        for (bool desc : {false, true}) {
            q::Window all;
            all.sort = q::Column(c);
            all.descending = desc;
            all.limit = 100;
            const auto full = idsOf(q::listEvaluations(*store, {}, all));
            ASSERT_EQ(full.size(), 5u) << c;
            std::vector<std::int64_t> paged;
            q::Window w = all;
            w.limit = 2;
            for (;;) {
                const auto page = q::listEvaluations(*store, {}, w);
                for (const auto& r : page)
                    paged.push_back(r.id);
                if (page.size() < 2u)
                    break;
                w.after = {page.back().key, page.back().id};
            }
            EXPECT_EQ(paged, full) << "keyset, column " << c << (desc ? " desc" : "");
            std::vector<std::int64_t> backwards;
            w = all;
            w.limit = 2;
            w.reverse = true;
            for (;;) {
                const auto page = q::listEvaluations(*store, {}, w);
                const auto pageIds = idsOf(page);
                backwards.insert(backwards.begin(), pageIds.begin(), pageIds.end());
                if (page.size() < 2u)
                    break;
                w.after = {page.front().key, page.front().id};
            }
            EXPECT_EQ(backwards, full) << "reverse, column " << c << (desc ? " desc" : "");
            for (int offset = 0; offset < 5; ++offset) {
                w = all;
                w.limit = 2;
                w.offset = offset;
                const auto page = idsOf(q::listEvaluations(*store, {}, w));
                EXPECT_EQ(page, std::vector<std::int64_t>(full.begin() + offset, full.begin() + std::min(offset + 2, 5)))
                    << "offset " << offset << ", column " << c;
            }
        }
    }
}

TEST_F(QueryDb, ACancelledQueryStops)
{
    std::atomic<bool> cancel{true};
    store->setCancelFlag(&cancel);
    // Enough work for the progress handler to run (a recursive count).
    EXPECT_THROW(store->each("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000) SELECT count(*) FROM n",
                             {}, [](const Store::Cursor&) {}),
                 StoreError);
    cancel = false;
    EXPECT_EQ(q::evaluationCount(*store), 5);
    store->setCancelFlag(nullptr);
}

TEST_F(QueryDb, AReadOnlyStoreReadsTheSame)
{
    Store ro(path, OpenMode::ReadOnly);
    EXPECT_EQ(idsOf(q::listEvaluations(ro, {}, {})), allIds());
    const auto e = q::loadEvaluation(ro, eReluGpu2);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->timings.size(), 2u);
}

TEST(QueryDemo, CountsPerTaskFromTheKeptRuleEqualTheRuleOverTheView)
{
    // The Tasks tab's counts come from counted_evaluations (issue 24: 3.5-7 s at 1M over the view).
    // On the demo, for every method, round and GPU filter (and none), they equal the counting rule
    // applied to the evaluation_rows view with the filters inside, as kbx report applies it.
    const auto dir = fs::temp_directory_path() / fmt::format("kbx-query-demo-{}", ::getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(KBX_TEST_DEMO_DB, dir / "demo.sqlite");
    Store store(dir / "demo.sqlite", OpenMode::ReadOnly);
    std::vector<std::string> methods = {""}, gpus = {""};
    std::vector<std::optional<int>> rounds = {std::nullopt};
    for (const auto& r : store.query("SELECT DISTINCT method, round, gpu FROM evaluation_rows")) {
        methods.push_back(r["method"].get<std::string>());
        rounds.push_back(r["round"].get<int>());
        gpus.push_back(r["gpu"].get<std::string>());
    }
    auto dedup = [](auto& v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    dedup(methods);
    dedup(rounds);
    dedup(gpus);
    ASSERT_GE(methods.size(), 3u);
    ASSERT_GE(gpus.size(), 3u);
    int combinations = 0, nonEmpty = 0;
    for (const auto& m : methods)
        for (const auto& rd : rounds)
            for (const auto& g : gpus) {
                std::string where = "1";
                if (!m.empty())
                    where += " AND method = '" + m + "'";
                if (rd)
                    where += fmt::format(" AND round = {}", *rd);
                if (!g.empty())
                    where += " AND gpu = '" + g + "'";
                std::map<std::string, q::TaskCounts> want;
                for (const auto& r : store.query("SELECT v.task_id AS t, count(*) AS n, sum(v.call_ok) AS c, sum(v.verdict = 'pass') AS p "
                                                 "FROM evaluation_rows v JOIN (SELECT max(id) AS id FROM evaluation_rows WHERE " +
                                                 where + " GROUP BY submission_id, gpu) k ON k.id = v.id GROUP BY v.task_id"))
                    want[r["t"].get<std::string>()] = {r["n"].get<int>(), r["c"].get<int>(), r["p"].get<int>()};
                const auto got = q::countedByTask(store, m, rd, g);
                ASSERT_EQ(got.size(), want.size()) << where;
                for (const auto& [t, w] : want) {
                    ASSERT_TRUE(got.count(t)) << where << " " << t;
                    EXPECT_EQ(got.at(t).evaluated, w.evaluated) << where << " " << t;
                    EXPECT_EQ(got.at(t).callOk, w.callOk) << where << " " << t;
                    EXPECT_EQ(got.at(t).passed, w.passed) << where << " " << t;
                }
                ++combinations;
                nonEmpty += !want.empty();
            }
    EXPECT_GT(nonEmpty, 5) << combinations;
    fs::remove_all(dir);
}
