#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A results database made from third-party kernels (the seed's corpus), made fit to commit: every
verdict, class, case, timing and tier stays; the kernels' code does not.

  scripts/strip_code.py DB [DB...]     (in place; prints what it changed)

- candidates.code becomes one line naming its sha256 (code_hash identifies the kernel);
- evidence (evaluations and case_results): tracebacks, error maps, stderr and log tails, source
  excerpts are dropped;
- any line of a failure detail, message or evidence string that is a line of the candidate's own
  code (stripped, 12 characters or more) becomes "[code line left out]".
Then VACUUM. `kbx show` and `kbx report` read the result as before."""
import json
import os
import sqlite3
import sys

DROP = {"traceback", "error_map", "stderr", "stderr_tail", "log", "worker_log", "source", "snippet", "code",
        "tail", "stdout"}
MARK = "[code line left out]"


def scrub_text(s, lines):
    if not isinstance(s, str) or not lines:
        return s
    out = [MARK if ln.strip() in lines else ln for ln in s.split("\n")]
    return "\n".join(out)


def scrub(v, lines):
    if isinstance(v, dict):
        return {k: scrub(x, lines) for k, x in v.items() if k not in DROP}
    if isinstance(v, list):
        return [scrub(x, lines) for x in v]
    return scrub_text(v, lines)


def main(paths):
    if not paths or any(p.startswith("-") for p in paths):
        print(__doc__, file=sys.stderr)
        sys.exit(0 if paths and paths[0] in ("-h", "--help") else 2)
    for path in paths:
        if not os.path.isfile(path):
            sys.exit(f"strip_code.py: {path}: no such database")
        con = sqlite3.connect(f"file:{path}?mode=rw", uri=True)
        code_lines = {}
        for cid, code, h in con.execute("SELECT id, code, code_hash FROM candidates"):
            code_lines[cid] = {ln.strip() for ln in code.split("\n") if len(ln.strip()) >= 12}
        ev_of = {eid: cid for eid, cid in con.execute(
            "SELECT e.id, s.candidate_id FROM evaluations e JOIN submissions s ON s.id = e.submission_id")}
        n_e = n_c = 0
        for eid, detail, evj in con.execute("SELECT id, failure_detail, evidence FROM evaluations").fetchall():
            lines = code_lines.get(ev_of.get(eid), set())
            ev = json.loads(evj)
            new_ev, new_detail = scrub(ev, lines), scrub_text(detail, lines)
            if new_ev != ev or new_detail != detail:
                n_e += 1
                con.execute("UPDATE evaluations SET evidence = ?, failure_detail = ? WHERE id = ?",
                            (json.dumps(new_ev), new_detail, eid))
        for cid_, eid, evj in con.execute("SELECT id, evaluation_id, evidence FROM case_results").fetchall():
            if not evj:
                continue
            lines = code_lines.get(ev_of.get(eid), set())
            ev = json.loads(evj)
            new_ev = scrub(ev, lines)
            if new_ev != ev:
                n_c += 1
                con.execute("UPDATE case_results SET evidence = ? WHERE id = ?", (json.dumps(new_ev), cid_))
        con.execute("UPDATE candidates SET code = '# third-party generated code left out of this database; sha256 ' || code_hash")
        con.commit()
        con.execute("VACUUM")
        con.close()
        print(f"{path}: code of {len(code_lines)} candidates left out; {n_e} evaluations and {n_c} case results scrubbed")


if __name__ == "__main__":
    main(sys.argv[1:])
