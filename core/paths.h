// SPDX-License-Identifier: MIT
#pragma once
#include <filesystem>

// Where kbx's programs find their files. An installed kbx finds everything relative to its own
// executable (PREFIX/bin/kbx -> PREFIX/libexec/kbx, PREFIX/share/kbx); environment variables
// override each path; a development build (build/bin/...) falls back to the source tree and to the
// venv it was configured with. Layout of an installed prefix (packaging/README.md):
//   bin/kbx, bin/kbx-workbench
//   libexec/kbx/kbx-worker (launcher), libexec/kbx/kbx-worker.bin, libexec/kbx/harness/ (kbx_harness)
//   share/kbx/tasks/ (index.json, <Category>/<stem>.py, worker/harness/), share/kbx/demo.sqlite,
//   share/kbx/syntax/triton.xml, share/kbx/examples/, share/kbx/requirements.txt

namespace kbx {

/// Directory of the running executable (from /proc/self/exe).
std::filesystem::path executableDir();
/// The installed data directory PREFIX/share/kbx of this executable ($KBX_DATA_DIR overrides), or
/// empty when this executable is not part of an installed prefix (a build tree).
std::filesystem::path installedDataDir();
/// $KBX_DB, else $XDG_DATA_HOME/kbx/kbx.sqlite, else ~/.local/share/kbx/kbx.sqlite.
std::filesystem::path defaultDatabasePath();
/// $KBX_WORKER, else kbx-worker beside the executable, else ../libexec/kbx/kbx-worker. Empty if none.
/// On success it also exports the worker's environment once (exportWorkerEnvironment()).
std::filesystem::path findWorker();
/// kbx-workbench beside kbx (or $KBX_WORKBENCH): `kbx report --figure` renders through it.
std::filesystem::path findWorkbench();
/// $KBX_TASKS_DIR, else the installed PREFIX/share/kbx/tasks (when it holds index.json), else the
/// source tree's tasks/ (development builds), else PREFIX/share/kbx/tasks.
std::filesystem::path findTasksDir();
/// $KBX_HARNESS_DIR, else PREFIX/libexec/kbx/harness of an installed kbx; empty in a build tree
/// (the worker then uses the source tree's harness compiled into it).
std::filesystem::path findHarnessDir();

/// The venv `kbx setup-python` makes by default: $XDG_DATA_HOME/kbx/venv, else ~/.local/share/kbx/venv.
std::filesystem::path defaultVenvDir();
/// The file in which `kbx setup-python` records its interpreter: $XDG_CONFIG_HOME/kbx/python, else
/// ~/.config/kbx/python (one line, an absolute path).
std::filesystem::path pythonRecordFile();
/// The Python interpreter of the worker's environment (torch, triton, numpy): $KBX_PYTHON; for a
/// development build the venv it was configured with (KBX_DEFAULT_PYTHON) when it exists; then the
/// interpreter recorded by `kbx setup-python`; then defaultVenvDir()/bin/python. Empty if none exists.
std::filesystem::path findPython();
/// Sets KBX_PYTHON (findPython()) and KBX_HARNESS_DIR (findHarnessDir()) in this process's
/// environment where they are unset and found, so every worker kbx starts, and the sandbox around
/// it, use the same interpreter and harness. Idempotent; called by findWorker() before any worker
/// thread starts.
void exportWorkerEnvironment();

}  // namespace kbx
