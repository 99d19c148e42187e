// SPDX-License-Identifier: MIT
// kbx import of a folder walked whole (the seed's released repository imports from its root).
#include "seed_import_internal.h"

#include <fmt/format.h>

#include <algorithm>

namespace kbx::seed_import_internal {

namespace {

/// One folder's import: its files listed, then read by kind. The seed's released repository:
/// metrics/golden_results/<gpu>/<task>.json, data/kbx_corpus/*.jsonl (one corpus, records shared
/// between its files counted once), <gpu>/<method>/metrics.json result folders; its task sources,
/// task metadata and predictions are no outputs.
class TreeImport {
public:
    TreeImport(Reader& rd, const fs::path& root, const ImportOptions& opt, ImportBatch& batch)
        : m_rd(rd), m_root(root), m_opt(opt), m_batch(batch), m_round(optionRound(opt))
    {
    }

    void run()
    {
        listFiles();
        readResultFolders();
        sortTheRest();
        readJsonFolders();
        readCorpora();
        finish();
    }

private:
    void listFiles()
    {
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(m_root, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            const auto name = it->path().filename().string();
            if (it->is_directory(ec) && name.starts_with(".")) {  // .git, .venv, ...
                it.disable_recursion_pending();
                continue;
            }
            if (it->is_regular_file(ec) && !it->is_symlink(ec))
                m_files.push_back(it->path());
        }
        if (ec)
            throw ImportError(fmt::format("{}: cannot walk the folder: {}", m_root.string(), ec.message()));
        std::sort(m_files.begin(), m_files.end());
    }

    /// 1. result folders: <gpu>/<method>/metrics.json (with the summary.json beside each)
    void readResultFolders()
    {
        std::vector<fs::path> metrics;
        for (const auto& f : m_files)
            if (f.filename() == "metrics.json")
                metrics.push_back(f);
        if (m_opt.method && metrics.size() > 1)
            throw ImportError(fmt::format("{}: --method names one method, but the folder holds {} metrics.json files", m_root.string(), metrics.size()));
        std::set<std::pair<std::string, std::string>> dims;
        for (const auto& m : metrics) {
            const auto method = m_opt.method.value_or(dirName(m.parent_path()));
            const auto gpu = m_opt.gpu.value_or(dirName(m.parent_path().parent_path()));
            if (!dims.insert({gpu, method}).second)
                throw ImportError(fmt::format("{}: a second metrics.json for gpu '{}', method '{}' (layout <gpu>/<method>/metrics.json)",
                                              m.string(), gpu, method));
            readMetrics(m_rd, m, gpu, method, m_round, m_opt, m_batch);
            m_resultDirs.insert(m.parent_path());
            m_kinds.insert("result-tree");
        }
    }

    /// The other files: JSON by folder, JSONL, anything else counted by extension.
    void sortTheRest()
    {
        for (const auto& f : m_files) {
            const auto ext = f.extension().string();
            if (ext == ".json" && !m_resultDirs.count(f.parent_path()))
                m_jsonByDir[f.parent_path()].push_back(f);
            else if (ext == ".jsonl")
                m_jsonl.push_back(f);
            else if (!m_resultDirs.count(f.parent_path()))
                ++m_otherFiles[ext.empty() ? "(no extension)" : ext];
        }
    }

    /// 2. the other JSON files, by folder: a folder of golden timing lists is one GPU's
    void readJsonFolders()
    {
        std::vector<fs::path> goldenDirs;
        for (const auto& [dir, js] : m_jsonByDir) {
            bool golden = false;
            for (const auto& f : js) {
                // a list of timing rows ("ms"); a broken one is then an error of readGoldenFile, not skipped
                const auto j = sniffJson(f);
                if (isGoldenList(j) || (j.is_array() && !j.empty() && j[0].is_object() && j[0].contains("ms"))) {
                    golden = true;
                    break;
                }
            }
            if (golden) {
                goldenDirs.push_back(dir);
                continue;
            }
            for (const auto& f : js)
                readOtherJson(f);
        }
        if (m_opt.gpu && goldenDirs.size() > 1)
            throw ImportError(fmt::format("{}: --gpu names one GPU, but the folder holds timings of {} GPUs", m_root.string(), goldenDirs.size()));
        GoldenLog log;
        for (const auto& d : goldenDirs) {
            readGoldenDir(m_rd, d, m_opt.gpu.value_or(dirName(d)), m_opt, m_batch, log);
            m_kinds.insert("golden-results");
        }
        log.flush(m_batch);
    }

    /// A JSON file outside result folders and golden timing folders: a summary, or left out.
    void readOtherJson(const fs::path& f)
    {
        const auto j = sniffJson(f);
        if (j.is_discarded())
            leftOut(f, "not valid JSON");
        else if (isSummary(j)) {
            m_batch.summaries.push_back(readSummary(m_rd, f, m_opt.gpu.value_or(dirName(f.parent_path().parent_path())),
                                                    m_opt.method.value_or(dirName(f.parent_path())), m_round));
            m_batch.notes.push_back(fmt::format("{}: aggregates only (no metrics.json beside it): no per-task verdicts", f.string()));
            m_kinds.insert("seed-summary");
        } else if (j.is_array() && !j.empty() && j[0].is_object() && !j[0].contains("ms") &&
                   (j[0].contains("input_size") || j[0].contains("func_inputs") || j[0].contains("torch_code")))
            leftOut(f, "the benchmark's task descriptions (task metadata), not results");
        else
            leftOut(f, "JSON that is no seed output kbx knows (metrics.json, summary.json, a golden timing list)");
    }

    /// 3. JSONL: the corpus files (one corpus per folder), anything else listed
    void readCorpora()
    {
        std::map<fs::path, std::vector<fs::path>> corpusByDir;
        for (const auto& f : m_jsonl) {
            Reader sniff(f);
            const auto content = sniff.read(f);
            if (looksLikeCorpus(content)) {
                corpusByDir[f.parent_path()].push_back(f);
                continue;
            }
            std::istringstream in(content);
            std::string first;
            std::getline(in, first);
            const auto j = json::parse(first, nullptr, false);
            leftOut(f, j.is_object() && (j.contains("predict") || j.contains("code"))
                           ? "generated code, not results: evaluate it with kbx eval"
                           : "JSONL that is no seed corpus (records with \"before\" and \"after\")");
        }
        if (m_opt.method && corpusByDir.size() > 1)
            throw ImportError(fmt::format("{}: --method names one method, but the folder holds {} corpus folders", m_root.string(), corpusByDir.size()));
        for (const auto& [dir, fs_] : corpusByDir) {
            const auto method = m_opt.method.value_or(dirName(dir));
            if (!m_opt.method)
                m_batch.notes.push_back(fmt::format("{}: the corpus records do not name their method: method '{}' taken from the folder name "
                                                    "(--method to change)",
                                                    dir.string(), method));
            CorpusReader cr(m_opt, m_batch, method);
            for (const auto& f : fs_)
                cr.read(m_rd, f);
            cr.finish();
            m_kinds.insert("corpus");
        }
    }

    void finish()
    {
        if (!m_otherFiles.empty()) {
            std::vector<std::string> parts;
            int n = 0;
            for (const auto& [ext, count] : m_otherFiles) {
                parts.push_back(fmt::format("{} {}", count, ext));
                n += count;
            }
            m_batch.notes.push_back(fmt::format("{} other file(s) left out (sources, documentation, notebooks: no outputs): {}", n, fmt::join(parts, ", ")));
        }
        if (m_kinds.empty())
            throw ImportError(fmt::format("{}: no seed outputs found (metrics.json, golden_results/<gpu>/<task>.json, a corpus JSONL) at any "
                                          "depth{}",
                                          m_root.string(), m_batch.notes.empty() ? "" : "; " + m_batch.notes.front()));
        m_batch.format = m_kinds.size() == 1 ? *m_kinds.begin() : "seed-tree";
    }

    void leftOut(const fs::path& f, const std::string& why)
    {
        std::error_code ec;
        m_batch.notes.push_back(fmt::format("{}: left out ({})", fs::relative(f, m_root, ec).string(), why));
    }

    static json sniffJson(const fs::path& f)
    {
        Reader sniff(f);
        return json::parse(sniff.read(f), nullptr, false);
    }

    Reader& m_rd;
    const fs::path& m_root;
    const ImportOptions& m_opt;
    ImportBatch& m_batch;
    const int m_round;
    std::vector<fs::path> m_files;
    std::set<std::string> m_kinds;
    std::set<fs::path> m_resultDirs;
    std::map<fs::path, std::vector<fs::path>> m_jsonByDir;
    std::vector<fs::path> m_jsonl;
    std::map<std::string, int> m_otherFiles;  // extension -> count
};

}  // namespace

void readTree(Reader& rd, const fs::path& root, const ImportOptions& opt, ImportBatch& batch)
{
    TreeImport(rd, root, opt, batch).run();
}

}  // namespace kbx::seed_import_internal
