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


def check_spec(tasks_dir, spec_path):
    from kbx_harness.common import load_task
    spec = {e["file"][:-3]: e for e in json.load(open(spec_path))}
    bad = 0
    n = 0
    for cat, stem, path in task_files(tasks_dir):
        n += 1
        tid = f"{cat}/{stem}"
        meta = load_task(path, tid).META
        e = spec.get(tid)
        if e is None:
            print(f"{tid}: not in the specification", file=sys.stderr)
            bad += 1
            continue
        # the spec's name is the torch API (torch.nn.functional.relu); its file stem is the entry
        if e["category"] != cat or e["name"].split(".")[-1] != stem:
            print(f"{tid}: spec says {e['category']} / {e['name']}", file=sys.stderr)
            bad += 1
        if meta["entry"] != stem:
            print(f"{tid}: entry {meta['entry']} is not the task stem {stem}", file=sys.stderr)
            bad += 1
        if meta.get("difficulty") != e.get("difficulty"):
            print(f"{tid}: difficulty {meta.get('difficulty')} differs from the spec's {e.get('difficulty')}", file=sys.stderr)
            bad += 1
        if meta.get("comparison") == "quantization":
            th = e.get("precision_thresholds", {})
            q = meta.get("quantization") or {}
            for k, v in th.items():
                if q.get(k) != v:
                    print(f"{tid}: threshold {k}={q.get(k)} differs from the spec's {v}", file=sys.stderr)
                    bad += 1
    print(f"{n} tasks checked against {spec_path}: {bad} problem(s)")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tasks-dir", default=os.path.join(ROOT, "tasks"))
    ap.add_argument("--check", action="store_true", help="fail when index.json is not up to date")
    ap.add_argument("--spec", help="the seed's task specification (kernelbenchx-tasks.json): check that every "
                    "task id, category and entry name matches it")
    a = ap.parse_args()
    if a.spec:
        return check_spec(a.tasks_dir, a.spec)
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
