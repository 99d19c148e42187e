#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fixture set as one seed-format JSONL, and the verdict table of a `kbx eval --json` run on it.
  scripts/fixture_set.py build OUT.jsonl [--device cpu|cuda]
  scripts/fixture_set.py table FIXTURES.jsonl VERDICTS.jsonl [--title T] [--env FILE] [--wall S]
Every known-good solution (tests/fixtures/good) and every variant (tests/fixtures/variants, with its
expected class from the `# kbx-fixture:` header); variants marked devices=cuda are left out on cpu."""
import argparse
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(out, device):
    rows = []
    good = os.path.join(ROOT, "tests", "fixtures", "good")
    for p in sorted(glob.glob(os.path.join(good, "*", "*.py"))):
        tid = os.path.relpath(p, good)[:-3]
        rows.append({"predict": open(p).read(), "file": tid + ".py", "kind": "good", "name": tid, "expect": "pass",
                     "method": "known-good"})
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "variants", "*.py"))):
        src = open(p).read()
        m = re.search(r"task=(\S+) expect=(\S+)(?: devices=(\S+))?", src.splitlines()[0])
        if m[3] and device not in m[3].split(","):
            continue
        rows.append({"predict": src, "file": m[1] + ".py", "kind": "variant", "name": os.path.basename(p)[:-3],
                     "expect": m[2], "method": "known-bad"})
    with open(out, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{len(rows)} candidates -> {out}", file=sys.stderr)


def extended_class(j):
    """The extended tier's failure class of a `kbx eval --json` line whose verdict passed, if it failed."""
    ext = (j or {}).get("extended") or {}
    if ext.get("ran") and (ext.get("call_ok") is False or ext.get("exe_ok") is False):
        return ext.get("failure_class")
    return None


def table(fixtures, verdicts, title, env, wall):
    fx = [json.loads(l) for l in open(fixtures)]
    got = {}
    for l in open(verdicts):
        j = json.loads(l)
        got[int(j["origin"].rsplit(":", 1)[1])] = j
    out = [f"# {title}", ""]
    if env:
        out += ["```", open(env).read().strip(), "```", ""]
    ok = 0
    extended_only = 0
    rows = []
    for i, f in enumerate(fx, 1):
        j = got.get(i)
        verdict = ("missing" if j is None else "pass" if j["verdict"] == "pass"
                   else "not_judged" if j["verdict"] == "error" else j["failure_class"] or j["verdict"])
        match = verdict in f["expect"].split("|")
        caught = extended_class(j) if f["kind"] == "variant" and verdict == "pass" else None
        if caught:
            # Under the default protocol the seed's own test calls decide the verdict; a variant whose
            # failing case lies only in the stricter extended tier passes them and is caught there.
            verdict = f"pass; extended tier: {caught}"
            match = caught in f["expect"].split("|")
            extended_only += match
        ok += match
        detail = "" if j is None else j.get("detail") or ""
        if caught:
            detail = detail or j["extended"].get("failure_detail", "")
        detail = detail.replace("|", "\\|").replace("\n", " ")[:110]
        secs = "" if j is None else f"{j['seconds']:.1f}"
        rows.append(f"| {f['kind']} | {f['name']} | {f['file'][:-3]} | {f['expect']} | {verdict} | {'yes' if match else '**NO**'} | {secs} | {detail} |")
    good = [f for f in fx if f["kind"] == "good"]
    good_pass = sum(1 for i, f in enumerate(fx, 1) if f["kind"] == "good" and got.get(i, {}).get("verdict") == "pass")
    out += [f"Known-good: **{good_pass}/{len(good)} pass**. Verdict as expected: **{ok}/{len(fx)}**."
            + (f" Of these, {extended_only} variant(s) pass the contract tier (the seed's test calls) and get"
               " their class in the extended tier (`correct_incl_extended` false)." if extended_only else "")
            + (f" Wall time of the whole `kbx eval`: {wall}." if wall else ""), ""]
    out += ["| kind | fixture | task | expected | verdict | as expected | s | detail |",
            "|---|---|---|---|---|---|---|---|"] + rows
    print("\n".join(out))
    return 0 if ok == len(fx) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("out")
    b.add_argument("--device", default="cpu")
    t = sub.add_parser("table")
    t.add_argument("fixtures")
    t.add_argument("verdicts")
    t.add_argument("--title", default="Verdicts")
    t.add_argument("--env")
    t.add_argument("--wall")
    a = ap.parse_args()
    if a.cmd == "build":
        build(a.out, a.device)
        return 0
    return table(a.fixtures, a.verdicts, a.title, a.env, a.wall)


if __name__ == "__main__":
    sys.exit(main())
