// SPDX-License-Identifier: MIT
#include "cmd_merge.h"
#include "exitcodes.h"

#include "store.h"
#include "store_merge.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

namespace kbxcli {

CLI::App* addMergeCommand(CLI::App& app, MergeArgs& a)
{
    auto* cmd = app.add_subcommand("merge", "Fold result databases (e.g. Slurm shard databases) into one, idempotently");
    cmd->add_option("OUT", a.out, "Database to merge into (created when missing)")->required();
    cmd->add_option("INPUT", a.inputs, "Databases to merge from, in this order")->required();
    cmd->add_option("--exclude-method", a.excludeMethods,
                    "Leave out this method's submissions and evaluations (repeatable; e.g. the self-check's reference)");
    cmd->add_flag("--json", a.json, "One JSON object per input on stdout");
    cmd->footer(
        "Each input is merged in one transaction. Merging the same input twice changes nothing; a later copy of\n"
        "the same shard of a sharded run (kbx eval --shard) replaces a partial one. Rules: docs/SCALING.md.");
    return cmd;
}

int runMerge(const MergeArgs& a)
{
    // Everything named must exist before anything is merged.
    for (const auto& in : a.inputs) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(in, ec)) {
            std::cerr << fmt::format("kbx merge: {}: no such database file; nothing merged\n", in);
            return ExitInput;
        }
    }
    int rc = ExitOk;
    kbx::MergeOptions options;
    options.excludeMethods.insert(a.excludeMethods.begin(), a.excludeMethods.end());
    for (const auto& in : a.inputs) {
        try {
            auto r = kbx::mergeDatabase(a.out, in, options);
            if (a.json) {
                std::cout << nlohmann::json{{"input", in},
                                            {"runs_added", r.runsAdded},
                                            {"runs_replaced", r.runsReplaced},
                                            {"runs_unchanged", r.runsUnchanged},
                                            {"runs_kept", r.runsKept},
                                            {"evaluations_added", r.evaluationsAdded},
                                            {"evaluations_removed", r.evaluationsRemoved},
                                            {"evaluations_excluded", r.evaluationsExcluded},
                                            {"imports_added", r.importsAdded},
                                            {"imports_skipped", r.importsSkipped},
                                            {"notes", r.notes}}
                                 .dump()
                          << std::endl;
            }
            std::cerr << fmt::format("kbx merge: {}: {} run(s) added, {} replaced, {} already merged{}; {} evaluation(s) added{}{}{}\n", in,
                                     r.runsAdded, r.runsReplaced, r.runsUnchanged,
                                     r.runsKept ? fmt::format(", {} older/partial copy(ies) left out", r.runsKept) : "",
                                     r.evaluationsAdded, r.evaluationsRemoved ? fmt::format(", {} removed", r.evaluationsRemoved) : "",
                                     r.evaluationsExcluded ? fmt::format(", {} of excluded methods left out", r.evaluationsExcluded) : "",
                                     r.importsAdded + r.importsSkipped ? fmt::format("; imports: {} added, {} already there", r.importsAdded, r.importsSkipped) : "");
            for (const auto& n : r.notes)
                std::cerr << "  " << n << "\n";
        } catch (const kbx::MergeError& e) {
            std::cerr << "kbx merge: " << e.what() << "\n";
            return ExitInput;
        } catch (const kbx::StoreError& e) {
            std::cerr << "kbx merge: " << in << ": " << e.what() << "\n";
            return ExitDatabase;
        }
    }
    return rc;
}

}  // namespace kbxcli
