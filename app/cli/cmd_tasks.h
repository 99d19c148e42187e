// SPDX-License-Identifier: MIT
#pragma once
// kbx tasks: the benchmark's tasks; kbx tasks --check: the self-check that runs every task's
// reference (and its known-good Triton solution) through the whole engine, set up by the same run
// plan as kbx eval (core/runplan.h).

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kbxcli {

struct TasksArgs {
    std::string category;
    bool json = false;
    bool check = false;
    // ---- --check ----
    int perfWorkers = 0;
    std::string warmWorkers = "auto";
    std::vector<std::string> perfBaselines;
    std::vector<std::string> tasks;  ///< only these task ids (Category/stem)
    bool onePerCategory = false;
    std::string device = "cpu";
    int jobs = 0;          ///< 0: picked from the host (core/runplan.h)
    std::string fixtures;  ///< known-good solutions, Category/stem.py (default: the source tree's)
    std::string db;        ///< keep the results there (default: a temporary database, removed)
    bool perf = false;     ///< also time references (self-speedup: the noise floor) and solutions
    std::string perfConfig;
    std::vector<std::string> gpus;  ///< multi-GPU pools (cuda only), as kbx eval --gpus
};

/// Registers `kbx tasks` (with --check and its options) on the app.
CLI::App* addTasksCommand(CLI::App& app, TasksArgs& args);
/// Runs it: the list (0; 3 for an unknown category) or the self-check (0 all ok, 6 some failed,
/// 2/3/4/5 as kbx eval, 130 interrupted).
int runTasks(const TasksArgs& args);

}  // namespace kbxcli
