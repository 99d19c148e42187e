// SPDX-License-Identifier: MIT
#pragma once
// Shared by kbx import's source files (core/seed_import*.cpp); not an interface of kbx_core.
#include "seed_import.h"

#include "source.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kbx::seed_import_internal {

namespace fs = std::filesystem;
using nlohmann::json;

/// Reads files and hashes what was read (relative name + content), in the order given. Given files
/// in memory (parseSeedImport), it serves those and never touches the disk.
class Reader {
public:
    explicit Reader(fs::path root, const std::map<fs::path, std::string>* memory = nullptr) : m_root(std::move(root)), m_memory(memory) {}

    bool isFile(const fs::path& p) const { return m_memory ? m_memory->count(p) > 0 : fs::is_regular_file(p); }

    std::string read(const fs::path& p)
    {
        std::string text;
        if (m_memory) {
            auto it = m_memory->find(p);
            if (it == m_memory->end())
                throw ImportError(fmt::format("{}: cannot read", p.string()));
            text = it->second;
        } else {
            std::ifstream in(p, std::ios::binary);
            if (!in)
                throw ImportError(fmt::format("{}: cannot read", p.string()));
            std::stringstream ss;
            ss << in.rdbuf();
            text = ss.str();
        }
        std::error_code ec;
        auto rel = !m_memory && fs::is_directory(m_root) ? fs::relative(p, m_root, ec) : p.filename();
        m_hashInput += (ec ? p.filename() : rel).generic_string();
        m_hashInput += '\0';
        m_hashInput += text;
        m_hashInput += '\0';
        m_files.push_back(p.string());
        return text;
    }
    std::string sha256() const { return sha256Hex(m_hashInput); }
    const std::vector<std::string>& files() const { return m_files; }

private:
    fs::path m_root;
    const std::map<fs::path, std::string>* m_memory;
    std::string m_hashInput;
    std::vector<std::string> m_files;
};

// ---- values of the seed's records (seed_import_values.cpp) ----------------------------------------

/// The text as JSON; ImportError "file:line:column: not valid JSON (...)" otherwise.
json parseJson(const std::string& text, const std::string& file);
/// A value for a message: compact JSON, at most 60 characters.
std::string shortJson(const json& v);
/// A verdict flag: true/false, or 0/1. Tries the keys in order; nullopt when none is present.
std::optional<bool> flag(const json& obj, std::initializer_list<const char*> keys, const std::string& where);
bool requiredFlag(const json& obj, std::initializer_list<const char*> keys, const std::string& where);
/// A number; "N/A", "", null or a missing key mean absent (the seed writes "N/A" where perf did not run).
std::optional<double> number(const json& obj, const char* key, const std::string& where);
/// A string; a missing key or null is "".
std::string text(const json& obj, const char* key, const std::string& where);
/// The verdict of one seed record (metrics entry, corpus before/after).
rounds::State seedState(const json& obj, const std::string& where, std::optional<double>& runtimeMs);
ImportedEvaluation makeEvaluation(const std::string& taskId, const json& record, const std::string& codeKey, const std::string& origin,
                                  const std::string& where, const std::string& gpu, const std::string& method, int round);
bool isGoldenList(const json& j);
bool isSummary(const json& j);
bool isMetrics(const json& j);
/// A folder's name (a trailing separator and "." resolved).
std::string dirName(const fs::path& dir);
inline int optionRound(const ImportOptions& opt) { return opt.round.value_or(0); }

// ---- seed-summary, seed-metrics, golden-results (seed_import_results.cpp) -----------------------

SeedSummary readSummary(Reader& rd, const fs::path& p, const std::string& gpu, const std::string& method, int round);
void readMetrics(Reader& rd, const fs::path& p, const std::string& gpu, const std::string& method, int round,
                 const ImportOptions& opt, ImportBatch& batch);

/// What a folder of golden timings leaves out, said once per import rather than once per file; and
/// each GPU's files by content, to find GPUs whose timings are copies of another's.
struct GoldenLog {
    std::map<std::string, std::set<std::string>> notTask;  ///< stem -> GPUs
    std::map<std::string, std::map<std::string, std::string>> content;  ///< gpu -> stem -> sha256

    void flush(ImportBatch& batch);
};

void readGoldenFile(Reader& rd, const fs::path& p, const std::string& gpu, const ImportOptions& opt, ImportBatch& batch,
                    GoldenLog* log = nullptr);
void readGoldenDir(Reader& rd, const fs::path& dir, const std::string& gpu, const ImportOptions& opt, ImportBatch& batch, GoldenLog& log);

// ---- corpus (seed_import_corpus.cpp) -------------------------------------------------------------

/// The corpus files of one import, read into one run: a round's code is the 'after' of one
/// transition and the 'before' of the next, and a transition several files carry (the seed ships
/// all_records.jsonl beside its subsets correctness_transitions, performance_events, regressions)
/// is counted once.
class CorpusReader {
public:
    CorpusReader(const ImportOptions& opt, ImportBatch& batch, std::string method) : m_opt(opt), m_batch(batch)
    {
        m_run.format = "corpus";
        m_run.gpu = opt.gpu.value_or("unknown");
        m_run.method = std::move(method);
    }

    void read(Reader& rd, const fs::path& p);

    /// Moves the run into the batch (when anything was read) and points its transitions at it.
    void finish();
    int duplicates() const { return m_duplicates; }

private:
    /// One record's transition; false when the same transition was read before (a duplicate).
    bool readRecord(const json& j, const std::string& where);
    std::size_t addState(const std::string& taskId, int round, const json& state, const json& record, const char* codeKey,
                         const std::string& origin, const std::string& where);

    const ImportOptions& m_opt;
    ImportBatch& m_batch;
    ImportedRun m_run;
    std::vector<ImportedTransition> m_transitions;
    std::map<std::pair<std::string, int>, std::vector<std::size_t>> m_byTaskRound;
    std::set<std::string> m_seen;  ///< task, rounds, both states and both codes of every record read
    std::vector<std::string> m_files;
    int m_duplicates = 0;
};

/// One corpus file: --method must name its method.
void readCorpus(Reader& rd, const fs::path& p, const ImportOptions& opt, ImportBatch& batch);
bool looksLikeCorpus(const std::string& content);

// ---- result-tree (seed_import_tree.cpp) ------------------------------------------------------------

/// A folder, walked whole: everything it holds that kbx recognises, at any depth, is imported; what
/// it leaves out is listed with why.
void readTree(Reader& rd, const fs::path& root, const ImportOptions& opt, ImportBatch& batch);

}  // namespace kbx::seed_import_internal
