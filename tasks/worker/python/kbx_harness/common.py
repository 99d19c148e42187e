# SPDX-License-Identifier: MIT
"""Shared harness helpers: task loading, case drawing, canonical output flattening, frames."""
from __future__ import annotations

import importlib.util
import os
import platform
import struct
import sys
import time
import traceback
import types

import torch

from .inputs import InputGen, derive_seed

try:  # provided by kbx-worker's embedded module; absent when the harness is imported for tests
    import _kbxworker  # type: ignore
except ImportError:  # pragma: no cover
    _kbxworker = None


class Phases:
    """Wall seconds per phase of a worker process (reported with its result, for bench/: where a
    stage's time goes): phases("name") closes the phase running since the last call under that name
    (repeated names add up); .times is the dict sent."""

    def __init__(self, times: dict | None = None):
        self.times = dict(times or {})
        self._t = time.perf_counter()

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.times[name] = round(self.times.get(name, 0.0) + now - self._t, 4)
        self._t = now


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


def case_output(ret, args, mutates, kwargs=None):
    """What is compared for one case: the return value plus the arguments the op may modify, and
    the final value of an `out=` keyword tensor (always written: it must hold what the reference's
    `out` holds after the call, while the returned value is compared on its own, as torch returns
    `out`)."""
    res = {"ret": ret, "mutated": [args[i] for i in mutates]}
    if kwargs and "out" in kwargs and tensors_in(kwargs["out"]):
        res["out"] = kwargs["out"]
    return res


def call_tensors(args, kwargs) -> list:
    """Every tensor a call receives, in the order the reference records and the candidate harness
    snapshots after the call: the positional arguments', then the keyword arguments' sorted by name."""
    return tensors_in(tuple(args)) + tensors_in(dict(kwargs or {}))


def call_tensor_names(args, kwargs) -> list:
    """A name per call_tensors entry, for evidence: "args[1]", "args[0][2]", "weight", "out"."""
    names = []
    for ai, a in enumerate(args):
        n = len(tensors_in(a))
        names += [f"args[{ai}]"] if isinstance(a, torch.Tensor) else [f"args[{ai}][{j}]" for j in range(n)]
    for k in sorted(kwargs or {}, key=str):
        v = kwargs[k]
        n = len(tensors_in(v))
        names += [str(k)] if isinstance(v, torch.Tensor) else [f"{k}[{j}]" for j in range(n)]
    return names


def mutable_indices(args, kwargs, mutates) -> list:
    """Flat indices (into call_tensors) of the tensors the op may modify: those inside the positional
    arguments listed in `mutates`, and an `out=` keyword's (compared through case_output instead)."""
    allowed, pos = [], 0
    for ai, a in enumerate(args):
        n = len(tensors_in(a))
        if ai in mutates:
            allowed.extend(range(pos, pos + n))
        pos += n
    for k in sorted(kwargs or {}, key=str):
        n = len(tensors_in(kwargs[k]))
        if k == "out":
            allowed.extend(range(pos, pos + n))
        pos += n
    return allowed


# The candidate's outputs file (read by kbx-worker compare, tasks/worker/compare.cpp): a small
# length-prefixed binary format of our own instead of a pickle, so the trusted side parses untrusted
# bytes with bounds it chooses (no unpickler, no zip, no nesting). Little-endian throughout:
#   file   = b"KBXOUT1\n" | u32 ncases | case * ncases
#   case   = u8 kind (0 ran, 1 error) | u64 payload length | payload
#   ran    = str32 structure | u32 nleaves | tensor * nleaves | u32 nafter | tensor * nafter
#   error  = str32 failure class | str32 message
#   tensor = u8 scalar | u8 len + dtype name (torch's, without "torch.") | u8 ndim | i64 * ndim
#            | u64 nbytes | raw contiguous bytes
OUTPUTS_MAGIC = b"KBXOUT1\n"


def _str32(s: str) -> bytes:
    b = s.encode("utf-8", errors="replace")
    return struct.pack("<I", len(b)) + b


def encode_tensor(t, scalar: bool = False) -> bytes:
    t = t.detach().to("cpu")
    # A fresh dense copy: .contiguous() keeps a size-1 dimension's odd stride (an H200 run found
    # "self.stride(-1) must be 1 to view Float as Byte" on a 1x1 output), and view() needs stride 1.
    flat = torch.empty(t.numel(), dtype=t.dtype)
    flat.copy_(t.reshape(-1))
    name = str(t.dtype).replace("torch.", "").encode()
    data = flat.view(torch.uint8).numpy().tobytes() if t.numel() else b""
    return (struct.pack("<BB", 1 if scalar else 0, len(name)) + name + struct.pack("<B", t.dim())
            + struct.pack(f"<{t.dim()}q", *t.shape) + struct.pack("<Q", len(data)) + data)


def encode_case(structure: str, leaves, scalar, after) -> bytes:
    """One case that ran: its flattened output (flatten_output) and the post-call snapshots."""
    body = [_str32(structure), struct.pack("<I", len(leaves))]
    body += [encode_tensor(t, s) for t, s in zip(leaves, scalar)]
    body.append(struct.pack("<I", len(after)))
    body += [encode_tensor(t) for t in after]
    payload = b"".join(body)
    return struct.pack("<BQ", 0, len(payload)) + payload


def encode_error(failure_class: str, message: str) -> bytes:
    payload = _str32(failure_class) + _str32(message)
    return struct.pack("<BQ", 1, len(payload)) + payload


def write_outputs(path: str, cases: list) -> None:
    """cases: encode_case / encode_error results, in case order."""
    with open(path, "wb") as f:
        f.write(OUTPUTS_MAGIC + struct.pack("<I", len(cases)))
        for c in cases:
            f.write(c)
