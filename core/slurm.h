// SPDX-License-Identifier: MIT
#pragma once
// Sharding of a submission set and the Slurm backend's pure parts: the job-array script, the
// sbatch/squeue/sacct/scancel command lines and the parsers of their output. No process is started
// here (core/slurm_driver.h drives Slurm); everything is unit-tested in tests/core/slurm_test.cpp.
//
// Sharding rule (docs/SCALING.md): every submission gets the key
//   task id, SHA-256 of its cleaned code, method, round   (method/round: its own, else the run's)
// the submissions are ordered by that key (the source's order breaks ties between identical
// records), and shard I of N takes the I-th of N contiguous blocks of near-equal size (sizes differ
// by at most one). The partition depends on the submission set only, not on file order, so N shard
// runs of the same source cover every submission exactly once, and candidates of one task mostly
// share a shard (one reference computation per task and shard).
#include "importers.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbx {

struct ShardSpec {
    int index = 0;  ///< 0 <= index < count
    int count = 1;
    std::string str() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// Parses "I/N" (0 <= I < N, 1 <= N <= 100000). Throws std::invalid_argument naming the problem.
ShardSpec parseShard(const std::string& text);

/// The sharding key of one submission (see above); method/round default to the run's.
std::string shardKey(const Submission& s, const std::string& defaultMethod, int defaultRound);

/// Indices into `subs` of the submissions of `shard`, in source order.
std::vector<std::size_t> shardIndices(const std::vector<Submission>& subs, const ShardSpec& shard,
                                      const std::string& defaultMethod, int defaultRound);

/// A fresh secret seed for a sharded run (0 <= seed < 2^47), from std::random_device.
std::int64_t drawSecretSeed();

/// Identity of one sharded run (kbx eval --shard): a hex SHA-256 over the source, method, round,
/// device, public and secret seeds and the shard count. Every shard of one run has the same group;
/// kbx merge replaces an earlier copy of the same group and shard index instead of adding another.
std::string shardGroup(const std::string& source, const std::string& method, int round, const std::string& device,
                       const std::vector<std::int64_t>& publicSeeds, std::int64_t secretSeed, int shardCount);

// ---- Slurm --------------------------------------------------------------------------------------

/// What the array job runs (one kbx eval per array task).
struct SlurmJobSpec {
    std::filesystem::path kbx;          ///< absolute path of the kbx executable
    std::filesystem::path workDir;      ///< absolute; shard databases, logs, the script, run.json
    std::string source;                 ///< absolute path of the submissions
    int shards = 1;
    int maxJobs = 0;                    ///< array tasks running at once (0: no limit)
    std::string partition;
    int gpusPerTask = 0;                ///< --gres=gpu:N per array task (0: none)
    int cpusPerTask = 0;                ///< 0: Slurm's default
    std::string timeLimit;              ///< sbatch --time (empty: the partition's default)
    std::string jobName = "kbx-eval";
    std::vector<std::string> evalArgs;  ///< forwarded kbx eval options (device, seeds, --secret-seed, ...)
};

/// Quotes for a POSIX shell (single quotes; a plain word stays as it is).
std::string shellQuote(const std::string& word);
std::filesystem::path shardDatabase(const std::filesystem::path& workDir, int shard);
std::filesystem::path shardExitFile(const std::filesystem::path& workDir, int shard);

/// The job-array script (bash): #SBATCH lines, then one `kbx eval SOURCE --shard $I/N --db
/// WORK/shard-$I.sqlite ...` per array task, after removing that shard's database (a shard always
/// starts from scratch); the exit status of kbx goes to WORK/shard-$I.rc, and 0 or 1 (finished,
/// some candidates not judged) end the task successfully.
std::string arrayScript(const SlurmJobSpec& spec);
/// sbatch's --array value: "0-2" (all), "1,4" (some), with "%M" when maxJobs > 0.
std::string arraySpec(int shards, int maxJobs, const std::vector<int>& only = {});
/// sbatch --parsable [--array=...] SCRIPT (the script's own #SBATCH --array is overridden when `only` is set).
std::vector<std::string> sbatchCommand(const std::filesystem::path& script, int shards, int maxJobs,
                                       const std::vector<int>& only = {});
/// The job id from sbatch --parsable's output ("123" or "123;cluster"); nullopt when there is none.
std::optional<std::string> parseSbatchJobId(const std::string& out);
/// squeue for one job, array tasks one a line, finished ones too while slurmctld remembers them:
/// lines "JOBID_TASK|STATE|EXIT|NODES" (squeue has no exit code column in this form: "-").
std::vector<std::string> squeueCommand(const std::string& jobId);
/// sacct for jobs (allocations only): lines "JOBID_TASK|STATE|EXITCODE|NODELIST".
std::vector<std::string> sacctCommand(const std::vector<std::string>& jobIds);
/// scancel of a whole job, or of one array task.
std::vector<std::string> scancelCommand(const std::string& jobId, std::optional<int> task = std::nullopt);

/// Where one array task is, as squeue or sacct says.
struct ArrayTaskState {
    std::string jobId;     ///< the array job's id
    int task = -1;         ///< array index = shard
    std::string state;     ///< PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ... (upper case, no "by N")
    std::string exitCode;  ///< "0:0" (sacct), "-" when unknown
    std::string nodes;     ///< node list ("" when none assigned)
};

/// Parses "JOBID|STATE|EXITCODE|NODELIST" lines of squeue or sacct for array tasks of `jobId`:
/// "123_4" is task 4, "123_[0-3,7%2]" (pending tasks not yet split) stands for tasks 0..3 and 7;
/// step lines ("123_4.batch") and other jobs are ignored. Later lines override earlier ones.
std::map<int, ArrayTaskState> parseJobTable(const std::string& out, const std::string& jobId);

enum class TaskPhase { Pending, Running, Succeeded, Failed };
/// PENDING/CONFIGURING/REQUEUED/SUSPENDED... -> Pending; RUNNING/COMPLETING... -> Running;
/// COMPLETED -> Succeeded; every other terminal state (FAILED, CANCELLED, TIMEOUT, NODE_FAIL,
/// OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE) -> Failed. Unknown states count as Running.
TaskPhase taskPhase(const std::string& state);
std::string phaseName(TaskPhase phase);

/// The Slurm placement of this process (SLURM_JOB_ID, SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID,
/// SLURMD_NODENAME, SLURM_JOB_PARTITION, SLURM_CLUSTER_NAME, CUDA_VISIBLE_DEVICES, SLURM_JOB_GPUS)
/// as recorded in a run's provenance ("slurm"); null outside a Slurm job. `env` looks a name up.
nlohmann::json slurmPlacement(const std::function<const char*(const char*)>& env);

}  // namespace kbx
