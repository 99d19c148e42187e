// SPDX-License-Identifier: MIT
#pragma once
// kbx merge OUT.sqlite IN.sqlite...: folds result databases (e.g. the shard databases of a Slurm
// run) into OUT, one transaction per input, idempotently (core/store_merge.h has the rules).

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kbxcli {

struct MergeArgs {
    std::string out;
    std::vector<std::string> inputs;
    std::vector<std::string> excludeMethods;
    bool json = false;
};

/// Registers `kbx merge OUT IN... [--exclude-method NAME]... [--json]` on the app.
CLI::App* addMergeCommand(CLI::App& app, MergeArgs& args);
/// Runs it: 0 merged (or nothing to do), 3 an input is missing or refused (nothing of it written),
/// 5 database error. Inputs before a failing one stay merged (each is its own transaction).
int runMerge(const MergeArgs& args);

}  // namespace kbxcli
