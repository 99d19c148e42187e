// SPDX-License-Identifier: MIT
// kbx show EVALUATION: one evaluation without a screen, as the workbench's inspector shows it, on a
// copy of the bundled demo database (H200 runs with the perf stage, and untimed CPU runs).
#include "itest.h"
#include "store.h"

#include <sqlite3.h>

using namespace kbx_it;

namespace {

fs::path demoCopy(const std::string& name)
{
    const auto dir = tempPath(name);
    fs::create_directories(dir);
    const auto db = dir / "demo.sqlite";
    fs::copy_file(kFixtures.parent_path().parent_path() / "resources" / "demo" / "demo.sqlite", db, fs::copy_options::overwrite_existing);
    fs::permissions(db, fs::perms::owner_read | fs::perms::owner_write);
    return db;
}

std::int64_t scalar(const fs::path& db, const std::string& sql)
{
    kbx::Store s(db, kbx::OpenMode::Auto);
    auto rows = s.query(sql);
    return rows.empty() || rows[0].begin()->is_null() ? 0 : rows[0].begin()->get<std::int64_t>();
}

/// One SQL statement on the copy (an UPDATE of stored evidence); "" when it ran, else SQLite's message.
std::string execSql(const fs::path& db, const std::string& sql)
{
    sqlite3* h = nullptr;
    if (sqlite3_open(db.c_str(), &h) != SQLITE_OK) {
        sqlite3_close(h);
        return "cannot open " + db.string();
    }
    char* err = nullptr;
    const int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
    std::string why = rc == SQLITE_OK ? "" : (err ? err : "sqlite3_exec failed");
    sqlite3_free(err);
    sqlite3_close(h);
    return why;
}

}  // namespace

TEST(Show, ATimedEvaluationShowsItsVerdictEveryPerfShapeAndTheProfiledKernels)
{
    const auto db = demoCopy("show-timed");
    const auto id = scalar(db, "SELECT min(t.evaluation_id) AS id FROM timings t JOIN evaluations e ON e.id = t.evaluation_id "
                               "WHERE json_extract(e.evidence, '$.perf.geomean_speedup') IS NOT NULL");
    ASSERT_GT(id, 0);
    kbx::Store s(db, kbx::OpenMode::Auto);
    const auto task = s.query("SELECT task_id FROM evaluations WHERE id = " + std::to_string(id))[0]["task_id"].get<std::string>();
    const auto shapes = s.query("SELECT shape FROM timings WHERE evaluation_id = " + std::to_string(id) + " ORDER BY id");
    ASSERT_GE(shapes.size(), 2u);

    auto r = run(kbxBin() + " show " + std::to_string(id) + " --db " + db.string() + " 2>&1");
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find(task + " · evaluation " + std::to_string(id)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("speedup against eager"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Triton kernels launched by the candidate"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernels of the profiled call"), std::string::npos) << r.out;
    std::size_t at = 0;
    for (const auto& sh : shapes) {
        const auto p = r.out.find("\n  " + sh["shape"].get<std::string>() + " ", at);
        ASSERT_NE(p, std::string::npos) << sh["shape"] << " missing or out of order:\n" << r.out;
        at = p + 1;
    }

    // What the candidate's @triton.autotune chose for a shape (issue 22), as the perf stage stores it;
    // a config text with an escape sequence is printed on one line with it neutralised.
    {
        const std::string sql = "UPDATE timings SET samples = json_set(samples, '$.autotune', json('[{\"kernel\": \"_k\", \"config\": \"BLOCK: 256\\u001b[2J\", "
           "\"bench_s\": 1.5, \"timings_ms\": {\"BLOCK: 256\": 0.1, \"BLOCK: 512\": 0.2}}]')) WHERE evaluation_id = " +
           std::to_string(id) + " AND shape = '" + shapes[0]["shape"].get<std::string>() + "'";
        ASSERT_EQ(execSql(db, sql), "");
    }
    // The repeat interval's parts, with the shapes' floor where it decided (docs/PERF_PROTOCOL.md).
    {
        const std::string sql = "UPDATE evaluations SET evidence = json_set(evidence, '$.perf.geomean_speedup', json('{\"estimate\": 1.2, "
           "\"lo\": 1.17, \"hi\": 1.23, \"interval\": \"repeat\", \"processes\": 3, \"between_process_rel\": 0.002, "
           "\"within_process_rel\": 0.001, \"sd_rel\": 0.0123, \"prior_rel\": 0.0065, \"prior_df\": 4, "
           "\"shape_spread_rel\": 0.0123, \"sd_from\": \"shapes\"}'), '$.perf.extra_processes', json('{\"spread\": 0.0062, "
           "\"threshold\": 0.005, \"target_width\": 0.02, \"widths\": [{\"processes\": 4, \"width\": 0.0241}], \"processes\": 5}')) "
           "WHERE id = " + std::to_string(id);
        ASSERT_EQ(execSql(db, sql), "");
    }
    // An autotune sweep that stopped at the cap (issue 22): the configs left unswept are named.
    {
        const std::string sql = "UPDATE evaluations SET evidence = json_set(evidence, '$.autotune_sweep', json('{\"configs\": 32, "
           "\"declared\": 40, \"not_swept\": \"configs 33-40 of 40: the sweep runs at most 32\", \"runs\": [{\"pin\": 0, "
           "\"pass\": true, \"config\": \"_k: BLOCK: 64\"}, {\"pin\": 1, \"pass\": true, \"config\": \"_k: BLOCK: 128\"}]}')) "
           "WHERE id = " + std::to_string(id);
        ASSERT_EQ(execSql(db, sql), "");
    }
    auto a = run(kbxBin() + " show " + std::to_string(id) + " --db " + db.string() + " 2>&1");
    EXPECT_NE(a.out.find("autotune sweep: contract cases under each of 32 config(s) (of 40 declared; not swept: configs 33-40 of 40: "
                         "the sweep runs at most 32)"),
              std::string::npos)
        << a.out;
    EXPECT_NE(a.out.find("  config 2: pass  _k: BLOCK: 128"), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("95% repeat interval over 3 fresh process(es)"), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("prior 0.65 % x 4 df, shapes 1.23 % (the shapes' spread decided)"), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("timed in 5 processes: its first processes' geomeans disagreed by 0.62 % (more than 0.50 %); then its "
                         "interval was wider than 2.00 % (2.41 % after 4)"),
              std::string::npos)
        << a.out;
    ASSERT_EQ(a.rc, 0) << a.out;
    EXPECT_NE(a.out.find("autotune (the config the candidate's autotuner chose per shape):"), std::string::npos) << a.out;
    EXPECT_NE(a.out.find(shapes[0]["shape"].get<std::string>()), std::string::npos);
    EXPECT_NE(a.out.find("_k: BLOCK: 256?[2J (benchmarked 2 config(s) in 1.50 s)"), std::string::npos) << a.out;
    EXPECT_EQ(a.out.find('\x1b'), std::string::npos) << "no raw escape reaches the terminal";

    auto j = run(kbxBin() + " show " + std::to_string(id) + " --json --db " + db.string() + " 2>/dev/null");
    ASSERT_EQ(j.rc, 0) << j.out;
    const auto doc = nlohmann::json::parse(j.out);
    EXPECT_EQ(doc["id"], id);
    ASSERT_EQ(doc["timings"].size(), shapes.size());
    EXPECT_TRUE(doc["timings"][0]["samples"]["candidate_ms"].is_array()) << "raw samples come with --json";
    EXPECT_TRUE(doc["evidence"]["perf"]["geomean_speedup"].is_object());
    EXPECT_FALSE(doc["cases"].empty());
}

TEST(Show, AnUntimedOrMissingEvaluationSaysSo)
{
    const auto db = demoCopy("show-untimed");
    const auto id = scalar(db, "SELECT min(id) AS id FROM evaluations WHERE verdict = 'pass' AND id NOT IN (SELECT evaluation_id FROM timings)");
    ASSERT_GT(id, 0);
    auto r = run(kbxBin() + " show " + std::to_string(id) + " --db " + db.string() + " 2>&1");
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("not timed: evaluated without --perf"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cases: "), std::string::npos) << r.out;

    auto missing = run(kbxBin() + " show 987654321 --db " + db.string() + " 2>&1");
    EXPECT_EQ(missing.rc, 3) << missing.out;
    EXPECT_NE(missing.out.find("no evaluation 987654321"), std::string::npos) << missing.out;
    auto nodb = run(kbxBin() + " show 1 --db " + (db.parent_path() / "none.sqlite").string() + " 2>&1");
    EXPECT_EQ(nodb.rc, 3) << nodb.out;
    EXPECT_FALSE(fs::exists(db.parent_path() / "none.sqlite")) << "show creates nothing";
}
