# SPDX-License-Identifier: MIT
"""A task's contract as call patterns (kbx_harness.contract): each argument abstracted to a descriptor,
a call bound to the reference's signature (defaults dropped), and our call matched against the seed's
patterns parameter by parameter."""
from __future__ import annotations

import inspect
import math

import torch

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
