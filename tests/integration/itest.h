// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the end-to-end tests: run kbx, read its JSON lines, pick the device.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kbx_it {
namespace fs = std::filesystem;

inline const fs::path kFixtures = KBX_FIXTURES_DIR;

inline std::string device()
{
    const char* d = std::getenv("KBX_TEST_DEVICE");
    return d && *d ? d : "cpu";
}

struct Cmd {
    int rc = -1;
    std::string out;
};

inline Cmd run(const std::string& cmd)
{
    Cmd r;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    std::array<char, 65536> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        r.out.append(buf.data(), n);
    int st = pclose(p);
    r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

inline std::string kbxBin() { return KBX_BIN; }

inline std::vector<nlohmann::json> jsonLines(const std::string& text)
{
    std::vector<nlohmann::json> v;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty() && line[0] == '{')
            v.push_back(nlohmann::json::parse(line));
    return v;
}

inline std::string readFile(const fs::path& p)
{
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline fs::path tempPath(const std::string& name)
{
    auto p = fs::temp_directory_path() / ("kbx-it-" + std::to_string(getpid()) + "-" + device() + "-" + name);
    fs::remove_all(p);
    return p;
}

/// Removes this process's tempPath() files and folders at the end of a run whose tests all passed;
/// after a failure they stay for a look (their names carry the process id and the test's name).
class TempCleanup : public ::testing::Environment {
public:
    void TearDown() override
    {
        if (!::testing::UnitTest::GetInstance()->Passed())
            return;
        const std::string prefix = "kbx-it-" + std::to_string(getpid()) + "-";
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec))
            if (e.path().filename().string().rfind(prefix, 0) == 0)
                fs::remove_all(e.path(), ec);
    }
};
inline const bool kTempCleanupRegistered = (::testing::AddGlobalTestEnvironment(new TempCleanup), true);

inline bool cudaAvailable()
{
    auto r = run(std::string(KBX_WORKER_BIN) + " probe 3>&1 1>/dev/null 2>/dev/null | tr -c '[:print:]' '\\n' | grep -c '\"cuda_available\":true'");
    return r.out.find('1') != std::string::npos;
}

// GTEST_SKIP returns from the current function only: keep it in the test body.
#define REQUIRE_DEVICE()                                    \
    do {                                                    \
        if (device() == "cuda" && !cudaAvailable())         \
            GTEST_SKIP() << "no CUDA device visible to the worker"; \
    } while (0)

}  // namespace kbx_it
