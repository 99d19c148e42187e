// SPDX-License-Identifier: MIT
#include "cmd_import.h"

#include "catalogue.h"
#include "glm.h"
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

/// Exit codes as README.md documents them (app/cli/main.cpp).
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitInput = 3;
constexpr int kExitDatabase = 5;

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

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string pct(double x) { return fmt::format("{:.2f}%", 100.0 * x); }

std::string pValue(double p) { return p < 1e-4 ? fmt::format("{:.2e}", p) : fmt::format("{:.4f}", p); }

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
        return kExitUsage;
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
        return kExitInput;
    }
    const auto dbPath = databasePath(a.db);
    auto store = openStore(dbPath);
    if (!store)
        return kExitDatabase;
    for (const auto& n : batch.notes)
        std::cerr << "kbx: note: " << n << "\n";
    kbx::ImportSummary sum;
    try {
        sum = store->writeImport(batch);
    } catch (const kbx::StoreError& e) {
        std::cerr << "kbx: " << e.what() << "\nkbx: nothing imported\n";
        return kExitDatabase;
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
        return kExitOk;
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
    return kExitOk;
}

// ---- kbx report --table deviance | rounds ---------------------------------------------------------

bool isStatsTable(const std::string& name) { return name == "deviance" || name == "rounds"; }

namespace {

nlohmann::json provenance(const std::string& table, const std::filesystem::path& db, const kbx::Store& store)
{
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : store.query("SELECT DISTINCT run_id FROM evaluation_rows ORDER BY run_id"))
        runs.push_back(r["run_id"]);
    return {{"table", table},
            {"database", db.string()},
            {"schema_version", store.schemaVersion()},
            {"runs", runs},
            {"filters", "none"},
            {"counting", "latest evaluation of every submission per GPU"},
            {"generated_at", kbx::nowIso8601()}};
}

void csvProvenance(const nlohmann::json& prov)
{
    std::cout << fmt::format("# kbx report --table {}; database {}; runs {}; counting: {}; {}\n", prov["table"].get<std::string>(),
                             prov["database"].get<std::string>(), prov["runs"].dump(), prov["counting"].get<std::string>(),
                             prov["generated_at"].get<std::string>());
}

int devianceTable(const kbx::Store& store, const std::filesystem::path& db, const std::string& format)
{
    // exe correctness ~ category + method, one analysis per (GPU, round): verdicts of different
    // devices or rounds are never pooled.
    std::map<std::pair<std::string, int>, std::vector<kbx::glm::Outcome>> groups;
    for (const auto& r : store.query("SELECT v.gpu, v.round, v.category, v.method, v.exe_ok FROM evaluation_rows v "
                                     "JOIN (SELECT max(id) AS id FROM evaluation_rows GROUP BY submission_id, gpu) latest ON latest.id = v.id")) {
        groups[{r["gpu"].is_string() ? r["gpu"].get<std::string>() : "", r["round"].get<int>()}].push_back(
            {{r["category"].get<std::string>(), r["method"].get<std::string>()}, r["exe_ok"].get<int>() != 0});
    }
    const auto prov = provenance("deviance", db, store);
    nlohmann::json docs = nlohmann::json::array();
    if (format == "csv") {
        csvProvenance(prov);
        std::cout << "gpu,round,n,correct,null_deviance,model,deviance,chi2,df,p,share,separation\n";
    }
    for (const auto& [key, outcomes] : groups) {
        const auto& [gpu, round] = key;
        const auto a = kbx::glm::devianceAnalysis({"category", "method"}, outcomes);
        struct Line {
            std::string model;
            double deviance, chi2;
            int df;
            double p, share;
            bool separation;
        };
        std::vector<Line> lines;
        for (const auto& t : a.alone)
            lines.push_back({t.factor + " alone", t.deviance, t.chi2, t.df, t.p, t.share, t.separation});
        lines.push_back({"category + method", a.jointDeviance, a.jointChi2, a.jointDf, a.jointP, a.jointShare, a.separation});
        for (const auto& t : a.drop)
            lines.push_back({"joint without " + t.factor + " (drop)", t.deviance, t.chi2, t.df, t.p, t.share, t.separation});
        if (format == "json") {
            nlohmann::json models = nlohmann::json::array();
            for (const auto& l : lines)
                models.push_back({{"model", l.model}, {"deviance", l.deviance}, {"chi2", l.chi2}, {"df", l.df}, {"p", l.p},
                                  {"share", l.share}, {"separation", l.separation}});
            docs.push_back({{"gpu", gpu}, {"round", round}, {"n", a.n}, {"correct", a.successes}, {"null_deviance", a.nullDeviance},
                            {"converged", a.converged}, {"models", models}});
        } else if (format == "csv") {
            for (const auto& l : lines)
                std::cout << fmt::format("{},{},{},{},{:.6f},{},{:.6f},{:.6f},{},{:.6g},{:.6f},{}\n", csvField(gpu), round, a.n, a.successes,
                                         a.nullDeviance, csvField(l.model), l.deviance, l.chi2, l.df, l.p, l.share, l.separation ? 1 : 0);
        } else {
            std::cout << fmt::format("== {} · round {} · exe correctness ~ category + method · {} outcomes, {} correct\n", gpu, round, a.n,
                                     a.successes);
            std::cout << fmt::format("null deviance {:.2f}\n", a.nullDeviance);
            std::cout << fmt::format("{:<30} {:>10} {:>9} {:>4} {:>10} {:>8}\n", "model", "deviance", "LR chi2", "df", "p", "share");
            for (const auto& l : lines)
                std::cout << fmt::format("{:<30} {:>10.2f} {:>9.2f} {:>4} {:>10} {:>8}{}\n", l.model, l.deviance, l.chi2, l.df,
                                         l.df ? pValue(l.p) : "-", pct(l.share), l.separation ? "  (separation)" : "");
            if (a.separation)
                std::cout << "separation: some level is never (or always) correct; its estimate diverges, the deviance is the limit\n";
            std::cout << "deviance: of the model on that line; LR chi2: explained against the null model (alone, joint) or lost when the "
                         "factor leaves the joint model (drop); share: LR chi2 / null deviance\n\n";
        }
    }
    if (format == "json")
        std::cout << nlohmann::json{{"provenance", prov}, {"groups", docs}}.dump(1) << "\n";
    else if (format != "csv" && groups.empty())
        std::cout << "no evaluations in this database\n";
    return kExitOk;
}

int roundsTable(const kbx::Store& store, const std::filesystem::path& db, const std::string& format)
{
    const auto ra = kbx::rounds::analyseRounds(store);
    const auto prov = provenance("rounds", db, store);
    if (format == "json") {
        nlohmann::json rounds = nlohmann::json::array(), transitions = nlohmann::json::array(), dis = nlohmann::json::array();
        for (const auto& r : ra.rounds)
            rounds.push_back({{"gpu", r.gpu}, {"method", r.method}, {"round", r.round}, {"n", r.n}, {"call_ok", r.callOk}, {"exe_ok", r.exeOk},
                              {"timed", r.timed}, {"mean_speedup", r.timed ? nlohmann::json(r.meanSpeedup) : nlohmann::json()},
                              {"geomean_speedup", r.timed ? nlohmann::json(r.geoMeanSpeedup) : nlohmann::json()}});
        for (const auto& t : ra.transitions)
            transitions.push_back({{"gpu", t.gpu}, {"method", t.method}, {"from_round", t.fromRound}, {"to_round", t.toRound}, {"total", t.total},
                                   {"kinds", t.kinds}, {"same_code_speedup_changes", t.sameCodeSpeedupChanges}, {"recorded", t.recorded},
                                   {"agree", t.agree}});
        for (const auto& t : ra.disagreements)
            dis.push_back({{"gpu", t.gpu}, {"method", t.method}, {"task", t.taskId}, {"from_round", t.fromRound}, {"to_round", t.toRound},
                           {"recorded", t.recordedKind.value_or("")}, {"computed", kbx::rounds::kindString(t.kinds)}, {"origin", t.origin}});
        std::cout << nlohmann::json{{"provenance", prov}, {"rounds", rounds}, {"transitions", transitions},
                                    {"kinds_agree", {{"recorded", ra.recorded}, {"agree", ra.agree}}}, {"disagreements", dis}}
                         .dump(1)
                  << "\n";
        return kExitOk;
    }
    if (format == "csv") {
        csvProvenance(prov);
        std::cout << "type,gpu,method,round,to_round,n,call_ok,exe_ok,timed,mean_speedup,geomean_speedup,kind,count,recorded,agree\n";
        for (const auto& r : ra.rounds)
            std::cout << fmt::format("round,{},{},{},,{},{},{},{},{},{},,,,\n", csvField(r.gpu), csvField(r.method), r.round, r.n, r.callOk,
                                     r.exeOk, r.timed, r.timed ? fmt::format("{:.6g}", r.meanSpeedup) : "",
                                     r.timed ? fmt::format("{:.6g}", r.geoMeanSpeedup) : "");
        for (const auto& t : ra.transitions)
            for (const auto& [kind, n] : t.kinds)
                std::cout << fmt::format("transition,{},{},{},{},{},,,,,,{},{},{},{}\n", csvField(t.gpu), csvField(t.method), t.fromRound,
                                         t.toRound, t.total, kind, n, t.recorded, t.agree);
        for (const auto& t : ra.transitions)
            if (t.sameCodeSpeedupChanges)
                std::cout << fmt::format("transition,{},{},{},{},{},,,,,,same_code_speedup_change,{},{},{}\n", csvField(t.gpu), csvField(t.method),
                                         t.fromRound, t.toRound, t.total, t.sameCodeSpeedupChanges, t.recorded, t.agree);
        return kExitOk;
    }
    if (ra.rounds.empty() && ra.transitions.empty()) {
        std::cout << "no evaluations in this database\n";
        return kExitOk;
    }
    std::set<std::pair<std::string, std::string>> keys;
    for (const auto& r : ra.rounds)
        keys.insert({r.gpu, r.method});
    for (const auto& t : ra.transitions)
        keys.insert({t.gpu, t.method});
    for (const auto& [gpu, method] : keys) {
        std::cout << fmt::format("== {} · {} · per round\n", gpu, method);
        std::cout << fmt::format("{:>5} {:>6} {:>14} {:>14} {:>6} {:>9} {:>9}\n", "round", "n", "call", "exe", "timed", "mean x", "geomean x");
        for (const auto& r : ra.rounds) {
            if (r.gpu != gpu || r.method != method)
                continue;
            std::cout << fmt::format("{:>5} {:>6} {:>5} {:>7.1f}% {:>5} {:>7.1f}% {:>6} {:>9} {:>9}\n", r.round, r.n, r.callOk,
                                     100.0 * r.callOk / std::max(1, r.n), r.exeOk, 100.0 * r.exeOk / std::max(1, r.n), r.timed,
                                     r.timed ? fmt::format("{:.3f}", r.meanSpeedup) : "-", r.timed ? fmt::format("{:.3f}", r.geoMeanSpeedup) : "-");
        }
        bool header = false;
        for (const auto& t : ra.transitions) {
            if (t.gpu != gpu || t.method != method)
                continue;
            if (!header) {
                std::cout << "transitions (a transition may count under several kinds)\n";
                header = true;
            }
            std::string kinds;
            for (const auto& [k, n] : t.kinds)
                kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", k, n);
            std::cout << fmt::format("  round {} -> {}: {} task(s): {}{}\n", t.fromRound, t.toRound, t.total, kinds,
                                     t.recorded ? fmt::format("; recorded kinds agree on {}/{}", t.agree, t.recorded) : "");
            if (t.sameCodeSpeedupChanges)
                std::cout << fmt::format("    {} speedup change(s) with unchanged code: re-timing noise, not optimisation\n",
                                         t.sameCodeSpeedupChanges);
        }
        std::cout << "\n";
    }
    if (ra.recorded)
        std::cout << fmt::format("corpus kinds: computed from before/after, equal to the record's own kind on {} of {}\n", ra.agree, ra.recorded);
    for (const auto& t : ra.disagreements)
        std::cout << fmt::format("  {}: {} round {} -> {}: recorded '{}', computed '{}'\n", t.origin, t.taskId, t.fromRound, t.toRound,
                                 t.recordedKind.value_or(""), kbx::rounds::kindString(t.kinds));
    return kExitOk;
}

}  // namespace

int runStatsTable(const StatsTableArgs& a)
{
    if (!isStatsTable(a.table)) {
        std::cerr << fmt::format("kbx: unknown table '{}' (known: deviance, rounds)\n", a.table);
        return kExitUsage;
    }
    const auto dbPath = databasePath(a.db);
    if (!std::filesystem::exists(dbPath)) {
        std::cerr << fmt::format("kbx: no database at {}\n", dbPath.string());
        return kExitInput;
    }
    auto store = openStore(dbPath);
    if (!store)
        return kExitDatabase;
    try {
        return a.table == "deviance" ? devianceTable(*store, dbPath, a.format) : roundsTable(*store, dbPath, a.format);
    } catch (const kbx::StoreError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return kExitDatabase;
    }
}

}  // namespace kbxcli
