# SPDX-License-Identifier: MIT
"""Seed-call cases (kbx_harness.contract): cases modelled on the seed's own calls for a task whose own
cases miss (or barely cover) the seed's patterns."""
from __future__ import annotations

import inspect
import math

import torch

from .common import to_device, tree_map
from .contract_patterns import TENSOR_DTYPES, Contract

# ---- seed-call cases --------------------------------------------------------------------------
# A task whose own cases miss every seed pattern gets cases modelled on the seed's own calls: the
# seed's shapes, dtypes and literal options, with values drawn from the harness's generator (a
# standard and an outlier draw per pattern and seed). A drawn case on which the reference raises or
# returns NaN/Inf from finite inputs is dropped: it would ask more than the seed's own inputs did.

SEED_CASE_MAX_ELEMENTS = 1 << 18  # the Triton interpreter runs ~1e6 elements/s
# The seed's outlier draws: a standard normal with a share p of its elements replaced by a normal of
# this scale. Its tests pass outlier_prob=0.001 and outlier_scale=10.0 (286 calls) or 20.0 (17), never
# its helper's default of 50, and some clamp the result (Math/i0 to +-10); seed-call cases draw at 10.
SEED_OUTLIER_P = 1e-3
SEED_OUTLIER_SCALE = 10.0


def _numel_of(a) -> int:
    if a.get("kind") == "tensor":
        n = 1
        for d in a.get("shape") or []:
            n *= int(d)
        return n
    return sum(_numel_of(i) for i in a.get("items") or [])


def _int_bound(call) -> int:
    """Values for an integer tensor of a seed call: [0, the smallest dimension of its float
    tensors) so that they index validly, at least 2."""
    dims = []

    def rec(a):
        if a.get("kind") == "tensor" and str(a.get("dtype", "")).startswith(("float", "bfloat")):
            dims.extend(int(d) for d in a.get("shape") or [] if int(d) > 0)
        for i in a.get("items") or []:
            rec(i)
    for a in call.get("args", []):
        rec(a)
    for a in call.get("kwargs", {}).values():
        rec(a)
    return max(2, min(dims)) if dims else 4


def _observed_ints(con: "Contract", cases) -> dict:
    """Per parameter, the integer-tensor values the task's own cases pass: a small set (targets
    of +-1, class ids) or a range. Seed-call cases draw an integer tensor's values from it, since
    only the task knows what its integers mean."""
    seen: dict = {}
    for c in cases or []:
        try:
            b = con.sig.bind(*c["args"], **c["kwargs"])
        except TypeError:
            continue
        for name, v in b.arguments.items():
            if isinstance(v, torch.Tensor) and not (v.is_floating_point() or v.is_complex()) \
                    and v.dtype != torch.bool and v.numel():
                seen.setdefault(name, set()).update(int(x) for x in v.flatten()[:4096].tolist())
    out = {}
    for name, vals in seen.items():
        out[name] = sorted(vals) if len(vals) <= 16 else (min(vals), max(vals))
    return out


# What the seed's tests do to a drawn tensor before the call (clamp, abs() + c, a symmetric
# positive definite matrix, ...): a task states it as META["seed_values"] = {parameter: [op, ...]},
# op one of the names below or [name, constants...]. Seed-call cases draw as the seed does and then
# apply the same ops, so that they ask for the values the seed's own tests pass and no others
# (Math/i0: the seed clamps to +-10; an i0 accurate to 3e-5 only up to |x| = 10 is right there).
# META["seed_outlier_p"] is the seed's outlier share where its tests use another (quantization: 0.01).


def _seed_op(t, op, bound):
    name, *k = (op,) if isinstance(op, str) else tuple(op)
    if name == "abs":
        return t.abs()
    if name == "add":
        return t + k[0]
    if name == "mul":
        return t * k[0]
    if name == "clamp":
        return t.clamp(k[0], k[1])
    if name == "clamp_min":
        return t.clamp_min(k[0])
    if name == "clamp_max":
        return t.clamp_max(k[0])
    if name == "sigmoid":
        return torch.sigmoid(t)
    if name == "away_from_zero":  # x.sign() * x.abs().clamp_min(c)
        return t.sign() * t.abs().clamp_min(k[0])
    if name == "sym":  # (x + x^T) / 2
        return (t + t.mT) / 2
    if name == "gram":  # x @ x^T
        return t @ t.mT
    if name == "add_eye":  # + c I
        return t + torch.eye(t.shape[-1], dtype=t.dtype, device=t.device) * k[0]
    if name == "softmax":  # over the last dimension
        return torch.softmax(t, dim=-1)
    if name == "log_softmax":
        return torch.log_softmax(t, dim=-1)
    if name == "softmax_or_log":  # log_softmax where the call passes the named flag True, else softmax
        return torch.log_softmax(t, dim=-1) if bound.get(k[0]) is True else torch.softmax(t, dim=-1)
    if name == "cholesky":  # its lower factor, or the upper one where the call passes upper=True
        lower = torch.linalg.cholesky(t)
        return lower.mT if bound.get(k[0] if k else "upper") is True else lower
    raise ValueError(f"seed_values: unknown op {name!r}")


def seed_value_ops(task) -> dict:
    ops = (getattr(task, "META", None) or {}).get("seed_values") or {}
    for name, lst in ops.items():
        for op in lst:
            _seed_op(torch.ones(2, 2, dtype=torch.float64) + torch.eye(2, dtype=torch.float64) * 3, op, {})
    return ops


def _apply_seed_values(ops: dict, bound: dict) -> dict:
    """bound (parameter -> drawn value) with the task's seed_values ops applied to its floating tensors."""
    out = dict(bound)
    for name, lst in ops.items():
        v = out.get(name)
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            for op in lst:
                v = _seed_op(v, op, bound)
            out[name] = v.contiguous() if bound[name].is_contiguous() else v
    return out


def _value(a, g, mode, bound, ints=None, p=None):
    k = a.get("kind")
    if k == "tensor":
        shape = [int(d) for d in a.get("shape") or []]
        dt = getattr(torch, a.get("dtype") or "float32", None)
        if not isinstance(dt, torch.dtype):
            raise ValueError(f"dtype {a.get('dtype')}")
        if dt.is_floating_point:
            t = (g.outlier(*shape, dtype=dt, p=p or SEED_OUTLIER_P, scale=SEED_OUTLIER_SCALE) if mode == "outlier"
                 else g.randn(*shape, dtype=dt))
        elif dt == torch.bool:
            t = g.bernoulli(*shape)
        elif dt.is_complex:
            raise ValueError("complex inputs")
        elif isinstance(ints, list) and ints:
            pick = g.randint(0, len(ints), *shape)
            t = torch.tensor(ints, dtype=dt, device=pick.device)[pick]
        elif isinstance(ints, tuple) and ints[0] < bound:
            t = g.randint(ints[0], min(ints[1] + 1, bound), *shape, dtype=dt)
        else:
            t = g.randint(0, bound, *shape, dtype=dt)
        if a.get("non_contiguous") and t.dim() >= 2:
            t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
        return t
    if k in ("tuple", "list", "Size"):
        items = [_value(i, g, mode, bound, p=p) for i in a.get("items") or []]
        return tuple(items) if k != "list" else items
    if k == "dtype":
        return getattr(torch, str(a.get("value", "")).replace("torch.", ""))
    if k in ("int", "float", "bool", "str", "NoneType"):
        return a.get("value")
    raise ValueError(f"argument kind {k}")


def _finite(x) -> bool:
    if isinstance(x, torch.Tensor):
        return not (x.is_floating_point() or x.is_complex()) or bool(torch.isfinite(x).all())
    if isinstance(x, (tuple, list)):
        return all(_finite(v) for v in x)
    if isinstance(x, dict):
        return all(_finite(v) for v in x.values())
    if isinstance(x, float):
        return math.isfinite(x)
    return True


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a.nan_to_num(), b.nan_to_num()))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def _upcast(x):
    return tree_map(lambda t: t.double() if t.is_floating_point() else t.clone(), x)


def _within(plain, oracle, tol: dict) -> bool:
    """The comparison's rule (atol + rtol |oracle|, NaN where NaN) on every float leaf."""
    if isinstance(plain, torch.Tensor) and isinstance(oracle, torch.Tensor):
        if not plain.is_floating_point():
            return bool(torch.equal(plain, oracle.to(plain.dtype)))
        name = TENSOR_DTYPES.get(plain.dtype, "float32")
        atol, rtol = tol.get(name, (5e-3, 5e-3) if name in ("float16", "bfloat16") else (1e-5, 1e-5))
        r = oracle.to(plain.dtype).double()
        x = plain.double()
        if not torch.equal(torch.isnan(r), torch.isnan(x)):
            return False
        fin = torch.isfinite(r) & torch.isfinite(x)
        return bool(((x - r).abs()[fin] <= atol + rtol * r.abs()[fin]).all())
    if isinstance(plain, (tuple, list)) and isinstance(oracle, (tuple, list)):
        return len(plain) == len(oracle) and all(_within(a, b, tol) for a, b in zip(plain, oracle))
    if isinstance(plain, dict) and isinstance(oracle, dict):
        return all(_within(plain[k], oracle[k], tol) for k in plain if k in oracle)
    return True


def oracle_checker(task, run_reference, clone):
    """For a task compared against its float64 oracle: a check that the task's own reference meets
    its tolerance on a drawn case (else the draw asks more than the reference can give)."""
    meta = getattr(task, "META", {})
    if meta.get("oracle") != "float64" or meta.get("comparison") not in (None, "allclose"):
        return None
    # the contract tier's tolerance: the task's, floored at the seed's own (core/evaluator.cpp)
    floor = {"float16": 5e-3, "bfloat16": 5e-3, "float32": 1e-5, "float64": 1e-5}
    tol = {k: (max(v[0], floor.get(k, 0.0)), max(v[1], floor.get(k, 0.0)))
           for k, v in (meta.get("tolerance") or {}).items()}

    def check(args, kwargs, out):
        try:
            o64 = run_reference(_upcast(clone(args)), _upcast(clone(kwargs)))
        except Exception as e:  # noqa: BLE001
            return f"the float64 oracle raises on drawn inputs: {type(e).__name__}"
        if not _within(out, o64, tol):
            return "the task's own reference misses its tolerance against its float64 oracle on this draw"
        return None
    return check


def seed_call_cases(con: "Contract", task, task_id: str, seeds: list, device: str, run_reference, clone,
                    own_cases=None):
    """Cases modelled on the seed's calls (see above); run_reference(args, kwargs) -> outputs.
    Returns (cases, dropped) where dropped lists (pattern index, why)."""
    oracle_check = oracle_checker(task, run_reference, clone)
    observed = _observed_ints(con, own_cases)
    positional = [n for n, p in con.sig.parameters.items()
                  if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    from .inputs import InputGen, derive_seed
    cases, dropped = [], []
    value_ops = seed_value_ops(task)
    outlier_p = (getattr(task, "META", None) or {}).get("seed_outlier_p")
    examples = (con.entry or {}).get("examples") or []
    for k, ex in enumerate(examples):
        size = sum(_numel_of(a) for a in ex.get("args", [])) + sum(_numel_of(a) for a in ex.get("kwargs", {}).values())
        if size > SEED_CASE_MAX_ELEMENTS:  # on every device: CPU and GPU runs judge the same cases
            dropped.append((k, f"{size} elements: too large for the CPU interpreter"))
            continue
        bound = _int_bound(ex)
        for s in seeds:
            for mode in ("standard", "outlier"):
                # Drawn and checked on the CPU (an invalid draw on a GPU is a device-side assert that
                # poisons the process), then moved to the run's device.
                g = InputGen(derive_seed(task_id, "seedcall", k, mode, s["seed"]), "cpu")
                try:
                    args = tuple(_value(a, g, mode, bound, observed.get(positional[i]) if i < len(positional) else None,
                                        p=outlier_p)
                                 for i, a in enumerate(ex.get("args", [])))
                    kwargs = {n: _value(a, g, mode, bound, observed.get(n), p=outlier_p)
                              for n, a in ex.get("kwargs", {}).items()}
                    if value_ops:
                        named = dict(zip(positional, args))
                        named.update(kwargs)
                        named = _apply_seed_values(value_ops, named)
                        args = tuple(named[positional[i]] if i < len(positional) else a for i, a in enumerate(args))
                        kwargs = {n: named[n] for n in kwargs}
                except (ValueError, TypeError, RuntimeError) as e:
                    dropped.append((k, f"cannot draw: {e}"))
                    break
                a2, k2 = clone(args), clone(kwargs)
                global_seed = derive_seed(task_id, "seedcall-global", k, mode, s["seed"]) & 0x7FFFFFFF
                try:
                    torch.manual_seed(global_seed)
                    out = run_reference(a2, k2)
                    torch.manual_seed(global_seed)
                    again = run_reference(clone(args), clone(kwargs))
                    # a random op may draw alike for two seeds on a small input: try several
                    other = out
                    for extra_seed in range(1, 6):
                        torch.manual_seed(global_seed + extra_seed)
                        other = run_reference(clone(args), clone(kwargs))
                        if not _same(out, other):
                            break
                except Exception as e:  # noqa: BLE001
                    dropped.append((k, f"the reference raises on drawn inputs: {type(e).__name__}"))
                    break
                if not _same(out, again):
                    dropped.append((k, "the reference is not deterministic under a fixed global seed"))
                    break
                if oracle_check is not None and _same(out, other):  # a random draw has no oracle
                    why = oracle_check(args, kwargs, out)
                    if why:
                        dropped.append((k, why))
                        continue
                if _finite(args) and _finite(kwargs) and not _finite(out):
                    dropped.append((k, "the reference returns NaN/Inf on drawn inputs"))
                    break
                # an in-place op (index_fill_, ...) may modify the arguments its reference modifies;
                # a modified keyword tensor (running statistics) cannot be declared: no such draw
                mutates = [i for i, (a, b) in enumerate(zip(args, a2))
                           if isinstance(a, torch.Tensor) and not torch.equal(a.nan_to_num(), b.nan_to_num())]
                if any(isinstance(v, torch.Tensor) and not torch.equal(v.nan_to_num(), k2[n].nan_to_num())
                       for n, v in kwargs.items()):
                    dropped.append((k, "the reference modifies a keyword tensor"))
                    break
                if device != "cpu":
                    args, kwargs = to_device(args, device), to_device(kwargs, device)
                if not _same(out, other):
                    # A random op called as the seed calls it (no explicit samples): only a kernel that
                    # draws from torch's generator exactly as torch does, with torch's own index
                    # arithmetic, could match element by element (seen: the fractional max pool's own
                    # known-good solution differs on 1 of 16 elements for some seeds). Not a contract case.
                    dropped.append((k, "the reference is random on these inputs (no explicit samples)"))
                    break
                cases.append({"name": f"{s['label']}/seedcall{k}_{mode}", "args": args, "kwargs": kwargs,
                              "mutates": mutates})
    return cases, dropped
