// SPDX-License-Identifier: MIT
// kbx import: the seed's result files, summary.json, metrics.json and golden timing lists.
#include "seed_import_internal.h"

#include "catalogue.h"

#include <fmt/format.h>

#include <algorithm>

namespace kbx::seed_import_internal {

// ---- seed-summary ------------------------------------------------------------------------------

SeedSummary readSummary(Reader& rd, const fs::path& p, const std::string& gpu, const std::string& method, int round)
{
    const auto file = p.string();
    auto j = parseJson(rd.read(p), file);
    if (!isSummary(j))
        throw ImportError(fmt::format("{}: not a seed summary.json (an object with \"total\", \"call_pass\", \"exe_pass\")", file));
    for (const char* k : {"total", "call_pass", "exe_pass", "perf_pass"})
        if (j.contains(k) && !j[k].is_number_integer())
            throw ImportError(fmt::format("{}: key \"{}\" is {}, expected a count", file, k, shortJson(j[k])));
    for (const char* k : {"call_rate", "exe_rate", "perf_rate", "avg_speedup", "avg_speedup_global", "avg_speedup_per_task"})
        (void)number(j, k, fmt::format("{}: summary", file));
    return {gpu, method, round, file, j};
}

// ---- seed-metrics ------------------------------------------------------------------------------

namespace {

/// Entries as (key, object): the seed writes an object keyed by file; a list of entries with "file" is accepted too.
std::vector<std::pair<std::string, const json*>> metricsEntries(const json& j, const std::string& file)
{
    std::vector<std::pair<std::string, const json*>> entries;
    if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
            const auto where = fmt::format("{}: entry {}", file, i);
            if (!j[i].is_object())
                throw ImportError(fmt::format("{}: expected an object, found {}", where, shortJson(j[i])));
            auto name = text(j[i], "file", where);
            if (name.empty())
                throw ImportError(fmt::format("{}: no \"file\"", where));
            entries.emplace_back(name, &j[i]);
        }
    } else {
        for (const auto& [k, v] : j.items())
            entries.emplace_back(k, &v);
    }
    return entries;
}

}  // namespace

void readMetrics(Reader& rd, const fs::path& p, const std::string& gpu, const std::string& method, int round,
                 const ImportOptions& opt, ImportBatch& batch)
{
    const auto file = p.string();
    auto j = parseJson(rd.read(p), file);
    if (!isMetrics(j)) {
        if (j.is_object() && j.empty())
            throw ImportError(fmt::format("{}: an empty metrics.json (no task)", file));
        throw ImportError(fmt::format("{}: not a seed metrics.json (an object keyed by task file, each with call_ok and exe_ok)", file));
    }
    auto entries = metricsEntries(j, file);
    ImportedRun run;
    run.gpu = gpu;
    run.method = method;
    run.file = file;
    run.format = "seed-metrics";
    std::set<std::string> seen;
    int callPass = 0, exePass = 0, perfPass = 0;
    for (const auto& [key, v] : entries) {
        const auto where = fmt::format("{}: key '{}'", file, key);
        if (!v->is_object())
            throw ImportError(fmt::format("{}: expected an object, found {}", where, shortJson(*v)));
        auto taskId = seedTaskId(key, opt.catalogue, where);
        if (!seen.insert(taskId).second)
            throw ImportError(fmt::format("{}: task {} appears twice", where, taskId));
        auto ev = makeEvaluation(taskId, *v, "code", fmt::format("{}#{}", file, key), where, gpu, method, round);
        callPass += ev.state.callOk;
        exePass += ev.state.exeOk;
        perfPass += ev.state.perfOk;
        run.evaluations.push_back(std::move(ev));
    }
    // A summary.json beside it was written from the same results: it must agree, else one of them is stale or partial.
    const auto summaryPath = p.parent_path() / "summary.json";
    if (p.filename() != "summary.json" && rd.isFile(summaryPath)) {
        auto s = readSummary(rd, summaryPath, gpu, method, round);
        const auto sfile = summaryPath.string();
        auto check = [&](const char* k, int have) {
            if (s.fields.contains(k) && s.fields[k].get<long long>() != have)
                throw ImportError(fmt::format("{}: \"{}\" is {}, but {} gives {} (is one of them partial or from another run?)", sfile, k,
                                              s.fields[k].get<long long>(), file, have));
        };
        check("total", static_cast<int>(run.evaluations.size()));
        check("call_pass", callPass);
        check("exe_pass", exePass);
        check("perf_pass", perfPass);
        if (s.fields.contains("method") && s.fields["method"].is_string() && s.fields["method"] != method)
            batch.notes.push_back(fmt::format("{}: the summary names method '{}'; imported as '{}' (from {})", sfile,
                                              s.fields["method"].get<std::string>(), method, opt.method ? "--method" : "the folder name"));
        run.provenance["seed_summary"] = s.fields;
        batch.summaries.push_back(std::move(s));
    }
    batch.runs.push_back(std::move(run));
}

// ---- golden-results ----------------------------------------------------------------------------

void GoldenLog::flush(ImportBatch& batch)
{
    if (!notTask.empty()) {
        std::vector<std::string> names;
        for (const auto& [stem, gpus] : notTask)
            names.push_back(fmt::format("{} ({} GPU(s))", stem, gpus.size()));
        batch.notes.push_back(fmt::format("golden timings left out: {} file name(s) that name no benchmark task: {}", notTask.size(),
                                          fmt::join(names, ", ")));
    }
    // Two GPUs whose timing files are mostly byte-identical did not both measure them.
    for (auto a = content.begin(); a != content.end(); ++a)
        for (auto b = std::next(a); b != content.end(); ++b) {
            int common = 0, same = 0;
            for (const auto& [stem, sha] : a->second)
                if (auto it = b->second.find(stem); it != b->second.end()) {
                    ++common;
                    same += it->second == sha;
                }
            if (common && same * 2 >= common)
                batch.notes.push_back(fmt::format("golden timings of {} and {}: {} of {} task file(s) byte-identical; one GPU's "
                                                  "timings are likely a copy of the other's, so comparisons between the two "
                                                  "measure nothing",
                                                  a->first, b->first, same, common));
        }
    notTask.clear();
    content.clear();
}

void readGoldenFile(Reader& rd, const fs::path& p, const std::string& gpu, const ImportOptions& opt, ImportBatch& batch,
                    GoldenLog* log)
{
    const auto file = p.string();
    auto stem = p.stem().string();
    // One rule for every file name: the seed reads <task>.json, so a name that is no benchmark task's
    // ("SGD.py.json", "quantize_dynamic.json") is left out, with a note (known only with the task index).
    // A stem several tasks share (ambiguous) is kept without a task id.
    const bool dotted = stem.find('.') != std::string::npos;
    std::string taskId;
    bool namesATask = !opt.catalogue;
    if (!dotted && opt.catalogue) {
        if (auto* t = opt.catalogue->resolve(stem))
            taskId = t->id;
        namesATask = !taskId.empty() || std::any_of(opt.catalogue->tasks().begin(), opt.catalogue->tasks().end(),
                                                    [&](const TaskInfo& t) { return t.stem == stem; });
    }
    if (dotted || !namesATask) {
        if (log)
            log->notTask[p.filename().string()].insert(gpu);
        else
            batch.notes.push_back(fmt::format("{}: left out (the seed reads <task>.json; this name is no benchmark task's)", file));
        return;
    }
    const auto content = rd.read(p);
    if (log)
        log->content[gpu][stem] = sha256Hex(content);
    auto j = parseJson(content, file);
    if (!j.is_array())
        throw ImportError(fmt::format("{}: expected a list of {{input_size, ms, GB/s, TFLOPS}}, found {}", file, shortJson(j)));
    int skipped = 0;
    for (std::size_t i = 0; i < j.size(); ++i) {
        const auto where = fmt::format("{}: entry {}", file, i);
        const auto& e = j[i];
        if (!e.is_object())
            throw ImportError(fmt::format("{}: expected an object, found {}", where, shortJson(e)));
        if (!e.contains("input_size"))
            throw ImportError(fmt::format("{}: no \"input_size\"", where));
        auto ms = number(e, "ms", where);
        if (!ms || *ms <= 0) {  // the seed's sums skip rows without a positive time too
            ++skipped;
            continue;
        }
        GoldenTiming g;
        g.gpu = gpu;
        g.task = stem;
        g.taskId = taskId;
        g.index = static_cast<int>(i);
        g.inputSize = e["input_size"].dump();
        g.ms = *ms;
        g.gbs = number(e, "GB/s", where);
        g.tflops = number(e, "TFLOPS", where);
        g.file = file;
        batch.golden.push_back(std::move(g));
    }
    if (skipped)
        batch.notes.push_back(fmt::format("{}: {} row(s) without a positive \"ms\" left out", file, skipped));
    if (j.empty())
        batch.notes.push_back(fmt::format("{}: no timing rows", file));
}

namespace {

std::vector<fs::path> sortedEntries(const fs::path& dir, bool wantDirs, const std::string& ext = {})
{
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (wantDirs ? e.is_directory() : (e.is_regular_file() && (ext.empty() || e.path().extension() == ext)))
            out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

void readGoldenDir(Reader& rd, const fs::path& dir, const std::string& gpu, const ImportOptions& opt, ImportBatch& batch, GoldenLog& log)
{
    auto files = sortedEntries(dir, false, ".json");
    if (files.empty())
        throw ImportError(fmt::format("{}: no <task>.json golden timing files", dir.string()));
    for (const auto& f : files)
        readGoldenFile(rd, f, gpu, opt, batch, &log);
}

}  // namespace kbx::seed_import_internal
