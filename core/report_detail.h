// SPDX-License-Identifier: MIT
#pragma once
// Internal to the report sources (stats_tables, report_tables, report_hardware): the helpers they
// share and the report builders one of them calls in another. Not for callers outside core/.

#include "stats_tables.h"

#include <algorithm>

namespace kbx::stats::detail {

using J = nlohmann::json;

inline const char* kAllMethods = "all methods";

template <typename T>
bool allowed(const std::vector<T>& filter, const T& v)
{
    return filter.empty() || std::find(filter.begin(), filter.end(), v) != filter.end();
}

inline nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
inline nlohmann::json interval(const Interval& i) { return nlohmann::json::array({i.lo, i.hi}); }
inline nlohmann::json interval(const std::optional<Interval>& i) { return i ? interval(*i) : nlohmann::json(); }
inline nlohmann::json rateValue(const Rate& r) { return r.n > 0 ? nlohmann::json(r.value()) : nlohmann::json(); }
inline nlohmann::json rateCI(const Rate& r) { return r.n > 0 ? interval(r.ci()) : nlohmann::json(); }

// report_tables.cpp
Table slowTable(const std::vector<SlowFraction>& slow);
// report_hardware.cpp
Report utilisationReport(const Store& store, const analysis::Facts& facts);
Report crossHardwareReport(const Store& store, const analysis::Facts& facts, const Filters& f);
Report protocolReport(const Store& store, const analysis::Facts& facts);

}  // namespace kbx::stats::detail
