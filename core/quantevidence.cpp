// SPDX-License-Identifier: MIT
#include "quantevidence.h"

#include "interpgaps.h"

#include <fmt/format.h>

namespace kbx {

const std::set<std::string>& quantizedDtypes()
{
    static const std::set<std::string> k = {"int8", "uint8", "int4", "uint4", "float8_e4m3fn", "float8_e5m2",
                                            "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4b15", "float8_e8m0fnu"};
    return k;
}

std::string quantEvidenceProblem(const nlohmann::json& launchDtypes, const nlohmann::json& launches)
{
    if (!launchDtypes.is_object() || launchDtypes.empty())
        return "no record of the data its Triton kernels handled";
    std::set<std::string> seen;
    for (const auto& [kernel, ev] : launchDtypes.items()) {
        const bool ran = launches.is_object() && launches.contains(kernel) && launches[kernel].is_number_integer() &&
                         launches[kernel].get<long long>() > 0;
        if (!ran || !ev.is_object())
            continue;
        for (const char* part : {"args", "values"}) {
            if (!ev.contains(part) || !ev[part].is_array())
                continue;
            for (const auto& d : ev[part]) {
                if (!d.is_string())
                    continue;
                const auto c = canonicalDtype(d.get<std::string>());
                if (quantizedDtypes().count(c))
                    return {};
                if (seen.size() < 12)
                    seen.insert(c);
            }
        }
    }
    std::string list;
    for (const auto& s : seen)
        list += (list.empty() ? "" : ", ") + s;
    return fmt::format("no int8/uint8/float8 data reached a launched Triton kernel (its kernels handled only {})",
                       list.empty() ? "nothing recorded" : list);
}

}  // namespace kbx
