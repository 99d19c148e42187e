// SPDX-License-Identifier: MIT
#pragma once
// kbx eval --resume: after a run was killed (SIGKILL, power loss), evaluate only what is missing.
//
// The rule (also in README.md and `kbx eval --help`): a submission counts as done when the database
// holds an evaluation of the same task, the same code (SHA-256 of the cleaned code), the same method
// and the same round on the same device (runs.device: cpu or cuda), from any run. Imported verdicts
// (device "imported") do not count; candidates that could not be judged were never stored and are
// evaluated again. Everything else is evaluated in a new run.
//
// A killed run keeps status 'running' and no finished_at (nothing could write them). --resume finds
// the unfinished runs of the same source, method, round and device whose kbx is gone, marks them
// 'interrupted' with finished_at = their last committed evaluation (their start when there is none),
// and the new run records the latest of them in its args ("resumes": id) and reuses its public and
// secret seeds, so the resumed part sees the same cases.
#include "importers.h"
#include "store.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbx {

/// An unfinished run (status 'running') as read from the database.
struct UnfinishedRun {
    std::int64_t id = 0;
    std::string startedAt;
    std::vector<std::int64_t> publicSeeds;
    std::int64_t secretSeed = 0;
    nlohmann::json args = nlohmann::json::object();
    std::string host;   ///< provenance.host
    std::int64_t pid = 0;  ///< args.pid (0: not recorded)
    int evaluations = 0;   ///< evaluations it committed
    bool alive = false;    ///< its kbx process still runs on this host
};

/// What `kbx eval --resume` will do.
struct ResumePlan {
    std::vector<Submission> todo;         ///< not yet evaluated, in source order
    std::vector<Submission> done;         ///< already evaluated (the rule above)
    std::vector<UnfinishedRun> interrupted;  ///< unfinished runs of this source whose kbx is gone, newest first
    std::vector<UnfinishedRun> inProgress;   ///< unfinished runs of this source whose kbx still runs here
    /// The run continued: the newest of `interrupted`, if any.
    const UnfinishedRun* continues() const { return interrupted.empty() ? nullptr : &interrupted.front(); }
};

/// Identifies the work: the source as given and its absolute path, the defaults for submissions
/// that carry no method/round of their own, and the device the run evaluates on (cpu or cuda).
struct ResumeKey {
    std::string source;       ///< as given on the command line (args.source)
    std::string sourcePath;   ///< absolute, normalised (args.source_path)
    std::string method = "default";
    int round = 0;
    std::string device = "cpu";
};

/// Reads the database and splits the submissions into done and to do; finds the unfinished runs of
/// the same work. Reads only. Throws StoreError on a database error, std::invalid_argument for a
/// device that is not a plain name.
ResumePlan planResume(const Store& store, const std::vector<Submission>& submissions, const ResumeKey& key);

/// Marks the plan's interrupted runs 'interrupted' (Store::markRunInterrupted). Returns how many
/// this call marked (a run another kbx marked meanwhile is not counted).
int markInterrupted(Store& store, const ResumePlan& plan);

/// Whether a kbx process with this pid runs on this machine (not a zombie, command name kbx*).
bool kbxProcessAlive(std::int64_t pid);

/// This machine's host name (as the run provenance records it).
std::string thisHost();

}  // namespace kbx
