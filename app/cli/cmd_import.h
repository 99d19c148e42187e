// SPDX-License-Identifier: MIT
#pragma once
// kbx import (the seed's outputs into the database). The statistics tables of kbx report are in
// cmd_report.h.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace kbxcli {

struct ImportArgs {
    std::string path;
    std::string db;
    std::string method;
    std::string gpu;
    std::optional<int> round;
    bool json = false;
};

/// Registers `kbx import PATH [--db] [--method] [--gpu] [--round] [--json]` on the app.
CLI::App* addImportCommand(CLI::App& app, ImportArgs& args);
/// Runs it; returns the exit code (0, 2 usage, 3 bad input: nothing written, 5 database).
int runImport(const ImportArgs& args);

}  // namespace kbxcli
