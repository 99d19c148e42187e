// SPDX-License-Identifier: MIT
#pragma once
// Elementary statistics of the reports and figures: the Wilson interval of a rate, geometric mean,
// median, the percentile bootstrap CI of a geometric mean (one group or many at once), and the
// summary of a set of speedups. Part of the kbx_stats target with perfstats (timing statistics, the
// one quantile: perf::quantileSorted) and glm (the binomial GLM); plain C++20, no Qt, no SQL.

#include "interval.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kbx::stats {

using Interval = kbx::Interval;

/// Wilson score interval for k successes in n trials (z = 1.96: 95 %), estimate k/n. n = 0 gives
/// [0, 1] around 0. (analysis::wilson and analysis::Rate::ci are this one.)
Interval wilson(int k, int n, double z = 1.959963984540054);

/// Geometric mean of positive values (not empty).
double geomeanOf(const std::vector<double>& v);
/// Median (analysis::quantile at 0.5 of the sorted values).
double medianOf(std::vector<double> v);

// ---- elementary statistics -------------------------------------------------------------------

/// Percentile bootstrap CI of the geometric mean of positive values (resampling the values;
/// deterministic for a seed). Fewer than two values: the estimate itself as both bounds.
Interval bootstrapGeomeanCI(const std::vector<double>& values, std::uint64_t seed = 20261130, int resamples = 2000,
                            double level = 0.95);

/// The p values of the fast_p columns.
const std::vector<double>& fastPThresholds();  // {0, 0.5, 1, 1.5, 2}

/// Speedups of timed correct kernels. Everything but n is absent when n = 0.
struct SpeedupStats {
    int n = 0;                       ///< timed correct kernels
    std::optional<double> geomean;
    std::optional<Interval> geomeanCI;  ///< 95 % percentile bootstrap over kernels
    std::optional<double> mean;         ///< arithmetic mean of the kernels' speedups
    std::optional<double> sumRatio;     ///< the seed's aggregate: sum of eager ms / sum of candidate ms
    std::optional<double> median;
    int slower = 0;                     ///< kernels with speedup < 1 (slower than eager)
    std::optional<double> slowerFraction;
};
/// speedups[i] with its kernel's summed eager and candidate ms (for the sum ratio; 0, 0 leaves the
/// kernel out of the sum ratio only).
SpeedupStats speedupStats(const std::vector<double>& speedups, const std::vector<double>& baselineMs = {},
                          const std::vector<double>& candidateMs = {});

/// Percentile bootstrap CIs of many groups at once (bootstrapGeomeanCI with its defaults), spread over
/// the machine's cores: the same intervals as one call per group, each group with its own generator.
/// Jobs whose output pointer is null are skipped.
struct BootstrapJob {
    std::vector<double> values;
    std::optional<Interval>* out = nullptr;
};
void bootstrapGeomeanCIs(std::vector<BootstrapJob>& jobs);

/// speedupStats() without its bootstrap CI: the values are handed back for bootstrapGeomeanCIs().
SpeedupStats speedupStatsWithoutCI(const std::vector<double>& speedups, const std::vector<double>& baselineMs,
                                   const std::vector<double>& candidateMs);

}  // namespace kbx::stats
