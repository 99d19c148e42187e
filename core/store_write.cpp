// SPDX-License-Identifier: MIT
// kbx::Store's writes of evaluation runs: manual labels, perf results, methods, candidates,
// submissions, runs, evaluations (with their bounded evidence) and the code-quality cache.
// Opening, the schema and the reads: store.cpp; imports: store_import.cpp.
#include "store.h"
#include "store_sqlite.h"

#include "source.h"
#include "taxonomy.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>

namespace kbx {

using store_detail::Stmt;
using store_detail::Transaction;

namespace {
/// An evaluation's evidence and stage_seconds, each an object (empty when unreadable), for an update
/// that adds keys to them; StoreError when there is no such evaluation.
std::pair<nlohmann::json, nlohmann::json> evidenceAndSeconds(sqlite3* db, std::int64_t evaluationId, const std::filesystem::path& path)
{
    Stmt q(db, "SELECT evidence, stage_seconds FROM evaluations WHERE id=?");
    q.bind(1, evaluationId);
    if (!q.step())
        throw StoreError(fmt::format("no evaluation {} in {}", evaluationId, path.string()));
    auto ev = nlohmann::json::parse(q.text(0), nullptr, false);
    auto st = nlohmann::json::parse(q.text(1), nullptr, false);
    return {ev.is_object() ? std::move(ev) : nlohmann::json::object(), st.is_object() ? std::move(st) : nlohmann::json::object()};
}
}  // namespace

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
    nlohmann::json evidence = evidenceAndSeconds(m_db, evaluationId, m_path).first;
    evidence["perf"] = perfEvidence;
    Stmt(m_db, "UPDATE evaluations SET evidence=? WHERE id=?").bind(1, evidence.dump()).bind(2, evaluationId).step();
    if (failure)
        // The verdict fails; exe_ok stays: the outputs were right (exe in the seed's sense), as for a kernel
        // that launched no Triton kernel at all (TierJudge).
        Stmt(m_db, "UPDATE evaluations SET verdict='fail', failure_class=?, failure_detail=? WHERE id=?")
            .bind(1, failure->first).bind(2, failure->second).bind(3, evaluationId).step();
    for (const auto& r : rows) {
        Stmt ins(m_db, "INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms, samples) VALUES(?,?,?,?,?)");
        ins.bind(1, evaluationId).bind(2, r.shape);
        if (r.candidateMs)
            ins.bind(3, *r.candidateMs);
        else
            ins.bindNull(3);
        if (r.baselineMs)
            ins.bind(4, *r.baselineMs);
        else
            ins.bindNull(4);
        ins.bind(5, r.samples.dump());
        ins.step();
    }
    tx.commit();
}

void Store::addStageResult(std::int64_t evaluationId, const std::string& key, const nlohmann::json& evidence,
                           std::optional<double> seconds)
{
    requireWritable("store a stage's result");
    if (key.empty() || key == "perf" || key == "evaluation")
        throw std::invalid_argument("addStageResult: '" + key + "' is not a key of its own");
    std::lock_guard lock(m_mutex);
    Transaction tx(m_db);
    auto [ev, st] = evidenceAndSeconds(m_db, evaluationId, m_path);
    ev[key] = evidence;
    if (seconds)
        st[key] = *seconds;
    Stmt(m_db, "UPDATE evaluations SET evidence=?, stage_seconds=? WHERE id=?").bind(1, ev.dump()).bind(2, st.dump()).bind(3, evaluationId).step();
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
        c.reset();
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
        chk.reset();
        chk.bind(1, r.submissionId).step();
        if (chk.i64(0) == 0)
            throw StoreError(fmt::format("no submission {} in {}", r.submissionId, m_path.string()));
        ins.reset();
        ins.bind(1, r.submissionId);
        if (r.mi)
            ins.bind(2, *r.mi);
        if (r.ccMean)
            ins.bind(3, *r.ccMean);
        if (r.ccMax)
            ins.bind(4, std::int64_t(*r.ccMax));
        if (r.sloc)
            ins.bind(5, std::int64_t(*r.sloc));
        ins.bind(6, r.toolVersion).bind(7, r.error).bind(8, now).step();
    }
    tx.commit();
}

}  // namespace kbx
