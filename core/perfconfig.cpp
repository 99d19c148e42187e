// SPDX-License-Identifier: MIT
#include "perfconfig.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

namespace kbx {

namespace {

using Member = std::variant<int PerfConfig::*, std::int64_t PerfConfig::*, double PerfConfig::*, bool PerfConfig::*,
                            std::string PerfConfig::*, std::vector<std::string> PerfConfig::*>;

struct Key {
    const char* name;
    Member member;
};

// Every key, in the order toJson writes them (docs/PERF_PROTOCOL.md, "Configuration", lists them
// with their meaning; tests/core/perfconfig_test.cpp checks that it names each one).
const std::vector<Key>& keys()
{
    static const std::vector<Key> k = {
        {"processes", &PerfConfig::processes},
        {"max_processes", &PerfConfig::maxProcesses},
        {"extra_process_threshold", &PerfConfig::extraProcessThreshold},
        {"target_width", &PerfConfig::targetWidth},
        {"max_processes_for_width", &PerfConfig::maxProcessesForWidth},
        {"between_process_prior", &PerfConfig::betweenProcessPrior},
        {"between_process_prior_df", &PerfConfig::betweenProcessPriorDf},
        {"shape_spread_floor", &PerfConfig::shapeSpreadFloor},
        {"precompile", &PerfConfig::precompile},
        {"baselines", &PerfConfig::baselines},
        {"shapes", &PerfConfig::shapes},
        {"rotations", &PerfConfig::rotations},
        {"min_reps", &PerfConfig::minReps},
        {"max_reps", &PerfConfig::maxReps},
        {"block", &PerfConfig::block},
        {"target_rel_ci", &PerfConfig::targetRelCi},
        {"max_seconds", &PerfConfig::maxSeconds},
        {"max_warmup", &PerfConfig::maxWarmup},
        {"max_warmup_seconds", &PerfConfig::maxWarmupSeconds},
        {"min_reps_slow", &PerfConfig::minRepsSlow},
        {"min_gap_us", &PerfConfig::minGapUs},
        {"max_gap_us", &PerfConfig::maxGapUs},
        {"probe_max_ms", &PerfConfig::probeMaxMs},
        {"recheck_drive_max_elements", &PerfConfig::recheckDriveMaxElements},
        {"recheck_drive_max_seconds", &PerfConfig::recheckDriveMaxSeconds},
        {"compile_backend", &PerfConfig::compileBackend},
        {"placement_gap_mb", &PerfConfig::placementGapMb},
        {"history_flip", &PerfConfig::historyFlip},
        {"parity_balance", &PerfConfig::parityBalance},
        {"max_shape_seconds", &PerfConfig::maxShapeSeconds},
    };
    return k;
}

const std::vector<std::string> kBaselines = {"compile", "tf32"};
constexpr int kMaxPlacementGapMb = 65536;

std::string typeName(const nlohmann::json& v)
{
    return v.is_number_float() ? "a non-integral number" : v.type_name();
}

[[noreturn]] void wrongType(const std::string& key, const char* want, const nlohmann::json& v)
{
    throw PerfConfigError(fmt::format("--perf-config: key '{}' must be {}, got {} ({})", key, want, typeName(v), v.dump()));
}

/// An integer: a JSON integer or a number with no fractional part, within T's range.
template <typename T>
T integerValue(const std::string& key, const nlohmann::json& v)
{
    const char* want = std::is_same_v<T, int> ? "an integer" : "an integer (64-bit)";
    if (v.is_number_integer()) {
        if (v.is_number_unsigned()) {
            const auto u = v.get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
                wrongType(key, want, v);
            return static_cast<T>(u);
        }
        const auto i = v.get<std::int64_t>();
        if (i < std::numeric_limits<T>::min() || i > std::numeric_limits<T>::max())
            wrongType(key, want, v);
        return static_cast<T>(i);
    }
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::trunc(d) && d >= static_cast<double>(std::numeric_limits<T>::min()) &&
            d <= static_cast<double>(std::numeric_limits<T>::max()))
            return static_cast<T>(d);
    }
    wrongType(key, want, v);
}

}  // namespace

PerfConfig PerfConfig::defaults(Device device)
{
    PerfConfig c;
    const bool cuda = device == Device::Cuda;
    c.processes = cuda ? 3 : 1;
    c.maxProcesses = cuda ? 4 : 1;
    c.targetWidth = cuda ? 0.02 : 0.0;
    c.maxProcessesForWidth = cuda ? 5 : 1;
    // The four-group medians on a GPU (PERF_PROTOCOL "Placement"): a kernel's time follows the parity
    // of its launch index there. The CPU's wall-clock timer has no such level and no extra kernel.
    c.parityBalance = cuda ? 2 : 0;
    return c;
}

std::vector<std::string> PerfConfig::knownKeys()
{
    std::vector<std::string> out;
    for (const auto& k : keys())
        out.emplace_back(k.name);
    return out;
}

PerfConfig PerfConfig::fromJson(const nlohmann::json& overrides, Device device)
{
    PerfConfig c = defaults(device);
    if (overrides.is_null())
        return c;
    if (!overrides.is_object())
        throw PerfConfigError(fmt::format("--perf-config must be a JSON object, e.g. '{{\"max_seconds\": 0.5}}' (got {})",
                                          overrides.type_name()));
    for (const auto& [name, v] : overrides.items()) {
        const auto it = std::find_if(keys().begin(), keys().end(), [&](const Key& k) { return name == k.name; });
        if (it == keys().end())
            throw PerfConfigError(fmt::format("--perf-config: unknown key '{}' (known: {})", name, fmt::join(knownKeys(), ", ")));
        std::visit(
            [&](auto member) {
                using T = std::remove_reference_t<decltype(c.*member)>;
                if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>) {
                    c.*member = integerValue<T>(name, v);
                } else if constexpr (std::is_same_v<T, double>) {
                    if (!v.is_number())
                        wrongType(name, "a number", v);
                    c.*member = v.get<double>();
                } else if constexpr (std::is_same_v<T, bool>) {
                    if (!v.is_boolean())
                        wrongType(name, "true or false", v);
                    c.*member = v.get<bool>();
                } else if constexpr (std::is_same_v<T, std::string>) {
                    if (!v.is_string())
                        wrongType(name, "a string", v);
                    c.*member = v.get<std::string>();
                } else {
                    if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const auto& e) { return e.is_string(); }))
                        wrongType(name, "an array of strings", v);
                    c.*member = v.get<std::vector<std::string>>();
                }
            },
            it->member);
    }
    if (c.placementGapMb < 0 || c.placementGapMb > kMaxPlacementGapMb)
        throw PerfConfigError(fmt::format("--perf-config: key 'placement_gap_mb' must lie in 0..{} (MiB), got {}", kMaxPlacementGapMb,
                                          c.placementGapMb));
    if (c.historyFlip != 0 && c.historyFlip != 1)
        throw PerfConfigError(fmt::format("--perf-config: key 'history_flip' must be 0 (off) or 1 (on), got {}", c.historyFlip));
    if (c.parityBalance < 0 || c.parityBalance > 2)
        throw PerfConfigError(fmt::format("--perf-config: key 'parity_balance' must be 0 (off), 1 (groups recorded, the four-group "
                                          "medians stored beside) or 2 (and the statistics on the samples aligned by group), got {}",
                                          c.parityBalance));
    for (const auto& b : c.baselines)
        if (std::find(kBaselines.begin(), kBaselines.end(), b) == kBaselines.end())
            throw PerfConfigError(fmt::format("--perf-config: key 'baselines': unknown baseline '{}' (known: {})", b, fmt::join(kBaselines, ", ")));
    return c;
}

nlohmann::json PerfConfig::toJson() const
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& k : keys())
        std::visit([&](auto member) { j[k.name] = this->*member; }, k.member);
    return j;
}

}  // namespace kbx
