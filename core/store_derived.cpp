// SPDX-License-Identifier: MIT
// Part of the store (core/store_derived.h): the derived tables' schema, triggers and fill, and their
// TEMP stand-ins on a connection that cannot write them.
#include "store_derived.h"

#include "store.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <map>

namespace kbx::derived {
namespace {

// The columns of counted_evaluations in the order every statement here writes them.
const char* kCountedColumns =
    "evaluation_id, submission_id, gpu, run_id, candidate_id, method_id, round, task_id, verdict, call_ok, exe_ok, failure_class, "
    "ext_cases, ext_passed, taxonomy_version, protocol, ext_failure_class, perf_protocol, perf_ok, contract_exe_ok, contract_pass, "
    "contract_class, evaluations";

// What the reports read of the evidence: the perf protocol, the imported perf_ok, the contract
// tier's exe_ok, pass and failure class (NULL for evidence that is not JSON: a writer's insert
// never fails here).
const char* kEvidencePaths[] = {"$.perf.protocol", "$.imported.perf_ok", "$.tiers.contract.exe_ok", "$.tiers.contract.pass",
                                "$.tiers.contract.failure_class"};
const char* kEvidenceColumns[] = {"perf_protocol", "perf_ok", "contract_exe_ok", "contract_pass", "contract_class"};

std::string evidenceValue(const std::string& e, int i)
{
    return fmt::format("CASE WHEN json_valid({0}.evidence) THEN json_extract({0}.evidence, '{1}') END", e, kEvidencePaths[i]);
}

std::string evidenceColumns(const std::string& e)
{
    std::string out;
    for (int i = 0; i < 5; ++i)
        out += (i ? ", " : "") + evidenceValue(e, i);
    return out;
}

/// The counted rows of the submissions whose evaluations e2 match `where` (a condition on e2 and
/// r2), from the runs' GPU expression `gpu` (on r2): the latest evaluation per submission and GPU,
/// with the number of evaluations behind it. Only rows of the view evaluation_rows (submission,
/// method and run present).
std::string countedSelect(const std::string& from, const std::string& gpu, const std::string& where)
{
    return fmt::format("SELECT e.id, e.submission_id, k.gpu, e.run_id, s.candidate_id, s.method_id, s.round, e.task_id, e.verdict, "
                       "e.call_ok, e.exe_ok, e.failure_class, e.ext_cases, e.ext_passed, e.taxonomy_version, e.protocol, "
                       "e.ext_failure_class, {}, k.n "
                       "FROM (SELECT max(e2.id) AS id, count(*) AS n, {} AS gpu FROM {} WHERE {} GROUP BY e2.submission_id, gpu) k "
                       "JOIN evaluations e ON e.id = k.id JOIN submissions s ON s.id = e.submission_id "
                       "JOIN methods m ON m.id = s.method_id",
                       evidenceColumns("e"), gpu, from, where);
}

/// The insert trigger's statement: the new evaluation folded into the counted row of its submission
/// and device in place (one row read and written, whatever the number of evaluations the submission
/// has: a recomputation per insert would be quadratic in the re-evaluations of one submission). It
/// becomes the counted one when its id is the largest; the count grows by one. Only rows of the view
/// (submission, method and run present), as countedSelect().
std::string foldInsert()
{
    static const char* kKept[] = {"evaluation_id", "run_id",        "candidate_id",     "method_id",  "round",
                                  "task_id",       "verdict",       "call_ok",          "exe_ok",     "failure_class",
                                  "ext_cases",     "ext_passed",    "taxonomy_version", "protocol",   "ext_failure_class",
                                  "perf_protocol", "perf_ok",       "contract_exe_ok",  "contract_pass", "contract_class"};
    std::string set;
    for (const char* c : kKept)
        set += fmt::format("{0} = CASE WHEN excluded.evaluation_id > counted_evaluations.evaluation_id THEN excluded.{0} "
                           "ELSE counted_evaluations.{0} END, ",
                           c);
    set += "evaluations = counted_evaluations.evaluations + 1";
    return fmt::format("INSERT INTO counted_evaluations({}) "
                       "SELECT NEW.id, NEW.submission_id, {}, NEW.run_id, s.candidate_id, s.method_id, s.round, NEW.task_id, NEW.verdict, "
                       "NEW.call_ok, NEW.exe_ok, NEW.failure_class, NEW.ext_cases, NEW.ext_passed, NEW.taxonomy_version, NEW.protocol, "
                       "NEW.ext_failure_class, {}, 1 "
                       "FROM runs r2 JOIN submissions s ON s.id = NEW.submission_id JOIN methods m ON m.id = s.method_id "
                       "WHERE r2.id = NEW.run_id "
                       "ON CONFLICT(submission_id, gpu) DO UPDATE SET {};\n",
                       kCountedColumns, gpuSql("r2"), evidenceColumns("NEW"), set);
}

/// Trigger statements recomputing the counted rows of the submissions selected by `submissions`
/// (an SQL list expression, e.g. "(NEW.submission_id)").
std::string recompute(const std::string& submissions)
{
    return fmt::format("DELETE FROM counted_evaluations WHERE submission_id IN {0};\n"
                       "INSERT INTO counted_evaluations({1}) {2};\n",
                       submissions, kCountedColumns,
                       countedSelect("evaluations e2 JOIN runs r2 ON r2.id = e2.run_id", gpuSql("r2"), "e2.submission_id IN " + submissions));
}

const char* kRooflineWhen =
    "{0}.candidate_ms IS NOT NULL AND typeof({0}.samples) = 'text' AND json_valid({0}.samples) AND "
    "json_type({0}.samples, '$.roofline') = 'object' AND json_type({0}.samples, '$.roofline.bound_ms') IS NOT NULL";

std::string rooflineSelect(const std::string& t)
{
    return fmt::format("SELECT {0}.id, {0}.evaluation_id, {0}.candidate_ms, json_extract({0}.samples, '$.roofline')", t);
}

// Per evaluation, what the protocol table reads of its cases (the contract tier's cases of the first
// public seed, and the first failing case of each tier, as "name (class)").
std::string seed0(const std::string& c) { return fmt::format("({0}.tier = 'contract' AND {0}.name LIKE 'seed0/%')", c); }
std::string failing(const std::string& c, const char* tier) { return fmt::format("({0}.tier = '{1}' AND {0}.status <> 'pass')", c, tier); }
std::string contractText(const std::string& c) { return fmt::format("{0}.name || ' (' || coalesce({0}.failure_class, {0}.status) || ')'", c); }
std::string extendedText(const std::string& c)
{
    return fmt::format("{0}.name || ' (' || coalesce({0}.failure_class, {0}.status) || '): ' || coalesce(CASE WHEN json_valid({0}.evidence) "
                       "THEN json_extract({0}.evidence, '$.extended_because') END, '')",
                       c);
}

/// The case summaries of the evaluations whose cases c match `where`, from the cases themselves.
std::string casesSelect(const std::string& where)
{
    auto first = [](const char* tier, const std::string& what) {
        return fmt::format("(SELECT {} FROM case_results x WHERE x.evaluation_id = c.evaluation_id AND {} ORDER BY x.idx LIMIT 1)", what,
                           failing("x", tier));
    };
    return fmt::format("SELECT c.evaluation_id, sum({0}), sum({0} AND c.status = 'pass'), {1}, {2}, {3}, {4} FROM case_results c "
                       "WHERE {5} GROUP BY c.evaluation_id",
                       seed0("c"), first("contract", "x.idx"), first("contract", contractText("x")), first("extended", "x.idx"),
                       first("extended", extendedText("x")), where);
}

const char* kCasesColumns = "evaluation_id, seed0_cases, seed0_passed, contract_first_idx, contract_first, extended_first_idx, extended_first";

std::string casesRecompute(const std::string& evaluations)
{
    return fmt::format("DELETE FROM case_summaries WHERE evaluation_id IN {0};\nINSERT INTO case_summaries({1}) {2};\n", evaluations,
                       kCasesColumns, casesSelect("c.evaluation_id IN " + evaluations));
}

std::string casesTable(const std::string& schema)
{
    return fmt::format("CREATE {}TABLE case_summaries(\n"
                       "  evaluation_id INTEGER PRIMARY KEY,\n"
                       "  seed0_cases INTEGER NOT NULL,\n"
                       "  seed0_passed INTEGER NOT NULL,\n"
                       "  contract_first_idx INTEGER,\n"
                       "  contract_first TEXT,\n"
                       "  extended_first_idx INTEGER,\n"
                       "  extended_first TEXT)",
                       schema);
}

std::string countedTable(const std::string& schema)
{
    // evaluation_id is the rowid: a scan reads the rows in the order of their evaluations.
    return fmt::format("CREATE {}TABLE counted_evaluations(\n"
                       "  evaluation_id INTEGER PRIMARY KEY,\n"
                       "  submission_id INTEGER NOT NULL,\n"
                       "  gpu NOT NULL,\n"
                       "  run_id INTEGER NOT NULL,\n"
                       "  candidate_id INTEGER NOT NULL,\n"
                       "  method_id INTEGER NOT NULL,\n"
                       "  round INTEGER NOT NULL,\n"
                       "  task_id TEXT NOT NULL,\n"
                       "  verdict TEXT NOT NULL,\n"
                       "  call_ok INTEGER NOT NULL,\n"
                       "  exe_ok INTEGER NOT NULL,\n"
                       "  failure_class TEXT,\n"
                       "  ext_cases INTEGER,\n"
                       "  ext_passed INTEGER,\n"
                       "  taxonomy_version INTEGER,\n"
                       "  protocol TEXT,\n"
                       "  ext_failure_class TEXT,\n"
                       "  perf_protocol,\n"
                       "  perf_ok,\n"
                       "  contract_exe_ok,\n"
                       "  contract_pass,\n"
                       "  contract_class,\n"
                       "  evaluations INTEGER NOT NULL)",
                       schema);
}

std::string rooflineTable(const std::string& schema)
{
    return fmt::format("CREATE {}TABLE timing_rooflines(\n"
                       "  timing_id INTEGER PRIMARY KEY,\n"
                       "  evaluation_id INTEGER NOT NULL,\n"
                       "  candidate_ms,\n"
                       "  roofline TEXT NOT NULL)",
                       schema);
}

struct Object {
    std::string type;  ///< table, index, trigger
    std::string name;
    std::string sql;   ///< exactly as SQLite keeps it in sqlite_master
};

const std::vector<Object>& objects()
{
    static const std::vector<Object> all = [] {
        std::vector<Object> o;
        o.push_back({"table", "counted_evaluations", countedTable("")});
        o.push_back({"index", "counted_evaluations_key", "CREATE UNIQUE INDEX counted_evaluations_key ON counted_evaluations(submission_id, gpu)"});
        o.push_back({"table", "timing_rooflines", rooflineTable("")});
        o.push_back({"table", "case_summaries", casesTable("")});
        // Provenance: the taxonomy versions of a run's evaluations, one seek per version.
        o.push_back({"index", "evaluations_run_taxonomy", "CREATE INDEX evaluations_run_taxonomy ON evaluations(run_id, taxonomy_version)"});
        o.push_back({"trigger", "counted_evaluations_insert",
                     "CREATE TRIGGER counted_evaluations_insert AFTER INSERT ON evaluations BEGIN\n" + foldInsert() + "END"});
        o.push_back({"trigger", "counted_evaluations_delete",
                     "CREATE TRIGGER counted_evaluations_delete AFTER DELETE ON evaluations BEGIN\n" + recompute("(OLD.submission_id)") + "END"});
        o.push_back({"trigger", "counted_evaluations_move",
                     "CREATE TRIGGER counted_evaluations_move AFTER UPDATE OF id, submission_id, run_id ON evaluations BEGIN\n" +
                         recompute("(OLD.submission_id, NEW.submission_id)") + "END"});
        {
            std::string set;
            for (int i = 0; i < 5; ++i)
                set += fmt::format(", {} = {}", kEvidenceColumns[i], evidenceValue("NEW", i));
            o.push_back({"trigger", "counted_evaluations_verdict",
                         "CREATE TRIGGER counted_evaluations_verdict AFTER UPDATE OF task_id, verdict, call_ok, exe_ok, failure_class, "
                         "ext_cases, ext_passed, taxonomy_version, protocol, ext_failure_class, evidence ON evaluations BEGIN\n"
                         "UPDATE counted_evaluations SET task_id = NEW.task_id, verdict = NEW.verdict, call_ok = NEW.call_ok, "
                         "exe_ok = NEW.exe_ok, failure_class = NEW.failure_class, ext_cases = NEW.ext_cases, ext_passed = NEW.ext_passed, "
                         "taxonomy_version = NEW.taxonomy_version, protocol = NEW.protocol, ext_failure_class = NEW.ext_failure_class" +
                             set + " WHERE evaluation_id = NEW.id;\nEND"});
        }
        o.push_back({"trigger", "counted_evaluations_submission",
                     "CREATE TRIGGER counted_evaluations_submission AFTER UPDATE OF id, candidate_id, method_id, round ON submissions BEGIN\n" +
                         recompute("(OLD.id, NEW.id)") + "END"});
        o.push_back({"trigger", "counted_evaluations_run",
                     "CREATE TRIGGER counted_evaluations_run AFTER UPDATE OF id, device, provenance ON runs WHEN OLD.id IS NOT NEW.id OR " +
                         gpuSql("OLD") + " IS NOT " + gpuSql("NEW") + " BEGIN\n" +
                         recompute("(SELECT submission_id FROM evaluations WHERE run_id IN (OLD.id, NEW.id))") + "END"});
        {
            // A case added: counts and the first failing case of its tier updated in place (kbx eval
            // stores an evaluation's cases one by one; recomputing them all each time would be
            // quadratic in the cases). Removed or changed: its evaluation's summary recomputed.
            auto firstOf = [](const char* tier, const char* column, const std::string& value) {
                return fmt::format("{0} = CASE WHEN {1} AND ({2}_first_idx IS NULL OR NEW.idx < {2}_first_idx) THEN {3} ELSE {0} END", column,
                                   failing("NEW", tier), tier, value);
            };
            o.push_back({"trigger", "case_summaries_insert",
                         "CREATE TRIGGER case_summaries_insert AFTER INSERT ON case_results BEGIN\n"
                         "INSERT OR IGNORE INTO case_summaries(evaluation_id, seed0_cases, seed0_passed) VALUES(NEW.evaluation_id, 0, 0);\n"
                         "UPDATE case_summaries SET seed0_cases = seed0_cases + " + seed0("NEW") + ", seed0_passed = seed0_passed + (" +
                             seed0("NEW") + " AND NEW.status = 'pass'), " + firstOf("contract", "contract_first", contractText("NEW")) + ", " +
                             firstOf("contract", "contract_first_idx", "NEW.idx") + ", " +
                             firstOf("extended", "extended_first", extendedText("NEW")) + ", " +
                             firstOf("extended", "extended_first_idx", "NEW.idx") + " WHERE evaluation_id = NEW.evaluation_id;\nEND"});
            o.push_back({"trigger", "case_summaries_delete",
                         "CREATE TRIGGER case_summaries_delete AFTER DELETE ON case_results BEGIN\n" + casesRecompute("(OLD.evaluation_id)") +
                             "END"});
            o.push_back({"trigger", "case_summaries_update",
                         "CREATE TRIGGER case_summaries_update AFTER UPDATE ON case_results BEGIN\n" +
                             casesRecompute("(OLD.evaluation_id, NEW.evaluation_id)") + "END"});
        }
        o.push_back({"trigger", "timing_rooflines_insert",
                     "CREATE TRIGGER timing_rooflines_insert AFTER INSERT ON timings WHEN " + fmt::format(fmt::runtime(kRooflineWhen), "NEW") +
                         " BEGIN\nINSERT INTO timing_rooflines(timing_id, evaluation_id, candidate_ms, roofline) " + rooflineSelect("NEW") +
                         ";\nEND"});
        o.push_back({"trigger", "timing_rooflines_delete",
                     "CREATE TRIGGER timing_rooflines_delete AFTER DELETE ON timings BEGIN\n"
                     "DELETE FROM timing_rooflines WHERE timing_id = OLD.id;\nEND"});
        o.push_back({"trigger", "timing_rooflines_update",
                     "CREATE TRIGGER timing_rooflines_update AFTER UPDATE ON timings BEGIN\n"
                     "DELETE FROM timing_rooflines WHERE timing_id IN (OLD.id, NEW.id);\n"
                     "INSERT INTO timing_rooflines(timing_id, evaluation_id, candidate_ms, roofline) " +
                         rooflineSelect("NEW") + " WHERE " + fmt::format(fmt::runtime(kRooflineWhen), "NEW") + ";\nEND"});
        return o;
    }();
    return all;
}

/// Fills counted_evaluations of `schema` from the base tables at once: each run's GPU computed once.
std::string fillCounted(const std::string& schema)
{
    return fmt::format("INSERT INTO {}counted_evaluations({}) WITH rg AS MATERIALIZED (SELECT r.id AS id, {} AS gpu FROM runs r) {}", schema,
                       kCountedColumns, gpuSql("r"), countedSelect("evaluations e2 JOIN rg ON rg.id = e2.run_id", "rg.gpu", "1"));
}

std::string fillCases(const std::string& schema)
{
    return fmt::format("INSERT INTO {}case_summaries({}) {}", schema, kCasesColumns, casesSelect("1"));
}

std::string fillRooflines(const std::string& schema)
{
    return fmt::format("INSERT INTO {}timing_rooflines(timing_id, evaluation_id, candidate_ms, roofline) {} FROM timings t WHERE {}", schema,
                       rooflineSelect("t"), fmt::format(fmt::runtime(kRooflineWhen), "t"));
}

void exec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "?";
        sqlite3_free(err);
        throw StoreError(fmt::format("derived tables: {} ({})", msg, sql.substr(0, 80)));
    }
}

/// name -> sql of the objects in the main schema that bear our names.
std::map<std::string, std::string> stored(sqlite3* db)
{
    std::map<std::string, std::string> out;
    std::string names;
    for (const auto& o : objects())
        names += (names.empty() ? "" : ",") + sqlQuote(o.name);
    sqlite3_stmt* st = nullptr;
    const auto sql = "SELECT name, sql FROM main.sqlite_master WHERE name IN (" + names + ")";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
        throw StoreError(fmt::format("derived tables: {}", sqlite3_errmsg(db)));
    while (sqlite3_step(st) == SQLITE_ROW) {
        auto* s = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
        out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] = s ? s : "";
    }
    sqlite3_finalize(st);
    return out;
}

bool allCurrent(const std::map<std::string, std::string>& have)
{
    for (const auto& o : objects()) {
        auto it = have.find(o.name);
        if (it == have.end() || it->second != o.sql)
            return false;
    }
    return true;
}

/// Drops every derived object that `have` (stored()) holds, triggers first, then the tables with their
/// indexes, then the indexes on base tables.
void dropObjects(sqlite3* db, const std::map<std::string, std::string>& have)
{
    for (const auto& o : objects())
        if (o.type == "trigger" && have.count(o.name))
            exec(db, "DROP TRIGGER main." + o.name);
    for (const auto& o : objects())
        if (o.type == "table" && have.count(o.name))
            exec(db, "DROP TABLE main." + o.name);  // and its indexes
    for (const auto& o : objects())
        if (o.type == "index")
            exec(db, "DROP INDEX IF EXISTS main." + o.name);
}

}  // namespace

std::string gpuSql(const std::string& r)
{
    // evaluation_rows' gpu (store.cpp, schema v3 on), with provenance that is not JSON read as none
    // (the view fails on it; a trigger must not make a writer's insert fail).
    return fmt::format("CASE WHEN {0}.device = 'cuda' THEN coalesce(CASE WHEN json_valid({0}.provenance) THEN "
                       "json_extract({0}.provenance, '$.devices[0].name') END, 'cuda') "
                       "WHEN {0}.device = 'imported' THEN coalesce(CASE WHEN json_valid({0}.provenance) THEN "
                       "json_extract({0}.provenance, '$.gpu') END, 'unknown') ELSE 'CPU (Triton interpreter)' END",
                       r);
}

const std::vector<std::string>& tables()
{
    static const std::vector<std::string> t = {"counted_evaluations", "timing_rooflines", "case_summaries"};
    return t;
}

void drop(sqlite3* db)
{
    dropObjects(db, stored(db));
}

void ensure(sqlite3* db)
{
    if (allCurrent(stored(db)))
        return;
    exec(db, "BEGIN IMMEDIATE");
    try {
        const auto have = stored(db);  // again, now that no other writer is at work
        if (!allCurrent(have)) {
            // Another definition (an older or newer kbx's) or a part missing: all made again.
            dropObjects(db, have);
            for (const auto& o : objects())
                exec(db, o.sql);
            exec(db, fillCounted("main."));
            exec(db, fillRooflines("main."));
            exec(db, fillCases("main."));
        }
        exec(db, "COMMIT");
    } catch (...) {
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

bool current(const Store& store)
{
    std::map<std::string, std::string> have;
    std::string names;
    for (const auto& o : objects())
        names += (names.empty() ? "" : ",") + sqlQuote(o.name);
    store.each("SELECT name, sql FROM main.sqlite_master WHERE name IN (" + names + ")",
               [&](const Store::Cursor& c) { have[c.text(0)] = c.text(1); });
    return allCurrent(have);
}

bool prepare(const Store& store, bool rooflines, bool cases)
{
    if (current(store))
        return false;
    // Computed into TEMP tables of this connection under the same names (they hide any main table
    // of another definition). Made again when another connection has changed the file since
    // (PRAGMA data_version, noted in temp.derived_state); this connection never writes it.
    auto run = [&](const std::string& sql) { store.each(sql, [](const Store::Cursor&) {}); };
    std::int64_t version = -1;
    store.each("PRAGMA data_version", [&](const Store::Cursor& c) { version = c.i64(0); });
    auto changes = [&] {  // by this connection (a writable one whose ensure() failed may write)
        std::int64_t n = -1;
        store.each("SELECT total_changes()", [&](const Store::Cursor& c) { n = c.i64(0); });
        return n;
    };
    bool state = false, fresh = false;
    store.each("SELECT 1 FROM temp.sqlite_master WHERE name = 'derived_state'", [&](const Store::Cursor&) { state = true; });
    const int what = (rooflines ? 1 : 0) | (cases ? 2 : 0);
    if (state)
        store.each(fmt::format("SELECT 1 FROM temp.derived_state WHERE data_version = {} AND changes = {} AND (what & {}) = {}", version,
                               changes(), what, what),
                   [&](const Store::Cursor&) { fresh = true; });
    if (fresh)
        return true;
    run("DROP TABLE IF EXISTS temp.derived_state");
    run("DROP TABLE IF EXISTS temp.counted_evaluations");
    run("DROP TABLE IF EXISTS temp.timing_rooflines");
    run("DROP TABLE IF EXISTS temp.case_summaries");
    run(countedTable("TEMP "));
    run(fillCounted("temp."));
    if (rooflines) {
        run(rooflineTable("TEMP "));
        run(fillRooflines("temp."));
    }
    if (cases) {
        run(casesTable("TEMP "));
        run(fillCases("temp."));
    }
    run("CREATE TEMP TABLE derived_state(data_version INTEGER, changes INTEGER, what INTEGER)");
    run(fmt::format("INSERT INTO temp.derived_state VALUES({}, {}, {})", version, changes() + 1, what));
    return true;
}

}  // namespace kbx::derived
