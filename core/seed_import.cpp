// SPDX-License-Identifier: MIT
#include "seed_import.h"

#include "catalogue.h"
#include "source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace kbx {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

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

/// Line and column (1-based) of a byte offset.
std::pair<std::size_t, std::size_t> lineColumn(const std::string& text, std::size_t byte)
{
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < std::min(byte, text.size()); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return {line, col};
}

json parseJson(const std::string& text, const std::string& file)
{
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        // e.byte is 1-based and points past the offending character.
        auto [line, col] = lineColumn(text, e.byte > 0 ? e.byte - 1 : 0);
        std::string what = e.what();
        if (auto pos = what.find("parse error"); pos != std::string::npos)
            what = what.substr(pos);
        throw ImportError(fmt::format("{}:{}:{}: not valid JSON ({}){}", file, line, col, what,
                                      e.byte >= text.size() ? " - the file ends early (a partial write?)" : ""));
    } catch (const json::exception& e) {  // e.g. out_of_range 406: a number beyond a double (1e999)
        throw ImportError(fmt::format("{}: not valid JSON ({})", file, e.what()));
    }
}

std::string shortJson(const json& v)
{
    auto s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

/// A verdict flag: true/false, or 0/1. Tries the keys in order; nullopt when none is present.
std::optional<bool> flag(const json& obj, std::initializer_list<const char*> keys, const std::string& where)
{
    for (const char* k : keys) {
        auto it = obj.find(k);
        if (it == obj.end() || it->is_null())
            continue;
        if (it->is_boolean())
            return it->get<bool>();
        if (it->is_number_integer() && (it->get<long long>() == 0 || it->get<long long>() == 1))
            return it->get<long long>() == 1;
        throw ImportError(fmt::format("{}: \"{}\" is {}, expected true or false", where, k, shortJson(*it)));
    }
    return std::nullopt;
}

bool requiredFlag(const json& obj, std::initializer_list<const char*> keys, const std::string& where)
{
    if (auto v = flag(obj, keys, where))
        return *v;
    throw ImportError(fmt::format("{}: no \"{}\" (a partial record?)", where, *keys.begin()));
}

/// A number; "N/A", "", null or a missing key mean absent (the seed writes "N/A" where perf did not run).
std::optional<double> number(const json& obj, const char* key, const std::string& where)
{
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null())
        return std::nullopt;
    if (it->is_number()) {
        double v = it->get<double>();
        if (!std::isfinite(v))
            return std::nullopt;
        return v;
    }
    if (it->is_string()) {
        const auto s = it->get<std::string>();
        if (s.empty() || s == "N/A" || s == "n/a" || s == "NA" || s == "nan" || s == "NaN")
            return std::nullopt;
        try {
            std::size_t used = 0;
            double v = std::stod(s, &used);
            if (used == s.size() && std::isfinite(v))
                return v;
        } catch (const std::exception&) {
        }
    }
    throw ImportError(fmt::format("{}: \"{}\" is {}, expected a number or \"N/A\"", where, key, shortJson(*it)));
}

std::string text(const json& obj, const char* key, const std::string& where)
{
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null())
        return {};
    if (!it->is_string())
        throw ImportError(fmt::format("{}: \"{}\" is {}, expected a string", where, key, shortJson(*it)));
    return it->get<std::string>();
}

/// The verdict of one seed record (metrics entry, corpus before/after).
rounds::State seedState(const json& obj, const std::string& where, std::optional<double>& runtimeMs)
{
    rounds::State s;
    s.callOk = requiredFlag(obj, {"call_ok", "compile_ok", "call"}, where);
    const bool exe = requiredFlag(obj, {"exe_ok", "correctness_ok", "exe"}, where);
    // The seed only runs exe after call passed; a correct verdict without a passing call is not one.
    s.exeOk = s.callOk && exe;
    s.speedup = number(obj, "speedup", where);
    runtimeMs = number(obj, "runtime_ms", where);
    auto perf = flag(obj, {"perf_ok", "perf"}, where);
    // Perf is meaningful only after a correct exe (the seed's unified_results does the same).
    s.perfOk = s.exeOk && perf.value_or(s.speedup.has_value());
    if (!s.perfOk)
        s.speedup.reset();
    return s;
}

std::string placeholderCode(const std::string& origin, const std::string& gpu, const std::string& method, int round)
{
    return fmt::format("# kbx import: the seed kept no code for this verdict\n# source: {}\n# gpu: {}, method: {}, round: {}\n", origin, gpu,
                       method, round);
}

ImportedEvaluation makeEvaluation(const std::string& taskId, const json& record, const std::string& codeKey,
                                  const std::string& origin, const std::string& where, const std::string& gpu,
                                  const std::string& method, int round)
{
    ImportedEvaluation ev;
    ev.taskId = taskId;
    ev.round = round;
    ev.origin = origin;
    ev.state = seedState(record, where, ev.runtimeMs);
    ev.error = text(record, "error", where);
    if (ev.error.empty())
        ev.error = text(record, "stderr", where);
    std::string code;
    if (!codeKey.empty())
        code = cleanSubmission(text(record, codeKey.c_str(), where));
    ev.code = code.empty() ? placeholderCode(origin, gpu, method, round) : code;
    // The seed's own fields, minus the code (stored as the candidate) and bulky logs.
    for (const auto& [k, v] : record.items()) {
        if (k == "code" || k == codeKey || k == "before_code" || k == "after_code" || k == "unified_diff")
            continue;
        if (k == "error" || k == "stderr") {
            auto s = v.is_string() ? v.get<std::string>() : v.dump();
            ev.seed[k] = s.size() > 4000 ? s.substr(0, 4000) + "..." : s;
            continue;
        }
        ev.seed[k] = v;
    }
    ev.seed["code_kept"] = !code.empty();
    return ev;
}

bool isGoldenList(const json& j)
{
    if (!j.is_array() || j.empty())
        return false;
    return j[0].is_object() && j[0].contains("input_size") && j[0].contains("ms");
}

bool isSummary(const json& j)
{
    return j.is_object() && j.contains("total") && (j.contains("call_pass") || j.contains("exe_pass"));
}

bool isMetrics(const json& j)
{
    if (j.is_array())
        return !j.empty() && j[0].is_object() && j[0].contains("file") && (j[0].contains("call_ok") || j[0].contains("exe_ok"));
    if (!j.is_object() || isSummary(j))
        return false;
    for (const auto& [k, v] : j.items())
        if (v.is_object() && (v.contains("call_ok") || v.contains("exe_ok") || v.contains("compile_ok")))
            return true;
    return false;
}

std::string nameOr(const std::optional<std::string>& given, const fs::path& dir)
{
    if (given && !given->empty())
        return *given;
    const auto abs = fs::absolute(dir.empty() ? fs::path(".") : dir);  // "": the current folder
    auto name = abs.lexically_normal().filename().string();
    if (name.empty())  // a trailing slash
        name = abs.lexically_normal().parent_path().filename().string();
    return name;
}

/// A folder's name (a trailing separator and "." resolved).
std::string dirName(const fs::path& dir)
{
    auto p = fs::absolute(dir.empty() ? fs::path(".") : dir).lexically_normal();  // "": the current folder
    if (p.filename().empty())
        p = p.parent_path();
    return p.filename().string();
}

int optionRound(const ImportOptions& opt) { return opt.round.value_or(0); }

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
    // Entries as (key, object): the seed writes an object keyed by file; a list of entries with "file" is accepted too.
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

/// What a folder of golden timings leaves out, said once per import rather than once per file; and
/// each GPU's files by content, to find GPUs whose timings are copies of another's.
struct GoldenLog {
    std::map<std::string, std::set<std::string>> notTask;  ///< stem -> GPUs
    std::map<std::string, std::map<std::string, std::string>> content;  ///< gpu -> stem -> sha256

    void flush(ImportBatch& batch)
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
};

void readGoldenFile(Reader& rd, const fs::path& p, const std::string& gpu, const ImportOptions& opt, ImportBatch& batch,
                    GoldenLog* log = nullptr)
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

void readGoldenDir(Reader& rd, const fs::path& dir, const std::string& gpu, const ImportOptions& opt, ImportBatch& batch, GoldenLog& log)
{
    auto files = sortedEntries(dir, false, ".json");
    if (files.empty())
        throw ImportError(fmt::format("{}: no <task>.json golden timing files", dir.string()));
    for (const auto& f : files)
        readGoldenFile(rd, f, gpu, opt, batch, &log);
}

// ---- corpus ------------------------------------------------------------------------------------

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
    void finish()
    {
        if (m_transitions.empty())
            return;
        const auto runIndex = m_batch.runs.size();
        if (m_files.size() > 1)
            m_run.provenance["files"] = m_files;
        if (m_duplicates)
            m_run.provenance["duplicate_records"] = m_duplicates;
        m_batch.runs.push_back(std::move(m_run));
        for (auto& t : m_transitions) {
            t.run = runIndex;
            m_batch.transitions.push_back(std::move(t));
        }
        m_transitions.clear();
    }
    int duplicates() const { return m_duplicates; }

private:
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

std::size_t CorpusReader::addState(const std::string& taskId, int round, const json& state, const json& record, const char* codeKey,
                                   const std::string& origin, const std::string& where)
{
    // The record's code sits beside before/after: carry it into the state object for makeEvaluation.
    json withCode = state;
    if (record.contains(codeKey))
        withCode[codeKey] = record[codeKey];
    auto ev = makeEvaluation(taskId, withCode, codeKey, origin, where, m_run.gpu, m_run.method, round);
    auto& same = m_byTaskRound[{taskId, round}];
    for (auto idx : same) {
        auto& old = m_run.evaluations[idx];
        const bool oldPlaceholder = !old.seed.value("code_kept", false);
        const bool newPlaceholder = !ev.seed.value("code_kept", false);
        if (old.code == ev.code || newPlaceholder || oldPlaceholder) {
            if (old.state.callOk != ev.state.callOk || old.state.exeOk != ev.state.exeOk)
                m_batch.notes.push_back(fmt::format("{}: {} round {} has another verdict in {}; kept the first", where, taskId, round, old.origin));
            if (oldPlaceholder && !newPlaceholder) {
                old.code = ev.code;
                old.seed["code_kept"] = true;
            }
            return idx;
        }
    }
    if (!same.empty())
        m_batch.notes.push_back(fmt::format("{}: {} round {}: other code than in {}; both kept", where, taskId, round,
                                            m_run.evaluations[same.front()].origin));
    same.push_back(m_run.evaluations.size());
    m_run.evaluations.push_back(std::move(ev));
    return m_run.evaluations.size() - 1;
}

void CorpusReader::read(Reader& rd, const fs::path& p)
{
    const auto file = p.string();
    const auto content = rd.read(p);
    if (m_files.empty())
        m_run.file = file;
    m_files.push_back(file);
    if (m_opt.round && m_files.size() == 1)
        m_batch.notes.push_back("--round ignored: corpus records carry their rounds");
    std::istringstream in(content);
    std::string line;
    std::size_t lineNo = 0;
    std::size_t records = 0;
    int duplicates = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const auto where = fmt::format("{}:{}", file, lineNo);
        json j;
        try {
            j = json::parse(line);
        } catch (const json::parse_error& e) {
            std::string what = e.what();
            if (auto pos = what.find("parse error"); pos != std::string::npos)
                what = what.substr(pos);
            throw ImportError(fmt::format("{}: not valid JSON ({}){}", where, what,
                                          e.byte >= line.size() ? " - the line ends early (a partial write?)" : ""));
        } catch (const json::exception& e) {  // e.g. a number beyond a double
            throw ImportError(fmt::format("{}: not valid JSON ({})", where, e.what()));
        }
        if (!j.is_object())
            throw ImportError(fmt::format("{}: expected a corpus record (an object), found {}", where, shortJson(j)));
        ++records;
        auto taskName = text(j, "task_id", where);
        if (taskName.empty())
            taskName = text(j, "file", where);
        if (taskName.empty())
            throw ImportError(fmt::format("{}: no \"task_id\"", where));
        auto taskId = seedTaskId(taskName, m_opt.catalogue, where);
        // Rounds as "round_0" (from_round/to_round), else from "round_0_to_round_1" (transition). -1: unknown.
        auto roundOf = [&](const char* key) {
            auto r = j.contains(key) ? seedRound(j[key]) : std::nullopt;
            return r ? *r : -1;
        };
        int fromRound = roundOf("from_round"), toRound = roundOf("to_round");
        if ((fromRound < 0 || toRound < 0) && j.contains("transition") && j["transition"].is_string()) {
            std::smatch m;
            const auto t = j["transition"].get<std::string>();
            if (std::regex_match(t, m, std::regex(R"(round_(\d+)_to_round_(\d+))"))) {
                if (m[1].length() <= 9 && m[2].length() <= 9) {  // longer: out of int's range, left unset
                    fromRound = fromRound < 0 ? std::stoi(m[1]) : fromRound;
                    toRound = toRound < 0 ? std::stoi(m[2]) : toRound;
                }
            }
        }
        if (fromRound < 0 || toRound < 0)
            throw ImportError(fmt::format("{}: no rounds (\"from_round\"/\"to_round\" like \"round_0\", or \"transition\")", where));
        for (const char* side : {"before", "after"})
            if (!j.contains(side) || !j[side].is_object())
                throw ImportError(fmt::format("{}: no \"{}\" object (call_ok, exe_ok, ...)", where, side));
        // The same transition in another file (or twice in one): one record of it.
        const auto codeOf = [&](const char* k) { return j.contains(k) && j[k].is_string() ? sha256Hex(j[k].get<std::string>()) : std::string("-"); };
        const auto key = fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}", taskId, fromRound, toRound, j["before"].dump(), j["after"].dump(),
                                     codeOf("before_code"), codeOf("after_code"));
        if (!m_seen.insert(key).second) {
            ++duplicates;
            continue;
        }
        ImportedTransition t;
        t.taskId = taskId;
        t.fromRound = fromRound;
        t.toRound = toRound;
        t.kind = text(j, "kind", where);
        t.origin = where;
        t.beforeEvaluation = addState(taskId, fromRound, j["before"], j, "before_code", where + " (before)", where + ": before");
        t.afterEvaluation = addState(taskId, toRound, j["after"], j, "after_code", where + " (after)", where + ": after");
        // The record's own states, not the deduplicated evaluation's (they agree unless the corpus contradicts itself).
        std::optional<double> ignored;
        t.before = seedState(j["before"], where + ": before", ignored);
        t.after = seedState(j["after"], where + ": after", ignored);
        m_transitions.push_back(std::move(t));
    }
    if (records == 0)
        throw ImportError(fmt::format("{}: no corpus record", file));
    if (duplicates) {
        m_duplicates += duplicates;
        m_batch.notes.push_back(fmt::format("{}: {} of {} record(s) repeat a record read before in this import (the same task, "
                                            "rounds, verdicts and code): each transition counted once",
                                            file, duplicates, records));
    }
}

void readCorpus(Reader& rd, const fs::path& p, const ImportOptions& opt, ImportBatch& batch)
{
    if (!opt.method)
        throw ImportError(fmt::format("{}: the corpus records do not name their method: give --method (e.g. --method GEAK)", p.string()));
    CorpusReader cr(opt, batch, *opt.method);
    cr.read(rd, p);
    cr.finish();
}

bool looksLikeCorpus(const std::string& content)
{
    std::istringstream in(content);
    std::string line;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        try {
            auto j = json::parse(line);
            return j.is_object() && j.contains("before") && j.contains("after");
        } catch (const json::exception&) {  // parse_error, or out_of_range for a number beyond a double
            return false;
        }
    }
    return false;
}

// ---- result-tree -------------------------------------------------------------------------------

void findNamed(const fs::path& dir, const std::string& name, std::vector<fs::path>& out)
{
    for (const auto& e : fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied))
        if (e.is_regular_file() && e.path().filename() == name)
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
}

}  // namespace

std::optional<int> seedRound(const json& v)
{
    if (v.is_number_integer())
        return v.get<int>();
    if (v.is_string()) {
        std::smatch m;
        const auto s = v.get<std::string>();
        if (std::regex_match(s, m, std::regex(R"((?:round_?)?(\d+))")) && m[1].length() <= 9)
            return std::stoi(m[1]);
    }
    return std::nullopt;
}

std::string seedTaskId(const std::string& name, const TaskCatalogue* catalogue, const std::string& where)
{
    std::string n = name;
    std::replace(n.begin(), n.end(), '\\', '/');
    if (n.size() > 3 && n.ends_with(".py"))
        n.resize(n.size() - 3);
    const auto slash = n.rfind('/');
    if (slash != std::string::npos && slash > 0 && slash + 1 < n.size()) {
        const auto prev = n.rfind('/', slash - 1);
        auto id = n.substr(prev == std::string::npos ? 0 : prev + 1);
        if (catalogue) {
            if (auto* t = catalogue->find(id))
                return t->id;
            // Category drift: an older category whose stem names exactly one benchmark task.
            if (auto* t = catalogue->resolve(n.substr(slash + 1)))
                return t->id;
        }
        return id;
    }
    if (catalogue)
        if (auto* t = catalogue->resolve(n))
            return t->id;
    throw ImportError(fmt::format("{}: task '{}' names no category (\"Category/{}.py\") and the task index does not know it", where, name, n));
}

namespace {

/// A folder, walked whole: everything it holds that kbx recognises, at any depth, is imported; what
/// it leaves out is listed with why. The seed's released repository imports from its root:
/// metrics/golden_results/<gpu>/<task>.json, data/kbx_corpus/*.jsonl (one corpus, records shared
/// between its files counted once), <gpu>/<method>/metrics.json result folders; its task sources,
/// task metadata and predictions are no outputs.
void readTree(Reader& rd, const fs::path& root, const ImportOptions& opt, ImportBatch& batch)
{
    const int round = optionRound(opt);
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (it->is_directory(ec) && name.starts_with(".")) {  // .git, .venv, ...
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(ec) && !it->is_symlink(ec))
            files.push_back(it->path());
    }
    if (ec)
        throw ImportError(fmt::format("{}: cannot walk the folder: {}", root.string(), ec.message()));
    std::sort(files.begin(), files.end());
    std::set<std::string> kinds;
    std::map<std::string, int> otherFiles;  // extension -> count
    auto leftOut = [&](const fs::path& f, const std::string& why) {
        batch.notes.push_back(fmt::format("{}: left out ({})", fs::relative(f, root, ec).string(), why));
    };
    auto sniffJson = [&](const fs::path& f) {
        Reader sniff(f);
        return json::parse(sniff.read(f), nullptr, false);
    };

    // 1. result folders: <gpu>/<method>/metrics.json (with the summary.json beside each)
    std::vector<fs::path> metrics;
    std::set<fs::path> resultDirs;
    for (const auto& f : files)
        if (f.filename() == "metrics.json")
            metrics.push_back(f);
    if (opt.method && metrics.size() > 1)
        throw ImportError(fmt::format("{}: --method names one method, but the folder holds {} metrics.json files", root.string(), metrics.size()));
    std::set<std::pair<std::string, std::string>> dims;
    for (const auto& m : metrics) {
        const auto method = opt.method.value_or(dirName(m.parent_path()));
        const auto gpu = opt.gpu.value_or(dirName(m.parent_path().parent_path()));
        if (!dims.insert({gpu, method}).second)
            throw ImportError(fmt::format("{}: a second metrics.json for gpu '{}', method '{}' (layout <gpu>/<method>/metrics.json)",
                                          m.string(), gpu, method));
        readMetrics(rd, m, gpu, method, round, opt, batch);
        resultDirs.insert(m.parent_path());
        kinds.insert("result-tree");
    }

    // 2. the other JSON files, by folder: a folder of golden timing lists is one GPU's
    std::map<fs::path, std::vector<fs::path>> jsonByDir;
    std::vector<fs::path> jsonl;
    for (const auto& f : files) {
        const auto ext = f.extension().string();
        if (ext == ".json" && !resultDirs.count(f.parent_path()))
            jsonByDir[f.parent_path()].push_back(f);
        else if (ext == ".jsonl")
            jsonl.push_back(f);
        else if (!resultDirs.count(f.parent_path()))
            ++otherFiles[ext.empty() ? "(no extension)" : ext];
    }
    std::vector<fs::path> goldenDirs;
    for (const auto& [dir, js] : jsonByDir) {
        std::vector<fs::path> rest;
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
        for (const auto& f : js) {
            const auto j = sniffJson(f);
            if (j.is_discarded())
                leftOut(f, "not valid JSON");
            else if (isSummary(j)) {
                batch.summaries.push_back(readSummary(rd, f, opt.gpu.value_or(dirName(f.parent_path().parent_path())),
                                                      opt.method.value_or(dirName(f.parent_path())), round));
                batch.notes.push_back(fmt::format("{}: aggregates only (no metrics.json beside it): no per-task verdicts", f.string()));
                kinds.insert("seed-summary");
            } else if (j.is_array() && !j.empty() && j[0].is_object() && !j[0].contains("ms") &&
                       (j[0].contains("input_size") || j[0].contains("func_inputs") || j[0].contains("torch_code")))
                leftOut(f, "the benchmark's task descriptions (task metadata), not results");
            else
                leftOut(f, "JSON that is no seed output kbx knows (metrics.json, summary.json, a golden timing list)");
        }
    }
    if (opt.gpu && goldenDirs.size() > 1)
        throw ImportError(fmt::format("{}: --gpu names one GPU, but the folder holds timings of {} GPUs", root.string(), goldenDirs.size()));
    GoldenLog log;
    for (const auto& d : goldenDirs) {
        readGoldenDir(rd, d, opt.gpu.value_or(dirName(d)), opt, batch, log);
        kinds.insert("golden-results");
    }
    log.flush(batch);

    // 3. JSONL: the corpus files (one corpus per folder), anything else listed
    std::map<fs::path, std::vector<fs::path>> corpusByDir;
    for (const auto& f : jsonl) {
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
    if (opt.method && corpusByDir.size() > 1)
        throw ImportError(fmt::format("{}: --method names one method, but the folder holds {} corpus folders", root.string(), corpusByDir.size()));
    for (const auto& [dir, fs_] : corpusByDir) {
        const auto method = opt.method.value_or(dirName(dir));
        if (!opt.method)
            batch.notes.push_back(fmt::format("{}: the corpus records do not name their method: method '{}' taken from the folder name "
                                              "(--method to change)",
                                              dir.string(), method));
        CorpusReader cr(opt, batch, method);
        for (const auto& f : fs_)
            cr.read(rd, f);
        cr.finish();
        kinds.insert("corpus");
    }
    if (!otherFiles.empty()) {
        std::vector<std::string> parts;
        int n = 0;
        for (const auto& [ext, count] : otherFiles) {
            parts.push_back(fmt::format("{} {}", count, ext));
            n += count;
        }
        batch.notes.push_back(fmt::format("{} other file(s) left out (sources, documentation, notebooks: no outputs): {}", n, fmt::join(parts, ", ")));
    }
    if (kinds.empty())
        throw ImportError(fmt::format("{}: no seed outputs found (metrics.json, golden_results/<gpu>/<task>.json, a corpus JSONL) at any "
                                      "depth{}",
                                      root.string(), batch.notes.empty() ? "" : "; " + batch.notes.front()));
    batch.format = kinds.size() == 1 ? *kinds.begin() : "seed-tree";
}

}  // namespace

namespace {

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
    const int round = optionRound(opt);

    if (!memory && fs::is_directory(path)) {
        readTree(rd, path, opt, batch);
    } else {
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
    if (opt.catalogue) {
        // Kept (they are the seed's records) but flagged: reports leave them out unless --all-tasks.
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
