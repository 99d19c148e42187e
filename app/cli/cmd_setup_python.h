// SPDX-License-Identifier: MIT
#pragma once
// kbx setup-python: the Python side of kbx-worker (torch, Triton, numpy, radon), which no
// distribution package provides, in a venv that kbx, kbx-workbench and the worker then find
// (core/paths.h: findPython()).

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kbxcli {

struct SetupPythonArgs {
    std::string venv;                   ///< default kbx::defaultVenvDir() (~/.local/share/kbx/venv)
    std::string python;                 ///< base interpreter; default python<the worker's X.Y> on PATH
    std::string requirements;           ///< default: the installed share/kbx/requirements.txt (or the source tree's)
    std::vector<std::string> pipArgs;   ///< passed to every pip install (e.g. --index-url=...)
    bool noInstall = false;             ///< create the venv and record it, install nothing
    bool noRecord = false;              ///< do not record the interpreter in ~/.config/kbx/python
};

/// Registers `kbx setup-python [--venv DIR] [--python PY] [--requirements FILE] [--pip-arg A]...
/// [--no-install] [--no-record]` on the app.
CLI::App* addSetupPythonCommand(CLI::App& app, SetupPythonArgs& args);
/// Runs it; returns the exit code (0 done, 2 usage, 3 bad requirements file, 4 environment: no
/// suitable Python, venv or pip failed, the result cannot import torch/triton/numpy). On failure a
/// venv it created is removed again and nothing is recorded.
int runSetupPython(const SetupPythonArgs& args);

}  // namespace kbxcli
