#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report tables on large databases, side by side with the demo (issue 24: reports must not grow
quadratically with the evaluations).

  bench/report_scale.py [--kbx build/bin/kbx] [--workbench build/bin/kbx-workbench] [--sizes 20000,200000,1000000]
                        [--tables method-summary,...] [--repeat 3] [--out DIR]
                        [--anchor OLD_KBX [--anchor-tables method-summary] [--anchor-max N]]

Builds, for every size N, a copy of resources/demo/demo.sqlite grown to about N evaluations by
repeating its submissions as further rounds (round + 1000 k) with their evaluations and timings
(case results are not copied: no table reads them), then times `kbx report --table T --no-quality`
(and `kbx report`, the per-category summary) on the demo and on each copy, each once warm (after one
untimed run; the median of --repeat runs). With --workbench, also the Charts tab's data cold
(kbx-workbench --export-figure to .csv: a fresh process opens the database and computes every
figure dataset, as the tab does on its first load) and a figure export (.png, offscreen). With --anchor, another kbx (e.g. the previous commit's) is timed beside it in the same
run on the --anchor-tables of databases up to --anchor-max evaluations, and the ratio printed.
Prints a Markdown table with the machine and the date. The grown databases are kept
in --out (default /tmp/kbx-report-scale) for reuse."""
import argparse
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "resources", "demo", "demo.sqlite")


def grow(path, n):
    """Copies the demo and appends k = 1..K copies of its submissions (round + 1000 k), evaluations
    and timings in SQL (INSERT ... SELECT over a recursive series of k: a 1M database in about a
    minute). Ids are shifted by k times the demo's largest id, so copy k of evaluation e is
    e + k * max(evaluations.id). Manual labels and case results are not copied (only the demo's own
    evaluations keep theirs), nor code-quality rows."""
    shutil.copy(DEMO, path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    base = con.execute("SELECT count(*) FROM evaluations").fetchone()[0]
    k_max = max(1, -(-n // base) - 1)
    ecols = [r[1] for r in con.execute("PRAGMA table_info(evaluations)")]
    max_sub = con.execute("SELECT max(id) FROM submissions").fetchone()[0]
    max_ev = con.execute("SELECT max(id) FROM evaluations").fetchone()[0]
    max_t = con.execute("SELECT max(id) FROM timings").fetchone()[0] or 0
    series = f"WITH RECURSIVE ks(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM ks WHERE k < {k_max}) "
    con.execute(series + "INSERT INTO submissions(id, candidate_id, method_id, round, origin) "
                f"SELECT s.id + ks.k * {max_sub}, s.candidate_id, s.method_id, s.round + 1000 * ks.k, s.origin "
                f"FROM ks, submissions s WHERE s.id <= {max_sub} ORDER BY ks.k, s.id")
    sel = ", ".join(f"e.id + ks.k * {max_ev}" if c == "id" else f"e.submission_id + ks.k * {max_sub}" if c == "submission_id"
                    else f"e.{c}" for c in ecols)
    con.execute(series + f"INSERT INTO evaluations({','.join(ecols)}) SELECT {sel} "
                f"FROM ks, evaluations e WHERE e.id <= {max_ev} ORDER BY ks.k, e.id")
    con.execute(series + "INSERT INTO timings(id, evaluation_id, shape, candidate_ms, baseline_ms, samples) "
                f"SELECT t.id + ks.k * {max_t}, t.evaluation_id + ks.k * {max_ev}, t.shape, t.candidate_ms, t.baseline_ms, t.samples "
                f"FROM ks, timings t WHERE t.id <= {max_t} ORDER BY ks.k, t.id")
    con.commit()
    total = con.execute("SELECT count(*) FROM evaluations").fetchone()[0]
    timings = con.execute("SELECT count(*) FROM timings").fetchone()[0]
    con.close()
    return total, timings


TIMEOUT = 240


def timed(cmd, repeat=1, env=None):
    """Median wall time of `repeat` runs after one untimed run (warm page cache), and the last exit
    status ('timeout' after TIMEOUT s: then the time is TIMEOUT and nothing is repeated)."""
    try:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return float(TIMEOUT), "timeout"
    times, rc = [], 0
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return float(TIMEOUT), "timeout"
        times.append(time.perf_counter() - t0)
        rc = r.returncode
    return statistics.median(times), rc


ALL_TABLES = ("method-summary,category-method,deviance,rounds,rescued,cross-hardware,slow-fraction,taxonomy,"
              "utilisation,protocol")


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kbx", default=os.path.join(ROOT, "build", "bin", "kbx"))
    ap.add_argument("--workbench", default="", help="kbx-workbench: also time the Charts tab's data cold (--export-figure "
                    "to .csv: open, count, every dataset) and a figure export (.png, offscreen)")
    ap.add_argument("--figure", default="correctness_heatmap")
    ap.add_argument("--sizes", default="20000,200000")
    ap.add_argument("--tables", default=ALL_TABLES)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per cell (median), after one untimed run")
    ap.add_argument("--out", default="/tmp/kbx-report-scale")
    ap.add_argument("--read-only", action="store_true", help="time with --read-only (no index is created then)")
    ap.add_argument("--anchor", default="")
    ap.add_argument("--anchor-tables", default="method-summary")
    ap.add_argument("--anchor-max", type=int, default=20000)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dbs = [("demo", DEMO, None)]
    for n in [int(x) for x in a.sizes.split(",") if x]:
        p = os.path.join(a.out, f"grown-{n}.sqlite")
        if not os.path.exists(p):
            grown = grow(p, n)
        else:
            con = sqlite3.connect(p)
            grown = (con.execute("SELECT count(*) FROM evaluations").fetchone()[0],
                     con.execute("SELECT count(*) FROM timings").fetchone()[0])
            con.close()
        dbs.append((f"{grown[0]} evaluations, {grown[1]} timings", p, n))
    tables = [t for t in a.tables.split(",") if t]
    lines = [f"# kbx report on grown databases ({time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC{', --read-only' if a.read_only else ''})",
             "", f"Machine: {machine()} (at the start).", f"Each cell: median of {a.repeat} runs after an untimed one.", "",
             "| table | " + " | ".join(name for name, _, _ in dbs) + " |", "|---|" + "---|" * len(dbs)]
    paths = {}
    for name, path, n in dbs:
        if path == DEMO:  # the committed demo is never written: a copy
            cp = os.path.join(a.out, "demo-copy.sqlite")
            shutil.copy(DEMO, cp)
            path = cp
        paths[name] = path
    rows = [("(summary)", None)] + [(t, "table") for t in tables]
    if a.workbench:
        rows += [(f"Charts data cold ({a.figure} .csv)", "csv"), (f"figure export ({a.figure} .png)", "png")]
    for t, kind in rows:
        cells = []
        for name, _, n in dbs:
            path = paths[name]
            env = None
            if kind in ("csv", "png"):
                out = os.path.join(a.out, f"figure.{kind}")
                cmd = [a.workbench, "--export-figure", a.figure, "--db", path, "--out", out]
                env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
                args = None
            else:
                args = ["report", "--db", path] + (["--read-only"] if a.read_only else [])
                args += ([] if t == "(summary)" else ["--table", t, "--no-quality"])
                cmd = [a.kbx] + args
            s, rc = timed(cmd, a.repeat, env)
            cell = (f"> {s:.0f} s" if rc == "timeout" else f"{s:.2f} s") + ("" if rc in (0, "timeout") else f" (rc {rc})")
            if args and a.anchor and t in a.anchor_tables.split(",") and (n is None or n <= a.anchor_max):
                if not a.read_only:  # the anchor on a copy without the index kbx now creates
                    cp = path + ".anchor.sqlite"
                    shutil.copy(path, cp)
                    con = sqlite3.connect(cp)
                    con.execute("DROP INDEX IF EXISTS timings_evaluation")
                    con.close()
                    args = [x if x != path else cp for x in args]
                s0, rc0 = timed([a.anchor] + args, a.repeat)
                cell += f" (anchor {s0:.2f} s{'' if rc0 == 0 else f', rc {rc0}'}; {s0 / max(s, 1e-9):.0f}x)"
            cells.append(cell)
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    lines += ["", f"Load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}."]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
