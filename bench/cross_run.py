#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run-to-run precision across result databases made by separate runs (e.g. on different machines
or device calls): for every (task, method, shape) timed in all of them, the coefficient of variation
of the per-shape candidate medians; and every self-check reference's self-speedup per run.

  bench/cross_run.py RUN1.sqlite RUN2.sqlite [...] [--method known-good]
  bench/cross_run.py --group A1.sqlite A2.sqlite A3.sqlite --group B1.sqlite B2.sqlite B3.sqlite [...]

With --group, each group is the runs of one task set (e.g. a third of the fixture set, timed in
other device calls than the next): shapes and self-speedups are pooled over the groups, and each
group's own figures follow.

Prints Markdown. Shapes >= 50 us and below are reported apart (the precision targets: <= 0.5 % and
<= 2 %); the self-speedup target is [0.98, 1.02]."""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import kbxdb  # noqa: E402


def load(path):
    t, sp = {}, {}
    for e in kbxdb.evaluations(path):
        for row in e["timings"]:
            if row["candidate_ms"] is not None:
                t[(e["task"], e["method"], row["shape"])] = row["candidate_ms"]
        g = ((e["evidence"] or {}).get("perf") or {}).get("geomean_speedup") if e["method"] == "reference" else None
        if g:
            sp[e["task"]] = g["estimate"]
    return t, sp


def report(groups, methods):
    """Markdown lines: CVs per method and the self-speedups, pooled over the groups (each a list of
    runs of one task set, as loaded)."""
    out = []
    for meth in methods:
        big, small = [], []
        for runs in groups:
            keys = set.intersection(*[{k for k in r[0] if k[1] == meth} for r in runs])
            for k in keys:
                xs = [r[0][k] for r in runs]
                cv = statistics.pstdev(xs) / statistics.mean(xs)
                (big if statistics.median(xs) >= 0.05 else small).append(cv)
        out.append(f"## {meth}: CV of per-shape candidate medians")
        out.append("")
        for name, v in (("shapes >= 50 us", big), ("shapes < 50 us", small)):
            if v:
                v.sort()
                out.append(f"- {name}: {len(v)}, median CV {100 * statistics.median(v):.2f}%, "
                           f"90th percentile {100 * v[int(0.9 * (len(v) - 1))]:.2f}%, worst {100 * v[-1]:.2f}%")
            else:
                out.append(f"- {name}: none")
        out.append("")
    vals = []
    for runs in groups:
        common = set.intersection(*[set(r[1]) for r in runs])
        vals += [(t, [r[1][t] for r in runs]) for t in sorted(common)]
    inside = sum(1 for _, v in vals for x in v if 0.98 <= x <= 1.02)
    every = sum(1 for _, v in vals if all(0.98 <= x <= 1.02 for x in v))
    n = sum(len(v) for _, v in vals)
    out += ["## Reference against itself", "",
            f"- tasks self-checked in every run of their group: {len(vals)}; self-speedups within [0.98, 1.02]: "
            f"{inside} of {n}; tasks within in every run: {every} of {len(vals)}", ""]
    bad = [(t, v) for t, v in vals if not all(0.98 <= x <= 1.02 for x in v)]
    if bad:
        out += ["| task | self-speedups |", "|---|---|"] + [f"| {t} | {', '.join(f'{x:.3f}' for x in v)} |" for t, v in bad]
        out.append("")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dbs", nargs="*")
    ap.add_argument("--group", nargs="+", action="append", default=[], metavar="DB",
                    help="the runs of one task set; repeat for the others (pooled)")
    ap.add_argument("--method", action="append", help="methods to report (default: known-good and reference)")
    a = ap.parse_args()
    groups = ([a.dbs] if a.dbs else []) + a.group
    if not groups or any(len(g) < 2 for g in groups):
        ap.error("needs at least two databases (in every --group)")
    methods = a.method or ["known-good", "reference"]
    loaded = [[load(p) for p in g] for g in groups]
    if len(groups) == 1:
        out = [f"# Run-to-run precision over {len(groups[0])} runs", "",
               "Databases: " + ", ".join(f"`{p}`" for p in groups[0]), ""] + report(loaded, methods)
    else:
        out = [f"# Run-to-run precision, pooled over {len(groups)} task sets", ""]
        out += [f"- set {i + 1}: " + ", ".join(f"`{p}`" for p in g) for i, g in enumerate(groups)] + [""]
        out += report(loaded, methods)
        for i, runs in enumerate(loaded):
            out += [f"# Set {i + 1} alone ({len(runs)} runs)", ""] + [
                ("#" + line if line.startswith("## ") else line) for line in report([runs], methods)]
    print("\n".join(out).rstrip())


if __name__ == "__main__":
    main()
