#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tasks/queue_prior.json from a `kbx tasks --check --device cuda` database: per task, the longest
whole evaluation (stage_seconds.evaluation) of its own reference and known-good solution. The
correctness queue (core/scheduler.cpp) orders a task its database has not seen by this.

  scripts/queue_prior.py SELFCHECK.sqlite[.xz] OUT.json --measured "NVIDIA H200, ..."
"""
import argparse
import json
import lzma
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kbxdb  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("out")
    ap.add_argument("--measured", required=True, help="where and when (device, versions, date, results folder)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = a.db
        if path.endswith(".xz"):
            path = os.path.join(tmp, "db.sqlite")
            with lzma.open(a.db) as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
        seconds = {}
        for e in kbxdb.evaluations(path):
            w = (e["stage_seconds"] or {}).get("evaluation")
            if isinstance(w, (int, float)):
                seconds[e["task"]] = round(max(seconds.get(e["task"], 0.0), float(w)), 1)
    if not seconds:
        raise SystemExit(f"{a.db}: no evaluation wall times (stage_seconds.evaluation)")
    doc = {"about": "Per task, the longest evaluation (seconds) of its own reference and known-good solution in "
                    "`kbx tasks --check`: the correctness queue's order for tasks a database has not seen yet "
                    "(core/scheduler.cpp). Made by scripts/queue_prior.py.",
           "measured": a.measured,
           "seconds": dict(sorted(seconds.items()))}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{a.out}: {len(seconds)} tasks")


if __name__ == "__main__":
    main()
