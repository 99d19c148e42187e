#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Keeps tasks/contracts.json in step with the seed's recorded test calls.

  contract_sync.py write SEED_CALLS.json     derive tasks/contracts.json from the seed's calls
  contract_sync.py check [SEED_CALLS.json]   (ctest tasks.contract_consistent)
      1. with the seed's calls at hand (argument, $KBX_SEED_CALLS or ../shared/data/seed-test-calls.json):
         the committed contracts equal what they derive to;
      2. always: every one of the 176 tasks has a contract whose patterns bind to its reference's
         signature, and at least MIN_CONTRACT of its cases (per public seed) fall in the contract tier;
      3. every contract case of a task's own drawn from the seed's distributions: a floating input with
         more than 5 % of its values beyond |6| must be marked dist="wide" (extended) or dist="seed";
      4. prints, per task, the cases of the extended tier and why (--verbose).
  contract_sync.py table                      per task: contract / extended case counts (markdown)

A seed file whose id is not a benchmark task resolves by its stem when the stem names exactly one
task (the corpus's older categories, e.g. Broadcast/expand_where -> Index/expand_where); files for
tasks outside the 176 (relu_fp16, ...) are listed as skipped.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tasks", "worker", "python"))
TASKS = os.path.join(ROOT, "tasks")
OUT = os.path.join(TASKS, "contracts.json")
MIN_CONTRACT = 1
# Tasks on which every case decides, and why (printed by `check`; a new one is a problem to look at).
KNOWN_WHOLE = {
    "Index/index_fill_": "the seed calls its entry as index_fill_(dim, input, index, value), the spec and this task "
                         "as index_fill_(input, dim, index, value): no call of ours binds like the seed's",
    "Optimizer/SGD": "the seed's file tests a different entry (sgd_step(param, grad, buf, ...)) than the spec's "
                     "SGD(params, ...), which this task follows",
    "Random/rand": "the seed's calls were not recorded (its test needs a CUDA generator)",
    "Math/bitwise_and_binomial": "the seed's calls draw from a binomial (random); drive() judges the distribution "
                                 "on our own cases",
    "Fusion/fused_dropout_relu_batch_norm_conv2d": "the seed calls it with dropout on (random); our cases judge the "
                                                   "deterministic configurations",
    "SpatialOps/grid_sample_with_affine": "the seed passes an int64 theta, which torch's affine_grid refuses; every "
                                          "case of ours passes a float theta",
}


def task_ids() -> list[str]:
    with open(os.path.join(TASKS, "index.json"), encoding="utf-8") as f:
        idx = json.load(f)
    items = idx["tasks"] if isinstance(idx, dict) else idx
    return sorted(t["id"] if isinstance(t, dict) else t for t in items)


def _numel(call) -> int:
    n = 0

    def rec(a):
        nonlocal n
        if a.get("kind") == "tensor":
            m = 1
            for d in a.get("shape") or []:
                m *= d
            n += m
        for i in a.get("items") or []:
            rec(i)
    for a in call.get("args", []):
        rec(a)
    for a in call.get("kwargs", {}).values():
        rec(a)
    return n


def derive(seed_calls: dict, ids: list[str]) -> dict:
    from kbx_harness.contract import abstract_seed_arg
    by_stem: dict[str, list[str]] = {}
    for t in ids:
        by_stem.setdefault(t.split("/")[1], []).append(t)
    tasks, skipped, drift = {}, {}, {}
    for sid in sorted(seed_calls):
        rec = seed_calls[sid]
        tid = sid if sid in ids else None
        if tid is None:
            cands = by_stem.get(sid.split("/")[-1], [])
            if len(cands) == 1:
                tid = cands[0]
                drift[sid] = tid
            else:
                skipped[sid] = "not a benchmark task" if not cands else "stem names several tasks"
                continue
        pats = []
        for c in rec.get("calls", []):
            p = {"args": [abstract_seed_arg(a) for a in c.get("args", [])],
                 "kwargs": {k: abstract_seed_arg(v) for k, v in sorted(c.get("kwargs", {}).items())}}
            if p not in pats:
                pats.append(p)
        # Per pattern, the seed's smallest call as it was made (shapes, literal values): the model of
        # the harness's seed-call cases for tasks whose own cases miss every pattern.
        examples = {}
        for c in rec.get("calls", []):
            p = {"args": [abstract_seed_arg(a) for a in c.get("args", [])],
                 "kwargs": {k: abstract_seed_arg(v) for k, v in sorted(c.get("kwargs", {}).items())}}
            k = pats.index(p)
            size = _numel(c)
            if k not in examples or size < examples[k][0]:
                examples[k] = (size, {"args": c.get("args", []), "kwargs": c.get("kwargs", {})})
        entry = {"seed_file": sid, "calls": pats, "seed_calls": len(rec.get("calls", [])),
                 "examples": [examples[k][1] for k in sorted(examples)]}
        if rec.get("error"):
            entry["note"] = "the seed's calls were recorded only partly: " + str(rec["error"])[:300]
        if tid in tasks:  # two seed files for one task: keep both patterns
            tasks[tid]["examples"] += [e for p, e in zip(pats, entry["examples"]) if p not in tasks[tid]["calls"]]
            tasks[tid]["calls"] += [p for p in pats if p not in tasks[tid]["calls"]]
            tasks[tid]["seed_file"] += ", " + sid
        else:
            tasks[tid] = entry
    return {"version": 1,
            "source": "seed-test-calls.json sha256 " + hashlib.sha256(
                json.dumps(seed_calls, sort_keys=True).encode()).hexdigest(),
            "drift": drift, "skipped": skipped, "tasks": tasks}


def seed_path(arg: str | None) -> str | None:
    for p in (arg, os.environ.get("KBX_SEED_CALLS"),
              os.path.join(ROOT, "..", "shared", "data", "seed-test-calls.json")):
        if p and os.path.exists(p):
            return p
    return None


def classify_all(ids, contracts, verbose=False):
    """Per task: (contract, extended, unbound, [(case, why)]) on the CPU, public seed 0."""
    import torch  # noqa: F401
    from kbx_harness import contract as C
    from kbx_harness.common import call_entry, clone_tree, draw_cases, load_task
    rows = {}
    for tid in ids:
        task = load_task(os.path.join(TASKS, tid + ".py"), tid)
        con = C.for_task(task, tid, contracts)
        cases = draw_cases(task, tid, [{"label": "public0", "seed": 0}], "cpu")
        call = (lambda t: (lambda a, k: call_entry(t, t.reference, a, k)))(task)
        tiers, note = C.assign_tiers(task, tid, cases, [{"label": "public0", "seed": 0}], "cpu", contracts,
                                     call, clone_tree)
        n_c, ext, wide = 0, [], []
        whole = "every case decides" in note
        for c, (tier, why) in zip(cases, tiers):
            if c.get("dist", "wide") not in ("wide", "seed"):
                wide.append(f"{c['name']} (dist={c['dist']!r}, neither \"wide\" nor \"seed\")")
            if tier == "contract":
                n_c += 1
                # our own random cases only: the seed-call cases are the seed's draws by construction
                if not whole and "dist" not in c and "/seedcall" not in c["name"]:
                    w = C.wide_inputs(c)
                    if w:
                        wide.append(f"{c['name']} ({'; '.join(w)})")
            else:
                ext.append((c["name"], why))
        rows[tid] = (n_c, len(ext), con.unbound, len(con.patterns), ext, note, wide)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["write", "check", "table"])
    ap.add_argument("seed_calls", nargs="?")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    ids = task_ids()
    if a.mode == "write":
        sp = seed_path(a.seed_calls)
        if not sp:
            print("seed-test-calls.json not found", file=sys.stderr)
            return 2
        with open(sp, encoding="utf-8") as f:
            data = derive(json.load(f), ids)
        with open(OUT, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {OUT}: {len(data['tasks'])} tasks, {len(data['drift'])} resolved by stem, "
              f"{len(data['skipped'])} seed files skipped")
        return 0
    with open(OUT, encoding="utf-8") as f:
        committed = json.load(f)
    problems = []
    if a.mode == "check":
        sp = seed_path(a.seed_calls)
        if sp:
            with open(sp, encoding="utf-8") as f:
                fresh = derive(json.load(f), ids)
            if fresh != committed:
                diff = [t for t in set(fresh["tasks"]) | set(committed["tasks"])
                        if fresh["tasks"].get(t) != committed["tasks"].get(t)]
                problems.append(f"tasks/contracts.json is out of step with {sp} "
                                f"(run scripts/contract_sync.py write): {sorted(diff)[:10]}")
            else:
                print(f"contracts.json matches {sp}")
        else:
            print("seed-test-calls.json not at hand: checking the committed contracts only")
    missing = [t for t in ids if t not in committed["tasks"]]
    if missing:
        problems.append(f"{len(missing)} tasks without a contract: {missing[:10]}")
    rows = classify_all([t for t in ids if t not in missing], committed, a.verbose)
    tot_c = tot_e = 0
    everything = []
    for tid, (n_c, n_e, unbound, npat, ext, note, wide) in rows.items():
        tot_c += n_c
        tot_e += n_e
        for w in wide:
            problems.append(f"{tid}: contract case {w} is drawn wider than the seed's standard and outlier "
                            "draws: mark it dist=\"wide\" (extended) or dist=\"seed\" (the seed's test draws such values)")
        if "every case decides" in note:
            everything.append(f"{tid}: {note}")
        if npat == 0 and unbound:
            problems.append(f"{tid}: none of the seed's {unbound} call patterns binds to the reference's signature")
        elif n_c < MIN_CONTRACT:
            problems.append(f"{tid}: no case falls in the contract tier ({n_e} extended; first: {ext[0] if ext else '-'})")
        if a.mode == "table":
            print(f"| {tid} | {n_c} | {n_e} | {npat} | {unbound} | {note} |")
        elif a.verbose:
            for name, why in ext:
                print(f"  {tid} {name}: {why}")
    print(f"{len(rows)} tasks: {tot_c} contract cases, {tot_e} extended cases (public seed 0)")
    for line in everything:
        print("every case decides:", line)
    known = set(KNOWN_WHOLE)
    for line in everything:
        tid = line.split(":")[0]
        if tid not in known:
            problems.append(f"{tid}: every case decides, and it is not in KNOWN_WHOLE (say why there)")
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems and a.mode == "check" else 0


if __name__ == "__main__":
    sys.exit(main())
