// SPDX-License-Identifier: MIT
#include "store.h"

#include "file_snapshot.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <map>
#include <vector>

#include <sys/wait.h>

using namespace kbx;
namespace fs = std::filesystem;

namespace {
fs::path tempDb(const std::string& name)
{
    auto p = fs::temp_directory_path() / ("kbx-store-" + name + "-" + std::to_string(getpid()) + ".sqlite");
    fs::remove(p);
    fs::remove(p.string() + "-wal");
    fs::remove(p.string() + "-shm");
    return p;
}
EvaluationRecord rec(std::int64_t run, std::int64_t sub, bool pass)
{
    EvaluationRecord r;
    r.runId = run;
    r.submissionId = sub;
    r.taskId = "Activation/relu";
    r.pass = pass;
    r.callOk = true;
    r.exeOk = pass;
    if (!pass)
        r.failureClass = "value_mismatch";
    r.startedAt = r.finishedAt = nowIso8601();
    r.cases.push_back({0, "edge/zeros", pass ? "pass" : "fail", pass ? std::nullopt : std::optional<std::string>("value_mismatch"), {{"max_abs_err", 0.5}}});
    return r;
}
}  // namespace

TEST(Store, CreatesSchemaWithWal)
{
    auto p = tempDb("schema");
    Store s(p);
    EXPECT_EQ(s.schemaVersion(), kSchemaVersion);
    EXPECT_EQ(s.query("PRAGMA journal_mode")[0]["journal_mode"], "wal");
    EXPECT_EQ(s.query("PRAGMA integrity_check")[0]["integrity_check"], "ok");
}

TEST(Store, SameCodeStoredOnceWithTwoEvaluations)
{
    auto p = tempDb("dedup");
    Store s(p);
    auto m = s.ensureMethod("m1");
    auto [c1, new1] = s.ensureCandidate("Activation/relu", "def relu(x): pass\n");
    auto [c2, new2] = s.ensureCandidate("Activation/relu", "def relu(x): pass\n");
    EXPECT_EQ(c1, c2);
    EXPECT_TRUE(new1);
    EXPECT_FALSE(new2);
    auto sub = s.ensureSubmission(c1, m, 0, "a.jsonl:1");
    EXPECT_EQ(sub, s.ensureSubmission(c1, m, 0, "a.jsonl:1"));
    auto run = s.beginRun("cpu", {{"torch", "x"}}, {0, 1}, 42, {});
    s.addEvaluation(rec(run, sub, false));
    s.addEvaluation(rec(run, sub, true));
    s.finishRun(run, "finished", {{"torch", "x"}});
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM candidates")[0]["n"], 1);
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM evaluations")[0]["n"], 2);
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM case_results")[0]["n"], 2);
    auto rows = s.report();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].category, "Activation");
    EXPECT_EQ(rows[0].total, 1) << "latest evaluation per submission counts once";
    EXPECT_EQ(rows[0].exeOk, 1);
}

TEST(Store, DifferentCodeDifferentCandidates)
{
    auto p = tempDb("distinct");
    Store s(p);
    EXPECT_NE(s.ensureCandidate("Activation/relu", "a").first, s.ensureCandidate("Activation/relu", "b").first);
    EXPECT_NE(s.ensureCandidate("Activation/relu", "a").first, s.ensureCandidate("Math/add", "a").first);
}

TEST(Store, RefusesNewerSchemaAndForeignDatabases)
{
    auto p = tempDb("newer");
    {
        Store s(p);
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    try {
        Store s(p);
        FAIL() << "newer schema must be refused";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("newer than this kbx"), std::string::npos) << e.what();
    }
    auto q = tempDb("foreign");
    ASSERT_EQ(sqlite3_open(q.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE x(a)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    EXPECT_THROW(Store{q}, StoreError);
    auto t = tempDb("text");
    std::ofstream(t) << "this is not a database at all, just text that is long enough to be a header........";
    EXPECT_THROW(Store{t}, StoreError);
}

TEST(Store, FailedTransactionLeavesNothing)
{
    auto p = tempDb("atomic");
    Store s(p);
    auto r = rec(12345, 67890, true);  // foreign keys point nowhere: the insert must fail whole
    EXPECT_THROW(s.addEvaluation(r), StoreError);
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM evaluations")[0]["n"], 0);
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM case_results")[0]["n"], 0);
}

TEST(Store, ManualLabelBesideAutomaticClassAndFlatView)
{
    auto p = tempDb("labels");
    Store s(p);
    auto m = s.ensureMethod("geak");
    auto c = s.ensureCandidate("Activation/relu", "def relu(x): pass\n").first;
    auto sub = s.ensureSubmission(c, m, 2, "a.jsonl:1");
    auto run = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 7, {});
    auto ev = s.addEvaluation(rec(run, sub, false));
    EXPECT_FALSE(s.manualLabel(ev).has_value());
    s.setManualLabel(ev, "dtype_mismatch", "looked at it: fp16 output", "me");
    auto l = s.manualLabel(ev);
    ASSERT_TRUE(l.has_value());
    EXPECT_EQ(l->failureClass, "dtype_mismatch");
    EXPECT_EQ(l->note, "looked at it: fp16 output");
    s.setManualLabel(ev, "value_mismatch", "");  // relabel replaces
    EXPECT_EQ(s.manualLabel(ev)->failureClass, "value_mismatch");
    auto rows = s.query("SELECT category, method, round, gpu, stage, failure_class, manual_class FROM evaluation_rows");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["category"], "Activation");
    EXPECT_EQ(rows[0]["method"], "geak");
    EXPECT_EQ(rows[0]["round"], 2);
    EXPECT_EQ(rows[0]["gpu"], "NVIDIA H200");
    EXPECT_EQ(rows[0]["stage"], "exe");
    EXPECT_EQ(rows[0]["manual_class"], "value_mismatch");
    EXPECT_THROW(s.setManualLabel(ev, "no_such_class", ""), StoreError);
    EXPECT_THROW(s.setManualLabel(ev + 100, "value_mismatch", ""), StoreError);
    s.setManualLabel(ev, "", "");  // removes
    EXPECT_FALSE(s.manualLabel(ev).has_value());
}

TEST(Store, MigratesVersionOneDatabaseKeepingRows)
{
    auto p = tempDb("migrate");
    {
        // A version-1 database as kbx 0.1 wrote it: build v2, then strip the v2 objects.
        Store s(p);
        auto m = s.ensureMethod("m");
        auto c = s.ensureCandidate("Activation/relu", "x = 1\n").first;
        auto run = s.beginRun("cpu", {}, {0}, 1, {});
        s.addEvaluation(rec(run, s.ensureSubmission(c, m, 0, "o"), true));
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "DROP VIEW evaluation_rows; DROP TABLE manual_labels; DROP INDEX evaluations_class; PRAGMA user_version=1",
                           nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    Store s(p);
    EXPECT_EQ(s.schemaVersion(), kSchemaVersion);
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM evaluation_rows")[0]["n"], 1);
}

TEST(Store, ReportKeepsDevicesApartAndCountsLatestPerDevice)
{
    auto p = tempDb("report");
    Store s(p);
    auto m = s.ensureMethod("m");
    auto sub = s.ensureSubmission(s.ensureCandidate("Activation/relu", "y = 1\n").first, m, 0, "o");
    auto cpu = s.beginRun("cpu", {}, {0}, 1, {});
    s.addEvaluation(rec(cpu, sub, false));
    auto h200 = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 2, {});
    s.addEvaluation(rec(h200, sub, false));
    s.addEvaluation(rec(h200, sub, true));  // re-run on the same GPU: only the latest counts
    auto rows = s.report();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].gpu, "CPU (Triton interpreter)");
    EXPECT_EQ(rows[0].total, 1);
    EXPECT_EQ(rows[0].exeOk, 0);
    EXPECT_EQ(rows[1].gpu, "NVIDIA H200");
    EXPECT_EQ(rows[1].total, 1);
    EXPECT_EQ(rows[1].exeOk, 1);
}

// Issue 21: each case's tier and the extended tier's counts beside the verdict; correct_ext in the
// flat view says "correct including the extended cases" (NULL where none ran).
TEST(Store, TiersAndExtendedCountsBesideTheVerdict)
{
    auto p = tempDb("tiers");
    Store s(p);
    auto m = s.ensureMethod("m1");
    auto run = s.beginRun("cpu", {{"torch", "x"}}, {0, 1}, 42, {});
    auto add = [&](const std::string& code, bool pass, std::optional<int> extCases, int extPassed, const std::string& protocol) {
        auto [c, isNew] = s.ensureCandidate("Activation/relu", code);
        auto r = rec(run, s.ensureSubmission(c, m, 0, code), pass);
        r.protocol = protocol;
        r.extCases = extCases;
        r.extPassed = extPassed;
        if (extCases && extPassed < *extCases)
            r.extFailureClass = "dtype_mismatch";
        r.cases.push_back({1, "edge/bf16", extCases && extPassed < *extCases ? "fail" : "pass", std::nullopt, {}, "extended"});
        return s.addEvaluation(r);
    };
    const auto allExt = add("a = 1\n", true, 3, 3, "contract");
    const auto someExt = add("a = 2\n", true, 3, 1, "contract");
    const auto noExt = add("a = 3\n", true, std::nullopt, 0, "contract");
    const auto failed = add("a = 4\n", false, std::nullopt, 0, "contract");
    const auto strict = add("a = 5\n", true, 2, 2, "strict");
    auto row = [&](std::int64_t id) { return s.query("SELECT * FROM evaluation_rows WHERE id = " + std::to_string(id))[0]; };
    EXPECT_EQ(row(allExt)["correct_ext"], 1);
    EXPECT_EQ(row(someExt)["correct_ext"], 0);
    EXPECT_EQ(row(someExt)["ext_failure_class"], "dtype_mismatch");
    EXPECT_TRUE(row(noExt)["correct_ext"].is_null());
    EXPECT_EQ(row(failed)["correct_ext"], 0);
    EXPECT_EQ(row(strict)["correct_ext"], 1);
    EXPECT_EQ(row(strict)["protocol"], "strict");
    const auto tiers = s.query("SELECT tier, count(*) AS n FROM case_results WHERE evaluation_id = " + std::to_string(someExt) +
                               " GROUP BY tier ORDER BY tier");
    ASSERT_EQ(tiers.size(), 2u);
    EXPECT_EQ(tiers[0]["tier"], "contract");
    EXPECT_EQ(tiers[1]["tier"], "extended");
}

// A database whose user_version was set back below 5 while the v5 columns exist (a migration test,
// or a hand edit) migrates again without "duplicate column" (ALTER TABLE lines whose column exists
// are left out).
TEST(Store, MigrationToV5IsIdempotentOnExistingColumns)
{
    auto p = tempDb("v5again");
    {
        Store s(p);
        s.query("PRAGMA user_version = 4");
    }
    Store s(p);
    EXPECT_EQ(s.schemaVersion(), kSchemaVersion);
    EXPECT_FALSE(s.query("SELECT 1 FROM pragma_table_info('case_results') WHERE name = 'tier'").empty());
}

// v6 (data only): before the perf stage's kernel attribution kept exe_ok, it stored such a failure with
// exe_ok 0 although the outputs had been checked right. The migration sets exe_ok there and only there:
// a value mismatch with the same perf evidence, an attribution that was not available, a call failure
// and an imported row (the seed's own exe) stay as they were. Read-only, such a v5 file is refused with
// the reason; a v5 file without such rows is read as it is (v6's schema is v5's).
TEST(Store, MigrationToV6SetsExeOfKernelAttributionFailuresOnly)
{
    auto p = tempDb("v6");
    const nlohmann::json attributed = {{"perf", {{"attribution", {{"available", true}, {"triton_share", 0.17}}}}}};
    std::map<std::string, std::int64_t> id;
    {
        Store s(p);
        auto m = s.ensureMethod("m");
        auto run = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 1, {});
        auto add = [&](const std::string& name, const std::string& task, const char* cls, bool callOk, const nlohmann::json& ev) {
            auto sub = s.ensureSubmission(s.ensureCandidate(task, "# " + name + "\n").first, m, 0, name);
            EvaluationRecord r = rec(run, sub, false);
            r.taskId = task;
            r.callOk = callOk;
            r.exeOk = false;
            r.failureClass = cls;
            r.evidence = ev;
            id[name] = s.addEvaluation(r);
        };
        add("attribution", "Activation/relu", "not_triton_kernel", true, attributed);
        add("mismatch", "Activation/gelu", "value_mismatch", true, attributed);
        add("unavailable", "Activation/silu", "not_triton_kernel", true,
            nlohmann::json{{"perf", {{"attribution", {{"available", false}}}}}});
        add("call", "Activation/tanh", "not_triton_kernel", false, attributed);
        auto imported = attributed;
        imported["imported"] = {{"format", "seed"}, {"exe_ok", false}};
        add("imported", "Activation/sigmoid", "not_triton_kernel", true, imported);
        s.query("PRAGMA user_version = 5");
    }
    try {
        Store ro(p, OpenMode::ReadOnly);
        ADD_FAILURE() << "a v5 file with an evaluation v6 sets right was read as it is";
    } catch (const StoreError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("schema version 5, older"), std::string::npos) << msg;
        EXPECT_NE(msg.find("1 evaluation stored with exe_ok 0"), std::string::npos) << msg;
    }
    EXPECT_EQ(kbx_test::userVersion(p), 5);
    {
        Store s(p);
        EXPECT_EQ(s.schemaVersion(), 6);
        auto exe = [&](const std::string& name) {
            return s.query("SELECT exe_ok FROM evaluations WHERE id = " + std::to_string(id.at(name)))[0]["exe_ok"];
        };
        EXPECT_EQ(exe("attribution"), 1);
        EXPECT_EQ(exe("mismatch"), 0);
        EXPECT_EQ(exe("unavailable"), 0);
        EXPECT_EQ(exe("call"), 0);
        EXPECT_EQ(exe("imported"), 0);
        // The verdict and class stay; the counts follow (the derived table's trigger).
        const auto row = s.query("SELECT verdict, failure_class FROM evaluations WHERE id = " + std::to_string(id.at("attribution")));
        EXPECT_EQ(row[0]["verdict"], "fail");
        EXPECT_EQ(row[0]["failure_class"], "not_triton_kernel");
        const auto rows = s.report();
        ASSERT_EQ(rows.size(), 1u);
        EXPECT_EQ(rows[0].total, 5);
        EXPECT_EQ(rows[0].callOk, 4);
        EXPECT_EQ(rows[0].exeOk, 1);
        // A v5 file with nothing for v6 to set right: read-only as it is.
        s.query("PRAGMA user_version = 5");
    }
    Store ro(p, OpenMode::ReadOnly);
    EXPECT_EQ(ro.schemaVersion(), 5);
    EXPECT_EQ(ro.report().at(0).exeOk, 1);
}

// What one evaluation keeps is bounded (issue 20): its own evidence and its cases' together at most
// kEvidenceBytes; failing cases keep theirs first; a case past the budget keeps name, status and class.
TEST(Store, EvidenceOfOneEvaluationIsBounded)
{
    auto p = tempDb("evidence-bound");
    Store s(p);
    auto m = s.ensureMethod("m1");
    auto run = s.beginRun("cpu", {{"torch", "x"}}, {0}, 42, {});
    auto [c, isNew] = s.ensureCandidate("Activation/relu", "def relu(x): pass\n");
    auto r = rec(run, s.ensureSubmission(c, m, 0, "o"), false);
    r.evidence = {{"traceback", std::string(300 * 1024, 't')}, {"line", 7}};
    r.cases.clear();
    for (int i = 0; i < 600; ++i)  // ~600 KiB of case evidence; every 100th case fails
        r.cases.push_back({i, "case" + std::to_string(i), i % 100 == 99 ? "fail" : "pass",
                           i % 100 == 99 ? std::optional<std::string>("value_mismatch") : std::nullopt,
                           {{"blob", std::string(1000, 'x')}, {"i", i}}});
    const auto id = s.addEvaluation(r);
    const auto sizes = s.query("SELECT length(evidence) AS ev, (SELECT sum(length(evidence)) FROM case_results WHERE evaluation_id = "
                               + std::to_string(id) + ") AS cases, (SELECT count(*) FROM case_results WHERE evaluation_id = "
                               + std::to_string(id) + ") AS n FROM evaluations WHERE id = " + std::to_string(id));
    ASSERT_EQ(sizes.size(), 1u);
    EXPECT_LE(sizes[0]["ev"].get<std::int64_t>() + sizes[0]["cases"].get<std::int64_t>(), std::int64_t(kEvidenceBytes));
    EXPECT_EQ(sizes[0]["n"], 600);  // every case kept, with its status
    auto ev = nlohmann::json::parse(s.query("SELECT evidence FROM evaluations WHERE id = " + std::to_string(id))[0]["evidence"].get<std::string>());
    EXPECT_EQ(ev["line"], 7);
    EXPECT_NE(ev["traceback"].get<std::string>().find("bytes cut]"), std::string::npos);
    // The failing cases kept their evidence; the last passing ones say what they dropped.
    for (const auto& row : s.query("SELECT name, status, failure_class, evidence FROM case_results WHERE evaluation_id = " + std::to_string(id))) {
        const auto e = nlohmann::json::parse(row["evidence"].get<std::string>());
        if (row["status"] == "fail") {
            EXPECT_EQ(row["failure_class"], "value_mismatch");
            EXPECT_TRUE(e.contains("blob")) << row["name"];
        }
    }
    const auto last = nlohmann::json::parse(
        s.query("SELECT evidence FROM case_results WHERE evaluation_id = " + std::to_string(id) + " AND name = 'case598'")[0]["evidence"].get<std::string>());
    EXPECT_TRUE(last.contains("truncated_bytes")) << last.dump();
    // A small evaluation is stored as it is.
    auto small = rec(run, s.ensureSubmission(s.ensureCandidate("Activation/relu", "b = 1\n").first, m, 0, "o2"), true);
    const auto sid = s.addEvaluation(small);
    EXPECT_EQ(s.query("SELECT evidence FROM case_results WHERE evaluation_id = " + std::to_string(sid))[0]["evidence"], "{\"max_abs_err\":0.5}");
}

// kbx strip-code (issue 25: the Python script's SQL moved into the store): the kernels' code leaves
// the database, every verdict, class, case and tier stays; a second run changes nothing.
TEST(Store, StripCodeLeavesTheCodeOutAndKeepsEveryVerdict)
{
    auto p = tempDb("strip");
    std::int64_t failedId = 0, passedId = 0;
    const std::string code = "import triton\n\n    out = secret_kernel_body(x, BLOCK=128)\nshort\n";
    {
        Store s(p);
        auto m = s.ensureMethod("geak");
        auto run = s.beginRun("cpu", {{"torch", "x"}}, {0, 1}, 42, {});
        auto [c, isNew] = s.ensureCandidate("Activation/relu", code);
        auto sub = s.ensureSubmission(c, m, 0, "corpus.jsonl:1");
        auto bad = rec(run, sub, false);
        bad.failureDetail = "line 3 raised:\n  out = secret_kernel_body(x, BLOCK=128)\nValueError: nope";
        bad.evidence = {{"traceback", "File candidate.py, line 3"},
                        {"first_failure", {{"message", "    out = secret_kernel_body(x, BLOCK=128)"}, {"max_abs_err", 0.5}, {"stderr_tail", "x"}}},
                        {"tiers", {{"contract", {{"pass", false}, {"failure_class", "value_mismatch"}}}}}};
        bad.cases[0].evidence = {{"max_abs_err", 0.5}, {"error_map", {1, 2}}, {"note", "short"}};
        failedId = s.addEvaluation(bad);
        auto [c2, isNew2] = s.ensureCandidate("Activation/relu", "def other(): pass  # a second kernel\n");
        passedId = s.addEvaluation(rec(run, s.ensureSubmission(c2, m, 0, "corpus.jsonl:2"), true));
        s.finishRun(run, "finished", {{"torch", "x"}});
    }
    Store s(p);
    const auto before = s.query("SELECT id, verdict, call_ok, exe_ok, failure_class FROM evaluations ORDER BY id");
    const auto counted = s.query("SELECT * FROM counted_evaluations ORDER BY evaluation_id");
    const auto sum = s.stripCode();
    EXPECT_EQ(sum.candidates, 2);
    EXPECT_EQ(sum.evaluations, 1);
    EXPECT_EQ(sum.caseResults, 1);
    for (const auto& c : s.query("SELECT code, code_hash FROM candidates"))
        EXPECT_EQ(c["code"], "# third-party generated code left out of this database; sha256 " + c["code_hash"].get<std::string>());
    EXPECT_EQ(s.query("SELECT id, verdict, call_ok, exe_ok, failure_class FROM evaluations ORDER BY id"), before);
    EXPECT_EQ(s.query("SELECT * FROM counted_evaluations ORDER BY evaluation_id"), counted);
    const auto row = s.query("SELECT failure_detail, evidence FROM evaluations WHERE id = " + std::to_string(failedId))[0];
    EXPECT_EQ(row["failure_detail"], "line 3 raised:\n[code line left out]\nValueError: nope");
    const auto ev = nlohmann::json::parse(row["evidence"].get<std::string>());
    EXPECT_FALSE(ev.contains("traceback"));
    EXPECT_EQ(ev["first_failure"], (nlohmann::json{{"message", "[code line left out]"}, {"max_abs_err", 0.5}}));
    EXPECT_EQ(ev["tiers"]["contract"]["failure_class"], "value_mismatch");
    const auto ce = nlohmann::json::parse(
        s.query("SELECT evidence FROM case_results WHERE evaluation_id = " + std::to_string(failedId))[0]["evidence"].get<std::string>());
    EXPECT_EQ(ce, (nlohmann::json{{"max_abs_err", 0.5}, {"note", "short"}}));  // "short" is under 12 characters: not a code line
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM case_results WHERE evaluation_id = " + std::to_string(passedId))[0]["n"], 1);
    const auto again = s.stripCode();
    EXPECT_EQ(again.candidates + again.evaluations + again.caseResults, 0);
#ifdef KBX_TEST_KBX_BIN
    // The command line: a missing database strips nothing (exit 3, the other left as it was); then
    // both named: one JSON object each, the stripped one unchanged.
    auto q = tempDb("strip-cli");
    {
        Store t(q);
        auto [c, isNew] = t.ensureCandidate("Activation/relu", code);
        t.ensureSubmission(c, t.ensureMethod("m"), 0, "o");
    }
    const auto out = fs::path(q.string() + ".json");
    const std::string kbx = KBX_TEST_KBX_BIN;
    EXPECT_EQ(WEXITSTATUS(std::system((kbx + " strip-code " + q.string() + " /nonexistent/x.sqlite 2>/dev/null").c_str())), 3);
    EXPECT_EQ(Store(q).query("SELECT code FROM candidates")[0]["code"], code);
    const auto empty = fs::path(q.string() + ".empty");
    std::ofstream(empty).close();
    EXPECT_EQ(WEXITSTATUS(std::system((kbx + " strip-code " + empty.string() + " 2>/dev/null").c_str())), 3);
    EXPECT_EQ(fs::file_size(empty), 0u);  // not made a kbx database
    fs::remove(empty);
    ASSERT_EQ(std::system((kbx + " strip-code " + q.string() + " " + p.string() + " --json > " + out.string() + " 2>/dev/null").c_str()), 0);
    std::ifstream in(out);
    std::string line;
    std::vector<nlohmann::json> lines;
    while (std::getline(in, line))
        lines.push_back(nlohmann::json::parse(line));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0]["candidates"], 1);
    EXPECT_EQ(lines[1]["candidates"], 0);
    EXPECT_NE(Store(q).query("SELECT code FROM candidates")[0]["code"].get<std::string>().find("left out"), std::string::npos);
    fs::remove(out);
#endif
}

TEST(Store, AStageResultAddedLaterKeepsTheVerdictAndTheOtherEvidence)
{
    // The perf shapes' precompile of a candidate that passed while the queue was full runs after its
    // evaluation was stored: its evidence and seconds join the stored ones, nothing else changes.
    auto p = tempDb("stage-result");
    Store s(p);
    auto m = s.ensureMethod("m1");
    auto [c, isNew] = s.ensureCandidate("Activation/relu", "def relu(x): pass\n");
    (void)isNew;
    auto run = s.beginRun("cuda", {{"torch", "x"}}, {0, 1}, 42, {});
    auto r = rec(run, s.ensureSubmission(c, m, 0, "a.jsonl:1"), false);
    r.evidence["static"] = {{"ok", true}};
    r.stageSeconds["candidate"] = 2.5;
    const auto id = s.addEvaluation(r);
    s.addStageResult(id, "precompile", {{"compiled", 3}, {"at", "tail"}}, 1.25);
    auto row = s.query("SELECT verdict, failure_class, evidence, stage_seconds FROM evaluations WHERE id=" + std::to_string(id))[0];
    EXPECT_EQ(row["verdict"], "fail");
    EXPECT_EQ(row["failure_class"], "value_mismatch");
    const auto ev = nlohmann::json::parse(row["evidence"].get<std::string>());
    const auto st = nlohmann::json::parse(row["stage_seconds"].get<std::string>());
    EXPECT_EQ(ev["static"]["ok"], true);
    EXPECT_EQ(ev["precompile"]["compiled"], 3);
    EXPECT_EQ(ev["precompile"]["at"], "tail");
    EXPECT_DOUBLE_EQ(st["candidate"].get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(st["precompile"].get<double>(), 1.25);
    // Without seconds (the worker could not start) only the evidence; a missing evaluation or a
    // reserved key is refused and changes nothing.
    s.addStageResult(id, "precompile", {{"error", "no worker"}}, std::nullopt);
    row = s.query("SELECT evidence, stage_seconds FROM evaluations WHERE id=" + std::to_string(id))[0];
    EXPECT_EQ(nlohmann::json::parse(row["evidence"].get<std::string>())["precompile"]["error"], "no worker");
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(row["stage_seconds"].get<std::string>())["precompile"].get<double>(), 1.25);
    EXPECT_THROW(s.addStageResult(id + 100, "precompile", {{"x", 1}}, 1.0), StoreError);
    EXPECT_THROW(s.addStageResult(id, "perf", {{"x", 1}}, 1.0), std::invalid_argument);
    EXPECT_EQ(nlohmann::json::parse(s.query("SELECT evidence FROM evaluations")[0]["evidence"].get<std::string>()).count("perf"), 0u);
}
