// SPDX-License-Identifier: MIT
// The one interval type of core's statistics (issue 25): an estimate with its lower and upper bound.
// Wilson intervals of a rate (core/analysis.h), bootstrap intervals of a geomean (core/stats.h) and
// the perf stage's speedup intervals (core/perfstats.h) all return it.
#pragma once

namespace kbx {

struct Interval {
    double estimate = 0;  ///< the point estimate (a rate k/n, a geomean, a speedup)
    double lo = 0;
    double hi = 0;
};

}  // namespace kbx
