#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end cost and timing precision of the evaluation on a GPU machine.

  bench/perf_bench.py SOURCE --out DIR [--repeats 3] [--jobs N] [--device cuda] [--self-check]
  bench/perf_bench.py - --self-check-only --out DIR [--every K --offset O | --tasks LIST] [--gpus 0,1]
                      [--parts P --resume --deadline EPOCH] [--archive FILE --restore FILE]

1. Evaluates SOURCE (any submission format kbx reads) `--repeats` times with `kbx eval --perf`,
   each repeat a round of its own in DIR/bench.sqlite, and prints per kernel the seconds spent in
   each stage (reference cases, candidate, compare, perf) plus totals and the amortised cost per
   kernel (wall time / kernels) of the correctness stage alone and of the whole evaluation.
2. Run-to-run precision: for every (task, shape) timed in all repeats, the coefficient of variation
   of the candidate's median across repeats; the median CV for shapes >= 50 us and below.
3. With --self-check: `kbx tasks --check --perf` `--repeats` times; every task's reference timed
   against itself gives the self-speedup distribution (the noise floor): fraction within
   [0.98, 1.02].
With --self-check-only (SOURCE is then ignored, pass '-'): only step 3, and steps 1-2 are computed
from the self-check runs' known-good solutions (their stage seconds, their per-shape medians over the
repeats). --tasks limits the self-check to a comma-separated task list; --every K [--offset O] takes
every K-th task with a known-good solution (tests/fixtures/good, sorted) from the O-th, so K runs
with O = 1..K cover the set in parts (with SOURCE '-' and without --self-check-only those solutions
are the SOURCE); --gpus spreads every run over several GPUs (kbx --gpus: one timing at a time per GPU).

Time-limited machines (a GPU lent for minutes at a time): --parts splits each self-check run into
several kbx invocations, --resume keeps the runs and parts already finished in DIR, --deadline does
not start one that would end after it; --archive FILE packs DIR's state after the call and --restore
FILE unpacks it into an empty DIR on the next (fresh) machine.
Writes DIR/bench.md (with GPU, versions and date from the run provenance) and prints it."""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import kbxdb  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOOD = os.path.join(ROOT, "tests", "fixtures", "good")


def known_good_tasks(every=1, offset=1):
    """The tasks with a known-good solution ("Category/stem"), sorted; every `every`-th from the
    `offset`-th (1-based), so offsets 1..every partition the set."""
    tasks = sorted(os.path.relpath(f, GOOD)[:-3] for f in glob.glob(os.path.join(GOOD, "*", "*.py")))
    return [t for i, t in enumerate(tasks, 1) if i % every == offset % every]


def default_kbx():
    for b in ("build", "build-gpu"):
        p = os.path.join(ROOT, b, "bin", "kbx")
        if os.path.exists(p):
            return p
    return os.path.join(ROOT, "build", "bin", "kbx")


def restore_state(archive, out):
    """Unpacks an earlier call's state into `out`, unless `out` already holds finished work."""
    if not archive or not os.path.exists(archive) or os.path.exists(os.path.join(out, "unit_walls.json")):
        return
    with tarfile.open(archive, "r:xz") as t:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.12 (and back-ports): no links or paths out of `out`
            t.extractall(out, filter="data")
        else:
            t.extractall(out)
    n = len([f for f in os.listdir(out) if f.endswith(".done")])
    print(f"restored {n} finished runs/parts from {archive}", file=sys.stderr)


def load_rows(dbs, method):
    """What the report reads, through kbxdb: (id, task, round, verdict, stage seconds JSON, evidence
    JSON) per evaluation sorted by round and task, (task, shape, round, candidate ms, baseline ms) per
    timed shape, and the samples JSON of round 0's timings. With a method (the self-check runs), repeat
    r is dbs[r] and only that method's evaluations count; without, the rounds are the submissions'."""
    rows, timing_rows, samples0 = [], [], []
    evs = [(r, e) for r, db in enumerate(dbs) for e in kbxdb.evaluations(db, method=method)]
    first = min((e["round"] for _, e in evs), default=0)
    for r, e in evs:
        rnd = r if method else e["round"]
        rows.append((e["id"] + r * 10000000, e["task"], rnd, e["verdict"], json.dumps(e["stage_seconds"] or {}),
                     json.dumps(e["evidence"] or {})))
        for t in e["timings"]:
            if t["candidate_ms"] is not None:
                timing_rows.append((e["task"], t["shape"], rnd, t["candidate_ms"], t["baseline_ms"]))
            if (r == 0) if method else (e["round"] == first):
                samples0.append(json.dumps(t["samples"]) if t["samples"] is not None else None)
    rows.sort(key=lambda x: (x[2], x[1]))
    return rows, timing_rows, samples0


def archive_state(archive, out):
    """Packs `out` for the next machine: everything but the part databases of runs already merged
    into their run's database (self-check-R.done present)."""
    part = re.compile(r"^self-check-(\d+)-\d+\.sqlite$")
    with tarfile.open(archive, "w:xz", preset=6) as t:
        for name in sorted(os.listdir(out)):
            m = part.match(name)
            if m and os.path.exists(os.path.join(out, f"self-check-{m.group(1)}.done")):
                continue
            if name == "src" or os.path.abspath(os.path.join(out, name)) == os.path.abspath(archive):
                continue
            t.add(os.path.join(out, name), arcname=name)


def sh(cmd, log):
    t0 = time.time()
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    return r.returncode, time.time() - t0


def cv(xs):
    return statistics.pstdev(xs) / statistics.mean(xs) if len(xs) > 1 and statistics.mean(xs) > 0 else 0.0


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source")
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--kbx", default=default_kbx(), help="kbx to run (default: build/bin/kbx, else build-gpu/bin/kbx)")
    ap.add_argument("--perf-config", default="")
    ap.add_argument("--self-check", action="store_true")
    ap.add_argument("--category", default="")
    ap.add_argument("--self-check-only", action="store_true")
    ap.add_argument("--tasks", default="", help="with --self-check: only these tasks (comma-separated)")
    ap.add_argument("--gpus", default="", help="kbx --gpus for every run")
    ap.add_argument("--no-run", action="store_true", help="only (re)write the report from the databases already in --out")
    ap.add_argument("--resume", action="store_true",
                    help="self-check runs already finished in --out (self-check-R.done) are kept, not run again")
    ap.add_argument("--deadline", type=float, default=0,
                    help="epoch seconds: a self-check run that would not finish by then (judged by the longest run "
                         "so far, else --run-estimate) is not started; the report covers the runs done")
    ap.add_argument("--parts", type=int, default=1, help="split each self-check run into this many kbx invocations")
    ap.add_argument("--run-estimate", type=float, default=0, help="seconds one self-check run takes, for --deadline")
    ap.add_argument("--every", type=int, default=0,
                    help="every K-th task with a known-good solution (instead of --tasks; with SOURCE '-' and no "
                         "--self-check-only, those solutions are the SOURCE)")
    ap.add_argument("--offset", type=int, default=1, help="with --every: start at the O-th task (1..K)")
    ap.add_argument("--restore", default="", help="a state archive of an earlier call, unpacked when --out holds none")
    ap.add_argument("--archive", default="", help="after the call, pack --out's state into this .tar.xz")
    a = ap.parse_args()
    if a.self_check_only:
        a.self_check = True
    if a.every:
        if a.tasks:
            ap.error("--every and --tasks choose the tasks both; give one")
        if not 1 <= a.offset <= a.every:
            ap.error("--offset must be within 1..--every")
        a.tasks = ",".join(known_good_tasks(a.every, a.offset))
    if a.source == "-" and not a.self_check_only and not a.tasks:
        ap.error("SOURCE '-' without --self-check-only needs --every or --tasks (known-good solutions)")
    return a


def prepare_source(a):
    """SOURCE '-' (without --self-check-only): the chosen tasks' known-good solutions, copied to OUT/src."""
    if a.source == "-" and not a.self_check_only:
        a.source = os.path.join(a.out, "src")
        for t in a.tasks.split(","):
            os.makedirs(os.path.join(a.source, os.path.dirname(t)), exist_ok=True)
            shutil.copy(os.path.join(GOOD, t + ".py"), os.path.join(a.source, t + ".py"))


def eval_repeats(a, db, log):
    """`kbx eval --perf` --repeats times, each a round of its own in `db`; their walls."""
    walls = []
    for r in range(0 if (a.self_check_only or a.no_run) else a.repeats):
        cmd = [a.kbx, "eval", a.source, "--device", a.device, "--jobs", str(a.jobs), "--perf", "--method", "bench",
               "--round", str(r), "--db", db] + (["--gpus", a.gpus] if a.gpus else [])
        if a.perf_config:
            cmd += ["--perf-config", a.perf_config]
        rc, wall = sh(cmd, log)
        walls.append(wall)
        print(f"repeat {r}: kbx eval rc={rc} in {wall:.0f} s", file=sys.stderr)
    return walls


def self_check_part(a, r, p, parts, task_list, unit_walls, log):
    """Part p of self-check run r (one kbx tasks --check --perf); False when the run must stop
    (the deadline, or kbx did not finish)."""
    key = f"{r}-{p}"
    db_p = os.path.join(a.out, f"self-check-{key}.sqlite" if parts > 1 else f"self-check-{r}.sqlite")
    done = os.path.join(a.out, f"self-check-{key}.done")
    if a.resume and os.path.exists(done):
        return True
    need = max(list(unit_walls.values()) + [a.run_estimate / parts])
    if a.deadline and time.time() + need > a.deadline:
        print(f"self-check {key}: not started ({need:.0f} s needed, {a.deadline - time.time():.0f} s left)", file=sys.stderr)
        return False
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db_p + suffix):
            os.remove(db_p + suffix)  # a part cut short: again from the start
    cmd = [a.kbx, "tasks", "--check", "--device", a.device, "--jobs", str(a.jobs), "--perf", "--db", db_p]
    if a.category:
        cmd += ["--category", a.category]
    if task_list:
        cmd += ["--task", ",".join(task_list[p::parts])]
    if a.gpus:
        cmd += ["--gpus", a.gpus]
    if a.perf_config:
        cmd += ["--perf-config", a.perf_config]
    rc, wall = sh(cmd, log)
    print(f"self-check {key}: rc={rc} in {wall:.0f} s", file=sys.stderr)
    if rc not in (0, 1, 6):  # 1: some unjudged, 6: some task failed its check; the run itself finished
        return False
    unit_walls[key] = wall
    with open(os.path.join(a.out, "unit_walls.json"), "w") as f:
        json.dump(unit_walls, f)
    open(done, "w").close()
    return True


def self_check_runs(a, log):
    """`kbx tasks --check --perf` --repeats times; the walls of the finished runs. A run may be split
    into --parts kbx invocations (tasks interleaved), each with its own database and done-marker, so
    that a run can be spread over several time-limited calls of a GPU machine (--resume,
    --deadline); the parts of a run are then merged (kbx merge) into self-check-R.sqlite, which is
    what the report reads."""
    if a.no_run:
        with open(os.path.join(a.out, "self_walls.json")) as f:
            return json.load(f)
    uw_file = os.path.join(a.out, "unit_walls.json")
    unit_walls = {}
    if a.resume and os.path.exists(uw_file):
        with open(uw_file) as f:
            unit_walls = json.load(f)
    task_list = [t for t in a.tasks.split(",") if t] if a.tasks else []
    parts = max(1, min(a.parts, len(task_list))) if task_list else 1
    for r in range(a.repeats):
        run_done = os.path.join(a.out, f"self-check-{r}.done")
        if a.resume and os.path.exists(run_done):
            print(f"self-check {r}: done before, kept", file=sys.stderr)
            continue
        if not all(self_check_part(a, r, p, parts, task_list, unit_walls, log) for p in range(parts)):
            break
        if parts > 1:
            db_r = os.path.join(a.out, f"self-check-{r}.sqlite")
            rc, _ = sh([a.kbx, "merge", db_r] + [os.path.join(a.out, f"self-check-{r}-{p}.sqlite") for p in range(parts)], log)
            if rc != 0:
                sys.exit(f"kbx merge of run {r} failed (rc {rc}): see {log}")
        open(run_done, "w").close()
    self_walls = [sum(unit_walls.get(f"{r}-{p}", 0.0) for p in range(parts)) for r in range(a.repeats)
                  if os.path.exists(os.path.join(a.out, f"self-check-{r}.done"))]
    with open(os.path.join(a.out, "self_walls.json"), "w") as f:
        json.dump(self_walls, f)
    return self_walls


def header_lines(a, prov, run_provs=()):
    """The header: the device, versions and source of run 0 (`prov`); where a later run's provenance
    (`run_provs`, one per run in order, {} for a run not made) names another device, that run's
    device too, so a table that spans two cards says so."""
    lines = [f"# kbx evaluation cost and timing precision ({time.strftime('%Y-%m-%d', time.gmtime())})", ""]
    dev = (prov.get("devices") or [{}])[0]
    v = prov.get("versions", {})
    lines += [f"- device: {dev.get('name', a.device)} (uuid {dev.get('uuid', '?')}), host {prov.get('host', '?')}",
              f"- versions: python {v.get('python')}, torch {v.get('torch')}, CUDA {v.get('cuda')}, triton {v.get('triton')}",
              f"- source: `{a.source if not a.self_check_only else 'kbx tasks --check --perf (known-good solutions and references)'}`, "
              f"{a.repeats} repeats, --jobs {a.jobs}{', --gpus ' + a.gpus if a.gpus else ''}"
              + (f", tasks: {len(a.tasks.split(','))}" if a.tasks else "")]
    if prov.get("slots"):  # only a run spread over GPU slots (--gpus) records them
        lines.append("- slots: " + "; ".join(f"{s.get('slot')}: {(s.get('devices') or [{}])[0].get('name', '?')}" for s in prov["slots"]))
    for r, p in enumerate(run_provs):
        d = (p.get("devices") or [{}])[0]
        if r and p and d.get("uuid") != dev.get("uuid"):
            lines.append(f"- run {r} on another device: {d.get('name', '?')} (uuid {d.get('uuid', '?')}), host {p.get('host', '?')}")
    return lines + [""]


def per_kernel(rows):
    """Per task its (round, verdict, stage seconds, perf evidence); and the candidate process's own
    phase clock in the correctness stage (repeat 0), per phase."""
    per = {}
    cphases = {}
    for eid, task, rnd, verdict, st, evj in rows:
        st = json.loads(st)
        ev = json.loads(evj)
        p = ev.get("perf", {})
        per.setdefault(task, []).append((rnd, verdict, st, p))
        cp = ev.get("candidate_phases")
        if rnd == 0 and isinstance(cp, dict) and st.get("candidate"):
            row = dict(cp)
            row["process start, sandbox, exit (rest of the stage)"] = max(0.0, st["candidate"] - sum(cp.values()))
            row["candidate stage (supervisor's clock)"] = st["candidate"]
            for k, v in row.items():
                cphases.setdefault(k, []).append(v)
    return per, cphases


def stage_table_lines(a, per, walls, n_all0):
    """The seconds per kernel and stage (repeat 0) with totals and the amortised wall; and how many
    kernels repeat 0 has."""
    lines = ["## Seconds per kernel and stage (repeat 0)", "",
             "| task | verdict | candidate s | compare s | precompile s | perf s | geomean speedup [95% CI] | triton share |",
             "|---|---|---|---|---|---|---|---|"]
    tot = {"candidate": 0.0, "compare": 0.0, "precompile": 0.0, "perf": 0.0}
    n0 = 0
    for task in sorted(per):
        for rnd, verdict, st, p in per[task]:
            if rnd != 0:
                continue
            n0 += 1
            g = p.get("geomean_speedup")
            gs = f"{g['estimate']:.3f} [{g['lo']:.3f}, {g['hi']:.3f}]" if g else p.get("error", "-")
            att = p.get("attribution", {})
            share = f"{100 * att['triton_share']:.0f}%" if att.get("available") else "-"
            c, m, pc, ps = st.get("candidate", 0.0), st.get("compare", 0.0), st.get("precompile", 0.0), p.get("seconds", 0.0)
            tot["candidate"] += c
            tot["compare"] += m
            tot["precompile"] += pc
            tot["perf"] += ps
            lines.append(f"| {task} | {verdict} | {c:.1f} | {m:.1f} | {pc:.1f} | {ps:.1f} | {gs} | {share} |")
    lines += ["", f"Totals over {n0} kernels (process seconds, summed over parallel jobs): candidate {tot['candidate']:.0f} s, "
              f"compare {tot['compare']:.0f} s, precompile (perf shapes' Triton kernels, in the correctness stage) "
              f"{tot['precompile']:.0f} s, perf {tot['perf']:.0f} s.",
              ("Wall time per repeat: not recorded (the runs were not made by this call)." if not walls else
               f"Wall time per repeat: {', '.join(f'{w:.0f} s' for w in walls)}; amortised "
               + (f"{walls[0] / max(1, n0):.2f} s per kernel for the whole evaluation (correctness + perf)." if not a.self_check_only else
                  f"{walls[0] / max(1, n_all0):.2f} s per evaluated kernel ({n_all0} references and known-good solutions in run 0, correctness + perf).")), ""]
    return lines, n0


def candidate_phase_lines(cphases):
    if not cphases:
        return []
    lines = ["## Correctness stage: the candidate process by phase (repeat 0, seconds per kernel)", "",
             "Reported by the worker (interpreter start, `import torch` and the harness, inputs and static checks, "
             "import of the candidate, its first case with the device context and Triton's JIT, the other cases, "
             "saving the outputs); the rest is the supervisor's stage time minus their sum.", "",
             "| phase | median | mean | max |", "|---|---:|---:|---:|"]
    lines += [f"| {k} | {statistics.median(v):.2f} | {statistics.mean(v):.2f} | {max(v):.2f} |" for k, v in cphases.items()]
    return lines + [""]


def perf_phase_lines(per):
    # Where the perf stage's seconds go (the perf worker's own phase clock; "start" is the process
    # wall minus their sum: interpreter, sandbox, `import torch` before run()).
    ph_names, ph = [], {}
    for task in per:
        for rnd, verdict, st, p in per[task]:
            phs = p.get("phases")
            if rnd != 0 or not isinstance(phs, dict):
                continue
            row = dict(phs)
            row["start (rest of wall)"] = max(0.0, p.get("seconds", 0.0) - sum(phs.values()))
            for k, v in row.items():
                if k not in ph_names:
                    ph_names.append(k)
                ph.setdefault(k, []).append(v)
    if not ph:
        return []
    lines = ["## Perf stage by phase (repeat 0, seconds per kernel)", "", "| phase | median | mean | max |", "|---|---:|---:|---:|"]
    lines += [f"| {k} | {statistics.median(ph[k]):.2f} | {statistics.mean(ph[k]):.2f} | {max(ph[k]):.2f} |" for k in ph_names]
    return lines + [""]


def exclusive_lines(per, samples0, n0):
    # The perf stage's exclusive GPU time (each timing's window holding its GPU) and how much of it
    # the candidates' first calls (Triton JIT, autotuning) and compilations took.
    wins, compiles, n_compiling, n_counted = 0.0, 0, 0, 0
    for task in per:
        for rnd, verdict, st, p in per[task]:
            w = p.get("window")
            if rnd == 0 and isinstance(w, list) and len(w) == 2:
                wins += w[1] - w[0]
            if rnd == 0 and isinstance(p.get("triton_compiles"), int):
                compiles += p["triton_compiles"]
                n_compiling += p["triton_compiles"] > 0
                n_counted += 1
    first = 0.0
    for smp in samples0:
        try:
            first += float(json.loads(smp).get("first_call_s", {}).get("candidate", 0.0))
        except (TypeError, ValueError, AttributeError):
            pass
    if not wins:
        return []
    return ["## Exclusive GPU time of the perf stage (repeat 0)", "",
            f"- timed windows (a GPU held by one timing): {wins:.0f} s over {n0} kernels",
            f"- of which the candidates' first calls per shape (JIT, autotuning, first launch): {first:.0f} s",
            (f"- Triton compilations inside the windows: {compiles} (in {n_compiling} of {n_counted} kernels); "
             "the precompile step compiles the perf shapes before, beside the correctness work" if n_counted else
             "- Triton compilations inside the windows: not recorded by this kbx (before the precompile step)"), ""]


def launch_gap_lines(samples0):
    # The launch gap's starvation check (docs/PERF_PROTOCOL.md, "Starved samples"), repeat 0.
    gaps = []
    for smp in samples0:
        try:
            d = json.loads(smp)
        except (TypeError, ValueError):
            continue
        if isinstance(d, dict) and "starved" in d:
            gaps.append(d)
    if not gaps:
        return []
    st = [sum(d["starved"].values()) for d in gaps]
    return ["## Launch gap (repeat 0, known-good shapes)", "",
            f"- shapes with starved samples (dropped, gap doubled): {sum(1 for x in st if x)} of {len(gaps)}, "
            f"{sum(st)} samples in all, at most {max(st)} in one shape",
            f"- shapes whose candidate waits for the device inside its call (host_sync, exempt): "
            f"{sum(1 for d in gaps if d.get('host_sync', {}).get('candidate'))}; not probed (a warm-up call "
            f"of 10 ms or more, unchecked): {sum(1 for d in gaps if d.get('host_sync', {}).get('candidate', False) is None)}",
            f"- shapes whose starved samples had to be kept (flag host_latency_in_samples): "
            f"{sum(1 for d in gaps if d.get('starved_kept'))}", ""]


def precision_lines(repeats, timing_rows):
    """Run-to-run precision of per-shape medians."""
    by = {}
    for task, shape, rnd, cms, bms in timing_rows:
        by.setdefault((task, shape), {})[rnd] = (cms, bms)
    big, small = [], []
    for k, d in by.items():
        if len(d) < repeats:
            continue
        c = [x[0] for x in d.values()]
        (big if statistics.median(c) >= 0.05 else small).append(cv(c))
    if repeats < 2:
        return ["## Run-to-run precision", "", "- needs at least 2 runs; this report covers 1", ""]
    return ["## Run-to-run precision (CV of per-shape candidate medians over the repeats)", "",
            f"- shapes >= 50 us: {len(big)}, median CV {100 * statistics.median(big):.2f}%" if big else "- shapes >= 50 us: none",
            f"- shapes < 50 us: {len(small)}, median CV {100 * statistics.median(small):.2f}%, worst {100 * max(small):.2f}%"
            if small else "- shapes < 50 us: none", ""]


def self_speedup_lines(a, self_walls):
    """Every task's reference timed against itself over the self-check runs: the noise floor."""
    sp = {}
    for r in range(a.repeats):
        for e in kbxdb.evaluations(os.path.join(a.out, f"self-check-{r}.sqlite"), method="reference"):
            g = (e["evidence"] or {}).get("perf", {}).get("geomean_speedup")
            if g:
                sp.setdefault(e["task"], []).append(g["estimate"])
    return self_speedup_table(sp, a.repeats, self_walls)


def self_speedup_table(sp, repeats, self_walls, rows=10):
    """The noise-floor section from {task: [self-speedup per run]}: the band count, the range over every
    run and the `rows` tasks whose median is furthest from 1 (the heading says so when tasks are left out)."""
    allv = [x for v in sp.values() for x in v]
    inside = [x for x in allv if 0.98 <= x <= 1.02]
    per_task_ok = [t for t, v in sp.items() if all(0.98 <= x <= 1.02 for x in v)]
    span = f"; range {min(allv):.3f}-{max(allv):.3f}" if allv else ""
    lines = ["## Reference against itself (self-speedup, the noise floor)", "",
             f"- {len(sp)} tasks x {repeats} runs: {len(inside)} of {len(allv)} self-speedups within [0.98, 1.02] "
             f"({100 * len(inside) / max(1, len(allv)):.1f}%){span}; tasks within in every run: {len(per_task_ok)} of {len(sp)}",
             f"- wall per self-check run: {', '.join(f'{w:.0f} s' for w in self_walls)}", ""]
    worst = sorted(((abs(statistics.median(v) - 1), t, v) for t, v in sp.items()), key=lambda w: (-w[0], w[1]))[:rows]
    head = "task" if len(worst) == len(sp) else f"task (the {len(worst)} of {len(sp)} furthest from 1)"
    return lines + [f"| {head} | self-speedups |", "|---|---|"] + [f"| {t} | {', '.join(f'{x:.3f}' for x in v)} |" for _, t, v in worst]


def report(a, db, walls, self_walls):
    """bench.md's text: the eval repeats of `db`, or (--self-check-only) the self-check runs' known-good
    solutions standing in for them (repeat r is self-check r)."""
    n_all0 = 0
    run_provs = []
    if a.self_check_only:
        dbs = [os.path.join(a.out, f"self-check-{r}.sqlite") for r in range(a.repeats)]
        rows, timing_rows, samples0 = load_rows(dbs, "known-good")
        prov = kbxdb.provenance(dbs[0])
        run_provs = [kbxdb.provenance(d) if os.path.exists(d) else {} for d in dbs]  # {}: that run not made
        walls = self_walls[:]
        n_all0 = len(kbxdb.open_db(dbs[0]).evaluations())
    else:
        rows, timing_rows, samples0 = load_rows([db], None)
        prov = kbxdb.provenance(db)
    per, cphases = per_kernel(rows)
    table, n0 = stage_table_lines(a, per, walls, n_all0)
    lines = (header_lines(a, prov, run_provs) + table + candidate_phase_lines(cphases) + perf_phase_lines(per) +
             exclusive_lines(per, samples0, n0) + launch_gap_lines(samples0) + precision_lines(a.repeats, timing_rows))
    if a.self_check:
        lines += self_speedup_lines(a, self_walls)
    return "\n".join(lines) + "\n"


def main():
    a = parse_args()
    os.makedirs(a.out, exist_ok=True)
    restore_state(a.restore, a.out)
    prepare_source(a)
    db = os.path.join(a.out, "bench.sqlite")
    log = os.path.join(a.out, "bench.log")
    walls = eval_repeats(a, db, log)
    self_walls = self_check_runs(a, log) if a.self_check else []
    if a.archive and not a.no_run:
        archive_state(a.archive, a.out)  # also when no run finished: the next call resumes the parts
    if a.self_check_only:
        # The report covers the finished runs (repeats = how many there are).
        a.repeats = len([r for r in range(a.repeats) if os.path.exists(os.path.join(a.out, f"self-check-{r}.done"))
                         or (a.no_run and os.path.exists(os.path.join(a.out, f"self-check-{r}.sqlite")))])
        if a.repeats == 0:
            sys.exit("no finished self-check run in " + a.out)
    text = report(a, db, walls, self_walls)
    with open(os.path.join(a.out, "bench.md"), "w") as f:
        f.write(text)
    print(text)
    if a.archive:
        archive_state(a.archive, a.out)


if __name__ == "__main__":
    main()
