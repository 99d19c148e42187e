// SPDX-License-Identifier: MIT
#include "interpgaps.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace kbx {

std::string canonicalDtype(std::string_view name)
{
    std::string s(name);
    for (std::string_view prefix : {"torch.", "c10::", "at::", "tl.", "triton.language."})
        if (s.rfind(prefix, 0) == 0)
            s.erase(0, prefix.size());
    std::string low;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c)))
            low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const std::map<std::string, std::string> alias = {
        {"bf16", "bfloat16"}, {"half", "float16"}, {"fp16", "float16"}, {"float", "float32"}, {"fp32", "float32"},
        {"double", "float64"}, {"fp64", "float64"}, {"char", "int8"}, {"byte", "uint8"}, {"short", "int16"},
        {"int", "int32"}, {"long", "int64"}, {"int1", "bool"}, {"i8", "int8"}, {"i32", "int32"},
        {"fp8e4nv", "float8_e4m3fn"}, {"fp8e5", "float8_e5m2"}, {"float8_e4m3fn", "float8_e4m3fn"},
        {"float8_e5m2", "float8_e5m2"}};
    if (auto it = alias.find(low); it != alias.end())
        return it->second;
    return low;
}

InterpGaps unknownInterpGaps(std::string why)
{
    InterpGaps g;
    g.known = false;
    g.error = std::move(why);
    return g;
}

InterpGaps parseCanaryResult(const nlohmann::json& result)
{
    if (!result.is_object() || result.value("type", std::string()) != "result")
        return unknownInterpGaps("the canary sent no result frame");
    const auto it = result.find("gaps");
    if (it == result.end() || !it->is_array())
        return unknownInterpGaps("the canary's result has no list of gaps");
    InterpGaps g;
    g.known = true;
    g.interpret = result.value("interpret", false);
    for (const auto& e : *it) {
        if (!e.is_object() || !e.contains("dtype") || !e["dtype"].is_string())
            return unknownInterpGaps("the canary's result has a malformed gap: " + e.dump().substr(0, 200));
        InterpGap gap;
        gap.dtype = canonicalDtype(e["dtype"].get<std::string>());
        if (e.contains("op") && e["op"].is_string())
            gap.op = e["op"].get<std::string>();
        if (e.contains("what") && e["what"].is_string())
            gap.what = e["what"].get<std::string>();
        g.gaps.push_back(std::move(gap));
    }
    return g;
}

namespace {

bool reducedPrecisionFloat(const std::string& d)
{
    return d == "float16" || d == "bfloat16" || d.rfind("float8", 0) == 0;
}

}  // namespace

std::vector<InterpGap> gapsForCase(const InterpGaps& gaps, const std::vector<std::string>& inputDtypes)
{
    std::set<std::string> dtypes;
    for (const auto& d : inputDtypes)
        dtypes.insert(canonicalDtype(d));
    std::vector<InterpGap> hit;
    if (!gaps.known) {
        for (const auto& d : dtypes)
            if (reducedPrecisionFloat(d))
                hit.push_back({d, "unknown", "the interpreter's canary did not report" + (gaps.error.empty() ? std::string() : ": " + gaps.error)});
        return hit;
    }
    for (const auto& g : gaps.gaps)
        if (dtypes.count(g.dtype))
            hit.push_back(g);
    return hit;
}

std::string describeGaps(const std::vector<InterpGap>& hit)
{
    if (hit.empty())
        return {};
    // Grouped by dtype, in the order first seen.
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::string>> by;
    for (const auto& g : hit) {
        if (!by.count(g.dtype))
            order.push_back(g.dtype);
        std::string w = g.op.empty() ? g.what : (g.what.empty() ? g.op : g.op + ": " + g.what);
        if (auto nl = w.find('\n'); nl != std::string::npos)
            w.resize(nl);
        if (w.size() > 160)
            w = w.substr(0, 157) + "...";
        by[g.dtype].push_back(w);
    }
    std::string out = "not judged on the CPU: Triton's interpreter gets ";
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (i)
            out += "; and ";
        out += order[i] + " wrong (";
        const auto& ws = by[order[i]];
        for (std::size_t k = 0; k < ws.size(); ++k)
            out += (k ? "; " : "") + ws[k];
        out += ")";
    }
    out += "; evaluate with --device cuda";
    return out;
}

nlohmann::json toJson(const InterpGaps& gaps)
{
    nlohmann::json j = {{"known", gaps.known}, {"interpret", gaps.interpret}, {"gaps", nlohmann::json::array()}};
    for (const auto& g : gaps.gaps)
        j["gaps"].push_back({{"dtype", g.dtype}, {"op", g.op}, {"what", g.what}});
    if (!gaps.error.empty())
        j["error"] = gaps.error;
    return j;
}

}  // namespace kbx
