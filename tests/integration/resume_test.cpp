// SPDX-License-Identifier: MIT
// No lost results (issue #7): `kbx eval` killed with SIGKILL in the middle of a run loses at most the
// evaluations in flight, the database stays intact, and `kbx eval --resume` evaluates exactly what is
// missing (core/resume.h); databases of older schemas are migrated with their rows, a newer one is
// refused and left byte-identical. SIGTERM ends `kbx eval` and `kbx tasks --check` as Ctrl-C does.
#include "itest.h"
#include "source.h"
#include "store.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

namespace fs = std::filesystem;
using namespace kbx_it;

namespace {

struct Sub {
    std::string file;    // under tests/fixtures
    std::string task;
    std::string expect;  // "pass" or the failure class
};

// Quick tasks on the Triton interpreter; two known-bad variants for verdicts other than pass.
const std::vector<Sub> kSubs = {
    {"good/Activation/relu.py", "Activation/relu", "pass"},
    {"good/Math/abs.py", "Math/abs", "pass"},
    {"variants/shape_mismatch.py", "Activation/relu", "shape_mismatch"},
    {"good/Math/add.py", "Math/add", "pass"},
    {"good/Activation/sigmoid.py", "Activation/sigmoid", "pass"},
    {"variants/syntax_error.py", "Activation/relu", "syntax_error"},
    {"good/Math/mul.py", "Math/mul", "pass"},
    {"good/Activation/leaky_relu.py", "Activation/leaky_relu", "pass"},
};

/// One value of a query on a database opened read-only (as a second process would), or nullopt
/// when the database or its tables are not there yet.
std::optional<std::string> peek(const fs::path& db, const std::string& sql)
{
    sqlite3* h = nullptr;
    std::optional<std::string> out;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_busy_timeout(h, 2000);
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
            auto* t = sqlite3_column_text(st, 0);
            out = t ? reinterpret_cast<const char*>(t) : "";
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return out;
}

/// Starts kbx in a process group of its own (stdout and stderr to files, `env` set for it); returns its pid.
pid_t spawnKbx(const std::vector<std::string>& args, const fs::path& out, const fs::path& err,
               const std::vector<std::pair<std::string, std::string>>& env = {})
{
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        for (const auto& [k, v] : env)
            setenv(k.c_str(), v.c_str(), 1);
        int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        std::vector<std::string> argv = {kbxBin()};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<char*> cargv;
        for (auto& a : argv)
            cargv.push_back(a.data());
        cargv.push_back(nullptr);
        execv(cargv[0], cargv.data());
        _exit(127);
    }
    if (pid > 0)
        setpgid(pid, pid);
    return pid;
}

std::string bytesOf(const fs::path& p) { return readFile(p); }

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST(Resume, ASigtermEndsARunAsCtrlCDoesAndLeavesNoScratch)
{
    // A job scheduler's time limit, `timeout`, systemd: SIGTERM to kbx alone. `kbx eval` and
    // `kbx tasks --check` answer it as Ctrl-C: stop, keep what was committed, exit 130 (ExitInterrupted),
    // and remove the run's scratch. (On the H200 a `kbx tasks --check` ended by SIGTERM died of it and
    // left its scratch behind: the next run's sweep found it.)
    if (device() != "cpu")
        GTEST_SKIP() << "runs on the CPU";
    const auto work = tempPath("sigterm");
    fs::remove_all(work);
    fs::create_directories(work);
    const auto src = work / "subs.jsonl";
    {
        std::ofstream o(src);
        for (const auto& s : kSubs)
            o << nlohmann::json{{"predict", readFile(kFixtures / s.file)}, {"file", s.task + ".py"}}.dump() << "\n";
    }
    struct Cmd {
        const char* name;
        std::vector<std::string> args;
    };
    for (const auto& c : {Cmd{"eval", {"eval", src.string(), "--device", "cpu", "--jobs", "2", "--json"}},
                          Cmd{"tasks", {"tasks", "--check", "--device", "cpu", "--jobs", "2", "--task",
                                        "Activation/relu,Math/abs,Math/add,Activation/sigmoid,Math/mul,Activation/leaky_relu"}}}) {
        SCOPED_TRACE(c.name);
        const auto tmp = work / (std::string(c.name) + "-tmp");
        fs::create_directories(tmp);
        const auto db = work / (std::string(c.name) + ".sqlite");
        auto args = c.args;
        args.insert(args.end(), {"--db", db.string()});
        const auto err = work / (std::string(c.name) + ".err");
        const pid_t pid = spawnKbx(args, work / (std::string(c.name) + ".out"), err, {{"TMPDIR", tmp.string()}});
        ASSERT_GT(pid, 0);
        const auto t0 = std::chrono::steady_clock::now();
        int committed = 0;
        while (committed < 1 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(240)) {
            committed = std::stoi(peek(db, "SELECT count(*) FROM evaluations").value_or("0"));
            int st = 0;
            ASSERT_EQ(waitpid(pid, &st, WNOHANG), 0) << "kbx ended before the SIGTERM:\n" << readFile(err);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ASSERT_GE(committed, 1) << "no progress in 240 s:\n" << readFile(err);
        ASSERT_EQ(kill(pid, SIGTERM), 0);
        int st = 0;
        ASSERT_EQ(waitpid(pid, &st, 0), pid);
        ASSERT_TRUE(WIFEXITED(st)) << "kbx died of signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0) << ":\n" << readFile(err);
        EXPECT_EQ(WEXITSTATUS(st), 130) << readFile(err);
        EXPECT_EQ(peek(db, "PRAGMA integrity_check"), "ok");
        EXPECT_GE(std::stoi(peek(db, "SELECT count(*) FROM evaluations").value_or("0")), committed);
        for (const auto& e : fs::directory_iterator(tmp))
            EXPECT_NE(e.path().filename().string().rfind("kbx-run-", 0), 0u) << "the run's scratch stayed: " << e.path();
    }
    if (!::testing::Test::HasFailure())
        fs::remove_all(work);
}

TEST(Resume, ASigtermBeforeTheRunBeginsStopsKbxAndRemovesItsScratch)
{
    // The warm worker and the run's scratch exist before the probe (seconds of importing torch). A
    // SIGTERM then used to kill kbx outright, leaving the scratch for the next run's sweep; now kbx
    // stops once the probe returns, says so, removes its scratch and exits 130 with nothing stored.
    if (device() != "cpu")
        GTEST_SKIP() << "runs on the CPU";
    const auto work = tempPath("sigterm-early");
    fs::remove_all(work);
    fs::create_directories(work / "tmp");
    const auto src = work / "subs.jsonl";
    std::ofstream(src) << nlohmann::json{{"predict", readFile(kFixtures / kSubs[0].file)}, {"file", kSubs[0].task + ".py"}}.dump() << "\n";
    const auto db = work / "early.sqlite", err = work / "err.txt";
    const pid_t pid = spawnKbx({"eval", src.string(), "--device", "cpu", "--db", db.string()}, work / "out.txt", err,
                               {{"TMPDIR", (work / "tmp").string()}});
    ASSERT_GT(pid, 0);
    auto scratchMade = [&] {
        for (const auto& e : fs::directory_iterator(work / "tmp"))
            if (e.path().filename().string().rfind("kbx-run-", 0) == 0)
                return true;
        return false;
    };
    const auto t0 = std::chrono::steady_clock::now();
    while (!scratchMade() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
        int st = 0;
        ASSERT_EQ(waitpid(pid, &st, WNOHANG), 0) << "kbx ended before its scratch was made:\n" << readFile(err);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(scratchMade()) << readFile(err);
    ASSERT_EQ(kill(pid, SIGTERM), 0);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFEXITED(st)) << "kbx died of signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0) << ":\n" << readFile(err);
    EXPECT_EQ(WEXITSTATUS(st), 130) << readFile(err);
    const auto text = readFile(err);
    EXPECT_NE(text.find("kbx: stopped before the run began"), std::string::npos) << text;
    EXPECT_EQ(text.find("kbx: evaluating"), std::string::npos) << "the signal came before the run: " << text;
    EXPECT_FALSE(scratchMade()) << "the run's scratch stayed";
    EXPECT_EQ(std::stoi(peek(db, "SELECT count(*) FROM evaluations").value_or("0")), 0);
    if (!::testing::Test::HasFailure())
        fs::remove_all(work);
}

TEST(Resume, KilledRunLosesOnlyWhatWasInFlightAndResumeCompletesIt)
{
    if (device() != "cpu")
        GTEST_SKIP() << "the kill-and-resume test runs on the CPU";
    const auto work = tempPath("resume");
    fs::create_directories(work);
    const auto db = work / "db.sqlite";
    const auto src = work / "subs.jsonl";
    std::map<std::pair<std::string, std::string>, std::string> expect;  // (task, code sha256) -> verdict
    {
        std::ofstream o(src);
        for (const auto& s : kSubs) {
            const auto code = readFile(kFixtures / s.file);
            o << nlohmann::json{{"predict", code}, {"file", s.task + ".py"}}.dump() << "\n";
            expect[{s.task, kbx::sha256Hex(kbx::cleanSubmission(code))}] = s.expect;
        }
    }
    ASSERT_EQ(expect.size(), kSubs.size());
    const std::vector<std::string> args = {"eval", src.string(), "--db", db.string(), "--device", "cpu", "--jobs", "2",
                                           "--method", "resume-test", "--timeout", "120", "--json"};

    // 1. Start the run; once k evaluations are committed (read from the database, read-only), kill
    //    kbx's whole process group with SIGKILL: nothing can be written after that.
    const pid_t pid = spawnKbx(args, work / "out1.txt", work / "err1.txt");
    ASSERT_GT(pid, 0);
    const int k = 3;
    const auto t0 = std::chrono::steady_clock::now();
    int committed = 0;
    bool refusedWhileRunning = false;
    while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(240)) {
        committed = std::stoi(peek(db, "SELECT count(*) FROM evaluations").value_or("0"));
        if (committed >= 1 && !refusedWhileRunning) {
            // A --resume while the run is alive is refused: both would evaluate the same submissions.
            auto r = run(kbxBin() + " eval " + q(src) + " --db " + q(db) + " --device cpu --method resume-test --resume 2>&1");
            EXPECT_EQ(r.rc, 2) << r.out;
            EXPECT_NE(r.out.find("still in progress"), std::string::npos) << r.out;
            refusedWhileRunning = true;
            continue;
        }
        if (committed >= k)
            break;
        int st = 0;
        ASSERT_EQ(waitpid(pid, &st, WNOHANG), 0) << "kbx ended before it was killed:\n" << readFile(work / "err1.txt");
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_GE(committed, k) << "no progress in 240 s:\n" << readFile(work / "err1.txt");
    ASSERT_EQ(kill(-pid, SIGKILL), 0);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    EXPECT_TRUE(refusedWhileRunning);

    // 2. The database is intact; the killed run is still 'running' (nothing could say otherwise),
    //    with the evaluations committed before the kill and not all of them.
    EXPECT_EQ(peek(db, "PRAGMA integrity_check"), "ok");
    const int before = std::stoi(*peek(db, "SELECT count(*) FROM evaluations"));
    EXPECT_GE(before, k);
    EXPECT_LT(before, static_cast<int>(kSubs.size())) << "the run finished before the kill: nothing to resume";
    EXPECT_EQ(peek(db, "SELECT status || '|' || coalesce(finished_at, 'null') FROM runs"), "running|null");

    // 3. --resume evaluates only the rest and marks the killed run.
    auto r = run(kbxBin() + " eval " + q(src) + " --db " + q(db) +
                 " --device cpu --jobs 2 --method resume-test --timeout 120 --json --resume 2>" + q(work / "err2.txt"));
    const auto err2 = readFile(work / "err2.txt");
    ASSERT_EQ(r.rc, 0) << err2;
    EXPECT_NE(err2.find(std::to_string(before) + " of " + std::to_string(kSubs.size()) + " submission(s) already evaluated"), std::string::npos)
        << err2;
    EXPECT_NE(err2.find("continuing run 1"), std::string::npos) << err2;
    const auto lines = jsonLines(r.out);
    EXPECT_EQ(static_cast<int>(lines.size()), static_cast<int>(kSubs.size()) - before) << r.out;

    kbx::Store store(db);
    EXPECT_EQ(store.query("PRAGMA integrity_check")[0]["integrity_check"], "ok");
    // Every submission exactly once, with its verdict: nothing lost, nothing evaluated twice.
    const auto rows = store.query(
        "SELECT c.task_id AS task, c.code_hash AS hash, e.verdict AS verdict, e.failure_class AS cls, e.run_id AS run, "
        "count(*) OVER (PARTITION BY c.id) AS n FROM evaluations e JOIN submissions s ON s.id = e.submission_id "
        "JOIN candidates c ON c.id = s.candidate_id");
    ASSERT_EQ(rows.size(), kSubs.size());
    int inRun1 = 0;
    for (const auto& row : rows) {
        const auto key = std::make_pair(row["task"].get<std::string>(), row["hash"].get<std::string>());
        ASSERT_TRUE(expect.count(key)) << row.dump();
        EXPECT_EQ(row["n"], 1) << "evaluated twice: " << row.dump();
        const std::string got = row["verdict"] == "pass" ? "pass" : row["cls"].get<std::string>();
        EXPECT_EQ(got, expect[key]) << row.dump();
        inRun1 += row["run"] == 1;
    }
    EXPECT_EQ(inRun1, before);
    // The killed run: 'interrupted', finished at its last committed evaluation; the new run says
    // which run it resumes and reuses its seeds.
    const auto runs = store.query("SELECT id, status, finished_at, secret_seed, public_seeds, args FROM runs ORDER BY id");
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0]["status"], "interrupted");
    EXPECT_EQ(runs[0]["finished_at"], store.query("SELECT max(finished_at) AS f FROM evaluations WHERE run_id = 1")[0]["f"]);
    EXPECT_EQ(runs[1]["status"], "finished");
    EXPECT_EQ(runs[1]["secret_seed"], runs[0]["secret_seed"]);
    EXPECT_EQ(runs[1]["public_seeds"], runs[0]["public_seeds"]);
    EXPECT_EQ(nlohmann::json::parse(runs[1]["args"].get<std::string>()).value("resumes", 0), 1);

    // 4. Once more: nothing left, no new run.
    auto again = run(kbxBin() + " eval " + q(src) + " --db " + q(db) + " --device cpu --method resume-test --resume 2>&1");
    EXPECT_EQ(again.rc, 0) << again.out;
    EXPECT_NE(again.out.find("nothing left to evaluate"), std::string::npos) << again.out;
    EXPECT_EQ(store.query("SELECT count(*) AS n FROM runs")[0]["n"], 2);
    if (!::testing::Test::HasFailure())
        fs::remove_all(work);
}

namespace {

/// The schema of kbx 0.1 (user_version 1), as it was written then, and the v2 additions.
const char* kSchemaV1 = R"SQL(
CREATE TABLE methods(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE candidates(id INTEGER PRIMARY KEY, task_id TEXT NOT NULL, code_hash TEXT NOT NULL, code TEXT NOT NULL,
  created_at TEXT NOT NULL, UNIQUE(task_id, code_hash));
CREATE TABLE submissions(id INTEGER PRIMARY KEY, candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  method_id INTEGER NOT NULL REFERENCES methods(id), round INTEGER NOT NULL DEFAULT 0, origin TEXT,
  UNIQUE(candidate_id, method_id, round));
CREATE TABLE runs(id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL,
  device TEXT NOT NULL, provenance TEXT NOT NULL, public_seeds TEXT NOT NULL, secret_seed INTEGER NOT NULL, args TEXT NOT NULL);
CREATE TABLE evaluations(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  submission_id INTEGER NOT NULL REFERENCES submissions(id), task_id TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('pass', 'fail')), call_ok INTEGER NOT NULL, exe_ok INTEGER NOT NULL,
  failure_class TEXT, failure_detail TEXT, evidence TEXT NOT NULL, stage_seconds TEXT NOT NULL,
  taxonomy_version INTEGER NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NOT NULL);
CREATE TABLE case_results(id INTEGER PRIMARY KEY, evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, failure_class TEXT, evidence TEXT);
CREATE TABLE timings(id INTEGER PRIMARY KEY, evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  shape TEXT NOT NULL, candidate_ms REAL, baseline_ms REAL, samples TEXT);
CREATE INDEX evaluations_task ON evaluations(task_id);
CREATE INDEX evaluations_run ON evaluations(run_id);
CREATE INDEX evaluations_submission ON evaluations(submission_id);
CREATE INDEX case_results_evaluation ON case_results(evaluation_id);
INSERT INTO methods VALUES(1, 'GEAK');
INSERT INTO candidates VALUES(1, 'Activation/relu', 'abc', 'def relu(x): return x', '2026-01-01T00:00:00Z');
INSERT INTO candidates VALUES(2, 'Math/abs', 'def', 'def abs(x): return x', '2026-01-01T00:00:00Z');
INSERT INTO submissions VALUES(1, 1, 1, 0, 'old.jsonl:1');
INSERT INTO submissions VALUES(2, 2, 1, 0, 'old.jsonl:2');
INSERT INTO runs VALUES(1, '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z', 'finished', 'cpu', '{}', '[0,1]', 7, '{}');
INSERT INTO evaluations VALUES(1, 1, 1, 'Activation/relu', 'pass', 1, 1, NULL, '', '{}', '{}', 1, '2026-01-01T00:00:10Z', '2026-01-01T00:00:20Z');
INSERT INTO evaluations VALUES(2, 1, 2, 'Math/abs', 'fail', 1, 0, 'value_mismatch', 'case 0', '{}', '{}', 1, '2026-01-01T00:00:30Z', '2026-01-01T00:00:40Z');
INSERT INTO case_results VALUES(1, 2, 0, 'edge/zeros', 'fail', 'value_mismatch', '{}');
INSERT INTO timings VALUES(1, 1, '4096', 0.5, 0.6, '{}');
PRAGMA user_version=1;
)SQL";

const char* kSchemaV2 = R"SQL(
CREATE TABLE manual_labels(evaluation_id INTEGER PRIMARY KEY REFERENCES evaluations(id) ON DELETE CASCADE,
  failure_class TEXT NOT NULL, note TEXT NOT NULL DEFAULT '', author TEXT NOT NULL DEFAULT '', labelled_at TEXT NOT NULL);
CREATE INDEX evaluations_class ON evaluations(failure_class);
CREATE VIEW evaluation_rows AS
SELECT e.id AS id, e.run_id AS run_id, e.task_id AS task_id,
       substr(e.task_id, 1, instr(e.task_id, '/') - 1) AS category,
       m.name AS method, s.round AS round, r.device AS device,
       CASE WHEN r.device = 'cuda' THEN coalesce(json_extract(r.provenance, '$.devices[0].name'), 'cuda')
            ELSE 'CPU (Triton interpreter)' END AS gpu,
       e.verdict AS verdict, e.call_ok AS call_ok, e.exe_ok AS exe_ok,
       CASE WHEN e.verdict = 'pass' THEN 'pass' WHEN e.call_ok = 0 THEN 'call' ELSE 'exe' END AS stage,
       e.failure_class AS failure_class, l.failure_class AS manual_class, l.note AS manual_note,
       e.failure_detail AS failure_detail, s.candidate_id AS candidate_id, e.submission_id AS submission_id,
       e.started_at AS started_at, e.finished_at AS finished_at
FROM evaluations e
JOIN submissions s ON s.id = e.submission_id
JOIN methods m ON m.id = s.method_id
JOIN runs r ON r.id = e.run_id
LEFT JOIN manual_labels l ON l.evaluation_id = e.id;
INSERT INTO manual_labels VALUES(2, 'shape_mismatch', 'by hand', 'me', '2026-01-02T00:00:00Z');
PRAGMA user_version=2;
)SQL";

void makeDb(const fs::path& p, const std::vector<const char*>& scripts)
{
    fs::remove(p);
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(p.c_str(), &h), SQLITE_OK);
    for (const char* s : scripts) {
        char* err = nullptr;
        ASSERT_EQ(sqlite3_exec(h, s, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    }
    sqlite3_close(h);
}

}  // namespace

TEST(Resume, OlderSchemasAreMigratedWithTheirRows)
{
    if (device() != "cpu")
        GTEST_SKIP() << "CPU only (no device work)";
    const auto work = tempPath("migrate");
    fs::create_directories(work);
    for (int v : {1, 2}) {
        const auto db = work / ("v" + std::to_string(v) + ".sqlite");
        std::vector<const char*> scripts = {kSchemaV1};
        if (v == 2)
            scripts.push_back(kSchemaV2);
        makeDb(db, scripts);
        ASSERT_EQ(peek(db, "PRAGMA user_version"), std::to_string(v));
        // Through kbx: the report opens (and so migrates) the database and shows its rows.
        auto r = run(kbxBin() + " report --json --db " + q(db) + " 2>&1");
        ASSERT_EQ(r.rc, 0) << r.out;
        auto rows = jsonLines(r.out);
        ASSERT_EQ(rows.size(), 2u) << r.out;  // Activation and Math, method GEAK
        int total = 0, exe = 0;
        for (const auto& row : rows) {
            EXPECT_EQ(row["method"], "GEAK");
            total += row["total"].get<int>();
            exe += row["exe_ok"].get<int>();
        }
        EXPECT_EQ(total, 2);
        EXPECT_EQ(exe, 1);
        EXPECT_EQ(peek(db, "PRAGMA user_version"), std::to_string(kbx::kSchemaVersion)) << "v" << v;
        EXPECT_EQ(peek(db, "PRAGMA integrity_check"), "ok");
        kbx::Store store(db);
        EXPECT_EQ(store.query("SELECT count(*) AS n FROM evaluations")[0]["n"], 2);
        EXPECT_EQ(store.query("SELECT count(*) AS n FROM case_results")[0]["n"], 1);
        EXPECT_EQ(store.query("SELECT count(*) AS n FROM timings")[0]["n"], 1);
        EXPECT_EQ(store.query("SELECT failure_class AS c FROM evaluation_rows WHERE id = 2")[0]["c"], "value_mismatch");
        EXPECT_EQ(store.query("SELECT count(*) AS n FROM evaluation_rows WHERE imported = 0")[0]["n"], 2) << "the v3 view";
        EXPECT_EQ(store.query("SELECT count(*) AS n FROM manual_labels")[0]["n"], v == 2 ? 1 : 0);
    }
    if (!::testing::Test::HasFailure())
        fs::remove_all(work);
}

TEST(Resume, NewerSchemaIsRefusedAndLeftByteIdentical)
{
    if (device() != "cpu")
        GTEST_SKIP() << "CPU only (no device work)";
    const auto work = tempPath("newer");
    fs::create_directories(work);
    const auto db = work / "newer.sqlite";
    makeDb(db, {kSchemaV1, "PRAGMA user_version=99;"});
    const auto bytes = bytesOf(db);
    ASSERT_FALSE(bytes.empty());
    for (const std::string& cmd : {" report --db " + q(db), " eval " + q(kFixtures / "good/Activation/relu.py") + " --device cpu --resume --db " + q(db)}) {
        auto r = run(kbxBin() + cmd + " 2>&1");
        EXPECT_EQ(r.rc, 5) << cmd << "\n" << r.out;
        EXPECT_NE(r.out.find("has schema version 99, newer than this kbx understands"), std::string::npos) << r.out;
        EXPECT_TRUE(bytesOf(db) == bytes) << cmd << ": the newer database was changed";
        EXPECT_FALSE(fs::exists(db.string() + "-wal")) << cmd << ": a WAL file was left beside it";
    }
    if (!::testing::Test::HasFailure())
        fs::remove_all(work);
}
