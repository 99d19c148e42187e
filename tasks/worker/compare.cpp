// SPDX-License-Identifier: MIT
#include "compare.h"

#include <torch/csrc/jit/serialization/pickle.h>


#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace kbx::worker {
namespace {

c10::IValue loadPickle(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return torch::jit::pickle_load(data);
}

c10::IValue field(const c10::IValue& dict, const std::string& key)
{
    auto d = dict.toGenericDict();
    auto it = d.find(key);
    if (it == d.end())
        return c10::IValue();
    return it->value();
}

std::vector<at::Tensor> tensorList(const c10::IValue& v)
{
    std::vector<at::Tensor> out;
    if (v.isNone())
        return out;
    if (v.isTensorList()) {
        for (const auto& t : v.toTensorVector())
            out.push_back(t);
        return out;
    }
    for (const auto& e : v.toListRef())
        out.push_back(e.toTensor());
    return out;
}

std::vector<bool> boolList(const c10::IValue& v)
{
    std::vector<bool> out;
    if (v.isNone())
        return out;
    if (v.isBoolList()) {
        for (bool b : v.toBoolList())
            out.push_back(b);
        return out;
    }
    for (const auto& e : v.toListRef())
        out.push_back(e.toBool());
    return out;
}

std::vector<int64_t> intList(const c10::IValue& v)
{
    std::vector<int64_t> out;
    if (v.isNone())
        return out;
    if (v.isIntList())
        return v.toIntVector();
    for (const auto& e : v.toListRef())
        out.push_back(e.toInt());
    return out;
}

nlohmann::json shapeOf(const at::Tensor& t) { return nlohmann::json(t.sizes().vec()); }

nlohmann::json unravel(int64_t flat, at::IntArrayRef sizes)
{
    std::vector<int64_t> idx(sizes.size());
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
        auto s = sizes[static_cast<size_t>(d)];
        idx[static_cast<size_t>(d)] = s ? flat % s : 0;
        flat = s ? flat / s : 0;
    }
    return idx;
}

double num(const at::Tensor& t) { return t.item<double>(); }

/// JSON has no NaN/Inf: non-finite evidence values travel as the strings "nan", "inf", "-inf".
nlohmann::json jnum(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return v;
}

LeafVerdict compareQuantization(const at::Tensor& r64, const at::Tensor& c64, const Contract& c)
{
    LeafVerdict v;
    auto rf = r64.flatten();
    auto cf = c64.flatten();
    double dot = num((rf * cf).sum());
    double nr = std::sqrt(num((rf * rf).sum()));
    double nc = std::sqrt(num((cf * cf).sum()));
    double cosine = (nr > 0 && nc > 0) ? dot / (nr * nc) : (nr == nc ? 1.0 : 0.0);
    double denom = num(rf.abs().sum());
    double l1 = denom > 0 ? num((cf - rf).abs().sum()) / denom : num((cf - rf).abs().sum());
    double rmse = rf.numel() ? std::sqrt(num((cf - rf).pow(2).mean())) : 0.0;
    double tc = c.quantization.value("cosine_sim", 0.0);
    double tl = c.quantization.value("l1_relative", 1e300);
    double tr = c.quantization.value("rmse", 1e300);
    bool finite = num(at::isfinite(cf).all().to(at::kDouble)) > 0.5;
    v.evidence = {{"cosine_sim", cosine}, {"l1_relative", l1}, {"rmse", rmse},
                  {"thresholds", {{"cosine_sim", tc}, {"l1_relative", tl}, {"rmse", tr}}}};
    if (!finite || !(cosine >= tc) || !(l1 <= tl) || !(rmse <= tr)) {
        v.ok = false;
        v.failureClass = finite ? "value_mismatch" : "nan_inf_mismatch";
    }
    return v;
}

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
    const double expMean = lo + width / 2, expVar = width * width / 12;
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
    // Between calls of a case (META uniform.calls: the task's drive() calls the op that many times and
    // stacks the results): no two calls may return the same sample.
    if (calls > 1 && n % calls == 0) {
        const int64_t part = n / calls;
        for (int64_t a = 0; a < calls; ++a)
            for (int64_t b = a + 1; b < calls; ++b)
                if (at::equal(x.narrow(0, a * part, part), x.narrow(0, b * part, part))) {
                    v.evidence["identical_calls"] = {a, b};
                    return fail("two calls of the op returned the same sample");
                }
    }
    // Rounding sanity: a good generator fills the dtype's grid; one that draws, say, 8 random bits
    // for a float32 sample (or repeats a short block) has far fewer distinct values than expected.
    {
        const double m = uniformGrid(dtype);
        const double nd = static_cast<double>(n);
        const double expected = m * -std::expm1(nd * std::log1p(-1.0 / m));
        const int64_t distinct = std::get<0>(at::_unique2(x, /*sorted=*/false)).numel();
        v.evidence["distinct"] = distinct;
        v.evidence["distinct_expected"] = expected;
        if (static_cast<double>(distinct) < 0.5 * expected - 2)
            return fail("far fewer distinct values than a generator filling the dtype's grid gives");
    }
    if (n >= 64) {
        // Moments within 6 standard errors, and a Kolmogorov-Smirnov test at alpha ~ 1e-6, so an
        // honest generator fails with negligible probability while constant/affine/biased ones fail.
        const double seMean = std::sqrt(expVar / static_cast<double>(n));
        auto sorted = std::get<0>(at::sort((x - lo) / width));
        auto ranks = at::arange(1, n + 1, at::kDouble) / static_cast<double>(n);
        auto ranks0 = at::arange(0, n, at::kDouble) / static_cast<double>(n);
        double d = std::max(num((ranks - sorted).max()), num((sorted - ranks0).max()));
        const double dCrit = 2.65 / std::sqrt(static_cast<double>(n));
        v.evidence["ks_d"] = d;
        v.evidence["ks_critical"] = dCrit;
        double relVar = std::abs(var - expVar) / expVar;
        v.evidence["var_rel_err"] = relVar;
        if (std::abs(mean - expMean) > 6 * seMean || d > dCrit || relVar > 6 * std::sqrt(0.8 / static_cast<double>(n)) + 0.01)
            return fail("sample is not uniform (moments or KS test)");

        // Independence and order, in the output's memory order: a sorted ramp, a sample repeating
        // every row or every block, or a second call repeating the first has the right marginal
        // distribution but not independent elements. Autocorrelations at lag 1, 2, the last
        // dimension, powers of two (block sizes) and the length of one call: each is about
        // N(-1/n, 1/n) for independent elements; 6.5 standard errors, a ~1e-10 chance per lag.
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
        v.evidence["serial_worst_lag"] = worstLag;
        v.evidence["serial_worst_z"] = worstZ;
        if (worstZ > 6.5)
            return fail("the elements are not independent: autocorrelation at lag " + std::to_string(worstLag));
        // Runs up and down (ties skipped): a monotone ramp has one run, an alternating pattern n - 1;
        // independent continuous elements give (2m - 1) / 3 runs with variance (16m - 29) / 90 over m
        // values.
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
            v.evidence["runs_up_down"] = runs;
            v.evidence["runs_expected"] = mu;
            // Ties (a low-precision grid: bfloat16 has 2^8 values) shift the count slightly: about
            // 0.3 standard errors at 16k bfloat16 samples, growing with the tie fraction and sqrt(m).
            const double ties = static_cast<double>(n - m) / static_cast<double>(n - 1);
            const double limit = 6.5 + ties * std::sqrt(md);
            v.evidence["runs_z"] = z;
            v.evidence["runs_z_limit"] = limit;
            if (std::abs(z) > limit)
                return fail("the elements are not independent: runs up and down test");
        }
    }
    return v;
}

/// META "signed_zeros": where both sides are zero, the sign must agree (abs(-0.0) is +0.0). Null when
/// it does; otherwise the evidence.
nlohmann::json signedZeroMismatch(const at::Tensor& r, const at::Tensor& x)
{
    auto bad = at::logical_and(at::logical_and(at::eq(r, 0), at::eq(x, 0)), at::ne(at::signbit(r), at::signbit(x)));
    const int64_t count = bad.sum().item<int64_t>();
    if (count == 0)
        return nullptr;
    const int64_t first = at::argmax(bad.flatten().to(at::kInt)).item<int64_t>();
    return {{"count", count}, {"first_index", unravel(first, r.sizes())},
            {"ref_value", std::signbit(num(r.flatten()[first])) ? "-0.0" : "+0.0"},
            {"cand_value", std::signbit(num(x.flatten()[first])) ? "-0.0" : "+0.0"}};
}

}  // namespace

std::string dtypeName(at::ScalarType t)
{
    switch (t) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kBool: return "bool";
    case at::kByte: return "uint8";
    case at::kChar: return "int8";
    case at::kShort: return "int16";
    case at::kInt: return "int32";
    case at::kLong: return "int64";
    case at::kComplexFloat: return "complex64";
    case at::kComplexDouble: return "complex128";
    default: return std::string(c10::toString(t));
    }
}

std::pair<double, double> Contract::tol(at::ScalarType t) const
{
    const auto name = dtypeName(t);

    if (tolerance.contains(name))
        return {tolerance[name].at(0).get<double>(), tolerance[name].at(1).get<double>()};
    // The seed's defaults when a task declares nothing for this dtype.
    if (t == at::kHalf || t == at::kBFloat16)
        return {5e-3, 5e-3};
    return {1e-5, 1e-5};
}

bool sameTensor(const at::Tensor& a, const at::Tensor& b)
{
    if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type())
        return false;
    if (a.is_floating_point() || a.is_complex())
        return at::equal(at::isnan(a), at::isnan(b)) && at::equal(at::nan_to_num(a, 0.0), at::nan_to_num(b, 0.0));
    return at::equal(a, b);
}

/// Where the errors are, for the failure inspector: the output viewed as a matrix (leading dims x
/// last dim), max-pooled to at most 64 x 64 cells. `score` >= 1 marks an element outside tolerance.
nlohmann::json errorMap(const at::Tensor& score, const char* measure)
{
    auto s = score.detach().to(at::kDouble).contiguous();
    const int64_t n = s.numel();
    if (n == 0)
        return nullptr;
    int64_t cols = s.dim() == 0 ? 1 : s.size(-1);
    int64_t rows = cols == 0 ? 0 : n / cols;
    auto m = s.reshape({1, 1, rows, cols});
    m = at::nan_to_num(m, 1e30, 1e30, 0.0);
    auto pooled = at::adaptive_max_pool2d(m, {std::min<int64_t>(rows, 64), std::min<int64_t>(cols, 64)});
    auto cells = std::get<0>(pooled).reshape({-1}).contiguous();
    nlohmann::json vals = nlohmann::json::array();
    auto* d = cells.data_ptr<double>();
    for (int64_t i = 0; i < cells.numel(); ++i)
        vals.push_back(std::min(d[i], 1e30));
    nlohmann::json shape = nlohmann::json::array();
    for (auto sz : score.sizes())
        shape.push_back(sz);
    return {{"rows", std::min<int64_t>(rows, 64)}, {"cols", std::min<int64_t>(cols, 64)}, {"shape", shape},
            {"measure", measure}, {"values", vals}};
}

LeafVerdict compareLeaf(const at::Tensor& refIn, const at::Tensor& candIn, const Contract& c, bool scalarLeaf)
{
    LeafVerdict v;
    at::Tensor ref = refIn, cand = candIn;
    if (scalarLeaf) {
        if (cand.numel() != 1 || ref.numel() != 1) {
            v.ok = false;
            v.failureClass = "shape_mismatch";
            v.evidence = {{"reason", "a number was expected"}, {"ref_shape", shapeOf(ref)}, {"cand_shape", shapeOf(cand)}};
            return v;
        }
        ref = ref.reshape({}).to(at::kDouble);
        cand = cand.reshape({}).to(at::kDouble);
    }
    if (ref.sizes() != cand.sizes()) {
        v.ok = false;
        v.failureClass = "shape_mismatch";
        v.evidence = {{"ref_shape", shapeOf(ref)}, {"cand_shape", shapeOf(cand)}};
        return v;
    }
    if (!scalarLeaf && ref.scalar_type() != cand.scalar_type()) {
        v.ok = false;
        v.failureClass = "dtype_mismatch";
        v.evidence = {{"ref_dtype", dtypeName(ref.scalar_type())}, {"cand_dtype", dtypeName(cand.scalar_type())}};
        return v;
    }
    v.evidence["dtype"] = dtypeName(refIn.scalar_type());
    v.evidence["numel"] = ref.numel();
    if (c.comparison == "uniform")
        return compareUniform(cand.to(at::kDouble), c, cand.scalar_type(), cand.sizes());
    if (!ref.is_floating_point() && !ref.is_complex()) {
        auto neq = at::ne(ref, cand);
        int64_t bad = neq.sum().item<int64_t>();
        v.evidence["mismatch_count"] = bad;
        if (bad > 0) {
            v.ok = false;
            v.failureClass = "value_mismatch";
            int64_t first = at::argmax(neq.flatten().to(at::kInt)).item<int64_t>();
            v.evidence["first_mismatch_index"] = unravel(first, ref.sizes());
            v.evidence["ref_value"] = jnum(num(ref.flatten()[first].to(at::kDouble)));
            v.evidence["cand_value"] = jnum(num(cand.flatten()[first].to(at::kDouble)));
            v.evidence["mismatch_fraction"] = static_cast<double>(bad) / static_cast<double>(std::max<int64_t>(1, ref.numel()));
        }
        return v;
    }
    // Complex outputs (e.g. FFTs) are compared as (real, imag) pairs under the tolerance of their
    // component dtype.
    const bool complex = ref.is_complex();
    auto r = complex ? at::view_as_real(ref.to(at::kComplexDouble)) : ref.to(at::kDouble);
    auto x = complex ? at::view_as_real(cand.to(at::kComplexDouble)) : cand.to(at::kDouble);
    if (c.comparison == "quantization")
        return compareQuantization(r, x, c);

    // NaN and ±Inf positions must agree exactly: NaN is no wildcard.
    auto rNan = at::isnan(r), xNan = at::isnan(x);
    auto rInf = at::isinf(r), xInf = at::isinf(x);
    auto nanMis = at::ne(rNan, xNan);
    auto infMis = at::logical_or(at::logical_and(at::logical_or(rInf, xInf), at::ne(r, x)), at::logical_and(rInf, xNan));
    int64_t nanBad = nanMis.sum().item<int64_t>();
    int64_t infBad = at::logical_and(infMis, at::logical_not(nanMis)).sum().item<int64_t>();
    v.evidence["ref_nan"] = rNan.sum().item<int64_t>();
    v.evidence["cand_nan"] = xNan.sum().item<int64_t>();
    v.evidence["ref_inf"] = rInf.sum().item<int64_t>();
    v.evidence["cand_inf"] = xInf.sum().item<int64_t>();
    if (nanBad + infBad > 0) {
        v.ok = false;
        v.failureClass = "nan_inf_mismatch";
        auto mis = at::logical_or(nanMis, infMis).flatten();
        int64_t first = at::argmax(mis.to(at::kInt)).item<int64_t>();
        v.evidence["nan_mismatches"] = nanBad;
        v.evidence["inf_mismatches"] = infBad;
        v.evidence["first_mismatch_index"] = unravel(first, r.sizes());
        v.evidence["ref_value"] = jnum(num(r.flatten()[first]));
        v.evidence["cand_value"] = jnum(num(x.flatten()[first]));
        v.evidence["error_map"] = errorMap(at::logical_or(nanMis, infMis), "NaN/Inf position differs (1) or agrees (0)");
        return v;
    }
    auto [atol, rtol] = c.tol(complex ? c10::toRealValueType(refIn.scalar_type()) : refIn.scalar_type());
    if (scalarLeaf)
        std::tie(atol, rtol) = c.tol(at::kFloat);
    v.evidence["atol"] = atol;
    v.evidence["rtol"] = rtol;
    auto finite = at::logical_and(at::isfinite(r), at::isfinite(x));
    auto rf = at::where(finite, r, at::zeros_like(r));
    auto xf = at::where(finite, x, at::zeros_like(x));
    auto err = (xf - rf).abs();
    auto bound = atol + rtol * rf.abs();
    auto bad = at::gt(err, bound);
    const int64_t n = r.numel();
    int64_t nbad = bad.sum().item<int64_t>();
    if (n > 0) {
        auto flatErr = err.flatten();
        int64_t worst = at::argmax(flatErr).item<int64_t>();
        double maxAbs = num(flatErr[worst]);
        auto rel = err / rf.abs().clamp_min(1e-300);
        double maxRel = num(at::where(at::gt(rf.abs(), 0), rel, at::zeros_like(rel)).max());
        double neededAtol = num((err - rtol * rf.abs()).clamp_min(0).max());
        double neededRtol = num(at::where(at::gt(rf.abs(), 0), ((err - atol).clamp_min(0) / rf.abs().clamp_min(1e-300)), at::zeros_like(err)).max());
        v.evidence["max_abs_err"] = maxAbs;
        v.evidence["max_rel_err"] = maxRel;
        v.evidence["worst_index"] = unravel(worst, r.sizes());
        v.evidence["ref_at_worst"] = jnum(num(rf.flatten()[worst]));
        v.evidence["cand_at_worst"] = jnum(num(xf.flatten()[worst]));
        v.evidence["mismatch_count"] = nbad;
        v.evidence["mismatch_fraction"] = static_cast<double>(nbad) / static_cast<double>(n);
        v.evidence["passing_atol_at_rtol"] = neededAtol;
        v.evidence["passing_rtol_at_atol"] = neededRtol;
    }
    if (nbad > 0) {
        v.ok = false;
        v.failureClass = "value_mismatch";
        v.evidence["error_map"] = errorMap(err / bound, "|cand - ref| / (atol + rtol |ref|); > 1 fails");
        return v;
    }
    if (c.signedZeros)
        if (auto sz = signedZeroMismatch(r, x); !sz.is_null()) {
            v.ok = false;
            v.failureClass = "value_mismatch";
            v.evidence["reason"] = "a zero of the wrong sign (the task's contract fixes it)";
            v.evidence["signed_zero"] = sz;
            return v;
        }
    // Low-signal guard: when the reference is about as small as atol, atol alone would let an
    // all-zero (or otherwise empty) output pass; demand a relative L2 error instead.
    const int64_t nfin = finite.sum().item<int64_t>();
    if (nfin > 0) {
        double rms = std::sqrt(num(rf.pow(2).sum()) / static_cast<double>(nfin));
        if (rms > 0 && rms < 10 * atol) {
            double relL2 = std::sqrt(num((xf - rf).pow(2).sum())) / std::sqrt(num(rf.pow(2).sum()));
            double limit = std::max(10 * rtol, 1e-3);
            v.evidence["low_signal_guard"] = {{"ref_rms", rms}, {"rel_l2", relL2}, {"limit", limit}};
            if (relL2 > limit) {
                v.ok = false;
                v.failureClass = "value_mismatch";
            }
        }
    }
    return v;
}

nlohmann::json compareFiles(const std::string& refFile, const std::string& candFile, const Contract& c)
{
    static const std::vector<std::string> precedence = {"shape_mismatch", "dtype_mismatch", "nan_inf_mismatch",
                                                        "value_mismatch", "input_mutated"};
    auto ref = loadPickle(refFile);  // ours: a failure here is a harness error (thrown)
    auto refCases = field(ref, "cases").toListRef();
    nlohmann::json out = {{"cases", nlohmann::json::array()}};
    // The candidate's process wrote its outputs file and could have written anything there: an
    // unreadable file is the candidate's failure, never a reason to leave it unjudged.
    c10::IValue cand;
    std::string unreadable;
    try {
        cand = loadPickle(candFile);
        if (!cand.isGenericDict() || field(cand, "cases").isNone() || !field(cand, "cases").isList())
            unreadable = "no case list";
    } catch (const std::exception& e) {
        unreadable = e.what();
    }
    if (!unreadable.empty()) {
        for (size_t i = 0; i < refCases.size(); ++i)
            out["cases"].push_back({{"index", i}, {"name", field(refCases[i], "name").toStringRef()}, {"status", "error"},
                                    {"failure_class", "runtime_error"},
                                    {"evidence", {{"reason", "candidate outputs unreadable: " + unreadable.substr(0, 300)}}}});
        out["pass"] = false;
        return out;
    }
    auto candCases = field(cand, "cases").toListRef();
    bool allPass = true;
    for (size_t i = 0; i < refCases.size(); ++i) {
        const auto& rc = refCases[i];
        nlohmann::json cj = {{"index", i}, {"name", field(rc, "name").toStringRef()}};
        if (i >= candCases.size()) {
            cj["status"] = "error";
            cj["failure_class"] = "crash";
            cj["evidence"] = {{"reason", "no output for this case"}};
            out["cases"].push_back(cj);
            allPass = false;
            continue;
        }
        const auto& cc = candCases[i];
        auto err = field(cc, "error");
        if (!err.isNone()) {
            cj["status"] = "error";
            cj["failure_class"] = err.toStringRef();
            auto msg = field(cc, "message");
            cj["evidence"] = {{"message", msg.isNone() ? "" : msg.toStringRef()}};
            out["cases"].push_back(cj);
            allPass = false;
            continue;
        }
        std::string rs = field(rc, "structure").toStringRef();
        std::string cs = field(cc, "structure").toStringRef();
        LeafVerdict verdict;
        nlohmann::json leaves = nlohmann::json::array();
        if (rs != cs) {
            verdict.ok = false;
            verdict.failureClass = "shape_mismatch";
            verdict.evidence = {{"reason", "output structure differs"}, {"ref_structure", rs}, {"cand_structure", cs}};
        } else {
            auto rt = tensorList(field(rc, "tensors"));
            auto ct = tensorList(field(cc, "tensors"));
            auto rsc = boolList(field(rc, "scalar"));
            auto csc = boolList(field(cc, "scalar"));
            for (size_t j = 0; j < rt.size() && j < ct.size(); ++j) {
                bool scalar = (j < rsc.size() && rsc[j]) || (j < csc.size() && csc[j]);
                auto lv = compareLeaf(rt[j], ct[j], c, scalar);
                lv.evidence["leaf"] = j;
                leaves.push_back(lv.evidence);
                if (!lv.ok) {
                    auto rank = [&](const std::string& f) { return std::find(precedence.begin(), precedence.end(), f) - precedence.begin(); };
                    if (verdict.ok || rank(lv.failureClass) < rank(verdict.failureClass)) {
                        verdict.ok = false;
                        verdict.failureClass = lv.failureClass;
                        verdict.evidence = lv.evidence;
                    }
                }
            }
            // Mutation: every input tensor the op may not modify must be unchanged.
            auto inputs = tensorList(field(rc, "inputs"));
            auto after = tensorList(field(cc, "args_after"));
            auto mutable_ = intList(field(rc, "mutable"));
            for (size_t k = 0; k < inputs.size() && k < after.size(); ++k) {
                if (std::find(mutable_.begin(), mutable_.end(), static_cast<int64_t>(k)) != mutable_.end())
                    continue;
                if (!sameTensor(inputs[k], after[k])) {
                    if (verdict.ok) {
                        verdict.ok = false;
                        verdict.failureClass = "input_mutated";
                        auto changed = at::ne(at::nan_to_num(inputs[k].to(at::kDouble), 0.0), at::nan_to_num(after[k].to(at::kDouble), 0.0)).sum().item<int64_t>();
                        verdict.evidence = {{"input_tensor", k}, {"changed_elements", changed}};
                    }
                    break;
                }
            }
        }
        cj["status"] = verdict.ok ? "pass" : "fail";
        if (!verdict.ok)
            cj["failure_class"] = verdict.failureClass;
        cj["evidence"] = verdict.ok ? nlohmann::json{{"leaves", leaves}} : verdict.evidence;
        allPass = allPass && verdict.ok;
        out["cases"].push_back(cj);
    }
    out["pass"] = allPass;
    return out;
}

}  // namespace kbx::worker
