// SPDX-License-Identifier: MIT
#include "stage_phases.h"

#include <fmt/format.h>

#include <vector>

namespace kbx {

void StagePhases::add(const Outcome& o)
{
    ++m_evaluations;
    if (o.harnessError)
        return;
    const auto& st = o.record.stageSeconds;
    if (!st.is_object())
        return;
    auto num = [&](const std::string& k) { return st.contains(k) && st[k].is_number() ? st[k].get<double>() : 0.0; };
    if (st.contains("reference") && m_referenced.insert(o.taskId).second)
        m_seconds["reference"] += num("reference");
    for (const auto& [k, v] : st.items()) {
        if (!v.is_number())
            continue;
        const double s = v.get<double>();
        const bool extended = k.size() > 9 && k.compare(k.size() - 9, 9, "_extended") == 0;
        if (extended)
            m_seconds["extended"] += s;  // its candidate, compare and judge processes
        else if (k == "candidate")
            m_seconds["contract"] += s;
        else if (k == "compare")
            m_seconds["compare"] += s;
        else if (k.rfind("judge", 0) == 0)
            m_seconds["judge"] += s;
        else if (k == "autotune_sweep")
            m_seconds["autotune_sweep"] += s;
        else if (k == "precompile")
            m_seconds["precompile"] += s;
        else if (k == "evaluation")
            m_seconds["evaluation"] += s;
    }
}

std::string StagePhases::describe(int jobs, double wallSeconds) const
{
    auto get = [&](const char* k) {
        auto it = m_seconds.find(k);
        return it == m_seconds.end() ? 0.0 : it->second;
    };
    std::string s = fmt::format("{} evaluation(s), {:.0f} s of evaluation wall time on {} job(s) ({:.0f} s, {:.2f} s/kernel)", m_evaluations,
                                get("evaluation"), jobs, wallSeconds, m_evaluations ? wallSeconds / m_evaluations : 0.0);
    std::vector<std::string> parts;
    for (const char* k : {"reference", "contract", "compare", "judge", "autotune_sweep", "extended", "precompile"})
        if (m_seconds.count(k))
            parts.push_back(fmt::format("{} {:.0f} s", k, get(k)));
    if (!parts.empty()) {
        s += "; process seconds: ";
        for (std::size_t i = 0; i < parts.size(); ++i)
            s += (i ? ", " : "") + parts[i];
    }
    return s;
}

}  // namespace kbx
