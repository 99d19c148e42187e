// SPDX-License-Identifier: MIT
#pragma once
// kbx eval SOURCE: evaluates submissions on this machine (core/Evaluator), as set up by one run plan
// (core/runplan.h), or hands them to the Slurm backend (cmd_slurm.h). Options: docs/CLI.md.

#include "cmd_slurm.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbxcli {

struct EvalArgs {
    int perfWorkers = 0;
    std::string autotuneReplay;  ///< --autotune-replay DB
    std::vector<std::string> perfBaselines;
    std::string source;
    std::string method = "default";
    int round = 0;
    std::string db;
    std::string device = "auto";
    int jobs = 0;  ///< 0: picked from the host (core/runplan.h)
    bool json = false;
    double timeout = 0;
    std::string seedsText;  ///< --seeds as given (parsed into `seeds`)
    std::vector<std::int64_t> seeds{0, 1};
    std::optional<std::int64_t> secretSeed;
    std::string secretSeedFile;  ///< --secret-seed-file
    bool keepScratch = false;
    std::string scratch;
    bool skipUnknown = false;
    std::string sandbox = "auto";
    std::string warmWorkers = "auto";
    int referenceServers = -1;  ///< --reference-servers
    std::string protocol = "contract";
    std::string extendedStart = "auto";  ///< --extended-start
    bool perf = false;
    std::string perfConfig;
    std::vector<std::string> gpus;
    bool resume = false;      ///< evaluate only what the database lacks (core/resume.h)
    bool seedsGiven = false;  ///< --seeds was on the command line
    SlurmArgs slurm;          ///< --shard, --backend slurm and its options (cmd_slurm.h)
};

/// Registers `kbx eval` and its options (the Slurm backend's included) on the app.
CLI::App* addEvalCommand(CLI::App& app, EvalArgs& args);

/// The secret seed from --secret-seed-file or $KBX_SECRET_SEED (read once, then blanked and
/// removed from the environment, whether used or not), where --secret-seed did not give one.
/// Returns an exit code (2: not an integer, or the file cannot be read) or nullopt to go on.
std::optional<int> takeSecretSeed(EvalArgs& args);

/// A --perf-config or --perf-baseline that is not an object of known keys and types: said, and 2;
/// nullopt when they are fine (checked before anything starts; the run applies them again).
std::optional<int> checkPerfOverrides(const std::string& perfConfig, const std::vector<std::string>& baselines);

/// Runs it: locally, or with --backend slurm / --resubmit through the Slurm driver. kbx's exit code.
int runEval(const CLI::App& eval, EvalArgs& args);

}  // namespace kbxcli
