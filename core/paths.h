// SPDX-License-Identifier: MIT
#pragma once
#include <filesystem>

namespace kbx {

/// Directory of the running executable (from /proc/self/exe).
std::filesystem::path executableDir();
/// $KBX_DB, else $XDG_DATA_HOME/kbx/kbx.sqlite, else ~/.local/share/kbx/kbx.sqlite.
std::filesystem::path defaultDatabasePath();
/// $KBX_WORKER, else kbx-worker beside the executable, else ../libexec/kbx/kbx-worker. Empty if none.
std::filesystem::path findWorker();
/// kbx-workbench beside kbx (or $KBX_WORKBENCH): `kbx report --figure` renders through it.
std::filesystem::path findWorkbench();
/// $KBX_TASKS_DIR, else the source tree's tasks/ (development builds), else ../share/kbx/tasks.
std::filesystem::path findTasksDir();

}  // namespace kbx
