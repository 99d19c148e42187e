// SPDX-License-Identifier: MIT
// META comparison "uniform": a random op's sample judged by what a uniform generator must give, not
// element by element: the half-open range, distinct calls, the dtype's grid filled, moments and a
// Kolmogorov-Smirnov test, independence (autocorrelations, runs up and down).
#include "compare_internal.h"

#include <algorithm>
#include <cmath>

namespace kbx::worker::compare_internal {

namespace {

/// Effective number of equally likely values a good generator produces in [low, high) for a dtype
/// (its mantissa grid over [0.5, 1), where the grid is coarsest): the rounding sanity check below.
double uniformGrid(at::ScalarType t)
{
    switch (t) {
    case at::kHalf: return 2048.0;        // 2^11
    case at::kBFloat16: return 256.0;     // 2^8
    case at::kFloat: return 16777216.0;   // 2^24
    default: return 9007199254740992.0;   // 2^53
    }
}

/// Autocorrelation of a centred sample at one lag (the pairs x_i, x_{i+lag}).
double lagCorrelation(const at::Tensor& centred, int64_t lag, double sumSq)
{
    const auto n = centred.numel();
    if (lag <= 0 || lag >= n || sumSq <= 0)
        return 0.0;
    return num((centred.narrow(0, 0, n - lag) * centred.narrow(0, lag, n - lag)).sum()) / sumSq;
}

/// Between calls of a case (META uniform.calls: the task's drive() calls the op that many times and
/// stacks the results): no two calls may return the same sample.
const char* identicalCalls(const at::Tensor& x, int64_t n, int64_t calls, nlohmann::json& evidence)
{
    const int64_t part = n / calls;
    for (int64_t a = 0; a < calls; ++a)
        for (int64_t b = a + 1; b < calls; ++b)
            if (at::equal(x.narrow(0, a * part, part), x.narrow(0, b * part, part))) {
                evidence["identical_calls"] = {a, b};
                return "two calls of the op returned the same sample";
            }
    return nullptr;
}

/// Rounding sanity: a good generator fills the dtype's grid; one that draws, say, 8 random bits
/// for a float32 sample (or repeats a short block) has far fewer distinct values than expected.
const char* fewDistinctValues(const at::Tensor& x, int64_t n, at::ScalarType dtype, nlohmann::json& evidence)
{
    const double m = uniformGrid(dtype);
    const double nd = static_cast<double>(n);
    const double expected = m * -std::expm1(nd * std::log1p(-1.0 / m));
    const int64_t distinct = std::get<0>(at::_unique2(x, /*sorted=*/false)).numel();
    evidence["distinct"] = distinct;
    evidence["distinct_expected"] = expected;
    if (static_cast<double>(distinct) < 0.5 * expected - 2)
        return "far fewer distinct values than a generator filling the dtype's grid gives";
    return nullptr;
}

/// Moments within 6 standard errors, and a Kolmogorov-Smirnov test at alpha ~ 1e-6, so an
/// honest generator fails with negligible probability while constant/affine/biased ones fail.
const char* notUniform(const at::Tensor& x, int64_t n, double lo, double width, double mean, double var, nlohmann::json& evidence)
{
    const double expMean = lo + width / 2, expVar = width * width / 12;
    const double seMean = std::sqrt(expVar / static_cast<double>(n));
    auto sorted = std::get<0>(at::sort((x - lo) / width));
    auto ranks = at::arange(1, n + 1, at::kDouble) / static_cast<double>(n);
    auto ranks0 = at::arange(0, n, at::kDouble) / static_cast<double>(n);
    double d = std::max(num((ranks - sorted).max()), num((sorted - ranks0).max()));
    const double dCrit = 2.65 / std::sqrt(static_cast<double>(n));
    evidence["ks_d"] = d;
    evidence["ks_critical"] = dCrit;
    double relVar = std::abs(var - expVar) / expVar;
    evidence["var_rel_err"] = relVar;
    if (std::abs(mean - expMean) > 6 * seMean || d > dCrit || relVar > 6 * std::sqrt(0.8 / static_cast<double>(n)) + 0.01)
        return "sample is not uniform (moments or KS test)";
    return nullptr;
}

/// Independence and order, in the output's memory order: a sorted ramp, a sample repeating
/// every row or every block, or a second call repeating the first has the right marginal
/// distribution but not independent elements. Autocorrelations at lag 1, 2, the last
/// dimension, powers of two (block sizes) and the length of one call: each is about
/// N(-1/n, 1/n) for independent elements; 6.5 standard errors, a ~1e-10 chance per lag.
std::string serialDependence(const at::Tensor& x, int64_t n, double expMean, int64_t calls, at::IntArrayRef shape, nlohmann::json& evidence)
{
    auto centred = x - expMean;
    const double sumSq = num((centred * centred).sum());
    std::vector<int64_t> lags = {1, 2};
    if (!shape.empty() && shape.back() > 2)
        lags.push_back(shape.back());
    for (int64_t l = 64; l <= 65536; l *= 2)
        lags.push_back(l);
    if (calls > 1 && n % calls == 0)
        lags.push_back(n / calls);
    double worstZ = 0.0;
    int64_t worstLag = 0;
    for (auto lag : lags) {
        const int64_t pairs = n - lag;
        // at least 32 pairs, and a lag shorter than half the sample unless it is one call's length
        if (pairs < 32 || (2 * lag > n && !(calls > 1 && lag == n / calls)))
            continue;
        const double r = lagCorrelation(centred, lag, sumSq) * static_cast<double>(n) / static_cast<double>(pairs);
        const double z = std::abs(r) * std::sqrt(static_cast<double>(pairs));
        if (z > worstZ) {
            worstZ = z;
            worstLag = lag;
        }
    }
    evidence["serial_worst_lag"] = worstLag;
    evidence["serial_worst_z"] = worstZ;
    if (worstZ > 6.5)
        return "the elements are not independent: autocorrelation at lag " + std::to_string(worstLag);
    return {};
}

/// Runs up and down (ties skipped): a monotone ramp has one run, an alternating pattern n - 1;
/// independent continuous elements give (2m - 1) / 3 runs with variance (16m - 29) / 90 over m
/// values.
const char* runsUpAndDown(const at::Tensor& x, int64_t n, nlohmann::json& evidence)
{
    auto diff = x.narrow(0, 1, n - 1) - x.narrow(0, 0, n - 1);
    auto signs = at::sign(diff);
    signs = signs.masked_select(at::ne(signs, 0));
    const int64_t m = signs.numel() + 1;
    if (m >= 64) {
        const int64_t changes = at::ne(signs.narrow(0, 1, m - 2), signs.narrow(0, 0, m - 2)).sum().item<int64_t>();
        const double runs = static_cast<double>(changes + 1);
        const double md = static_cast<double>(m);
        const double mu = (2 * md - 1) / 3, sd = std::sqrt((16 * md - 29) / 90);
        const double z = (runs - mu) / sd;
        evidence["runs_up_down"] = runs;
        evidence["runs_expected"] = mu;
        // Ties (a low-precision grid: bfloat16 has 2^8 values) shift the count slightly: about
        // 0.3 standard errors at 16k bfloat16 samples, growing with the tie fraction and sqrt(m).
        const double ties = static_cast<double>(n - m) / static_cast<double>(n - 1);
        const double limit = 6.5 + ties * std::sqrt(md);
        evidence["runs_z"] = z;
        evidence["runs_z_limit"] = limit;
        if (std::abs(z) > limit)
            return "the elements are not independent: runs up and down test";
    }
    return nullptr;
}

}  // namespace

LeafVerdict compareUniform(const at::Tensor& c64, const Contract& c, at::ScalarType dtype, at::IntArrayRef shape)
{
    LeafVerdict v;
    double lo = c.uniform.value("low", 0.0);
    double hi = c.uniform.value("high", 1.0);
    const int64_t calls = std::max<int64_t>(1, c.uniform.value("calls", 1));
    auto x = c64.flatten();
    const auto n = x.numel();
    if (n == 0)
        return v;
    bool finite = num(at::isfinite(x).all().to(at::kDouble)) > 0.5;
    if (!finite) {
        v.ok = false;
        v.failureClass = "nan_inf_mismatch";
        v.evidence = {{"reason", "non-finite values in a uniform sample"}};
        return v;
    }
    double mn = num(x.min()), mx = num(x.max());
    double mean = num(x.mean());
    double var = n > 1 ? num(x.var()) : 0.0;
    const double width = hi - lo;
    const double expMean = lo + width / 2;
    v.evidence = {{"min", mn}, {"max", mx}, {"mean", mean}, {"var", var}, {"n", n}, {"low", lo}, {"high", hi},
                  {"dtype", dtypeName(dtype)}};
    auto fail = [&](const std::string& reason) {
        v.ok = false;
        v.failureClass = "value_mismatch";
        v.evidence["reason"] = reason;
        return v;
    };
    // The half-open interval [low, high) holds exactly, in every dtype: a float32 sample that rounds
    // up to high when cast to a narrower dtype is out of range (torch.rand never returns 1.0).
    if (mn < lo || mx >= hi)
        return fail(mx >= hi ? "a value equal to or above high: the interval is [low, high)" : "values below low");
    if (calls > 1 && n % calls == 0)
        if (const char* why = identicalCalls(x, n, calls, v.evidence))
            return fail(why);
    if (const char* why = fewDistinctValues(x, n, dtype, v.evidence))
        return fail(why);
    if (n >= 64) {
        if (const char* why = notUniform(x, n, lo, width, mean, var, v.evidence))
            return fail(why);
        if (const auto why = serialDependence(x, n, expMean, calls, shape, v.evidence); !why.empty())
            return fail(why);
        if (const char* why = runsUpAndDown(x, n, v.evidence))
            return fail(why);
    }
    return v;
}

}  // namespace kbx::worker::compare_internal
