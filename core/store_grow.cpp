// SPDX-License-Identifier: MIT
// kbx::growCopy: a copy of a results database grown by copies of its own rows (core/store_grow.h).
#include "store_grow.h"

#include "store.h"
#include "store_derived.h"
#include "store_sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>

namespace kbx {

using store_detail::Stmt;

namespace {

void exec(sqlite3* db, const std::string& sql)
{
    sql::exec<StoreError>(db, sql);
}

std::int64_t scalar(sqlite3* db, const std::string& sql)
{
    Stmt s(db, sql);
    return s.step() && !s.isNull(0) ? s.i64(0) : 0;
}

std::vector<std::string> columns(sqlite3* db, const std::string& table)
{
    Stmt s(db, "PRAGMA table_info(" + table + ")");
    std::vector<std::string> out;
    while (s.step())
        out.push_back(s.text(1));
    return out;
}

/// `WITH RECURSIVE name(v)`'s series first..last.
std::string series(const std::string& name, std::int64_t first, std::int64_t last)
{
    return fmt::format("{0}(v) AS (SELECT {1} UNION ALL SELECT v + 1 FROM {0} WHERE v < {2})", name, first, last);
}

/// The select list copying `cols` of the row aliased `alias`, with the expressions of `shifted` in
/// place of those columns.
std::string selectList(const std::vector<std::string>& cols, const std::string& alias, const std::map<std::string, std::string>& shifted)
{
    std::string out;
    for (const auto& c : cols) {
        const auto it = shifted.find(c);
        out += (out.empty() ? "" : ", ") + (it != shifted.end() ? it->second : alias + "." + c);
    }
    return out;
}

std::string joined(const std::vector<std::string>& cols)
{
    std::string out;
    for (const auto& c : cols)
        out += (out.empty() ? "" : ",") + c;
    return out;
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

/// Appends copies k = 1..K of the submissions (round + 1000 k), evaluations and timings.
std::int64_t growRounds(sqlite3* db, std::int64_t n, std::int64_t base)
{
    const std::int64_t kMax = std::max<std::int64_t>(1, ceilDiv(n, base) - 1);
    const auto ecols = columns(db, "evaluations");
    const auto maxSub = scalar(db, "SELECT max(id) FROM submissions");
    const auto maxEv = scalar(db, "SELECT max(id) FROM evaluations");
    const auto maxT = scalar(db, "SELECT max(id) FROM timings");
    const auto ks = "WITH RECURSIVE " + series("ks", 1, kMax) + " ";
    exec(db, ks + fmt::format("INSERT INTO submissions(id, candidate_id, method_id, round, origin) "
                              "SELECT s.id + ks.v * {0}, s.candidate_id, s.method_id, s.round + 1000 * ks.v, s.origin "
                              "FROM ks, submissions s WHERE s.id <= {0} ORDER BY ks.v, s.id",
                              maxSub));
    const auto sel = selectList(ecols, "e", {{"id", fmt::format("e.id + ks.v * {}", maxEv)},
                                             {"submission_id", fmt::format("e.submission_id + ks.v * {}", maxSub)}});
    exec(db, ks + fmt::format("INSERT INTO evaluations({}) SELECT {} FROM ks, evaluations e WHERE e.id <= {} ORDER BY ks.v, e.id",
                              joined(ecols), sel, maxEv));
    exec(db, ks + fmt::format("INSERT INTO timings(id, evaluation_id, shape, candidate_ms, baseline_ms, samples) "
                              "SELECT t.id + ks.v * {0}, t.evaluation_id + ks.v * {1}, t.shape, t.candidate_ms, t.baseline_ms, t.samples "
                              "FROM ks, timings t WHERE t.id <= {0} ORDER BY ks.v, t.id",
                              maxT, maxEv));
    return kMax;
}

/// Copies k = (s * rounds + r) * G + g for every (GPU g, round r, sample s) but (0, 0, 0).
std::int64_t growSamples(sqlite3* db, std::int64_t n, std::int64_t base, const std::vector<std::string>& gpus, int rounds)
{
    const auto G = static_cast<std::int64_t>(gpus.size());
    const std::int64_t S = std::max<std::int64_t>(1, ceilDiv(n, base * G * rounds));
    // The source's round b becomes b * rounds (r = 0), its copies' b * rounds + r.
    if (scalar(db, "SELECT max(round) FROM submissions") != 0)
        exec(db, fmt::format("UPDATE submissions SET round = round * {}", rounds));
    const auto ecols = columns(db, "evaluations");
    const auto rcols = columns(db, "runs");
    std::map<std::string, std::int64_t> m;
    for (const char* t : {"runs", "candidates", "submissions", "evaluations", "timings"})
        m[t] = scalar(db, fmt::format("SELECT max(id) FROM {}", t));
    std::string gpuCase = "CASE gs.v";
    for (std::size_t i = 0; i < gpus.size(); ++i)
        gpuCase += fmt::format(" WHEN {} THEN {}", i, sqlQuote(gpus[i]));
    gpuCase += " END";
    if (G > 1) {
        const auto rsel = selectList(
            rcols, "r",
            {{"id", fmt::format("r.id + gs.v * {}", m["runs"])},
             {"provenance",
              fmt::format("CASE WHEN r.device = 'cuda' THEN json_set(r.provenance, '$.devices[0].name', {}) ELSE r.provenance END", gpuCase)}});
        exec(db, fmt::format("WITH RECURSIVE {} INSERT INTO runs({}) SELECT {} FROM gs, runs r WHERE r.id <= {} ORDER BY gs.v, r.id",
                             series("gs", 1, G - 1), joined(rcols), rsel, m["runs"]));
    }
    if (S > 1)
        exec(db, fmt::format("WITH RECURSIVE {0} INSERT INTO candidates(id, task_id, code_hash, code, created_at) "
                             "SELECT c.id + ss.v * {1}, c.task_id, c.code_hash || ':' || ss.v, c.code, c.created_at "
                             "FROM ss, candidates c WHERE c.id <= {1} ORDER BY ss.v, c.id",
                             series("ss", 1, S - 1), m["candidates"]));
    // x = s * rounds + r over every (sample, round) but (0, 0)
    if (S * rounds > 1)
        exec(db, fmt::format("WITH RECURSIVE {0} INSERT INTO submissions(id, candidate_id, method_id, round, origin) "
                             "SELECT s.id + xs.v * {1}, s.candidate_id + (xs.v / {2}) * {3}, s.method_id, s.round + xs.v % {2}, "
                             "s.origin FROM xs, submissions s WHERE s.id <= {1} ORDER BY xs.v, s.id",
                             series("xs", 1, S * rounds - 1), m["submissions"], rounds, m["candidates"]));
    // k = x * G + g over every copy but (0, 0, 0)
    const std::int64_t copies = S * rounds * G - 1;
    if (copies < 1)
        return 0;
    const auto ks = "WITH RECURSIVE " + series("ks", 1, copies) + " ";
    const auto sel = selectList(ecols, "e", {{"id", fmt::format("e.id + ks.v * {}", m["evaluations"])},
                                             {"submission_id", fmt::format("e.submission_id + (ks.v / {}) * {}", G, m["submissions"])},
                                             {"run_id", fmt::format("e.run_id + (ks.v % {}) * {}", G, m["runs"])}});
    exec(db, ks + fmt::format("INSERT INTO evaluations({}) SELECT {} FROM ks, evaluations e WHERE e.id <= {} ORDER BY ks.v, e.id",
                              joined(ecols), sel, m["evaluations"]));
    exec(db, ks + fmt::format("INSERT INTO timings(id, evaluation_id, shape, candidate_ms, baseline_ms, samples) "
                              "SELECT t.id + ks.v * {0}, t.evaluation_id + ks.v * {1}, t.shape, t.candidate_ms, t.baseline_ms, t.samples "
                              "FROM ks, timings t WHERE t.id <= {0} ORDER BY ks.v, t.id",
                              m["timings"], m["evaluations"]));
    return copies;
}

struct Closer {
    void operator()(sqlite3* db) const { sqlite3_close(db); }
};

}  // namespace

const std::vector<std::string>& defaultGrowGpus()
{
    static const std::vector<std::string> gpus = {"NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA L40S",
                                                  "NVIDIA GeForce RTX 4090"};
    return gpus;
}

GrowSummary growCopy(const std::string& source, const std::string& target, std::int64_t evaluations, GrowShape shape,
                     const std::vector<std::string>& gpus, int rounds)
{
    if (evaluations < 1 || rounds < 1 || gpus.empty())
        throw std::invalid_argument(fmt::format("growCopy: evaluations ({}) and rounds ({}) must be at least 1 and the GPU list not empty",
                                                evaluations, rounds));
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::equivalent(source, target, ec))
        throw StoreError(fmt::format("{}: the copy would replace its source", target));
    if (!fs::is_regular_file(source, ec))
        throw StoreError(fmt::format("{}: no such database file", source));
    {
        const Store check(source, OpenMode::ReadOnly);  // a kbx database of this schema, or StoreError with the reason
        (void)check;
    }
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        fs::remove(target + suffix, ec);
    try {
        // SQLite's backup, not a file copy: what a writer still holds in the source's WAL is copied too.
        sqlite3* rawSource = nullptr;
        const int rcs = sqlite3_open_v2(source.c_str(), &rawSource, SQLITE_OPEN_READONLY, nullptr);
        const std::unique_ptr<sqlite3, Closer> from(rawSource);
        sqlite3* raw = nullptr;
        const int rc = sqlite3_open_v2(target.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
        const std::unique_ptr<sqlite3, Closer> db(raw);
        if (rcs != SQLITE_OK || rc != SQLITE_OK)
            throw StoreError(fmt::format("{}: {}", rcs != SQLITE_OK ? source : target, sqlite3_errmsg(rcs != SQLITE_OK ? rawSource : raw)));
        sqlite3_backup* backup = sqlite3_backup_init(db.get(), "main", from.get(), "main");
        if (!backup)
            throw StoreError(fmt::format("{}: cannot copy {}: {}", target, source, sqlite3_errmsg(db.get())));
        const int step = sqlite3_backup_step(backup, -1);
        sqlite3_backup_finish(backup);
        if (step != SQLITE_DONE)
            throw StoreError(fmt::format("{}: cannot copy {}: {}", target, source, sqlite3_errstr(step)));
        exec(db.get(), "PRAGMA journal_mode=DELETE");  // one file, whatever the source's journal mode
        exec(db.get(), "PRAGMA journal_mode=OFF");
        exec(db.get(), "PRAGMA synchronous=OFF");
        derived::drop(db.get());  // before the inserts: no trigger fires while the copy grows
        const auto base = scalar(db.get(), "SELECT count(*) FROM evaluations");
        if (base == 0)
            throw StoreError(fmt::format("{}: no evaluations to grow from", source));
        GrowSummary out;
        out.copies = shape == GrowShape::Rounds ? growRounds(db.get(), evaluations, base)
                                                : growSamples(db.get(), evaluations, base, gpus, rounds);
        out.evaluations = scalar(db.get(), "SELECT count(*) FROM evaluations");
        out.timings = scalar(db.get(), "SELECT count(*) FROM timings");
        return out;
    } catch (...) {
        fs::remove(target, ec);
        throw;
    }
}

}  // namespace kbx
