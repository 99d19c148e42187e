// SPDX-License-Identifier: MIT
#pragma once
// kbx merge, part of the store (its SQL lives with the store's, issue 25): folds result databases (e.g. the shard databases of a Slurm run) into one, idempotently.
//
// Mapping: methods by name,
// candidates by (task, code SHA-256) and submissions by (candidate, method, round) are shared as the
// store does; runs, evaluations, case results, timings and manual labels are copied with their ids
// remapped; imports are copied unless the target has the same import (SHA-256, format, options),
// with their golden timings (replacing the same GPU/task/index), round transitions and seed
// summaries; imported runs of an import the target already has are not copied again. The
// code-quality cache (schema v4) of submissions the target then has is copied unless the target
// has measured them itself. Inputs are read, never written (see mergeDatabase).
//
// Idempotence: the target keeps a ledger, created here and not part of the store's migrations:
//   merge_ledger(run_key PRIMARY KEY, content_sha256, run_id -> runs(id), status, evaluations,
//                source, merged_at)
// run_key is a run's identity:
//   "shard:<group>:<I>/<N>"  for a run of kbx eval --shard (args.shard_group, args.shard): every
//                            copy of the same shard of the same sharded run (a re-submitted shard)
//   "run:<sha256>"           otherwise: SHA-256 of the run's started_at, device, provenance, public
//                            and secret seeds and args (status and finished_at left out, so a copy
//                            taken while the run was going and a later copy are the same run)
// content_sha256 digests the run row and every evaluation (task, code hash, method, round, verdict,
// classes, detail, evidence, times, its case results, timings and label). For each run of a source:
//   key not in the ledger, and no run of the target with the same started_at, device, seeds and args
//                                  -> copied (added)
//   same key, same content         -> nothing (already merged: merging twice changes nothing)
//   same key, other content        -> the copy in the target is replaced (its evaluations, cases,
//                                     timings and labels deleted, the new copy inserted) unless the
//                                     target's copy is complete (finished, finished_with_errors,
//                                     imported) and the new one is not, or both are equally complete
//                                     and the new one started earlier: then the target's is kept.
// A target run that matches but has no ledger row (the target began as a copy of a source) is
// entered in the ledger first. Each source is merged in one transaction.
//
// Excluded methods (MergeOptions, `kbx merge --exclude-method`): their evaluations (with cases,
// timings and labels) and submissions are not copied, and they are left out of the content digest of
// both copies, so merging the same input with the same exclusions twice changes nothing, and a later
// merge of it without them replaces the filtered copy. The runs themselves are copied (a run may end
// up with no evaluation). E.g. the demo database leaves out the self-check's `reference` submissions.
#include <cstdint>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbx {

class MergeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct MergeReport {
    std::string source;
    int runsAdded = 0;
    int runsReplaced = 0;
    int runsUnchanged = 0;  ///< already merged, same content
    int runsKept = 0;       ///< a different copy the rules above keep out (the target's is complete / newer)
    int evaluationsAdded = 0;
    int evaluationsRemoved = 0;  ///< of replaced copies
    int evaluationsExcluded = 0; ///< of excluded methods (MergeOptions), not copied
    int importsAdded = 0;
    int importsSkipped = 0;      ///< the target already had them
    int codeQualityAdded = 0;    ///< cached code-quality rows (a cache: not counted by changed())
    std::vector<std::string> notes;  ///< one line per replaced or kept run
    bool changed() const { return runsAdded + runsReplaced + importsAdded > 0; }
};

struct MergeOptions {
    std::set<std::string> excludeMethods;  ///< method names whose evaluations are not copied
};

/// Merges `source` into `target` (created when missing) in one transaction. The target is opened
/// through kbx::Store read-write (an older schema migrated in place; a newer one, or a file this
/// user cannot write, refused with StoreError). The source is only read, never written: opened
/// read-only as a read-only kbx::Store opens it (so it may be a database this user cannot write,
/// e.g. the installed demo or a shard on a read-only mount; a newer schema or a file that is no kbx
/// database is refused with the store's StoreError); a source of an older schema is copied to a
/// temporary directory, the copy migrated and merged, and the copy removed. Throws MergeError for a
/// source that is the target, or that holds rows in a table this merge does not know (nothing is
/// written then).
MergeReport mergeDatabase(const std::filesystem::path& target, const std::filesystem::path& source,
                          const MergeOptions& options = {});

/// The ledger key of a run (see above) from its row; exposed for tests and `kbx merge --json`.
std::string runMergeKey(const std::string& startedAt, const std::string& device, const std::string& provenance,
                        const std::string& publicSeeds, std::int64_t secretSeed, const std::string& args);

}  // namespace kbx
