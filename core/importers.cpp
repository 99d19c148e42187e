// SPDX-License-Identifier: MIT
#include "importers.h"

#include "source.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

namespace kbx {
namespace fs = std::filesystem;
namespace {

std::string readFile(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    if (!in)
        throw ImportError(fmt::format("{}: cannot open", p.string()));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Unknown tasks: thrown, or listed in *skipped (then nullptr is returned).
const TaskInfo* resolveTask(const TaskCatalogue& cat, const std::string& name, const std::string& where,
                            std::vector<std::string>* skipped)
{
    if (auto* t = cat.resolve(name))
        return t;
    // Category drift (issue 21): the seed's corpus names some tasks under older categories
    // (Broadcast/expand_where is Index/expand_where in the benchmark). A Category/stem whose stem
    // names exactly one benchmark task resolves to it; the submission's origin says so.
    if (const auto slash = name.rfind('/'); slash != std::string::npos)
        if (auto* t = cat.resolve(name.substr(slash + 1)))
            return t;
    auto msg = fmt::format("{}: unknown task '{}'", where, name);
    if (!skipped)
        throw ImportError(msg);
    skipped->push_back(msg);
    return nullptr;
}

std::optional<int> roundFrom(const nlohmann::json& j, const std::string& where)
{
    for (const char* key : {"to_round", "round"}) {
        if (!j.contains(key))
            continue;
        const auto& v = j[key];
        if (v.is_number_integer())
            return v.get<int>();
        if (v.is_string()) {
            std::smatch m;
            std::string s = v.get<std::string>();
            if (std::regex_search(s, m, std::regex("(\\d+)"))) {
                // A round beyond int (found by fuzz_submissions_jsonl) is malformed, not a crash.
                if (m[1].length() > 9)
                    throw ImportError(fmt::format("{}: round number {} is out of range", where, m[1].str()));
                return std::stoi(m[1]);
            }
        }
    }
    return std::nullopt;
}

void loadJsonl(const fs::path& p, std::string_view content, const TaskCatalogue& cat, std::vector<Submission>& out,
               std::vector<std::string>* skipped)
{
    std::istringstream in{std::string(content)};
    std::string line;
    int lineNo = 0;
    int records = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const std::string where = fmt::format("{}:{}", p.string(), lineNo);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception& e) {
            throw ImportError(fmt::format("{}: malformed JSON ({})", where, e.what()));
        }
        if (!j.is_object())
            throw ImportError(fmt::format("{}: expected a JSON object", where));
        std::string code;
        std::string taskName;
        if (j.contains("predict")) {
            if (!j["predict"].is_string())
                throw ImportError(fmt::format("{}: \"predict\" is not a string", where));
            code = j["predict"].get<std::string>();
            if (j.contains("file") && j["file"].is_string())
                taskName = j["file"].get<std::string>();
            else if (j.contains("instruction") && j["instruction"].is_string())
                taskName = entryFromInstruction(j["instruction"].get<std::string>());
            if (taskName.empty())
                throw ImportError(fmt::format("{}: record names no task (needs \"file\" or an \"instruction\" with 'Wrapper Entry Information')", where));
        } else if (j.contains("after_code") && j.contains("task_id")) {
            // A corpus record whose round produced no code (after_code null) is an empty submission.
            if (!(j["after_code"].is_string() || j["after_code"].is_null()) || !j["task_id"].is_string())
                throw ImportError(fmt::format("{}: corpus record with a malformed after_code or task_id", where));
            code = j["after_code"].is_string() ? j["after_code"].get<std::string>() : std::string();
            taskName = j["task_id"].get<std::string>();
        } else {
            throw ImportError(fmt::format("{}: not a submission record (no \"predict\" or \"after_code\")", where));
        }
        ++records;
        const auto* task = resolveTask(cat, taskName, where, skipped);
        std::optional<std::string> method;
        if (j.contains("method")) {
            if (!j["method"].is_string() || j["method"].get<std::string>().empty())
                throw ImportError(fmt::format("{}: \"method\" must be a non-empty string", where));
            method = j["method"].get<std::string>();
        }
        if (task) {
            std::string origin = where;
            if (auto n = taskName.ends_with(".py") ? taskName.substr(0, taskName.size() - 3) : taskName; n != task->id)
                if (n.find('/') != std::string::npos)
                    origin += fmt::format(" ({} is {} in the benchmark)", n, task->id);
            out.push_back({task->id, cleanSubmission(code), origin, roundFrom(j, where), method});
        }
    }
    if (records == 0)
        throw ImportError(fmt::format("{}: no submission records", p.string()));
}

void loadPy(const fs::path& p, std::string_view content, const TaskCatalogue& cat, std::vector<Submission>& out,
            std::vector<std::string>* skipped)
{
    // Prefer Category/stem from the last two path components, then the bare stem.
    std::string stem = p.stem().string();
    std::string name = stem;
    if (p.has_parent_path()) {
        std::string withCat = p.parent_path().filename().string() + "/" + stem;
        if (cat.find(withCat))
            name = withCat;
    }
    if (const auto* task = resolveTask(cat, name, p.string(), skipped))
        out.push_back({task->id, cleanSubmission(content), p.string(), std::nullopt, std::nullopt});
}

/// One file of a source, by its extension.
void loadOne(const fs::path& p, std::string_view content, const TaskCatalogue& cat, std::vector<Submission>& out,
             std::vector<std::string>* skipped)
{
    const auto ext = p.extension().string();
    if (ext == ".jsonl" || ext == ".json")
        loadJsonl(p, content, cat, out, skipped);
    else if (ext == ".py")
        loadPy(p, content, cat, out, skipped);
    else
        throw ImportError(fmt::format("{}: unsupported file type (expected .jsonl or .py)", p.string()));
}

}  // namespace

std::string entryFromInstruction(const std::string& instruction)
{
    static const std::regex re("Wrapper Entry Information:\\s*(?:def\\s+)?([A-Za-z_][A-Za-z0-9_]*)");
    std::smatch m;
    if (std::regex_search(instruction, m, re))
        return m[1];
    return {};
}

std::vector<Submission> loadSubmissions(const fs::path& source, const TaskCatalogue& cat)
{
    return loadSubmissions(source, cat, nullptr);
}

namespace {

/// The .py and .jsonl files below a submission directory, sorted. Symbolic links to files are read
/// (the user's own tree); links to directories are not followed (recursive_directory_iterator's
/// default), so a cycle cannot loop. Every file-system error (a link cycle, a dangling link, an
/// unreadable directory) is an ImportError naming the path, thrown before anything is read.
std::vector<fs::path> submissionFiles(const fs::path& source)
{
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(source, ec), end;
    if (ec)
        throw ImportError(fmt::format("{}: cannot read the directory: {}", source.string(), ec.message()));
    for (; it != end; it.increment(ec)) {
        if (ec)
            throw ImportError(fmt::format("{}: cannot walk the directory: {}", source.string(), ec.message()));
        const fs::path p = it->path();
        auto ext = p.extension().string();
        if (ext != ".py" && ext != ".jsonl")
            continue;
        std::error_code sec;
        const auto lst = fs::symlink_status(p, sec);
        if (sec)
            throw ImportError(fmt::format("{}: {}", p.string(), sec.message()));
        if (fs::is_symlink(lst)) {
            const auto st = fs::status(p, sec);  // follows the link: ELOOP for a cycle
            if (sec)
                throw ImportError(fmt::format("{}: a symbolic link that cannot be followed: {}", p.string(), sec.message()));
            if (!fs::is_regular_file(st))
                continue;
        } else if (!fs::is_regular_file(lst)) {
            continue;
        }
        files.push_back(p);
    }
    if (ec)
        throw ImportError(fmt::format("{}: cannot walk the directory: {}", source.string(), ec.message()));
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

std::vector<Submission> loadSubmissions(const fs::path& source, const TaskCatalogue& cat, std::vector<std::string>* skipped)
{
    std::error_code ec;
    if (!fs::exists(source, ec)) {
        if (ec && ec != std::errc::no_such_file_or_directory)
            throw ImportError(fmt::format("{}: {}", source.string(), ec.message()));
        throw ImportError(fmt::format("{}: no such file or directory", source.string()));
    }
    try {
        std::vector<Submission> out;
        if (fs::is_directory(source, ec)) {
            const auto files = submissionFiles(source);
            if (files.empty())
                throw ImportError(fmt::format("{}: directory holds no .py or .jsonl submissions", source.string()));
            for (const auto& f : files)
                loadOne(f, readFile(f), cat, out, skipped);
        } else {
            const auto ext = source.extension().string();
            if (ext != ".jsonl" && ext != ".json" && ext != ".py")  // refused before reading it
                throw ImportError(fmt::format("{}: unsupported file type (expected .jsonl or .py)", source.string()));
            loadOne(source, readFile(source), cat, out, skipped);
        }
        return out;
    } catch (const fs::filesystem_error& e) {
        // Whatever the walk above did not foresee: still a clear input error, never an abort.
        throw ImportError(fmt::format("{}: {}", source.string(), e.what()));
    }
}

std::vector<Submission> parseSubmissions(const std::vector<std::pair<fs::path, std::string>>& files, const TaskCatalogue& cat,
                                         std::vector<std::string>* skipped)
{
    std::vector<const std::pair<fs::path, std::string>*> sorted;
    for (const auto& f : files)
        sorted.push_back(&f);
    std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
    std::vector<Submission> out;
    for (const auto* f : sorted)
        loadOne(f->first, f->second, cat, out, skipped);
    return out;
}

}  // namespace kbx
