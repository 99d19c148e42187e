// SPDX-License-Identifier: MIT
#include "importers.h"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>
#include <random>
#include <nlohmann/json.hpp>

using namespace kbx;
namespace fs = std::filesystem;

namespace {
struct TempDir {
    fs::path path;
    // Unique per process and instance: ctest runs these tests as parallel processes, which may
    // start within one millisecond (same gtest seed, same rand() sequence; seen on CI).
    TempDir() : path(fs::temp_directory_path() / ("kbx-imp-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++) + "-" +
                                                  std::to_string(std::random_device{}())))
    {
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    static int& counter()
    {
        static int n = 0;
        return n;
    }
    fs::path write(const std::string& name, const std::string& text) const
    {
        auto p = path / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
        return p;
    }
};
TaskCatalogue cat() { return TaskCatalogue::load(KBX_TEST_DATA "/tasks"); }
std::string line(const nlohmann::json& j) { return j.dump() + "\n"; }
}  // namespace

TEST(Catalogue, LoadsAndResolves)
{
    auto c = cat();
    EXPECT_EQ(c.tasks().size(), 3u);
    EXPECT_NE(c.resolve("Activation/relu.py"), nullptr);
    EXPECT_NE(c.resolve("relu"), nullptr);
    EXPECT_EQ(c.resolve("add"), nullptr) << "ambiguous stem must not resolve";
    EXPECT_EQ(c.resolve("Math/nope"), nullptr);
}

TEST(Catalogue, MissingIndexIsClearError)
{
    EXPECT_THROW(TaskCatalogue::load("/nonexistent-kbx"), CatalogueError);
}

TEST(Importers, JsonlFileAndInstructionAndCorpus)
{
    TempDir d;
    const std::string sep(146, '#');
    auto p = d.write("s.jsonl", line({{"predict", "```python\ndef relu(x):\n    return x\n" + sep + "\nprint(1)\n```"}, {"file", "Activation/relu.py"}})
                                + "\n" + line({{"predict", "def add(a, b): pass"}, {"instruction", "Functional Description: adds\nWrapper Entry Information: add(input, other) -> Tensor"}})
                                + line({{"task_id", "Activation/relu.py"}, {"after_code", "def relu(x): pass"}, {"to_round", "round_3"}}));
    auto c = cat();
    // "add" is ambiguous in this catalogue: the instruction line must fail precisely.
    try {
        loadSubmissions(p, c);
        FAIL() << "expected ImportError";
    } catch (const ImportError& e) {
        EXPECT_NE(std::string(e.what()).find("s.jsonl:3"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("unknown task 'add'"), std::string::npos) << e.what();
    }
    auto p2 = d.write("t.jsonl", line({{"predict", "```python\ndef relu(x):\n    return x\n" + sep + "\nprint(1)\n```"}, {"file", "Activation/relu.py"}})
                                 + line({{"task_id", "Activation/relu.py"}, {"after_code", "def relu(x): pass"}, {"to_round", "round_3"}}));
    auto subs = loadSubmissions(p2, c);
    ASSERT_EQ(subs.size(), 2u);
    EXPECT_EQ(subs[0].taskId, "Activation/relu");
    EXPECT_EQ(subs[0].code, "def relu(x):\n    return x\n");
    EXPECT_EQ(subs[1].round, 3);
    EXPECT_FALSE(subs[0].method.has_value());
}

TEST(Importers, RecordMethodOverridesTheRunsMethod)
{
    TempDir d;
    auto p = d.write("m.jsonl", line({{"predict", "def relu(x): pass"}, {"file", "Activation/relu.py"}, {"method", "geak-r2"}})
                                + line({{"predict", "def relu(x): pass"}, {"file", "Activation/relu.py"}}));
    auto subs = loadSubmissions(p, cat());
    ASSERT_EQ(subs.size(), 2u);
    EXPECT_EQ(subs[0].method, "geak-r2");
    EXPECT_FALSE(subs[1].method.has_value());
    auto bad = d.write("b.jsonl", line({{"predict", "x"}, {"file", "Activation/relu.py"}, {"method", 3}}));
    try {
        loadSubmissions(bad, cat());
        FAIL() << "expected ImportError";
    } catch (const ImportError& e) {
        EXPECT_NE(std::string(e.what()).find("b.jsonl:1"), std::string::npos) << e.what();
    }
}

TEST(Importers, RoundBeyondIntIsAnErrorNotACrash)
{
    // Found by fuzz_submissions_jsonl: std::stoi threw out_of_range through the importer.
    TempDir d;
    auto p = d.write("r.jsonl", line({{"predict", "x"}, {"file", "Activation/relu.py"}, {"round", "round_77777777777777"}}));
    try {
        loadSubmissions(p, cat());
        FAIL();
    } catch (const ImportError& e) {
        EXPECT_NE(std::string(e.what()).find("r.jsonl:1: round number 77777777777777 is out of range"), std::string::npos) << e.what();
    }
    auto ok = d.write("ok.jsonl", line({{"predict", "x"}, {"file", "Activation/relu.py"}, {"round", "round_123456789"}}));
    EXPECT_EQ(loadSubmissions(ok, cat()).at(0).round, 123456789);
}

TEST(Importers, MalformedLineNamesFileAndLine)
{
    TempDir d;
    auto p = d.write("bad.jsonl", line({{"predict", "x"}, {"file", "Activation/relu.py"}}) + "{not json\n");
    try {
        loadSubmissions(p, cat());
        FAIL();
    } catch (const ImportError& e) {
        EXPECT_NE(std::string(e.what()).find("bad.jsonl:2: malformed JSON"), std::string::npos) << e.what();
    }
    auto q = d.write("nofile.jsonl", line({{"predict", "x"}}));
    EXPECT_THROW(loadSubmissions(q, cat()), ImportError);
    auto e = d.write("empty.jsonl", "\n\n");
    EXPECT_THROW(loadSubmissions(e, cat()), ImportError);
    EXPECT_THROW(loadSubmissions(d.path / "missing.jsonl", cat()), ImportError);
    auto t = d.write("notes.txt", "x");
    EXPECT_THROW(loadSubmissions(t, cat()), ImportError);
}

TEST(Importers, PyFileAndDirectory)
{
    TempDir d;
    const std::string sep(146, '#');
    d.write("sub/Activation/relu.py", "def relu(x):\n    return x\n" + sep + "\ndef test(): pass\n");
    d.write("sub/Math/add.py", "def add(a, b):\n    return a\n");
    auto subs = loadSubmissions(d.path / "sub", cat());
    ASSERT_EQ(subs.size(), 2u);
    EXPECT_EQ(subs[0].taskId, "Activation/relu");
    EXPECT_EQ(subs[0].code, "def relu(x):\n    return x\n");
    EXPECT_EQ(subs[1].taskId, "Math/add");
    d.write("odd/whatever.py", "x");
    EXPECT_THROW(loadSubmissions(d.path / "odd", cat()), ImportError);
}

TEST(Importers, SymlinkCycleInADirectoryIsAClearError)
{
    // Issue 20: a link cycle aborted kbx (uncaught filesystem_error, exit 134).
    TempDir d;
    d.write("sub/Math/add.py", "def add(a, b):\n    return a\n");
    fs::create_symlink("loop.py", d.path / "sub" / "loop.py");  // ELOOP when followed
    try {
        loadSubmissions(d.path / "sub", cat());
        ADD_FAILURE() << "no error";
    } catch (const ImportError& e) {
        EXPECT_NE(std::string(e.what()).find("loop.py"), std::string::npos) << e.what();
    }
    // A directory link cycle is not followed: the walk ends, the real file loads.
    TempDir d2;
    d2.write("sub/Math/add.py", "def add(a, b):\n    return a\n");
    fs::create_directory_symlink("..", d2.path / "sub" / "Math" / "up");
    auto subs = loadSubmissions(d2.path / "sub", cat());
    EXPECT_EQ(subs.size(), 1u);
    // A dangling link to a .py file names the file.
    TempDir d3;
    d3.write("sub/Math/add.py", "def add(a, b):\n    return a\n");
    fs::create_symlink("/nonexistent-kbx/x.py", d3.path / "sub" / "gone.py");
    EXPECT_THROW(loadSubmissions(d3.path / "sub", cat()), ImportError);
}

TEST(Importers, EntryFromInstruction)
{
    EXPECT_EQ(entryFromInstruction("... Wrapper Entry Information: def fused_add_gelu(input, other)"), "fused_add_gelu");
    EXPECT_EQ(entryFromInstruction("nothing"), "");
}

TEST(Importers, SkipUnknownListsInsteadOfFailing)
{
    TempDir d;
    auto p = d.write("mixed.jsonl", line({{"predict", "def relu(x): pass"}, {"file", "Activation/relu.py"}})
                                    + line({{"predict", "x"}, {"file", "Fusion/not_here.py"}})
                                    + line({{"task_id", "Activation/relu.py"}, {"after_code", nullptr}, {"to_round", 2}}));
    EXPECT_THROW(loadSubmissions(p, cat()), ImportError);
    std::vector<std::string> skipped;
    auto subs = loadSubmissions(p, cat(), &skipped);
    ASSERT_EQ(subs.size(), 2u);
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_NE(skipped[0].find("mixed.jsonl:2: unknown task 'Fusion/not_here.py'"), std::string::npos) << skipped[0];
    EXPECT_EQ(subs[1].code, "") << "a corpus round without code is an empty submission";
    EXPECT_EQ(subs[1].round, 2);
    auto bad = d.write("bad.jsonl", line({{"predict", "x"}, {"file", "Fusion/not_here.py"}}) + "{oops\n");
    EXPECT_THROW(loadSubmissions(bad, cat(), &skipped), ImportError) << "malformed lines still fail";
}
