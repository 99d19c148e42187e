# SPDX-License-Identifier: MIT
"""The benchmark's contract per task, and which of our cases it covers (issue 21).

A task's *contract* is what the seed's own test section asks of the entry function: the argument
patterns of its calls (which parameters are passed, tensor dtypes and ranks, literal options such as
``approximate="tanh"``, the special inputs it uses: empty, 0-d, non-contiguous tensors). It is
derived from the seed's recorded calls (seed-test-calls.json) by ``scripts/contract_sync.py`` and
committed as ``tasks/contracts.json``: per task, the distinct abstract call patterns.

Every case a task draws is classified here, in the trusted reference process, into one of two tiers:

* ``contract``: its argument pattern is one the seed itself calls (harness-owned values: other
  seeds, standard and outlier distributions, odd sizes in the same ranks and dtypes) and no float
  input holds NaN or +-Inf (no seed test passes special values);
* ``extended``: anything else (other dtypes, ``out=`` or keywords the seed never passes, 0-d or
  empty tensors where the seed has none, ``None`` arguments, special values, non-contiguous views,
  other modes). Extended cases are kept and reported as their own tier; under the default protocol
  they never decide the verdict.

Patterns are matched per parameter after binding the call to the reference's signature, so a
parameter passed by position in one place and by keyword in another is the same parameter, and a
parameter passed with its default value counts as not passed.
"""
from __future__ import annotations

import inspect
import json
import math
import os

import torch

from .common import to_device, tree_map

TENSOR_DTYPES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.int8: "int8", torch.uint8: "uint8", torch.int16: "int16", torch.int32: "int32", torch.int64: "int64",
    torch.bool: "bool", torch.complex64: "complex64", torch.complex128: "complex128",
}

# Integer parameters that select a code path (an axis, a diagonal): the value must be one the seed
# uses. Other integers (sizes, counts) are free values, like floats.
_OPTION_INTS = ("dim", "axis", "diagonal", "offset", "ord", "p", "norm_type", "dims")



def _is_option_int(name: str) -> bool:
    n = name.lower()
    return n in _OPTION_INTS or n.startswith("dim") or n.endswith("_dim") or n.endswith("dim")


# ---- descriptors ------------------------------------------------------------------------------
# A descriptor is the JSON-able abstraction of one argument value, in the seed file's own vocabulary
# (kind, dtype, ...) with shapes reduced to ranks:
#   {"kind": "tensor", "dtype": "float32", "rank": 2, "empty": false, "non_contiguous": false}
#   {"kind": "int"|"float"|"bool"|"str"|"NoneType"|"dtype", "value": ...}
#   {"kind": "tuple"|"list", "items": [descriptor, ...]}


def abstract_seed_arg(a: dict) -> dict:
    """A seed-test-calls.json argument record, abstracted (shape -> rank)."""
    k = a.get("kind")
    if k == "tensor":
        shape = a.get("shape") or []
        return {"kind": "tensor", "dtype": a.get("dtype"), "rank": len(shape),
                "empty": bool(a.get("empty")) or any(s == 0 for s in shape),
                "non_contiguous": bool(a.get("non_contiguous")),
                "unit": [i for i, s in enumerate(shape) if s == 1]}
    if k in ("tuple", "list", "Size"):
        items = a.get("items")
        if isinstance(items, list):
            return {"kind": "seq", "items": [abstract_seed_arg(i) for i in items]}
        return {"kind": "seq", "items": None, "len": a.get("len")}
    if k == "dtype":
        return {"kind": "dtype", "value": str(a.get("value", "")).replace("torch.", "")}
    return {"kind": k, "value": a.get("value")}


def describe(v) -> dict:
    """The descriptor of a live argument value (our case inputs)."""
    if isinstance(v, torch.Tensor):
        floating = v.is_floating_point() or v.is_complex()
        special = False
        if floating and v.numel():
            try:
                special = not bool(torch.isfinite(v).all())
            except Exception:  # noqa: BLE001 - meta tensors
                special = False
        return {"kind": "tensor", "dtype": TENSOR_DTYPES.get(v.dtype, str(v.dtype)), "rank": v.dim(),
                "empty": v.numel() == 0, "non_contiguous": not v.is_contiguous(), "special": special,
                "unit": [i for i, s in enumerate(v.shape) if s == 1]}
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, int):
        return {"kind": "int", "value": v}
    if isinstance(v, float):
        return {"kind": "float", "value": v}
    if isinstance(v, str):
        return {"kind": "str", "value": v}
    if v is None:
        return {"kind": "NoneType", "value": None}
    if isinstance(v, torch.dtype):
        return {"kind": "dtype", "value": str(v).replace("torch.", "")}
    if isinstance(v, (tuple, list, torch.Size)):
        return {"kind": "seq", "items": [describe(e) for e in v]}
    return {"kind": type(v).__name__, "value": None}


def _is_default(desc: dict, default) -> bool:
    if default is inspect.Parameter.empty:
        return False
    if desc["kind"] == "NoneType":
        return default is None
    if desc["kind"] in ("bool", "str"):
        return type(default) is type(desc["value"]) and default == desc["value"]
    if desc["kind"] in ("int", "float"):
        return isinstance(default, (int, float)) and not isinstance(default, bool) and default == desc["value"]
    if desc["kind"] == "dtype":
        return isinstance(default, torch.dtype) and str(default).replace("torch.", "") == desc["value"]
    return False


def bind(sig: inspect.Signature, args: list, kwargs: dict) -> dict | None:
    """Descriptors by parameter name, defaults dropped; None when the call does not bind."""
    try:
        b = sig.bind(*args, **kwargs)
    except TypeError:
        return None
    out = {}
    for name, value in b.arguments.items():
        p = sig.parameters[name]
        if p.kind == inspect.Parameter.VAR_POSITIONAL:
            for i, v in enumerate(value):
                out[f"{name}[{i}]"] = v
            continue
        if p.kind == inspect.Parameter.VAR_KEYWORD:
            for k, v in value.items():
                out[k] = v
            continue
        if _is_default(value, p.default):
            continue
        out[name] = value
    return out


# ---- matching ---------------------------------------------------------------------------------


def _rank_dim(v, rank):
    """A dim option normalised by the rank of the first tensor (-1 of rank 2 is 1)."""
    if isinstance(v, int) and rank and v < 0:
        return v + rank
    return v


# Parameters that do not change what is computed: any value fits (the seed passes device="cuda"
# where the harness runs on the CPU, requires_grad=True where no gradient is taken).
_FREE = ("device", "requires_grad", "layout", "pin_memory", "memory_format")


def _match_value(name: str, ours: dict, seed: dict, rank: int | None) -> str | None:
    """None when our value fits the seed's, else why not."""
    if name in _FREE:
        return None
    if ours["kind"] == "tensor":
        if seed.get("kind") != "tensor":
            return f"{name}: a tensor where the seed passes {seed.get('kind')}"
        if ours["dtype"] != seed.get("dtype"):
            return f"{name}: dtype {ours['dtype']} (the seed tests {seed.get('dtype')})"
        if ours["rank"] != seed.get("rank"):
            return f"{name}: rank {ours['rank']} (the seed tests rank {seed.get('rank')})"
        if ours["empty"] and not seed.get("empty"):
            return f"{name}: an empty tensor (the seed passes none)"
        if ours["non_contiguous"] and not seed.get("non_contiguous"):
            return f"{name}: a non-contiguous tensor (the seed passes contiguous ones)"
        # a size-1 (broadcast) dimension where the seed's tensor has a full one: another pattern
        if not ours["empty"]:
            extra = sorted(set(ours.get("unit", [])) - set(seed.get("unit", [])))
            if extra:
                return f"{name}: size 1 in dimension {extra[0]} (the seed passes a full one there)"
        return None
    sk = seed.get("kind")
    if ours["kind"] == "seq":
        if sk != "seq":
            return f"{name}: a sequence where the seed passes {sk}"
        if seed.get("items") is None:
            return None
        si = seed["items"]
        if si and all(i.get("kind") == "tensor" for i in si) and all(i == si[0] for i in si) and ours["items"] \
                and all(i["kind"] == "tensor" for i in ours["items"]):
            # a list of like tensors (an optimizer's params, torch.cat's inputs): any count of them
            for i, a in enumerate(ours["items"]):
                why = _match_value(f"{name}[{i}]", a, si[0], rank)
                if why:
                    return why
            return None
        if len(ours["items"]) != len(seed["items"]):
            return f"{name}: {len(ours['items'])} items (the seed passes {len(seed['items'])})"
        for i, (a, b) in enumerate(zip(ours["items"], seed["items"])):
            why = _match_value(f"{name}[{i}]", a, b, rank)
            if why:
                return why
        return None
    if ours["kind"] in ("int", "float"):
        if sk not in ("int", "float"):
            return f"{name}: a number where the seed passes {sk}"
        if ours["kind"] == "int" and _is_option_int(name.split("[")[0]):
            if sk != "int" or _rank_dim(ours["value"], rank) != _rank_dim(seed.get("value"), rank):
                return f"{name}={ours['value']} (the seed uses {seed.get('value')})"
        return None
    if ours["kind"] != sk:
        return f"{name}: {ours['kind']} (the seed passes {sk})"
    if ours["kind"] in ("bool", "str", "dtype", "NoneType") and ours.get("value") != seed.get("value"):
        return f"{name}={ours.get('value')!r} (the seed uses {seed.get('value')!r})"
    return None


def _first_rank(d: dict) -> int | None:
    for v in d.values():
        if v["kind"] == "tensor":
            return v["rank"]
    return None


def _special(desc: dict) -> bool:
    if desc["kind"] == "tensor":
        return bool(desc.get("special"))
    if desc["kind"] == "float":
        return isinstance(desc["value"], float) and not math.isfinite(desc["value"])
    if desc["kind"] == "seq":
        return any(_special(i) for i in desc["items"])
    return False


def match_call(ours: dict, seed: dict) -> str | None:
    """None when every parameter of our call fits this seed call (same parameters passed)."""
    missing = sorted(set(seed) - set(ours) - set(_FREE))
    extra = sorted(set(ours) - set(seed) - set(_FREE))
    if extra:
        return f"passes {', '.join(extra)}, which the seed never passes in this pattern"
    if missing:
        return f"leaves out {', '.join(missing)}, which the seed passes in this pattern"
    rank = _first_rank(ours)
    for name in ours:
        if name not in seed:
            continue  # a free parameter only we pass
        why = _match_value(name, ours[name], seed[name], rank)
        if why:
            return why
    return None


class Contract:
    """One task's contract: the seed's call patterns bound to the reference's signature."""

    def __init__(self, task_id: str, entry: dict | None, reference):
        self.task_id = task_id
        self.entry = entry
        self.sig = inspect.signature(reference)
        self.patterns = []
        self.unbound = 0
        for call in (entry or {}).get("calls", []):  # abstract patterns (scripts/contract_sync.py)
            b = bind(self.sig, call.get("args", []), call.get("kwargs", {}))
            if b is None:
                self.unbound += 1
                continue
            if b not in self.patterns:
                self.patterns.append(b)

    def classify_calls(self, calls) -> tuple[str, str]:
        """The tier of a case whose task calls the entry through drive() (optimizers, verifying
        random ops): contract when every call drive() made fits a seed pattern. `calls`: the
        (args, kwargs) descriptors of each call, recorded while the reference ran (recorder())."""
        if not calls:
            return "extended", "drive() never called the entry"
        for i, (a, k) in enumerate(calls):
            tier, why = self._classify_described(a, k)
            if tier != "contract":
                return tier, (f"call {i + 1} of drive(): " if len(calls) > 1 else "") + why
        return "contract", ""

    def classify(self, args, kwargs) -> tuple[str, str]:
        """("contract" | "extended", why): the tier of one case."""
        return self._classify_described([describe(a) for a in args], {k: describe(v) for k, v in kwargs.items()})

    def _classify_described(self, dargs, dkwargs) -> tuple[str, str]:
        if not self.patterns:
            return "extended", "the task has no contract patterns"
        ours = bind(self.sig, dargs, dkwargs)
        if ours is None:
            return "extended", "does not bind to the reference's signature"
        special = sorted(n for n, d in ours.items() if _special(d))
        if special:
            return "extended", f"NaN/Inf in {', '.join(special)} (no seed test passes special values)"
        reasons = []
        for p in self.patterns:
            why = match_call(ours, p)
            if why is None:
                return "contract", ""
            reasons.append(why)
        # the reason of the closest pattern: fewest words about parameters
        return "extended", min(reasons, key=len)


def contracts_path(task_file: str) -> str:
    """tasks/contracts.json beside the task tree (tasks/<Category>/<stem>.py)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(task_file))), "contracts.json")


def load_contracts(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def for_task(task, task_id: str, contracts: dict) -> Contract:
    entry = (contracts.get("tasks") or {}).get(task_id)
    return Contract(task_id, entry, task.reference)


def recorder(fn, calls: list):
    """fn, recording the descriptors of every call's arguments (taken before the call) in `calls`."""
    def rec(*args, **kwargs):
        calls.append(([describe(a) for a in args], {k: describe(v) for k, v in kwargs.items()}))
        return fn(*args, **kwargs)
    return rec


def tier_of_case(con: "Contract", task, case, clone) -> tuple[str, str]:
    """The tier of one drawn case. A task with drive() is classified by the calls drive() makes to
    the entry, recorded while the reference runs on clones of the case's inputs."""
    if getattr(task, "drive", None) is None:
        return con.classify(case["args"], case["kwargs"])
    calls: list = []
    try:
        task.drive(recorder(task.reference, calls), clone(case["args"]), clone(case["kwargs"]))
    except Exception as e:  # noqa: BLE001 - the reference run proper reports its own failure
        return "extended", f"drive() failed while its calls were recorded: {type(e).__name__}"
    return con.classify_calls(calls)


# The seed's random inputs are standard normal draws, some with sparse outliers (p = 0.001, x10),
# often clamped or made positive by its tests. A floating input more than WIDE_FRACTION of whose
# finite values lie beyond WIDE_ABS is drawn wider than that: its case must say so (dist="wide":
# extended) or say that the seed draws such values too (dist="seed": log-probabilities, SPD matrices).
WIDE_ABS = 6.0
WIDE_FRACTION = 0.05


def wide_inputs(case) -> list[str]:
    """'name: share beyond |6|' for each floating input tensor of `case` drawn wider than the seed."""
    out = []

    def visit(label, v):
        if isinstance(v, torch.Tensor):
            if v.is_floating_point() and v.numel():
                x = v.detach().to(torch.float64)
                x = x[torch.isfinite(x)]
                if x.numel():
                    share = float((x.abs() > WIDE_ABS).to(torch.float64).mean())
                    if share > WIDE_FRACTION:
                        out.append(f"{label}: {share:.0%} beyond |{WIDE_ABS:g}|")
        elif isinstance(v, (list, tuple)):
            for i, e in enumerate(v):
                visit(f"{label}[{i}]", e)
        elif isinstance(v, dict):
            for k, e in v.items():
                visit(f"{label}.{k}", e)

    for i, a in enumerate(case["args"]):
        visit(f"args[{i}]", a)
    for k, a in case["kwargs"].items():
        visit(k, a)
    return out


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
# A task with fewer contract cases of its own than this per seed also gets the seed-call cases: a
# verdict resting on one or two cases would let wrong kernels through.
MIN_OWN_CONTRACT_CASES = 3


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


def assign_tiers(task, task_id: str, cases: list, seeds: list, device: str, contracts: dict, run_reference, clone):
    """Tiers of a task's drawn cases, and a note on where the contract came from. A task the
    contracts do not list (a user's own task), or whose seed calls were not recorded, has no seed
    contract: every case decides. A task none of whose own cases fits a seed pattern gets cases
    modelled on the seed's calls (appended to `cases`), and so does a task with fewer than
    MIN_OWN_CONTRACT_CASES contract cases per seed; if still nothing fits, every case decides."""
    if task_id not in (contracts.get("tasks") or {}):
        return [("contract", "") for _ in cases], "no seed contract for this task: every case decides"
    con = for_task(task, task_id, contracts)
    if not con.patterns:
        return [("contract", "") for _ in cases], "the seed's calls for this task were not recorded: every case decides"
    # Hand-written edge cases are drawn once, with values chosen to probe (tiny magnitudes, branch
    # points, ties): beyond the seed's standard and outlier draws, so extended whatever their pattern.
    # So is a random case its task marks dist="wide": values drawn over a wider range than the seed's
    # (scripts/contract_sync.py check finds unmarked ones: wide_inputs()).
    def own_tier(c):
        if c["name"].startswith("edge/"):
            return "extended", "a hand-written edge case (values beyond the seed's standard and outlier draws)"
        if c.get("dist") == "wide":
            return "extended", c.get("dist_why") or "values drawn over a wider range than the seed's standard and outlier draws"
        return tier_of_case(con, task, c, clone)
    tiers = [own_tier(c) for c in cases]
    added, dropped = 0, []
    if sum(t == "contract" for t, _ in tiers) < MIN_OWN_CONTRACT_CASES * max(1, len(seeds)):
        # (a drive() task whose drive() takes other arguments than the entry refuses these inputs:
        # the reference raises and the draw is dropped)
        extra, dropped = seed_call_cases(con, task, task_id, seeds, device, run_reference, clone, own_cases=list(cases))
        for c in extra:
            tier = tier_of_case(con, task, c, clone)
            if tier[0] == "contract":
                cases.append(c)
                tiers.append(tier)
                added += 1
    if not any(t == "contract" for t, _ in tiers):
        return [("contract", "") for _ in cases], "no case matches the seed's call patterns: every case decides"
    note = f"{len(con.patterns)} seed call patterns ({(con.entry or {}).get('seed_file', '')})"
    if added:
        note += f"; {added} cases modelled on the seed's calls"
    if dropped:
        note += f"; {len(dropped)} seed-call draws dropped ({dropped[0][1]})"
    return tiers, note
