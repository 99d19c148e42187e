// SPDX-License-Identifier: MIT
// kbx merge's copy of one input's rows into the target (merge_detail::mergeRows): the tables it knows,
// the runs keyed and fingerprinted in the merge ledger, ids mapped, imports and code quality.
// Opening the input and the transaction around this: store_merge.cpp. Part of the store (core/store_merge.h).
#include "store_merge.h"
#include "store_merge_internal.h"

#include "source.h"
#include "store.h"
#include "store_derived.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <sqlite3.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace kbx {
namespace {

using merge_detail::exec;
using merge_detail::Stmt;

/// Tables merged here; a source with rows in any other table is refused (nothing would say where they go).
const std::set<std::string> kKnownTables = {"methods",      "candidates", "submissions",     "runs",
                                            "evaluations",  "case_results", "timings",       "manual_labels",
                                            "imports",      "golden_timings", "round_transitions", "seed_summaries",
                                            "merge_ledger", "code_quality"};

/// Tables derived from the others (core/store_derived.h: the counting rule, the timings' rooflines): never
/// copied, the target's triggers fill its own as the rows arrive.
bool isDerived(const std::string& table)
{
    const auto& d = derived::tables();
    return std::find(d.begin(), d.end(), table) != d.end();
}

/// Incremental SHA-256 over typed, length-prefixed fields (no two field sequences hash alike).
class Digest {
public:
    Digest() : m_ctx(EVP_MD_CTX_new())
    {
        if (!m_ctx || EVP_DigestInit_ex(m_ctx, EVP_sha256(), nullptr) != 1)
            throw MergeError("SHA-256 unavailable");
    }
    ~Digest() { EVP_MD_CTX_free(m_ctx); }
    Digest(const Digest&) = delete;
    Digest& operator=(const Digest&) = delete;
    void add(char tag, const void* data, std::size_t n)
    {
        const std::uint64_t len = n;
        EVP_DigestUpdate(m_ctx, &tag, 1);
        EVP_DigestUpdate(m_ctx, &len, sizeof len);
        if (n)
            EVP_DigestUpdate(m_ctx, data, n);
    }
    void add(const std::string& s) { add('s', s.data(), s.size()); }
    /// Every column of the current row, by type (reals as SQLite's own text rendering).
    void addRow(const Stmt& st, int from = 0)
    {
        for (int c = from; c < st.columns(); ++c) {
            switch (sqlite3_column_type(st.raw(), c)) {
            case SQLITE_NULL: add('n', nullptr, 0); break;
            case SQLITE_INTEGER: {
                const auto v = st.i64(c);
                add('i', &v, sizeof v);
                break;
            }
            case SQLITE_BLOB: add('b', sqlite3_column_blob(st.raw(), c), static_cast<std::size_t>(sqlite3_column_bytes(st.raw(), c))); break;
            default: {  // text and real
                const auto t = st.text(c);
                add(sqlite3_column_type(st.raw(), c) == SQLITE_FLOAT ? 'r' : 't', t.data(), t.size());
            }
            }
        }
    }
    std::string hex()
    {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        EVP_DigestFinal_ex(m_ctx, md, &n);
        std::string out;
        for (unsigned i = 0; i < n; ++i)
            out += fmt::format("{:02x}", md[i]);
        return out;
    }

private:
    EVP_MD_CTX* m_ctx;
};

bool complete(const std::string& status)
{
    return status == "finished" || status == "finished_with_errors" || status == "imported";
}

struct RunRow {
    std::int64_t id = 0;
    std::string startedAt, finishedAt, status, device, provenance, publicSeeds, args;
    std::int64_t secretSeed = 0;
};

class Merger {
public:
    Merger(sqlite3* db, std::string sourceName, std::set<std::string> excluded) : m_db(db), m_excluded(std::move(excluded))
    {
        m_report.source = std::move(sourceName);
    }

    MergeReport run()
    {
        checkTables();
        mergeImports();
        std::vector<RunRow> runs;
        {
            Stmt st(m_db, "SELECT id, started_at, coalesce(finished_at, ''), status, device, provenance, public_seeds, secret_seed, args "
                          "FROM src.runs ORDER BY id");
            while (st.step())
                runs.push_back({st.i64(0), st.text(1), st.text(2), st.text(3), st.text(4), st.text(5), st.text(6), st.text(8), st.i64(7)});
        }
        for (const auto& r : runs)
            mergeRun(r);
        finishImports();
        mergeCodeQuality();
        return m_report;
    }

private:
    // ---- generic row copies ----------------------------------------------------------------------
    const std::vector<std::string>& columns(const std::string& schema, const std::string& table)
    {
        const auto key = schema + "." + table;
        if (auto it = m_cols.find(key); it != m_cols.end())
            return it->second;
        std::vector<std::string> cols;
        Stmt st(m_db, fmt::format("PRAGMA {}.table_info({})", schema, table));
        while (st.step())
            cols.push_back(st.text(1));
        return m_cols[key] = cols;
    }
    /// Columns both databases have, without "id" (both are at the store's schema version, so all).
    const std::vector<std::string>& common(const std::string& table)
    {
        auto it = m_common.find(table);
        if (it != m_common.end())
            return it->second;
        auto dst = columns("main", table);
        std::set<std::string> srcCols;
        for (auto& c : columns("src", table))
            srcCols.insert(c);
        std::vector<std::string> cols;
        for (auto& c : dst)
            if (c != "id" && srcCols.count(c))
                cols.push_back(c);
        return m_common[table] = cols;
    }
    using Override = std::function<std::optional<std::int64_t>(const std::string& col, const Stmt& row, int index)>;
    /// Copies the rows of src.`table` matching `where` (one `?` bound to `key`, or none) into main,
    /// ids of referenced rows replaced by `remap`; returns (old id, new id) per row.
    std::vector<std::pair<std::int64_t, std::int64_t>> copyRows(const std::string& table, const std::string& where,
                                                                std::optional<std::int64_t> key, const Override& remap,
                                                                const char* verb = "INSERT")
    {
        const auto& cols = common(table);
        const auto& srcCols = columns("src", table);
        const bool hasId = !srcCols.empty() && srcCols.front() == "id";
        std::string list = fmt::format("{}", fmt::join(cols, ", "));
        Stmt sel(m_db, fmt::format("SELECT {}{} FROM src.{} {} ORDER BY {}", hasId ? "id, " : "", list, table, where, hasId ? "id" : "rowid"));
        if (key)
            sel.bind(1, *key);
        std::string marks;
        for (std::size_t i = 0; i < cols.size(); ++i)
            marks += i ? ",?" : "?";
        Stmt ins(m_db, fmt::format("{} INTO main.{}({}) VALUES({})", verb, table, list, marks));
        std::vector<std::pair<std::int64_t, std::int64_t>> ids;
        const int off = hasId ? 1 : 0;
        while (sel.step()) {
            ins.reset();
            for (std::size_t i = 0; i < cols.size(); ++i) {
                const int c = static_cast<int>(i) + off;
                auto v = remap ? remap(cols[i], sel, c) : std::nullopt;
                if (v)
                    ins.bind(static_cast<int>(i) + 1, *v);
                else
                    ins.bindValue(static_cast<int>(i) + 1, sel.value(c));
            }
            ins.step();
            ids.emplace_back(hasId ? sel.i64(0) : 0, sqlite3_last_insert_rowid(m_db));
        }
        return ids;
    }

    void checkTables()
    {
        Stmt st(m_db, "SELECT name FROM src.sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'");
        std::vector<std::string> unknown;
        while (st.step())
            if (!kKnownTables.count(st.text(0)) && !isDerived(st.text(0)))
                unknown.push_back(st.text(0));
        for (const auto& t : unknown) {
            Stmt n(m_db, fmt::format("SELECT count(*) FROM src.\"{}\"", t));
            n.step();
            if (n.i64(0) > 0)
                throw MergeError(fmt::format("{}: table '{}' ({} rows) is unknown to kbx merge; nothing merged", m_report.source, t, n.i64(0)));
        }
    }

    // ---- methods, candidates, submissions: shared as the store does ---------------------------------
    std::int64_t mapSubmission(std::int64_t srcSub)
    {
        if (auto it = m_sub.find(srcSub); it != m_sub.end())
            return it->second;
        Stmt s(m_db, "SELECT s.candidate_id, m.name, s.round, c.task_id, c.code_hash FROM src.submissions s "
                     "JOIN src.methods m ON m.id = s.method_id JOIN src.candidates c ON c.id = s.candidate_id WHERE s.id=?");
        s.bind(1, srcSub);
        if (!s.step())
            throw MergeError(fmt::format("{}: evaluation refers to missing submission {}", m_report.source, srcSub));
        const auto srcCand = s.i64(0);
        const auto method = s.text(1);
        const auto round = s.i64(2);
        const auto task = s.text(3), hash = s.text(4);
        Stmt(m_db, "INSERT OR IGNORE INTO main.methods(name) VALUES(?)").bind(1, method).step();
        Stmt mid(m_db, "SELECT id FROM main.methods WHERE name=?");
        mid.bind(1, method).step();
        const auto methodId = mid.i64(0);
        copyRows("candidates", "WHERE id=?", srcCand, nullptr, "INSERT OR IGNORE");
        Stmt cid(m_db, "SELECT id FROM main.candidates WHERE task_id=? AND code_hash=?");
        cid.bind(1, task).bind(2, hash).step();
        const auto candId = cid.i64(0);
        copyRows("submissions", "WHERE id=?", srcSub,
                 [&](const std::string& col, const Stmt&, int) -> std::optional<std::int64_t> {
                     if (col == "candidate_id")
                         return candId;
                     if (col == "method_id")
                         return methodId;
                     return std::nullopt;
                 },
                 "INSERT OR IGNORE");
        Stmt sid(m_db, "SELECT id FROM main.submissions WHERE candidate_id=? AND method_id=? AND round=?");
        sid.bind(1, candId).bind(2, methodId).bind(3, round).step();
        return m_sub[srcSub] = sid.i64(0);
    }

    // ---- imports ----------------------------------------------------------------------------------
    void mergeImports()
    {
        Stmt st(m_db, "SELECT id, sha256, format, options FROM src.imports ORDER BY id");
        Stmt dup(m_db, "SELECT id FROM main.imports WHERE sha256=? AND format=? AND options=?");
        std::vector<std::int64_t> fresh;
        while (st.step()) {
            dup.reset().bind(1, st.text(1)).bind(2, st.text(2)).bind(3, st.text(3));
            if (dup.step()) {
                m_import[st.i64(0)] = dup.i64(0);
                m_dupImports.insert(st.i64(0));
                ++m_report.importsSkipped;
            } else {
                fresh.push_back(st.i64(0));
            }
        }
        for (auto id : fresh) {
            auto ids = copyRows("imports", "WHERE id=?", id, nullptr);
            m_import[id] = ids.at(0).second;
            ++m_report.importsAdded;
        }
    }

    void finishImports()
    {
        for (const auto& [oldImport, newImport] : m_import) {
            if (m_dupImports.count(oldImport))
                continue;
            const auto ni = newImport;
            auto remap = [&](const std::string& col, const Stmt& row, int c) -> std::optional<std::int64_t> {
                if (col == "import_id")
                    return ni;
                auto via = [&](const std::map<std::int64_t, std::int64_t>& m, const char* what) -> std::optional<std::int64_t> {
                    if (row.isNull(c))
                        return std::nullopt;
                    auto it = m.find(row.i64(c));
                    if (it == m.end())
                        throw MergeError(fmt::format("{}: import {} refers to {} {} that was not merged", m_report.source, oldImport, what, row.i64(c)));
                    return it->second;
                };
                if (col == "run_id")
                    return via(m_run, "run");
                if (col == "before_evaluation_id" || col == "after_evaluation_id")
                    return via(m_eval, "evaluation");
                return std::nullopt;
            };
            copyRows("golden_timings", "WHERE import_id=?", oldImport, remap, "INSERT OR REPLACE");
            copyRows("round_transitions", "WHERE import_id=?", oldImport, remap);
            copyRows("seed_summaries", "WHERE import_id=?", oldImport, remap);
        }
    }

    // ---- code quality (a cache of the store, schema v4) ---------------------------------------------
    bool hasTable(const std::string& schema, const std::string& table)
    {
        Stmt st(m_db, fmt::format("SELECT 1 FROM {}.sqlite_master WHERE type='table' AND name=?", schema));
        st.bind(1, table);
        return st.step();
    }
    /// The input's cached code-quality rows of submissions the target has now (found by task, code
    /// hash, method and round), unless the target has measured them itself. Not part of a run's content.
    void mergeCodeQuality()
    {
        if (!hasTable("src", "code_quality") || !hasTable("main", "code_quality"))
            return;
        std::vector<std::string> cols;
        for (const auto& c : common("code_quality"))
            if (c != "submission_id")
                cols.push_back(c);
        std::string list, qlist;
        for (const auto& c : cols) {
            list += ", " + c;
            qlist += ", q." + c;
        }
        exec(m_db, fmt::format("INSERT OR IGNORE INTO main.code_quality(submission_id{}) SELECT ms.id{} FROM src.code_quality q "
                               "JOIN src.submissions s ON s.id = q.submission_id JOIN src.candidates c ON c.id = s.candidate_id "
                               "JOIN src.methods m ON m.id = s.method_id JOIN main.methods mm ON mm.name = m.name "
                               "JOIN main.candidates mc ON mc.task_id = c.task_id AND mc.code_hash = c.code_hash "
                               "JOIN main.submissions ms ON ms.candidate_id = mc.id AND ms.method_id = mm.id AND ms.round = s.round "
                               "ORDER BY q.submission_id",
                               list, qlist));
        m_report.codeQualityAdded = sqlite3_changes(m_db);
    }

    // ---- runs ---------------------------------------------------------------------------------------
    std::string runKey(const RunRow& r)
    {
        auto args = nlohmann::json::parse(r.args, nullptr, false);
        if (args.is_object() && args.contains("shard_group") && args["shard_group"].is_string() && args.contains("shard") &&
            args["shard"].is_string())
            return fmt::format("shard:{}:{}", args["shard_group"].get<std::string>(), args["shard"].get<std::string>());
        return runMergeKey(r.startedAt, r.device, r.provenance, r.publicSeeds, r.secretSeed, r.args);
    }

    /// SHA-256 of a run and everything it holds, in `schema` (main or src); ids left out.
    std::string content(const std::string& schema, std::int64_t runId, int* evaluations = nullptr)
    {
        Digest d;
        Stmt run(m_db, fmt::format("SELECT started_at, finished_at, status, device, provenance, public_seeds, secret_seed, args "
                                   "FROM {}.runs WHERE id=?", schema));
        run.bind(1, runId);
        if (!run.step())
            throw MergeError(fmt::format("run {} missing in {}", runId, schema));
        d.addRow(run);
        Stmt ev(m_db, fmt::format("SELECT e.id, e.task_id, c.code_hash, m.name, s.round, e.verdict, e.call_ok, e.exe_ok, e.failure_class, "
                                  "e.failure_detail, e.evidence, e.stage_seconds, e.taxonomy_version, e.started_at, e.finished_at "
                                  "FROM {0}.evaluations e JOIN {0}.submissions s ON s.id = e.submission_id "
                                  "JOIN {0}.candidates c ON c.id = s.candidate_id JOIN {0}.methods m ON m.id = s.method_id "
                                  "WHERE e.run_id=? ORDER BY e.id", schema));
        Stmt cs(m_db, fmt::format("SELECT idx, name, status, failure_class, evidence FROM {}.case_results WHERE evaluation_id=? ORDER BY id", schema));
        Stmt tm(m_db, fmt::format("SELECT shape, candidate_ms, baseline_ms, samples FROM {}.timings WHERE evaluation_id=? ORDER BY id", schema));
        Stmt lb(m_db, fmt::format("SELECT failure_class, note, author, labelled_at FROM {}.manual_labels WHERE evaluation_id=?", schema));
        int n = 0;
        ev.bind(1, runId);
        while (ev.step()) {
            if (m_excluded.count(ev.text(3)))
                continue;
            ++n;
            d.add("evaluation");
            d.addRow(ev, 1);
            const auto id = ev.i64(0);
            cs.reset().bind(1, id);
            while (cs.step()) {
                d.add("case");
                d.addRow(cs);
            }
            tm.reset().bind(1, id);
            while (tm.step()) {
                d.add("timing");
                d.addRow(tm);
            }
            lb.reset().bind(1, id);
            while (lb.step()) {
                d.add("label");
                d.addRow(lb);
            }
        }
        if (evaluations)
            *evaluations = n;
        return d.hex();
    }

    struct LedgerRow {
        std::string content;
        std::int64_t runId = 0;
        std::string status;
        std::string startedAt;
    };
    std::optional<LedgerRow> ledger(const std::string& key)
    {
        Stmt st(m_db, "SELECT l.content_sha256, l.run_id, r.status, r.started_at FROM main.merge_ledger l "
                      "JOIN main.runs r ON r.id = l.run_id WHERE l.run_key=?");
        st.bind(1, key);
        if (!st.step())
            return std::nullopt;
        return LedgerRow{st.text(0), st.i64(1), st.text(2), st.text(3)};
    }
    void writeLedger(const std::string& key, const std::string& contentHash, std::int64_t runId, const std::string& status, int evaluations)
    {
        Stmt(m_db, "INSERT INTO main.merge_ledger(run_key, content_sha256, run_id, status, evaluations, source, merged_at) "
                   "VALUES(?,?,?,?,?,?,?) ON CONFLICT(run_key) DO UPDATE SET content_sha256=excluded.content_sha256, "
                   "run_id=excluded.run_id, status=excluded.status, evaluations=excluded.evaluations, source=excluded.source, "
                   "merged_at=excluded.merged_at")
            .bind(1, key).bind(2, contentHash).bind(3, runId).bind(4, status).bind(5, std::int64_t(evaluations))
            .bind(6, m_report.source).bind(7, nowIso8601()).step();
    }

    /// A run of the target that is this run without a ledger row (the target began as a copy of a source).
    std::optional<std::int64_t> sameRunInTarget(const RunRow& r, const std::string& key)
    {
        Stmt st(m_db, "SELECT id, args FROM main.runs WHERE started_at=? AND device=? AND public_seeds=? AND secret_seed=? "
                      "AND id NOT IN (SELECT run_id FROM main.merge_ledger) ORDER BY id");
        st.bind(1, r.startedAt).bind(2, r.device).bind(3, r.publicSeeds).bind(4, r.secretSeed);
        while (st.step()) {
            RunRow t = r;
            t.args = st.text(1);
            if (st.text(1) == r.args || runKey(t) == key)
                return st.i64(0);
        }
        return std::nullopt;
    }

    void deleteRun(std::int64_t runId)
    {
        Stmt refs(m_db, "SELECT count(*) FROM main.round_transitions WHERE run_id=?1 OR before_evaluation_id IN "
                        "(SELECT id FROM main.evaluations WHERE run_id=?1) OR after_evaluation_id IN (SELECT id FROM main.evaluations WHERE run_id=?1)");
        refs.bind(1, runId).step();
        if (refs.i64(0) > 0)
            throw MergeError(fmt::format("{}: run {} of the target would be replaced, but round transitions refer to it; nothing merged",
                                         m_report.source, runId));
        Stmt n(m_db, "SELECT count(*) FROM main.evaluations WHERE run_id=?");
        n.bind(1, runId).step();
        m_report.evaluationsRemoved += static_cast<int>(n.i64(0));
        for (const char* t : {"case_results", "timings", "manual_labels"})
            Stmt(m_db, fmt::format("DELETE FROM main.{} WHERE evaluation_id IN (SELECT id FROM main.evaluations WHERE run_id=?)", t))
                .bind(1, runId).step();
        Stmt(m_db, "DELETE FROM main.evaluations WHERE run_id=?").bind(1, runId).step();
        Stmt(m_db, "DELETE FROM main.merge_ledger WHERE run_id=?").bind(1, runId).step();
        Stmt(m_db, "DELETE FROM main.runs WHERE id=?").bind(1, runId).step();
    }

    std::int64_t insertRun(const RunRow& r)
    {
        // An imported run names its import in the provenance: point it at the target's import row.
        std::optional<std::string> provenance;
        auto prov = nlohmann::json::parse(r.provenance, nullptr, false);
        if (prov.is_object() && prov.contains("import_id") && prov["import_id"].is_number_integer()) {
            if (auto it = m_import.find(prov["import_id"].get<std::int64_t>()); it != m_import.end()) {
                prov["import_id"] = it->second;
                provenance = prov.dump();
            }
        }
        auto ids = copyRows("runs", "WHERE id=?", r.id, nullptr);
        const auto newRun = ids.at(0).second;
        if (provenance)
            Stmt(m_db, "UPDATE main.runs SET provenance=? WHERE id=?").bind(1, *provenance).bind(2, newRun).step();
        m_run[r.id] = newRun;
        std::vector<std::int64_t> srcEvals;
        {
            Stmt ev(m_db, "SELECT e.id, m.name FROM src.evaluations e JOIN src.submissions s ON s.id = e.submission_id "
                          "JOIN src.methods m ON m.id = s.method_id WHERE e.run_id=? ORDER BY e.id");
            ev.bind(1, r.id);
            while (ev.step()) {
                if (m_excluded.count(ev.text(1)))
                    ++m_report.evaluationsExcluded;
                else
                    srcEvals.push_back(ev.i64(0));
            }
        }
        for (auto e : srcEvals) {
            auto ins = copyRows("evaluations", "WHERE id=?", e, [&](const std::string& col, const Stmt& row, int c) -> std::optional<std::int64_t> {
                if (col == "run_id")
                    return newRun;
                if (col == "submission_id")
                    return mapSubmission(row.i64(c));
                return std::nullopt;
            });
            const auto newEval = ins.at(0).second;
            m_eval[e] = newEval;
            auto toEval = [&](const std::string& col, const Stmt&, int) -> std::optional<std::int64_t> {
                return col == "evaluation_id" ? std::optional<std::int64_t>(newEval) : std::nullopt;
            };
            copyRows("case_results", "WHERE evaluation_id=?", e, toEval);
            copyRows("timings", "WHERE evaluation_id=?", e, toEval);
            copyRows("manual_labels", "WHERE evaluation_id=?", e, toEval, "INSERT OR REPLACE");
            ++m_report.evaluationsAdded;
        }
        return newRun;
    }

    void mergeRun(const RunRow& r)
    {
        // Runs of an import the target already has are in the target through that import.
        if (r.device == "imported") {
            auto prov = nlohmann::json::parse(r.provenance, nullptr, false);
            if (prov.is_object() && prov.contains("import_id") && prov["import_id"].is_number_integer() &&
                m_dupImports.count(prov["import_id"].get<std::int64_t>())) {
                ++m_report.runsUnchanged;
                return;
            }
        }
        const auto key = runKey(r);
        int evaluations = 0;
        const auto mine = content("src", r.id, &evaluations);
        auto have = ledger(key);
        if (!have) {
            if (auto same = sameRunInTarget(r, key)) {
                int n = 0;
                const auto theirs = content("main", *same, &n);
                Stmt st(m_db, "SELECT status FROM main.runs WHERE id=?");
                st.bind(1, *same).step();
                writeLedger(key, theirs, *same, st.text(0), n);
                have = ledger(key);
            }
        }
        if (!have) {
            const auto id = insertRun(r);
            writeLedger(key, mine, id, r.status, evaluations);
            ++m_report.runsAdded;
            return;
        }
        if (have->content == mine) {
            m_run[r.id] = have->runId;
            ++m_report.runsUnchanged;
            return;
        }
        const bool newComplete = complete(r.status), oldComplete = complete(have->status);
        const bool replace = newComplete != oldComplete ? newComplete : r.startedAt >= have->startedAt;
        const auto what = key.starts_with("shard:") ? fmt::format("shard {}", key.substr(key.rfind(':') + 1)) : fmt::format("run started {}", r.startedAt);
        if (!replace) {
            m_run[r.id] = have->runId;
            ++m_report.runsKept;
            m_report.notes.push_back(fmt::format("{} ({}, started {}): kept the target's copy (run {}, {}, started {})", what, r.status,
                                                 r.startedAt, have->runId, have->status, have->startedAt));
            return;
        }
        deleteRun(have->runId);
        const auto id = insertRun(r);
        writeLedger(key, mine, id, r.status, evaluations);
        ++m_report.runsReplaced;
        m_report.notes.push_back(fmt::format("{}: replaced the target's copy (run {}, {}, started {}) with this one ({}, started {}, run {})",
                                             what, have->runId, have->status, have->startedAt, r.status, r.startedAt, id));
    }

    sqlite3* m_db;
    std::set<std::string> m_excluded;  ///< methods whose evaluations are not copied nor digested
    MergeReport m_report;
    std::map<std::string, std::vector<std::string>> m_common, m_cols;
    std::map<std::int64_t, std::int64_t> m_sub, m_run, m_eval, m_import;
    std::set<std::int64_t> m_dupImports;
};

}  // namespace

MergeReport merge_detail::mergeRows(sqlite3* db, const std::string& sourceName, const MergeOptions& options)
{
    return Merger(db, sourceName, options.excludeMethods).run();
}

}  // namespace kbx
