# SPDX-License-Identifier: MIT
"""Shared harness helpers: task loading, case drawing, canonical output flattening, frames."""
from __future__ import annotations

import importlib.util
import os
import platform
import sys
import traceback
import types

import torch

from .inputs import InputGen, derive_seed

try:  # provided by kbx-worker's embedded module; absent when the harness is imported for tests
    import _kbxworker  # type: ignore
except ImportError:  # pragma: no cover
    _kbxworker = None


def send(msg: dict) -> None:
    """Sends one protocol frame through the worker (C++ frames it on fd 3)."""
    import json
    payload = json.dumps(msg, default=str)
    if _kbxworker is not None:
        _kbxworker.send(payload)
    else:  # pragma: no cover
        print("FRAME", payload, file=sys.stderr)


def versions() -> dict:
    v = {"python": platform.python_version(), "torch": torch.__version__,
         "cuda": torch.version.cuda or "", "harness": 1}
    try:
        import triton
        v["triton"] = triton.__version__
    except Exception as e:  # noqa: BLE001
        v["triton"] = f"unavailable: {type(e).__name__}"
    try:
        import numpy
        v["numpy"] = numpy.__version__
    except Exception:  # noqa: BLE001
        v["numpy"] = ""
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        v["device_name"] = p.name
        v["device_capability"] = f"{p.major}.{p.minor}"
    return v


def guarded(run, req: dict, what: str) -> int:
    """A role's main(): run(req), and whatever escapes it (a harness bug, never silent) becomes a
    harness_error frame with `what` and the traceback, exit code 67."""
    try:
        return run(req)
    except BaseException as e:  # noqa: BLE001
        send({"type": "error", "failure_class": "harness_error",
              "message": f"{what}: {type(e).__name__}: {e}", "traceback": traceback.format_exc()})
        return 67


def triton_cache_entries() -> int:
    """Kernels in this process's Triton cache (one directory per compiled specialisation): the
    difference over a span is the number of compilations in it (cache hits add nothing)."""
    d = os.environ.get("TRITON_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".triton", "cache")
    try:
        return sum(1 for e in os.scandir(d) if e.is_dir())
    except OSError:
        return 0


def load_task(path: str, task_id: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("kbx_task_" + task_id.replace("/", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def import_candidate(path: str) -> types.ModuleType:
    """Imports a candidate as the module kbx_candidate (__name__ is not "__main__", so demo blocks
    do not run). Exceptions, SystemExit included, reach the caller, which classifies them."""
    spec = importlib.util.spec_from_file_location("kbx_candidate", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["kbx_candidate"] = mod
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def draw_cases(task, task_id: str, seeds: list[dict], device: str) -> list[dict]:
    """Edge cases once, random cases for every seed; names carry the seed label, never its value."""
    cases = []
    g = InputGen(derive_seed(task_id, "edge", 0), device)
    for c in task.edge_cases(g):
        cases.append(dict(c, name="edge/" + c["name"]))
    for s in seeds:
        g = InputGen(derive_seed(task_id, "random", s["seed"]), device)
        for c in task.random_cases(g):
            cases.append(dict(c, name=f"{s['label']}/{c['name']}"))
    for c in cases:
        c.setdefault("kwargs", {})
        c.setdefault("mutates", [])
        c["args"] = tuple(c["args"])
    return cases


def call_entry(task, fn, args, kwargs):
    drive = getattr(task, "drive", None)
    if drive is not None:
        return drive(fn, args, kwargs)
    return fn(*args, **kwargs)


def tree_map(fn, x):
    """Applies fn to every tensor of a nested tuple/list/dict structure; other leaves stay."""
    if isinstance(x, torch.Tensor):
        return fn(x)
    if isinstance(x, tuple):
        return tuple(tree_map(fn, v) for v in x)
    if isinstance(x, list):
        return [tree_map(fn, v) for v in x]
    if isinstance(x, dict):
        return {k: tree_map(fn, v) for k, v in x.items()}
    return x


def clone_tree(x):
    return tree_map(lambda t: t.clone(), x)


def to_device(x, device):
    return tree_map(lambda t: t.to(device), x)


def to_cpu_copy(x):
    """Detached, contiguous CPU copies: what is saved for the other processes."""
    return tree_map(lambda t: t.detach().to("cpu").contiguous().clone(), x)


def tensors_in(x) -> list:
    """All tensors of a nested structure, in a fixed order."""
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in tensors_in(v)]
    if isinstance(x, dict):
        return [t for k in sorted(x, key=str) for t in tensors_in(x[k])]
    return []


def flatten_output(x):
    """Canonical form for the C++ comparison: (structure string, leaves, scalar flags).
    Tensors become 'T' leaves, Python numbers 'S' leaves (0-d tensors), None 'N'."""
    leaves, scalar = [], []

    def rec(v):
        if isinstance(v, torch.Tensor):
            leaves.append(v.detach().to("cpu").contiguous().clone())
            scalar.append(False)
            return "T"
        if isinstance(v, bool):
            leaves.append(torch.tensor(v))
            scalar.append(True)
            return "S"
        if isinstance(v, int):
            leaves.append(torch.tensor(v, dtype=torch.int64))
            scalar.append(True)
            return "S"
        if isinstance(v, float):
            leaves.append(torch.tensor(v, dtype=torch.float64))
            scalar.append(True)
            return "S"
        if v is None:
            return "N"
        if isinstance(v, (tuple, list)):
            return "(" + ",".join(rec(e) for e in v) + ")"
        if isinstance(v, dict):
            return "{" + ",".join(f"{k}:{rec(v[k])}" for k in sorted(v, key=str)) + "}"
        if isinstance(v, torch.Size):
            return rec(tuple(v))
        return "?" + type(v).__name__

    structure = rec(x)
    return structure, leaves, scalar


def case_output(ret, args, mutates):
    """What is compared for one case: the return value plus the arguments the op may modify."""
    return {"ret": ret, "mutated": [args[i] for i in mutates]}
