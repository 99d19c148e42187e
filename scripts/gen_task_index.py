#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds tasks/index.json from every task's META (docs/TASK_FORMAT.md), so the C++ core can read
task metadata without running Python. `--check` exits 1 when the committed index is stale."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tasks", "worker", "python"))

REQUIRED = ("id", "category", "stem", "entry", "signature", "difficulty", "tolerance", "perf_shapes")


def task_files(tasks_dir):
    for cat in sorted(os.listdir(tasks_dir)):
        d = os.path.join(tasks_dir, cat)
        if not os.path.isdir(d) or cat in ("worker", "__pycache__"):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".py"):
                yield cat, f[:-3], os.path.join(d, f)


def build(tasks_dir):
    from kbx_harness.common import draw_cases, load_task
    entries = []
    for cat, stem, path in task_files(tasks_dir):
        tid = f"{cat}/{stem}"
        mod = load_task(path, tid)
        meta = dict(mod.META)
        missing = [k for k in REQUIRED if k not in meta]
        if missing:
            raise SystemExit(f"{path}: META lacks {', '.join(missing)}")
        if meta["id"] != tid or meta["category"] != cat or meta["stem"] != stem:
            raise SystemExit(f"{path}: META id/category/stem do not match the file's place ({tid})")
        for fn in ("reference", "edge_cases", "random_cases"):
            if not callable(getattr(mod, fn, None)):
                raise SystemExit(f"{path}: no {fn}()")
        cases = draw_cases(mod, tid, [{"label": "seed0", "seed": 0}], "cpu")
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        meta.update({"file": f"{cat}/{stem}.py", "source_sha256": digest, "case_count": len(cases)})
        entries.append(json.loads(json.dumps(meta, default=str)))
    return {"version": 1, "generator": "scripts/gen_task_index.py", "tasks": entries}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tasks-dir", default=os.path.join(ROOT, "tasks"))
    ap.add_argument("--check", action="store_true", help="fail when index.json is not up to date")
    a = ap.parse_args()
    text = json.dumps(build(a.tasks_dir), indent=1, sort_keys=True) + "\n"
    out = os.path.join(a.tasks_dir, "index.json")
    if a.check:
        old = open(out).read() if os.path.exists(out) else ""
        if old != text:
            print(f"{out} is stale: run scripts/gen_task_index.py", file=sys.stderr)
            return 1
        print(f"{out}: up to date")
        return 0
    with open(out, "w") as fh:
        fh.write(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
