#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report tables on large databases, side by side with the demo (issue 24: reports must not grow
quadratically with the evaluations).

  bench/report_scale.py [--kbx build/bin/kbx] [--sizes 20000,200000] [--tables method-summary,...] [--out DIR]
                        [--anchor OLD_KBX [--anchor-tables method-summary] [--anchor-max N]]

Builds, for every size N, a copy of resources/demo/demo.sqlite grown to about N evaluations by
repeating its submissions as further rounds (round + 1000 k) with their evaluations and timings
(case results are not copied: no table reads them), then times `kbx report --table T --no-quality`
(and `kbx report`, the per-category summary) on the demo and on each copy, each once warm (after one
untimed run). With --anchor, another kbx (e.g. the previous commit's) is timed beside it in the same
run on the --anchor-tables of databases up to --anchor-max evaluations, and the ratio printed.
Prints a Markdown table with the machine and the date. The grown databases are kept
in --out (default /tmp/kbx-report-scale) for reuse."""
import argparse
import os
import platform
import shutil
import sqlite3
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "resources", "demo", "demo.sqlite")


def grow(path, n):
    shutil.copy(DEMO, path)
    con = sqlite3.connect(path)
    base = con.execute("SELECT count(*) FROM evaluations").fetchone()[0]
    k_max = max(1, -(-n // base) - 1)
    subs = con.execute("SELECT id, candidate_id, method_id, round, origin FROM submissions").fetchall()
    evs = con.execute("SELECT * FROM evaluations").fetchall()
    ecols = [r[1] for r in con.execute("PRAGMA table_info(evaluations)")]
    tims = con.execute("SELECT evaluation_id, shape, candidate_ms, baseline_ms, samples FROM timings").fetchall()
    by_eval = {}
    for t in tims:
        by_eval.setdefault(t[0], []).append(t)
    si, ei = ecols.index("submission_id"), ecols.index("id")
    next_sub = con.execute("SELECT max(id) FROM submissions").fetchone()[0] + 1
    next_ev = con.execute("SELECT max(id) FROM evaluations").fetchone()[0] + 1
    for k in range(1, k_max + 1):
        sub_map = {}
        for sid, cid, mid, rnd, origin in subs:
            sub_map[sid] = next_sub
            con.execute("INSERT INTO submissions(id, candidate_id, method_id, round, origin) VALUES (?,?,?,?,?)",
                        (next_sub, cid, mid, rnd + 1000 * k, origin))
            next_sub += 1
        rows, trows = [], []
        for e in evs:
            e = list(e)
            old = e[ei]
            e[ei], e[si] = next_ev, sub_map[e[si]]
            rows.append(e)
            trows += [(next_ev,) + t[1:] for t in by_eval.get(old, [])]
            next_ev += 1
        con.executemany(f"INSERT INTO evaluations({','.join(ecols)}) VALUES ({','.join('?' * len(ecols))})", rows)
        con.executemany("INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms, samples) VALUES (?,?,?,?,?)", trows)
    con.commit()
    total = con.execute("SELECT count(*) FROM evaluations").fetchone()[0]
    timings = con.execute("SELECT count(*) FROM timings").fetchone()[0]
    con.close()
    return total, timings


def timed(cmd):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - t0, r.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kbx", default=os.path.join(ROOT, "build", "bin", "kbx"))
    ap.add_argument("--sizes", default="20000,200000")
    ap.add_argument("--tables", default="method-summary,category-method,taxonomy,utilisation,protocol")
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
    lines = [f"# kbx report on grown databases ({time.strftime('%Y-%m-%d', time.gmtime())}, {platform.node()}, "
             f"{os.cpu_count()} cores{', --read-only' if a.read_only else ''})", "",
             "| table | " + " | ".join(name for name, _, _ in dbs) + " |", "|---|" + "---|" * len(dbs)]
    for t in ["(summary)"] + tables:
        cells = []
        for name, path, n in dbs:
            if path == DEMO:  # the committed demo is never written: a copy
                cp = os.path.join(a.out, "demo-copy.sqlite")
                shutil.copy(DEMO, cp)
                path = cp
            args = ["report", "--db", path] + (["--read-only"] if a.read_only else [])
            args += ([] if t == "(summary)" else ["--table", t, "--no-quality"])
            s, rc = timed([a.kbx] + args)
            cell = f"{s:.2f} s" + ("" if rc == 0 else f" (rc {rc})")
            if a.anchor and t in a.anchor_tables.split(",") and (n is None or n <= a.anchor_max):
                if not a.read_only:  # the anchor on a copy without the index kbx now creates
                    cp = path + ".anchor.sqlite"
                    shutil.copy(path, cp)
                    con = sqlite3.connect(cp)
                    con.execute("DROP INDEX IF EXISTS timings_evaluation")
                    con.close()
                    args = [x if x != path else cp for x in args]
                s0, rc0 = timed([a.anchor] + args)
                cell += f" (anchor {s0:.2f} s{'' if rc0 == 0 else f', rc {rc0}'}; {s0 / max(s, 1e-9):.0f}x)"
            cells.append(cell)
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
