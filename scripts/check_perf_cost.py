#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks every task's perf_cost(params) against the tensors of its perf shapes: the declared bytes
must lie between 0.5x and 2x of (input bytes + output bytes), measured on the meta device (shapes
only, nothing allocated), unless META["perf_cost_note"] explains why not (sparse access such as a
gather, optimizer state outside the arguments); FLOPs must be a non-negative integer. Tasks without perf_cost are
listed (the first 32 tasks predate it). The compute dtype each shape's roofline is held against
(kbx_harness.perf.compute_dtype, from the actual perf inputs) must agree with the shape's params
dtype where it names one (int8 for quantization tasks); shapes without one are counted.
Exit 1 on any violation."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tasks", "worker", "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import torch  # noqa: E402

from gen_task_index import task_files  # noqa: E402
from kbx_harness.common import call_entry, load_task, tensors_in  # noqa: E402
from kbx_harness.inputs import InputGen  # noqa: E402
from kbx_harness.perf import compute_dtype  # noqa: E402


def nbytes(ts):
    return sum(t.numel() * t.element_size() for t in ts)


def main():
    bad, missing, checked, unsized, documented = [], [], 0, [], []
    by_inputs, dtypes = 0, {}
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
                cd = compute_dtype(mod.META, args, kwargs)
                dtypes[cd] = dtypes.get(cd, 0) + 1
                want = "int8" if mod.META.get("quantization") else params.get("dtype")
                want = {"complex64": "float32", "complex128": "float64"}.get(want, want)
                if want not in ("int8", "float16", "bfloat16", "float32", "float64"):  # integer ops: no peak of theirs
                    by_inputs += 1
                elif cd != want:
                    bad.append(f"{tid} {shape.get('name')}: roofline dtype {cd} from its inputs, params say {want}")
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
    print(f"roofline compute dtypes: {dict(sorted(dtypes.items()))}; {by_inputs} shapes without a params dtype "
          "(taken from their inputs)")
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
