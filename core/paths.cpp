// SPDX-License-Identifier: MIT
#include "paths.h"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <system_error>

#include <unistd.h>

#ifndef KBX_SOURCE_TASKS_DIR
#define KBX_SOURCE_TASKS_DIR ""
#endif
#ifndef KBX_DEFAULT_PYTHON
#define KBX_DEFAULT_PYTHON ""
#endif

namespace kbx {
namespace fs = std::filesystem;

namespace {
const char* env(const char* name)
{
    const char* v = std::getenv(name);
    return (v && *v) ? v : nullptr;
}

bool isFile(const fs::path& p)
{
    std::error_code ec;
    return !p.empty() && fs::is_regular_file(p, ec);
}

bool isExecutable(const fs::path& p)
{
    return isFile(p) && ::access(p.c_str(), X_OK) == 0;
}

/// PREFIX of an installed executable: bin/.. or libexec/kbx/../.. (empty in a build tree).
fs::path installPrefix()
{
    const fs::path dir = executableDir();
    for (const fs::path& prefix : {dir / "..", dir / ".." / ".."})
        if (isFile(prefix / "share" / "kbx" / "tasks" / "index.json")) {
            std::error_code ec;
            return fs::weakly_canonical(prefix, ec);
        }
    return {};
}

fs::path xdgDir(const char* var, const char* homeSub)
{
    if (auto* x = env(var))
        return x;
    if (auto* h = env("HOME"))
        return fs::path(h) / homeSub;
    return {};
}
}  // namespace

fs::path executableDir()
{
    std::error_code ec;
    auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path() : p.parent_path();
}

fs::path installedDataDir()
{
    if (auto* p = env("KBX_DATA_DIR"))
        return p;
    const auto prefix = installPrefix();
    return prefix.empty() ? fs::path() : prefix / "share" / "kbx";
}

fs::path defaultDatabasePath()
{
    if (auto* p = env("KBX_DB"))
        return p;
    if (auto* x = env("XDG_DATA_HOME"))
        return fs::path(x) / "kbx" / "kbx.sqlite";
    if (auto* h = env("HOME"))
        return fs::path(h) / ".local" / "share" / "kbx" / "kbx.sqlite";
    return fs::current_path() / "kbx.sqlite";
}

fs::path findWorker()
{
    fs::path found;
    if (auto* p = env("KBX_WORKER")) {
        found = p;
    } else {
        std::error_code ec;
        for (auto c : {executableDir() / "kbx-worker", executableDir() / ".." / "libexec" / "kbx" / "kbx-worker"})
            if (fs::exists(c, ec)) {
                found = fs::weakly_canonical(c, ec);
                break;
            }
    }
    if (!found.empty())
        exportWorkerEnvironment();
    return found;
}

fs::path findWorkbench()
{
    if (auto* p = env("KBX_WORKBENCH"))
        return p;
    std::error_code ec;
    auto c = executableDir() / "kbx-workbench";
    return fs::exists(c, ec) ? fs::weakly_canonical(c, ec) : fs::path();
}

fs::path findTasksDir()
{
    if (auto* p = env("KBX_TASKS_DIR"))
        return p;
    if (auto data = installedDataDir(); !data.empty() && isFile(data / "tasks" / "index.json"))
        return data / "tasks";
    const fs::path src = KBX_SOURCE_TASKS_DIR;
    if (!src.empty() && isFile(src / "index.json"))
        return src;
    std::error_code ec;
    return fs::weakly_canonical(executableDir() / ".." / "share" / "kbx" / "tasks", ec);
}

fs::path findHarnessDir()
{
    if (auto* p = env("KBX_HARNESS_DIR"))
        return p;
    const auto prefix = installPrefix();
    if (prefix.empty())
        return {};
    const auto h = prefix / "libexec" / "kbx" / "harness";
    std::error_code ec;
    return fs::is_directory(h / "kbx_harness", ec) ? h : fs::path();
}

fs::path defaultVenvDir()
{
    const auto base = xdgDir("XDG_DATA_HOME", ".local/share");
    return base.empty() ? fs::path() : base / "kbx" / "venv";
}

fs::path pythonRecordFile()
{
    const auto base = xdgDir("XDG_CONFIG_HOME", ".config");
    return base.empty() ? fs::path() : base / "kbx" / "python";
}

fs::path findPython()
{
    if (auto* p = env("KBX_PYTHON"))
        return p;
    // A development build keeps the venv it was configured with (its worker links that venv's LibTorch);
    // an installed kbx never uses the build machine's path.
    const fs::path built = KBX_DEFAULT_PYTHON;
    if (installPrefix().empty() && isExecutable(built))
        return built;
    if (const auto rec = pythonRecordFile(); isFile(rec)) {
        std::ifstream in(rec);
        std::string line;
        std::getline(in, line);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        if (!line.empty() && fs::path(line).is_absolute() && isExecutable(line))
            return line;
    }
    if (const auto venv = defaultVenvDir(); !venv.empty() && isExecutable(venv / "bin" / "python"))
        return venv / "bin" / "python";
    return {};
}

void exportWorkerEnvironment()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (!env("KBX_PYTHON"))
            if (auto py = findPython(); !py.empty())
                ::setenv("KBX_PYTHON", py.c_str(), 0);
        if (!env("KBX_HARNESS_DIR"))
            if (auto h = findHarnessDir(); !h.empty())
                ::setenv("KBX_HARNESS_DIR", h.c_str(), 0);
    });
}

}  // namespace kbx
