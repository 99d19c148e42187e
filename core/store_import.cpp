// SPDX-License-Identifier: MIT
// kbx::Store::writeImport: one import of the seed's outputs (core/seed_import.h) in one transaction:
// the import's row, its runs with their candidates, submissions, evaluations and timings, the golden
// timings, the round transitions and the seed's own summaries. Opening and the schema: store.cpp.
#include "store.h"
#include "store_sqlite.h"

#include "seed_import.h"
#include "source.h"
#include "taxonomy.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <set>

namespace kbx {
namespace {

using store_detail::Stmt;
using store_detail::Transaction;

void bindOpt(Stmt& st, int i, const std::optional<double>& v)
{
    if (v)
        st.bind(i, *v);
    else
        st.bindNull(i);
}

void again(Stmt& st)
{
    st.reset();
}

/// The statements every imported evaluation is written with, prepared once per import.
struct ImportStatements {
    explicit ImportStatements(sqlite3* db)
        : insMethod(db, "INSERT OR IGNORE INTO methods(name) VALUES(?)"),
          selMethod(db, "SELECT id FROM methods WHERE name=?"),
          insCand(db, "INSERT OR IGNORE INTO candidates(task_id, code_hash, code, created_at) VALUES(?,?,?,?)"),
          selCand(db, "SELECT id FROM candidates WHERE task_id=? AND code_hash=?"),
          insSub(db, "INSERT OR IGNORE INTO submissions(candidate_id, method_id, round, origin) VALUES(?,?,?,?)"),
          selSub(db, "SELECT id FROM submissions WHERE candidate_id=? AND method_id=? AND round=?"),
          insEval(db, "INSERT INTO evaluations(run_id, submission_id, task_id, verdict, call_ok, exe_ok, failure_class, failure_detail, "
                      "evidence, stage_seconds, taxonomy_version, started_at, finished_at) VALUES(?,?,?,?,?,?,?,?,?,'{}',1,?,?)"),
          insTiming(db, "INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms, samples) VALUES(?,?,?,?,?)")
    {
    }
    Stmt insMethod, selMethod, insCand, selCand, insSub, selSub, insEval, insTiming;
};

/// The failure detail of an imported failing evaluation; the class inferred from the seed's error
/// text, if any, in `inferred` and noted in `evidence`.
std::string importedFailureDetail(const ImportedEvaluation& ev, nlohmann::json& evidence, std::optional<FailureClass>& inferred)
{
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
    return fmt::format("imported: the seed's {} stage failed{}{}{}", ev.state.callOk ? "exe" : "call",
                       firstLine.empty() ? "" : "; seed error: ", firstLine,
                       inferred ? " (class inferred from this text)" : "");
}

/// One imported evaluation of `run` (already stored as `runId`): its candidate, submission,
/// evaluation and, from the seed's speedup, one timing row. Returns the evaluation's id.
std::int64_t writeImportedEvaluation(sqlite3* db, ImportStatements& st, const ImportedRun& run, const ImportedEvaluation& ev,
                                     std::int64_t runId, std::int64_t methodId, const std::string& now, ImportSummary& sum)
{
    const auto hash = sha256Hex(ev.code);
    again(st.insCand);
    st.insCand.bind(1, ev.taskId).bind(2, hash).bind(3, ev.code).bind(4, now).step();
    sum.newCandidates += sqlite3_changes(db) > 0;
    again(st.selCand);
    st.selCand.bind(1, ev.taskId).bind(2, hash).step();
    const auto candId = st.selCand.i64(0);
    again(st.insSub);
    st.insSub.bind(1, candId).bind(2, methodId).bind(3, std::int64_t(ev.round)).bind(4, ev.origin).step();
    again(st.selSub);
    st.selSub.bind(1, candId).bind(2, methodId).bind(3, std::int64_t(ev.round)).step();
    const auto subId = st.selSub.i64(0);
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
    if (!pass)
        detail = importedFailureDetail(ev, evidence, inferred);
    again(st.insEval);
    st.insEval.bind(1, runId).bind(2, subId).bind(3, ev.taskId).bind(4, std::string(pass ? "pass" : "fail"))
        .bind(5, std::int64_t(ev.state.callOk)).bind(6, std::int64_t(ev.state.exeOk));
    if (inferred)
        st.insEval.bind(7, std::string(toString(*inferred)));
    else
        st.insEval.bindNull(7);
    st.insEval.bind(8, detail).bind(9, evidence.dump()).bind(10, now).bind(11, now).step();
    const auto evalId = sqlite3_last_insert_rowid(db);
    sum.evaluations += 1;
    // The seed's speedup as one timing row: candidate = its runtime, baseline = speedup x runtime
    // (the seed's speedup is sum(golden eager ms) / sum(candidate ms) over its input sizes).
    if (ev.state.perfOk && ev.state.speedup && *ev.state.speedup > 0 && ev.runtimeMs && *ev.runtimeMs > 0) {
        again(st.insTiming);
        st.insTiming.bind(1, evalId).bind(2, std::string("seed: sum golden eager / sum candidate"));
        bindOpt(st.insTiming, 3, *ev.runtimeMs);
        bindOpt(st.insTiming, 4, *ev.runtimeMs * *ev.state.speedup);
        st.insTiming.bind(5, nlohmann::json{{"source", "seed"}, {"speedup", *ev.state.speedup}, {"runtime_ms", *ev.runtimeMs}}.dump()).step();
    }
    return evalId;
}

/// The import's runs with their evaluations; the evaluations' ids, per run (for the transitions).
std::vector<std::vector<std::int64_t>> writeImportedRuns(sqlite3* db, const ImportBatch& b, const std::string& now, ImportSummary& sum)
{
    ImportStatements st(db);
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
        Stmt(db, "INSERT INTO runs(started_at, finished_at, status, device, provenance, public_seeds, secret_seed, args) "
                 "VALUES(?,?,'imported','imported',?,'[]',0,?)")
            .bind(1, now).bind(2, now).bind(3, prov.dump()).bind(4, args.dump()).step();
        const auto runId = sqlite3_last_insert_rowid(db);
        sum.runIds.push_back(runId);
        again(st.insMethod);
        st.insMethod.bind(1, run.method).step();
        again(st.selMethod);
        st.selMethod.bind(1, run.method).step();
        const auto methodId = st.selMethod.i64(0);
        for (const auto& ev : run.evaluations)
            evalIds[ri].push_back(writeImportedEvaluation(db, st, run, ev, runId, methodId, now, sum));
    }
    return evalIds;
}

/// The golden timings: each (gpu, task) the import names replaces what an earlier import kept for it.
void writeGoldenTimings(sqlite3* db, const ImportBatch& b, ImportSummary& sum)
{
    std::set<std::pair<std::string, std::string>> replaced;
    Stmt del(db, "DELETE FROM golden_timings WHERE gpu=? AND task=?");
    Stmt ins(db, "INSERT INTO golden_timings(import_id, gpu, task, task_id, idx, input_size, ms, gbs, tflops, file) VALUES(?,?,?,?,?,?,?,?,?,?)");
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

/// The round transitions, each between two evaluations of one imported run (`evalIds`).
void writeTransitions(sqlite3* db, const ImportBatch& b, const std::vector<std::vector<std::int64_t>>& evalIds, ImportSummary& sum)
{
    Stmt ins(db, "INSERT INTO round_transitions(import_id, run_id, gpu, method, task_id, from_round, to_round, kind, before_evaluation_id, "
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

/// The seed's own summaries (its counts and average speedups, kept as it wrote them).
void writeSeedSummaries(sqlite3* db, const ImportBatch& b, ImportSummary& sum)
{
    Stmt ins(db, "INSERT INTO seed_summaries(import_id, gpu, method, round, total, call_pass, exe_pass, perf_pass, avg_speedup, "
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

}  // namespace

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
    const auto evalIds = writeImportedRuns(m_db, b, now, sum);
    writeGoldenTimings(m_db, b, sum);
    writeTransitions(m_db, b, evalIds, sum);
    writeSeedSummaries(m_db, b, sum);
    tx.commit();
    return sum;
}

}  // namespace kbx
