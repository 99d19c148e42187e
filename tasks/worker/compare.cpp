// SPDX-License-Identifier: MIT
#include "compare.h"

#include "taxonomy.h"

#include <torch/csrc/jit/serialization/pickle.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <type_traits>

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

namespace {

/// Bounded reads from the candidate's outputs file (untrusted bytes): every read is checked against
/// the end of the enclosing record, so no length in the file can make us read, skip or allocate
/// beyond it.
class BoundedReader {
public:
    BoundedReader(std::ifstream& in, uint64_t pos, uint64_t end) : m_in(in), m_pos(pos), m_end(end) {}
    uint64_t pos() const { return m_pos; }
    uint64_t end() const { return m_end; }
    uint64_t left() const { return m_end - m_pos; }
    void need(uint64_t n, const char* what) const
    {
        if (n > left())
            throw MalformedOutputs(std::string(what) + " runs past the end of its record");
    }
    template <class T>
    T get(const char* what)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        need(sizeof(T), what);
        T v{};
        readAt(m_pos, reinterpret_cast<char*>(&v), sizeof v);
        m_pos += sizeof v;
        return v;
    }
    /// A string of `len` bytes, of which the first `keep` are returned.
    std::string str(uint64_t len, uint64_t keep, const char* what)
    {
        need(len, what);
        std::string s(static_cast<size_t>(std::min(len, keep)), '\0');
        readAt(m_pos, s.data(), s.size());
        m_pos += len;
        return s;
    }
    void skip(uint64_t n, const char* what)
    {
        need(n, what);
        m_pos += n;
    }
    void readAt(uint64_t at, char* dst, uint64_t n)
    {
        if (n == 0)
            return;
        m_in.clear();
        m_in.seekg(static_cast<std::streamoff>(at));
        m_in.read(dst, static_cast<std::streamsize>(n));
        if (!m_in || static_cast<uint64_t>(m_in.gcount()) != n)
            throw MalformedOutputs("truncated file");
    }

private:
    std::ifstream& m_in;
    uint64_t m_pos, m_end;
};

std::optional<at::ScalarType> dtypeFromName(const std::string& n)
{
    static const std::vector<std::pair<std::string, at::ScalarType>> k = {
        {"float32", at::kFloat}, {"float64", at::kDouble}, {"float16", at::kHalf}, {"bfloat16", at::kBFloat16},
        {"bool", at::kBool}, {"uint8", at::kByte}, {"int8", at::kChar}, {"int16", at::kShort}, {"int32", at::kInt},
        {"int64", at::kLong}, {"uint16", at::kUInt16}, {"uint32", at::kUInt32}, {"uint64", at::kUInt64},
        {"complex32", at::kComplexHalf}, {"complex64", at::kComplexFloat}, {"complex128", at::kComplexDouble},
        {"float8_e4m3fn", at::kFloat8_e4m3fn}, {"float8_e5m2", at::kFloat8_e5m2},
        {"float8_e4m3fnuz", at::kFloat8_e4m3fnuz}, {"float8_e5m2fnuz", at::kFloat8_e5m2fnuz}};
    for (const auto& [name, t] : k)
        if (name == n)
            return t;
    return std::nullopt;
}

}  // namespace

std::string cleanText(const std::string& in, size_t maxBytes)
{
    // Valid UTF-8 only (JSON needs it), control characters other than newline and tab dropped, at
    // most maxBytes bytes (cut at a character boundary) with an ellipsis when cut.
    std::string out;
    out.reserve(std::min(in.size(), maxBytes) + 4);
    size_t i = 0;
    bool cut = false;
    while (i < in.size()) {
        const auto c = static_cast<unsigned char>(in[i]);
        size_t len = 1;
        bool ok = true;
        if (c < 0x80) {
            ok = c >= 0x20 ? c != 0x7f : (c == '\n' || c == '\t');
            if (!ok) {
                ++i;
                continue;
            }
        } else {
            len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
            ok = len != 0 && c != 0xC0 && c != 0xC1 && c < 0xF5 && i + len <= in.size();
            for (size_t j = 1; ok && j < len; ++j)
                ok = (static_cast<unsigned char>(in[i + j]) & 0xC0) == 0x80;
            if (ok && len == 3) {
                const auto c1 = static_cast<unsigned char>(in[i + 1]);
                ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);  // overlong, surrogates
            }
            if (ok && len == 4) {
                const auto c1 = static_cast<unsigned char>(in[i + 1]);
                ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
            }
            if (!ok)
                len = 1;
        }
        if (out.size() + (ok ? len : 1) > maxBytes) {
            cut = true;
            break;
        }
        if (ok)
            out.append(in, i, len);
        else
            out.push_back('?');
        i += len;
    }
    if (cut)
        out += "\xE2\x80\xA6";  // …
    return out;
}

std::string callFailureClass(const std::string& claimed)
{
    // The label the candidate harness itself writes for a case skipped after a sticky CUDA error.
    // A gap of Triton's CPU interpreter is never the candidate's word: only our canary's gaps grant
    // that (core/interpgaps), so a claimed "interpreter_unsupported" is a runtime error like any other.
    if (claimed == "skipped")
        return claimed;
    // The harness's own finding that a @triton.jit body called PyTorch (CPU interpreter): a
    // failure either way, so the claim gives a candidate nothing.
    if (claimed == "not_triton_kernel")
        return claimed;
    if (auto fc = kbx::failureClassFromString(claimed); fc && kbx::isCallFailure(*fc))
        return claimed;
    return "runtime_error";
}

std::vector<CandidateCase> readCandidateOutputs(const std::string& path, const std::vector<CaseExpectation>& expect)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw MalformedOutputs("cannot open the file");
    in.seekg(0, std::ios::end);
    const auto size = static_cast<uint64_t>(std::max<std::streamoff>(0, in.tellg()));
    BoundedReader r(in, 0, size);
    if (r.str(8, 8, "magic") != std::string("KBXOUT1\n", 8))
        throw MalformedOutputs("not a kbx outputs file (bad magic)");
    const auto n = r.get<uint32_t>("case count");
    if (n > expect.size())
        throw MalformedOutputs(std::to_string(n) + " cases for " + std::to_string(expect.size()) + " reference cases");
    std::vector<CandidateCase> cases;
    cases.reserve(n);
    auto tensor = [](BoundedReader& p) {
        CandidateTensor t;
        const auto scalar = p.get<uint8_t>("scalar flag");
        if (scalar > 1)
            throw MalformedOutputs("bad scalar flag");
        t.scalar = scalar == 1;
        t.dtypeName = p.str(p.get<uint8_t>("dtype name length"), 64, "dtype name");
        t.dtype = dtypeFromName(t.dtypeName);
        const auto ndim = p.get<uint8_t>("ndim");
        if (ndim > 64)
            throw MalformedOutputs("more than 64 dimensions");
        uint64_t numel = 1;
        for (int d = 0; d < ndim; ++d) {
            const auto s = p.get<int64_t>("dimension");
            if (s < 0)
                throw MalformedOutputs("negative dimension");
            if (__builtin_mul_overflow(numel, static_cast<uint64_t>(s), &numel) || numel > (uint64_t{1} << 62))
                throw MalformedOutputs("element count overflows");
            t.sizes.push_back(s);
        }
        t.numel = numel;
        t.nbytes = p.get<uint64_t>("byte count");
        if (t.dtype) {
            uint64_t want = 0;
            if (__builtin_mul_overflow(numel, static_cast<uint64_t>(c10::elementSize(*t.dtype)), &want) || want != t.nbytes)
                throw MalformedOutputs("byte count does not match shape and dtype");
        }
        t.offset = p.pos();
        p.skip(t.nbytes, "tensor data");
        return t;
    };
    for (uint32_t i = 0; i < n; ++i) {
        CandidateCase c;
        const auto kind = r.get<uint8_t>("case kind");
        const auto len = r.get<uint64_t>("case length");
        r.need(len, "case");
        BoundedReader p(in, r.pos(), r.pos() + len);
        r.skip(len, "case");
        if (kind == 1) {
            c.error = true;
            c.errorClass = p.str(p.get<uint32_t>("class length"), 64, "class");
            c.message = p.str(p.get<uint32_t>("message length"), 4000, "message");
        } else if (kind == 0) {
            const auto& e = expect[i];
            const auto slen = p.get<uint32_t>("structure length");
            c.structure = p.str(slen, std::max<uint64_t>(e.structure.size() + 1, 4096), "structure");
            c.structureTruncated = c.structure.size() < slen;
            c.leafCount = p.get<uint32_t>("leaf count");
            if (c.leafCount != e.leaves) {
                cases.push_back(std::move(c));  // a different count: the leaves are never read
                continue;
            }
            for (uint32_t j = 0; j < c.leafCount; ++j)
                c.leaves.push_back(tensor(p));
            c.snapshotCount = p.get<uint32_t>("snapshot count");
            if (c.snapshotCount == e.inputs)
                for (uint32_t j = 0; j < c.snapshotCount; ++j)
                    c.snapshots.push_back(tensor(p));
        } else {
            throw MalformedOutputs("unknown case kind " + std::to_string(kind));
        }
        cases.push_back(std::move(c));
    }
    if (r.left() != 0)
        throw MalformedOutputs("trailing bytes after the last case");
    return cases;
}

namespace {

/// The candidate's tensor as a real tensor (its bytes read) when `readData` (it has the shape and
/// dtype the reference expects, so its size is bounded by the reference's), else as a meta tensor of its claimed shape and dtype, which
/// compareLeaf can reject for shape or dtype without any data.
at::Tensor materialise(std::ifstream& in, const CandidateTensor& t, bool readData)
{
    const auto dt = t.dtype.value_or(at::kByte);
    if (!readData)
        return at::empty(t.sizes, at::TensorOptions().dtype(dt).device(at::kMeta));
    const bool isBool = dt == at::kBool;
    auto x = at::empty(t.sizes, at::TensorOptions().dtype(isBool ? at::kByte : dt));
    BoundedReader r(in, t.offset, t.offset + t.nbytes);
    r.readAt(t.offset, static_cast<char*>(x.data_ptr()), t.nbytes);
    return isBool ? x.ne(0) : x;  // any byte other than 0 is true, as torch reads it
}

}  // namespace

nlohmann::json compareFiles(const std::string& refFile, const std::string& candFile, const Contract& c)
{
    static const std::vector<std::string> precedence = {"shape_mismatch", "dtype_mismatch", "nan_inf_mismatch",
                                                        "value_mismatch", "input_mutated"};
    auto rank = [&](const std::string& f) { return std::find(precedence.begin(), precedence.end(), f) - precedence.begin(); };
    // The reference bundle is ours: a failure to read it is a harness error (thrown). Structure and
    // expectations come from it alone; the candidate's file only supplies values.
    auto ref = loadPickle(refFile);
    auto refCases = field(ref, "cases").toListRef();
    struct RefCase {
        std::string name, structure;
        std::vector<at::Tensor> tensors, inputs;
        std::vector<bool> scalar;
        std::vector<int64_t> mutable_;
        std::vector<std::string> inputNames;
    };
    std::vector<RefCase> refs;
    std::vector<CaseExpectation> expect;
    for (const auto& rc : refCases) {
        RefCase r;
        r.name = field(rc, "name").toStringRef();
        r.structure = field(rc, "structure").toStringRef();
        r.tensors = tensorList(field(rc, "tensors"));
        r.scalar = boolList(field(rc, "scalar"));
        r.inputs = tensorList(field(rc, "inputs"));
        r.mutable_ = intList(field(rc, "mutable"));
        if (auto names = field(rc, "input_names"); !names.isNone())
            for (const auto& e : names.toListRef())
                r.inputNames.push_back(e.toStringRef());
        expect.push_back({r.structure, r.tensors.size(), r.inputs.size()});
        refs.push_back(std::move(r));
    }
    nlohmann::json out = {{"cases", nlohmann::json::array()}};
    // The candidate's process wrote its outputs file and could have written anything there: an
    // unreadable file is the candidate's failure, never a reason to leave it unjudged.
    std::vector<CandidateCase> cand;
    std::string unreadable;
    try {
        cand = readCandidateOutputs(candFile, expect);
    } catch (const std::exception& e) {
        unreadable = e.what();
        if (unreadable.empty())
            unreadable = "unknown error";
    }
    if (!unreadable.empty()) {
        for (size_t i = 0; i < refs.size(); ++i)
            out["cases"].push_back({{"index", i}, {"name", refs[i].name}, {"status", "error"},
                                    {"failure_class", "runtime_error"},
                                    {"evidence", {{"reason", "candidate outputs unreadable: " + cleanText(unreadable, 300)}}}});
        out["pass"] = false;
        return out;
    }
    std::ifstream in(candFile, std::ios::binary);
    bool allPass = true;
    for (size_t i = 0; i < refs.size(); ++i) {
        const auto& rc = refs[i];
        nlohmann::json cj = {{"index", i}, {"name", rc.name}};
        if (i >= cand.size()) {
            cj["status"] = "error";
            cj["failure_class"] = "crash";
            cj["evidence"] = {{"reason", "no output for this case"}};
            out["cases"].push_back(cj);
            allPass = false;
            continue;
        }
        const auto& cc = cand[i];
        if (cc.error) {
            cj["status"] = "error";
            cj["failure_class"] = callFailureClass(cc.errorClass);
            cj["evidence"] = {{"message", cleanText(cc.message, 2000)}};
            if (cj["failure_class"] != cc.errorClass)
                cj["evidence"]["claimed_class"] = cleanText(cc.errorClass, 64);
            out["cases"].push_back(cj);
            allPass = false;
            continue;
        }
        LeafVerdict verdict;
        nlohmann::json leaves = nlohmann::json::array();
        auto worse = [&](const LeafVerdict& lv) {
            if (!lv.ok && (verdict.ok || rank(lv.failureClass) < rank(verdict.failureClass))) {
                verdict.ok = false;
                verdict.failureClass = lv.failureClass;
                verdict.evidence = lv.evidence;
            }
        };
        try {
            if (cc.structure != rc.structure) {
                verdict.ok = false;
                verdict.failureClass = "shape_mismatch";
                verdict.evidence = {{"reason", "output structure differs"}, {"ref_structure", rc.structure},
                                    {"cand_structure", cleanText(cc.structure, 4000) + (cc.structureTruncated ? "\xE2\x80\xA6" : "")}};
            } else if (cc.leafCount != rc.tensors.size()) {
                verdict.ok = false;
                verdict.failureClass = "shape_mismatch";
                verdict.evidence = {{"reason", "output leaf count differs"}, {"ref_leaves", rc.tensors.size()}, {"cand_leaves", cc.leafCount}};
            } else {
                for (size_t j = 0; j < rc.tensors.size(); ++j) {
                    const auto& rt = rc.tensors[j];
                    const auto& ct = cc.leaves[j];
                    // The reference's flag alone: equal structures have their S (number) leaves in the same places.
                    const bool scalar = j < rc.scalar.size() && rc.scalar[j];
                    LeafVerdict lv;
                    if (!ct.dtype) {
                        // A dtype we do not read (e.g. quantized): never loaded.
                        lv.ok = false;
                        if (!scalar && at::IntArrayRef(ct.sizes) != rt.sizes()) {
                            lv.failureClass = "shape_mismatch";
                            lv.evidence = {{"ref_shape", shapeOf(rt)}, {"cand_shape", ct.sizes}};
                        } else {
                            lv.failureClass = "dtype_mismatch";
                            lv.evidence = {{"ref_dtype", dtypeName(rt.scalar_type())}, {"cand_dtype", cleanText(ct.dtypeName, 64)}};
                        }
                    } else {
                        const bool readData = scalar ? (ct.numel == 1 && rt.numel() == 1)
                                                     : (at::IntArrayRef(ct.sizes) == rt.sizes() && *ct.dtype == rt.scalar_type());
                        lv = compareLeaf(rt, materialise(in, ct, readData), c, scalar);
                    }
                    lv.evidence["leaf"] = j;
                    leaves.push_back(lv.evidence);
                    worse(lv);
                }
                // Mutation: every tensor the call received (positional and keyword) that the op may
                // not modify must be unchanged; the reference says how many there are.
                auto mutated = [&](size_t k, nlohmann::json ev) {
                    LeafVerdict lv;
                    lv.ok = false;
                    lv.failureClass = "input_mutated";
                    ev["input_tensor"] = k;
                    if (k < rc.inputNames.size())
                        ev["input"] = rc.inputNames[k];
                    lv.evidence = std::move(ev);
                    return lv;
                };
                if (verdict.ok && cc.snapshotCount != rc.inputs.size()) {
                    auto lv = mutated(0, {{"reason", "post-call snapshots of " + std::to_string(cc.snapshotCount) + " tensors for the " +
                                                         std::to_string(rc.inputs.size()) + " tensors the call received"}});
                    lv.evidence.erase("input_tensor");
                    lv.evidence.erase("input");
                    worse(lv);
                }
                for (size_t k = 0; verdict.ok && k < rc.inputs.size() && k < cc.snapshots.size(); ++k) {
                    if (std::find(rc.mutable_.begin(), rc.mutable_.end(), static_cast<int64_t>(k)) != rc.mutable_.end())
                        continue;
                    const auto& inp = rc.inputs[k];
                    const auto& sn = cc.snapshots[k];
                    if (!sn.dtype || *sn.dtype != inp.scalar_type() || at::IntArrayRef(sn.sizes) != inp.sizes()) {
                        worse(mutated(k, {{"reason", "the tensor's shape or dtype changed in the call"},
                                          {"ref_shape", shapeOf(inp)}, {"cand_shape", sn.sizes},
                                          {"ref_dtype", dtypeName(inp.scalar_type())}, {"cand_dtype", cleanText(sn.dtypeName, 64)}}));
                        break;
                    }
                    auto after = materialise(in, sn, true);
                    if (!sameTensor(inp, after)) {
                        auto changed = at::ne(at::nan_to_num(inp.to(at::kDouble), 0.0), at::nan_to_num(after.to(at::kDouble), 0.0)).sum().item<int64_t>();
                        worse(mutated(k, {{"changed_elements", changed}}));
                        break;
                    }
                }
            }
        } catch (const std::exception& e) {
            // Whatever in the candidate's data we cannot process is its failure, never a crash.
            cj["status"] = "error";
            cj["failure_class"] = "runtime_error";
            cj["evidence"] = {{"reason", "candidate outputs unprocessable: " + cleanText(e.what(), 300)}};
            out["cases"].push_back(cj);
            allPass = false;
            continue;
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
