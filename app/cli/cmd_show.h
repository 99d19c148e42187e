// SPDX-License-Identifier: MIT
#pragma once
// kbx show EVALUATION: one evaluation under the magnifier without a screen, as the workbench's
// inspector shows it: verdict, stage, class, detail, seeds, manual label, cases, the first failure's
// numeric evidence, and the perf stage (verdict against eager, attribution, flags, one line per perf
// shape with its launch gap and what it caught, the profiled kernels). --json: everything stored.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace kbxcli {

struct ShowArgs {
    std::int64_t evaluation = 0;
    std::string db;
    bool json = false;
};

/// Registers `kbx show EVALUATION [--db] [--json]` on the app.
CLI::App* addShowCommand(CLI::App& app, ShowArgs& args);
/// Runs it: 0 shown; 3 no database or no such evaluation; 5 database error. Writes nothing (a
/// writable database of an older schema is migrated, as by every reading command).
int runShow(const ShowArgs& args);

}  // namespace kbxcli
