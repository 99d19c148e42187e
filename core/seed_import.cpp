// SPDX-License-Identifier: MIT
// kbx import: the format detected, everything read and validated (core/seed_import.h). The readers
// of each format: seed_import_results.cpp (metrics, summary, golden timings), seed_import_corpus.cpp,
// seed_import_tree.cpp (a folder walked whole); the values of the seed's records, seed_import_values.cpp.
#include "seed_import.h"
#include "seed_import_internal.h"

#include "catalogue.h"

#include <fmt/format.h>

#include <set>

namespace kbx {
namespace fs = std::filesystem;
using namespace seed_import_internal;

namespace {

/// One file (from the disk, or in memory): a corpus, a metrics.json (with its summary.json), a
/// summary.json alone, or a golden timing list.
void readFile(Reader& rd, const fs::path& path, const ImportOptions& opt, ImportBatch& batch, const std::map<fs::path, std::string>* memory)
{
    const int round = optionRound(opt);
    const auto file = path.string();
    Reader sniff(path, memory);
    const auto content = sniff.read(path);
    bool corpus = path.extension() == ".jsonl";
    if (!corpus && !json::accept(content))
        corpus = looksLikeCorpus(content);  // several JSON objects, one a line
    if (corpus) {
        if (!looksLikeCorpus(content))
            throw ImportError(fmt::format("{}:1: not a seed corpus record (an object with \"before\" and \"after\"); "
                                          "to evaluate submissions use kbx eval",
                                          file));
        batch.format = "corpus";
        readCorpus(rd, path, opt, batch);
    } else {
        auto j = parseJson(content, file);
        const auto method = opt.method.value_or(dirName(path.parent_path()));
        const auto gpu = opt.gpu.value_or(dirName(path.parent_path().parent_path()));
        if (isMetrics(j) || path.filename() == "metrics.json") {
            batch.format = "seed-metrics";
            readMetrics(rd, path, gpu, method, round, opt, batch);
        } else if (isSummary(j)) {
            batch.format = "seed-summary";
            const auto metricsPath = path.parent_path() / "metrics.json";
            if (rd.isFile(metricsPath)) {
                batch.notes.push_back(fmt::format("{}: imported with its metrics.json (per-task verdicts)", file));
                batch.format = "seed-metrics";
                readMetrics(rd, metricsPath, gpu, method, round, opt, batch);
            } else {
                batch.summaries.push_back(readSummary(rd, path, gpu, method, round));
                batch.notes.push_back(fmt::format("{}: aggregates only (no metrics.json beside it): no per-task verdicts", file));
            }
        } else if (isGoldenList(j) || (j.is_array() && j.empty())) {
            batch.format = "golden-results";
            readGoldenFile(rd, path, opt.gpu.value_or(dirName(path.parent_path())), opt, batch);
        } else {
            throw ImportError(fmt::format("{}: not a seed output this kbx knows (metrics.json, summary.json, a golden timing list, "
                                          "a corpus JSONL)",
                                          file));
        }
        if (batch.format == "seed-metrics" || batch.format == "seed-summary") {
            if (!opt.method)
                batch.notes.push_back(fmt::format("method '{}' taken from the folder name (--method to change)", method));
            if (!opt.gpu)
                batch.notes.push_back(fmt::format("gpu '{}' taken from the folder above (--gpu to change)", gpu));
        }
    }
}

/// Kept (they are the seed's records) but flagged: reports leave them out unless --all-tasks.
void noteTasksOutside(const ImportOptions& opt, ImportBatch& batch)
{
    std::set<std::string> outside;
    for (const auto& r : batch.runs)
        for (const auto& e : r.evaluations)
            if (!opt.catalogue->find(e.taskId))
                outside.insert(e.taskId);
    if (!outside.empty())
        batch.notes.push_back(fmt::format("{} task(s) outside the benchmark's {} imported and flagged (reports leave them out "
                                          "unless --all-tasks): {}",
                                          outside.size(), opt.catalogue->tasks().size(), fmt::join(outside, ", ")));
}

/// readSeedImport, from the disk (memory null) or from files in memory (parseSeedImport).
ImportBatch readSeedImportFrom(const fs::path& path, const ImportOptions& opt, const std::map<fs::path, std::string>* memory)
{
    ImportBatch batch;
    batch.source = path.string();
    if (opt.method)
        batch.options["method"] = *opt.method;
    if (opt.gpu)
        batch.options["gpu"] = *opt.gpu;
    if (opt.round)
        batch.options["round"] = *opt.round;
    std::error_code ec;
    if (memory ? !memory->count(path) : !fs::exists(path, ec))
        throw ImportError(fmt::format("{}: no such file or directory", path.string()));
    Reader rd(path, memory);

    if (!memory && fs::is_directory(path))
        readTree(rd, path, opt, batch);
    else
        readFile(rd, path, opt, batch, memory);
    if (opt.catalogue)
        noteTasksOutside(opt, batch);
    batch.sha256 = rd.sha256();
    batch.files = rd.files();
    if (batch.runs.empty() && batch.golden.empty() && batch.summaries.empty())
        throw ImportError(fmt::format("{}: nothing to import", path.string()));
    return batch;
}

}  // namespace

ImportBatch readSeedImport(const fs::path& path, const ImportOptions& opt)
{
    return readSeedImportFrom(path, opt, nullptr);
}

ImportBatch parseSeedImport(const std::map<fs::path, std::string>& files, const fs::path& path, const ImportOptions& opt)
{
    return readSeedImportFrom(path, opt, &files);
}

}  // namespace kbx
