// SPDX-License-Identifier: MIT
// Code quality through radon (core/quality, tasks/worker/harness/quality.py): measured once per
// submission and cached; unparseable code and imported verdicts without code are rows with a
// reason; a Python without radon gives "n/a" with a note, not a failure.
#include "quality.h"
#include "store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace fs = std::filesystem;
namespace q = kbx::quality;

namespace {

fs::path tempPath(const std::string& name)
{
    auto p = fs::temp_directory_path() / ("kbx-quality-" + name + "-" + std::to_string(getpid()));
    for (const char* suffix : {"", "-wal", "-shm"})
        fs::remove(p.string() + suffix);
    return p;
}

struct Db {
    fs::path path;
    std::unique_ptr<kbx::Store> store;
    std::int64_t method = 0;
    explicit Db(const std::string& name) : path(tempPath(name + ".sqlite")), store(std::make_unique<kbx::Store>(path))
    {
        method = store->ensureMethod("m");
    }
    ~Db()
    {
        store.reset();
        for (const char* suffix : {"", "-wal", "-shm"})
            fs::remove(path.string() + suffix);
    }
    std::int64_t submission(const std::string& task, const std::string& code)
    {
        return store->ensureSubmission(store->ensureCandidate(task, code).first, method, 0, "test");
    }
};

q::Options options()
{
    q::Options o;
    o.script = KBX_TEST_QUALITY_SCRIPT;
    return o;
}

}  // namespace

TEST(Quality, RadonMeasuresOnceAndCaches)
{
    Db db("cache");
    const auto two = db.submission("Math/a", "def f(x):\n    if x:\n        return 1\n    return 2\n");
    const auto bad = db.submission("Math/b", "def f(:\n");
    const auto none = db.submission("Math/c", "# kbx import: the seed kept no code for this verdict\n# source: x\n");
    auto r = q::ensure(*db.store, {two, bad, none}, options());
    if (!r.available && r.note.find("radon is not installed") != std::string::npos)
        GTEST_SKIP() << r.note;
    ASSERT_TRUE(r.available) << r.note;
    EXPECT_EQ(r.measured, 2);  // the placeholder is never given to radon
    ASSERT_EQ(r.rows.size(), 3u);
    const auto& m = r.rows.at(two);
    EXPECT_EQ(m.ccMean, 2.0);  // one function with one branch
    EXPECT_EQ(m.ccMax, 2);
    EXPECT_EQ(m.sloc, 4);
    ASSERT_TRUE(m.mi.has_value());
    EXPECT_GT(*m.mi, 50.0);
    EXPECT_LE(*m.mi, 100.0);
    EXPECT_EQ(m.toolVersion.rfind("radon ", 0), 0u);
    EXPECT_FALSE(r.rows.at(bad).mi.has_value());
    EXPECT_NE(r.rows.at(bad).error.find("does not parse"), std::string::npos);
    EXPECT_NE(r.rows.at(none).error.find("no code"), std::string::npos);
    // Cached: nothing measured the second time, even with a tool that cannot run.
    auto o = options();
    o.script = "/nonexistent/quality.py";
    auto again = q::ensure(*db.store, {two, bad, none}, o);
    EXPECT_TRUE(again.available);
    EXPECT_EQ(again.measured, 0);
    EXPECT_EQ(again.rows.at(two).ccMax, 2);
    EXPECT_EQ(db.store->query("SELECT count(*) AS n FROM code_quality")[0]["n"], 3);
}

TEST(Quality, WithoutRadonTheColumnIsNotAvailable)
{
    Db db("noradon");
    const auto s = db.submission("Math/a", "def f(x):\n    return x\n");
    // A Python that cannot import radon: the venv's (or any) interpreter without site-packages.
    const auto real = q::defaultPython();
    if (real.empty())
        GTEST_SKIP() << "no Python at all";
    const auto shim = tempPath("python-shim");
    {
        std::ofstream out(shim);
        out << "#!/bin/sh\nexec '" << real.string() << "' -S \"$@\"\n";
    }
    ::chmod(shim.c_str(), 0755);
    auto o = options();
    o.python = shim;
    const auto r = q::ensure(*db.store, {s}, o);
    fs::remove(shim);
    EXPECT_FALSE(r.available);
    EXPECT_EQ(r.note.rfind("code quality n/a: radon is not installed", 0), 0u) << r.note;
    EXPECT_TRUE(r.rows.empty());
    EXPECT_EQ(db.store->query("SELECT count(*) AS n FROM code_quality")[0]["n"], 0);  // nothing cached: measured later
    o.python = real;
    o.script = "/nonexistent/quality.py";
    const auto missing = q::ensure(*db.store, {s}, o);
    EXPECT_FALSE(missing.available);
    EXPECT_NE(missing.note.find("not found"), std::string::npos);
}

TEST(Quality, SchemaHasTheCacheTable)
{
    Db db("schema");
    EXPECT_GE(db.store->schemaVersion(), 4);  // the cache table came with v4
    const auto s = db.submission("Math/a", "x = 1\n");
    kbx::CodeQualityRow row;
    row.submissionId = s;
    row.mi = 71.5;
    row.toolVersion = "radon 6.0.1";
    db.store->putCodeQuality({row});
    const auto c = q::cached(*db.store, {s});
    ASSERT_EQ(c.size(), 1u);
    EXPECT_DOUBLE_EQ(*c.at(s).mi, 71.5);
    EXPECT_FALSE(c.at(s).ccMean.has_value());
    row.submissionId = 999;
    EXPECT_THROW(db.store->putCodeQuality({row}), kbx::StoreError);
}

// Stored code that is not valid UTF-8 (bytes of a damaged database, or what an importer kept) does
// not abort the report that measures it: it goes to radon with U+FFFD (kbx report used to die in an
// uncaught json type_error).
TEST(Quality, CodeThatIsNotUtf8IsMeasuredNotThrownOn)
{
    Db db("utf8");
    const auto s = db.submission("Math/a", std::string("def f(x):\n    return x  # \xff\xfe bytes\n"));
    q::Result r;
    ASSERT_NO_THROW(r = q::ensure(*db.store, {s}, options()));
    if (!r.available && r.note.find("radon is not installed") != std::string::npos)
        GTEST_SKIP() << r.note;
    ASSERT_TRUE(r.available) << r.note;
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(r.rows.at(s).sloc, 2);
}
