#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report tables and figures on large databases, side by side with the demo (issue 24: every table
and figure on 1M evaluations in seconds).

  bench/report_scale.py [--kbx build/bin/kbx] [--workbench build/bin/kbx-workbench] [--sizes 20000,200000,1000000]
                        [--grow samples|rounds] [--tables method-summary,...] [--figures correctness_heatmap|all]
                        [--repeat 3] [--out DIR] [--anchor OLD_KBX [--anchor-workbench OLD_WB] [--anchor-tables T,...|all]
                        [--anchor-max N]]

Builds, for every size N, a copy of resources/demo/demo.sqlite grown to about N evaluations by the
kbx module's grow_copy (core/store_grow.h; the demo itself is never written), then times
`kbx report --table T --no-quality` (and `kbx report`, the per-category summary) on the demo and on
each copy, each warm (after one untimed run; the median of --repeat runs). Two shapes of growth:

  samples (default): what a large study looks like, 176 tasks x methods x rounds x samples x GPUs.
      Copy k of the demo is (GPU g, round r, sample s) of 5 GPU models x 4 rounds x S samples: its
      runs are the demo's runs named as GPU g (CPU runs stay CPU runs: the copies of other GPUs'
      (s, r) re-evaluate those submissions on the CPU, so only the latest counts), its submissions
      are round r of sample s (new candidates per sample: the code hash gets ":s"), its evaluations
      and timings the demo's (a base round b becomes rounds 4b..4b+3: the demo's rounds are all 0).
      1M evaluations: 5 GPUs, 4 rounds, 144 samples.
  rounds: the demo repeated as further rounds (round + 1000 k; 2,866 rounds at 1M), the growth of
      the 2026-12-02-scale-1m bench: every per-round analysis has thousands of groups and every
      figure thousands of "method · round" series.

The first command on a grown copy (untimed otherwise) is timed on its own: the writable open that
creates the report indexes and derived tables (core/store_derived.h) of a database no kbx opened before.
With --workbench, also the Charts tab's data cold (kbx-workbench --export-figure to .csv: a fresh
process opens the database and computes the figure's datasets, as the tab does on its first load)
and figure exports (.png, offscreen) of --figures. With --anchor, another kbx (e.g. the previous
commit's; --anchor-workbench: its kbx-workbench) is timed beside it in the same run on the
--anchor-tables of databases up to --anchor-max evaluations, runs interleaved, and the ratio (this /
anchor) printed. Prints a Markdown table with the machine and the date. The grown databases are
kept in --out (default /tmp/kbx-report-scale) for reuse."""
import argparse
import os
import json
import platform
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import kbxdb  # noqa: E402  (the kbx Python module: build the target kbx_python)
DEMO = os.path.join(ROOT, "resources", "demo", "demo.sqlite")
GPUS = ["NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA L40S", "NVIDIA GeForce RTX 4090"]
ROUNDS = 4


def grow(path, n, how):
    """A copy of the demo grown to about n evaluations (the kbx module's grow_copy, core/store_grow.h:
    `how` is its shape, samples or rounds; the derived report tables are left to the copy's first
    writable open, as for any database grown by another tool). Returns (evaluations, timings)."""
    out = kbxdb.module().grow_copy(DEMO, path, n, shape=how, gpus=GPUS, rounds=ROUNDS)
    return out["evaluations"], out["timings"]


TIMEOUT = 240


def run_once(cmd, env=None):
    """Wall seconds of one run and its exit status ('timeout' after TIMEOUT s)."""
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return float(TIMEOUT), "timeout"
    return time.perf_counter() - t0, r.returncode


def timed(cmd, repeat=1, env=None):
    """Median wall time of `repeat` runs after one untimed run (warm page cache), and the last exit
    status ('timeout' after TIMEOUT s: then the time is TIMEOUT and nothing is repeated)."""
    return timed_pair(cmd, None, repeat, env)[0]


def timed_pair(cmd, anchor_cmd, repeat=1, env=None):
    """timed() of `cmd` and, when given, of `anchor_cmd` with their runs interleaved (one untimed
    run of each, then new, anchor, anchor, new, ...), so that a machine that slows down or speeds up
    during the measurement moves both alike and neither always runs first. Returns ((s, rc), (s0, rc0) or None)."""
    cmds = [c for c in (cmd, anchor_cmd) if c]
    times = [[] for _ in cmds]
    last = [None for _ in cmds]
    done = [False for _ in cmds]
    for k, c in enumerate(cmds):
        s, last[k] = run_once(c, env)
        if last[k] == "timeout":
            times[k], done[k] = [s], True
    for i in range(max(1, repeat)):
        order = list(enumerate(cmds))
        for k, c in (order if i % 2 == 0 else order[::-1]):  # ABBA: neither goes first every time
            if done[k]:
                continue
            s, last[k] = run_once(c, env)
            times[k].append(s)
            done[k] = last[k] == "timeout"
    out = [(statistics.median(t) if last[k] != "timeout" else t[-1], last[k]) for k, t in enumerate(times)]
    return out[0], (out[1] if anchor_cmd else None)


ALL_TABLES = ("method-summary,category-method,deviance,rounds,rescued,cross-hardware,slow-fraction,taxonomy,"
              "utilisation,protocol")
ALL_FIGURES = ("correctness_heatmap,compile_vs_correct,speedup_box,speedup_ecdf,fast_p,taxonomy_by_category,taxonomy_by_method,"
               "round_trajectories,method-summary,deviance,rescued,cross-hardware,slow-fraction")


def machine():
    """One line: cores, RAM, OS, load average, commit."""
    try:
        with open("/proc/meminfo") as f:
            ram = int(f.readline().split()[1]) / 2 ** 20
    except OSError:
        ram = 0
    osname = platform.platform()
    try:
        with open("/etc/os-release") as f:
            osname = dict(l.rstrip().split("=", 1) for l in f if "=" in l).get("PRETTY_NAME", osname).strip('"')
    except OSError:
        pass
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return (f"{platform.node()}, {os.cpu_count()} cores, {ram:.0f} GiB RAM, {osname}, commit {commit or '?'}, "
            f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def cell(s, rc):
    return (f"> {s:.0f} s" if rc == "timeout" else f"{s:.2f} s") + ("" if rc in (0, "timeout") else f" (rc {rc})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kbx", default=os.path.join(ROOT, "build", "bin", "kbx"))
    ap.add_argument("--workbench", default="", help="kbx-workbench: also time the Charts tab's data cold (--export-figure "
                    "to .csv: open, count, the figure's datasets) and figure exports (.png, offscreen)")
    ap.add_argument("--figures", default="correctness_heatmap", help="figures to export as .png (comma-separated, or all); "
                    "the first is also exported as .csv (the Charts data cold)")
    ap.add_argument("--sizes", default="20000,200000")
    ap.add_argument("--grow", choices=("samples", "rounds"), default="samples")
    ap.add_argument("--tables", default=ALL_TABLES)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per cell (median), after one untimed run")
    ap.add_argument("--out", default="/tmp/kbx-report-scale")
    ap.add_argument("--read-only", action="store_true", help="time with --read-only (no index or derived table is created then)")
    ap.add_argument("--anchor", default="")
    ap.add_argument("--anchor-workbench", default="")
    ap.add_argument("--anchor-tables", default="method-summary", help="comma-separated, or all (every table; with "
                    "--anchor-workbench also the first of --figures, as .csv and .png)")
    ap.add_argument("--anchor-max", type=int, default=20000)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dbs = [("demo", DEMO, None)]
    for n in [int(x) for x in a.sizes.split(",") if x]:
        p = os.path.join(a.out, f"grown-{a.grow}-{n}.sqlite")
        counts = p + ".json"  # what grow() made, beside it: a kept copy is reused without counting it again
        if os.path.exists(p) and os.path.exists(counts):
            with open(counts) as f:
                grown = tuple(json.load(f))
        else:
            t0 = time.perf_counter()
            grown = grow(p, n, a.grow)
            with open(counts, "w") as f:
                json.dump(grown, f)
            print(f"grew {p}: {grown[0]} evaluations, {grown[1]} timings in {time.perf_counter() - t0:.0f} s", flush=True)
        dbs.append((f"{grown[0]} evaluations, {grown[1]} timings", p, n))
    tables = [t for t in a.tables.split(",") if t]
    figures = [f for f in (ALL_FIGURES if a.figures == "all" else a.figures).split(",") if f]
    anchor_all = a.anchor_tables == "all"
    lines = [f"# kbx report and figures on grown databases ({time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, growth: {a.grow}"
             f"{', --read-only' if a.read_only else ''})",
             "", f"Machine: {machine()} (at the start).", f"Each cell: median of {a.repeat} runs after an untimed one"
             f"{'; anchor: ' + a.anchor if a.anchor else ''}.", "",
             "| what | " + " | ".join(name for name, _, _ in dbs) + " |", "|---|" + "---|" * len(dbs)]
    paths, first = {}, []
    for name, path, n in dbs:
        if path == DEMO:  # the committed demo is never written: a copy
            cp = os.path.join(a.out, "demo-copy.sqlite")
            shutil.copy(DEMO, cp)
            path = cp
        paths[name] = path
        # The first command on the file: a writable open creates what a database grown by another tool
        # lacks (report indexes, derived tables); timed apart, never counted in the cells below.
        s, rc = run_once([a.kbx, "report", "--db", path] + (["--read-only"] if a.read_only else []))
        first.append(cell(s, rc))
    lines.append("| first open (creates the report indexes and derived tables) | " + " | ".join(first) + " |")
    rows = [("(summary)", None)] + [(t, "table") for t in tables]
    if a.workbench:
        rows += [(f"Charts data cold ({figures[0]} .csv)", ("csv", figures[0]))]
        rows += [(f"figure export ({f} .png)", ("png", f)) for f in figures]
    for t, kind in rows:
        cells = []
        for name, _, n in dbs:
            path = paths[name]
            env, anchor_cmd = None, None
            if isinstance(kind, tuple):
                out = os.path.join(a.out, f"figure.{kind[0]}")
                cmd = [a.workbench, "--export-figure", kind[1], "--db", path, "--out", out]
                env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
                if a.anchor_workbench and (anchor_all or kind[1] in a.anchor_tables.split(",")) and kind[1] == figures[0]:
                    anchor_cmd = [a.anchor_workbench] + cmd[1:]  # the first figure only: the old one takes minutes
            else:
                args = ["report", "--db", path] + (["--read-only"] if a.read_only else [])
                args += ([] if t == "(summary)" else ["--table", t, "--no-quality"])
                cmd = [a.kbx] + args
                if a.anchor and (anchor_all or t in a.anchor_tables.split(",")):
                    anchor_cmd = [a.anchor] + args
            if anchor_cmd and (n is None or n <= a.anchor_max):
                # The anchor on its own copy: what it finds there (its indexes) never helps the other.
                cp = path + ".anchor.sqlite"
                if not os.path.exists(cp):
                    shutil.copy(path, cp)
                (s, rc), (s0, rc0) = timed_pair(cmd, [x if x != path else cp for x in anchor_cmd], a.repeat, env)
                c = cell(s, rc) + f" (anchor {cell(s0, rc0)}; ratio {s / max(s0, 1e-9):.2f})"
            else:
                s, rc = timed(cmd, a.repeat, env)
                c = cell(s, rc)
            cells.append(c)
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    lines += ["", f"Load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}."]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
