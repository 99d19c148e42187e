// SPDX-License-Identifier: MIT
#pragma once
// kbx eval --shard I/N (one part of a submission set) and kbx eval --backend slurm (a job array of
// shards, polled with squeue/sacct, cancelled with scancel, failed shards re-submitted, shard
// databases merged into --db). Rules and layout: docs/SCALING.md; pure parts: core/slurm.h; the driver
// itself: core/slurm_driver.h (here: its options from the command line, its events printed).

#include "importers.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbxcli {

struct SlurmArgs {
    std::string shard;          ///< kbx eval --shard I/N
    std::string backend = "local";
    std::string partition;
    int gpusPerTask = 0;
    int cpusPerTask = 0;
    int maxJobs = 0;
    int shards = 0;             ///< 0: min(submissions, --max-jobs or 8)
    std::string workDir;
    std::string resubmit;       ///< a work directory of an earlier --backend slurm run
    int retries = 1;            ///< automatic re-submissions of a failed shard
    double poll = 10;           ///< seconds between squeue/sacct polls
    std::string timeLimit;      ///< sbatch --time
};

/// Registers --shard and the Slurm options on `kbx eval`; SOURCE becomes optional with --resubmit.
void addSlurmOptions(CLI::App* eval, SlurmArgs& args);
/// Whether this kbx eval goes to Slurm (--backend slurm or --resubmit).
bool slurmRequested(const SlurmArgs& args);

/// kbx eval --shard: keeps only shard I/N of `subs` (core/slurm.h) and returns what the run's args
/// record (shard, shard_group, shard_of, shard_size). Draws the secret seed when none is set (and
/// says so: every shard of one run must get the same --secret-seed). Returns an exit code to stop
/// with (2 for a bad spec, 0 for an empty shard: nothing to do), or nullopt to go on.
std::optional<int> applyShard(const std::string& spec, const std::string& source, const std::string& method, int round,
                              const std::string& device, const std::vector<std::int64_t>& publicSeeds,
                              std::vector<kbx::Submission>& subs, std::optional<std::int64_t>& secretSeed, nlohmann::json& args);

/// The Slurm placement of this process for the run's provenance (null outside Slurm).
nlohmann::json slurmProvenance();

struct SlurmEvalInput {
    std::string source;
    std::string db;
    std::optional<std::int64_t> secretSeed;
    std::string method = "default";
    int round = 0;
    bool skipUnknown = false;
};

/// kbx eval --backend slurm (or --resubmit WORK): returns kbx's exit code (0 all shards merged; 1
/// some shards did not finish or some candidates could not be judged; 2 usage; 3 bad input; 4 no
/// Slurm; 5 database; 130 interrupted, after scancel). Shards are merged into the target as they
/// complete. With kbx eval's --json, one JSON object per event goes to stdout (plan, submitted,
/// shard, shard_done, shard_failed, merged, summary, cancelled, error, end: docs/SCALING.md), which
/// the workbench's run panel reads (models/slurmrun.cpp).
int runSlurmEval(const CLI::App& eval, const SlurmArgs& args, const SlurmEvalInput& input);

}  // namespace kbxcli
