// SPDX-License-Identifier: MIT
// kbx::Store: opening (read-write or read-only), the schema and its forward migrations, the SQLite
// wrapper (exec, each, query, Cursor) and report(). Writes: store_write.cpp (evaluation runs) and
// store_import.cpp (kbx import); parameterised reads: store_read.cpp.
#include "store.h"
#include "store_sqlite.h"

#include "seed_import.h"
#include "source.h"
#include "store_derived.h"
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

/// The rows v6 sets right (a data-only migration: v6's schema is v5's). Before 264d555 the perf stage's
/// kernel attribution (too little of a profiled call's GPU time in the candidate's Triton kernels) failed
/// the verdict and also cleared exe_ok, although the outputs had been checked right; since then it keeps
/// exe_ok (exe in the seed's sense, as for a kernel that launched no Triton kernel at all: TierJudge), so
/// a database made before counted such candidates out of exe and one made after counts them in. Only
/// rows whose failure the attribution made: not_triton_kernel with perf attribution evidence, call_ok
/// set, never an imported row (the seed's own exe_ok).
const std::string kV6StaleExe =
    "failure_class = 'not_triton_kernel' AND exe_ok = 0 AND call_ok = 1 AND json_valid(evidence) "
    "AND json_extract(evidence, '$.perf.attribution.available') = 1 AND json_type(evidence, '$.imported') IS NULL";

/// The last version that changed the schema; later ones change data only, so a read-only open of a
/// file at this version or later reads it right where those migrations would change nothing.
constexpr int kLastSchemaChange = 5;

/// Forward migrations: entry i brings a database from user_version i to i+1.
const std::vector<std::string> kMigrations = {
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
    // v6 (data only): the perf stage's kernel-attribution failures keep exe_ok (kV6StaleExe).
    "UPDATE evaluations SET exe_ok = 1 WHERE " + kV6StaleExe + ";\n",
};

using store_detail::Stmt;
using store_detail::Transaction;

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
        // The tables derived for the reports, kept by triggers (core/store_derived.h). Where they cannot be
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
        // An older file is read as it is only where its schema is this kbx's and the data-only migrations
        // after it would change nothing (v6: no evaluation whose exe_ok it sets right); else it needs the
        // upgrade a writable open makes, which this open cannot.
        std::string why;
        if (version >= kLastSchemaChange && version < kSchemaVersion) {
            Stmt st(m_db, "SELECT count(*) FROM evaluations WHERE " + kV6StaleExe);
            st.step();
            if (const auto stale = st.i64(0); stale > 0)
                why = fmt::format(": {} evaluation{} stored with exe_ok 0 although only the perf stage's kernel attribution failed "
                                  "{} (the outputs were right; kbx counts them as exe since schema 6)",
                                  stale, stale == 1 ? "" : "s", stale == 1 ? "it" : "them");
        }
        if (version < kSchemaVersion && (version < kLastSchemaChange || !why.empty()))
            throw StoreError(fmt::format("{} has schema version {}, older than this kbx's ({}){}; kbx upgrades such a database "
                                         "in place, but it is opened read-only{}. Copy it to a place you can write (e.g. cp {} ~/) "
                                         "and use the copy",
                                         m_path.string(), version, kSchemaVersion, why,
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
    if (kMigrations.size() != static_cast<std::size_t>(kSchemaVersion))
        throw StoreError(fmt::format("internal error: {} migrations for schema version {}", kMigrations.size(), kSchemaVersion));
    for (int v = version; v < kSchemaVersion; ++v) {
        Transaction tx(m_db);
        exec(withoutExistingColumns(kMigrations[static_cast<std::size_t>(v)]));
        exec(fmt::format("PRAGMA user_version={}", v + 1));
        tx.commit();
    }
}

std::vector<ReportRow> Store::report() const
{
    // The counting rule kept by the database (core/store_derived.h: one row per submission and device,
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
std::string_view Store::Cursor::textView(int c) const
{
    auto* st = static_cast<sqlite3_stmt*>(m_stmt);
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
    return p ? std::string_view(p, std::size_t(sqlite3_column_bytes(st, c))) : std::string_view();
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
    const Cursor cursor(st.raw());
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
        for (int c = 0; c < st.columns(); ++c) {
            const char* name = st.name(c);
            switch (st.type(c)) {
            case SQLITE_INTEGER: row[name] = st.i64(c); break;
            case SQLITE_FLOAT: row[name] = st.real(c); break;
            case SQLITE_NULL: row[name] = nullptr; break;
            default: row[name] = st.text(c);
            }
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace kbx
