// SPDX-License-Identifier: MIT
#include "perfstats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace kbx::perf {

double quantile(std::vector<double> xs, double q)
{
    if (xs.empty())
        throw std::invalid_argument("quantile of no samples");
    std::sort(xs.begin(), xs.end());
    return quantileSorted(xs, q);
}

double quantileSorted(const std::vector<double>& xs, double q)
{
    const double h = (static_cast<double>(xs.size()) - 1.0) * std::clamp(q, 0.0, 1.0);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const auto hi = std::min(lo + 1, xs.size() - 1);
    return xs[lo] + (h - static_cast<double>(lo)) * (xs[hi] - xs[lo]);
}

Summary summarize(const std::vector<double>& xs)
{
    Summary s;
    s.n = xs.size();
    if (xs.empty())
        return s;
    s.median = quantile(xs, 0.5);
    s.q1 = quantile(xs, 0.25);
    s.q3 = quantile(xs, 0.75);
    s.iqr = s.q3 - s.q1;
    s.mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
    auto [mn, mx] = std::minmax_element(xs.begin(), xs.end());
    s.min = *mn;
    s.max = *mx;
    s.cv = s.median > 0 ? s.iqr / 1.349 / s.median : 0.0;
    return s;
}

namespace {
double medianOfResample(const std::vector<double>& xs, std::mt19937_64& rng, std::vector<double>& buf)
{
    std::uniform_int_distribution<std::size_t> pick(0, xs.size() - 1);
    buf.resize(xs.size());
    for (auto& v : buf)
        v = xs[pick(rng)];
    const auto mid = buf.size() / 2;
    std::nth_element(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(mid), buf.end());
    double m = buf[mid];
    if (buf.size() % 2 == 0) {
        m = 0.5 * (m + *std::max_element(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(mid)));
    }
    return m;
}

Interval percentile(std::vector<double> stats, double estimate, double level)
{
    Interval iv;
    iv.estimate = estimate;
    iv.lo = quantile(stats, (1.0 - level) / 2.0);
    iv.hi = quantile(std::move(stats), 1.0 - (1.0 - level) / 2.0);
    return iv;
}
}  // namespace

Interval speedupCI(const std::vector<double>& c, const std::vector<double>& r, std::uint64_t seed, int resamples, double level)
{
    if (c.empty() || r.empty())
        throw std::invalid_argument("speedup of a side without samples");
    const double est = quantile(r, 0.5) / quantile(c, 0.5);
    std::mt19937_64 rng(seed);
    std::vector<double> stats, buf;
    stats.reserve(static_cast<std::size_t>(resamples));
    for (int i = 0; i < resamples; ++i) {
        double mc = medianOfResample(c, rng, buf);
        double mr = medianOfResample(r, rng, buf);
        stats.push_back(mr / mc);
    }
    return percentile(std::move(stats), est, level);
}

Interval geomeanSpeedupCI(const std::vector<std::vector<double>>& c, const std::vector<std::vector<double>>& r,
                          std::uint64_t seed, int resamples, double level)
{
    if (c.empty() || c.size() != r.size())
        throw std::invalid_argument("geomean over mismatched or no shapes");
    double logSum = 0;
    for (std::size_t s = 0; s < c.size(); ++s)
        logSum += std::log(quantile(r[s], 0.5) / quantile(c[s], 0.5));
    const double est = std::exp(logSum / static_cast<double>(c.size()));
    std::mt19937_64 rng(seed);
    std::vector<double> stats, buf;
    stats.reserve(static_cast<std::size_t>(resamples));
    for (int i = 0; i < resamples; ++i) {
        double ls = 0;
        for (std::size_t s = 0; s < c.size(); ++s)
            ls += std::log(medianOfResample(r[s], rng, buf) / medianOfResample(c[s], rng, buf));
        stats.push_back(std::exp(ls / static_cast<double>(c.size())));
    }
    return percentile(std::move(stats), est, level);
}

namespace {
/// FNV-1a over the call's inputs: where to look; the entry's own fields decide.
struct InputHash {
    std::uint64_t h = 1469598103934665603ull;
    void add(const void* data, std::size_t n)
    {
        const auto* b = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < n; ++i)
            h = (h ^ b[i]) * 1099511628211ull;
    }
    void add(const std::vector<double>& xs)
    {
        const std::size_t n = xs.size();
        add(&n, sizeof n);
        add(xs.data(), n * sizeof(double));
    }
};
}  // namespace

const BootstrapMemo::Entry* BootstrapMemo::find(std::uint64_t key, const Entry& probe) const
{
    for (const auto& [k, e] : m_entries)
        if (k == key && e.geomean == probe.geomean && e.seed == probe.seed && e.resamples == probe.resamples && e.level == probe.level &&
            e.c == probe.c && e.r == probe.r)
            return &e;
    return nullptr;
}

Interval BootstrapMemo::speedupCI(const std::vector<double>& c, const std::vector<double>& r, std::uint64_t seed, int resamples,
                                  double level)
{
    return geomeanOrShape(false, {c}, {r}, seed, resamples, level);
}

Interval BootstrapMemo::geomeanSpeedupCI(const std::vector<std::vector<double>>& c, const std::vector<std::vector<double>>& r,
                                         std::uint64_t seed, int resamples, double level)
{
    return geomeanOrShape(true, c, r, seed, resamples, level);
}

Interval BootstrapMemo::geomeanOrShape(bool geomean, const std::vector<std::vector<double>>& c, const std::vector<std::vector<double>>& r,
                                       std::uint64_t seed, int resamples, double level)
{
    Entry probe{geomean, seed, resamples, level, c, r, {}};
    InputHash h;
    h.add(&geomean, sizeof geomean);
    h.add(&seed, sizeof seed);
    h.add(&resamples, sizeof resamples);
    h.add(&level, sizeof level);
    for (const auto& side : {&c, &r}) {
        const std::size_t n = side->size();
        h.add(&n, sizeof n);
        for (const auto& xs : *side)
            h.add(xs);
    }
    if (const Entry* e = find(h.h, probe)) {
        ++m_reused;
        return e->interval;
    }
    probe.interval = geomean ? perf::geomeanSpeedupCI(c, r, seed, resamples, level) : perf::speedupCI(c.front(), r.front(), seed, resamples, level);
    ++m_computed;
    m_entries.emplace_back(h.h, std::move(probe));
    return m_entries.back().second.interval;
}

RepeatInterval repeatInterval(const std::vector<Interval>& perProcess, double priorRel, double priorDf, double z, double shapeFloorVar)
{
    if (perProcess.empty())
        throw std::invalid_argument("repeat interval of no process");
    const double p = static_cast<double>(perProcess.size());
    double mean = 0, w2 = 0;
    for (const auto& i : perProcess) {
        if (!(i.estimate > 0) || !(i.lo > 0) || !(i.hi >= i.lo))
            throw std::invalid_argument("repeat interval of a non-positive speedup");
        mean += std::log(i.estimate);
        const double w = (std::log(i.hi) - std::log(i.lo)) / (2.0 * 1.959964);
        w2 += w * w;
    }
    mean /= p;
    w2 /= p;
    double s2 = 0;
    for (const auto& i : perProcess)
        s2 += (std::log(i.estimate) - mean) * (std::log(i.estimate) - mean);
    s2 = perProcess.size() > 1 ? s2 / (p - 1) : 0.0;
    priorDf = std::max(0.0, priorDf);
    const double df = priorDf + p - 1;
    const double v0 = priorRel * priorRel + w2;
    const double pooled = df > 0 ? (priorDf * v0 + (p - 1) * s2) / df : v0;
    const double floorVar = std::isfinite(shapeFloorVar) && shapeFloorVar > 0 ? shapeFloorVar : 0.0;
    const double v = std::max(pooled, floorVar);
    const double half = z * std::sqrt(2.0 * v / p);
    RepeatInterval r;
    r.interval = {std::exp(mean), std::exp(mean - half), std::exp(mean + half)};
    r.betweenRel = std::sqrt(s2);
    r.withinRel = std::sqrt(w2);
    r.sdRel = std::sqrt(v);
    r.shapeRel = std::sqrt(floorVar);
    r.fromShapes = floorVar > pooled;
    r.processes = static_cast<int>(perProcess.size());
    return r;
}

double groupMedianGeomean(const std::vector<double>& xs, const std::vector<int>& groups, int nGroups)
{
    if (xs.size() != groups.size() || nGroups < 1)
        return 0.0;
    std::vector<std::vector<double>> by(static_cast<std::size_t>(nGroups));
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (groups[i] < 0 || groups[i] >= nGroups || !(xs[i] > 0) || !std::isfinite(xs[i]))
            return 0.0;
        by[static_cast<std::size_t>(groups[i])].push_back(xs[i]);
    }
    double logSum = 0;
    for (const auto& g : by) {
        if (g.empty())
            return 0.0;
        logSum += std::log(quantile(g, 0.5));
    }
    return std::exp(logSum / nGroups);
}

std::vector<double> alignGroups(const std::vector<double>& xs, const std::vector<int>& groups, int nGroups)
{
    const double g = groupMedianGeomean(xs, groups, nGroups);
    if (!(g > 0))
        return {};
    std::vector<std::vector<double>> by(static_cast<std::size_t>(nGroups));
    for (std::size_t i = 0; i < xs.size(); ++i)
        by[static_cast<std::size_t>(groups[i])].push_back(xs[i]);
    std::vector<double> med;
    for (const auto& b : by)
        med.push_back(quantile(b, 0.5));
    std::vector<double> out(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
        out[i] = xs[i] * g / med[static_cast<std::size_t>(groups[i])];
    return out;
}

double shapeSpreadVariance(const std::vector<std::vector<double>>& x)
{
    double sum = 0;
    std::size_t shapes = 0;
    for (const auto& s : x) {
        if (s.size() < 2)
            return 0.0;
        double mean = 0;
        for (double v : s)
            mean += v;
        mean /= static_cast<double>(s.size());
        double ss = 0;
        for (double v : s)
            ss += (v - mean) * (v - mean);
        if (!std::isfinite(ss))
            return 0.0;
        sum += ss / static_cast<double>(s.size() - 1);
        ++shapes;
    }
    return shapes ? sum / static_cast<double>(shapes * shapes) : 0.0;
}

double sumTimeRatio(const std::vector<double>& c, const std::vector<double>& r)
{
    const double sc = std::accumulate(c.begin(), c.end(), 0.0);
    const double sr = std::accumulate(r.begin(), r.end(), 0.0);
    return sc > 0 ? sr / sc : 0.0;
}

bool medianConverged(const std::vector<double>& xs, double targetRel)
{
    const std::size_t n = xs.size();
    if (n < 5)
        return false;
    std::vector<double> s = xs;
    std::sort(s.begin(), s.end());
    const double med = quantile(s, 0.5);
    const double h = 1.96 * std::sqrt(static_cast<double>(n)) / 2.0;
    const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(static_cast<double>(n) / 2.0 - h)));
    const auto hi = std::min(n - 1, static_cast<std::size_t>(std::ceil(static_cast<double>(n) / 2.0 + h)));
    return med > 0 && (s[hi] - s[lo]) / med <= 2.0 * targetRel;
}

bool isTie(const Interval& speedup, const Interval& noise)
{
    // The noise floor (reference vs itself) tells how far from 1 a ratio can drift by chance;
    // a speedup whose CI overlaps that band around 1 is a tie.
    const double band = std::max(std::abs(noise.hi - 1.0), std::abs(1.0 - noise.lo));
    return speedup.lo <= 1.0 + band && speedup.hi >= 1.0 - band;
}

Roofline roofline(double ms, double bytes, double flops, double peakGBs, double peakTflops)
{
    Roofline r;
    if (ms <= 0)
        return r;
    const double s = ms * 1e-3;
    r.gbs = bytes / s / 1e9;
    r.tflops = flops / s / 1e12;
    r.bandwidthUtil = peakGBs > 0 ? r.gbs / peakGBs : 0.0;
    r.computeUtil = peakTflops > 0 ? r.tflops / peakTflops : 0.0;
    const double tb = peakGBs > 0 ? bytes / (peakGBs * 1e9) : 0.0;
    const double tf = peakTflops > 0 ? flops / (peakTflops * 1e12) : 0.0;
    r.boundMs = std::max(tb, tf) * 1e3;
    r.fasterThanBound = r.boundMs > 0 && ms < 0.9 * r.boundMs;
    return r;
}

}  // namespace kbx::perf
