// SPDX-License-Identifier: MIT
// kbx's exit codes: one list for every command (docs/CLI.md, "Exit codes"). Scripts and the Slurm
// driver (which reads a shard's code) depend on these numbers: never renumber one.
#pragma once

namespace kbxcli {

enum ExitCode : int {
    /// Everything asked for was done (also: --help, --version; kbx eval --resume with nothing left).
    ExitOk = 0,
    /// kbx eval (and a Slurm run) finished, but some candidates could not be judged (harness errors)
    /// or, for a Slurm run, some shards did not finish; what was judged is stored.
    ExitUnjudged = 1,
    /// The command line is wrong: unknown option, bad value, options that do not go together, a
    /// --perf-config with an unknown key or a wrongly typed value. Nothing was done.
    ExitUsage = 2,
    /// An input is wrong: a missing file or directory, unknown task or category, a malformed
    /// submission or export, an unknown evaluation id. Nothing was written.
    ExitInput = 3,
    /// The environment is wrong: kbx-worker missing, Python/torch broken, no CUDA device where one was
    /// asked for, the task index unreadable, Slurm tools missing or sbatch refusing.
    ExitEnvironment = 4,
    /// The database cannot be opened, read or written (not a kbx database, read-only, damaged), or a
    /// merge into it failed.
    ExitDatabase = 5,
    /// kbx tasks --check found a task whose reference or known-good solution fails.
    ExitCheckFailed = 6,
    /// Stopped by Ctrl-C (SIGINT) or SIGTERM; what finished before is stored.
    ExitInterrupted = 130,
};

}  // namespace kbxcli
