// SPDX-License-Identifier: MIT
#include "catalogue.h"
#include "rounds.h"
#include "seed_import.h"
#include "store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

using namespace kbx;
namespace fs = std::filesystem;

namespace {

const fs::path kSeed = fs::path(KBX_TEST_DATA) / ".." / ".." / "fixtures" / "seed";

TaskCatalogue cat() { return TaskCatalogue::load(KBX_TEST_DATA "/tasks"); }

fs::path tempDir(const std::string& name)
{
    auto p = fs::temp_directory_path() / ("kbx-seedimport-" + name + "-" + std::to_string(getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

fs::path tempDb(const std::string& name) { return tempDir(name) / "db.sqlite"; }

void write(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

std::string slurp(const fs::path& p)
{
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), {}};
}

int count(const Store& s, const std::string& table)
{
    return s.query("SELECT count(*) AS n FROM " + table)[0]["n"].get<int>();
}

/// The ImportError message of reading `path` (empty when it reads fine).
std::string importError(const fs::path& path, ImportOptions opt = {})
{
    try {
        readSeedImport(path, opt);
    } catch (const ImportError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

TEST(SeedImport, TaskIdsAndRounds)
{
    auto c = cat();
    EXPECT_EQ(seedTaskId("Math/add.py", &c, "x"), "Math/add");
    EXPECT_EQ(seedTaskId("data/kernelbenchx/Fusion/fused_add_mean.py", nullptr, "x"), "Fusion/fused_add_mean");
    EXPECT_EQ(seedTaskId("relu.py", &c, "x"), "Activation/relu");
    EXPECT_THROW(seedTaskId("add.py", &c, "x"), ImportError);  // Math/add and Reduce/add: ambiguous
    EXPECT_THROW(seedTaskId("nothing.py", nullptr, "x"), ImportError);
    EXPECT_EQ(seedRound("round_3"), 3);
    EXPECT_EQ(seedRound(2), 2);
    EXPECT_EQ(seedRound("7"), 7);
    EXPECT_FALSE(seedRound("last").has_value());
}

TEST(SeedImport, ResultTreeBecomesImportedRunsPerGpuAndMethod)
{
    auto c = cat();
    ImportOptions opt;
    opt.catalogue = &c;
    auto batch = readSeedImport(kSeed / "results", opt);
    EXPECT_EQ(batch.format, "result-tree");
    ASSERT_EQ(batch.runs.size(), 3u);
    EXPECT_EQ(batch.summaries.size(), 1u);
    EXPECT_EQ(batch.files.size(), 4u);  // three metrics.json and one summary.json

    Store s(tempDb("tree"));
    auto sum = s.writeImport(batch);
    EXPECT_FALSE(sum.duplicate);
    EXPECT_EQ(sum.runIds.size(), 3u);
    EXPECT_EQ(sum.evaluations, 9);
    EXPECT_EQ(sum.summaries, 1);

    // The view gives imported runs their GPU and says they are imported.
    auto rows = s.query("SELECT gpu, method, round, count(*) AS n, sum(call_ok) AS c, sum(exe_ok) AS e, min(imported) AS imp "
                        "FROM evaluation_rows GROUP BY gpu, method, round ORDER BY gpu, method");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0]["gpu"], "a100");
    EXPECT_EQ(rows[0]["method"], "geak");
    EXPECT_EQ(rows[0]["n"], 2);
    EXPECT_EQ(rows[1]["gpu"], "h800");
    EXPECT_EQ(rows[1]["method"], "claude");
    EXPECT_EQ(rows[1]["c"], 3);
    EXPECT_EQ(rows[1]["e"], 2);
    EXPECT_EQ(rows[2]["method"], "geak");
    EXPECT_EQ(rows[2]["n"], 4);
    EXPECT_EQ(rows[2]["c"], 3);
    EXPECT_EQ(rows[2]["e"], 2);
    EXPECT_EQ(rows[2]["imp"], 1);
    // kbx report groups them by GPU, method and round.
    auto report = s.report();
    std::set<std::string> gpus;
    for (const auto& r : report)
        gpus.insert(r.gpu);
    EXPECT_EQ(gpus, (std::set<std::string>{"a100", "h800"}));

    // Provenance names the file, the GPU and the format.
    auto runs = s.query("SELECT device, status, json_extract(provenance, '$.gpu') AS gpu, json_extract(provenance, '$.format') AS format, "
                        "json_extract(provenance, '$.file') AS file, json_extract(provenance, '$.seed_summary.total') AS st FROM runs ORDER BY id");
    ASSERT_EQ(runs.size(), 3u);
    for (const auto& r : runs) {
        EXPECT_EQ(r["device"], "imported");
        EXPECT_EQ(r["status"], "imported");
        EXPECT_EQ(r["format"], "seed-metrics");
        EXPECT_TRUE(r["file"].get<std::string>().ends_with("metrics.json"));
    }
    EXPECT_EQ(runs[2]["st"], 4);  // h800/geak carries its summary

    // The seed's speedup as a timing row (baseline / candidate = speedup), code cleaned of the test section.
    auto t = s.query("SELECT e.task_id, t.candidate_ms, t.baseline_ms FROM timings t JOIN evaluations e ON e.id = t.evaluation_id "
                     "JOIN runs r ON r.id = e.run_id WHERE json_extract(r.provenance, '$.gpu') = 'h800' AND e.task_id = 'Fusion/fused_add_mean'");
    ASSERT_EQ(t.size(), 1u);
    EXPECT_NEAR(t[0]["baseline_ms"].get<double>() / t[0]["candidate_ms"].get<double>(), 1.45, 1e-12);
    auto code = s.query("SELECT c.code FROM candidates c WHERE c.task_id = 'Activation/relu'");
    for (const auto& r : code)
        EXPECT_EQ(r["code"].get<std::string>().find("test_results"), std::string::npos);
    // A verdict without code gets a placeholder naming its source.
    auto ph = s.query("SELECT c.code FROM candidates c WHERE c.task_id = 'Reduce/max' AND c.code LIKE '# kbx import:%'");
    EXPECT_EQ(ph.size(), 2u);  // h800/geak (empty code) and h800/claude (no code field)
    // Failed verdicts say where they failed.
    auto fail = s.query("SELECT verdict, failure_class, failure_detail, json_extract(evidence, '$.failure_class_inferred.from') AS inferred "
                        "FROM evaluations WHERE task_id = 'Math/add' AND exe_ok = 0 LIMIT 1");
    EXPECT_EQ(fail[0]["verdict"], "fail");
    // The class is inferred from the seed's text and stage (issue 23), and marked as inferred.
    EXPECT_EQ(fail[0]["failure_class"], "value_mismatch");
    EXPECT_EQ(fail[0]["inferred"], "the seed's error text");
    EXPECT_NE(fail[0]["failure_detail"].get<std::string>().find("exe stage failed"), std::string::npos);
    EXPECT_NE(fail[0]["failure_detail"].get<std::string>().find("class inferred"), std::string::npos);

    // The same content again: nothing written.
    auto again = s.writeImport(readSeedImport(kSeed / "results", opt));
    EXPECT_TRUE(again.duplicate);
    EXPECT_EQ(again.importId, sum.importId);
    EXPECT_EQ(count(s, "evaluations"), 9);
    EXPECT_EQ(count(s, "runs"), 3);
}

TEST(SeedImport, SingleMetricsFileTakesLayoutOrOptions)
{
    auto c = cat();
    ImportOptions opt;
    opt.catalogue = &c;
    auto b = readSeedImport(kSeed / "results" / "h800" / "claude" / "metrics.json", opt);
    EXPECT_EQ(b.format, "seed-metrics");
    ASSERT_EQ(b.runs.size(), 1u);
    EXPECT_EQ(b.runs[0].gpu, "h800");
    EXPECT_EQ(b.runs[0].method, "claude");
    // Sparse entry (only the verdicts) reads fine.
    opt.gpu = "NVIDIA H800";
    opt.method = "claude-4";
    opt.round = 2;
    b = readSeedImport(kSeed / "results" / "h800" / "claude" / "metrics.json", opt);
    EXPECT_EQ(b.runs[0].gpu, "NVIDIA H800");
    EXPECT_EQ(b.runs[0].method, "claude-4");
    for (const auto& e : b.runs[0].evaluations)
        EXPECT_EQ(e.round, 2);
    // summary.json given: imported together with its metrics.json.
    opt = {};
    opt.catalogue = &c;
    b = readSeedImport(kSeed / "results" / "h800" / "geak" / "summary.json", opt);
    EXPECT_EQ(b.format, "seed-metrics");
    EXPECT_EQ(b.runs.size(), 1u);
    EXPECT_EQ(b.summaries.size(), 1u);
}

TEST(SeedImport, SummaryAloneKeepsTheAggregates)
{
    auto dir = tempDir("summary");
    write(dir / "h800" / "geak" / "summary.json", slurp(kSeed / "results" / "h800" / "geak" / "summary.json"));
    auto b = readSeedImport(dir / "h800" / "geak" / "summary.json", {});
    EXPECT_EQ(b.format, "seed-summary");
    EXPECT_TRUE(b.runs.empty());
    Store s(dir / "db.sqlite");
    s.writeImport(b);
    auto r = s.query("SELECT gpu, method, total, call_pass, exe_pass, avg_speedup FROM seed_summaries");
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0]["gpu"], "h800");
    EXPECT_EQ(r[0]["total"], 4);
    EXPECT_EQ(r[0]["exe_pass"], 2);
    EXPECT_NEAR(r[0]["avg_speedup"].get<double>(), 1.21, 1e-12);
}

TEST(SeedImport, MalformedOrPartialFilesArePreciseErrorsAndWriteNothing)
{
    auto dir = tempDir("bad");
    const auto good = slurp(kSeed / "results" / "h800" / "geak" / "metrics.json");
    // Truncated: line and column, and a hint.
    write(dir / "trunc" / "g" / "m" / "metrics.json", good.substr(0, good.size() / 2));
    auto msg = importError(dir / "trunc" / "g" / "m" / "metrics.json");
    EXPECT_NE(msg.find("metrics.json:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ends early"), std::string::npos) << msg;
    // A wrong type names the key.
    write(dir / "type" / "g" / "m" / "metrics.json", R"({"Math/add.py": {"call_ok": "yes", "exe_ok": false}})");
    msg = importError(dir / "type" / "g" / "m" / "metrics.json");
    EXPECT_NE(msg.find("key 'Math/add.py'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"call_ok\" is \"yes\""), std::string::npos) << msg;
    // A missing verdict names the key.
    write(dir / "miss" / "g" / "m" / "metrics.json", R"({"Math/add.py": {"call_ok": true, "exe_ok": true}, "Math/sub.py": {"call_ok": true}})");
    msg = importError(dir / "miss" / "g" / "m" / "metrics.json");
    EXPECT_NE(msg.find("key 'Math/sub.py': no \"exe_ok\""), std::string::npos) << msg;
    // A speedup that is no number.
    write(dir / "num" / "g" / "m" / "metrics.json", R"({"Math/add.py": {"call_ok": true, "exe_ok": true, "speedup": "fast"}})");
    msg = importError(dir / "num" / "g" / "m" / "metrics.json");
    EXPECT_NE(msg.find("\"speedup\" is \"fast\""), std::string::npos) << msg;
    // A summary that disagrees with its metrics.json (a partial metrics.json): the summary's key.
    write(dir / "part" / "g" / "m" / "metrics.json", R"({"Math/add.py": {"call_ok": true, "exe_ok": true}})");
    write(dir / "part" / "g" / "m" / "summary.json", R"({"method": "m", "total": 2, "call_pass": 1, "exe_pass": 1})");
    msg = importError(dir / "part" / "g" / "m" / "metrics.json");
    EXPECT_NE(msg.find("summary.json: \"total\" is 2"), std::string::npos) << msg;
    // In a tree, one bad file spoils the whole import: nothing written.
    fs::create_directories(dir / "tree");
    fs::copy(kSeed / "results", dir / "tree", fs::copy_options::recursive);
    write(dir / "tree" / "h800" / "zzz" / "metrics.json", R"({"Math/add.py": {"call_ok": true, "exe_ok": 1, "runtime_ms": []}})");
    auto c = cat();
    ImportOptions withIndex;
    withIndex.catalogue = &c;
    msg = importError(dir / "tree", withIndex);
    EXPECT_NE(msg.find("zzz"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"runtime_ms\""), std::string::npos) << msg;
    // Golden: a list of objects with input_size.
    write(dir / "golden" / "h20" / "relu.json", R"([{"ms": 0.1}])");
    msg = importError(dir / "golden");
    EXPECT_NE(msg.find("relu.json: entry 0: no \"input_size\""), std::string::npos) << msg;
    // Corpus: the line.
    auto corpus = slurp(kSeed / "corpus.jsonl");
    auto second = corpus.find('\n') + 1;
    write(dir / "corpus.jsonl", corpus.substr(0, second) + "{\"task_id\": \"Math/add.py\", \"before\": {}}\n");
    ImportOptions opt;
    opt.method = "GEAK";
    msg = importError(dir / "corpus.jsonl", opt);
    EXPECT_NE(msg.find("corpus.jsonl:2: no rounds"), std::string::npos) << msg;
    write(dir / "corpus2.jsonl", corpus.substr(0, second) + corpus.substr(second, 40) + "\n");
    msg = importError(dir / "corpus2.jsonl", opt);
    EXPECT_NE(msg.find("corpus2.jsonl:2: not valid JSON"), std::string::npos) << msg;
    // Without a method the corpus cannot be placed.
    msg = importError(kSeed / "corpus.jsonl");
    EXPECT_NE(msg.find("--method"), std::string::npos) << msg;
    // Not a seed output at all.
    write(dir / "other.json", R"({"hello": 1})");
    msg = importError(dir / "other.json");
    EXPECT_NE(msg.find("not a seed output"), std::string::npos) << msg;
    EXPECT_NE(importError(dir / "none"), "");
}

TEST(SeedImport, GoldenTimingsPerGpuTaskAndShape)
{
    auto c = cat();
    ImportOptions opt;
    opt.catalogue = &c;
    auto b = readSeedImport(kSeed / "golden_results", opt);
    EXPECT_EQ(b.format, "golden-results");
    EXPECT_EQ(b.golden.size(), 3u + 2u + 3u + 1u);  // h800/add's row without ms is left out, SGD.py.json too
    bool leftOut = false;
    for (const auto& n : b.notes)
        leftOut = leftOut || n.find("left out: 1 file name(s) that name no benchmark task: SGD.py.json (1 GPU(s))") != std::string::npos;
    EXPECT_TRUE(leftOut);
    Store s(tempDb("golden"));
    auto sum = s.writeImport(b);
    EXPECT_EQ(sum.golden, 9);
    EXPECT_TRUE(sum.runIds.empty());
    auto r = s.query("SELECT gpu, task, task_id, count(*) AS n, sum(ms) AS ms FROM golden_timings GROUP BY gpu, task ORDER BY gpu, task");
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0]["gpu"], "a100");
    EXPECT_EQ(r[0]["task"], "add");
    EXPECT_TRUE(r[0]["task_id"].is_null());  // "add" is ambiguous in the test index
    EXPECT_EQ(r[1]["task_id"], "Activation/relu");
    EXPECT_NEAR(r[1]["ms"].get<double>(), 0.006 * 6, 1e-12);
    EXPECT_EQ(r[2]["n"], 2);
    auto shape = s.query("SELECT input_size FROM golden_timings WHERE gpu = 'a100' AND task = 'add'");
    EXPECT_EQ(shape[0]["input_size"], "[[4096],[4096],1.0]");
    // One GPU's folder, named by --gpu: the same task rows are replaced, not doubled.
    opt.gpu = "h800";
    auto one = readSeedImport(kSeed / "golden_results" / "h800", opt);
    EXPECT_EQ(one.golden.size(), 5u);
    auto sum2 = s.writeImport(one);
    EXPECT_FALSE(sum2.duplicate);  // other options, other import
    EXPECT_EQ(count(s, "golden_timings"), 9);
    EXPECT_EQ(s.query("SELECT count(DISTINCT import_id) AS n FROM golden_timings WHERE gpu = 'h800'")[0]["n"], 1);
    // A single file: the GPU is its folder.
    opt.gpu.reset();
    auto file = readSeedImport(kSeed / "golden_results" / "a100" / "relu.json", opt);
    EXPECT_EQ(file.golden.size(), 3u);
    EXPECT_EQ(file.golden[0].gpu, "a100");
}

TEST(RoundTransitions, KindsAsTheCorpusWritesThem)
{
    using rounds::State;
    using rounds::transitionKinds;
    using rounds::kindString;
    const State fail{false, false, false, {}};
    const State callOnly{true, false, false, {}};
    const State timed{true, true, true, 1.5};
    const State faster{true, true, true, 2.0};
    EXPECT_EQ(kindString(transitionKinds(fail, timed)), "exe_fail_to_pass,call_fail_to_pass,perf_ok_newly");
    EXPECT_EQ(kindString(transitionKinds(fail, callOnly)), "call_fail_to_pass");
    EXPECT_EQ(kindString(transitionKinds(callOnly, timed)), "exe_fail_to_pass,perf_ok_newly");
    EXPECT_EQ(kindString(transitionKinds(timed, callOnly)), "regression_exe,regression_perf");
    EXPECT_EQ(kindString(transitionKinds(timed, fail)), "regression_call,regression_exe,regression_perf");
    EXPECT_EQ(kindString(transitionKinds(timed, faster)), "speedup_increase");
    EXPECT_EQ(kindString(transitionKinds(faster, timed)), "speedup_decrease");
    EXPECT_EQ(kindString(transitionKinds(timed, timed)), "unchanged");
    EXPECT_EQ(kindString(transitionKinds(fail, fail)), "unchanged");
    EXPECT_TRUE(rounds::sameKinds("call_fail_to_pass,exe_fail_to_pass", "exe_fail_to_pass, call_fail_to_pass"));
    EXPECT_FALSE(rounds::sameKinds("call_fail_to_pass", "exe_fail_to_pass"));
    EXPECT_TRUE(rounds::sameKinds("", "unchanged"));
}

TEST(RoundTransitions, ImportedCorpusMatchesItsOwnKinds)
{
    auto c = cat();
    ImportOptions opt;
    opt.catalogue = &c;
    opt.method = "GEAK";
    auto b = readSeedImport(kSeed / "corpus.jsonl", opt);
    EXPECT_EQ(b.format, "corpus");
    ASSERT_EQ(b.transitions.size(), 8u);
    ASSERT_EQ(b.runs.size(), 1u);
    EXPECT_EQ(b.runs[0].gpu, "unknown");
    // relu round 1 is the 'after' of 0->1 and the 'before' of 1->2 (the test section stripped): one evaluation.
    EXPECT_EQ(b.transitions[0].afterEvaluation, b.transitions[1].beforeEvaluation);
    EXPECT_EQ(b.runs[0].evaluations.size(), 15u);
    for (const auto& t : b.transitions)
        EXPECT_TRUE(rounds::sameKinds(t.kind, rounds::kindString(rounds::transitionKinds(t.before, t.after)))) << t.origin << " " << t.kind;

    Store s(tempDb("corpus"));
    auto sum = s.writeImport(b);
    EXPECT_EQ(sum.transitions, 8);
    EXPECT_EQ(sum.evaluations, 15);
    EXPECT_EQ(sum.newCandidates, 14);  // erf: the same code in rounds 0 and 1
    auto ra = rounds::analyseRounds(s);
    EXPECT_EQ(ra.recorded, 8);
    EXPECT_EQ(ra.agree, 8);
    EXPECT_TRUE(ra.disagreements.empty());
    // Per transition counts.
    std::map<std::pair<int, int>, rounds::TransitionCounts> by;
    for (const auto& t : ra.transitions)
        by[{t.fromRound, t.toRound}] = t;
    auto at = [&](int from, int to) -> rounds::TransitionCounts& { return by[std::make_pair(from, to)]; };
    ASSERT_EQ(by.count(std::make_pair(0, 1)), 1u);
    EXPECT_EQ(at(0, 1).total, 5);
    EXPECT_EQ(at(0, 1).kinds["speedup_increase"], 2);
    EXPECT_EQ(at(0, 1).sameCodeSpeedupChanges, 1);  // erf: re-timed, not changed
    EXPECT_EQ(at(1, 2).sameCodeSpeedupChanges, 0);
    EXPECT_EQ(at(0, 1).kinds["call_fail_to_pass"], 2);
    EXPECT_EQ(at(0, 1).kinds["exe_fail_to_pass"], 2);
    EXPECT_EQ(at(1, 2).kinds["regression_exe"], 1);
    EXPECT_EQ(at(1, 2).kinds["speedup_decrease"], 1);
    EXPECT_EQ(at(2, 3).kinds["regression_call"], 1);
    // Per round rates from the imported evaluations: round 0 has relu, add, max, fused_add_mean, erf.
    for (const auto& r : ra.rounds)
        if (r.round == 0) {
            EXPECT_EQ(r.gpu, "unknown");
            EXPECT_EQ(r.method, "GEAK");
            EXPECT_EQ(r.n, 5);
            EXPECT_EQ(r.callOk, 3);
            EXPECT_EQ(r.exeOk, 2);
            EXPECT_EQ(r.timed, 2);
            EXPECT_NEAR(r.meanSpeedup, (0.91 + 0.9274) / 2, 1e-9);
        }
    // A corpus that contradicts its kind is reported, not hidden.
    auto dir = tempDir("corpus-wrong");
    auto text = slurp(kSeed / "corpus.jsonl");
    auto pos = text.find("\"speedup_decrease\"");
    ASSERT_NE(pos, std::string::npos);
    text.replace(pos, 18, "\"speedup_increase\"");
    write(dir / "c.jsonl", text);
    Store s2(dir / "db.sqlite");
    s2.writeImport(readSeedImport(dir / "c.jsonl", opt));
    auto ra2 = rounds::analyseRounds(s2);
    EXPECT_EQ(ra2.agree, 7);
    ASSERT_EQ(ra2.disagreements.size(), 1u);
    EXPECT_EQ(ra2.disagreements[0].taskId, "Activation/relu");
    EXPECT_NE(ra2.disagreements[0].origin.find("c.jsonl:2"), std::string::npos);
}

TEST(RoundTransitions, FromEvaluationsOfConsecutiveRounds)
{
    // Two metrics imports of the same method and GPU as rounds 0 and 1: transitions per task.
    auto c = cat();
    auto dir = tempDir("rounds");
    write(dir / "r0" / "metrics.json", R"({"Math/add.py": {"call_ok": false, "exe_ok": false},
        "Activation/relu.py": {"call_ok": true, "exe_ok": true, "perf_ok": true, "speedup": 1.2, "runtime_ms": 1.0}})");
    write(dir / "r1" / "metrics.json", R"({"Math/add.py": {"call_ok": true, "exe_ok": true, "perf_ok": true, "speedup": 0.8, "runtime_ms": 2.0},
        "Activation/relu.py": {"call_ok": true, "exe_ok": true, "perf_ok": true, "speedup": 1.1, "runtime_ms": 1.1}})");
    Store s(dir / "db.sqlite");
    for (int r : {0, 1}) {
        ImportOptions opt;
        opt.catalogue = &c;
        opt.method = "agent";
        opt.gpu = "h20";
        opt.round = r;
        s.writeImport(readSeedImport(dir / ("r" + std::to_string(r)) / "metrics.json", opt));
    }
    auto ts = rounds::loadTransitions(s);
    ASSERT_EQ(ts.size(), 2u);
    std::map<std::string, std::string> kinds;
    for (const auto& t : ts) {
        EXPECT_FALSE(t.recordedKind.has_value());
        EXPECT_EQ(t.gpu, "h20");
        kinds[t.taskId] = rounds::kindString(t.kinds);
    }
    EXPECT_EQ(kinds["Math/add"], "exe_fail_to_pass,call_fail_to_pass,perf_ok_newly");
    EXPECT_EQ(kinds["Activation/relu"], "speedup_decrease");
    auto ra = rounds::analyseRounds(s, ts);
    ASSERT_EQ(ra.rounds.size(), 2u);
    EXPECT_EQ(ra.rounds[1].exeOk, 2);
    EXPECT_NEAR(ra.rounds[1].geoMeanSpeedup, std::sqrt(0.8 * 1.1), 1e-9);
    EXPECT_NEAR(ra.rounds[1].meanSpeedup, 0.95, 1e-9);
}

TEST(SeedImport, MigratesVersionTwoDatabaseAndKeepsGpuNames)
{
    auto p = tempDb("v2");
    {
        Store s(p);
        auto m = s.ensureMethod("m");
        auto sub = s.ensureSubmission(s.ensureCandidate("Activation/relu", "x = 2\n").first, m, 0, "o");
        auto run = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 1, {});
        EvaluationRecord r;
        r.runId = run;
        r.submissionId = sub;
        r.taskId = "Activation/relu";
        r.pass = r.callOk = r.exeOk = true;
        r.startedAt = r.finishedAt = nowIso8601();
        s.addEvaluation(r);
    }
    // Back to version 2: without the import tables, with a version-2 view.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "DROP TABLE seed_summaries; DROP TABLE round_transitions; DROP TABLE golden_timings; DROP TABLE imports; "
                           "DROP VIEW evaluation_rows; CREATE VIEW evaluation_rows AS SELECT id FROM evaluations; PRAGMA user_version=2",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    Store s(p);
    EXPECT_EQ(s.schemaVersion(), kSchemaVersion);
    auto rows = s.query("SELECT gpu, imported FROM evaluation_rows");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["gpu"], "NVIDIA H200");
    EXPECT_EQ(rows[0]["imported"], 0);
    auto c = cat();
    ImportOptions opt;
    opt.catalogue = &c;
    s.writeImport(readSeedImport(kSeed / "results", opt));
    auto gpus = s.query("SELECT DISTINCT gpu FROM evaluation_rows ORDER BY gpu");
    ASSERT_EQ(gpus.size(), 3u);
    EXPECT_EQ(gpus[0]["gpu"], "NVIDIA H200");
    EXPECT_EQ(gpus[1]["gpu"], "a100");
    EXPECT_EQ(gpus[2]["gpu"], "h800");
}

TEST(SeedImport, WriteImportIsOneTransaction)
{
    auto c = cat();
    ImportOptions opt;
    opt.catalogue = &c;
    opt.method = "GEAK";
    auto b = readSeedImport(kSeed / "corpus.jsonl", opt);
    b.transitions.back().afterEvaluation = 999;  // fails after runs and evaluations were inserted
    Store s(tempDb("tx"));
    EXPECT_THROW(s.writeImport(b), StoreError);
    for (const char* t : {"imports", "runs", "evaluations", "candidates", "submissions", "timings", "round_transitions"})
        EXPECT_EQ(count(s, t), 0) << t;
}

// The seed's released repository as its users have it (issue 23), laid out with our own fixture
// files: one command on its root imports every artefact at any depth, counts a corpus record that
// two files carry once, and lists what it left out and why.
TEST(SeedImport, RepositoryRootImportsEverythingItRecognisesAtAnyDepth)
{
    auto c = cat();
    ImportOptions opt;
    opt.catalogue = &c;
    auto root = tempDir("repo");
    const auto corpus = slurp(kSeed / "corpus.jsonl");
    std::vector<std::string> lines;
    {
        std::istringstream in(corpus);
        for (std::string l; std::getline(in, l);)
            lines.push_back(l);
    }
    ASSERT_EQ(lines.size(), 8u);
    write(root / "data/kbx_corpus/all_records.jsonl", corpus);
    write(root / "data/kbx_corpus/regressions.jsonl", lines[2] + "\n" + lines[5] + "\n");  // a subset
    write(root / "data/kernelbenchx_v1.json", R"([{"file": "Activation/relu.py", "input_size": [[1024]]}])");
    write(root / "examples/sources/predictions.relu.jsonl", R"({"predict": "def relu(x):\n    return x\n"})" "\n");
    write(root / "README.md", "# seed\n");
    write(root / "EVAL/controller.py", "print(1)\n");
    write(root / ".git/objects/xx.json", "[{\"input_size\": 1, \"ms\": 1}]");  // hidden: never walked
    for (const char* gpu : {"a100", "l20", "h800"})
        for (const char* f : {"add.json", "relu.json"}) {
            auto text = slurp(kSeed / "golden_results" / "a100" / f);
            if (std::string(gpu) == "h800")
                text = slurp(kSeed / "golden_results" / "h800" / f);
            write(root / "metrics/golden_results" / gpu / f, text);  // l20: a copy of a100's
        }
    write(root / "metrics/golden_results/a100/quantize_dynamic.json", slurp(kSeed / "golden_results/a100/add.json"));
    write(root / "metrics/golden_results/h800/SGD.py.json", slurp(kSeed / "golden_results/h800/SGD.py.json"));

    auto b = readSeedImport(root, opt);
    EXPECT_EQ(b.format, "seed-tree");
    std::set<std::string> gpus;
    for (const auto& g : b.golden) {
        gpus.insert(g.gpu);
        EXPECT_EQ(g.taskId.empty(), g.task == "add") << g.file;  // "add" is ambiguous in the test index
        EXPECT_EQ(g.file.find("quantize_dynamic"), std::string::npos);
    }
    EXPECT_EQ(gpus, (std::set<std::string>{"a100", "h800", "l20"}));
    ASSERT_EQ(b.runs.size(), 1u);
    EXPECT_EQ(b.runs[0].format, "corpus");
    EXPECT_EQ(b.runs[0].method, "kbx_corpus");  // from the folder, said in a note
    EXPECT_EQ(b.transitions.size(), 8u);        // the subset's two records are the same transitions
    const auto notes = [&] {
        std::string all;
        for (const auto& n : b.notes)
            all += n + "\n";
        return all;
    }();
    EXPECT_NE(notes.find("regressions.jsonl: 2 of 2 record(s) repeat"), std::string::npos) << notes;
    EXPECT_NE(notes.find("method 'kbx_corpus' taken from the folder name"), std::string::npos) << notes;
    EXPECT_NE(notes.find("quantize_dynamic.json (1 GPU(s))"), std::string::npos) << notes;
    EXPECT_EQ(notes.find("add.json ("), std::string::npos) << notes;  // ambiguous in the test index, but a task's name: kept
    EXPECT_NE(notes.find("SGD.py.json (1 GPU(s))"), std::string::npos) << notes;
    EXPECT_NE(notes.find("golden timings of a100 and l20: 2 of 2 task file(s) byte-identical"), std::string::npos) << notes;
    EXPECT_EQ(notes.find("a100 and h800"), std::string::npos) << notes;
    EXPECT_NE(notes.find("kernelbenchx_v1.json: left out (the benchmark's task descriptions"), std::string::npos) << notes;
    EXPECT_NE(notes.find("predictions.relu.jsonl: left out (generated code, not results"), std::string::npos) << notes;
    EXPECT_NE(notes.find("2 other file(s) left out"), std::string::npos) << notes;
    for (const auto& f : b.files)
        EXPECT_EQ(f.find(".git"), std::string::npos) << f;

    // Written, then the subset imported again on its own (as a user importing file by file would):
    // the rounds table still counts each transition once.
    Store s(root / "db.sqlite");
    s.writeImport(b);
    EXPECT_EQ(rounds::loadTransitions(s).size(), 8u);
    ImportOptions one = opt;
    one.method = "kbx_corpus";
    s.writeImport(readSeedImport(root / "data/kbx_corpus/regressions.jsonl", one));
    s.writeImport(readSeedImport(root / "data/kbx_corpus/all_records.jsonl", one));
    EXPECT_EQ(count(s, "round_transitions"), 8 + 2 + 8);  // every record kept as imported ...
    EXPECT_EQ(rounds::loadTransitions(s).size(), 8u);     // ... each transition counted once

    // The metrics/ folder alone (golden_results one level down) and the corpus folder alone.
    EXPECT_EQ(readSeedImport(root / "metrics", opt).format, "golden-results");
    EXPECT_EQ(readSeedImport(root / "data/kbx_corpus", opt).transitions.size(), 8u);
    // A folder with nothing kbx knows says so, and what it saw.
    auto empty = tempDir("repo-nothing");
    write(empty / "notes.txt", "x");
    EXPECT_NE(importError(empty).find("no seed outputs found"), std::string::npos) << importError(empty);
}
