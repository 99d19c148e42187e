#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Merges kbx result databases (e.g. a CPU run and an H200 run) into one, keeping every run,
evaluation, case result, timing and manual label, with candidates, methods and submissions
deduplicated as the store does. Used to make the bundled demo database:
  scripts/merge_db.py OUT.sqlite IN.sqlite [IN.sqlite ...] [--kbx build/bin/kbx]
Every IN is first copied and opened by kbx, which migrates the copy to the current schema; a new OUT
starts as the first such copy, so its schema is exactly the store's."""
import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def open_with_kbx(kbx, path):
    r = subprocess.run([kbx, "report", "--db", path], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"merge_db: kbx cannot open {path}: {r.stderr.strip()}")


def merge(dst, src):
    c = dst.cursor()
    c.execute("ATTACH DATABASE ? AS s", (src,))
    c.execute("INSERT OR IGNORE INTO methods(name) SELECT name FROM s.methods")
    mid = {old: new for old, new in c.execute(
        "SELECT sm.id, m.id FROM s.methods sm JOIN methods m ON m.name = sm.name")}
    c.execute("INSERT OR IGNORE INTO candidates(task_id, code_hash, code, created_at) "
              "SELECT task_id, code_hash, code, created_at FROM s.candidates")
    cid = {old: new for old, new in c.execute(
        "SELECT sc.id, c.id FROM s.candidates sc JOIN candidates c ON c.task_id = sc.task_id AND c.code_hash = sc.code_hash")}
    sid = {}
    for old, cand, meth, rnd, origin in c.execute(
            "SELECT id, candidate_id, method_id, round, origin FROM s.submissions").fetchall():
        key = (cid[cand], mid[meth], rnd)
        c.execute("INSERT OR IGNORE INTO submissions(candidate_id, method_id, round, origin) VALUES(?,?,?,?)", (*key, origin))
        sid[old] = c.execute("SELECT id FROM submissions WHERE candidate_id=? AND method_id=? AND round=?", key).fetchone()[0]
    rid = {}
    for row in c.execute("SELECT id, started_at, finished_at, status, device, provenance, public_seeds, secret_seed, args "
                         "FROM s.runs ORDER BY id").fetchall():
        c.execute("INSERT INTO runs(started_at, finished_at, status, device, provenance, public_seeds, secret_seed, args) "
                  "VALUES(?,?,?,?,?,?,?,?)", row[1:])
        rid[row[0]] = c.lastrowid
    eid = {}
    cols = ("task_id, verdict, call_ok, exe_ok, failure_class, failure_detail, evidence, stage_seconds, "
            "taxonomy_version, started_at, finished_at")
    for row in c.execute(f"SELECT id, run_id, submission_id, {cols} FROM s.evaluations ORDER BY id").fetchall():
        c.execute(f"INSERT INTO evaluations(run_id, submission_id, {cols}) VALUES(?,?,{','.join('?' * 11)})",
                  (rid[row[1]], sid[row[2]], *row[3:]))
        eid[row[0]] = c.lastrowid
    for row in c.execute("SELECT evaluation_id, idx, name, status, failure_class, evidence FROM s.case_results").fetchall():
        c.execute("INSERT INTO case_results(evaluation_id, idx, name, status, failure_class, evidence) VALUES(?,?,?,?,?,?)",
                  (eid[row[0]], *row[1:]))
    for row in c.execute("SELECT evaluation_id, shape, candidate_ms, baseline_ms, samples FROM s.timings").fetchall():
        c.execute("INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms, samples) VALUES(?,?,?,?,?)",
                  (eid[row[0]], *row[1:]))
    for row in c.execute("SELECT evaluation_id, failure_class, note, author, labelled_at FROM s.manual_labels").fetchall():
        c.execute("INSERT OR REPLACE INTO manual_labels(evaluation_id, failure_class, note, author, labelled_at) "
                  "VALUES(?,?,?,?,?)", (eid[row[0]], *row[1:]))
    # Imports (schema v3): the import rows, then everything that refers to them, ids remapped.
    have = {r[0] for r in c.execute("SELECT name FROM s.sqlite_master WHERE type='table'")}
    if "imports" in have:
        iid = {}
        for row in c.execute("SELECT id, imported_at, format, source, sha256, options, files, notes FROM s.imports ORDER BY id").fetchall():
            c.execute("INSERT INTO imports(imported_at, format, source, sha256, options, files, notes) VALUES(?,?,?,?,?,?,?)", row[1:])
            iid[row[0]] = c.lastrowid
        remap = {"import_id": iid, "run_id": rid, "before_evaluation_id": eid, "after_evaluation_id": eid}
        for table in ("golden_timings", "round_transitions", "seed_summaries"):
            cols = [r[1] for r in c.execute(f"PRAGMA s.table_info({table})") if r[1] != "id"]
            verb = "INSERT OR REPLACE" if table == "golden_timings" else "INSERT"
            for row in c.execute(f"SELECT {', '.join(cols)} FROM s.{table}").fetchall():
                vals = [remap[col].get(v, v) if col in remap and v is not None else v for col, v in zip(cols, row)]
                c.execute(f"{verb} INTO {table}({', '.join(cols)}) VALUES({', '.join('?' * len(cols))})", vals)
    dst.commit()
    c.execute("DETACH DATABASE s")
    return len(rid), len(eid)


def drop_methods(path, methods):
    """Removes the given methods' evaluations (and their cases, timings, labels) from a copy."""
    if not methods:
        return
    con = sqlite3.connect(path)
    con.execute("PRAGMA foreign_keys=ON")
    q = ",".join("?" * len(methods))
    ev = f"SELECT e.id FROM evaluations e JOIN submissions s ON s.id = e.submission_id JOIN methods m ON m.id = s.method_id WHERE m.name IN ({q})"
    for table in ("case_results", "timings", "manual_labels"):
        con.execute(f"DELETE FROM {table} WHERE evaluation_id IN ({ev})", methods)
    con.execute(f"DELETE FROM evaluations WHERE id IN ({ev})", methods)
    con.execute(f"DELETE FROM submissions WHERE method_id IN (SELECT id FROM methods WHERE name IN ({q}))", methods)
    con.commit()
    con.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--kbx", default=os.path.join(ROOT, "build", "bin", "kbx"))
    ap.add_argument("--exclude-method", action="append", default=[],
                    help="leave out this method's submissions and evaluations (repeatable)")
    a = ap.parse_args()
    dst = None
    with tempfile.TemporaryDirectory() as tmp:
        for i, src in enumerate(a.inputs):
            if not os.path.isfile(src):
                sys.exit(f"merge_db: {src}: no such file")
            copy = os.path.join(tmp, f"in{i}.sqlite")
            shutil.copyfile(src, copy)
            open_with_kbx(a.kbx, copy)
            if dst is None:
                if not os.path.exists(a.out):
                    drop_methods(copy, a.exclude_method)
                    con = sqlite3.connect(copy)
                    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    con.close()
                    shutil.copyfile(copy, a.out)
                    dst = sqlite3.connect(a.out)
                    print(f"{src}: copied as the base of {a.out}", file=sys.stderr)
                    continue
                open_with_kbx(a.kbx, a.out)
                dst = sqlite3.connect(a.out)
            dst.execute("PRAGMA foreign_keys=ON")
            drop_methods(copy, a.exclude_method)
            runs, evals = merge(dst, copy)
            print(f"{src}: {runs} runs, {evals} evaluations", file=sys.stderr)
    dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    dst.close()


if __name__ == "__main__":
    main()
