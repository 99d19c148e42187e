// SPDX-License-Identifier: MIT
#include "quality.h"

#include "paths.h"
#include "process.h"
#include "query_engine.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kbx::quality {
namespace fs = std::filesystem;
namespace {

const char* env(const char* name)
{
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

fs::path onPath(const std::string& name)
{
    const char* path = env("PATH");
    if (!path)
        return {};
    std::stringstream ss(path);
    std::string dir;
    std::error_code ec;
    while (std::getline(ss, dir, ':')) {
        if (dir.empty())
            continue;
        const fs::path c = fs::path(dir) / name;
        if (fs::exists(c, ec) && ::access(c.c_str(), X_OK) == 0)
            return c;
    }
    return {};
}

std::optional<double> optReal(const nlohmann::json& j, const char* key)
{
    if (j.contains(key) && j[key].is_number())
        return j[key].get<double>();
    return std::nullopt;
}

std::optional<int> optInt(const nlohmann::json& j, const char* key)
{
    if (j.contains(key) && j[key].is_number())
        return static_cast<int>(j[key].get<double>());
    return std::nullopt;
}

/// Pending ids are read in chunks: SQLite limits the number of terms in one statement.
template <typename F>
void chunked(const std::vector<std::int64_t>& ids, F&& f)
{
    constexpr std::size_t kChunk = 500;
    for (std::size_t i = 0; i < ids.size(); i += kChunk)
        f(std::vector<std::int64_t>(ids.begin() + std::ptrdiff_t(i), ids.begin() + std::ptrdiff_t(std::min(ids.size(), i + kChunk))));
}

}  // namespace

bool isPlaceholder(const std::string& code) { return code.rfind("# kbx import: the seed kept no code", 0) == 0; }

fs::path defaultPython()
{
    // The worker's environment, found as the worker finds it (core/paths.h): $KBX_PYTHON, a build
    // tree's venv, the interpreter `kbx setup-python` recorded, ~/.local/share/kbx/venv. radon is
    // installed there (requirements.txt; kbx setup-python adds it). Only without any of these,
    // python3 on PATH (radon may come from the distribution, e.g. Debian's python3-radon).
    if (auto py = findPython(); !py.empty())
        return py;
    return onPath("python3");
}

fs::path defaultScript()
{
    if (auto* p = env("KBX_QUALITY_SCRIPT"))
        return p;
    return findTasksDir() / "worker" / "harness" / "quality.py";
}

std::map<std::int64_t, CodeQualityRow> cached(const Store& store, const std::vector<std::int64_t>& ids)
{
    std::map<std::int64_t, CodeQualityRow> out;
    chunked(ids, [&](const std::vector<std::int64_t>& part) {
        for (const auto& j : query::codeQualityRows(store, part)) {
            CodeQualityRow r;
            r.submissionId = j["submission_id"].get<std::int64_t>();
            r.mi = optReal(j, "mi");
            r.ccMean = optReal(j, "cc_mean");
            r.ccMax = optInt(j, "cc_max");
            r.sloc = optInt(j, "sloc");
            r.toolVersion = j["tool_version"].get<std::string>();
            r.error = j["error"].get<std::string>();
            out[r.submissionId] = std::move(r);
        }
    });
    return out;
}

Result ensure(Store& store, const std::vector<std::int64_t>& submissionIds, const Options& options)
{
    Result res;
    res.rows = cached(store, submissionIds);
    std::vector<std::int64_t> missing;
    for (auto id : submissionIds)
        if (!res.rows.count(id))
            missing.push_back(id);
    if (missing.empty())
        return res;

    // The codes to measure; placeholders of imports without code are recorded as such at once.
    // radon measures each distinct code once (issue 24: the same code submitted by several methods
    // and rounds was measured once per submission, ~38.7k rows for 273 codes): the first submission
    // of a code is sent, the others get a copy of its row.
    nlohmann::json items = nlohmann::json::array();
    std::vector<CodeQualityRow> placeholders;
    std::map<std::string, std::int64_t> sentFor;             // code -> the submission sent for it
    std::map<std::int64_t, std::vector<std::int64_t>> sameCode;  // that submission -> the others with its code
    chunked(missing, [&](const std::vector<std::int64_t>& part) {
        for (const auto& j : query::submissionCodes(store, part)) {
            auto code = j["code"].get<std::string>();
            if (isPlaceholder(code)) {
                CodeQualityRow r;
                r.submissionId = j["id"].get<std::int64_t>();
                r.toolVersion = "-";
                r.error = "no code (imported verdict without code)";
                placeholders.push_back(r);
            } else if (auto [it, fresh] = sentFor.try_emplace(std::move(code), j["id"].get<std::int64_t>()); fresh) {
                items.push_back({{"id", j["id"]}, {"code", it->first}});
            } else {
                sameCode[it->second].push_back(j["id"].get<std::int64_t>());
            }
        }
    });
    if (!placeholders.empty()) {
        store.putCodeQuality(placeholders);
        for (auto& r : placeholders)
            res.rows[r.submissionId] = r;
    }
    if (items.empty())
        return res;

    auto unavailable = [&](const std::string& why) {
        res.available = false;
        res.note = why;
        return res;
    };
    const fs::path python = options.python.empty() ? defaultPython() : options.python;
    const fs::path script = options.script.empty() ? defaultScript() : options.script;
    std::error_code ec;
    if (python.empty() || !fs::exists(python, ec))
        return unavailable("code quality n/a: no Python found for radon (set KBX_PYTHON)");
    if (!fs::exists(script, ec))
        return unavailable(fmt::format("code quality n/a: {} not found", script.string()));

    const fs::path input = fs::temp_directory_path() / fmt::format("kbx-quality-{}-{}.json", ::getpid(), reinterpret_cast<std::uintptr_t>(&res));
    {
        std::ofstream out(input);
        // Stored code that is not valid UTF-8 (a damaged database, bytes a candidate wrote) is sent
        // with U+FFFD, not thrown on.
        out << nlohmann::json{{"items", items}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (!out)
            return unavailable(fmt::format("code quality n/a: cannot write {}", input.string()));
    }
    ProcessSpec spec;
    spec.argv = {python.string(), script.string(), input.string()};
    spec.timeoutSeconds = options.timeoutSeconds;
    spec.maxLogBytes = 256u * 1024u * 1024u;
    spec.cwd = fs::temp_directory_path();
    const auto pr = runProcess(spec);
    fs::remove(input, ec);
    nlohmann::json doc = nlohmann::json::parse(pr.stdoutText, nullptr, false);
    if (pr.timedOut)
        return unavailable(fmt::format("code quality n/a: radon took longer than {:.0f} s", options.timeoutSeconds));
    if (!doc.is_object()) {
        std::string err = pr.stderrText.substr(0, 200);
        for (auto& c : err)
            c = c == '\n' ? ' ' : c;
        return unavailable(fmt::format("code quality n/a: {} {} failed (exit {}): {}", python.string(), script.filename().string(), pr.exitCode, err));
    }
    if (doc.contains("error"))
        return unavailable("code quality n/a: " + doc["error"].get<std::string>());
    const std::string tool = doc.value("tool_version", std::string("radon"));
    std::vector<CodeQualityRow> rows;
    for (const auto& r : doc.value("results", nlohmann::json::array())) {
        CodeQualityRow q;
        q.submissionId = r["id"].get<std::int64_t>();
        q.mi = optReal(r, "mi");
        q.ccMean = optReal(r, "cc_mean");
        q.ccMax = optInt(r, "cc_max");
        q.sloc = optInt(r, "sloc");
        q.toolVersion = tool;
        q.error = r.value("error", std::string());
        rows.push_back(std::move(q));
    }
    if (rows.size() != items.size())
        return unavailable(fmt::format("code quality n/a: radon answered for {} of {} submissions", rows.size(), items.size()));
    for (std::size_t i = 0, measured = rows.size(); i < measured; ++i)
        if (auto it = sameCode.find(rows[i].submissionId); it != sameCode.end())
            for (auto other : it->second) {
                CodeQualityRow copy = rows[i];
                copy.submissionId = other;
                rows.push_back(std::move(copy));
            }
    store.putCodeQuality(rows);
    for (auto& r : rows)
        res.rows[r.submissionId] = r;
    res.measured = static_cast<int>(rows.size());
    return res;
}

}  // namespace kbx::quality
