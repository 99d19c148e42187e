// SPDX-License-Identifier: MIT
#include "cmd_strip.h"
#include "exitcodes.h"

#include "store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

namespace kbxcli {

CLI::App* addStripCommand(CLI::App& app, StripArgs& a)
{
    auto* cmd = app.add_subcommand("strip-code", "Leave the kernels' code out of result databases, in place, so that they can be "
                                                 "shared or committed (verdicts, cases, timings and tiers stay)");
    cmd->add_option("DB", a.databases, "kbx databases to strip")->required();
    cmd->add_flag("--json", a.json, "One JSON object per database on stdout");
    cmd->footer(
        "Each candidate's code becomes one line naming its sha256 (code_hash); tracebacks, error maps, stderr,\n"
        "logs and source excerpts leave the evidence; a line of a message that is a line of the candidate's code\n"
        "becomes \"[code line left out]\". Then VACUUM. kbx show and kbx report read the result as before.");
    return cmd;
}

int runStrip(const StripArgs& a)
{
    for (const auto& db : a.databases) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(db, ec)) {
            std::cerr << fmt::format("kbx strip-code: {}: no such database file; nothing stripped\n", db);
            return ExitInput;
        }
        if (std::filesystem::file_size(db, ec) == 0 && !ec) {  // opening it would make it a kbx database
            std::cerr << fmt::format("kbx strip-code: {}: an empty file, not a kbx database; nothing stripped\n", db);
            return ExitInput;
        }
    }
    for (const auto& db : a.databases) {
        try {
            kbx::Store store(db);
            const auto s = store.stripCode();
            if (a.json)
                std::cout << nlohmann::json{{"database", db}, {"candidates", s.candidates}, {"evaluations", s.evaluations},
                                            {"case_results", s.caseResults}}
                                 .dump()
                          << std::endl;
            std::cerr << fmt::format("kbx strip-code: {}: code of {} candidate(s) left out; {} evaluation(s) and {} case result(s) scrubbed\n",
                                     db, s.candidates, s.evaluations, s.caseResults);
        } catch (const kbx::StoreError& e) {
            const std::string what = e.what();
            std::cerr << "kbx strip-code: " << (what.find(db) == std::string::npos ? db + ": " : std::string()) << what << "\n";
            return ExitDatabase;
        }
    }
    return ExitOk;
}

}  // namespace kbxcli
