// SPDX-License-Identifier: MIT
#pragma once
// The Slurm backend's driver (kbx eval --backend slurm, docs/SCALING.md): plans a run (the source
// validated, shards, the job-array script, run.json, the secret seed in a file only its owner
// reads) or continues one from its work directory (--resubmit), submits the array with sbatch,
// polls squeue/sacct, re-submits failed shards from scratch, merges complete shard databases into
// the target as they come in, and scancels the array tasks when cancelled. Its pure parts (script,
// command lines, parsers) are core/slurm.h.
//
// It prints nothing itself: everything it has to say goes to an event callback, as a line for
// people (what kbx writes to stderr) and/or a JSON event for programs (what kbx eval --json writes
// to stdout, one object a line; the workbench runs the driver itself, models/slurmrun, and reads
// the same objects from the callback: plan, shard_checked, submitted, sbatch_failed, shard,
// shard_done, shard_failed, merged, merge_failed, summary, cancelled, error, end). The callback is
// called on the thread that runs the driver.
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbx {

/// A Slurm run's result, as kbx's exit codes (app/cli/exitcodes.h; the CLI checks the numbers agree).
/// They also appear in the "exit" of the events, and a shard's kbx eval writes its own to shard-I.rc.
enum class SlurmExit : int {
    Ok = 0,            ///< every shard merged
    Unjudged = 1,      ///< some shards did not finish, or some candidates could not be judged
    Usage = 2,         ///< the work directory already holds a run
    Input = 3,         ///< the source is wrong, or the work directory cannot be written
    Environment = 4,   ///< Slurm client tools missing, or sbatch refused the array
    Database = 5,      ///< a merge into the target failed
    Interrupted = 130, ///< cancelled (after scancel of the array tasks)
};

struct SlurmDriverOptions {
    // ---- A new run ----
    std::string source;                     ///< submissions (validated here before anything is submitted)
    std::string db;                         ///< the target database ("" = kbx's default)
    std::optional<std::int64_t> secretSeed; ///< drawn when unset
    bool skipUnknown = false;
    std::filesystem::path kbx;              ///< the kbx executable every array task runs
    std::vector<std::string> evalArgs;      ///< kbx eval options forwarded to every array task
    std::filesystem::path tasksDir;         ///< the benchmark ("" = findTasksDir())
    // ---- The job array ----
    std::string partition;
    int gpusPerTask = 0;
    int cpusPerTask = 0;
    int maxJobs = 0;                        ///< array tasks running at once (0: no limit)
    int shards = 0;                         ///< 0: min(submissions, maxJobs or 8)
    std::string workDir;                    ///< "" = ./kbx-slurm-<date>-<id>
    std::string timeLimit;                  ///< sbatch --time
    int retries = 1;                        ///< automatic re-submissions of a failed shard
    double poll = 10;                       ///< seconds between squeue/sacct polls
    /// Variables added to sbatch's environment, which sbatch hands to the array tasks (the
    /// workbench's KBX_TASKS_DIR, KBX_WORKER; kbx's own environment reaches them anyway).
    std::map<std::string, std::string> env;
    std::filesystem::path submitDir;        ///< sbatch's working directory, the array tasks' too ("" = this process's)
    // ---- Or continue one ----
    std::string resubmit;                   ///< the work directory of an earlier run (source ignored)
};

/// One thing the driver reports: `text` (a line or lines for people, "" = none) and/or `json` (an
/// event, null = none). The text of an event comes before its JSON.
struct SlurmEvent {
    std::string text;
    nlohmann::json json;
};
using SlurmEventFn = std::function<void(const SlurmEvent&)>;

/// Runs (or continues) a Slurm run to its end. `cancel` (may be null) set stops it: before anything
/// is submitted it just stops, afterwards the array tasks are scancelled first; either way
/// Interrupted. Slurm's client tools are looked up on $PATH.
SlurmExit runSlurmDriver(const SlurmDriverOptions& options, const SlurmEventFn& onEvent, const std::atomic<bool>* cancel);

/// Where a shard stands after its array task ended: its database holds a finished run of this shard.
struct ShardResult {
    bool complete = false;
    int exitCode = -1;       ///< kbx's exit code from shard-I.rc (-1: none written)
    std::string why;         ///< when not complete
    int evaluations = 0;
    int passed = 0;
    std::string node;
};
/// Reads shard `shard` of `shards` in the work directory (shard-I.rc and shard-I.sqlite).
ShardResult inspectShard(const std::filesystem::path& work, int shard, int shards);

}  // namespace kbx
