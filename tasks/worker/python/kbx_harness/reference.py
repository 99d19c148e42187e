# SPDX-License-Identifier: MIT
"""Reference role: runs in a clean process that never sees candidate code. Draws every case's
inputs from the harness generator, computes the reference outputs (optionally in float64, the
task's oracle), and writes two files: the inputs the candidate gets, and the reference bundle the
C++ comparison reads (outputs plus the inputs' tensors, to detect mutation).

With {"serve": true} the process is a reference server (core/reference_cache.cpp): it answers one
task's request after another on stdin ({"type": "ready"} before each; "stop" or EOF ends it), so
that the CUDA context and the libraries' handles (cuBLAS, cuSOLVER, cuDNN) are made once per
server rather than once per task. Each task starts from the state a new process would have
(fresh random seeds for torch's default generators, default dtype, grad mode, backend flags): its files are the same."""
from __future__ import annotations

import json
import sys
import time

import torch

from . import contract as contract_tiers
from .common import (Phases, call_entry, call_tensor_names, call_tensors, case_output, clone_tree, draw_cases,
                     flatten_output, guarded, load_task, mutable_indices, send, to_cpu_copy, tree_map, versions)


def _upcast(x):
    return tree_map(lambda t: t.double() if t.is_floating_point() else t.clone(), x)


def _like(oracle, plain):
    """Casts the float64 oracle leaves back to the plain reference's dtypes."""
    if isinstance(plain, torch.Tensor) and isinstance(oracle, torch.Tensor):
        return oracle.to(plain.dtype)
    if isinstance(plain, (tuple, list)):
        return type(plain)(_like(o, p) for o, p in zip(oracle, plain))
    if isinstance(plain, dict):
        return {k: _like(oracle[k], plain[k]) for k in plain}
    return oracle


def _contract_note(req):
    return req.get("_contract_note", "")


def _tiers(task, req, cases):
    """("contract" | "extended", why) per case; may append cases (kbx_harness/contract.py)."""
    path = contract_tiers.contracts_path(req["task_file"])
    try:
        data = contract_tiers.load_contracts(path)
    except FileNotFoundError:
        data = {"tasks": {}}
    tiers, req["_contract_note"] = contract_tiers.assign_tiers(
        task, req["task_id"], cases, req["seeds"], req["device"], data,
        lambda a, k: call_entry(task, task.reference, a, k), clone_tree)
    return tiers


def run(req: dict) -> int:
    send({"type": "hello", "magic": "KBXW", "protocol": 1, "role": "reference", "versions": versions()})
    if req.get("serve"):
        return serve(req)
    return one_task(req)


def _open_device(req0: dict) -> dict:
    """A server's start, before its first request: the device's context and the BLAS handle made
    now, not inside the first task's phases. Returns where the time went (seconds): "launch" from
    kbx's launch of the server to the process's start (the fork, for a warm worker's child), "hello"
    from there to here (versions() initialises CUDA's driver), "device" the context and a small
    matmul."""
    t0 = time.time()
    start = req0.get("_t_main")
    launched = req0.get("launched_at")
    out = {"launch": round(start - launched, 4) if isinstance(start, (int, float)) and isinstance(launched, (int, float)) else None,
           "hello": round(t0 - start, 4) if isinstance(start, (int, float)) else None}
    if req0.get("device") == "cuda":
        a = torch.ones(8, 8, device="cuda")
        (a @ a).sum().item()
        torch.cuda.synchronize()
        del a
        out["device"] = round(time.time() - t0, 4)
    return out


def _global_state() -> dict:
    """What a task module or a reference call could change for the next task in this process."""
    st = {"dtype": torch.get_default_dtype(), "grad": torch.is_grad_enabled(),
          "matmul_precision": torch.get_float32_matmul_precision(),
          "deterministic": (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()),
          "cudnn": (torch.backends.cudnn.allow_tf32, torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)}
    m = torch.backends.cuda.matmul
    st["matmul"] = (m.allow_tf32, m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction)
    return st


def _restore_state(st: dict) -> None:
    torch.set_default_dtype(st["dtype"])
    torch.set_grad_enabled(st["grad"])
    torch.set_float32_matmul_precision(st["matmul_precision"])
    # Only where a task changed it: torch.use_deterministic_algorithms imports torch._inductor.config
    # (2 s on a 2-core CPU), which every server's first task paid while the first wave of candidates
    # waited for their references (issue 22: 4-5 s of each server's first request went unaccounted on
    # an H100, bench/results/2026-12-06-h100-first-wave). A task that changed the flag imported it.
    if (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()) != st["deterministic"]:
        torch.use_deterministic_algorithms(st["deterministic"][0], warn_only=st["deterministic"][1])
    c = torch.backends.cudnn
    c.allow_tf32, c.benchmark, c.deterministic = st["cudnn"]
    m = torch.backends.cuda.matmul
    m.allow_tf32, m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction = st["matmul"]
    torch.seed()  # every device's default generator from a fresh random seed, as in a new process


def serve(req0: dict) -> int:
    """Tasks one after another; a request that fails ends the server (kbx runs that task in a
    process of its own and starts another server for the tasks after it)."""
    start = _open_device(req0)
    state = _global_state()
    while True:
        send({"type": "ready"})
        line = sys.stdin.buffer.readline()
        if not line or line.strip() == b"stop":
            return 0
        _restore_state(state)
        # The server's own start is reported once, with its first task's phases (bench/, kbx's
        # stage line): what the first wave of candidates waited for beside the task's own work.
        one_task(json.loads(line), {"server_" + k: v for k, v in start.items() if v is not None})
        start = {}
        if req0.get("device") == "cuda":
            torch.cuda.synchronize()
            torch.cuda.empty_cache()  # the candidates beside us need the memory more


def one_task(req: dict, server_start: dict | None = None) -> int:
    device = req["device"]
    # Where the reference's time goes (issue 22: the correctness stage's phases made visible).
    phase = Phases(server_start)
    task = load_task(req["task_file"], req["task_id"])
    meta = task.META
    phase("load_task")
    cases = draw_cases(task, req["task_id"], req["seeds"], device)
    tiers = _tiers(task, req, cases)
    phase("draw_inputs")
    inputs, refs = [], []
    t0 = time.time()
    for i, c in enumerate(cases):
        args, kwargs = clone_tree(c["args"]), clone_tree(c["kwargs"])
        out = call_entry(task, task.reference, args, kwargs)
        plain = case_output(out, args, c["mutates"], kwargs)
        if meta.get("oracle") == "float64":
            a64, k64 = _upcast(c["args"]), _upcast(c["kwargs"])
            o64 = call_entry(task, task.reference, a64, k64)
            plain = _like(case_output(o64, a64, c["mutates"], k64), plain)
        if device == "cuda":
            torch.cuda.synchronize()
        structure, leaves, scalar = flatten_output(plain)
        # Every tensor the call receives (positional, then keyword by name, `out=` included), as the
        # candidate harness snapshots them after its call, and which of them the op may modify.
        in_tensors = to_cpu_copy(call_tensors(c["args"], c["kwargs"]))
        allowed = mutable_indices(c["args"], c["kwargs"], c["mutates"])
        inputs.append({"name": c["name"], "args": tuple(to_cpu_copy(c["args"])), "kwargs": to_cpu_copy(c["kwargs"]),
                       "mutates": list(c["mutates"])})
        refs.append({"name": c["name"], "structure": structure, "tensors": leaves, "scalar": scalar,
                     "inputs": in_tensors, "mutable": allowed,
                     "input_names": call_tensor_names(c["args"], c["kwargs"])})
        send({"type": "progress", "done": i + 1, "total": len(cases)})
    phase("reference_calls")
    # The whole set in one file pair only where asked (kbx reads the tier files below).
    if req.get("inputs_out"):
        torch.save({"version": 1, "task": req["task_id"], "device": device, "cases": inputs}, req["inputs_out"])
    if req.get("ref_out"):
        torch.save({"version": 2, "task": req["task_id"], "cases": refs}, req["ref_out"])
    # One inputs/reference pair per tier (paths chosen by kbx): the contract tier is judged in a
    # candidate process of its own, so nothing an extended case does (a crash, a hang, a sticky CUDA
    # error on a 0-d input) can touch the verdict of the benchmark's own cases.
    tier_files = {}
    for tier, paths in (req.get("tier_out") or {}).items():
        idx = [i for i, (t, _) in enumerate(tiers) if t == tier]
        if not idx:
            continue
        torch.save({"version": 1, "task": req["task_id"], "device": device, "cases": [inputs[i] for i in idx]},
                   paths["inputs_out"])
        torch.save({"version": 2, "task": req["task_id"], "cases": [refs[i] for i in idx]}, paths["ref_out"])
        tier_files[tier] = idx
    phase("save")
    send({"type": "result", "cases": len(cases), "seconds": time.time() - t0, "phases": phase.times,
          "case_names": [c["name"] for c in cases], "case_tiers": [t for t, _ in tiers],
          "case_tier_reasons": [w for _, w in tiers], "tier_cases": tier_files, "contract": _contract_note(req),
          # per case, its input tensors' dtypes (the CPU interpreter's gaps are matched on them)
          "case_dtypes": [sorted({str(t.dtype).replace("torch.", "") for t in call_tensors(c["args"], c["kwargs"])})
                          for c in cases]})
    return 0


def main(req: dict) -> int:
    return guarded(run, req, "reference failed")
