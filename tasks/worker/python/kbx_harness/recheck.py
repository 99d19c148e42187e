# SPDX-License-Identifier: MIT
"""The perf stage's output re-check (docs/PERF_PROTOCOL.md, "Anti-gaming"): the output of one
random timed candidate call is compared with the reference's output on the same input set, so the
kernel that was timed is shown to be the kernel that computes (no result caching, no skipped work).
It is a gross-error check on perf-size inputs, not the verdict, and it must not cry wolf: on the
H200 the first version flagged references against *themselves* (bench/results/2026-11-30-h200x2-3runs):

* ops that mutate their inputs (optimizer steps, `inplace=True`) drift the rotated input sets during
  timing, so the check compares calls on a pristine copy of the input set instead;
* random outputs (dropout with 0 < p < 1, `torch.rand`) differ from call to call: the reference is
  called twice on the same input, and when its two outputs differ beyond the check's own tolerance
  (not just float atomics' rounding) only the structure is checked,
  or, for tasks judged by a uniformity test (`comparison: "uniform"`), the same test as the verdict;
* quantized outputs are judged by the spec's cosine / relative-L1 thresholds, not elementwise;
* float outputs pass elementwise at 10x the task's tolerance, or with a relative L2 error below 1e-2
  and at most 1e-3 of the elements beyond it (TF32 over long reductions); integer outputs exactly,
  or off by one on at most 1 % of the elements (rounding boundaries the verdict's cases exclude);
* a task's verifying drive() (float64 statistics) over a large input can cost minutes on the host
  (Math/bitwise_and_binomial: 366 s of one GPU's exclusive time): above `drive_max_elements`
  input elements, or when the reference's call through it took more than `drive_max_seconds`,
  the re-check of such a task's shape is skipped, and the reason is stored.
"""
from __future__ import annotations

import math
import time

import torch

from .common import call_entry, clone_tree, tensors_in, tree_map


def numel(args, kwargs) -> int:
    return sum(t.numel() for t in tensors_in((args, kwargs)))


def same(a, b) -> bool:
    """Bitwise the same tensors (NaN equal to NaN) in the same structure."""
    ta, tb = tensors_in(a), tensors_in(b)
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.is_floating_point() or x.is_complex():
            if not torch.equal(torch.nan_to_num(x), torch.nan_to_num(y)) or \
                    not torch.equal(torch.isnan(x), torch.isnan(y)):
                return False
        elif not torch.equal(x, y):
            return False
    return True


def _detached(out):
    return tree_map(lambda t: t.detach().clone(), out)


class Plan:
    """What the re-check of one shape does, decided before any candidate call of that shape."""

    def __init__(self, mode: str, ref_out=None, pristine=None, why: str = ""):
        self.mode = mode          # allclose | quantization | uniform | structure | skipped
        self.ref_out = ref_out
        self.pristine = pristine  # (args, kwargs) of the re-checked input set, never passed to a call
        self.why = why


def _synced(out):
    if any(t.is_cuda for t in tensors_in(out)):
        torch.cuda.synchronize()
    return out


def plan(task, meta: dict, ref, inputs_k, drive_max_elements: int, drive_max_seconds: float = 2.0) -> Plan:
    """Reference outputs for the re-checked input set `inputs_k` (args, kwargs), from pristine copies."""
    verifying_drive = hasattr(task, "drive") and not hasattr(task, "perf_drive")
    comparison = meta.get("comparison", "allclose")
    n = numel(*inputs_k)
    if verifying_drive and n > drive_max_elements:
        return Plan("skipped", why=f"the task's verifying drive() over {n} input elements costs more than "
                                   f"the timing (re-checked up to {drive_max_elements})")
    pristine = clone_tree(inputs_k)
    t0 = time.perf_counter()
    r1 = _detached(_synced(call_entry(task, ref, *clone_tree(pristine))))
    took = time.perf_counter() - t0
    if verifying_drive and took > drive_max_seconds:
        # Host-side verification that grows faster than the input (a binomial PIT table of elements
        # x trials): one call is the most the re-check may cost; the candidate's is not made.
        return Plan("skipped", why=f"the task's verifying drive() took {took:.1f} s on the reference "
                                   f"(re-checked up to {drive_max_seconds:g} s)")
    if comparison == "uniform":
        return Plan("uniform", pristine=pristine)
    r2 = _detached(call_entry(task, ref, *clone_tree(pristine)))
    mode = "quantization" if comparison == "quantization" else "allclose"
    if not same(r1, r2):
        # Two calls that differ within the check's own tolerance are nondeterministic reductions
        # (float atomics), still checked as usual; beyond it the output is random (dropout).
        t1, t2 = tensors_in(r1), tensors_in(r2)
        close = len(t1) == len(t2) and all(a.shape == b.shape for a, b in zip(t1, t2)) and \
            (_quantized(t2, t1, meta.get("quantization") or {}) if mode == "quantization"
             else _allclose(t2, t1, meta.get("tolerance", {})))["ok"]
        if not close:
            return Plan("structure", ref_out=r1, pristine=pristine,
                        why="the reference's output differs between two calls on this input (random)")
    return Plan(mode, ref_out=r1, pristine=pristine)


def needs_untimed_call(task, p: Plan, inputs_k) -> bool:
    """The timed call's output cannot be compared: it came through a verifying drive() (not timed),
    or the op mutated its input set (the timed call saw drifted inputs)."""
    verifying_drive = hasattr(task, "drive") and not hasattr(task, "perf_drive")
    return verifying_drive or not same(inputs_k, p.pristine)


def untimed_output(task, fn, p: Plan):
    return call_entry(task, fn, *clone_tree(p.pristine))


def check(p: Plan, cand_out, meta: dict) -> dict:
    if p.mode == "skipped":
        return {"ok": True, "skipped": p.why}
    c = tensors_in(cand_out)
    if p.mode == "uniform":
        return _uniform(c, meta.get("uniform") or {})
    r = tensors_in(p.ref_out)
    if len(c) != len(r):
        return {"ok": False, "mode": p.mode, "reason": f"{len(c)} output tensors, reference has {len(r)}"}
    for a, b in zip(c, r):
        if a.shape != b.shape:
            return {"ok": False, "mode": p.mode, "reason": f"shape {list(a.shape)} vs reference {list(b.shape)}"}
    if p.mode == "structure":
        for a, b in zip(c, r):
            if a.dtype != b.dtype:
                return {"ok": False, "mode": p.mode, "reason": f"dtype {a.dtype} vs reference {b.dtype}"}
        return {"ok": True, "mode": p.mode, "why": p.why}
    if p.mode == "quantization":
        return _quantized(c, r, meta.get("quantization") or {})
    return _allclose(c, r, meta.get("tolerance", {}))


def _allclose(c, r, tol: dict) -> dict:
    worst, worst_rel_l2, worst_frac = 0.0, 0.0, 0.0
    int_frac = 0.0
    for a, b in zip(c, r):
        if not (b.is_floating_point() or b.is_complex()):
            if a.dtype == torch.bool or b.dtype == torch.bool:
                diff = (a.to(torch.bool) != b.to(torch.bool))
                far = diff
            else:
                d = (a.to(torch.int64) - b.to(torch.int64)).abs()
                diff, far = d > 0, d > 1
            if bool(far.any()):
                return {"ok": False, "mode": "allclose", "reason": "integer/bool output differs by more than one"}
            int_frac = max(int_frac, float(diff.double().mean()) if diff.numel() else 0.0)
            continue
        at, rt = tol.get(str(b.dtype).replace("torch.", ""), tol.get("float32", [1e-5, 1e-5]))
        cplx = b.is_complex()
        a64, b64 = a.to(torch.complex128 if cplx else torch.float64), b.to(torch.complex128 if cplx else torch.float64)
        fin = torch.isfinite(torch.view_as_real(b64)).all(-1) if cplx else torch.isfinite(b64)
        if not bool(fin.any()):
            continue
        e = (a64 - b64).abs()[fin]
        err = e / (10 * (at + rt * b64.abs()[fin]))
        worst = max(worst, float(err.max()))
        worst_frac = max(worst_frac, float((err > 1).double().mean()))
        den = float(b64.abs()[fin].pow(2).sum().sqrt())
        worst_rel_l2 = max(worst_rel_l2, float(e.pow(2).sum().sqrt()) / max(den, 1e-30))
        if not bool(torch.isfinite(a64[fin] if not cplx else torch.view_as_real(a64)[fin]).all()):
            return {"ok": False, "mode": "allclose", "reason": "non-finite values where the reference is finite"}
    # Integers: off by one on at most 1 % of the elements. Inputs from a small domain (int8 has 256
    # values) put whole values on a rounding boundary: on the H200, 1 of 256 int8 inputs of
    # Activation/gelu_int8 (0.39 % of the elements) rounds the other way in a known-good kernel.
    ok = int_frac <= 1e-2 and (worst <= 1.0 or (worst_rel_l2 <= 1e-2 and worst_frac <= 1e-3))
    out = {"ok": ok, "mode": "allclose", "worst_over_10x_tol": worst, "beyond_10x_tol_fraction": worst_frac,
           "rel_l2": worst_rel_l2}
    if int_frac:
        out["integer_off_by_one_fraction"] = int_frac
    return out


def _quantized(c, r, q: dict) -> dict:
    cos_min, l1_max = float(q.get("cosine_sim", 0.99)), float(q.get("l1_relative", 0.05))
    worst_cos, worst_l1 = 1.0, 0.0
    for a, b in zip(c, r):
        a64, b64 = a.to(torch.float64).reshape(-1), b.to(torch.float64).reshape(-1)
        na, nb = float(a64.norm()), float(b64.norm())
        cos = float(a64 @ b64) / (na * nb) if na > 0 and nb > 0 else (1.0 if na == nb else 0.0)
        l1 = float((a64 - b64).abs().sum()) / max(float(b64.abs().sum()), 1e-30)
        worst_cos, worst_l1 = min(worst_cos, cos), max(worst_l1, l1)
    return {"ok": worst_cos >= cos_min and worst_l1 <= l1_max, "mode": "quantization", "cosine_sim": worst_cos,
            "l1_relative": worst_l1, "thresholds": {"cosine_sim": cos_min, "l1_relative": l1_max}}


def _uniform(c, u: dict, max_n: int = 1 << 20) -> dict:
    """The verdict's uniformity test (tasks/worker/compare.cpp): range, moments within 6 standard
    errors, Kolmogorov-Smirnov at alpha ~ 1e-6, on at most max_n elements (a fixed stride)."""
    lo, hi = float(u.get("low", 0.0)), float(u.get("high", 1.0))
    if not c:
        return {"ok": False, "mode": "uniform", "reason": "no output tensor"}
    x = torch.cat([t.detach().reshape(-1).to(torch.float64) for t in c])
    # Low-precision outputs are a discrete sample: bfloat16 in [0.5, 1) has steps of 2^-8, so the KS
    # distance of an honest generator is about one step (0.004 measured on the H200 at 1M samples,
    # against 2.65 / sqrt(n) = 0.0026). The critical value gets the dtype's largest step in the range.
    step = max((torch.finfo(t.dtype).eps * max(abs(lo), abs(hi)) for t in c if t.is_floating_point()), default=0.0)
    if x.numel() > max_n:
        x = x[:: math.ceil(x.numel() / max_n)]
    n = x.numel()
    if n == 0:
        return {"ok": True, "mode": "uniform", "n": 0}
    mn, mx = float(x.min()), float(x.max())
    if not (math.isfinite(mn) and math.isfinite(mx)) or mn < lo or mx > hi:
        return {"ok": False, "mode": "uniform", "reason": "values outside [low, high)", "min": mn, "max": mx}
    out = {"ok": True, "mode": "uniform", "n": n, "min": mn, "max": mx}
    if n >= 64:
        w = hi - lo
        s = torch.sort((x - lo) / w).values
        ranks = torch.arange(1, n + 1, dtype=torch.float64, device=s.device) / n
        d = max(float((ranks - s).max()), float((s - (ranks - 1.0 / n)).max()))
        mean, var = float(x.mean()), float(x.var())
        exp_var = w * w / 12
        rel_var = abs(var - exp_var) / exp_var
        crit = 2.65 / math.sqrt(n) + step / w
        out.update({"ks_d": d, "ks_critical": crit, "mean": mean, "var_rel_err": rel_var})
        if abs(mean - (lo + w / 2)) > 6 * math.sqrt(exp_var / n) + step or d > crit or \
                rel_var > 6 * math.sqrt(0.8 / n) + 0.01 + step:
            out.update({"ok": False, "reason": "sample is not uniform (moments or KS test)"})
    return out
