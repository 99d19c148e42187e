// SPDX-License-Identifier: MIT
// The read-query layer (query.h): one evaluation, labels, choices, runs, counts per task and the
// Python module's tables. The Results table's window is in query_list.cpp.
#include "query.h"
#include "query_reports.h"

#include <fmt/format.h>

#include <set>

namespace kbx::query {

namespace {

using Cursor = Store::Cursor;

std::optional<std::string> optText(const Cursor& c, int col)
{
    return c.isNull(col) ? std::nullopt : std::optional<std::string>(c.text(col));
}

std::optional<double> optReal(const Cursor& c, int col)
{
    return c.isNull(col) ? std::nullopt : std::optional<double>(c.f64(col));
}

std::optional<std::int64_t> optInt(const Cursor& c, int col)
{
    return c.isNull(col) ? std::nullopt : std::optional<std::int64_t>(c.i64(col));
}

/// The view's columns in the order readRow() reads them.
constexpr const char* kRowColumns =
    "v.id, v.run_id, v.task_id, v.category, v.method, v.round, v.device, v.gpu, v.verdict, v.call_ok, v.exe_ok, v.stage, "
    "v.failure_class, v.manual_class, v.manual_note, v.failure_detail, v.candidate_id, v.submission_id, v.started_at, "
    "v.finished_at, v.imported, v.protocol, v.ext_cases, v.ext_passed, v.ext_failure_class, v.correct_ext";
constexpr int kRowColumnCount = 26;

EvaluationRow readRow(const Cursor& c)
{
    EvaluationRow r;
    r.id = c.i64(0);
    r.runId = c.i64(1);
    r.taskId = c.text(2);
    r.category = c.text(3);
    r.method = c.text(4);
    r.round = static_cast<int>(c.i64(5));
    r.device = c.text(6);
    r.gpu = c.text(7);
    r.verdict = c.text(8);
    r.callOk = c.i64(9) != 0;
    r.exeOk = c.i64(10) != 0;
    r.stage = c.text(11);
    r.failureClass = optText(c, 12);
    r.manualClass = optText(c, 13);
    r.manualNote = optText(c, 14);
    r.failureDetail = optText(c, 15);
    r.candidateId = c.i64(16);
    r.submissionId = c.i64(17);
    r.startedAt = c.text(18);
    r.finishedAt = c.text(19);
    r.imported = c.i64(20) != 0;
    r.protocol = optText(c, 21);
    if (!c.isNull(22))
        r.extCases = static_cast<int>(c.i64(22));
    if (!c.isNull(23))
        r.extPassed = static_cast<int>(c.i64(23));
    r.extFailureClass = optText(c, 24);
    if (!c.isNull(25))
        r.correctExt = c.i64(25) != 0;
    return r;
}

template <class T>
nlohmann::json orNull(const std::optional<T>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json();
}

/// Splits group_concat's comma-joined text into its distinct values, sorted.
std::vector<std::string> distinctOf(const std::string& joined)
{
    std::set<std::string> s;
    std::size_t start = 0;
    for (;;) {
        const auto comma = joined.find(',', start);
        s.insert(joined.substr(start, comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return {s.begin(), s.end()};
}

std::vector<std::string> texts(const Store& store, const std::string& sql)
{
    std::vector<std::string> out;
    store.each(sql, {}, [&](const Cursor& c) { out.push_back(c.text(0)); });
    return out;
}

}  // namespace

nlohmann::json toJson(const EvaluationRow& r)
{
    // Booleans as the view's integers (0/1), as Store::query gives them.
    nlohmann::json j = nlohmann::json::object();
    j["id"] = r.id;
    j["run_id"] = r.runId;
    j["task_id"] = r.taskId;
    j["category"] = r.category;
    j["method"] = r.method;
    j["round"] = r.round;
    j["device"] = r.device;
    j["gpu"] = r.gpu;
    j["verdict"] = r.verdict;
    j["call_ok"] = r.callOk ? 1 : 0;
    j["exe_ok"] = r.exeOk ? 1 : 0;
    j["stage"] = r.stage;
    j["failure_class"] = orNull(r.failureClass);
    j["manual_class"] = orNull(r.manualClass);
    j["manual_note"] = orNull(r.manualNote);
    j["failure_detail"] = orNull(r.failureDetail);
    j["candidate_id"] = r.candidateId;
    j["submission_id"] = r.submissionId;
    j["started_at"] = r.startedAt;
    j["finished_at"] = r.finishedAt;
    j["imported"] = r.imported ? 1 : 0;
    j["protocol"] = orNull(r.protocol);
    j["ext_cases"] = orNull(r.extCases);
    j["ext_passed"] = orNull(r.extPassed);
    j["ext_failure_class"] = orNull(r.extFailureClass);
    j["correct_ext"] = r.correctExt ? nlohmann::json(*r.correctExt ? 1 : 0) : nlohmann::json();
    return j;
}

// ---- one evaluation -------------------------------------------------------------------------------

std::optional<Evaluation> loadEvaluation(const Store& store, std::int64_t id)
{
    std::optional<Evaluation> out;
    // The view's row with its evaluation's, candidate's, submission's and run's own columns. The view
    // already joins submissions and runs (inner joins: every evaluation has both).
    store.each(fmt::format("SELECT {}, e.evidence, e.stage_seconds, e.taxonomy_version, c.code, c.code_hash, s.origin, "
                           "ru.public_seeds, ru.secret_seed FROM evaluation_rows v JOIN evaluations e ON e.id = v.id "
                           "JOIN candidates c ON c.id = v.candidate_id JOIN submissions s ON s.id = v.submission_id "
                           "JOIN runs ru ON ru.id = v.run_id WHERE v.id = ?",
                           kRowColumns),
               {id}, [&](const Cursor& c) {
                   Evaluation e;
                   e.row = readRow(c);
                   constexpr int k = kRowColumnCount;
                   e.evidence = c.text(k);
                   e.stageSeconds = c.text(k + 1);
                   e.taxonomyVersion = static_cast<int>(c.i64(k + 2));
                   e.code = c.text(k + 3);
                   e.codeHash = c.text(k + 4);
                   e.origin = optText(c, k + 5);
                   e.publicSeeds = c.text(k + 6);
                   e.secretSeed = c.i64(k + 7);
                   out = std::move(e);
               });
    if (!out)
        return out;
    store.each("SELECT idx, name, status, failure_class, evidence, tier FROM case_results WHERE evaluation_id = ? ORDER BY idx", {id},
               [&](const Cursor& c) {
                   out->cases.push_back({static_cast<int>(c.i64(0)), c.text(1), c.text(2), optText(c, 3), optText(c, 4), c.text(5)});
               });
    for (auto& t : timedShapes(store, id, true))
        out->timings.push_back(std::move(t.timing));
    return out;
}

std::vector<std::int64_t> evaluationIdsOfRun(const Store& store, std::int64_t runId)
{
    std::vector<std::int64_t> ids;
    store.each("SELECT id FROM evaluations WHERE run_id = ? ORDER BY id", {runId}, [&](const Cursor& c) { ids.push_back(c.i64(0)); });
    return ids;
}

LabelAgreement labelAgreement(const Store& store)
{
    LabelAgreement a;
    store.each("SELECT count(*), coalesce(sum(CASE WHEN l.failure_class = coalesce(e.failure_class, 'pass') THEN 1 ELSE 0 END), 0) "
               "FROM manual_labels l JOIN evaluations e ON e.id = l.evaluation_id",
               {}, [&](const Cursor& c) {
                   a.labelled = static_cast<int>(c.i64(0));
                   a.agree = static_cast<int>(c.i64(1));
               });
    return a;
}

std::unordered_map<std::int64_t, std::pair<double, int>> speedups(const Store& store)
{
    // The reports' rule (core/analysis loadRows) in kbx_speedup, with the number of shapes it counted.
    std::unordered_map<std::int64_t, std::pair<double, int>> out;
    store.each("SELECT t.evaluation_id, kbx_speedup(t.baseline_ms, t.candidate_ms), "
               "sum(t.baseline_ms / t.candidate_ms > 0 AND t.baseline_ms / t.candidate_ms < 9e999) FROM timings t "
               "JOIN evaluations e ON e.id = t.evaluation_id WHERE e.verdict = 'pass' AND t.candidate_ms > 0 AND t.baseline_ms > 0 "
               "GROUP BY t.evaluation_id",
               {}, [&](const Cursor& c) {
                   if (!c.isNull(1))
                       out[c.i64(0)] = {c.f64(1), static_cast<int>(c.i64(2))};
               });
    return out;
}

std::int64_t evaluationCount(const Store& store)
{
    std::int64_t n = 0;
    store.each("SELECT count(*) FROM evaluations", {}, [&](const Cursor& c) { n = c.i64(0); });
    return n;
}

// ---- choices --------------------------------------------------------------------------------------

std::vector<std::string> methodNames(const Store& store)
{
    return texts(store, "SELECT name FROM methods ORDER BY name");
}

std::vector<std::int64_t> submissionRounds(const Store& store)
{
    std::vector<std::int64_t> out;
    store.each("SELECT DISTINCT round FROM submissions ORDER BY round", {}, [&](const Cursor& c) { out.push_back(c.i64(0)); });
    return out;
}

std::vector<std::string> runGpus(const Store& store)
{
    return texts(store, "SELECT DISTINCT CASE WHEN device = 'cuda' THEN coalesce(json_extract(provenance, '$.devices[0].name'), 'cuda') "
                        "ELSE 'CPU (Triton interpreter)' END AS g FROM runs ORDER BY g");
}

std::vector<std::string> evaluatedCategories(const Store& store)
{
    return texts(store, "SELECT DISTINCT substr(task_id, 1, instr(task_id, '/') - 1) AS c FROM evaluations ORDER BY c");
}

std::vector<std::string> evaluatedGpus(const Store& store)
{
    // The gpu of one evaluation per run (every evaluation of a run has its run's gpu).
    return texts(store, "SELECT DISTINCT gpu FROM evaluation_rows WHERE id IN (SELECT min(id) FROM evaluations GROUP BY run_id) ORDER BY gpu");
}

std::vector<Run> listRuns(const Store& store)
{
    std::vector<Run> out;
    store.each("SELECT r.id, r.started_at, r.finished_at, r.status, r.device, r.provenance, r.public_seeds, r.secret_seed, r.args, "
               "(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id), "
               "CASE WHEN NOT json_valid(r.provenance) THEN r.device "
               "WHEN r.device = 'cuda' THEN coalesce(json_extract(r.provenance, '$.devices[0].name'), 'cuda') "
               "WHEN r.device = 'imported' THEN 'imported ' || coalesce(json_extract(r.provenance, '$.gpu'), '') ELSE 'CPU' END "
               "FROM runs r ORDER BY r.id",
               {}, [&](const Cursor& c) {
                   out.push_back({c.i64(0), c.text(1), optText(c, 2), c.text(3), c.text(4), c.text(5), c.text(6), c.i64(7), c.text(8),
                                  c.i64(9), c.text(10)});
               });
    return out;
}

// ---- counts per task ------------------------------------------------------------------------------

std::map<std::string, TaskCounts> countedByTask(const Store& store, const std::string& method, std::optional<int> round,
                                                const std::string& gpu)
{
    // The one counting rule (core/analysis), as the database keeps it (core/store_derived.h:
    // counted_evaluations, the latest evaluation of each submission per GPU). Method, round and GPU
    // are each one value per (submission, GPU), so filtering the counted rows is filtering before
    // the rule, as kbx report does (at 1M evaluations the rule over the view took 3.5-7 s).
    const std::string sql =
        "SELECT c.task_id, count(*), sum(c.call_ok), sum(c.verdict = 'pass') FROM counted_evaluations c "
        "WHERE (?1 IS NULL OR c.method_id IN (SELECT id FROM methods WHERE name = ?1)) AND (?2 IS NULL OR c.round = ?2) "
        "AND (?3 IS NULL OR c.gpu = ?3) GROUP BY c.task_id";
    std::vector<SqlValue> params = {method.empty() ? SqlValue{} : SqlValue{method},
                                    round ? SqlValue{std::int64_t{*round}} : SqlValue{}, gpu.empty() ? SqlValue{} : SqlValue{gpu}};
    std::map<std::string, TaskCounts> out;
    store.each(sql, params, [&](const Cursor& c) {
        out[c.text(0)] = {static_cast<int>(c.i64(1)), static_cast<int>(c.i64(2)), static_cast<int>(c.i64(3))};
    });
    return out;
}

std::vector<TaskSummary> taskSummaries(const Store& store)
{
    // Per task: every evaluation, and the latest evaluation of each submission per GPU (the counting
    // rule of kbx report) for the rates.
    std::vector<TaskSummary> out;
    store.each("SELECT v.task_id, v.category, count(*), sum(v.call_ok), sum(v.exe_ok), sum(v.verdict = 'pass'), "
               "group_concat(DISTINCT v.method), group_concat(DISTINCT v.gpu), "
               "(SELECT count(*) FROM evaluations e WHERE e.task_id = v.task_id) "
               "FROM evaluation_rows v JOIN (SELECT max(id) AS id FROM evaluation_rows GROUP BY submission_id, gpu) latest "
               "ON latest.id = v.id GROUP BY v.task_id ORDER BY v.task_id",
               {}, [&](const Cursor& c) {
                   TaskSummary t;
                   t.taskId = c.text(0);
                   t.category = c.text(1);
                   t.n = c.i64(2);
                   t.callOk = c.i64(3);
                   t.exeOk = c.i64(4);
                   t.passed = c.i64(5);
                   if (c.isText(6))
                       t.methods = distinctOf(c.text(6));
                   if (c.isText(7))
                       t.gpus = distinctOf(c.text(7));
                   t.evaluations = c.i64(8);
                   out.push_back(std::move(t));
               });
    return out;
}

// ---- the Python module's tables ---------------------------------------------------------------------

std::vector<EvaluationRow> evaluationRows(const Store& store, const analysis::Filters& filters, bool latest)
{
    const std::string where = filterSql(filters);
    std::string sql = fmt::format("SELECT {} FROM evaluation_rows v", kRowColumns);
    if (latest)
        sql += fmt::format(" JOIN (SELECT max(id) AS id FROM evaluation_rows WHERE {} GROUP BY submission_id) sel ON sel.id = v.id", where);
    else
        sql += fmt::format(" JOIN (SELECT id FROM evaluation_rows WHERE {}) sel ON sel.id = v.id", where);
    sql += " ORDER BY v.id";
    std::vector<EvaluationRow> out;
    store.each(sql, {}, [&](const Cursor& c) { out.push_back(readRow(c)); });
    return out;
}

std::vector<TimedShape> timedShapes(const Store& store, std::optional<std::int64_t> evaluationId, bool samples)
{
    std::vector<TimedShape> out;
    std::vector<SqlValue> params;
    std::string sql = fmt::format("SELECT t.id, t.evaluation_id, t.shape, t.candidate_ms, t.baseline_ms, {}, v.task_id, v.category, "
                                  "v.method, v.round, v.gpu, v.verdict FROM timings t JOIN evaluation_rows v ON v.id = t.evaluation_id",
                                  samples ? "t.samples" : "NULL");
    if (evaluationId) {
        sql += " WHERE t.evaluation_id = ?";
        params.emplace_back(*evaluationId);
    }
    sql += " ORDER BY t.evaluation_id, t.id";
    store.each(sql, params, [&](const Cursor& c) {
        TimedShape s;
        s.timing = {c.i64(0), c.i64(1), c.text(2), optReal(c, 3), optReal(c, 4), optText(c, 5)};
        s.taskId = c.text(6);
        s.category = c.text(7);
        s.method = c.text(8);
        s.round = static_cast<int>(c.i64(9));
        s.gpu = c.text(10);
        s.verdict = c.text(11);
        out.push_back(std::move(s));
    });
    return out;
}

std::vector<Outcome> countedOutcomes(const Store& store, const analysis::Filters& filters)
{
    std::vector<Outcome> out;
    store.each(fmt::format(
                   "SELECT v.gpu, v.round, v.category, v.method, v.task_id, v.exe_ok FROM evaluation_rows v "
                   "JOIN (SELECT max(id) AS id FROM evaluation_rows WHERE {} GROUP BY submission_id, gpu) latest "
                   "ON latest.id = v.id",
                   filterSql(filters)),
               {}, [&](const Cursor& c) {
                   out.push_back({c.isText(0) ? c.text(0) : std::string(), static_cast<int>(c.i64(1)), c.text(2), c.text(3), c.text(4),
                                  c.i64(5) != 0});
               });
    return out;
}

std::vector<Import> listImports(const Store& store)
{
    std::vector<Import> out;
    store.each("SELECT id, imported_at, format, source, sha256, options, files, notes FROM imports ORDER BY id", {}, [&](const Cursor& c) {
        out.push_back({c.i64(0), c.text(1), c.text(2), c.text(3), c.text(4), c.text(5), c.text(6), c.text(7)});
    });
    return out;
}

std::vector<GoldenTiming> listGoldenTimings(const Store& store, const std::vector<std::string>& gpus, const std::vector<std::string>& tasks)
{
    std::string sql = "SELECT id, import_id, gpu, task, task_id, idx, input_size, ms, gbs, tflops, file FROM golden_timings WHERE 1";
    std::vector<SqlValue> params;
    auto inList = [&](const std::vector<std::string>& values, const char* column) {
        std::string s = fmt::format("{} IN (", column);
        for (std::size_t i = 0; i < values.size(); ++i) {
            s += i ? ",?" : "?";
            params.emplace_back(values[i]);
        }
        return s + ")";
    };
    if (!gpus.empty())
        sql += " AND " + inList(gpus, "gpu");
    if (!tasks.empty()) {  // the seed's stem or our "Category/stem"
        const std::string a = inList(tasks, "task");
        sql += fmt::format(" AND ({} OR {})", a, inList(tasks, "task_id"));
    }
    sql += " ORDER BY gpu, task, idx";
    std::vector<GoldenTiming> out;
    store.each(sql, params, [&](const Cursor& c) {
        out.push_back({c.i64(0), c.i64(1), c.text(2), c.text(3), optText(c, 4), c.i64(5), c.text(6), c.f64(7), optReal(c, 8),
                       optReal(c, 9), c.text(10)});
    });
    return out;
}

std::vector<SeedSummary> listSeedSummaries(const Store& store)
{
    std::vector<SeedSummary> out;
    store.each("SELECT id, import_id, gpu, method, round, total, call_pass, exe_pass, perf_pass, avg_speedup, avg_speedup_per_task, "
               "fields, file FROM seed_summaries ORDER BY id",
               {}, [&](const Cursor& c) {
                   out.push_back({c.i64(0), c.i64(1), c.text(2), c.text(3), c.i64(4), optInt(c, 5), optInt(c, 6), optInt(c, 7),
                                  optInt(c, 8), optReal(c, 9), optReal(c, 10), c.text(11), c.text(12)});
               });
    return out;
}

}  // namespace kbx::query
