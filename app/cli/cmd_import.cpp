// SPDX-License-Identifier: MIT
#include "cmd_import.h"
#include "exitcodes.h"

#include "catalogue.h"
#include "paths.h"
#include "rounds.h"
#include "seed_import.h"
#include "store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace kbxcli {
namespace {


std::filesystem::path databasePath(const std::string& db) { return db.empty() ? kbx::defaultDatabasePath() : std::filesystem::path(db); }

std::unique_ptr<kbx::Store> openStore(const std::filesystem::path& path)
{
    try {
        return std::make_unique<kbx::Store>(path);
    } catch (const kbx::StoreError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return nullptr;
    }
}

}  // namespace

CLI::App* addImportCommand(CLI::App& app, ImportArgs& a)
{
    auto* cmd = app.add_subcommand("import",
                                   "Import the seed's outputs: metrics.json/summary.json, golden_results/<gpu>/<task>.json, the round-transition "
                                   "corpus JSONL, or result folders <gpu>/<method>/metrics.json");
    cmd->add_option("PATH", a.path, "File or folder (the format is detected)")->required();
    cmd->add_option("--db", a.db, "Database (default: $KBX_DB or ~/.local/share/kbx/kbx.sqlite)");
    cmd->add_option("--method", a.method, "Method name (default: from the layout <gpu>/<method>/metrics.json; required for a corpus)");
    cmd->add_option("--gpu", a.gpu, "GPU name (default: from the layout)");
    cmd->add_option("--round", a.round, "Round of metrics.json verdicts (default 0; a corpus carries its rounds)");
    cmd->add_flag("--json", a.json, "One JSON object with what was imported on stdout");
    return cmd;
}

int runImport(const ImportArgs& a)
{
    kbx::ImportOptions opt;
    if (!a.method.empty())
        opt.method = a.method;
    if (!a.gpu.empty())
        opt.gpu = a.gpu;
    opt.round = a.round;
    if (a.round && *a.round < 0) {
        std::cerr << "kbx: --round must be >= 0\n";
        return ExitUsage;
    }
    std::optional<kbx::TaskCatalogue> catalogue;
    try {
        catalogue = kbx::TaskCatalogue::load(kbx::findTasksDir());
        opt.catalogue = &*catalogue;
    } catch (const std::exception& e) {
        std::cerr << "kbx: no task index (" << e.what() << "): bare task names cannot be resolved\n";
    }
    kbx::ImportBatch batch;
    try {
        batch = kbx::readSeedImport(a.path, opt);
    } catch (const kbx::ImportError& e) {
        std::cerr << "kbx: " << e.what() << "\nkbx: nothing imported\n";
        return ExitInput;
    }
    const auto dbPath = databasePath(a.db);
    auto store = openStore(dbPath);
    if (!store)
        return ExitDatabase;
    for (const auto& n : batch.notes)
        std::cerr << "kbx: note: " << n << "\n";
    kbx::ImportSummary sum;
    try {
        sum = store->writeImport(batch);
    } catch (const kbx::StoreError& e) {
        std::cerr << "kbx: " << e.what() << "\nkbx: nothing imported\n";
        return ExitDatabase;
    }
    // Transitions: the kinds computed from before/after against the corpus's own kind field.
    int agree = 0, recorded = 0;
    for (const auto& t : batch.transitions) {
        if (t.kind.empty())
            continue;
        ++recorded;
        const auto computed = kbx::rounds::kindString(kbx::rounds::transitionKinds(t.before, t.after));
        if (kbx::rounds::sameKinds(t.kind, computed))
            ++agree;
        else if (!sum.duplicate)
            std::cerr << fmt::format("kbx: note: {}: the record says '{}', its verdicts give '{}'\n", t.origin, t.kind, computed);
    }
    std::set<std::string> gpus;
    std::map<std::string, int> perRun;
    for (const auto& r : batch.runs) {
        gpus.insert(r.gpu);
        perRun[fmt::format("{} / {}", r.gpu, r.method)] += static_cast<int>(r.evaluations.size());
    }
    for (const auto& g : batch.golden)
        gpus.insert(g.gpu);
    if (a.json) {
        nlohmann::json j = {{"source", batch.source},     {"format", batch.format},         {"database", dbPath.string()},
                            {"import_id", sum.importId},  {"duplicate", sum.duplicate},     {"files", batch.files.size()},
                            {"sha256", batch.sha256},     {"runs", sum.runIds},             {"evaluations", sum.evaluations},
                            {"new_candidates", sum.newCandidates}, {"golden_timings", sum.golden}, {"transitions", sum.transitions},
                            {"summaries", sum.summaries}, {"gpus", gpus},                   {"notes", batch.notes}};
        if (recorded)
            j["kinds_agree"] = {{"recorded", recorded}, {"agree", agree}};
        std::cout << j.dump() << "\n";
    }
    if (sum.duplicate) {
        std::cerr << fmt::format("kbx: {}: already imported as import #{} (same content and options); nothing written\n", a.path, sum.importId);
        return ExitOk;
    }
    std::cerr << fmt::format("kbx: {} ({}, {} file(s)) -> {} (import #{})\n", a.path, batch.format, batch.files.size(), dbPath.string(),
                             sum.importId);
    for (const auto& [what, n] : perRun)
        std::cerr << fmt::format("kbx:   {}: {} verdict(s)\n", what, n);
    if (sum.evaluations)
        std::cerr << fmt::format("kbx: {} evaluation(s) in {} imported run(s), {} new candidate(s)\n", sum.evaluations, sum.runIds.size(),
                                 sum.newCandidates);
    if (sum.golden)
        std::cerr << fmt::format("kbx: {} golden eager timing row(s) for {} GPU(s): {}\n", sum.golden, gpus.size(), fmt::join(gpus, ", "));
    if (sum.transitions)
        std::cerr << fmt::format("kbx: {} round transition(s); computed kinds agree with the record's own kind on {} of {}\n", sum.transitions,
                                 agree, recorded);
    if (sum.summaries)
        std::cerr << fmt::format("kbx: {} seed summary(ies)\n", sum.summaries);
    return ExitOk;
}

}  // namespace kbxcli
