// SPDX-License-Identifier: MIT
#pragma once
// kbx import (the seed's outputs into the database) and the statistics tables of kbx report
// (--table deviance, --table rounds).

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

struct StatsTableArgs {
    std::string table;   ///< deviance | rounds
    std::string db;
    std::string format;  ///< text | json | csv
};

/// The tables this file renders.
bool isStatsTable(const std::string& name);
/// `kbx report --table deviance|rounds`: terminal table, JSON document or CSV; returns the exit code.
int runStatsTable(const StatsTableArgs& args);

}  // namespace kbxcli
