// SPDX-License-Identifier: MIT
// kbx::Store opened read-only (OpenMode::ReadOnly, or Auto on a database this user cannot write, as
// the installed demo /usr/share/kbx/demo.sqlite): reports and statistics tables work, the file keeps
// its bytes and modification time, writes are refused with a message naming the file, and a database
// the user cannot write is refused by a read-write store (what kbx eval, import and merge open) with a
// clear message before SQLite touches it. The tests that need a database this user cannot write run
// as nobody where the test runs as root (CI), as tests/models does.
#include "file_snapshot.h"
#include "quality.h"
#include "seed_import.h"
#include "stats_tables.h"
#include "store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace kbx;
namespace fs = std::filesystem;

namespace {

using kbx_test::Snapshot;
using kbx_test::snapshot;

bool fileExists(const fs::path& p)
{
    std::error_code ec;
    return fs::exists(p, ec);
}

std::string sidecar(const fs::path& p, const char* suffix) { return p.string() + suffix; }

/// A kbx database with a run, two evaluations (one of them of imported code without text, whose code
/// quality is a placeholder row: a putCodeQuality that needs no radon), closed again (no -wal/-shm).
void makeDatabase(const fs::path& p)
{
    Store s(p);
    const auto m = s.ensureMethod("m1");
    const auto run = s.beginRun("cpu", {{"torch", "2.13.0"}}, {0, 1}, 7, {});
    auto add = [&](const std::string& task, const std::string& code, bool pass) {
        const auto sub = s.ensureSubmission(s.ensureCandidate(task, code).first, m, 0, "t.jsonl");
        EvaluationRecord r;
        r.runId = run;
        r.submissionId = sub;
        r.taskId = task;
        r.pass = pass;
        r.callOk = true;
        r.exeOk = pass;
        if (!pass)
            r.failureClass = "value_mismatch";
        r.startedAt = r.finishedAt = nowIso8601();
        s.addEvaluation(r);
    };
    add("Activation/relu", "def relu(x):\n    return x\n", true);
    add("Activation/gelu", "# kbx import: the seed kept no code\n", false);
    s.finishRun(run, "finished", {{"torch", "2.13.0"}});
}

/// Everything a writing command could ask of a store, each expected to throw a StoreError that names
/// the file and says it is read-only.
void expectWritesRefused(Store& s, const fs::path& p)
{
    auto refused = [&](const char* what, auto&& f) {
        try {
            f();
            ADD_FAILURE() << what << " wrote to a read-only store";
        } catch (const StoreError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(p.string()), std::string::npos) << what << ": " << msg;
            EXPECT_NE(msg.find("read-only"), std::string::npos) << what << ": " << msg;
            EXPECT_NE(msg.find("copy"), std::string::npos) << what << ": " << msg;
        }
    };
    refused("ensureMethod", [&] { s.ensureMethod("new-method"); });
    refused("ensureCandidate", [&] { s.ensureCandidate("Activation/relu", "def relu(x): pass\n"); });
    refused("ensureSubmission", [&] { s.ensureSubmission(1, 1, 3, "x"); });
    refused("beginRun", [&] { s.beginRun("cpu", nlohmann::json::object(), {0}, 1, nlohmann::json::object()); });
    refused("finishRun", [&] { s.finishRun(1, "finished", nlohmann::json::object()); });
    refused("markRunInterrupted", [&] { s.markRunInterrupted(1); });
    refused("addEvaluation", [&] {
        EvaluationRecord r;
        r.runId = 1;
        r.submissionId = 1;
        r.taskId = "Activation/relu";
        s.addEvaluation(r);
    });
    refused("setManualLabel", [&] { s.setManualLabel(1, "value_mismatch", "note"); });
    refused("addPerf", [&] { s.addPerf(1, {}, nlohmann::json::object()); });
    refused("writeImport", [&] { s.writeImport(ImportBatch{}); });
    // SQL handed to query() cannot write either (SQLite's own read-only connection).
    EXPECT_THROW(s.query("INSERT INTO methods(name) VALUES('sneaky')"), StoreError);
    // The code-quality cache keeps nothing, without an error.
    CodeQualityRow q;
    q.submissionId = 1;
    q.toolVersion = "radon 6";
    EXPECT_NO_THROW(s.putCodeQuality({q}));
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM code_quality")[0]["n"], 0);
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM methods WHERE name IN ('new-method', 'sneaky')")[0]["n"], 0);
}

/// Reads what kbx report reads: the counts, two statistics tables and code quality (its cache is
/// written by a read-write store; here it must stay empty).
void expectReportsWork(Store& s)
{
    const auto rows = s.report();
    ASSERT_FALSE(rows.empty());
    int total = 0;
    for (const auto& r : rows)
        total += r.total;
    EXPECT_EQ(total, 2);
    for (const char* name : {"method-summary", "taxonomy"}) {
        const auto rep = stats::buildReport(s, name, {}, {});
        EXPECT_FALSE(stats::render(rep, stats::Format::Text).empty()) << name;
        EXPECT_FALSE(stats::render(rep, stats::Format::Json).empty()) << name;
    }
    std::vector<std::int64_t> subs;
    for (const auto& j : s.query("SELECT id FROM submissions ORDER BY id"))
        subs.push_back(j["id"].get<std::int64_t>());
    const auto q = quality::ensure(s, subs, {});
    EXPECT_TRUE(q.rows.count(subs.at(1))) << "the placeholder row of the imported code";
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM code_quality")[0]["n"], 0) << "a read-only store cached code quality";
}

/// For a scope, this process's real and effective uid/gid become nobody's (65534) when it runs as
/// root, so that file permissions apply (access() checks the real ids); the saved ids stay root's, so
/// the destructor switches back. Not root: nothing changes (permissions apply anyway).
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

/// A directory of its own under /tmp, removed (with write permission given back) at the end.
struct TempDir {
    fs::path path;
    TempDir()
    {
        std::string tmpl = (fs::temp_directory_path() / "kbx-store-ro-XXXXXX").string();
        if (::mkdtemp(tmpl.data()))
            path = tmpl;
    }
    ~TempDir()
    {
        std::error_code ec;
        if (path.empty())
            return;
        fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path, ec);
    }
};

}  // namespace

// --read-only on a database this user could write: reports work, nothing is written. SQLite may make
// the empty -wal/-shm companions a reader of a WAL database needs beside a possible writer; the
// database file itself keeps its bytes and modification time.
TEST(StoreReadOnly, ExplicitModeReadsAndWritesNothing)
{
    TempDir dir;
    ASSERT_FALSE(dir.path.empty());
    const auto p = dir.path / "results.sqlite";
    makeDatabase(p);
    ASSERT_FALSE(fileExists(sidecar(p, "-wal")));
    const auto before = snapshot(p);
    ASSERT_GT(before.bytes.size(), 0u);
    {
        Store s(p, OpenMode::ReadOnly);
        EXPECT_TRUE(s.readOnly());
        EXPECT_EQ(s.schemaVersion(), kSchemaVersion);
        expectReportsWork(s);
        expectWritesRefused(s, p);
    }
    EXPECT_TRUE(snapshot(p) == before) << "the database file changed";
    if (fileExists(sidecar(p, "-wal"))) {
        EXPECT_EQ(fs::file_size(sidecar(p, "-wal")), 0u) << "something was written to the WAL journal";
    }
    // The same file read-write afterwards: the writes go through (the store was the only guard).
    Store w(p);
    EXPECT_FALSE(w.readOnly());
    EXPECT_GT(w.ensureMethod("new-method"), 0);
}

// Auto (what kbx report uses) on a database this user can write opens it read-write, as before.
TEST(StoreReadOnly, AutoOnAWritableDatabaseIsReadWrite)
{
    TempDir dir;
    ASSERT_FALSE(dir.path.empty());
    const auto p = dir.path / "results.sqlite";
    makeDatabase(p);
    Store s(p, OpenMode::Auto);
    EXPECT_FALSE(s.readOnly());
    EXPECT_TRUE(readOnlyReason(p).empty());
}

// An older schema is upgraded in place by a read-write store; read-only, it is refused with a message
// that says to copy the file, and the file stays as it was. A missing file is not created; a newer
// schema and a foreign SQLite file are refused.
TEST(StoreReadOnly, OlderSchemaMissingAndForeignFilesAreRefused)
{
    TempDir dir;
    ASSERT_FALSE(dir.path.empty());
    const auto p = dir.path / "old.sqlite";
    makeDatabase(p);
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db, "DROP TABLE code_quality; PRAGMA user_version=3", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    const auto before = snapshot(p);
    try {
        Store s(p, OpenMode::ReadOnly);
        ADD_FAILURE() << "an older schema was opened read-only";
    } catch (const StoreError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("schema version 3, older"), std::string::npos) << msg;
        EXPECT_NE(msg.find("cp " + p.string()), std::string::npos) << msg;
    }
    EXPECT_TRUE(snapshot(p) == before);
    {
        Store s(p);  // read-write: migrated
        EXPECT_EQ(s.schemaVersion(), kSchemaVersion);
    }

    const auto missing = dir.path / "missing.sqlite";
    EXPECT_THROW({ Store s(missing, OpenMode::ReadOnly); }, StoreError);
    EXPECT_FALSE(fileExists(missing));

    const auto newer = dir.path / "newer.sqlite";
    makeDatabase(newer);
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    try {
        Store s(newer, OpenMode::ReadOnly);
        ADD_FAILURE() << "a newer schema was opened";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("newer than this kbx"), std::string::npos) << e.what();
    }

    const auto foreign = dir.path / "foreign.sqlite";
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    try {
        Store s(foreign, OpenMode::ReadOnly);
        ADD_FAILURE() << "a foreign database was opened";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("not a kbx database"), std::string::npos) << e.what();
    }
}

// The installed demo's situation: a WAL database of root's in a directory of root's. As an ordinary
// user, a reading store (Auto) opens it read-only by itself: reports work, no -wal/-shm file appears,
// the file keeps its bytes and modification time. A read-write store (kbx eval, import, merge) is
// refused with a message naming the file, and so is a new database in that directory.
TEST(StoreReadOnly, UnwritableDatabaseAsAnOrdinaryUser)
{
    TempDir dir;
    ASSERT_FALSE(dir.path.empty());
    const auto share = dir.path / "share";
    fs::create_directories(share);
    const auto p = share / "demo.sqlite";
    makeDatabase(p);
    {
        sqlite3* db = nullptr;  // the demo is a WAL database, as every database the store makes
        ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
        sqlite3_stmt* st = nullptr;
        ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
        ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
        EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
        sqlite3_finalize(st);
        sqlite3_close(db);
    }
    ASSERT_FALSE(fileExists(sidecar(p, "-wal")));
    ASSERT_FALSE(fileExists(sidecar(p, "-shm")));
    // As installed: the file 0644 and the directories 0755 (root's; not root: 0444 and 0555, ours).
    const bool root = ::geteuid() == 0;
    const auto rx = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                    fs::perms::others_read | fs::perms::others_exec;
    fs::permissions(p, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read |
                           (root ? fs::perms::owner_write : fs::perms::none));
    fs::permissions(share, rx | (root ? fs::perms::owner_write : fs::perms::none));
    fs::permissions(dir.path, rx | (root ? fs::perms::owner_write : fs::perms::none));
    const auto before = snapshot(p);
    {
        Unprivileged nobody;
        if (!nobody.ok())
            GTEST_SKIP() << "cannot run as an ordinary user here (setresuid to nobody failed)";
        const auto why = readOnlyReason(p);
        EXPECT_NE(why.find("read-only for you"), std::string::npos) << why;
        {
            Store s(p, OpenMode::Auto);
            EXPECT_TRUE(s.readOnly());
            EXPECT_EQ(s.schemaVersion(), kSchemaVersion);
            expectReportsWork(s);
            expectWritesRefused(s, p);
        }
        try {
            Store s(p);
            ADD_FAILURE() << "a database the user cannot write was opened read-write";
        } catch (const StoreError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(p.string() + ": " + p.string() + " is read-only for you"), std::string::npos) << msg;
            EXPECT_NE(msg.find("copy it to a place you can write"), std::string::npos) << msg;
            EXPECT_EQ(msg.find("attempt to write a readonly database"), std::string::npos) << msg;
        }
        const auto fresh = share / "new.sqlite";
        try {
            Store s(fresh);
            ADD_FAILURE() << "a database was created in a directory the user cannot write";
        } catch (const StoreError& e) {
            EXPECT_NE(std::string(e.what()).find("is not writable for you"), std::string::npos) << e.what();
        }
        EXPECT_FALSE(fileExists(fresh));
    }
    EXPECT_TRUE(snapshot(p) == before) << "the database file changed";
    EXPECT_FALSE(fileExists(sidecar(p, "-wal")));
    EXPECT_FALSE(fileExists(sidecar(p, "-shm")));
}

#ifdef KBX_TEST_KBX_BIN
// The command line on that database as an ordinary user: kbx report (counts and a table) reads it
// read-only by itself, kbx report --read-only reads a writable one; kbx import and merge into it fail
// with the store's message (exit 5), and nothing changes.
TEST(StoreReadOnly, CommandLineAsAnOrdinaryUser)
{
    TempDir dir;
    ASSERT_FALSE(dir.path.empty());
    const auto share = dir.path / "share";
    fs::create_directories(share);
    const auto p = share / "demo.sqlite";
    makeDatabase(p);
    const auto other = dir.path / "other.sqlite";  // a database the user may read and write (0666, 0777 dir)
    makeDatabase(other);
    const auto rx = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                    fs::perms::others_read | fs::perms::others_exec;
    const bool root = ::geteuid() == 0;
    fs::permissions(p, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read |
                           (root ? fs::perms::owner_write : fs::perms::none));
    fs::permissions(share, rx | (root ? fs::perms::owner_write : fs::perms::none));
    fs::permissions(dir.path, fs::perms::all);
    fs::permissions(other, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::group_write |
                               fs::perms::others_read | fs::perms::others_write);
    const auto before = snapshot(p);
    const auto out = dir.path / "out.txt";
    auto kbx = [&](const std::string& args) {
        const std::string cmd = std::string(KBX_TEST_KBX_BIN) + " " + args + " > " + out.string() + " 2>&1";
        const int st = std::system(cmd.c_str());
        std::ifstream in(out);
        std::ostringstream os;
        os << in.rdbuf();
        return std::make_pair(WIFEXITED(st) ? WEXITSTATUS(st) : -1, os.str());
    };
    {
        Unprivileged nobody;
        if (!nobody.ok())
            GTEST_SKIP() << "cannot run as an ordinary user here (setresuid to nobody failed)";
        auto [rc, text] = kbx("report --db " + p.string());
        EXPECT_EQ(rc, 0) << text;
        EXPECT_NE(text.find("m1"), std::string::npos) << text;
        EXPECT_EQ(text.find("readonly"), std::string::npos) << text;
        std::tie(rc, text) = kbx("report --no-quality --table method-summary --db " + p.string());
        EXPECT_EQ(rc, 0) << text;
        EXPECT_NE(text.find("m1"), std::string::npos) << text;
        std::tie(rc, text) = kbx("report --read-only --table taxonomy --db " + other.string());
        EXPECT_EQ(rc, 0) << text;
        // Writing commands: the store's message, exit 5 (database), nothing changed.
        std::tie(rc, text) = kbx("merge " + p.string() + " " + other.string());
        EXPECT_EQ(rc, 5) << text;
        EXPECT_NE(text.find(p.string() + " is read-only for you"), std::string::npos) << text;
        EXPECT_NE(text.find("copy it to a place you can write"), std::string::npos) << text;
    }
    EXPECT_TRUE(snapshot(p) == before) << "the database file changed";
    EXPECT_FALSE(fileExists(sidecar(p, "-wal")));
    EXPECT_FALSE(fileExists(sidecar(p, "-shm")));
}
#endif

// Issue 24: another program's SQLite file opened for writing (the workbench's File > Open, kbx eval
// --db) is refused before anything writes: not switched to WAL, its bytes and time unchanged, no
// -wal/-shm beside it; also when it sets user_version as kbx does. An empty file stays a new database.
TEST(StoreReadOnly, AForeignSqliteFileIsRefusedBeforeAnythingWrites)
{
    TempDir dir;
    ASSERT_FALSE(dir.path.empty());
    for (const char* version : {"0", "3"}) {
        const auto p = dir.path / (std::string("other-app-v") + version + ".sqlite");
        {
            sqlite3* db = nullptr;
            ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
            const std::string sql = std::string("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) "
                                                "VALUES ('keep me'); PRAGMA user_version=") + version;
            ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(db);
        }
        const auto before = snapshot(p);
        try {
            Store s(p, OpenMode::ReadWrite);
            ADD_FAILURE() << "another program's database was opened for writing (user_version " << version << ")";
        } catch (const StoreError& e) {
            EXPECT_NE(std::string(e.what()).find("not a kbx database"), std::string::npos) << e.what();
        }
        EXPECT_TRUE(snapshot(p) == before) << "the file changed (user_version " << version << ")";
        EXPECT_FALSE(fs::exists(p.string() + "-wal")) << version;
        EXPECT_FALSE(fs::exists(p.string() + "-shm")) << version;
    }
    const auto empty = dir.path / "empty.sqlite";
    std::ofstream(empty).close();
    Store s(empty, OpenMode::ReadWrite);
    EXPECT_GT(s.schemaVersion(), 0);
}
