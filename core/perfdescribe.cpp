// SPDX-License-Identifier: MIT
#include "perfdescribe.h"

#include "stats.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <utility>
#include <vector>

namespace kbx::perf {

namespace {

using nlohmann::json;

std::string sideName(const std::string& side) { return side == "reference" ? "eager" : side; }

double num(const json& o, const char* key, double fallback)
{
    return o.is_object() && o.contains(key) && o[key].is_number() ? o[key].get<double>() : fallback;
}

/// The launch-parity experiment (perf config parity_balance, PERF_PROTOCOL "Placement"), so that a
/// reader knows which estimator made the figures: under 2 they are four-group medians and the plain
/// medians' speedup is said beside them; under 1 the other way round. The geometric mean over the
/// processes that stored it; empty when no process did.
std::string parityNote(const json& s)
{
    std::vector<double> plain, four;
    for (const auto& p : s.value("per_process", json::array())) {
        if (!p.is_object())
            continue;
        if (p.value("estimator", std::string()) == "four_groups") {
            if (const double sp = num(p.value("plain", json::object()), "speedup", 0.0); sp > 0)
                plain.push_back(sp);
        } else if (const double sp = num(p.value("parity_balance", json::object()), "speedup", 0.0); sp > 0) {
            four.push_back(sp);
        }
    }
    if (!plain.empty())
        return fmt::format("four-group medians (parity_balance 2; plain medians {:.3f}x)", stats::geomeanOf(plain));
    if (!four.empty())
        return fmt::format("four-group medians {:.3f}x (parity_balance 1)", stats::geomeanOf(four));
    return {};
}

}  // namespace

std::string formatMs(double ms)
{
    if (!(ms > 0))
        return "—";
    if (ms < 1.0)
        return fmt::format("{:.{}f} µs", ms * 1e3, ms < 0.1 ? 2 : 1);
    if (ms < 1000.0)
        return fmt::format("{:.{}f} ms", ms, ms < 10 ? 3 : 1);
    return fmt::format("{:.2f} s", ms / 1e3);
}

std::string launchGapText(const json& s)
{
    const double gap = num(s, "launch_gap_us", 0.0), gap0 = num(s, "launch_gap_start_us", gap);
    if (!(gap > 0))
        return "—";
    return std::abs(gap - gap0) > 0.5 ? fmt::format("{:.0f} → {:.0f} µs", gap0, gap) : fmt::format("{:.0f} µs", gap);
}

std::string shapeNotes(const json& s)
{
    if (!s.is_object())
        return {};
    std::vector<std::string> notes;
    std::string starved, sync, unprobed;
    // (value() returns a copy: kept in locals, so that items() does not iterate a destroyed temporary)
    const json starvedBySide = s.value("starved", json::object()), syncBySide = s.value("host_sync", json::object());
    for (const auto& [k, v] : starvedBySide.items())
        if (v.is_number() && v.get<int>() > 0)
            starved += fmt::format("{}{} {}", starved.empty() ? "" : ", ", sideName(k), v.get<int>());
    for (const auto& [k, v] : syncBySide.items()) {
        if (v.is_boolean() && v.get<bool>())
            sync += (sync.empty() ? "" : ", ") + sideName(k);
        else if (v.is_null())
            unprobed += (unprobed.empty() ? "" : ", ") + sideName(k);
    }
    if (!starved.empty())
        notes.push_back("starved samples dropped: " + starved);
    if (!s.value("starved_kept", json::array()).empty())
        notes.push_back("starved samples kept (too few clean)");
    if (!sync.empty())
        notes.push_back("waits for the device inside: " + sync + " (host time included)");
    if (const json hit = s.value("host_in_timing", json()); hit.is_object())
        notes.push_back(fmt::format("host time {:.0f} % of the candidate's device time", 100.0 * num(hit, "host_share", 0.0)));
    if (const json hit = s.value("baseline_host_in_timing", json()); hit.is_object())
        notes.push_back(fmt::format("host time {:.0f} % of eager's device time", 100.0 * num(hit, "host_share", 0.0)));
    if (!unprobed.empty())
        notes.push_back("slow, not probed: " + unprobed);
    if (const json rc = s.value("recheck", json()); rc.is_object() && !rc.value("ok", true))
        notes.push_back("output re-check failed");
    if (s.value("roofline", json::object()).value("faster_than_bound", false))
        notes.push_back("faster than the roofline bound");
    if (const std::string pd = s.value("roofline", json::object()).value("peak_dtype", std::string()); !pd.empty() && pd != "float32")
        notes.push_back("roofline at the " + pd + " peak");
    if (const double first = num(s.value("first_call_s", json::object()), "candidate", 0.0); first > 0.05)
        notes.push_back(fmt::format("first call {:.2f} s", first));
    if (auto parity = parityNote(s); !parity.empty())
        notes.push_back(std::move(parity));
    std::string out;
    for (const auto& n : notes)
        out += (out.empty() ? "" : "; ") + n;
    return out;
}

std::string extraProcessesText(const json& x)
{
    std::vector<std::string> why;
    if (x.contains("spread"))
        why.push_back(fmt::format("its first processes' geomeans disagreed by {:.2f} % (more than {:.2f} %)", 100.0 * num(x, "spread", 0.0),
                                  100.0 * num(x, "threshold", 0.0)));
    if (const auto& w = x.value("widths", json::array()); w.is_array() && !w.empty()) {
        std::vector<std::string> steps;
        for (const auto& s : w)
            if (s.is_object())
                steps.push_back(fmt::format("{:.2f} % after {}", 100.0 * num(s, "width", 0.0), num(s, "processes", 0.0)));
        why.push_back(fmt::format("its interval was wider than {:.2f} % ({})", 100.0 * num(x, "target_width", 0.0), fmt::join(steps, ", ")));
    }
    return fmt::format("timed in {} processes: {}", num(x, "processes", 0.0), why.empty() ? std::string("-") : fmt::format("{}", fmt::join(why, "; then ")));
}

std::string flagText(const std::string& flag)
{
    static const std::vector<std::pair<std::string, std::string>> kWhat = {
        {"device_work_outside_events", "device work outside the timed events: no speedup"},
        {"torch_modified", "the candidate modified torch functions: no speedup"},
        {"faster_than_roofline", "faster than the roofline bound (audit)"},
        {"speedup_over_10x", "speedup over 10× (audit)"},
        {"output_recheck_failed", "a timed call's output failed the re-check"},
        {"host_latency_in_samples", "host latency kept in the samples (too few clean ones)"},
        {"shape_failed", "shape failed"},
        {"host_in_timing", "the call waits for the device inside: host time in the samples, varies with the host"},
        {"baseline_host_in_timing", "eager's call waits for the device inside: host time in its samples, the speedup varies with the host"},
        {"autotune_choice_differs", "the autotuner chose differently in the perf processes (in the interval)"},
    };
    const auto colon = flag.find(':');
    const std::string key = colon == std::string::npos ? flag : flag.substr(0, colon);
    std::string what = key;
    for (const auto& [k, v] : kWhat)
        if (k == key)
            what = v;
    return colon == std::string::npos ? what : fmt::format("{} ({})", what, flag.substr(colon + 1));
}

}  // namespace kbx::perf
