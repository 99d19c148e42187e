// SPDX-License-Identifier: MIT
#pragma once
// kbx strip-code DB...: a results database of third-party kernels made fit to share, in place
// (kbx::Store::stripCode: verdicts, cases, timings and tiers stay; the kernels' code does not).

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kbxcli {

struct StripArgs {
    std::vector<std::string> databases;
    bool json = false;
};

/// Registers `kbx strip-code DB... [--json]` on the app.
CLI::App* addStripCommand(CLI::App& app, StripArgs& args);
/// Runs it: 0 done, 3 a database is missing or empty (nothing stripped), 5 not a kbx database or not
/// writable. Databases before a failing one stay stripped (each is its own transaction).
int runStrip(const StripArgs& args);

}  // namespace kbxcli
