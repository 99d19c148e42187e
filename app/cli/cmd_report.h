// SPDX-License-Identifier: MIT
#pragma once
// kbx report: the per category x method counts (default), the statistics tables
// (--table NAME: core/stats_tables) in four formats, and figures (--figure NAME --out FILE, drawn by
// kbx-workbench's chart code).

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kbxcli {

struct ReportArgs {
    std::string db;
    bool json = false;
    bool csv = false;
    bool latex = false;
    std::string table;
    std::string figure;
    std::string out;
    std::vector<std::string> methods;
    std::vector<std::string> gpus;
    std::vector<int> rounds;
    std::vector<std::string> categories;
    bool noQuality = false;
    bool readOnly = false;  ///< --read-only (also chosen by itself for a database this user cannot write)
    bool allTasks = false;
    bool provenanceLine = false;  ///< --figure: the provenance printed under the figure  ///< --all-tasks: also tasks outside the benchmark (imported corpora carry some)
};

/// Registers `kbx report` with its options on the app.
CLI::App* addReportCommand(CLI::App& app, ReportArgs& args);
/// Runs it; returns the exit code (0; 2 usage; 3 no database; 4 no workbench for figures; 5 database).
int runReport(const ReportArgs& args);

}  // namespace kbxcli
