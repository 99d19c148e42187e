// SPDX-License-Identifier: MIT
#include "query_engine.h"

#include <fmt/format.h>

namespace kbx::query {
namespace {
std::string idList(const std::vector<std::int64_t>& ids)
{
    std::string s;
    for (auto id : ids)
        s += (s.empty() ? "" : ",") + std::to_string(id);
    return s;
}
}  // namespace

nlohmann::json secondsSeenPerTask(const Store& store)
{
    return store.query(
        "SELECT task_id AS t, avg(CAST(coalesce(json_extract(stage_seconds, '$.evaluation'), "
        "json_extract(stage_seconds, '$.candidate')) AS REAL)) AS s "
        "FROM evaluations WHERE json_extract(stage_seconds, '$.candidate') IS NOT NULL GROUP BY task_id");
}

nlohmann::json recordedAutotuneChoices(const Store& store, const std::string& deviceKind)
{
    return store.query(
        "SELECT e.task_id AS task, c.code_hash AS hash, t.shape AS shape, json_extract(t.samples, '$.autotune') AS at "
        "FROM timings t JOIN evaluations e ON e.id = t.evaluation_id JOIN submissions s ON s.id = e.submission_id "
        "JOIN candidates c ON c.id = s.candidate_id JOIN runs r ON r.id = e.run_id WHERE r.device = " +
        sqlQuote(deviceKind) + " AND json_extract(t.samples, '$.autotune') IS NOT NULL ORDER BY e.id");
}

nlohmann::json latestReferenceSelfSpeedup(const Store& store, const std::string& taskId, const std::string& deviceKind)
{
    return store.query(
        "SELECT json_extract(e.evidence, '$.perf.geomean_speedup') AS g, e.id AS id FROM evaluations e "
        "JOIN submissions s ON s.id = e.submission_id JOIN methods m ON m.id = s.method_id JOIN runs r ON r.id = e.run_id "
        "WHERE m.name = 'reference' AND e.task_id = " +
        sqlQuote(taskId) + " AND r.device = " + sqlQuote(deviceKind) +
        " AND json_extract(e.evidence, '$.perf.geomean_speedup') IS NOT NULL ORDER BY e.id DESC LIMIT 1");
}

nlohmann::json evaluatedWork(const Store& store, const std::string& device, const std::set<std::string>& tasks)
{
    if (tasks.empty())
        return nlohmann::json::array();
    std::string in;
    for (const auto& t : tasks)
        in += (in.empty() ? "" : ",") + sqlQuote(t);
    return store.query(fmt::format("SELECT DISTINCT c.task_id AS task, c.code_hash AS hash, m.name AS method, s.round AS round "
                                   "FROM evaluations e JOIN runs r ON r.id = e.run_id JOIN submissions s ON s.id = e.submission_id "
                                   "JOIN candidates c ON c.id = s.candidate_id JOIN methods m ON m.id = s.method_id "
                                   "WHERE r.device = {} AND c.task_id IN ({})",
                                   sqlQuote(device), in));
}

nlohmann::json runningRuns(const Store& store, const std::string& device)
{
    return store.query(fmt::format("SELECT r.id AS id, r.started_at AS started_at, r.public_seeds AS public_seeds, r.secret_seed AS secret_seed, "
                                   "r.args AS args, json_extract(r.provenance, '$.host') AS host, "
                                   "(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id) AS evaluations "
                                   "FROM runs r WHERE r.status = 'running' AND r.device = {} ORDER BY r.id DESC",
                                   sqlQuote(device)));
}

nlohmann::json codeQualityRows(const Store& store, const std::vector<std::int64_t>& submissionIds)
{
    return store.query("SELECT submission_id, mi, cc_mean, cc_max, sloc, tool_version, error FROM code_quality "
                       "WHERE submission_id IN (" +
                       idList(submissionIds) + ")");
}

nlohmann::json submissionCodes(const Store& store, const std::vector<std::int64_t>& submissionIds)
{
    return store.query("SELECT s.id, c.code FROM submissions s JOIN candidates c ON c.id = s.candidate_id WHERE s.id IN (" +
                       idList(submissionIds) + ")");
}

}  // namespace kbx::query
