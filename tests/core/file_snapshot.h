// SPDX-License-Identifier: MIT
// Test helper: a file's bytes and modification time, to check that something left it untouched.
#pragma once

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

}  // namespace kbx_test
