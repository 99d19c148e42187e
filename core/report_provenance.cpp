// SPDX-License-Identifier: MIT
// Provenance of a report: the database, filters, counting rule, runs and their software stacks.
#include "stats_tables.h"

#include "query_reports.h"
#include "store.h"
#include "store_derived.h"

#include <optional>
#include <set>

namespace kbx::stats {

namespace {

/// The runs (with their GPU), GPUs and methods of the rows.
struct Seen {
    std::set<std::int64_t> runIds;
    std::map<std::int64_t, std::string> runGpu;
    std::set<std::string> gpus, methods;
};
Seen seenIn(const analysis::Facts& f)
{
    Seen s;
    std::set<std::int32_t> gpuIndex, methodIndex;
    {
        std::int64_t lastRun = -1;
        std::int32_t lastGpu = -1, lastMethod = -1;
        for (const auto& r : f.rows) {
            if (r.runId != lastRun || r.gpu != lastGpu) {
                s.runIds.insert(r.runId);
                s.runGpu[r.runId] = f.gpus[std::size_t(r.gpu)];
                gpuIndex.insert(r.gpu);
                lastRun = r.runId;
                lastGpu = r.gpu;
            }
            if (r.method != lastMethod) {
                methodIndex.insert(r.method);
                lastMethod = r.method;
            }
        }
    }
    for (auto g : gpuIndex)
        s.gpus.insert(f.gpus[std::size_t(g)]);
    for (auto m : methodIndex)
        s.methods.insert(f.methods[std::size_t(m)]);
    return s;
}

/// The taxonomy versions of every evaluation of the runs `runIds`.
void taxonomyVersions(const Store& store, const std::set<std::int64_t>& runIds, bool indexed, std::set<int>& taxonomy)
{
    if (indexed) {
        // Taxonomy versions of every evaluation of these runs: per run, the next larger version by
        // the index evaluations_run_taxonomy (a seek each, not a pass over the evaluations).
        for (auto id : runIds) {
            std::optional<int> above;
            while (auto v = query::minTaxonomyVersion(store, id, above)) {
                taxonomy.insert(*v);
                above = v;
            }
        }
    } else {
        // Taxonomy versions of every evaluation of these runs; perf protocols of the timed ones only.
        // One pass over timings each (a correlated count per evaluation made this quadratic on a
        // database without the timings index).
        for (int v : query::taxonomyVersionsOfRuns(store, runIds))
            taxonomy.insert(v);
    }
}

/// Warnings of timings from different software stacks on one GPU, and of pooled perf protocols.
nlohmann::json stackWarnings(const std::map<std::string, std::map<std::string, std::vector<std::int64_t>>>& stacks,
                             const std::set<std::string>& perf)
{
    nlohmann::json warnings = nlohmann::json::array();
    for (const auto& [gpu, byStack] : stacks) {
        if (byStack.size() < 2)
            continue;
        std::string what;
        for (const auto& [stack, ids] : byStack) {
            std::string idList;
            for (auto id : ids)
                idList += (idList.empty() ? "" : ",") + std::to_string(id);
            what += (what.empty() ? "" : "; ") + stack + " (runs " + idList + ")";
        }
        warnings.push_back("timings on " + (gpu.empty() ? std::string("one GPU") : gpu) +
                           " come from different software stacks, so their speedups are not comparable: " + what +
                           ". Compare methods within one stack (a database per stack, or kbx merge of comparable runs only).");
    }
    if (perf.size() > 1) {
        std::string list;
        for (const auto& p : perf)
            list += (list.empty() ? "" : ", ") + p;
        warnings.push_back("speedups measured by different protocols are pooled (" + list +
                           "): imported seed speedups divide by eager times recorded once elsewhere, kbx-perf times eager "
                           "in the same session. Compare within one protocol.");
    }
    return warnings;
}

}  // namespace

// ---- provenance ------------------------------------------------------------------------------------------

nlohmann::json provenance(const Store& store, const std::string& name, const Filters& filters, const std::vector<Row>& rows)
{
    return provenance(store, name, filters, analysis::factsOf(rows));
}

nlohmann::json provenance(const Store& store, const std::string& name, const Filters& filters, const analysis::Facts& f)
{
    Seen seen = seenIn(f);
    auto& runIds = seen.runIds;
    auto& runGpu = seen.runGpu;
    auto& gpus = seen.gpus;
    auto& methods = seen.methods;
    nlohmann::json runs = nlohmann::json::array();
    std::set<std::string> harness, kbxVersions, perf;
    // Timed runs per GPU model and software stack: speedups from different stacks (or protocols)
    // are not comparable, and a report that pools them says so.
    std::map<std::string, std::map<std::string, std::vector<std::int64_t>>> stacks;
    std::set<std::int64_t> timedRuns;
    std::set<int> taxonomy;
    if (!runIds.empty()) {
        const auto device = query::runDevices(store, runIds);
        // Every evaluation of these runs that has timings (counted or not): its run and perf protocol.
        // The counted ones from counted_evaluations (the protocol read from the evidence when it was
        // stored), the others (re-evaluated since; few) from their evidence; one probe each, by id
        // (issue 24: reading every timed evaluation's evidence JSON was most of a report at 1M).
        derived::prepare(store);
        const bool indexed = derived::current(store);  // evaluations_run_taxonomy is there
        auto timed = [&](std::int64_t run, const std::string& protocol) {
            auto d = device.find(run);
            if (d == device.end())
                return;
            if (d->second == "imported") {
                perf.insert("seed speedup (imported)");
                return;
            }
            timedRuns.insert(run);
            if (!protocol.empty())
                perf.insert(protocol);
        };
        query::eachTimedEvaluationProtocol(store, runIds, timed);
        for (const auto& rec : query::runRecords(store, runIds)) {
            auto p = nlohmann::json::parse(rec.provenance, nullptr, false);
            auto a = nlohmann::json::parse(rec.args, nullptr, false);
            if (!p.is_object())
                p = nlohmann::json::object();
            if (!a.is_object())
                a = nlohmann::json::object();
            const auto id = rec.id;
            nlohmann::json run = {
                {"id", id}, {"device", rec.device}, {"gpu", runGpu[id]}, {"started_at", rec.startedAt}};
            const auto versions = p.value("versions", nlohmann::json::object());
            for (const char* k : {"torch", "triton"})
                if (versions.contains(k))
                    run[k] = versions[k];
            if (versions.contains("harness")) {
                run["harness_protocol"] = versions["harness"];
                harness.insert(versions["harness"].dump());
            }
            if (timedRuns.count(id)) {
                std::string driver;
                if (p.contains("devices") && p["devices"].is_array() && !p["devices"].empty() && p["devices"][0].is_object())
                    driver = p["devices"][0].value("driver", std::string());
                auto str = [&](const char* k) {
                    return versions.contains(k) && versions[k].is_string() ? versions[k].get<std::string>() : std::string("?");
                };
                std::string stack = "torch " + str("torch") + ", Triton " + str("triton") + ", CUDA " + str("cuda") +
                                    (driver.empty() ? std::string() : ", driver " + driver);
                stacks[runGpu[id]][stack].push_back(id);
            }
            if (p.contains("kbx_version")) {
                run["kbx_version"] = p["kbx_version"];
                kbxVersions.insert(p["kbx_version"].get<std::string>());
            }
            if (rec.device == "imported") {
                for (const char* k : {"format", "file", "source"})
                    if (p.contains(k))
                        run[k] = p[k];
            } else if (a.contains("source")) {
                run["source"] = a["source"];
            }
            runs.push_back(std::move(run));
        }
        taxonomyVersions(store, runIds, indexed, taxonomy);
    }
    nlohmann::json warnings = stackWarnings(stacks, perf);
    return {{"report", name},
            {"warnings", warnings},
            {"database", store.path().string()},
            {"schema_version", store.schemaVersion()},
            {"filters", filters.describe()},
            {"counting", analysis::countingRule() + "; speedups over correct (pass) kernels only"},
            {"runs", runs},
            {"gpus", std::vector<std::string>(gpus.begin(), gpus.end())},
            {"methods", std::vector<std::string>(methods.begin(), methods.end())},
            {"protocol",
             {{"harness", std::vector<std::string>(harness.begin(), harness.end())},
              {"kbx", std::vector<std::string>(kbxVersions.begin(), kbxVersions.end())},
              {"taxonomy", std::vector<int>(taxonomy.begin(), taxonomy.end())},
              {"perf", std::vector<std::string>(perf.begin(), perf.end())}}},
            {"generated_at", nowIso8601()}};
}

}  // namespace kbx::stats
