// SPDX-License-Identifier: MIT
// kbx import: the values of the seed's records (JSON, flags, numbers, verdicts), the formats told
// apart, and the seed's task names and rounds.
#include "seed_import_internal.h"

#include "catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

namespace kbx {
using nlohmann::json;

namespace seed_import_internal {

namespace {

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

}  // namespace

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

namespace {

std::string placeholderCode(const std::string& origin, const std::string& gpu, const std::string& method, int round)
{
    return fmt::format("# kbx import: the seed kept no code for this verdict\n# source: {}\n# gpu: {}, method: {}, round: {}\n", origin, gpu,
                       method, round);
}

}  // namespace

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

std::string dirName(const fs::path& dir)
{
    auto p = fs::absolute(dir.empty() ? fs::path(".") : dir).lexically_normal();  // "": the current folder
    if (p.filename().empty())
        p = p.parent_path();
    return p.filename().string();
}

}  // namespace seed_import_internal

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

}  // namespace kbx
