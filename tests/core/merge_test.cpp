// SPDX-License-Identifier: MIT
// kbx merge (core/store_merge.h): shard databases folded into one, idempotently; re-run shards replace
// partial copies; the merge of shards equals one local run of the same submissions. Inputs are only
// read: one opened read-only, one this user cannot write (as nobody when the test runs as root), one of
// an older schema (merged from a migrated temporary copy) keep their bytes.
#include "file_snapshot.h"
#include "seed_import.h"
#include "source.h"
#include "store.h"
#include "store_merge.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Cand {
    Cand(std::string t, std::string c, std::string m = "m", bool p = true, std::string k = {})
        : task(std::move(t)), code(std::move(c)), method(std::move(m)), pass(p), cls(std::move(k)) {}
    std::string task;
    std::string code;
    std::string method;
    bool pass;
    std::string cls;  ///< failure class when !pass
};

/// The verdicts of a few submissions, as a run of kbx eval would store them.
std::vector<Cand> allCandidates()
{
    return {{"Activation/relu", "relu v1"},
            {"Activation/relu", "relu v2", "m", false, "value_mismatch"},
            {"Math/sqrt", "sqrt v1"},
            {"Math/sqrt", "sqrt v1", "other"},  // the same code under another method
            {"Reduce/sum", "sum v1", "m", false, "runtime_error"},
            {"Reduce/sum", "sum v2"}};
}

using kbx_test::Snapshot;
using kbx_test::snapshot;
using kbx_test::userVersion;

bool exists(const fs::path& p)
{
    std::error_code ec;
    return fs::exists(p, ec);
}

/// Brings a closed kbx database back to schema version 3 (before the code-quality cache of v4).
void downgradeToV3(const fs::path& p)
{
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, "DROP TABLE code_quality; PRAGMA user_version=3", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
}

/// The kbx-merge-* temporary directories in `dir`.
int mergeTempDirs(const fs::path& dir)
{
    int n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        n += e.path().filename().string().rfind("kbx-merge-", 0) == 0;
    return n;
}

/// For a scope, TMPDIR is `dir` (where an older input's migrated copy goes).
class TmpDirEnv {
public:
    explicit TmpDirEnv(const fs::path& dir)
    {
        if (const char* old = std::getenv("TMPDIR"))
            m_old = old;
        ::setenv("TMPDIR", dir.c_str(), 1);
    }
    ~TmpDirEnv()
    {
        if (m_old)
            ::setenv("TMPDIR", m_old->c_str(), 1);
        else
            ::unsetenv("TMPDIR");
    }

private:
    std::optional<std::string> m_old;
};

/// For a scope, this process's real and effective uid/gid become nobody's (65534) when it runs as
/// root, so that file permissions apply (access() checks the real ids); the saved ids stay root's, so
/// the destructor switches back. Not root: nothing changes. (As tests/core/store_readonly_test.cpp.)
class Unprivileged {
public:
    Unprivileged()
    {
        if (::geteuid() != 0)
            return;
        m_switched = ::setresgid(65534, 65534, 0) == 0 && ::setresuid(65534, 65534, 0) == 0;
    }
    ~Unprivileged()
    {
        if (m_switched) {
            [[maybe_unused]] const int a = ::setresuid(0, 0, 0);
            [[maybe_unused]] const int b = ::setresgid(0, 0, 0);
        }
    }
    bool ok() const { return ::geteuid() != 0; }

private:
    bool m_switched = false;
};

class MergeTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        static std::atomic<int> counter{0};
        m_dir = fs::temp_directory_path() /
                ("kbx-merge-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    fs::path path(const std::string& name) const { return m_dir / name; }

    /// One run holding `cands`; `shard` ("I/N") tags it as kbx eval --shard does.
    static std::int64_t writeRun(kbx::Store& st, const std::vector<Cand>& cands, const std::string& shard = {},
                                 const std::string& status = "finished", std::int64_t secret = 99)
    {
        json args = {{"source", "/subs.jsonl"}, {"method", "m"}, {"device", "cpu"}};
        if (!shard.empty()) {
            args["shard"] = shard;
            args["shard_group"] = "group-abc";
        }
        const auto run = st.beginRun("cpu", {{"host", "h"}, {"slurm", {{"node", "n" + shard}}}}, {0, 1}, secret, args);
        for (const auto& c : cands) {
            const auto methodId = st.ensureMethod(c.method);
            const auto [candId, fresh] = st.ensureCandidate(c.task, c.code);
            (void)fresh;
            kbx::EvaluationRecord r;
            r.runId = run;
            r.submissionId = st.ensureSubmission(candId, methodId, 0, "subs.jsonl");
            r.taskId = c.task;
            r.pass = c.pass;
            r.callOk = c.pass || c.cls != "runtime_error";
            r.exeOk = c.pass;
            if (!c.pass)
                r.failureClass = c.cls;
            r.failureDetail = c.pass ? "" : "detail of " + c.code;
            r.evidence = {{"code", c.code}};
            r.startedAt = r.finishedAt = "2026-12-01T00:00:00Z";
            r.cases = {{0, "case0", c.pass ? "pass" : "fail", r.failureClass, json::object()},
                       {1, "case1", "pass", std::nullopt, json::object()}};
            st.addEvaluation(r);
        }
        if (status != "running")
            st.finishRun(run, status, {{"host", "h"}});
        return run;
    }

    /// Verdict and class per (task, code hash, method): what must agree between a merge and a local run.
    static std::map<std::string, std::string> verdicts(kbx::Store& st)
    {
        std::map<std::string, std::string> out;
        for (const auto& r : st.query("SELECT e.task_id, c.code_hash, m.name AS method, e.verdict, coalesce(e.failure_class, '') AS cls "
                                      "FROM evaluations e JOIN submissions s ON s.id = e.submission_id "
                                      "JOIN candidates c ON c.id = s.candidate_id JOIN methods m ON m.id = s.method_id")) {
            const auto key = r["task_id"].get<std::string>() + "|" + r["code_hash"].get<std::string>() + "|" + r["method"].get<std::string>();
            EXPECT_FALSE(out.count(key)) << "evaluated twice: " << key;
            out[key] = r["verdict"].get<std::string>() + "/" + r["cls"].get<std::string>();
        }
        return out;
    }

    static std::map<std::string, std::int64_t> counts(const fs::path& db)
    {
        kbx::Store st(db);
        std::map<std::string, std::int64_t> out;
        for (const char* t : {"methods", "candidates", "submissions", "runs", "evaluations", "case_results", "timings", "manual_labels",
                              "imports", "golden_timings", "round_transitions", "seed_summaries", "merge_ledger"})
            out[t] = st.query(std::string("SELECT count(*) AS n FROM ") + t)[0]["n"].get<std::int64_t>();
        return out;
    }

    /// Three shards of allCandidates(): 0-1, 2-3, 4-5.
    void writeShards()
    {
        auto all = allCandidates();
        for (int i = 0; i < 3; ++i) {
            kbx::Store st(path("shard-" + std::to_string(i) + ".sqlite"));
            writeRun(st, {all[2 * i], all[2 * i + 1]}, std::to_string(i) + "/3");
        }
    }

    fs::path m_dir;
};

}  // namespace

TEST_F(MergeTest, ShardsEqualLocalRunAndMergingTwiceChangesNothing)
{
    writeShards();
    {
        kbx::Store local(path("local.sqlite"));
        writeRun(local, allCandidates());
    }
    const auto out = path("out.sqlite");
    for (int i = 0; i < 3; ++i) {
        auto rep = kbx::mergeDatabase(out, path("shard-" + std::to_string(i) + ".sqlite"));
        EXPECT_EQ(rep.runsAdded, 1);
        EXPECT_EQ(rep.evaluationsAdded, 2);
        EXPECT_TRUE(rep.changed());
    }
    const auto once = counts(out);
    EXPECT_EQ(once.at("runs"), 3);
    EXPECT_EQ(once.at("evaluations"), 6);
    EXPECT_EQ(once.at("case_results"), 12);
    EXPECT_EQ(once.at("candidates"), 5);   // "sqrt v1" once for both methods
    EXPECT_EQ(once.at("submissions"), 6);
    EXPECT_EQ(once.at("methods"), 2);
    EXPECT_EQ(once.at("merge_ledger"), 3);
    for (int i = 0; i < 3; ++i) {
        auto rep = kbx::mergeDatabase(out, path("shard-" + std::to_string(i) + ".sqlite"));
        EXPECT_EQ(rep.runsUnchanged, 1);
        EXPECT_FALSE(rep.changed());
    }
    EXPECT_EQ(counts(out), once);
    kbx::Store merged(out), local(path("local.sqlite"));
    const auto want = verdicts(local);
    ASSERT_EQ(want.size(), 6u);
    EXPECT_EQ(verdicts(merged), want);
    // Provenance (node per shard) and args travel with each run.
    auto prov = merged.query("SELECT json_extract(provenance, '$.host') AS host, json_extract(args, '$.shard') AS shard FROM runs ORDER BY id");
    ASSERT_EQ(prov.size(), 3u);
    EXPECT_EQ(prov[1]["shard"], "1/3");
    // The merged database reads like any other (report over the evaluation_rows view).
    int total = 0;
    for (const auto& r : merged.report())
        total += r.total;
    EXPECT_EQ(total, 6);
}

TEST_F(MergeTest, RerunOfAFailedShardReplacesThePartialCopy)
{
    writeShards();
    auto all = allCandidates();
    // Shard 1 died after one evaluation: status 'running'.
    {
        kbx::Store st(path("partial.sqlite"));
        writeRun(st, {all[2]}, "1/3", "running");
        st.query("UPDATE runs SET started_at='2026-12-01T00:00:00Z'");
    }
    const auto out = path("out.sqlite");
    kbx::mergeDatabase(out, path("shard-0.sqlite"));
    kbx::mergeDatabase(out, path("partial.sqlite"));
    kbx::mergeDatabase(out, path("shard-2.sqlite"));
    EXPECT_EQ(counts(out).at("evaluations"), 5);
    // The re-submitted shard 1 started later and finished.
    {
        kbx::Store st(path("shard-1.sqlite"));
        st.query("UPDATE runs SET started_at='2026-12-01T01:00:00Z'");
    }
    auto rep = kbx::mergeDatabase(out, path("shard-1.sqlite"));
    EXPECT_EQ(rep.runsReplaced, 1);
    EXPECT_EQ(rep.evaluationsRemoved, 1);
    EXPECT_EQ(rep.evaluationsAdded, 2);
    ASSERT_EQ(rep.notes.size(), 1u);
    EXPECT_NE(rep.notes[0].find("shard 1/3: replaced"), std::string::npos) << rep.notes[0];
    auto c = counts(out);
    EXPECT_EQ(c.at("runs"), 3);
    EXPECT_EQ(c.at("evaluations"), 6);
    EXPECT_EQ(c.at("case_results"), 12);
    EXPECT_EQ(c.at("merge_ledger"), 3);
    // The old partial copy merged again (e.g. from a stale list of files) is kept out.
    auto again = kbx::mergeDatabase(out, path("partial.sqlite"));
    EXPECT_EQ(again.runsKept, 1);
    EXPECT_FALSE(again.changed());
    EXPECT_EQ(counts(out), c);
    kbx::Store merged(out);
    kbx::Store local(path("local.sqlite"));
    writeRun(local, all);
    EXPECT_EQ(verdicts(merged), verdicts(local));
    EXPECT_EQ(merged.query("SELECT count(*) AS n FROM runs WHERE status='running'")[0]["n"], 0);
}

TEST_F(MergeTest, LabelsTimingsAndUnshardedRuns)
{
    const auto src = path("src.sqlite");
    {
        kbx::Store st(src);
        writeRun(st, {allCandidates()[0]});
        const auto eval = st.query("SELECT id FROM evaluations")[0]["id"].get<std::int64_t>();
        st.setManualLabel(eval, "value_mismatch", "looked by hand", "ann");
        st.addPerf(eval, {{"n=1024", 0.5, 1.0, {{"reps", 10}}}}, {{"geomean", 2.0}});
        writeRun(st, {allCandidates()[2]}, "", "cancelled", 7);  // an unsharded run
    }
    // The target already has its own work.
    const auto out = path("out.sqlite");
    {
        kbx::Store st(out);
        writeRun(st, {allCandidates()[4]}, "", "finished", 3);
    }
    auto rep = kbx::mergeDatabase(out, src);
    EXPECT_EQ(rep.runsAdded, 2);
    auto c = counts(out);
    EXPECT_EQ(c.at("runs"), 3);
    EXPECT_EQ(c.at("manual_labels"), 1);
    EXPECT_EQ(c.at("timings"), 1);
    kbx::Store st(out);
    auto row = st.query("SELECT l.failure_class, l.note, e.task_id, t.candidate_ms FROM manual_labels l JOIN evaluations e ON e.id = l.evaluation_id "
                        "JOIN timings t ON t.evaluation_id = e.id");
    ASSERT_EQ(row.size(), 1u);
    EXPECT_EQ(row[0]["failure_class"], "value_mismatch");
    EXPECT_EQ(row[0]["note"], "looked by hand");
    EXPECT_EQ(row[0]["task_id"], "Activation/relu");
    EXPECT_DOUBLE_EQ(row[0]["candidate_ms"].get<double>(), 0.5);
    EXPECT_FALSE(kbx::mergeDatabase(out, src).changed());
    EXPECT_EQ(counts(out), c);
}

TEST_F(MergeTest, ExcludedMethodsAreLeftOutAndTheMergeStaysIdempotent)
{
    const auto src = path("src.sqlite");
    {
        kbx::Store st(src);
        writeRun(st, allCandidates());  // methods m (5 evaluations) and other (1)
        const auto other = st.query("SELECT e.id FROM evaluations e JOIN submissions s ON s.id = e.submission_id "
                                    "JOIN methods m ON m.id = s.method_id WHERE m.name = 'other'")[0]["id"].get<std::int64_t>();
        st.setManualLabel(other, "value_mismatch", "a label of the excluded method", "ann");
        st.addPerf(other, {{"n=1024", 0.5, 1.0, {{"reps", 10}}}}, {{"geomean", 2.0}});
        writeRun(st, {Cand("Math/sqrt", "sqrt v9", "other")}, "", "finished", 5);  // a run of only the excluded method
    }
    const auto out = path("out.sqlite");
    kbx::MergeOptions without;
    without.excludeMethods = {"other"};
    auto rep = kbx::mergeDatabase(out, src, without);
    EXPECT_EQ(rep.runsAdded, 2);
    EXPECT_EQ(rep.evaluationsAdded, 5);
    EXPECT_EQ(rep.evaluationsExcluded, 2);
    auto c = counts(out);
    EXPECT_EQ(c.at("runs"), 2);  // the runs come, the second with no evaluation
    EXPECT_EQ(c.at("evaluations"), 5);
    EXPECT_EQ(c.at("case_results"), 10);
    EXPECT_EQ(c.at("timings"), 0);
    EXPECT_EQ(c.at("manual_labels"), 0);
    EXPECT_EQ(c.at("submissions"), 5);
    {
        kbx::Store st(out);
        EXPECT_EQ(st.query("SELECT count(*) AS n FROM methods WHERE name = 'other'")[0]["n"], 0);
        for (const auto& [key, verdict] : verdicts(st))
            EXPECT_EQ(key.find("|other"), std::string::npos) << key;
    }
    // The same exclusions again: nothing changes (the digest leaves the excluded method out on both sides).
    auto again = kbx::mergeDatabase(out, src, without);
    EXPECT_FALSE(again.changed());
    EXPECT_EQ(again.runsUnchanged, 2);
    EXPECT_EQ(counts(out), c);
    // Without them: the filtered copies are replaced by whole ones.
    auto whole = kbx::mergeDatabase(out, src);
    EXPECT_EQ(whole.runsReplaced, 2);
    EXPECT_EQ(whole.evaluationsExcluded, 0);
    auto w = counts(out);
    EXPECT_EQ(w.at("runs"), 2);
    EXPECT_EQ(w.at("evaluations"), 7);
    EXPECT_EQ(w.at("timings"), 1);
    EXPECT_EQ(w.at("manual_labels"), 1);
    kbx::Store merged(out), source(src, kbx::OpenMode::ReadOnly);
    EXPECT_EQ(verdicts(merged), verdicts(source));
#ifdef KBX_TEST_KBX_BIN
    // The command line: --exclude-method, repeatable, reaches the merge; --json counts what it left out.
    const auto cliOut = path("cli.sqlite"), text = path("cli.txt");
    const std::string cmd = std::string(KBX_TEST_KBX_BIN) + " merge " + cliOut.string() + " " + src.string() +
                            " --exclude-method other --exclude-method nobody --json > " + text.string() + " 2>/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(text);
    const auto j = json::parse(in);
    EXPECT_EQ(j.at("evaluations_excluded"), 2);
    EXPECT_EQ(j.at("evaluations_added"), 5);
    EXPECT_EQ(counts(cliOut), c);
#endif
}

TEST_F(MergeTest, TargetCopiedFromASourceIsRecognised)
{
    writeShards();
    fs::copy_file(path("shard-0.sqlite"), path("out.sqlite"));
    auto rep = kbx::mergeDatabase(path("out.sqlite"), path("shard-0.sqlite"));
    EXPECT_EQ(rep.runsUnchanged, 1);
    EXPECT_FALSE(rep.changed());
    auto c = counts(path("out.sqlite"));
    EXPECT_EQ(c.at("runs"), 1);
    EXPECT_EQ(c.at("merge_ledger"), 1);
}

TEST_F(MergeTest, ImportsOnce)
{
    kbx::ImportBatch b;
    b.format = "seed-metrics";
    b.source = "metrics.json";
    b.sha256 = kbx::sha256Hex("metrics");
    b.options = {{"gpu", "H200"}};
    kbx::ImportedRun run;
    run.gpu = "H200";
    run.method = "seed";
    run.file = "metrics.json";
    run.format = "seed-metrics";
    for (int i = 0; i < 2; ++i) {
        kbx::ImportedEvaluation ev;
        ev.taskId = "Math/sqrt";
        ev.code = "imported " + std::to_string(i);
        ev.round = i;
        ev.origin = "metrics.json#sqrt";
        ev.state.callOk = true;
        ev.state.exeOk = i == 1;
        run.evaluations.push_back(ev);
    }
    b.runs.push_back(run);
    b.golden.push_back({"H200", "sqrt", "Math/sqrt", 0, "[1024]", 0.25, std::nullopt, std::nullopt, "sqrt.json"});
    kbx::ImportedTransition t;
    t.taskId = "Math/sqrt";
    t.fromRound = 0;
    t.toRound = 1;
    t.kind = "fixed";
    t.origin = "corpus.jsonl:1";
    t.beforeEvaluation = 0;
    t.afterEvaluation = 1;
    b.transitions.push_back(t);
    {
        kbx::Store st(path("src.sqlite"));
        st.writeImport(b);
        writeRun(st, {allCandidates()[0]});
    }
    const auto out = path("out.sqlite");
    {
        kbx::Store st(out);
        writeRun(st, {allCandidates()[5]}, "", "finished", 5);  // so that ids differ from the source's
    }
    auto rep = kbx::mergeDatabase(out, path("src.sqlite"));
    EXPECT_EQ(rep.importsAdded, 1);
    EXPECT_EQ(rep.runsAdded, 2);
    auto c = counts(out);
    EXPECT_EQ(c.at("imports"), 1);
    EXPECT_EQ(c.at("golden_timings"), 1);
    EXPECT_EQ(c.at("round_transitions"), 1);
    EXPECT_EQ(c.at("evaluations"), 4);
    kbx::Store st(out);
    // The transition points at the merged evaluations; the imported run at the merged import.
    auto tr = st.query("SELECT b.task_id AS bt, a.exe_ok AS after_exe, r.device, json_extract(r.provenance, '$.import_id') AS imp, i.id AS iid "
                       "FROM round_transitions t JOIN evaluations b ON b.id = t.before_evaluation_id "
                       "JOIN evaluations a ON a.id = t.after_evaluation_id JOIN runs r ON r.id = t.run_id JOIN imports i ON i.id = t.import_id");
    ASSERT_EQ(tr.size(), 1u);
    EXPECT_EQ(tr[0]["bt"], "Math/sqrt");
    EXPECT_EQ(tr[0]["after_exe"], 1);
    EXPECT_EQ(tr[0]["device"], "imported");
    EXPECT_EQ(tr[0]["imp"], tr[0]["iid"]);
    auto again = kbx::mergeDatabase(out, path("src.sqlite"));
    EXPECT_EQ(again.importsSkipped, 1);
    EXPECT_FALSE(again.changed());
    EXPECT_EQ(counts(out), c);
}

TEST_F(MergeTest, RefusesBadSources)
{
    writeShards();
    const auto out = path("out.sqlite");
    kbx::mergeDatabase(out, path("shard-0.sqlite"));
    const auto before = counts(out);
    EXPECT_THROW(kbx::mergeDatabase(out, out), kbx::MergeError);
    EXPECT_THROW(kbx::mergeDatabase(out, path("missing.sqlite")), kbx::MergeError);
    // A database from a newer kbx: refused by the store, nothing written.
    {
        kbx::Store st(path("newer.sqlite"));
        writeRun(st, allCandidates());
        st.query("PRAGMA user_version=" + std::to_string(kbx::kSchemaVersion + 1));
    }
    EXPECT_THROW(kbx::mergeDatabase(out, path("newer.sqlite")), kbx::StoreError);
    // Not a database at all.
    {
        std::ofstream(path("junk.sqlite")) << "this is not sqlite, just text long enough to be looked at by sqlite3........";
    }
    EXPECT_THROW(kbx::mergeDatabase(out, path("junk.sqlite")), kbx::StoreError);
    // Rows in a table kbx merge does not know: refused, nothing written.
    {
        kbx::Store st(path("shard-1.sqlite"));
        st.query("CREATE TABLE future_things(id INTEGER PRIMARY KEY, x TEXT)");
        st.query("INSERT INTO future_things(x) VALUES('y')");
    }
    try {
        kbx::mergeDatabase(out, path("shard-1.sqlite"));
        FAIL() << "merged a table it does not know";
    } catch (const kbx::MergeError& e) {
        EXPECT_NE(std::string(e.what()).find("future_things"), std::string::npos) << e.what();
    }
    EXPECT_EQ(counts(out), before);
}

TEST_F(MergeTest, RunKeyIgnoresStatusButNotContent)
{
    const auto a = kbx::runMergeKey("2026-12-01T00:00:00Z", "cpu", "{}", "[0,1]", 5, "{}");
    EXPECT_EQ(a.rfind("run:", 0), 0u);
    EXPECT_EQ(a, kbx::runMergeKey("2026-12-01T00:00:00Z", "cpu", "{}", "[0,1]", 5, "{}"));
    EXPECT_NE(a, kbx::runMergeKey("2026-12-01T00:00:01Z", "cpu", "{}", "[0,1]", 5, "{}"));
    EXPECT_NE(a, kbx::runMergeKey("2026-12-01T00:00:00Z", "cpu", "{}", "[0,1]", 6, "{}"));
    EXPECT_NE(a, kbx::runMergeKey("2026-12-01T00:00:00Z", "cuda", "{}", "[0,1]", 5, "{}"));
}

// An input opened read-only by the merge: merged as before, and its file keeps its bytes and
// modification time; merging it again changes nothing.
TEST_F(MergeTest, InputIsOnlyRead)
{
    writeShards();
    const auto in = path("shard-0.sqlite");
    ASSERT_FALSE(exists(in.string() + "-wal"));
    const auto before = snapshot(in);
    const auto out = path("out.sqlite");
    auto rep = kbx::mergeDatabase(out, in);
    EXPECT_EQ(rep.runsAdded, 1);
    EXPECT_EQ(rep.evaluationsAdded, 2);
    EXPECT_TRUE(snapshot(in) == before) << "the input changed";
    if (exists(in.string() + "-wal")) {
        EXPECT_EQ(fs::file_size(in.string() + "-wal"), 0u) << "something was written to the input's WAL journal";
    }
    const auto once = counts(out);
    EXPECT_FALSE(kbx::mergeDatabase(out, in).changed());
    EXPECT_EQ(counts(out), once);
    EXPECT_TRUE(snapshot(in) == before) << "the input changed";
}

// An input of an older schema (v3) is merged from a migrated copy in TMPDIR, which is removed; the
// input stays at v3 with its bytes. Merging it again, or the same data migrated in place, changes
// nothing (the ledger's content digests agree).
TEST_F(MergeTest, OlderSchemaInputIsMergedFromAMigratedCopy)
{
    writeShards();
    const auto in = path("shard-1.sqlite");
    downgradeToV3(in);
    const auto before = snapshot(in);
    const auto tmp = path("tmp");
    fs::create_directories(tmp);
    TmpDirEnv env(tmp);
    const auto out = path("out.sqlite");
    kbx::mergeDatabase(out, path("shard-0.sqlite"));
    auto rep = kbx::mergeDatabase(out, in);
    EXPECT_EQ(rep.runsAdded, 1);
    EXPECT_EQ(rep.evaluationsAdded, 2);
    EXPECT_EQ(rep.source, in.string()) << "the ledger and messages name the input, not its copy";
    EXPECT_TRUE(snapshot(in) == before) << "the input was written (migrated in place?)";
    EXPECT_EQ(userVersion(in), 3);
    EXPECT_EQ(mergeTempDirs(tmp), 0) << "the migrated copy was left behind";
    const auto once = counts(out);
    EXPECT_EQ(once.at("runs"), 2);
    EXPECT_EQ(once.at("evaluations"), 4);
    {
        kbx::Store st(out);
        EXPECT_EQ(st.query("SELECT source FROM merge_ledger ORDER BY rowid")[1]["source"], in.string());
    }
    // Again: nothing.
    auto again = kbx::mergeDatabase(out, in);
    EXPECT_EQ(again.runsUnchanged, 1);
    EXPECT_FALSE(again.changed());
    EXPECT_EQ(counts(out), once);
    // The same database migrated in place (a read-write store) is the same run with the same content.
    const auto migrated = path("shard-1-v4.sqlite");
    fs::copy_file(in, migrated);
    { kbx::Store st(migrated); }
    EXPECT_EQ(userVersion(migrated), kbx::kSchemaVersion);
    auto same = kbx::mergeDatabase(out, migrated);
    EXPECT_EQ(same.runsUnchanged, 1);
    EXPECT_FALSE(same.changed());
    EXPECT_EQ(counts(out), once);
    EXPECT_TRUE(snapshot(in) == before);
    EXPECT_EQ(mergeTempDirs(tmp), 0);
}

// The code-quality cache of an input (the installed demo has one) is merged, not refused as an
// unknown table: rows of submissions the target has, unless the target measured them itself.
TEST_F(MergeTest, CodeQualityCacheIsMerged)
{
    const auto in = path("src.sqlite");
    {
        kbx::Store st(in);
        writeRun(st, {allCandidates()[0], allCandidates()[2]});
        std::vector<kbx::CodeQualityRow> rows;
        for (const auto& r : st.query("SELECT id FROM submissions ORDER BY id")) {
            kbx::CodeQualityRow q;
            q.submissionId = r["id"].get<std::int64_t>();
            q.mi = 70.5;
            q.sloc = 3;
            q.toolVersion = "radon 6.0.1";
            rows.push_back(q);
        }
        st.putCodeQuality(rows);
    }
    const auto out = path("out.sqlite");
    {
        kbx::Store st(out);
        writeRun(st, {allCandidates()[2]}, "", "finished", 3);  // the same submission, measured here already
        kbx::CodeQualityRow q;
        q.submissionId = st.query("SELECT id FROM submissions")[0]["id"].get<std::int64_t>();
        q.mi = 11.0;
        q.toolVersion = "radon 6.0.1";
        st.putCodeQuality({q});
    }
    auto rep = kbx::mergeDatabase(out, in);
    EXPECT_EQ(rep.runsAdded, 1);
    EXPECT_EQ(rep.codeQualityAdded, 1);
    kbx::Store st(out);
    auto q = st.query("SELECT c.task_id, q.mi FROM code_quality q JOIN submissions s ON s.id = q.submission_id "
                      "JOIN candidates c ON c.id = s.candidate_id ORDER BY c.task_id");
    ASSERT_EQ(q.size(), 2u);
    EXPECT_EQ(q[0]["task_id"], "Activation/relu");
    EXPECT_DOUBLE_EQ(q[0]["mi"].get<double>(), 70.5);
    EXPECT_EQ(q[1]["task_id"], "Math/sqrt");
    EXPECT_DOUBLE_EQ(q[1]["mi"].get<double>(), 11.0) << "the target's own measurement was replaced";
    auto again = kbx::mergeDatabase(out, in);
    EXPECT_EQ(again.codeQualityAdded, 0);
    EXPECT_FALSE(again.changed());
}

// As an ordinary user (nobody, when the test runs as root): inputs in a directory of root's that the
// user cannot write (0644 files, 0755 directory: the installed demo's situation, or a read-only
// mount), one at the current schema and one older, merge into a database of the user's own. No -wal
// or -shm file appears beside them and they keep their bytes and modification times.
TEST_F(MergeTest, InputsTheUserCannotWriteAsAnOrdinaryUser)
{
    writeShards();
    const auto share = path("share");
    fs::create_directories(share);
    const auto a = share / "a.sqlite", b = share / "b.sqlite";
    fs::rename(path("shard-0.sqlite"), a);
    fs::rename(path("shard-1.sqlite"), b);
    downgradeToV3(b);
    const bool root = ::geteuid() == 0;
    const auto r = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
    const auto x = fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
    for (const auto& f : {a, b})
        fs::permissions(f, r | (root ? fs::perms::owner_write : fs::perms::none));
    fs::permissions(share, r | x | (root ? fs::perms::owner_write : fs::perms::none));
    fs::permissions(m_dir, r | x | (root ? fs::perms::owner_write : fs::perms::none));
    const auto mine = path("mine");  // the user's own place: the target and TMPDIR
    fs::create_directories(mine);
    fs::permissions(mine, fs::perms::all);
    const auto beforeA = snapshot(a), beforeB = snapshot(b);
    const auto out = mine / "out.sqlite";
    {
        Unprivileged nobody;
        if (!nobody.ok())
            GTEST_SKIP() << "cannot run as an ordinary user here (setresuid to nobody failed)";
        EXPECT_FALSE(kbx::readOnlyReason(a).empty());
        TmpDirEnv env(mine);
        auto ra = kbx::mergeDatabase(out, a);
        EXPECT_EQ(ra.runsAdded, 1);
        EXPECT_EQ(ra.evaluationsAdded, 2);
        auto rb = kbx::mergeDatabase(out, b);
        EXPECT_EQ(rb.runsAdded, 1);
        EXPECT_EQ(rb.evaluationsAdded, 2);
        EXPECT_EQ(mergeTempDirs(mine), 0);
        EXPECT_FALSE(kbx::mergeDatabase(out, a).changed());
        EXPECT_FALSE(kbx::mergeDatabase(out, b).changed());
        // Into one of them: refused by the store (the target is written), nothing changed.
        EXPECT_THROW(kbx::mergeDatabase(a, out), kbx::StoreError);
    }
    fs::permissions(m_dir, fs::perms::owner_all, fs::perm_options::add);
    EXPECT_TRUE(snapshot(a) == beforeA) << "an input changed";
    EXPECT_TRUE(snapshot(b) == beforeB) << "an input changed";
    for (const auto& f : {a, b})
        for (const char* side : {"-wal", "-shm", "-journal"})
            EXPECT_FALSE(exists(f.string() + side)) << f << side;
    EXPECT_EQ(userVersion(b), 3);
    auto c = counts(out);
    EXPECT_EQ(c.at("runs"), 2);
    EXPECT_EQ(c.at("evaluations"), 4);
}
