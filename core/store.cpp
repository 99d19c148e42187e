// SPDX-License-Identifier: MIT
#include "store.h"

#include "derived.h"
#include "seed_import.h"
#include "source.h"
#include "taxonomy.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <sstream>
#include <ctime>
#include <set>
#include <tuple>
#include <unordered_map>

namespace kbx {
namespace {

/// Forward migrations: entry i brings a database from user_version i to i+1.
const std::vector<const char*> kMigrations = {
    R"SQL(
CREATE TABLE methods(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE);
CREATE TABLE candidates(
  id INTEGER PRIMARY KEY,
  task_id TEXT NOT NULL,
  code_hash TEXT NOT NULL,
  code TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE(task_id, code_hash));
CREATE TABLE submissions(
  id INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  method_id INTEGER NOT NULL REFERENCES methods(id),
  round INTEGER NOT NULL DEFAULT 0,
  origin TEXT,
  UNIQUE(candidate_id, method_id, round));
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL,
  device TEXT NOT NULL,
  provenance TEXT NOT NULL,
  public_seeds TEXT NOT NULL,
  secret_seed INTEGER NOT NULL,
  args TEXT NOT NULL);
CREATE TABLE evaluations(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  submission_id INTEGER NOT NULL REFERENCES submissions(id),
  task_id TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('pass', 'fail')),
  call_ok INTEGER NOT NULL,
  exe_ok INTEGER NOT NULL,
  failure_class TEXT,
  failure_detail TEXT,
  evidence TEXT NOT NULL,
  stage_seconds TEXT NOT NULL,
  taxonomy_version INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL);
CREATE TABLE case_results(
  id INTEGER PRIMARY KEY,
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  failure_class TEXT,
  evidence TEXT);
CREATE TABLE timings(
  id INTEGER PRIMARY KEY,
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  shape TEXT NOT NULL,
  candidate_ms REAL,
  baseline_ms REAL,
  samples TEXT);
CREATE INDEX evaluations_task ON evaluations(task_id);
CREATE INDEX evaluations_run ON evaluations(run_id);
CREATE INDEX evaluations_submission ON evaluations(submission_id);
CREATE INDEX case_results_evaluation ON case_results(evaluation_id);
)SQL",
    // v2: manual failure labels beside the automatic class; one flat, indexed view for the views.
    R"SQL(
CREATE TABLE manual_labels(
  evaluation_id INTEGER PRIMARY KEY REFERENCES evaluations(id) ON DELETE CASCADE,
  failure_class TEXT NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  author TEXT NOT NULL DEFAULT '',
  labelled_at TEXT NOT NULL);
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
)SQL",
    // v3: kbx import of the seed's outputs. Imported verdicts are evaluations of runs with device
    // 'imported' whose provenance names the GPU ($.gpu); the view gives them that GPU and says
    // imported = 1. Golden eager timings per GPU/task/input size, corpus transitions with the kind
    // the corpus recorded, seed summaries, and one row per import (content hash, files, options).
    // (IF NOT EXISTS: the migration tests strip older objects from a current database.)
    R"SQL(
CREATE TABLE IF NOT EXISTS imports(
  id INTEGER PRIMARY KEY,
  imported_at TEXT NOT NULL,
  format TEXT NOT NULL,
  source TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  options TEXT NOT NULL,
  files TEXT NOT NULL,
  notes TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS imports_sha256 ON imports(sha256);
CREATE TABLE IF NOT EXISTS golden_timings(
  id INTEGER PRIMARY KEY,
  import_id INTEGER NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
  gpu TEXT NOT NULL,
  task TEXT NOT NULL,
  task_id TEXT,
  idx INTEGER NOT NULL,
  input_size TEXT NOT NULL,
  ms REAL NOT NULL,
  gbs REAL,
  tflops REAL,
  file TEXT NOT NULL,
  UNIQUE(gpu, task, idx));
CREATE INDEX IF NOT EXISTS golden_timings_task ON golden_timings(task, gpu);
CREATE TABLE IF NOT EXISTS round_transitions(
  id INTEGER PRIMARY KEY,
  import_id INTEGER NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  gpu TEXT NOT NULL,
  method TEXT NOT NULL,
  task_id TEXT NOT NULL,
  from_round INTEGER NOT NULL,
  to_round INTEGER NOT NULL,
  kind TEXT NOT NULL,
  before_evaluation_id INTEGER REFERENCES evaluations(id),
  after_evaluation_id INTEGER REFERENCES evaluations(id),
  before_call_ok INTEGER NOT NULL, before_exe_ok INTEGER NOT NULL, before_perf_ok INTEGER NOT NULL, before_speedup REAL,
  after_call_ok INTEGER NOT NULL, after_exe_ok INTEGER NOT NULL, after_perf_ok INTEGER NOT NULL, after_speedup REAL,
  origin TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seed_summaries(
  id INTEGER PRIMARY KEY,
  import_id INTEGER NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
  gpu TEXT NOT NULL,
  method TEXT NOT NULL,
  round INTEGER NOT NULL,
  total INTEGER,
  call_pass INTEGER,
  exe_pass INTEGER,
  perf_pass INTEGER,
  avg_speedup REAL,
  avg_speedup_per_task REAL,
  fields TEXT NOT NULL,
  file TEXT NOT NULL);
DROP VIEW IF EXISTS evaluation_rows;
CREATE VIEW evaluation_rows AS
SELECT e.id AS id, e.run_id AS run_id, e.task_id AS task_id,
       substr(e.task_id, 1, instr(e.task_id, '/') - 1) AS category,
       m.name AS method, s.round AS round, r.device AS device,
       CASE WHEN r.device = 'cuda' THEN coalesce(json_extract(r.provenance, '$.devices[0].name'), 'cuda')
            WHEN r.device = 'imported' THEN coalesce(json_extract(r.provenance, '$.gpu'), 'unknown')
            ELSE 'CPU (Triton interpreter)' END AS gpu,
       e.verdict AS verdict, e.call_ok AS call_ok, e.exe_ok AS exe_ok,
       CASE WHEN e.verdict = 'pass' THEN 'pass' WHEN e.call_ok = 0 THEN 'call' ELSE 'exe' END AS stage,
       e.failure_class AS failure_class, l.failure_class AS manual_class, l.note AS manual_note,
       e.failure_detail AS failure_detail, s.candidate_id AS candidate_id, e.submission_id AS submission_id,
       e.started_at AS started_at, e.finished_at AS finished_at,
       (r.device = 'imported') AS imported
FROM evaluations e
JOIN submissions s ON s.id = e.submission_id
JOIN methods m ON m.id = s.method_id
JOIN runs r ON r.id = e.run_id
LEFT JOIN manual_labels l ON l.evaluation_id = e.id;
)SQL",
    // v4: code quality of each submission's candidate code alone (radon: maintainability index,
    // cyclomatic complexity, SLOC), computed lazily at report time and cached here.
    R"SQL(
CREATE TABLE IF NOT EXISTS code_quality(
  submission_id INTEGER PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
  mi REAL,
  cc_mean REAL,
  cc_max INTEGER,
  sloc INTEGER,
  tool_version TEXT NOT NULL,
  error TEXT NOT NULL DEFAULT '',
  measured_at TEXT NOT NULL);
)SQL",
    // v5: two tiers per evaluation (issue 21). `protocol` says which cases decided the verdict
    // ('contract': the seed's own call patterns; 'strict': every case; NULL: stored before tiers,
    // every case decided); the extended tier's counts and first failure class beside it, and each
    // case's tier. correct_ext: correct including the extended cases (NULL where none ran).
    R"SQL(
ALTER TABLE evaluations ADD COLUMN protocol TEXT;
ALTER TABLE evaluations ADD COLUMN ext_cases INTEGER;
ALTER TABLE evaluations ADD COLUMN ext_passed INTEGER;
ALTER TABLE evaluations ADD COLUMN ext_failure_class TEXT;
ALTER TABLE case_results ADD COLUMN tier TEXT NOT NULL DEFAULT 'contract';
DROP VIEW IF EXISTS evaluation_rows;
CREATE VIEW evaluation_rows AS
SELECT e.id AS id, e.run_id AS run_id, e.task_id AS task_id,
       substr(e.task_id, 1, instr(e.task_id, '/') - 1) AS category,
       m.name AS method, s.round AS round, r.device AS device,
       CASE WHEN r.device = 'cuda' THEN coalesce(json_extract(r.provenance, '$.devices[0].name'), 'cuda')
            WHEN r.device = 'imported' THEN coalesce(json_extract(r.provenance, '$.gpu'), 'unknown')
            ELSE 'CPU (Triton interpreter)' END AS gpu,
       e.verdict AS verdict, e.call_ok AS call_ok, e.exe_ok AS exe_ok,
       CASE WHEN e.verdict = 'pass' THEN 'pass' WHEN e.call_ok = 0 THEN 'call' ELSE 'exe' END AS stage,
       e.failure_class AS failure_class, l.failure_class AS manual_class, l.note AS manual_note,
       e.failure_detail AS failure_detail, s.candidate_id AS candidate_id, e.submission_id AS submission_id,
       e.started_at AS started_at, e.finished_at AS finished_at,
       (r.device = 'imported') AS imported,
       e.protocol AS protocol, e.ext_cases AS ext_cases, e.ext_passed AS ext_passed,
       e.ext_failure_class AS ext_failure_class,
       CASE WHEN e.verdict <> 'pass' THEN 0
            WHEN e.protocol = 'strict' THEN 1
            WHEN e.ext_cases IS NULL THEN NULL
            ELSE (e.ext_passed = e.ext_cases) END AS correct_ext
FROM evaluations e
JOIN submissions s ON s.id = e.submission_id
JOIN methods m ON m.id = s.method_id
JOIN runs r ON r.id = e.run_id
LEFT JOIN manual_labels l ON l.evaluation_id = e.id;
)SQL",
};

struct Stmt {
    sqlite3_stmt* s = nullptr;
    Stmt(sqlite3* db, const std::string& sql)
    {
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
            throw StoreError(fmt::format("SQL prepare failed: {} ({})", sqlite3_errmsg(db), sql.substr(0, 80)));
    }
    ~Stmt() { sqlite3_finalize(s); }
    Stmt& bind(int i, const std::string& v)
    {
        sqlite3_bind_text(s, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt& bind(int i, std::int64_t v)
    {
        sqlite3_bind_int64(s, i, v);
        return *this;
    }
    Stmt& bindNull(int i)
    {
        sqlite3_bind_null(s, i);
        return *this;
    }
    bool step()
    {
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        throw StoreError(fmt::format("SQL step failed: {}", sqlite3_errmsg(sqlite3_db_handle(s))));
    }
    std::int64_t i64(int c) { return sqlite3_column_int64(s, c); }
    std::string text(int c)
    {
        auto* p = sqlite3_column_text(s, c);
        return p ? reinterpret_cast<const char*>(p) : "";
    }
};

class Transaction {
public:
    explicit Transaction(sqlite3* db) : m_db(db) { run("BEGIN IMMEDIATE"); }
    ~Transaction()
    {
        if (!m_done)
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit()
    {
        run("COMMIT");
        m_done = true;
    }

private:
    void run(const char* sql)
    {
        char* err = nullptr;
        if (sqlite3_exec(m_db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "?";
            sqlite3_free(err);
            throw StoreError(fmt::format("{} failed: {}", sql, msg));
        }
    }
    sqlite3* m_db;
    bool m_done = false;
};

}  // namespace

std::string nowIso8601()
{
    auto now = std::chrono::system_clock::now();
    std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string sqlQuote(const std::string& s)
{
    std::string out = "'";
    for (char c : s) {
        out += c;
        if (c == '\'')
            out += '\'';
    }
    return out + "'";
}

std::string readOnlyReason(const std::filesystem::path& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path abs = fs::absolute(path, ec);
    const fs::path file = ec ? path : abs;
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (fs::exists(file, ec) && ::access(file.c_str(), W_OK) != 0)
        return fmt::format("{} is read-only for you", file.string());
    if (fs::exists(dir, ec) && ::access(dir.c_str(), W_OK | X_OK) != 0)
        return fmt::format("its directory {} is not writable for you (SQLite keeps its journal there)", dir.string());
    return {};
}

Store::Store(const std::filesystem::path& path, OpenMode mode) : m_path(path)
{
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    m_readOnlyReason = readOnlyReason(path);
    if (mode == OpenMode::ReadOnly || (mode == OpenMode::Auto && exists && !m_readOnlyReason.empty())) {
        openReadOnly();
        return;
    }
    // Read-write on a database this user cannot write: say so before SQLite touches it, instead of
    // its "attempt to write a readonly database" halfway (nothing is changed).
    if (!m_readOnlyReason.empty()) {
        if (exists)
            throw StoreError(fmt::format("{}: {}. kbx writes to this database (WAL journal, schema upgrades, results), so it "
                                         "cannot use it; copy it to a place you can write (e.g. cp {} ~/) and use the copy, "
                                         "or read it as it is with kbx report",
                                         path.string(), m_readOnlyReason, path.string()));
        throw StoreError(fmt::format("cannot create the database {}: {}; choose a place you can write", path.string(), m_readOnlyReason));
    }
    if (path.has_parent_path())
        std::filesystem::create_directories(path.parent_path(), ec);
    if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
        std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
        sqlite3_close(m_db);
        m_db = nullptr;
        throw StoreError(fmt::format("cannot open database {}: {}", path.string(), msg));
    }
    sqlite3_busy_timeout(m_db, 10000);
    registerFunctions(m_db);
    try {
        exec("PRAGMA foreign_keys=ON");
        // Reports read large parts of big databases (issue 24): pages mapped rather than read by a
        // system call each, and a larger page cache for the B-tree lookups of the joins.
        exec("PRAGMA mmap_size=2147418112");
        exec("PRAGMA cache_size=-65536");
        // A non-database file fails here with "file is not a database". The schema is checked
        // before anything writes (WAL mode rewrites the file header): a newer database stays as it was.
        exec("PRAGMA user_version");
        if (Stmt st(m_db, "PRAGMA user_version"); st.step() && st.i64(0) > kSchemaVersion)
            throw StoreError(fmt::format("{} has schema version {}, newer than this kbx understands ({}); use a newer kbx",
                                         m_path.string(), st.i64(0), kSchemaVersion));
        // Ours? Checked before anything writes (issue 24: another program's SQLite file was switched
        // to WAL, its header changed, and only then rejected).
        requireKbxDatabase();
        exec("PRAGMA journal_mode=WAL");
        exec("PRAGMA synchronous=NORMAL");
        migrate();
        // Timings of one evaluation by its id (the inspector, reports' per-evaluation counts): without
        // it every such lookup scans the whole table (issue 24: a report quadratic in the evaluations).
        // An index only: older kbx versions read the file as before, so no schema version for it.
        exec("CREATE INDEX IF NOT EXISTS timings_evaluation ON timings(evaluation_id)");
        // Covering indexes of the counting rule and the speedups (issue 24: every table and figure
        // on a million evaluations in seconds): analysis::loadRows reads the evaluations' verdict
        // columns and the timings' milliseconds from these alone, never the rows with their evidence
        // and samples (about 1 KB and 6 KB each). Like timings_evaluation, indexes only (no schema
        // version); a read-only open of a database without them gives the same results, slower.
        exec("CREATE INDEX IF NOT EXISTS evaluations_counting ON evaluations(submission_id, run_id, task_id, verdict, call_ok, "
             "exe_ok, failure_class, ext_cases, ext_passed, taxonomy_version)");
        exec("CREATE INDEX IF NOT EXISTS timings_speedup ON timings(evaluation_id, id, candidate_ms, baseline_ms)");
        // The protocol table reads only evaluations stored with tiers (schema v5): found by this
        // partial index, not by reading every evaluation's row.
        exec("CREATE INDEX IF NOT EXISTS evaluations_protocol ON evaluations(protocol) WHERE protocol IS NOT NULL");
        // The tables derived for the reports, kept by triggers (core/derived.h). Where they cannot be
        // made now (e.g. another writer holds the file past the busy timeout), readers compute them.
        try {
            derived::ensure(m_db);
        } catch (const StoreError&) {
        }
    } catch (...) {
        sqlite3_close(m_db);
        m_db = nullptr;
        throw;
    }
}

void Store::openReadOnly()
{
    namespace fs = std::filesystem;
    m_readOnly = true;
    std::error_code ec;
    if (!fs::is_regular_file(m_path, ec))
        throw StoreError(fmt::format("no database at {}", m_path.string()));
    // Nobody who may change the file works here when this user cannot write it (nor its directory, for
    // the journal) and no WAL journal with content lies beside it: immutable, so that SQLite makes no
    // -wal/-shm files (it could not in a directory it cannot write). Else an ordinary read-only
    // connection, which also reads the journal of a writer at work beside it.
    const auto wal = fs::path(m_path.string() + "-wal");
    const bool walContent = fs::exists(wal, ec) && fs::file_size(wal, ec) > 0 && !ec;
    const bool immutable = !m_readOnlyReason.empty() && !walContent;
    // A URI (SQLITE_OPEN_URI), with the path's special characters percent-encoded.
    std::string uri = "file:";
    for (unsigned char c : fs::absolute(m_path, ec).string()) {
        if (std::isalnum(c) || std::strchr("/-._~", c))
            uri += static_cast<char>(c);
        else
            uri += fmt::format("%{:02X}", c);
    }
    uri += immutable ? "?mode=ro&immutable=1" : "?mode=ro";
    if (sqlite3_open_v2(uri.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
        std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
        sqlite3_close(m_db);
        m_db = nullptr;
        throw StoreError(fmt::format("cannot open database {} read-only: {}", m_path.string(), msg));
    }
    sqlite3_busy_timeout(m_db, 10000);
    registerFunctions(m_db);
    try {
        exec("PRAGMA foreign_keys=ON");
        // Reports read large parts of big databases (issue 24): pages mapped rather than read by a
        // system call each, and a larger page cache for the B-tree lookups of the joins.
        exec("PRAGMA mmap_size=2147418112");
        exec("PRAGMA cache_size=-65536");
        int version = 0;
        {
            Stmt st(m_db, "PRAGMA user_version");  // "file is not a database" for anything else
            st.step();
            version = static_cast<int>(st.i64(0));
        }
        if (version > kSchemaVersion)
            throw StoreError(fmt::format("{} has schema version {}, newer than this kbx understands ({}); use a newer kbx",
                                         m_path.string(), version, kSchemaVersion));
        if (version == 0)
            throw StoreError(fmt::format("{} is not a kbx database (no kbx schema)", m_path.string()));
        if (version < kSchemaVersion)
            throw StoreError(fmt::format("{} has schema version {}, older than this kbx's ({}); kbx upgrades such a database "
                                         "in place, but it is opened read-only{}. Copy it to a place you can write (e.g. cp {} ~/) "
                                         "and use the copy",
                                         m_path.string(), version, kSchemaVersion,
                                         m_readOnlyReason.empty() ? "" : " (" + m_readOnlyReason + ")", m_path.string()));
    } catch (...) {
        sqlite3_close(m_db);
        m_db = nullptr;
        throw;
    }
}

void Store::requireWritable(const char* what) const
{
    if (m_readOnly)
        throw StoreError(fmt::format("{} is opened read-only{}: kbx cannot {} there. Copy it to a place you can write (e.g. cp {} ~/) "
                                     "and use the copy",
                                     m_path.string(), m_readOnlyReason.empty() ? "" : " (" + m_readOnlyReason + ")", what,
                                     m_path.string()));
}

Store::~Store()
{
    if (m_db)
        sqlite3_close(m_db);
}

void Store::exec(const std::string& sql) const
{
    char* err = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "?";
        sqlite3_free(err);
        throw StoreError(fmt::format("{}: {}", m_path.string(), msg));
    }
}

int Store::schemaVersion() const
{
    std::lock_guard lock(m_mutex);
    Stmt st(m_db, "PRAGMA user_version");
    st.step();
    return static_cast<int>(st.i64(0));
}

std::string Store::withoutExistingColumns(const std::string& sql) const
{
    // SQLite has no ADD COLUMN IF NOT EXISTS: a migration's "ALTER TABLE t ADD COLUMN c ...;" line is
    // left out where t already has c (a database whose user_version was set back by hand or by a
    // migration test), as CREATE ... IF NOT EXISTS does for tables.
    std::string out;
    std::istringstream in(sql);
    std::string line;
    while (std::getline(in, line)) {
        static const std::string kAlter = "ALTER TABLE ";
        if (line.rfind(kAlter, 0) == 0) {
            std::istringstream w(line.substr(kAlter.size()));
            std::string table, add, column, name;
            w >> table >> add >> column >> name;
            bool exists = false;
            Stmt st(m_db, fmt::format("SELECT 1 FROM pragma_table_info('{}') WHERE name=?", table));
            st.bind(1, name);
            exists = st.step();
            if (exists)
                continue;
        }
        out += line;
        out += '\n';
    }
    return out;
}

void Store::requireKbxDatabase() const
{
    int version = 0;
    {
        Stmt st(m_db, "PRAGMA user_version");
        st.step();
        version = static_cast<int>(st.i64(0));
    }
    Stmt st(m_db, "SELECT count(*), sum(name IN ('methods', 'candidates', 'submissions', 'runs', 'evaluations')) FROM sqlite_master "
                  "WHERE type = 'table'");
    st.step();
    const auto tables = st.i64(0), ours = st.i64(1);
    // Version 0 and no table: a new (or empty) file, which kbx makes a database. Anything else must
    // have kbx's core tables (another program may set user_version too).
    if ((version == 0 && tables != 0) || (version > 0 && ours < 5))
        throw StoreError(fmt::format("{} is an SQLite database but not a kbx database (nothing was changed)", m_path.string()));
}

void Store::migrate()
{
    int version = 0;
    {
        Stmt st(m_db, "PRAGMA user_version");
        st.step();
        version = static_cast<int>(st.i64(0));
    }
    if (version > kSchemaVersion)
        throw StoreError(fmt::format("{} has schema version {}, newer than this kbx understands ({}); use a newer kbx",
                                     m_path.string(), version, kSchemaVersion));
    // Whether the file is ours at all was settled before anything wrote (requireKbxDatabase).
    for (int v = version; v < kSchemaVersion; ++v) {
        Transaction tx(m_db);
        exec(withoutExistingColumns(kMigrations[static_cast<std::size_t>(v)]));
        exec(fmt::format("PRAGMA user_version={}", v + 1));
        tx.commit();
    }
}

void Store::setManualLabel(std::int64_t evaluationId, const std::string& failureClass, const std::string& note,
                           const std::string& author)
{
    requireWritable("store a manual label");
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    {
        Stmt chk(m_db, "SELECT count(*) FROM evaluations WHERE id=?");
        chk.bind(1, evaluationId).step();
        if (chk.i64(0) == 0)
            throw StoreError(fmt::format("no evaluation {} in {}", evaluationId, m_path.string()));
    }
    if (failureClass.empty()) {
        Stmt(m_db, "DELETE FROM manual_labels WHERE evaluation_id=?").bind(1, evaluationId).step();
    } else {
        if (failureClass != "pass" && !failureClassFromString(failureClass))
            throw StoreError(fmt::format("unknown failure class '{}' (see kbx taxonomy)", failureClass));
        Stmt(m_db, "INSERT INTO manual_labels(evaluation_id, failure_class, note, author, labelled_at) VALUES(?,?,?,?,?) "
                   "ON CONFLICT(evaluation_id) DO UPDATE SET failure_class=excluded.failure_class, note=excluded.note, "
                   "author=excluded.author, labelled_at=excluded.labelled_at")
            .bind(1, evaluationId).bind(2, failureClass).bind(3, note).bind(4, author).bind(5, nowIso8601()).step();
    }
    tx.commit();
}

void Store::addPerf(std::int64_t evaluationId, const std::vector<TimingRow>& rows, const nlohmann::json& perfEvidence,
                    const std::optional<std::pair<std::string, std::string>>& failure)
{
    requireWritable("store perf results");
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    nlohmann::json evidence;
    {
        Stmt st(m_db, "SELECT evidence FROM evaluations WHERE id=?");
        st.bind(1, evaluationId);
        if (!st.step())
            throw StoreError(fmt::format("no evaluation {} in {}", evaluationId, m_path.string()));
        evidence = nlohmann::json::parse(st.text(0), nullptr, false);
        if (!evidence.is_object())
            evidence = nlohmann::json::object();
    }
    evidence["perf"] = perfEvidence;
    Stmt(m_db, "UPDATE evaluations SET evidence=? WHERE id=?").bind(1, evidence.dump()).bind(2, evaluationId).step();
    if (failure)
        Stmt(m_db, "UPDATE evaluations SET verdict='fail', exe_ok=0, failure_class=?, failure_detail=? WHERE id=?")
            .bind(1, failure->first).bind(2, failure->second).bind(3, evaluationId).step();
    for (const auto& r : rows) {
        Stmt ins(m_db, "INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms, samples) VALUES(?,?,?,?,?)");
        ins.bind(1, evaluationId).bind(2, r.shape);
        if (r.candidateMs)
            sqlite3_bind_double(ins.s, 3, *r.candidateMs);
        else
            ins.bindNull(3);
        if (r.baselineMs)
            sqlite3_bind_double(ins.s, 4, *r.baselineMs);
        else
            ins.bindNull(4);
        ins.bind(5, r.samples.dump());
        ins.step();
    }
    tx.commit();
}

std::optional<ManualLabel> Store::manualLabel(std::int64_t evaluationId) const
{
    std::lock_guard lock(m_mutex);
    Stmt st(m_db, "SELECT failure_class, note, author, labelled_at FROM manual_labels WHERE evaluation_id=?");
    st.bind(1, evaluationId);
    if (!st.step())
        return std::nullopt;
    return ManualLabel{st.text(0), st.text(1), st.text(2), st.text(3)};
}

std::int64_t Store::ensureMethod(const std::string& name)
{
    requireWritable("store a method");
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    Stmt(m_db, "INSERT OR IGNORE INTO methods(name) VALUES(?)").bind(1, name).step();
    Stmt sel(m_db, "SELECT id FROM methods WHERE name=?");
    sel.bind(1, name).step();
    auto id = sel.i64(0);
    tx.commit();
    return id;
}

std::pair<std::int64_t, bool> Store::ensureCandidate(const std::string& taskId, const std::string& code)
{
    requireWritable("store a candidate");
    std::lock_guard lock(m_mutex);
    const auto hash = sha256Hex(code);
    Transaction tx(m_db);
    Stmt ins(m_db, "INSERT OR IGNORE INTO candidates(task_id, code_hash, code, created_at) VALUES(?,?,?,?)");
    ins.bind(1, taskId).bind(2, hash).bind(3, code).bind(4, nowIso8601()).step();
    bool inserted = sqlite3_changes(m_db) > 0;
    Stmt sel(m_db, "SELECT id FROM candidates WHERE task_id=? AND code_hash=?");
    sel.bind(1, taskId).bind(2, hash).step();
    auto id = sel.i64(0);
    tx.commit();
    return {id, inserted};
}

std::int64_t Store::ensureSubmission(std::int64_t candidateId, std::int64_t methodId, int round, const std::string& origin)
{
    requireWritable("store a submission");
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    Stmt(m_db, "INSERT OR IGNORE INTO submissions(candidate_id, method_id, round, origin) VALUES(?,?,?,?)")
        .bind(1, candidateId).bind(2, methodId).bind(3, std::int64_t(round)).bind(4, origin).step();
    Stmt sel(m_db, "SELECT id FROM submissions WHERE candidate_id=? AND method_id=? AND round=?");
    sel.bind(1, candidateId).bind(2, methodId).bind(3, std::int64_t(round)).step();
    auto id = sel.i64(0);
    tx.commit();
    return id;
}

std::int64_t Store::beginRun(const std::string& device, const nlohmann::json& provenance,
                             const std::vector<std::int64_t>& publicSeeds, std::int64_t secretSeed, const nlohmann::json& args)
{
    requireWritable("start a run");
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    Stmt(m_db, "INSERT INTO runs(started_at, status, device, provenance, public_seeds, secret_seed, args) VALUES(?,?,?,?,?,?,?)")
        .bind(1, nowIso8601()).bind(2, std::string("running")).bind(3, device).bind(4, provenance.dump())
        .bind(5, nlohmann::json(publicSeeds).dump()).bind(6, secretSeed).bind(7, args.dump()).step();
    auto id = sqlite3_last_insert_rowid(m_db);
    tx.commit();
    return id;
}

void Store::finishRun(std::int64_t runId, const std::string& status, const nlohmann::json& provenance)
{
    requireWritable("finish a run");
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    Stmt(m_db, "UPDATE runs SET finished_at=?, status=?, provenance=? WHERE id=?")
        .bind(1, nowIso8601()).bind(2, status).bind(3, provenance.dump()).bind(4, runId).step();
    tx.commit();
}

bool Store::markRunInterrupted(std::int64_t runId)
{
    requireWritable("mark a run interrupted");
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    Stmt(m_db, "UPDATE runs SET status='interrupted', finished_at=coalesce((SELECT max(finished_at) FROM evaluations WHERE run_id=?1), "
               "started_at) WHERE id=?1 AND status='running'")
        .bind(1, runId).step();
    const bool changed = sqlite3_changes(m_db) > 0;
    tx.commit();
    return changed;
}

namespace {

/// Strings longer than `keep` bytes cut to it (with a note of how much was cut), recursively.
nlohmann::json shortenStrings(const nlohmann::json& j, std::size_t keep)
{
    if (j.is_string()) {
        const auto& v = j.get_ref<const std::string&>();
        return v.size() <= keep ? j : nlohmann::json(v.substr(0, keep) + fmt::format("... [{} bytes cut]", v.size() - keep));
    }
    if (j.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [k, v] : j.items())
            out[k] = shortenStrings(v, keep);
        return out;
    }
    if (j.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& v : j)
            out.push_back(shortenStrings(v, keep));
        return out;
    }
    return j;
}

}  // namespace

std::int64_t Store::addEvaluation(const EvaluationRecord& r)
{
    requireWritable("store an evaluation");
    // What one evaluation keeps is bounded whatever the candidate did (issue 20): its evidence at most
    // kEvidenceBytes / 4 (long strings cut), its cases' evidence within the rest, failing cases first;
    // a case past the budget keeps its name, status and class, and says how much evidence it dropped.
    std::string evidence = r.evidence.dump();
    if (evidence.size() > kEvidenceBytes / 4)
        evidence = shortenStrings(r.evidence, 4096).dump();
    if (evidence.size() > kEvidenceBytes / 4)
        evidence = nlohmann::json{{"truncated_bytes", evidence.size()}}.dump();
    std::vector<std::string> caseEvidence(r.cases.size());
    {
        // room for a placeholder ({"truncated_bytes":N}, under 32 bytes) for every case, then the rest
        const std::size_t reserve = 32 * r.cases.size() + evidence.size();
        std::size_t left = kEvidenceBytes > reserve ? kEvidenceBytes - reserve : 0;
        std::vector<std::size_t> order;
        for (bool failing : {true, false})
            for (std::size_t i = 0; i < r.cases.size(); ++i)
                if ((r.cases[i].status != "pass") == failing)
                    order.push_back(i);
        for (auto i : order) {
            auto e = r.cases[i].evidence.dump();
            if (e.size() > left + 32)  // (its own placeholder's room counts as its)
                e = nlohmann::json{{"truncated_bytes", e.size()}}.dump();
            else
                left -= std::min(left, e.size() > 32 ? e.size() - 32 : 0);
            caseEvidence[i] = std::move(e);
        }
    }
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    Stmt ins(m_db, "INSERT INTO evaluations(run_id, submission_id, task_id, verdict, call_ok, exe_ok, failure_class, "
                   "failure_detail, evidence, stage_seconds, taxonomy_version, started_at, finished_at, protocol, "
                   "ext_cases, ext_passed, ext_failure_class) "
                   "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    ins.bind(1, r.runId).bind(2, r.submissionId).bind(3, r.taskId).bind(4, std::string(r.pass ? "pass" : "fail"))
        .bind(5, std::int64_t(r.callOk)).bind(6, std::int64_t(r.exeOk));
    if (r.failureClass)
        ins.bind(7, *r.failureClass);
    else
        ins.bindNull(7);
    ins.bind(8, r.failureDetail).bind(9, evidence).bind(10, r.stageSeconds.dump())
        .bind(11, std::int64_t(1)).bind(12, r.startedAt).bind(13, r.finishedAt);
    if (r.protocol.empty())
        ins.bindNull(14);
    else
        ins.bind(14, r.protocol);
    if (r.extCases)
        ins.bind(15, std::int64_t(*r.extCases)).bind(16, std::int64_t(r.extPassed.value_or(0)));
    else
        ins.bindNull(15).bindNull(16);
    if (r.extFailureClass)
        ins.bind(17, *r.extFailureClass);
    else
        ins.bindNull(17);
    ins.step();
    auto evalId = sqlite3_last_insert_rowid(m_db);
    Stmt c(m_db, "INSERT INTO case_results(evaluation_id, idx, name, status, failure_class, evidence, tier) VALUES(?,?,?,?,?,?,?)");
    for (std::size_t ci = 0; ci < r.cases.size(); ++ci) {
        const auto& cs = r.cases[ci];
        sqlite3_reset(c.s);
        c.bind(1, evalId).bind(2, std::int64_t(cs.index)).bind(3, cs.name).bind(4, cs.status);
        if (cs.failureClass)
            c.bind(5, *cs.failureClass);
        else
            c.bindNull(5);
        c.bind(6, caseEvidence[ci]).bind(7, cs.tier.empty() ? std::string("contract") : cs.tier).step();
    }
    tx.commit();
    return evalId;
}

std::vector<ReportRow> Store::report() const
{
    // The counting rule kept by the database (core/derived.h: one row per submission and device,
    // its latest evaluation), grouped here (issue 24: a million evaluations); the same counts as the
    // SQL over the view below, which a database without the derived table uses.
    if (derived::current(*this)) {
        std::unordered_map<std::int64_t, std::string> methods;
        each("SELECT id, name FROM methods", [&](const Cursor& c) { methods[c.i64(0)] = c.text(1); });
        std::unordered_map<std::string, std::size_t> index;
        std::vector<std::pair<std::tuple<std::string, std::string, int, std::string>, ReportRow>> groups;
        each("SELECT task_id, method_id, round, gpu, call_ok, exe_ok FROM counted_evaluations", [&](const Cursor& c) {
            auto m = methods.find(c.i64(1));
            if (m == methods.end())
                return;  // not in the view
            const auto task = c.text(0);
            const auto slash = task.find('/');  // the view's category
            const auto round = static_cast<int>(c.i64(2));
            const auto gpu = c.text(3);
            std::string key = gpu;
            key.push_back('\0');
            key.append(task, 0, slash == std::string::npos ? 0 : slash);
            key.push_back('\0');
            key += std::to_string(c.i64(1)) + '/' + std::to_string(round);
            auto [it, fresh] = index.try_emplace(std::move(key), groups.size());
            if (fresh) {
                ReportRow r;
                r.category = slash == std::string::npos ? std::string() : task.substr(0, slash);
                r.method = m->second;
                r.round = round;
                r.gpu = gpu;
                groups.push_back({{r.gpu, r.method, r.round, r.category}, std::move(r)});
            }
            auto& r = groups[it->second].second;
            r.total += 1;
            r.callOk += c.i64(4) != 0;
            r.exeOk += c.i64(5) != 0;
        });
        std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<ReportRow> rows;
        rows.reserve(groups.size());
        for (auto& [_, r] : groups)
            rows.push_back(std::move(r));
        return rows;
    }
    std::lock_guard lock(m_mutex);
    // The latest evaluation of every submission on every GPU (or the CPU) counts once: verdicts from
    // different devices are never mixed into one rate.
    Stmt st(m_db, R"SQL(
SELECT e.category, e.method, e.round, e.gpu, count(*), sum(e.call_ok), sum(e.exe_ok)
FROM evaluation_rows e
JOIN (SELECT max(id) AS id FROM evaluation_rows GROUP BY submission_id, gpu) latest ON latest.id = e.id
GROUP BY e.category, e.method, e.round, e.gpu
ORDER BY e.gpu, e.method, e.round, e.category)SQL");
    std::vector<ReportRow> rows;
    while (st.step())
        rows.push_back({st.text(0), st.text(1), static_cast<int>(st.i64(2)), static_cast<int>(st.i64(4)),
                        static_cast<int>(st.i64(5)), static_cast<int>(st.i64(6)), st.text(3)});
    return rows;
}

ImportSummary Store::writeImport(const ImportBatch& b)
{
    requireWritable("import results");
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    ImportSummary sum;
    const auto options = b.options.dump();
    {
        Stmt dup(m_db, "SELECT id FROM imports WHERE sha256=? AND format=? AND options=?");
        dup.bind(1, b.sha256).bind(2, b.format).bind(3, options);
        if (dup.step()) {
            sum.importId = dup.i64(0);
            sum.duplicate = true;
            return sum;  // the transaction rolls back: nothing written
        }
    }
    const auto now = nowIso8601();
    Stmt(m_db, "INSERT INTO imports(imported_at, format, source, sha256, options, files, notes) VALUES(?,?,?,?,?,?,?)")
        .bind(1, now).bind(2, b.format).bind(3, b.source).bind(4, b.sha256).bind(5, options)
        .bind(6, nlohmann::json(b.files).dump()).bind(7, nlohmann::json(b.notes).dump()).step();
    sum.importId = sqlite3_last_insert_rowid(m_db);
    auto bindOpt = [](Stmt& st, int i, const std::optional<double>& v) {
        if (v)
            sqlite3_bind_double(st.s, i, *v);
        else
            st.bindNull(i);
    };
    auto again = [](Stmt& st) {
        sqlite3_reset(st.s);
        sqlite3_clear_bindings(st.s);
    };
    Stmt insMethod(m_db, "INSERT OR IGNORE INTO methods(name) VALUES(?)");
    Stmt selMethod(m_db, "SELECT id FROM methods WHERE name=?");
    Stmt insCand(m_db, "INSERT OR IGNORE INTO candidates(task_id, code_hash, code, created_at) VALUES(?,?,?,?)");
    Stmt selCand(m_db, "SELECT id FROM candidates WHERE task_id=? AND code_hash=?");
    Stmt insSub(m_db, "INSERT OR IGNORE INTO submissions(candidate_id, method_id, round, origin) VALUES(?,?,?,?)");
    Stmt selSub(m_db, "SELECT id FROM submissions WHERE candidate_id=? AND method_id=? AND round=?");
    Stmt insEval(m_db, "INSERT INTO evaluations(run_id, submission_id, task_id, verdict, call_ok, exe_ok, failure_class, failure_detail, "
                       "evidence, stage_seconds, taxonomy_version, started_at, finished_at) VALUES(?,?,?,?,?,?,?,?,?,'{}',1,?,?)");
    Stmt insTiming(m_db, "INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms, samples) VALUES(?,?,?,?,?)");
    std::vector<std::vector<std::int64_t>> evalIds(b.runs.size());
    for (std::size_t ri = 0; ri < b.runs.size(); ++ri) {
        const auto& run = b.runs[ri];
        nlohmann::json prov = run.provenance;
        prov["imported"] = true;
        prov["import_id"] = sum.importId;
        prov["format"] = run.format;
        prov["file"] = run.file;
        prov["gpu"] = run.gpu;
        prov["method"] = run.method;
        prov["source"] = b.source;
        prov["sha256"] = b.sha256;
        const nlohmann::json args = {{"command", "import"}, {"source", b.source}, {"options", b.options}};
        Stmt(m_db, "INSERT INTO runs(started_at, finished_at, status, device, provenance, public_seeds, secret_seed, args) "
                   "VALUES(?,?,'imported','imported',?,'[]',0,?)")
            .bind(1, now).bind(2, now).bind(3, prov.dump()).bind(4, args.dump()).step();
        const auto runId = sqlite3_last_insert_rowid(m_db);
        sum.runIds.push_back(runId);
        again(insMethod);
        insMethod.bind(1, run.method).step();
        again(selMethod);
        selMethod.bind(1, run.method).step();
        const auto methodId = selMethod.i64(0);
        for (const auto& ev : run.evaluations) {
            const auto hash = sha256Hex(ev.code);
            again(insCand);
            insCand.bind(1, ev.taskId).bind(2, hash).bind(3, ev.code).bind(4, now).step();
            sum.newCandidates += sqlite3_changes(m_db) > 0;
            again(selCand);
            selCand.bind(1, ev.taskId).bind(2, hash).step();
            const auto candId = selCand.i64(0);
            again(insSub);
            insSub.bind(1, candId).bind(2, methodId).bind(3, std::int64_t(ev.round)).bind(4, ev.origin).step();
            again(selSub);
            selSub.bind(1, candId).bind(2, methodId).bind(3, std::int64_t(ev.round)).step();
            const auto subId = selSub.i64(0);
            const bool pass = ev.state.callOk && ev.state.exeOk;
            nlohmann::json imported = {{"format", run.format}, {"file", run.file}, {"origin", ev.origin}, {"gpu", run.gpu},
                                       {"call_ok", ev.state.callOk}, {"exe_ok", ev.state.exeOk}, {"perf_ok", ev.state.perfOk}};
            if (ev.state.speedup)
                imported["speedup"] = *ev.state.speedup;
            if (ev.runtimeMs)
                imported["runtime_ms"] = *ev.runtimeMs;
            nlohmann::json evidence = {{"imported", imported}, {"seed", ev.seed}};
            std::string detail;
            std::optional<FailureClass> inferred;
            if (!pass) {
                // The seed's error is usually a traceback under a few warnings: its last exception line says most.
                std::string firstLine;
                for (std::size_t pos = 0; pos < ev.error.size();) {
                    auto end = std::min(ev.error.find('\n', pos), ev.error.size());
                    auto line = ev.error.substr(pos, end - pos);
                    if (line.find("Error") != std::string::npos || line.find("Exception") != std::string::npos || firstLine.empty())
                        firstLine = line;
                    pos = end + 1;
                }
                if (firstLine.size() > 300)
                    firstLine = firstLine.substr(0, 300) + "...";
                // A class inferred from the seed's own text (issue 23), marked as such: never a kbx verdict.
                inferred = inferFailureClassFromText(ev.error, ev.state.callOk);
                if (inferred)
                    evidence["failure_class_inferred"] = {{"from", "the seed's error text"}, {"class", std::string(toString(*inferred))}};
                detail = fmt::format("imported: the seed's {} stage failed{}{}{}", ev.state.callOk ? "exe" : "call",
                                     firstLine.empty() ? "" : "; seed error: ", firstLine,
                                     inferred ? " (class inferred from this text)" : "");
            }
            again(insEval);
            insEval.bind(1, runId).bind(2, subId).bind(3, ev.taskId).bind(4, std::string(pass ? "pass" : "fail"))
                .bind(5, std::int64_t(ev.state.callOk)).bind(6, std::int64_t(ev.state.exeOk));
            if (inferred)
                insEval.bind(7, std::string(toString(*inferred)));
            else
                insEval.bindNull(7);
            insEval.bind(8, detail).bind(9, evidence.dump()).bind(10, now).bind(11, now).step();
            const auto evalId = sqlite3_last_insert_rowid(m_db);
            evalIds[ri].push_back(evalId);
            sum.evaluations += 1;
            // The seed's speedup as one timing row: candidate = its runtime, baseline = speedup x runtime
            // (the seed's speedup is sum(golden eager ms) / sum(candidate ms) over its input sizes).
            if (ev.state.perfOk && ev.state.speedup && *ev.state.speedup > 0 && ev.runtimeMs && *ev.runtimeMs > 0) {
                again(insTiming);
                insTiming.bind(1, evalId).bind(2, std::string("seed: sum golden eager / sum candidate"));
                bindOpt(insTiming, 3, *ev.runtimeMs);
                bindOpt(insTiming, 4, *ev.runtimeMs * *ev.state.speedup);
                insTiming.bind(5, nlohmann::json{{"source", "seed"}, {"speedup", *ev.state.speedup}, {"runtime_ms", *ev.runtimeMs}}.dump()).step();
            }
        }
    }
    {
        std::set<std::pair<std::string, std::string>> replaced;
        Stmt del(m_db, "DELETE FROM golden_timings WHERE gpu=? AND task=?");
        Stmt ins(m_db, "INSERT INTO golden_timings(import_id, gpu, task, task_id, idx, input_size, ms, gbs, tflops, file) VALUES(?,?,?,?,?,?,?,?,?,?)");
        for (const auto& g : b.golden) {
            if (replaced.insert({g.gpu, g.task}).second) {
                again(del);
                del.bind(1, g.gpu).bind(2, g.task).step();
            }
            again(ins);
            ins.bind(1, sum.importId).bind(2, g.gpu).bind(3, g.task);
            if (g.taskId.empty())
                ins.bindNull(4);
            else
                ins.bind(4, g.taskId);
            ins.bind(5, std::int64_t(g.index)).bind(6, g.inputSize);
            bindOpt(ins, 7, g.ms);
            bindOpt(ins, 8, g.gbs);
            bindOpt(ins, 9, g.tflops);
            ins.bind(10, g.file).step();
            sum.golden += 1;
        }
    }
    {
        Stmt ins(m_db, "INSERT INTO round_transitions(import_id, run_id, gpu, method, task_id, from_round, to_round, kind, before_evaluation_id, "
                       "after_evaluation_id, before_call_ok, before_exe_ok, before_perf_ok, before_speedup, after_call_ok, after_exe_ok, "
                       "after_perf_ok, after_speedup, origin) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        for (const auto& t : b.transitions) {
            if (t.run >= b.runs.size() || t.beforeEvaluation >= evalIds[t.run].size() || t.afterEvaluation >= evalIds[t.run].size())
                throw StoreError(fmt::format("import of {}: transition {} refers to no imported evaluation", b.source, t.origin));
            const auto& run = b.runs[t.run];
            again(ins);
            ins.bind(1, sum.importId).bind(2, sum.runIds[t.run]).bind(3, run.gpu).bind(4, run.method).bind(5, t.taskId)
                .bind(6, std::int64_t(t.fromRound)).bind(7, std::int64_t(t.toRound)).bind(8, t.kind)
                .bind(9, evalIds[t.run][t.beforeEvaluation]).bind(10, evalIds[t.run][t.afterEvaluation])
                .bind(11, std::int64_t(t.before.callOk)).bind(12, std::int64_t(t.before.exeOk)).bind(13, std::int64_t(t.before.perfOk));
            bindOpt(ins, 14, t.before.speedup);
            ins.bind(15, std::int64_t(t.after.callOk)).bind(16, std::int64_t(t.after.exeOk)).bind(17, std::int64_t(t.after.perfOk));
            bindOpt(ins, 18, t.after.speedup);
            ins.bind(19, t.origin).step();
            sum.transitions += 1;
        }
    }
    {
        Stmt ins(m_db, "INSERT INTO seed_summaries(import_id, gpu, method, round, total, call_pass, exe_pass, perf_pass, avg_speedup, "
                       "avg_speedup_per_task, fields, file) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
        auto count = [&](int i, const nlohmann::json& f, const char* k) {
            if (f.contains(k) && f[k].is_number_integer())
                ins.bind(i, f[k].get<std::int64_t>());
            else
                ins.bindNull(i);
        };
        auto real = [](const nlohmann::json& f, const char* k) -> std::optional<double> {
            if (f.contains(k) && f[k].is_number())
                return f[k].get<double>();
            return std::nullopt;
        };
        for (const auto& s : b.summaries) {
            again(ins);
            ins.bind(1, sum.importId).bind(2, s.gpu).bind(3, s.method).bind(4, std::int64_t(s.round));
            count(5, s.fields, "total");
            count(6, s.fields, "call_pass");
            count(7, s.fields, "exe_pass");
            count(8, s.fields, "perf_pass");
            bindOpt(ins, 9, real(s.fields, "avg_speedup_global") ? real(s.fields, "avg_speedup_global") : real(s.fields, "avg_speedup"));
            bindOpt(ins, 10, real(s.fields, "avg_speedup_per_task"));
            ins.bind(11, s.fields.dump()).bind(12, s.file).step();
            sum.summaries += 1;
        }
    }
    tx.commit();
    return sum;
}

void Store::putCodeQuality(const std::vector<CodeQualityRow>& rows)
{
    if (m_readOnly)
        return;  // a cache: nothing is kept in a database opened read-only
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    Stmt chk(m_db, "SELECT count(*) FROM submissions WHERE id=?");
    Stmt ins(m_db, "INSERT OR REPLACE INTO code_quality(submission_id, mi, cc_mean, cc_max, sloc, tool_version, error, measured_at) "
                   "VALUES(?,?,?,?,?,?,?,?)");
    const std::string now = nowIso8601();
    for (const auto& r : rows) {
        sqlite3_reset(chk.s);
        chk.bind(1, r.submissionId).step();
        if (chk.i64(0) == 0)
            throw StoreError(fmt::format("no submission {} in {}", r.submissionId, m_path.string()));
        sqlite3_reset(ins.s);
        sqlite3_clear_bindings(ins.s);
        ins.bind(1, r.submissionId);
        if (r.mi)
            sqlite3_bind_double(ins.s, 2, *r.mi);
        if (r.ccMean)
            sqlite3_bind_double(ins.s, 3, *r.ccMean);
        if (r.ccMax)
            ins.bind(4, std::int64_t(*r.ccMax));
        if (r.sloc)
            ins.bind(5, std::int64_t(*r.sloc));
        ins.bind(6, r.toolVersion).bind(7, r.error).bind(8, now).step();
    }
    tx.commit();
}

bool Store::Cursor::isNull(int c) const { return sqlite3_column_type(static_cast<sqlite3_stmt*>(m_stmt), c) == SQLITE_NULL; }
bool Store::Cursor::isText(int c) const { return sqlite3_column_type(static_cast<sqlite3_stmt*>(m_stmt), c) == SQLITE_TEXT; }
bool Store::Cursor::isNumber(int c) const
{
    const int t = sqlite3_column_type(static_cast<sqlite3_stmt*>(m_stmt), c);
    return t == SQLITE_INTEGER || t == SQLITE_FLOAT;
}
std::int64_t Store::Cursor::i64(int c) const { return sqlite3_column_int64(static_cast<sqlite3_stmt*>(m_stmt), c); }
double Store::Cursor::f64(int c) const { return sqlite3_column_double(static_cast<sqlite3_stmt*>(m_stmt), c); }
std::string Store::Cursor::text(int c) const
{
    auto* st = static_cast<sqlite3_stmt*>(m_stmt);
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
    return p ? std::string(p, std::size_t(sqlite3_column_bytes(st, c))) : std::string();
}
nlohmann::json Store::Cursor::json(int c) const
{
    auto* st = static_cast<sqlite3_stmt*>(m_stmt);
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(st, c);
    case SQLITE_FLOAT: return sqlite3_column_double(st, c);
    case SQLITE_NULL: return nullptr;
    default: return text(c);
    }
}

void Store::each(const std::string& sql, const std::function<void(const Cursor&)>& fn) const
{
    std::lock_guard lock(m_mutex);
    Stmt st(m_db, sql);
    const Cursor cursor(st.s);
    while (st.step())
        fn(cursor);
}

nlohmann::json Store::query(const std::string& sql) const
{
    std::lock_guard lock(m_mutex);
    Stmt st(m_db, sql);
    nlohmann::json rows = nlohmann::json::array();
    while (st.step()) {
        nlohmann::json row = nlohmann::json::object();
        for (int c = 0; c < sqlite3_column_count(st.s); ++c) {
            const char* name = sqlite3_column_name(st.s, c);
            switch (sqlite3_column_type(st.s, c)) {
            case SQLITE_INTEGER: row[name] = st.i64(c); break;
            case SQLITE_FLOAT: row[name] = sqlite3_column_double(st.s, c); break;
            case SQLITE_NULL: row[name] = nullptr; break;
            default: row[name] = st.text(c);
            }
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace kbx
