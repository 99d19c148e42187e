// SPDX-License-Identifier: MIT
// Where SQL may live (issue 25): in the query layer (core/query*) and the store (core/store*: schema,
// writes, the derived tables, kbx merge; core/sqlite_stmt.h, its SQLite wrapper) only. This test reads
// the C++ sources of core/, models/, app/ and widgets/ and fails, naming file and line, for a string
// literal holding an SQL statement anywhere else. Comments may name SQL; only literals count.
// KBX_SQL_PLACEMENT_ROOT (environment) scans another checkout instead of this one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// What starts or shapes an SQL statement (upper case, as every statement of kbx is written).
const std::vector<std::string> kKeywords = {"SELECT ",      "INSERT ",      "UPDATE ",        "DELETE FROM",
                                            "CREATE TABLE", "CREATE INDEX", "CREATE VIEW",    "CREATE TRIGGER",
                                            "CREATE TEMP",  "DROP TABLE",   "DROP INDEX",     "DROP TRIGGER",
                                            "DROP VIEW",    "ALTER TABLE",  "WITH RECURSIVE", "PRAGMA"};

struct Literal {
    int line = 0;  ///< where it starts
    std::string text;
};

bool identChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// The string literals of C++ source text (plain, with encoding prefixes, raw), comments and character
/// literals skipped.
std::vector<Literal> stringLiterals(const std::string& src)
{
    std::vector<Literal> out;
    const std::size_t n = src.size();
    int line = 1;
    auto advance = [&](std::size_t from, std::size_t to) {
        line += static_cast<int>(std::count(src.begin() + static_cast<std::ptrdiff_t>(from),
                                            src.begin() + static_cast<std::ptrdiff_t>(std::min(to, n)), '\n'));
        return std::min(to, n);
    };
    // A quoted literal's end (the closing quote's index, or n), escapes skipped.
    auto closing = [&](std::size_t i, char quote) {
        for (++i; i < n && src[i] != quote && src[i] != '\n'; ++i)
            if (src[i] == '\\')
                ++i;
        return i;
    };
    std::size_t i = 0;
    while (i < n) {
        const char c = src[i];
        if (c == '/' && i + 1 < n && src[i + 1] == '/') {
            const auto end = src.find('\n', i);
            i = end == std::string::npos ? n : end;
        } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
            const auto end = src.find("*/", i + 2);
            i = advance(i, end == std::string::npos ? n : end + 2);
        } else if (c == '\'' && (i == 0 || !identChar(src[i - 1]))) {  // not a digit separator (1'000)
            const auto end = closing(i, '\'');
            i = end < n && src[end] == '\n' ? end : end + 1;  // an unclosed one ends with its line
        } else if (c == '"' && i > 0 && src[i - 1] == 'R' &&
                   (i < 2 || !identChar(src[i - 2]) || src[i - 2] == 'u' || src[i - 2] == 'U' || src[i - 2] == 'L' ||
                    src[i - 2] == '8')) {
            const auto open = src.find('(', i);
            if (open == std::string::npos)
                break;
            const std::string delimiter = ")" + src.substr(i + 1, open - i - 1) + "\"";
            const auto end = src.find(delimiter, open);
            const auto stop = end == std::string::npos ? n : end;
            out.push_back({line, src.substr(open + 1, stop - open - 1)});
            i = advance(i, stop + delimiter.size());
        } else if (c == '"') {
            const auto end = closing(i, '"');
            out.push_back({line, src.substr(i + 1, end - i - 1)});
            i = end < n && src[end] == '\n' ? end : end + 1;
        } else {
            if (c == '\n')
                ++line;
            ++i;
        }
    }
    return out;
}

/// The first keyword in the text, or nullptr.
const std::string* sqlKeyword(const std::string& text)
{
    for (const auto& k : kKeywords)
        if (text.find(k) != std::string::npos)
            return &k;
    return nullptr;
}

/// The query layer and the store (paths relative to the root, '/' separated).
bool allowed(const std::string& path)
{
    const fs::path p(path);
    const auto name = p.filename().string();
    const auto ext = p.extension().string();
    if (p.parent_path() != "core")
        return false;
    if (name == "sqlite_stmt.h")
        return true;
    return (ext == ".h" || ext == ".cpp") && (name.rfind("query", 0) == 0 || name.rfind("store", 0) == 0);
}

fs::path sourceRoot()
{
    if (const char* root = std::getenv("KBX_SQL_PLACEMENT_ROOT"); root && *root)
        return root;
    return KBX_SOURCE_DIR;
}

struct Scan {
    int files = 0;
    std::vector<std::string> outside;  ///< path:line: "the literal's first 70 characters"
    std::vector<std::string> inside;   ///< files of the layer with SQL
};

Scan scanTree(const fs::path& root)
{
    Scan scan;
    for (const char* dir : {"core", "models", "app", "widgets"}) {
        if (!fs::is_directory(root / dir))
            continue;
        std::vector<fs::path> files;
        for (const auto& e : fs::recursive_directory_iterator(root / dir))
            if (e.is_regular_file() && (e.path().extension() == ".cpp" || e.path().extension() == ".h"))
                files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto& file : files) {
            ++scan.files;
            std::ifstream in(file, std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            const auto rel = fs::relative(file, root).generic_string();
            for (const auto& lit : stringLiterals(text.str())) {
                const auto* k = sqlKeyword(lit.text);
                if (!k)
                    continue;
                if (allowed(rel)) {
                    if (scan.inside.empty() || scan.inside.back() != rel)
                        scan.inside.push_back(rel);
                    continue;
                }
                auto excerpt = lit.text.substr(0, 70);
                std::replace(excerpt.begin(), excerpt.end(), '\n', ' ');
                scan.outside.push_back(rel + ":" + std::to_string(lit.line) + ": \"" + excerpt + "\"");
            }
        }
    }
    return scan;
}

}  // namespace

TEST(SqlPlacement, LiteralsAreFoundAndCommentsSkipped)
{
    const std::string src = "// SELECT a FROM b in a comment\n"
                            "/* INSERT INTO t\n   VALUES (1) */ int n = 1'000'000; char q = '\"';\n"
                            "auto s = \"SELECT id FROM runs\";\n"
                            "const char* k = R\"SQL(\nCREATE TABLE t(x);\n)SQL\";\n"
                            "auto msg = \"update the database\"; auto e = \"a \\\"SELECT \\\" b\";\n"
                            "auto u = u8R\"(PRAGMA user_version)\";\n";
    const auto lits = stringLiterals(src);
    std::vector<std::pair<int, std::string>> sql;
    for (const auto& l : lits)
        if (const auto* k = sqlKeyword(l.text))
            sql.emplace_back(l.line, *k);
    const std::vector<std::pair<int, std::string>> want = {
        {4, "SELECT "}, {5, "CREATE TABLE"}, {8, "SELECT "}, {9, "PRAGMA"}};
    EXPECT_EQ(sql, want);
    EXPECT_EQ(lits.size(), 5u);
    // An apostrophe that closes nothing (prose in #if 0) ends with its line; the lines after it count.
    const auto after = stringLiterals("#if 0\nit's prose\n#endif\nauto s = \"SELECT x\";\n");
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(after[0].line, 4);
}

TEST(SqlPlacement, OnlyTheQueryLayerAndTheStoreHoldSql)
{
    EXPECT_TRUE(allowed("core/query_reports.cpp"));
    EXPECT_TRUE(allowed("core/store_derived.cpp"));
    EXPECT_TRUE(allowed("core/sqlite_stmt.h"));
    EXPECT_FALSE(allowed("core/analysis.cpp"));
    EXPECT_FALSE(allowed("models/store_view.cpp"));
    const auto root = sourceRoot();
    const Scan scan = scanTree(root);
    ASSERT_GT(scan.files, 50) << "no sources under " << root;
    // The scan sees the SQL where it belongs (else it would see none anywhere).
    EXPECT_NE(std::find(scan.inside.begin(), scan.inside.end(), "core/store.cpp"), scan.inside.end());
    EXPECT_NE(std::find(scan.inside.begin(), scan.inside.end(), "core/query.cpp"), scan.inside.end());
    std::string list;
    for (const auto& v : scan.outside)
        list += "  " + v + "\n";
    EXPECT_TRUE(scan.outside.empty())
        << scan.outside.size()
        << " string literal(s) of SQL outside the query layer (core/query*) and the store (core/store*, "
           "core/sqlite_stmt.h); move them into a typed function there:\n"
        << list;
}
