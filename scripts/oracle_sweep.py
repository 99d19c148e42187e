#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Does a task's own reference pass against its float64 oracle on every seed? (CPU, no kbx build.)

  scripts/oracle_sweep.py [--seeds 200] [--task Category/stem ...] [--max-seconds 60]

For every task whose META says `"oracle": "float64"` and `"comparison": "allclose"`, draws the random
cases of seeds 0..N-1 (the generator the harness uses for public and secret seeds alike), runs the
reference in the cases' own dtypes and in float64 (cast back, as the reference role does), and
applies the comparison's float rules: NaN/Inf positions, atol + rtol of the leaf's dtype, and the
low-signal guard (reference RMS < 10 atol: relative L2 <= max(10 rtol, 1e-3)). A failure means the
task would judge a kernel that computes exactly like PyTorch wrong on that seed: a case to mend
(better-conditioned inputs) or a tolerance to revisit. The C++ comparison (tasks/worker/compare.cpp)
is the judge; this is an emulation for sweeping many seeds quickly, so confirm a finding with
`kbx tasks --check` before blaming the task. CPU kernels round differently from CUDA ones: a clean
sweep here is evidence, not proof, for the GPU.
Prints one line per failing (task, case) with its rate and the worst example; exit 1 if any."""
import argparse
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tasks", "worker", "python"))

import torch  # noqa: E402

from kbx_harness.common import call_entry, case_output, clone_tree, load_task, tensors_in  # noqa: E402
from kbx_harness.inputs import InputGen, derive_seed  # noqa: E402
from kbx_harness.reference import _like, _upcast  # noqa: E402


def leaves(x):
    return [t for t in tensors_in(x) if t.is_floating_point() or t.is_complex()]


def judge(ref: torch.Tensor, cand: torch.Tensor, tol: dict):
    """None if cand passes against ref under the comparison's float rules, else a short reason."""
    if ref.shape != cand.shape:
        return f"shape {tuple(cand.shape)} vs {tuple(ref.shape)}"
    if ref.is_complex():
        r, x = torch.view_as_real(ref.to(torch.complex128)), torch.view_as_real(cand.to(torch.complex128))
    else:
        r, x = ref.double(), cand.double()
    dt = str((ref.real if ref.is_complex() else ref).dtype).replace("torch.", "")
    atol, rtol = tol.get(dt, tol.get("float32", [1e-5, 1e-5]))
    if not torch.equal(torch.isnan(r), torch.isnan(x)) or not torch.equal(r[torch.isinf(r)], x[torch.isinf(r)]):
        return "NaN/Inf positions differ"
    fin = torch.isfinite(r) & torch.isfinite(x)
    rf, xf = torch.where(fin, r, 0.0), torch.where(fin, x, 0.0)
    err = (xf - rf).abs()
    bad = int((err > atol + rtol * rf.abs()).sum())
    if bad:
        return f"{bad} of {r.numel()} outside atol={atol} rtol={rtol} (max abs err {float(err.max()):.3g})"
    n = int(fin.sum())
    if n:
        rms = math.sqrt(float(rf.pow(2).sum()) / n)
        if 0 < rms < 10 * atol:
            rel = math.sqrt(float((xf - rf).pow(2).sum())) / math.sqrt(float(rf.pow(2).sum()))
            if rel > max(10 * rtol, 1e-3):
                return f"low-signal guard: rel L2 {rel:.3g} at ref RMS {rms:.3g} (atol {atol})"
    return None


def sweep(path: str, tid: str, seeds: int, max_seconds: float):
    task = load_task(path, tid)
    meta = task.META
    fails, runs, t0 = {}, 0, time.time()
    for s in range(seeds):
        if time.time() - t0 > max_seconds:
            break
        runs += 1
        g = InputGen(derive_seed(tid, "random", s), "cpu")
        for c in task.random_cases(g):
            args, kwargs, mut = tuple(c["args"]), dict(c.get("kwargs", {})), list(c.get("mutates", []))
            a, k = clone_tree(args), clone_tree(kwargs)
            try:
                plain = case_output(call_entry(task, task.reference, a, k), a, mut)
                a64, k64 = _upcast(args), _upcast(kwargs)
                oracle = _like(case_output(call_entry(task, task.reference, a64, k64), a64, mut), plain)
            except Exception as e:  # noqa: BLE001 - a reference that cannot run on the CPU is not swept
                fails.setdefault(c["name"], []).append((s, f"reference raised {type(e).__name__}: {e}"[:120]))
                continue
            for i, (o, p) in enumerate(zip(leaves(oracle), leaves(plain))):
                why = judge(o, p, meta.get("tolerance", {}))
                if why:
                    fails.setdefault(c["name"], []).append((s, f"leaf {i}: {why}"))
                    break
    return runs, fails


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--task", action="append", default=[])
    ap.add_argument("--max-seconds", type=float, default=60.0, help="per task: fewer seeds when slower")
    a = ap.parse_args()
    torch.set_num_threads(1)
    tdir = os.path.join(ROOT, "tasks")
    any_fail = False
    for cat in sorted(os.listdir(tdir)):
        if not os.path.isdir(os.path.join(tdir, cat)) or cat == "worker":
            continue
        for f in sorted(os.listdir(os.path.join(tdir, cat))):
            if not f.endswith(".py"):
                continue
            tid = f"{cat}/{f[:-3]}"
            if a.task and tid not in a.task:
                continue
            path = os.path.join(tdir, cat, f)
            with open(path, encoding="utf-8") as fh:
                src = fh.read()
            if '"oracle": "float64"' not in src:
                continue
            task = load_task(path, tid)
            if task.META.get("oracle") != "float64" or task.META.get("comparison", "allclose") != "allclose":
                continue
            runs, fails = sweep(path, tid, a.seeds, a.max_seconds)
            for case, lst in sorted(fails.items()):
                any_fail = True
                print(f"{tid} {case}: {len(lst)} of {runs} seeds fail; seed {lst[0][0]}: {lst[0][1]}", flush=True)
            if not fails:
                print(f"{tid}: {runs} seeds ok", flush=True)
    return 1 if any_fail else 0


if __name__ == "__main__":
    sys.exit(main())
