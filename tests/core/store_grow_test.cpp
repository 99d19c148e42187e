// SPDX-License-Identifier: MIT
// kbx::growCopy (core/store_grow.h), the scale bench's grown databases: on a small database written
// through the store, a copy grows by whole copies of the source's rows with the ids, rounds, GPUs and
// code hashes the header promises; the source is never written; the copy has no derived tables until
// kbx opens it, and then counts every copy once (the counting rule per submission and device); bad
// input is refused and leaves no file.
#include "store.h"
#include "store_derived.h"
#include "store_grow.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path tempPath(const std::string& name)
{
    return fs::temp_directory_path() / ("kbx-grow-" + name + "-" + std::to_string(getpid()) + ".sqlite");
}

/// Removes a database and the -wal/-shm a read-only connection leaves beside a WAL database it
/// could not checkpoint (the grown copy's source is only read).
void removeDb(const fs::path& p)
{
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        fs::remove(p.string() + suffix);
}

struct Source {
    fs::path path;
    int evaluations = 0;
    int timings = 0;
};

/// Two runs (cpu, an H200), three submissions in rounds 0 and 1, six evaluations, four timings.
Source makeSource(const std::string& name)
{
    Source s{tempPath(name)};
    removeDb(s.path);
    kbx::Store store(s.path);
    const auto method = store.ensureMethod("zero-shot");
    std::vector<std::int64_t> subs;
    for (int i = 0; i < 3; ++i) {
        const auto cand = store.ensureCandidate("Math/add", "code " + std::to_string(i)).first;
        subs.push_back(store.ensureSubmission(cand, method, i % 2, "test"));
    }
    const json h200 = {{"devices", {{{"name", "NVIDIA H200"}}}}};
    for (const auto& [device, prov] : std::vector<std::pair<std::string, json>>{{"cpu", json::object()}, {"cuda", h200}}) {
        const auto run = store.beginRun(device, prov, {0}, 7, {{"source", "test"}});
        for (const auto sub : subs) {
            kbx::EvaluationRecord r;
            r.runId = run;
            r.submissionId = sub;
            r.taskId = "Math/add";
            r.pass = r.callOk = r.exeOk = true;
            r.startedAt = r.finishedAt = "2026-12-05T00:00:00Z";
            const auto id = store.addEvaluation(r);
            ++s.evaluations;
            if (device == "cuda" && sub != subs.back()) {
                store.addPerf(id, {{"a", 1.0, 2.0, json::object()}, {"b", 2.0, 2.0, json::object()}}, {{"protocol", "kbx-perf v2"}});
                s.timings += 2;
            }
        }
        store.finishRun(run, "finished", prov);
    }
    return s;
}

std::int64_t count(kbx::Store& store, const std::string& sql)
{
    return store.query(sql).front()["n"].get<std::int64_t>();
}

std::string fileBytes(const fs::path& p)
{
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

}  // namespace

TEST(GrowCopy, RoundsCopiesEverySubmissionAsLaterRoundsAndLeavesTheSourceAlone)
{
    const auto src = makeSource("rounds-src");
    const auto out = tempPath("rounds-out");
    const auto before = fileBytes(src.path);
    const auto g = kbx::growCopy(src.path.string(), out.string(), 3 * src.evaluations, kbx::GrowShape::Rounds);
    EXPECT_EQ(before, fileBytes(src.path));
    EXPECT_EQ(g.copies, 2);
    EXPECT_EQ(g.evaluations, 3 * src.evaluations);
    EXPECT_EQ(g.timings, 3 * src.timings);
    {
        kbx::Store grown(out, kbx::OpenMode::ReadOnly);
        EXPECT_FALSE(kbx::derived::current(grown)) << "the copy's derived tables are left to kbx's first writable open";
        std::set<std::int64_t> rounds;
        for (const auto& r : grown.query("SELECT DISTINCT round FROM submissions ORDER BY round"))
            rounds.insert(r["round"].get<std::int64_t>());
        EXPECT_EQ(rounds, (std::set<std::int64_t>{0, 1, 1000, 1001, 2000, 2001}));
        // Copy k of evaluation e is e + k * max(id), on copy k of its submission.
        EXPECT_EQ(count(grown, "SELECT count(*) AS n FROM evaluations e JOIN evaluations o ON e.id = o.id + 2 * 6 "
                               "AND e.submission_id = o.submission_id + 2 * 3 AND e.run_id = o.run_id WHERE o.id <= 6"),
                  6);
        EXPECT_EQ(count(grown, "SELECT count(*) AS n FROM runs"), 2);
        EXPECT_EQ(count(grown, "SELECT count(*) AS n FROM candidates"), 3);
    }
    {
        kbx::Store grown(out);  // the first writable open builds the derived tables
        EXPECT_TRUE(kbx::derived::current(grown));
        EXPECT_EQ(count(grown, "SELECT count(*) AS n FROM counted_evaluations"), 2 * 3 * 3) << "every copy's submission, per device";
    }
    removeDb(src.path);
    removeDb(out);
}

TEST(GrowCopy, SamplesSpreadCudaRunsOverGpusRoundsAndSamples)
{
    const auto src = makeSource("samples-src");
    const auto out = tempPath("samples-out");
    const std::vector<std::string> gpus = {"GPU A", "GPU B"};
    // 2 GPUs x 2 rounds x 2 samples: 8 copies in all, 7 appended.
    const auto g = kbx::growCopy(src.path.string(), out.string(), 8 * src.evaluations - 1, kbx::GrowShape::Samples, gpus, 2);
    EXPECT_EQ(g.copies, 7);
    EXPECT_EQ(g.evaluations, 8 * src.evaluations);
    EXPECT_EQ(g.timings, 8 * src.timings);
    kbx::Store grown(out);
    EXPECT_EQ(count(grown, "SELECT count(*) AS n FROM runs"), 4);
    std::multiset<std::string> names;
    for (const auto& r : grown.query("SELECT device, json_extract(provenance, '$.devices[0].name') AS gpu FROM runs ORDER BY id"))
        names.insert(r["device"].get<std::string>() + ":" + (r["gpu"].is_null() ? std::string("-") : r["gpu"].get<std::string>()));
    // The source's own cuda run keeps its GPU (copy g = 0); the copy for g = 1 is renamed; CPU runs stay CPU runs.
    EXPECT_EQ(names, (std::multiset<std::string>{"cpu:-", "cpu:-", "cuda:NVIDIA H200", "cuda:GPU B"}));
    EXPECT_EQ(count(grown, "SELECT count(*) AS n FROM candidates"), 6);
    EXPECT_EQ(count(grown, "SELECT count(*) AS n FROM candidates WHERE code_hash LIKE '%:1'"), 3);
    std::set<std::int64_t> rounds;
    for (const auto& r : grown.query("SELECT DISTINCT round FROM submissions"))
        rounds.insert(r["round"].get<std::int64_t>());
    EXPECT_EQ(rounds, (std::set<std::int64_t>{0, 1, 2, 3})) << "source round b becomes b * rounds + r";
    EXPECT_EQ(count(grown, "SELECT count(*) AS n FROM submissions"), 3 * 2 * 2);
    // Every device sees every submission once: 12 submissions x (cpu + two GPUs).
    EXPECT_EQ(count(grown, "SELECT count(*) AS n FROM counted_evaluations"), 12 * 3);
    removeDb(src.path);
    removeDb(out);
}

TEST(GrowCopy, BadInputIsRefusedAndLeavesNoCopy)
{
    const auto out = tempPath("bad-out");
    const auto notDb = tempPath("bad-src");
    std::ofstream(notDb) << "not a database\n";
    EXPECT_THROW(kbx::growCopy(notDb.string(), out.string(), 10, kbx::GrowShape::Rounds), kbx::StoreError);
    EXPECT_FALSE(fs::exists(out));
    EXPECT_THROW(kbx::growCopy("/nonexistent/kbx.sqlite", out.string(), 10, kbx::GrowShape::Rounds), kbx::StoreError);
    EXPECT_FALSE(fs::exists(out));

    const auto empty = tempPath("bad-empty");
    removeDb(empty);
    { kbx::Store s(empty); }
    EXPECT_THROW(kbx::growCopy(empty.string(), out.string(), 10, kbx::GrowShape::Rounds), kbx::StoreError);
    EXPECT_FALSE(fs::exists(out)) << "a source without evaluations leaves no half-made copy";

    const auto src = makeSource("bad-good");
    EXPECT_THROW(kbx::growCopy(src.path.string(), src.path.string(), 10, kbx::GrowShape::Rounds), kbx::StoreError);
    EXPECT_THROW(kbx::growCopy(src.path.string(), out.string(), 0, kbx::GrowShape::Rounds), std::invalid_argument);
    EXPECT_THROW(kbx::growCopy(src.path.string(), out.string(), 10, kbx::GrowShape::Samples, {}), std::invalid_argument);
    EXPECT_FALSE(fs::exists(out));
    for (const auto& p : {notDb, empty, src.path})
        removeDb(p);
}
