#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Our verdicts against a separate-process adjudication of real generated kernels.

  corpus_adjudicate.py versions CORPUS.jsonl OUT.jsonl [--only ADJUDICATED.json]
      every distinct kernel version of a corpus file (before_code and after_code of each round
      transition), keyed by task and the sha256 of the full code text, as a submissions file for
      `kbx eval` (one {"file", "predict", "method", "round"} line per version, in a stable order)
  corpus_adjudicate.py table ADJUDICATED.json VERSIONS.jsonl EVAL.jsonl [--md OUT.md]
      joins `kbx eval --json` output (its "origin" is VERSIONS.jsonl:LINE) with the adjudication
      (correct / wrong_values / does_not_run) and prints the table: per version our final verdict
      under the protocol it ran with (with --perf, after the perf stage's kernel attribution),
      correct incl. extended, and whether it agrees; exit 1 on any
      disagreement that is not a documented benchmark rule (no Triton kernel ran).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter

RULES = {
    # failure classes that are benchmark rules the seed's harness does not apply
    "not_triton_kernel": "no Triton kernel ran, or (perf stage) under half of the GPU time was in the candidate's own "
                         "Triton kernels: PyTorch did the work (the seed's harness does not check this)",
}


def versions(corpus: str, out: str, only: str | None = None) -> int:
    keep = None
    if only:
        with open(only, encoding="utf-8") as f:
            keep = {(v["task"], v["code_sha256"]) for v in json.load(f)["versions"]}
    seen, rows = set(), []
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            task = r.get("task_id", "")
            for side, rnd in (("before_code", r.get("from_round")), ("after_code", r.get("to_round"))):
                code = r.get(side)
                if not isinstance(code, str) or not code.strip():
                    continue
                sha = hashlib.sha256(code.encode()).hexdigest()
                if (task, sha) in seen or (keep is not None and (task, sha) not in keep):
                    continue
                seen.add((task, sha))
                m = re.search(r"(\d+)", str(rnd or "0"))
                rows.append({"file": task, "predict": code, "method": "geak", "round": int(m.group(1)) if m else 0,
                             "code_sha256": sha})
    with open(out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{len(rows)} distinct versions -> {out}")
    return 0


def table(adjudicated: str, versions_file: str, eval_file: str, md: str | None) -> int:
    with open(adjudicated, encoding="utf-8") as f:
        adj = {(v["task"], v["code_sha256"]): v for v in json.load(f)["versions"]}
    with open(versions_file, encoding="utf-8") as f:
        vers = [json.loads(x) for x in f if x.strip()]
    results, by_eval = {}, {}
    with open(eval_file, encoding="utf-8") as f:
        for line in f:
            try:
                j = json.loads(line)
            except json.JSONDecodeError:
                continue
            if j.get("type") == "perf":
                # Under --perf a second line per evaluation gives its final verdict: the perf stage's
                # kernel attribution can turn a pass into not_triton_kernel (docs/PERF_PROTOCOL.md).
                r = by_eval.get(j.get("evaluation_id"))
                if r is not None and j.get("verdict") and j["verdict"] != r.get("verdict"):
                    r.update(verdict=j["verdict"], failure_class=j.get("failure_class"), perf_stage=True)
                    if j["verdict"] != "pass":
                        r["correct_incl_extended"] = False
                continue
            if "origin" not in j:
                continue
            m = re.search(r":(\d+)", j["origin"])
            if m:
                row = results[int(m.group(1))] = dict(j)  # a copy: the perf stage's line may change it
                if j.get("evaluation_id") is not None:
                    by_eval[j["evaluation_id"]] = row
    lines, counts, bad = [], Counter(), []
    lines.append("| # | task | adjudicated | verdict | class | incl. extended | extended first failure | agrees |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for i, v in enumerate(vers, 1):
        a = adj.get((v["file"], v["code_sha256"]))
        if a is None:
            continue
        r = results.get(i)
        label = a["adjudicated"]
        if r is None:
            verdict, cls, incl, ext_first, agree = "missing", "", "", "", "no"
        else:
            verdict = r.get("verdict")
            cls = r.get("failure_class") or ""
            if r.get("perf_stage") and cls:
                cls += " (perf stage)"
            incl = r.get("correct_incl_extended")
            ext = r.get("extended") or {}
            ext_first = ""
            if isinstance(ext, dict) and ext.get("failure_class"):
                ff = (ext.get("first_failure") or {}).get("case", "")
                ext_first = f"{ff} ({ext['failure_class']})"
            if label == "correct":
                agree = "yes" if verdict == "pass" else ("rule" if r.get("failure_class") in RULES else "no")
            else:
                agree = "yes" if verdict == "fail" else "no"
        counts[(label, agree)] += 1
        if agree == "no":
            bad.append(f"{v['file']} {v['code_sha256'][:12]}: adjudicated {label}, ours {verdict} {cls}")
        lines.append(f"| {i} | {v['file']} | {label} | {verdict} | {cls} | {incl} | {ext_first} | {agree} |")
    summary = [f"- {label}: " + ", ".join(f"{n} {ag}" for (lb, ag), n in sorted(counts.items()) if lb == label)
               for label in ("correct", "wrong_values", "does_not_run")]
    text = "\n".join(lines + ["", *summary, "", "Rules: " + "; ".join(f"{k}: {w}" for k, w in RULES.items())]
                     + (["", "Disagreements:"] + [f"- {b}" for b in bad] if bad else []))
    print(text)
    if md:
        with open(md, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("versions")
    v.add_argument("corpus")
    v.add_argument("out")
    v.add_argument("--only", help="an adjudication file: only the versions it judges")
    t = sub.add_parser("table")
    t.add_argument("adjudicated")
    t.add_argument("versions")
    t.add_argument("eval")
    t.add_argument("--md")
    a = ap.parse_args()
    if a.cmd == "versions":
        return versions(a.corpus, a.out, a.only)
    return table(a.adjudicated, a.versions, a.eval, a.md)


if __name__ == "__main__":
    sys.exit(main())
