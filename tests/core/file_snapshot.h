// SPDX-License-Identifier: MIT
// Test helpers: a file's bytes and modification time, to check that something left it untouched, and a
// database file's schema version as SQLite itself reads it.
#pragma once

#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kbx_test {

/// The bytes and the modification time (ns) of a file.
struct Snapshot {
    std::string bytes;
    long long mtimeNs = 0;
    bool operator==(const Snapshot&) const = default;
};

inline Snapshot snapshot(const std::filesystem::path& p)
{
    Snapshot s;
    std::ifstream in(p, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    s.bytes = os.str();
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0)
        s.mtimeNs = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    return s;
}

/// PRAGMA user_version of a file, read through a read-only connection of SQLite's own (-1 where it
/// cannot be read).
inline int userVersion(const std::filesystem::path& p)
{
    sqlite3* db = nullptr;
    int v = -1;
    if (sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

}  // namespace kbx_test
