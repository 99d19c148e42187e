// SPDX-License-Identifier: MIT
// One output leaf against its reference leaf under the task's contract: shape, dtype, exact values
// (integers), NaN/+-Inf positions, per-dtype atol + rtol with evidence, signed zeros, the low-signal
// guard, quantization metrics. The uniform-distribution test is compare_uniform.cpp.
#include "compare_internal.h"

#include <algorithm>
#include <cmath>

namespace kbx::worker {
namespace compare_internal {

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

}  // namespace compare_internal

using namespace compare_internal;

namespace {

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

/// Integers and booleans: every element equal.
LeafVerdict compareExact(const at::Tensor& ref, const at::Tensor& cand, LeafVerdict v)
{
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

/// NaN and +-Inf positions must agree exactly: NaN is no wildcard. True (and v failed) when they do not.
bool nanInfPositionsDiffer(const at::Tensor& r, const at::Tensor& x, LeafVerdict& v)
{
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
    if (nanBad + infBad == 0)
        return false;
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
    return true;
}

/// The evidence of an allclose comparison: the worst error and where, the mismatch fraction, the
/// tolerances that would pass.
void errorEvidence(const at::Tensor& r, const at::Tensor& rf, const at::Tensor& xf, const at::Tensor& err, double atol, double rtol,
                   int64_t nbad, LeafVerdict& v)
{
    const int64_t n = r.numel();
    if (n == 0)
        return;
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

/// Low-signal guard: when the reference is about as small as atol, atol alone would let an
/// all-zero (or otherwise empty) output pass; demand a relative L2 error instead.
void lowSignalGuard(const at::Tensor& finite, const at::Tensor& rf, const at::Tensor& xf, double atol, double rtol, LeafVerdict& v)
{
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
}

/// Floating (and complex, as real pairs) leaves, NaN/Inf positions agreeing: within atol + rtol |ref|
/// element by element, zeros' signs where the contract fixes them, the low-signal guard.
LeafVerdict compareClose(const at::Tensor& r, const at::Tensor& x, double atol, double rtol, const Contract& c, LeafVerdict v)
{
    v.evidence["atol"] = atol;
    v.evidence["rtol"] = rtol;
    auto finite = at::logical_and(at::isfinite(r), at::isfinite(x));
    auto rf = at::where(finite, r, at::zeros_like(r));
    auto xf = at::where(finite, x, at::zeros_like(x));
    auto err = (xf - rf).abs();
    auto bound = atol + rtol * rf.abs();
    auto bad = at::gt(err, bound);
    int64_t nbad = bad.sum().item<int64_t>();
    errorEvidence(r, rf, xf, err, atol, rtol, nbad, v);
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
    lowSignalGuard(finite, rf, xf, atol, rtol, v);
    return v;
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
    if (!ref.is_floating_point() && !ref.is_complex())
        return compareExact(ref, cand, std::move(v));
    // Complex outputs (e.g. FFTs) are compared as (real, imag) pairs under the tolerance of their
    // component dtype.
    const bool complex = ref.is_complex();
    auto r = complex ? at::view_as_real(ref.to(at::kComplexDouble)) : ref.to(at::kDouble);
    auto x = complex ? at::view_as_real(cand.to(at::kComplexDouble)) : cand.to(at::kDouble);
    if (c.comparison == "quantization")
        return compareQuantization(r, x, c);
    if (nanInfPositionsDiffer(r, x, v))
        return v;
    auto [atol, rtol] = c.tol(complex ? c10::toRealValueType(refIn.scalar_type()) : refIn.scalar_type());
    if (scalarLeaf)
        std::tie(atol, rtol) = c.tol(at::kFloat);
    return compareClose(r, x, atol, rtol, c, std::move(v));
}

}  // namespace kbx::worker
