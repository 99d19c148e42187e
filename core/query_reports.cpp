// SPDX-License-Identifier: MIT
// The read-query layer's part for the reports (query_reports.h): the counting rule's SQL, the analysis's
// facts, rounds, the report tables, a report's provenance and a shard's runs. Each statement is the one
// its caller ran before it moved here, so the query plans are the same.
#include "query_reports.h"

#include <fmt/format.h>

#include <algorithm>

namespace kbx::query {

namespace {

using Cursor = Store::Cursor;

template <typename T, typename F>
std::string inList(const std::string& column, const std::vector<T>& values, F&& fmtValue)
{
    std::string sql = fmt::format(" AND {} IN (", column);
    for (std::size_t i = 0; i < values.size(); ++i)
        sql += (i ? "," : "") + fmtValue(values[i]);
    return sql + ")";
}

/// The ids comma separated, in their order (for `IN (...)`).
template <typename Ids> std::string idList(const Ids& ids)
{
    std::string list;
    for (auto id : ids)
        list += (list.empty() ? "" : ",") + std::to_string(id);
    return list;
}

std::optional<std::string> textOf(const Cursor& c, int col)
{
    return c.isText(col) ? std::optional<std::string>(c.text(col)) : std::nullopt;
}

/// textOf() without the copy: valid until the next row.
std::optional<std::string_view> viewOf(const Cursor& c, int col)
{
    return c.isText(col) ? std::optional<std::string_view>(c.textView(col)) : std::nullopt;
}

/// True where the column is a non-zero number.
bool flag(const Cursor& c, int col)
{
    return c.isNumber(col) && c.f64(col) != 0;
}

std::optional<double> numberOf(const Cursor& c, int col)
{
    return c.isNumber(col) ? std::optional<double>(c.f64(col)) : std::nullopt;
}

}  // namespace

// ---- the counting rule -----------------------------------------------------------------------------

std::string countedEvaluationsSql(const std::string& where)
{
    return fmt::format("SELECT max(id) AS id FROM evaluation_rows{}{} GROUP BY submission_id, gpu",
                       where.empty() ? "" : " WHERE ", where);
}

std::string filterSql(const analysis::Filters& f)
{
    std::string where = "1";
    if (!f.methods.empty())
        where += inList("method", f.methods, sqlQuote);
    if (!f.rounds.empty())
        where += inList("round", f.rounds, [](int r) { return std::to_string(r); });
    if (!f.gpus.empty())
        where += inList("gpu", f.gpus, sqlQuote);
    if (!f.categories.empty())
        where += inList("category", f.categories, sqlQuote);
    if (!f.tasks.empty())
        where += inList("task_id", f.tasks, sqlQuote);
    return where;
}

// ---- the analysis's facts --------------------------------------------------------------------------

std::vector<std::int64_t> runsWithEvaluations(const Store& store)
{
    // One index probe per run, not a pass over the evaluations.
    std::vector<std::int64_t> out;
    store.each(
        "SELECT r.id FROM runs r WHERE EXISTS (SELECT 1 FROM evaluations e JOIN submissions s ON s.id = e.submission_id "
        "JOIN methods m ON m.id = s.method_id WHERE e.run_id = r.id) ORDER BY r.id",
        [&](const Cursor& c) { out.push_back(c.i64(0)); });
    return out;
}

std::unordered_map<std::int64_t, std::string> methodNamesById(const Store& store)
{
    std::unordered_map<std::int64_t, std::string> out;
    store.each("SELECT id, name FROM methods", [&](const Cursor& c) { out[c.i64(0)] = c.text(1); });
    return out;
}

std::size_t countedEvaluationCount(const Store& store)
{
    std::size_t count = 0;
    store.each("SELECT count(*) FROM counted_evaluations", [&](const Cursor& c) { count = std::size_t(c.i64(0)); });
    return count;
}

void eachCountedEvaluation(const Store& store, const std::function<void(const CountedEvaluation&)>& fn)
{
    store.each(
        "SELECT evaluation_id, run_id, submission_id, candidate_id, method_id, round, task_id, gpu, verdict, call_ok, exe_ok, "
        "failure_class, ext_cases, ext_passed, evaluations, perf_ok FROM counted_evaluations",
        [&](const Cursor& c) {
            CountedEvaluation r;
            r.evaluationId = c.i64(0);
            r.runId = c.i64(1);
            r.submissionId = c.i64(2);
            r.candidateId = c.i64(3);
            r.methodId = c.i64(4);
            r.round = c.i64(5);
            r.taskId = viewOf(c, 6);
            r.gpu = c.isText(7) ? c.textView(7) : std::string_view();
            r.verdict = c.isText(8) ? c.textView(8) : std::string_view();
            r.callOk = c.i64(9) != 0;
            r.exeOk = c.i64(10) != 0;
            r.failureClass = viewOf(c, 11);
            r.extCases = c.isNumber(12) ? std::optional<std::int64_t>(c.i64(12)) : std::nullopt;
            r.extPassed = c.isNumber(13) ? std::optional<std::int64_t>(c.i64(13)) : std::nullopt;
            r.evaluations = c.i64(14);
            r.perfOk = c.isNull(15) ? std::nullopt : std::optional<bool>(flag(c, 15));
            fn(r);
        });
}

std::vector<LabelClass> manualLabelClasses(const Store& store)
{
    std::vector<LabelClass> out;
    store.each("SELECT evaluation_id, failure_class FROM manual_labels", [&](const Cursor& c) {
        out.push_back({c.i64(0), textOf(c, 1)});
    });
    return out;
}

void eachPositiveTiming(const Store& store, const std::function<void(std::int64_t, double, double)>& fn)
{
    store.each(
        "SELECT evaluation_id, candidate_ms, baseline_ms FROM timings WHERE candidate_ms > 0 AND baseline_ms > 0 "
        "ORDER BY evaluation_id, id",
        [&](const Cursor& c) { fn(c.i64(0), c.f64(1), c.f64(2)); });
}

// ---- rounds ------------------------------------------------------------------------------------------

std::vector<RecordedTransition> roundTransitions(const Store& store)
{
    std::vector<RecordedTransition> out;
    store.each(
        "SELECT t.gpu, t.method, t.task_id, t.from_round, t.to_round, t.kind, t.origin, t.before_call_ok, t.before_exe_ok, "
        "t.before_perf_ok, t.before_speedup, t.after_call_ok, t.after_exe_ok, t.after_perf_ok, t.after_speedup, "
        "(sb.candidate_id = sa.candidate_id) AS same_code, "
        "CASE WHEN json_extract(eb.evidence, '$.seed.code_kept') THEN sb.candidate_id END AS before_candidate, "
        "CASE WHEN json_extract(ea.evidence, '$.seed.code_kept') THEN sa.candidate_id END AS after_candidate "
        "FROM round_transitions t "
        "LEFT JOIN evaluations eb ON eb.id = t.before_evaluation_id LEFT JOIN submissions sb ON sb.id = eb.submission_id "
        "LEFT JOIN evaluations ea ON ea.id = t.after_evaluation_id LEFT JOIN submissions sa ON sa.id = ea.submission_id "
        "ORDER BY t.id",
        [&](const Cursor& c) {
            RecordedTransition& t = out.emplace_back();
            t.gpu = c.text(0);
            t.method = c.text(1);
            t.taskId = c.text(2);
            t.fromRound = int(c.i64(3));
            t.toRound = int(c.i64(4));
            t.kind = c.text(5);
            t.origin = c.text(6);
            t.beforeCallOk = flag(c, 7);
            t.beforeExeOk = flag(c, 8);
            t.beforePerfOk = flag(c, 9);
            t.beforeSpeedup = numberOf(c, 10);
            t.afterCallOk = flag(c, 11);
            t.afterExeOk = flag(c, 12);
            t.afterPerfOk = flag(c, 13);
            t.afterSpeedup = numberOf(c, 14);
            t.sameCode = flag(c, 15);
            if (!c.isNull(16))
                t.beforeCandidate = c.i64(16);
            if (!c.isNull(17))
                t.afterCandidate = c.i64(17);
        });
    return out;
}

std::vector<std::int64_t> corpusRunIds(const Store& store)
{
    std::vector<std::int64_t> out;
    store.each("SELECT id FROM runs WHERE coalesce(json_extract(provenance, '$.format'), '') = 'corpus'",
               [&](const Cursor& c) { out.push_back(c.i64(0)); });
    return out;
}

// ---- report tables -------------------------------------------------------------------------------------

std::vector<GoldenMs> positiveGoldenTimings(const Store& store)
{
    std::vector<GoldenMs> out;
    store.each(
        "SELECT gpu, task, task_id, idx, input_size, ms FROM golden_timings WHERE ms > 0 ORDER BY task, gpu, idx",
        [&](const Cursor& c) {
            GoldenMs& g = out.emplace_back();
            g.gpu = c.text(0);
            g.task = c.text(1);
            g.taskId = c.isText(2) ? c.text(2) : std::string();
            g.index = int(c.i64(3));
            g.inputSize = c.text(4);
            g.ms = c.f64(5);
        });
    return out;
}

std::map<std::int64_t, CodeQualityRow> codeQualityAmong(const Store& store, const std::vector<std::int64_t>& ids)
{
    std::map<std::int64_t, CodeQualityRow> out;
    store.each("SELECT submission_id, mi, cc_mean, cc_max, sloc, tool_version, error FROM code_quality",
               [&](const Cursor& c) {
                   const auto id = c.i64(0);
                   if (!std::binary_search(ids.begin(), ids.end(), id))
                       return;
                   CodeQualityRow r;
                   r.submissionId = id;
                   if (c.isNumber(1))
                       r.mi = c.f64(1);
                   if (c.isNumber(2))
                       r.ccMean = c.f64(2);
                   if (c.isNumber(3))
                       r.ccMax = static_cast<int>(c.f64(3));
                   if (c.isNumber(4))
                       r.sloc = static_cast<int>(c.f64(4));
                   r.toolVersion = c.text(5);
                   r.error = c.text(6);
                   out[id] = std::move(r);
               });
    return out;
}

std::vector<GpuMethod> gpuMethodsOfRuns(const Store& store, const std::vector<std::int64_t>& runIds)
{
    std::vector<GpuMethod> out;
    store.each("SELECT DISTINCT v.gpu AS gpu, v.method AS method FROM evaluation_rows v WHERE v.run_id IN (" +
                   idList(runIds) + ")",
               [&](const Cursor& c) {
                   out.push_back({c.isText(0) ? c.text(0) : std::string(), c.text(1)});
               });
    return out;
}

void eachCountedProtocol(const Store& store, const std::function<void(const CountedProtocol&)>& fn)
{
    store.each(
        "SELECT c.evaluation_id, c.protocol, c.ext_cases, c.ext_passed, c.ext_failure_class, c.contract_exe_ok, c.contract_pass, "
        "c.contract_class, s.seed0_cases, s.seed0_passed, s.contract_first, s.extended_first FROM counted_evaluations c "
        "LEFT JOIN case_summaries s ON s.evaluation_id = c.evaluation_id WHERE c.protocol IS NOT NULL",
        [&](const Cursor& c) {
            CountedProtocol e;
            e.evaluationId = c.i64(0);
            e.protocol = c.textView(1);
            e.extendedAllPassed = c.isNull(2) || (c.isNumber(3) && c.isNumber(2) && c.f64(3) == c.f64(2));
            e.extFailureClass = viewOf(c, 4);
            e.contractExeOk = flag(c, 5);
            e.contractPass = flag(c, 6);
            e.contractClass = viewOf(c, 7);
            e.seed0Cases = c.isNull(8) ? 0 : int(c.i64(8));
            e.seed0Passed = c.isNull(9) ? 0 : int(c.i64(9));
            e.contractFirst = viewOf(c, 10);
            e.extendedFirst = viewOf(c, 11);
            fn(e);
        });
}

void eachTimingRoofline(const Store& store, const std::function<void(const TimingRoofline&)>& fn)
{
    store.each("SELECT evaluation_id, candidate_ms, roofline FROM timing_rooflines", [&](const Cursor& c) {
        TimingRoofline t;
        t.evaluationId = c.i64(0);
        t.candidateMs = c.value(1);
        t.roofline = viewOf(c, 2);
        fn(t);
    });
}

// ---- a report's provenance ---------------------------------------------------------------------------

std::map<std::int64_t, std::string> runDevices(const Store& store, const std::set<std::int64_t>& runIds)
{
    std::map<std::int64_t, std::string> out;
    store.each("SELECT id, device FROM runs WHERE id IN (" + idList(runIds) + ")",
               [&](const Cursor& c) { out[c.i64(0)] = c.text(1); });
    return out;
}

void eachTimedEvaluationProtocol(const Store& store, const std::set<std::int64_t>& runIds,
                                 const std::function<void(std::int64_t, const std::string&)>& fn)
{
    // The counted ones from counted_evaluations (the protocol read from the evidence when it was
    // stored), the others (re-evaluated since; few) from their evidence; one probe each, by id.
    store.each(
        "SELECT c.run_id, coalesce(c.perf_protocol, '') FROM (SELECT DISTINCT evaluation_id AS id FROM timings) t "
        "CROSS JOIN counted_evaluations c ON c.evaluation_id = t.id",
        [&](const Cursor& c) { fn(c.i64(0), c.text(1)); });
    store.each(
        "SELECT e.run_id, coalesce(json_extract(e.evidence, '$.perf.protocol'), '') FROM (SELECT DISTINCT evaluation_id AS id "
        "FROM timings) t CROSS JOIN evaluations e ON e.id = t.id WHERE NOT EXISTS (SELECT 1 FROM counted_evaluations c "
        "WHERE c.evaluation_id = t.id) AND e.run_id IN (" +
            idList(runIds) + ")",
        [&](const Cursor& c) { fn(c.i64(0), c.text(1)); });
}

std::vector<RunRecord> runRecords(const Store& store, const std::set<std::int64_t>& runIds)
{
    std::vector<RunRecord> out;
    store.each("SELECT id, device, started_at, provenance, args FROM runs WHERE id IN (" + idList(runIds) +
                   ") ORDER BY id",
               [&](const Cursor& c) {
                   out.push_back({c.i64(0), c.text(1), c.text(2), c.text(3), c.text(4)});
               });
    return out;
}

std::optional<int> minTaxonomyVersion(const Store& store, std::int64_t runId, std::optional<int> above)
{
    std::optional<int> v;
    store.each(fmt::format("SELECT min(taxonomy_version) FROM evaluations WHERE run_id = {}{}", runId,
                           above ? fmt::format(" AND taxonomy_version > {}", *above) : std::string()),
               [&](const Cursor& c) {
                   if (!c.isNull(0))
                       v = int(c.i64(0));
               });
    return v;
}

std::vector<int> taxonomyVersionsOfRuns(const Store& store, const std::set<std::int64_t>& runIds)
{
    std::vector<int> out;
    store.each("SELECT DISTINCT e.taxonomy_version FROM evaluations e WHERE +e.run_id IN (" + idList(runIds) + ")",
               [&](const Cursor& c) { out.push_back(int(c.i64(0))); });
    return out;
}

// ---- the Slurm driver ----------------------------------------------------------------------------------

std::vector<ShardRun> shardRuns(const Store& store, int shard, int shards)
{
    std::vector<ShardRun> out;
    store.each(
        fmt::format(
            "SELECT r.status, json_extract(r.provenance, '$.slurm.node') AS node, json_extract(r.provenance, '$.host') AS host, "
            "(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id) AS n, "
            "(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id AND e.verdict = 'pass') AS passed FROM runs r WHERE json_extract(r.args, '$.shard') = '{}/{}'",
            shard, shards),
        [&](const Cursor& c) {
            out.push_back({c.text(0), textOf(c, 1), textOf(c, 2), c.i64(3), c.i64(4)});
        });
    return out;
}

}  // namespace kbx::query
