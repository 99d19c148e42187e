// SPDX-License-Identifier: MIT
#pragma once
// Statistics of the perf stage (docs/PERF_PROTOCOL.md): robust summaries of raw timing samples,
// bootstrap confidence intervals of per-shape speedups and of a task's geometric-mean speedup,
// the seed's sum-of-times ratio for comparison, and roofline numbers. Plain C++, deterministic
// (the bootstrap takes its seed from the caller).
#include "interval.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbx::perf {

struct Summary {
    std::size_t n = 0;
    double median = 0, q1 = 0, q3 = 0, iqr = 0, mean = 0, min = 0, max = 0;
    double cv = 0;  ///< robust coefficient of variation: IQR / 1.349 / median
};

/// Linear-interpolation quantile (type 7, as numpy's default) of unsorted samples.
double quantile(std::vector<double> xs, double q);
/// The same of samples already sorted (not empty); q clamped to [0, 1]. The one quantile of the
/// project: analysis::quantile (figures, reports) calls it too.
double quantileSorted(const std::vector<double>& sorted, double q);
Summary summarize(const std::vector<double>& xs);

using kbx::Interval;  // core/interval.h: estimate, lo, hi


/// Speedup of one shape: median(reference) / median(candidate), with a percentile bootstrap CI
/// (both sample sets resampled independently).
Interval speedupCI(const std::vector<double>& candidateMs, const std::vector<double>& referenceMs, std::uint64_t seed,
                   int resamples = 2000, double level = 0.95);

/// A task's geometric-mean speedup over its shapes with a bootstrap CI (every shape's samples
/// resampled within the shape, then the geomean of the resampled medians' ratios).
Interval geomeanSpeedupCI(const std::vector<std::vector<double>>& candidateMs,
                          const std::vector<std::vector<double>>& referenceMs, std::uint64_t seed, int resamples = 1000,
                          double level = 0.95);

/// The two bootstrap intervals above, each computed once per distinct input. The perf stage
/// summarises a kernel's processes after its first ones (whether to time another, PerfStage) and
/// again at the end; a process's intervals depend only on its own samples and seed, so the later
/// summaries reuse them. An entry is found by everything the call depends on (samples compared
/// exactly, seed, resamples, level): a result is the uncached function's, bit for bit.
class BootstrapMemo {
public:
    Interval speedupCI(const std::vector<double>& candidateMs, const std::vector<double>& referenceMs, std::uint64_t seed,
                       int resamples = 2000, double level = 0.95);
    Interval geomeanSpeedupCI(const std::vector<std::vector<double>>& candidateMs, const std::vector<std::vector<double>>& referenceMs,
                              std::uint64_t seed, int resamples = 1000, double level = 0.95);
    std::size_t computed() const { return m_computed; }  ///< intervals bootstrapped
    std::size_t reused() const { return m_reused; }      ///< intervals found

private:
    struct Entry {
        bool geomean = false;
        std::uint64_t seed = 0;
        int resamples = 0;
        double level = 0;
        std::vector<std::vector<double>> c, r;
        Interval interval;
    };
    const Entry* find(std::uint64_t key, const Entry& probe) const;
    Interval geomeanOrShape(bool geomean, const std::vector<std::vector<double>>& c, const std::vector<std::vector<double>>& r,
                            std::uint64_t seed, int resamples, double level);
    std::vector<std::pair<std::uint64_t, Entry>> m_entries;
    std::size_t m_computed = 0, m_reused = 0;
};

/// Where a repeat of the whole measurement would land (issue 22): one speedup measured in P fresh
/// worker processes (each with its within-process bootstrap interval) gives the estimate
/// exp(mean log estimate) and an interval for the estimate of a *repeat* of the measurement (again
/// P processes). A process's log-estimate varies by its within-process sampling (from its interval,
/// taken as normal) and by what changes between processes (allocations, clocks, autotune choices);
/// the latter's variance is the P estimates' sample variance shrunk towards a prior:
///   v = (priorDf * (priorRel^2 + mean w^2) + (P-1) * s^2) / (priorDf + P - 1),
/// and the repeat interval is mean +- z * sqrt(2 v / P) (two independent means of P). With P = 1 the
/// prior alone stands for the between-process part. priorRel: a process-to-process standard
/// deviation of a log speedup, measured (docs/PERF_PROTOCOL.md says where).
///
/// shapeFloorVar (a variance of a process's log estimate, 0: none): a lower bound for v from the
/// kernel's shapes (shapeSpreadVariance below). The processes' geomeans give v only P-1 degrees of
/// freedom; a kernel whose three processes happen to agree on the geomean while its shapes swing
/// (a 1M-element shape at one of two levels per process) would borrow the prior's narrowness.
struct RepeatInterval {
    Interval interval;        ///< estimate and the repeat interval
    double betweenRel = 0;    ///< the P estimates' standard deviation (log scale, 0 with one process)
    double withinRel = 0;     ///< root mean square of the within-process standard deviations (log)
    double sdRel = 0;         ///< sqrt(v): the pooled standard deviation of one process's estimate
    double shapeRel = 0;      ///< sqrt(shapeFloorVar): the floor the shapes gave (0: none)
    bool fromShapes = false;  ///< the floor decided v (it was above the pooled estimate)
    int processes = 0;
};
RepeatInterval repeatInterval(const std::vector<Interval>& perProcess, double priorRel, double priorDf, double z = 1.959964,
                              double shapeFloorVar = 0.0);

/// What the shapes say about the variance of one process's log geomean speedup: with x[s][p] the
/// log speedup of shape s in process p (S shapes, each in the same P >= 2 processes),
///   (1 / S^2) * sum over s of the sample variance of x[s][.],
/// the variance of a mean of S independent shapes, with S (P-1) degrees of freedom instead of the
/// geomeans' P-1 (shapes that move together are seen by the geomeans' own spread; the repeat
/// interval takes the larger). 0 with fewer than two processes or no shape.
double shapeSpreadVariance(const std::vector<std::vector<double>>& logSpeedupPerShapeAndProcess);

/// The parity-balance experiment's estimate of one side in one process (perf config parity_balance):
/// the geometric mean of the medians of the samples of each group 0..groups-1, where groups[i] is
/// sample i's group (block parity x pair parity: two groups sit at each launch parity, so a level that
/// follows the launch index's parity is averaged, whatever parity the process started at). 0 when the
/// sizes differ, a group is empty, a group index is out of range or a sample is not positive.
double groupMedianGeomean(const std::vector<double>& xs, const std::vector<int>& groups, int nGroups = 4);

/// The samples with each group's level taken out (parity_balance 2): x_i * G / m_g(i), where G is
/// groupMedianGeomean and m_g group g's median, so that every group is centred at G and the
/// statistics downstream (medians, bootstrap intervals) see one level. Empty when
/// groupMedianGeomean gives nothing.
std::vector<double> alignGroups(const std::vector<double>& xs, const std::vector<int>& groups, int nGroups = 4);

/// The seed's aggregate: sum of reference medians / sum of candidate medians.
double sumTimeRatio(const std::vector<double>& candidateMedians, const std::vector<double>& referenceMedians);

/// Adaptive stopping rule used by the timer: true when the distribution-free 95 % CI of the median
/// (order statistics) is within +-targetRel of the median.
bool medianConverged(const std::vector<double>& xs, double targetRel);

/// Whether the speedup CI lies within the task's noise floor (reference against itself): a tie.
bool isTie(const Interval& speedup, const Interval& noiseFloor);

struct Roofline {
    double gbs = 0;               ///< achieved GB/s (1e9 bytes)
    double tflops = 0;            ///< achieved TFLOP/s
    double bandwidthUtil = 0;     ///< gbs / peak GB/s
    double computeUtil = 0;       ///< tflops / peak TFLOP/s
    double boundMs = 0;           ///< max(bytes / peak bw, flops / peak rate): the roofline time
    bool fasterThanBound = false; ///< measured time below 0.9x the bound: audit (wrong cost, or cheating)
};
Roofline roofline(double ms, double bytes, double flops, double peakGBs, double peakTflops);

}  // namespace kbx::perf
