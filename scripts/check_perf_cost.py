#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks every task's perf_cost(params) against the tensors of its perf shapes: the declared bytes
must lie between 0.5x and 2x of (input bytes + output bytes), measured on the meta device (shapes
only, nothing allocated), unless META["perf_cost_note"] explains why not (sparse access such as a
gather, optimizer state outside the arguments); FLOPs must be a non-negative integer. Tasks without perf_cost are
listed (the first 32 tasks predate it). Exit 1 on any violation."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tasks", "worker", "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import torch  # noqa: E402

from gen_task_index import task_files  # noqa: E402
from kbx_harness.common import call_entry, load_task, tensors_in  # noqa: E402
from kbx_harness.inputs import InputGen  # noqa: E402


def nbytes(ts):
    return sum(t.numel() * t.element_size() for t in ts)


def main():
    bad, missing, checked, unsized, documented = [], [], 0, [], []
    for cat, stem, path in task_files(os.path.join(ROOT, "tasks")):
        tid = f"{cat}/{stem}"
        mod = load_task(path, tid)
        if not callable(getattr(mod, "perf_cost", None)):
            missing.append(tid)
            continue
        for shape in mod.META.get("perf_shapes", []):
            params = shape.get("params", {})
            cost = mod.perf_cost(params)
            if not (isinstance(cost.get("bytes"), int) and isinstance(cost.get("flops"), int)
                    and cost["bytes"] > 0 and cost["flops"] >= 0):
                bad.append(f"{tid} {shape.get('name')}: perf_cost must give positive int bytes and int flops, got {cost}")
                continue
            try:
                args, kwargs = mod.perf_inputs(InputGen(0, "meta"), params)
                out = call_entry(mod, mod.reference, args, kwargs)
                moved = nbytes(tensors_in(args)) + nbytes(tensors_in(out))
            except Exception as e:  # noqa: BLE001 - ops without meta kernels (data-dependent shapes, linalg)
                unsized.append(f"{tid} {shape.get('name')} ({type(e).__name__})")
                continue
            checked += 1
            if not (0.5 * moved <= cost["bytes"] <= 2.0 * moved):
                msg = f"{tid} {shape.get('name')}: declares {cost['bytes']} bytes, tensors move {moved}"
                if mod.META.get("perf_cost_note"):  # e.g. sparse access (gather), optimizer state
                    documented.append(msg + f" -- {mod.META['perf_cost_note']}")
                else:
                    bad.append(msg + " (outside 0.5x-2x and no perf_cost_note in META)")
    print(f"perf_cost: {checked} perf shapes checked against tensor sizes; {len(unsized)} not sizable on the meta device; "
          f"{len(missing)} tasks without perf_cost")
    for d in documented:
        print("  documented deviation:", d)
    for u in unsized:
        print("  not sizable:", u)
    for m in missing:
        print("  no perf_cost:", m)
    for b in bad:
        print("VIOLATION:", b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
