// SPDX-License-Identifier: MIT
#include "stats.h"

#include "perfstats.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <numeric>
#include <random>
#include <thread>

namespace kbx::stats {

double geomeanOf(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += std::log(x);
    return std::exp(s / double(v.size()));
}

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : perf::quantileSorted(v, 0.5);
}

Interval wilson(int k, int n, double z)
{
    if (n <= 0)
        return {0.0, 0.0, 1.0};
    const double p = double(k) / n;
    const double z2 = z * z;
    const double denom = 1.0 + z2 / n;
    const double centre = (p + z2 / (2.0 * n)) / denom;
    const double half = z / denom * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n));
    return {p, std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

// ---- elementary statistics -------------------------------------------------------------------

Interval bootstrapGeomeanCI(const std::vector<double>& values, std::uint64_t seed, int resamples, double level)
{
    if (values.empty())
        return {0.0, 0.0, 0.0};
    std::vector<double> logs;
    logs.reserve(values.size());
    for (double v : values) {
        if (!(v > 0) || !std::isfinite(v))
            throw std::invalid_argument("geometric mean of a value that is not positive and finite");
        logs.push_back(std::log(v));
    }
    const double est = std::exp(std::accumulate(logs.begin(), logs.end(), 0.0) / double(logs.size()));
    if (logs.size() < 2)
        return {est, est, est};
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, logs.size() - 1);
    std::vector<double> stats;
    stats.reserve(std::size_t(std::max(1, resamples)));
    for (int i = 0; i < resamples; ++i) {
        double s = 0;
        for (std::size_t k = 0; k < logs.size(); ++k)
            s += logs[pick(rng)];
        stats.push_back(std::exp(s / double(logs.size())));
    }
    // perf::quantileSorted over the sorted statistics, from the two order statistics it reads (a
    // selection instead of a full sort: the same values, the same arithmetic).
    auto at = [&stats](double q) {
        if (stats.empty())
            return 0.0;
        const double h = (double(stats.size()) - 1.0) * q;
        const auto lo = static_cast<std::size_t>(std::floor(h));
        const auto hi = std::min(lo + 1, stats.size() - 1);
        std::nth_element(stats.begin(), stats.begin() + std::ptrdiff_t(lo), stats.end());
        const double a = stats[lo];
        const double b = hi == lo ? a : *std::min_element(stats.begin() + std::ptrdiff_t(lo) + 1, stats.end());
        return a + (h - double(lo)) * (b - a);
    };
    const double lower = at((1.0 - level) / 2.0);
    return {est, lower, at(1.0 - (1.0 - level) / 2.0)};
}

const std::vector<double>& fastPThresholds()
{
    static const std::vector<double> p = {0.0, 0.5, 1.0, 1.5, 2.0};
    return p;
}

SpeedupStats speedupStats(const std::vector<double>& speedups, const std::vector<double>& baselineMs, const std::vector<double>& candidateMs)
{
    SpeedupStats s = speedupStatsWithoutCI(speedups, baselineMs, candidateMs);
    if (!speedups.empty())
        s.geomeanCI = bootstrapGeomeanCI(speedups);
    return s;
}

// ---- bootstrap over many groups --------------------------------------------------------------------

void bootstrapGeomeanCIs(std::vector<BootstrapJob>& jobs)
{
    // Each group's interval from its own generator (bootstrapGeomeanCI's seed): the groups are
    // independent, so they are spread over threads, largest first; the intervals are those of one
    // call per group. (At a million evaluations the resamples, 2,000 per group over every timed
    // kernel, are the largest part of the tables that show speedups.)
    std::vector<std::size_t> order;
    std::size_t work = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i)
        if (jobs[i].out) {
            order.push_back(i);
            work += jobs[i].values.size();
        }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return jobs[a].values.size() > jobs[b].values.size(); });
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const auto threads = std::min<std::size_t>({order.size(), std::size_t(cores), 16});
    if (threads <= 1 || work < 20000) {
        for (auto i : order)
            *jobs[i].out = bootstrapGeomeanCI(jobs[i].values);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(threads);
    auto worker = [&](std::size_t t) {
        try {
            for (std::size_t k = next++; k < order.size(); k = next++)
                *jobs[order[k]].out = bootstrapGeomeanCI(jobs[order[k]].values);
        } catch (...) {
            errors[t] = std::current_exception();
            next = order.size();
        }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t)
        pool.emplace_back(worker, t);
    worker(0);
    for (auto& th : pool)
        th.join();
    for (auto& e : errors)
        if (e)
            std::rethrow_exception(e);
}

/// speedupStats() without its bootstrap CI: the values are handed back for bootstrapGeomeanCIs().
SpeedupStats speedupStatsWithoutCI(const std::vector<double>& speedups, const std::vector<double>& baselineMs,
                                   const std::vector<double>& candidateMs)
{
    SpeedupStats s;
    s.n = int(speedups.size());
    if (speedups.empty())
        return s;
    s.geomean = geomeanOf(speedups);
    s.mean = std::accumulate(speedups.begin(), speedups.end(), 0.0) / double(speedups.size());
    s.median = medianOf(speedups);
    for (double x : speedups)
        s.slower += x < 1.0;
    s.slowerFraction = double(s.slower) / double(s.n);
    double base = 0, cand = 0;
    for (std::size_t i = 0; i < baselineMs.size() && i < candidateMs.size(); ++i)
        if (baselineMs[i] > 0 && candidateMs[i] > 0) {
            base += baselineMs[i];
            cand += candidateMs[i];
        }
    if (cand > 0)
        s.sumRatio = base / cand;
    return s;
}

}  // namespace kbx::stats
