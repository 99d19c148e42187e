// SPDX-License-Identifier: MIT
#include "paths.h"

#include <cstdlib>
#include <system_error>

#ifndef KBX_SOURCE_TASKS_DIR
#define KBX_SOURCE_TASKS_DIR ""
#endif

namespace kbx {
namespace fs = std::filesystem;

namespace {
const char* env(const char* name)
{
    const char* v = std::getenv(name);
    return (v && *v) ? v : nullptr;
}
}  // namespace

fs::path executableDir()
{
    std::error_code ec;
    auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path() : p.parent_path();
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
    if (auto* p = env("KBX_WORKER"))
        return p;
    std::error_code ec;
    for (auto c : {executableDir() / "kbx-worker", executableDir() / ".." / "libexec" / "kbx" / "kbx-worker"})
        if (fs::exists(c, ec))
            return fs::weakly_canonical(c, ec);
    return {};
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
    std::error_code ec;
    const fs::path src = KBX_SOURCE_TASKS_DIR;
    if (!src.empty() && fs::exists(src / "index.json", ec))
        return src;
    return fs::weakly_canonical(executableDir() / ".." / "share" / "kbx" / "tasks", ec);
}

}  // namespace kbx
