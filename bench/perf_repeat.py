#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A submission set evaluated twice with --perf, as a user would run it (issue 22, bench/).

  bench/perf_repeat.py SOURCE --out DIR [--runs 2] [--kbx build/bin/kbx] [--deadline EPOCH [--run-estimate S]]
                       [--run R] [-- KBX_EVAL_ARGS...]

Runs `kbx eval SOURCE --device cuda --perf --json` --runs times with kbx's default options (no
--jobs unless passed after --), each into DIR/run-R.sqlite with its stdout in DIR/run-R.jsonl and
its stderr, every line time-stamped, in DIR/run-R.log. Then writes DIR/repeat.md:

1. stage cost per run: the correctness stage's wall (start to its last progress line) per kernel,
   amortised, and the perf stage's wall; the first progress line (the jobs kbx picked and why); the
   five longest evaluations with their phases;
2. run-to-run: for every (kernel, shape) timed in both runs, |m2 - m1| / mean(m1, m2) of the
   per-shape medians, candidate and eager side apart, p50/p90/max for shapes >= 50 us and below;
   the kernels behind the candidate side's p90 and above, with their flags and autotune choices;
3. CI coverage: the share of kernels whose second-run geomean speedup lies inside the first run's
   95 % interval (kbx-perf-2: the repeat interval over fresh processes), the median relative width,
   the same for the first process's within-process CI alone, and the between-process spread measured;
4. run-level shifts: shape sides whose processes agree in each run but not across the runs, with
   each process's median, spacer and gap; with the placement experiment (kbx eval --perf-config
   '{"placement_gap_mb": N}'), the shape sides whose processes spread, sorted by their gap, and the
   rank correlation of time and gap; with the history flip (kbx eval --perf-config '{"history_flip": 1}'),
   the shape sides whose processes split by their bit; with the parity balance (kbx's default on cuda,
   parity_balance 2; or 1), the plain and the four-group medians side by side: run-to-run spread and
   coverage from the same samples;
5. autotune: shapes whose chosen config differs between the runs;
6. rooflines: shapes flagged faster_than_roofline, with the peak dtype they were held against.
With --deadline no run starts that would not end before it, by the longest run made so far (runs.json)
or, before any, by --run-estimate; a run that has started is not stopped. With --run R a run so refused
exits 3 and leaves runs.json as it was.
The header names each run's GPU (the NVML uuid its perf workers recorded): runs on different GPUs
make a cross-machine repeat, which the report says, since the repeat interval is for the same GPU.
A kernel is the (task, code hash) pair, so the same code in two records is one kernel."""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

# perf::repeatInterval's formula, kept once for the bench scripts (bench/prior_sim.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from prior_sim import kernel_shape_variances, repeat_interval, shape_spread_variance  # noqa: E402
from perf_experiments import flip_lines, gap_lines, parity_lines, ranks, spearman  # noqa: E402,F401 (ranks, spearman: for the tests)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import kbxdb  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def gpu_uuids():
    """The NVML uuids of this machine's GPUs (nvidia-smi), or [] where there is none."""
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [l.strip() for l in p.stdout.splitlines() if l.strip()] if p.returncode == 0 else []


def cross_machine_warning(first, here, run):
    """The warning for run `run` on a machine whose GPUs (here) share none with run 0's (first), else None."""
    if not first or not here or set(first) & set(here):
        return None
    return (f"perf_repeat.py: warning: run 0 ran on {', '.join(first)}, this machine has {', '.join(here)}: run {run} "
            f"makes a cross-machine repeat; for a repeat on one GPU start again at --run 0")


def run_once(kbx, source, r, out, extra, device="cuda", replay_from=None):
    db = os.path.join(out, f"run-{r}.sqlite")
    if replay_from is not None:
        extra = extra + ["--autotune-replay", os.path.join(out, f"run-{replay_from}.sqlite")]
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    cmd = [kbx, "eval", source, "--device", device, "--perf", "--json", "--method", "bench", "--db", db] + extra
    t0 = time.time()
    first, first_at, last_correct, lines = None, None, None, []
    with open(os.path.join(out, f"run-{r}.jsonl"), "w") as so, open(os.path.join(out, f"run-{r}.log"), "w") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        p = subprocess.Popen(cmd, stdout=so, stderr=subprocess.PIPE, text=True, bufsize=1)
        for line in p.stderr:
            t = time.time() - t0
            log.write(f"{t:8.2f} {line}")
            if line.startswith("kbx: evaluating") and first is None:
                first, first_at = line.strip(), t
            if line.startswith("[") and not line.startswith("[perf"):
                last_correct = t
            lines.append(line)
        rc = p.wait()
    return {"rc": rc, "wall": time.time() - t0, "correct_wall": last_correct or 0.0, "first": first or "", "first_at": first_at, "db": db,
            "gpus": gpu_uuids()}


def summed_stage_seconds(evs):
    """The correctness stage's seconds of a run's evaluations (kbxdb), summed per stage_seconds key:
    "reference" and the reference's phases once per task (its candidates share it), every other key
    over every evaluation. Returns (sums, reference phases, tasks)."""
    sums, ref_phases, seen = {}, {}, set()
    for e in evs:
        st = e["stage_seconds"] or {}
        first = e["task"] not in seen
        seen.add(e["task"])
        for k, v in st.items():
            if isinstance(v, (int, float)) and (k != "reference" or first):
                sums[k] = sums.get(k, 0.0) + float(v)
        if first:
            for k, v in (st.get("reference_phases") or {}).items():
                ref_phases[k] = ref_phases.get(k, 0.0) + float(v or 0)
    return sums, ref_phases, len(seen)


def load(db):
    evs = kbxdb.evaluations(db)
    n = len(evs)
    kern, shapes = {}, {}
    for e in evs:
        task, code = e["task"], e["code_hash"]
        kern[(task, code)] = (e["evidence"] or {}).get("perf") or {}
        for t in e["timings"]:
            if t["candidate_ms"] and t["baseline_ms"]:
                shapes[(task, code, t["shape"])] = (t["candidate_ms"], t["baseline_ms"], t["samples"] or {})
    prov = dict(kbxdb.provenance(db))
    # The correctness stage's phases (issue 22): each task's reference once (shared by its
    # candidates), every candidate's own processes, the extended tier, autotune sweep and precompile
    # too: the stage's work is their sum, which its wall does not show
    # (bench/results/2026-12-04-h200-extstart).
    sums, ref_phases, ntasks = summed_stage_seconds(evs)
    phases = {label: sums.get(key, 0.0) for label, key in (
        ("reference (per task)", "reference"), ("candidate", "candidate"), ("compare", "compare"),
        ("extended tier", "candidate_extended"), ("autotune sweep", "autotune_sweep"), ("precompile", "precompile"))}
    prov["_phases"] = (phases, ref_phases, ntasks)
    # The longest evaluations of the correctness stage (their own wall, `evaluation`): the stage's
    # wall cannot be shorter than the longest, and their phases say what made it long.
    longest = []
    for e in evs:
        st = e["stage_seconds"] or {}
        if isinstance(st.get("evaluation"), (int, float)):
            parts = {k: float(st[k]) for k in ("reference", "candidate", "autotune_sweep", "candidate_extended",
                                               "contract_started_after", "extended_started_after", "precompile") if isinstance(st.get(k), (int, float))}
            longest.append((float(st["evaluation"]), e["task"], e["code_hash"][:8], parts))
    longest.sort(key=lambda x: -x[0])
    prov["_longest"] = longest[:5]
    # The GPUs the perf workers ran on (NVML uuid in each kernel's evidence): a repeat on another
    # GPU measures the spread between machines too, not the run-to-run spread of one.
    gpus = {}
    for p in kern.values():
        for side in ("nvml_before", "nvml_after"):
            u = (p.get(side) or {}).get("uuid")
            if u:
                gpus[u] = gpus.get(u, 0) + 1
    prov["_gpus"] = sorted(gpus)
    return n, kern, shapes, prov


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


def dist(xs):
    return f"{100 * pct(xs, .5):.2f} % / {100 * pct(xs, .9):.2f} % / {100 * max(xs):.2f} % (n={len(xs)})" if xs else "-"


def autotune_of(smp):
    return {k.get("kernel"): k.get("config") for k in smp.get("autotune") or [] if isinstance(k, dict)}


def coverage_table(k0, k1, label, s0=None, s1=None, floor=None):
    """Run 0's repeat interval against run R's estimate, recomputed for several priors from the
    stored per-process estimates, with the floor the shapes give where the run used it (its evidence
    has shape_spread_rel, or as `floor` says: True/False; s0/s1: the runs' stored timings); and how many
    kernels got extra processes."""
    L = [f"### {label}", "", "| prior | run 0's interval holds the other run | the other run's holds run 0 | median width |",
         "|---|---|---|---|"]
    both = [kk for kk in sorted(set(k0) & set(k1))
            if (k0[kk] or {}).get("geomean_speedup_per_process") and (k1[kk] or {}).get("geomean_speedup_per_process")]
    if not both:
        return L + ["(no kernel timed in both)", ""]
    df = ((k0[both[0]] or {}).get("geomean_speedup") or {}).get("prior_df", 4)
    used = ((k0[both[0]] or {}).get("geomean_speedup") or {}).get("prior_rel")
    floored = "shape_spread_rel" in ((k0[both[0]] or {}).get("geomean_speedup") or {}) if floor is None else floor
    v0 = kernel_shape_variances(s0 or {}) if floored else {}
    v1 = kernel_shape_variances(s1 or {}) if floored else {}
    if floored:
        L[0] += " (each interval at least what its shapes spread, perf::shapeSpreadVariance)"
    elif floor is False:
        L[0] += " (the processes' geomeans and the prior alone)"
    for prior in sorted({0.003, 0.005, 0.006, 0.0065, 0.007, 0.0085} | ({used} if used else set())):
        a = b = 0
        widths = []
        for kk in both:
            p0, p1 = k0[kk]["geomean_speedup_per_process"], k1[kk]["geomean_speedup_per_process"]
            e0, lo0, hi0 = repeat_interval(p0, prior, df, v0.get(kk, 0.0))
            e1, lo1, hi1 = repeat_interval(p1, prior, df, v1.get(kk, 0.0))
            a += lo0 <= e1 <= hi0
            b += lo1 <= e0 <= hi1
            widths.append((hi0 - lo0) / e0)
        mark = " (this run's)" if used and abs(prior - used) < 1e-9 else ""
        L.append(f"| {100 * prior:.2f} %{mark} | {a}/{len(both)} | {b}/{len(both)} | {100 * statistics.median(widths):.2f} % |")
    extra0 = sum(1 for kk in both if (k0[kk] or {}).get("extra_processes"))
    extra1 = sum(1 for kk in both if (k1[kk] or {}).get("extra_processes"))
    replayed = sum(1 for kk in both if (k1[kk] or {}).get("autotune_replay"))
    L += ["", f"- kernels timed in extra processes (first processes disagreed): run 0 {extra0}, the other run {extra1}; "
          f"kernels whose autotune choices the other run replayed: {replayed}", ""]
    return L


def parse_args(argv):
    """The options, and the kbx eval arguments after `--`."""
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source")
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--device", default="cuda", help="cpu only to try the plumbing (interpreter timings mean nothing)")
    ap.add_argument("--kbx", default=os.path.join(ROOT, "build", "bin", "kbx"))
    ap.add_argument("--deadline", type=float, default=0,
                    help="epoch seconds: no run starts that would end after it (by the longest run so far, else --run-estimate)")
    ap.add_argument("--run-estimate", type=float, default=0,
                    help="with --deadline, the seconds a run is expected to take before any run was made (0: unknown, start)")
    ap.add_argument("--no-run", action="store_true", help="only the report, from the databases in --out")
    ap.add_argument("--replay-run", type=int, help="this run replays run 0's autotune choices (kbx eval --autotune-replay); "
                    "the report then also holds run 0 against it")
    ap.add_argument("--shape-floor", choices=("stored", "on", "off"), default="stored",
                    help="the recomputed coverage table: the shapes' floor as the run stored it (its evidence's "
                    "shape_spread_rel), or on/off whatever the run did (to re-read runs made before it existed)")
    ap.add_argument("--run", type=int, help="only run number RUN (one device call each), kept in --out's runs.json; "
                    "the report once every run of --runs is there")
    return ap.parse_args(argv), extra


def start_refusal(run, made, estimate, deadline, now):
    """Why run `run` must not start before `deadline` (epoch seconds; 0: none), or None: it would end
    after it by the longest of the runs `made` so far (their runs.json entries; None for a run not
    made), or by `estimate` seconds before any was made (0: unknown, so it starts)."""
    walls = [r["wall"] for r in made if r and r.get("wall")]
    need = max(walls) if walls else estimate
    if not deadline or not need or now + need * 1.1 <= deadline:
        return None
    return (f"run {run}: not started (deadline): about {need * 1.1:.0f} s needed "
            f"({'the longest run so far' if walls else '--run-estimate'} plus 10 %), {max(0.0, deadline - now):.0f} s left")


def do_runs(a, extra, meta_file):
    """The runs this call makes (all of them, one with --run, none with --no-run), kept in
    runs.json; the runs of the report, or None while --run has not made every run yet."""
    replay = lambda r: 0 if a.replay_run is not None and r == a.replay_run else None  # noqa: E731
    if a.run is not None:
        runs = []
        if os.path.exists(meta_file):
            with open(meta_file) as f:
                runs = json.load(f)
        runs = (runs + [None] * (a.run + 1))[:max(len(runs), a.run + 1)]
        # One run per device call: a machine that went cold between the calls may be another GPU.
        # Say so before spending the call (the report calls such a repeat cross-machine).
        if a.run > 0 and (warning := cross_machine_warning((runs[0] or {}).get("gpus"), gpu_uuids(), a.run)):
            print(warning, file=sys.stderr)
        if why := start_refusal(a.run, runs, a.run_estimate, a.deadline, time.time()):
            print(why, file=sys.stderr)
            sys.exit(3)
        runs[a.run] = run_once(a.kbx, a.source, a.run, a.out, extra, a.device, replay(a.run))
        print(f"run {a.run}: rc={runs[a.run]['rc']} wall {runs[a.run]['wall']:.0f} s", file=sys.stderr)
        with open(meta_file, "w") as f:
            json.dump(runs, f, indent=1)
        if len(runs) < a.runs or any(r is None for r in runs):
            print(f"{sum(r is not None for r in runs)} of {a.runs} runs in {a.out}: no report yet", file=sys.stderr)
            return None
        return runs
    if a.no_run:
        with open(meta_file) as f:
            return json.load(f)
    runs = []
    for r in range(a.runs):
        if why := start_refusal(r, runs, a.run_estimate, a.deadline, time.time()):
            print(why, file=sys.stderr)
            break
        runs.append(run_once(a.kbx, a.source, r, a.out, extra, a.device, replay(r)))
        print(f"run {r}: rc={runs[-1]['rc']} wall {runs[-1]['wall']:.0f} s", file=sys.stderr)
        with open(meta_file, "w") as f:
            json.dump(runs, f, indent=1)
    return runs


def host_cpu_text(h):
    """A run's host_cpu provenance as words; databases written before kbx recorded it say so."""
    if not isinstance(h, dict):
        return "not recorded"
    mem = h.get("mem_available_gib")
    return (f"{h.get('model') or 'model not known'}, {h.get('cores', '?')} core(s)"
            + (f", {mem:g} GiB available" if isinstance(mem, (int, float)) else ""))


def header_lines(a, extra, runs, data, gpus, cross):
    n0, _, _, prov = data[0]
    dev = (prov.get("devices") or [{}])[0]
    v = prov.get("versions", {})
    L = [f"# Repeat of a real generated set with --perf ({time.strftime('%Y-%m-%d', time.gmtime())})", "",
         f"- device: {dev.get('name', '?')}; python {v.get('python')}, torch {v.get('torch')}, CUDA {v.get('cuda')}, "
         f"triton {v.get('triton')}", f"- source: `{a.source}`, {n0} kernels evaluated; kbx options: "
         f"`{' '.join(extra) or '(defaults)'}`", f"- first progress line: `{runs[0]['first']}`"]
    L.append("- GPUs (NVML uuid of the perf workers): " + "; ".join(
        f"run {i} {', '.join(g) or 'not recorded'}" for i, g in enumerate(gpus)))
    L.append("- host CPU (the runs' provenance `host_cpu`; the correctness stage's wall is bound by it): " + "; ".join(
        f"run {i} {host_cpu_text(d[3].get('host_cpu'))}" for i, d in enumerate(data)))
    same = all(g and g == gpus[0] for g in gpus)
    if cross:
        L.append("- **a cross-machine repeat: the runs were timed on different GPUs.** Run-to-run and coverage "
                 "below include the spread between machines; the repeat interval is meant for a repeat on the same GPU")
    elif not same and len(gpus) > 1:
        L.append("- whether the runs shared a GPU is not known (a run recorded no NVML uuid)")
    return L


def stage_cost_lines(runs, data):
    # The correctness wall counts from kbx's start to its last verdict; the first progress line comes
    # when the run begins (after the worker probe), so its time is the start's share of that wall.
    L = ["", "## Stage cost", "", "| run | rc | correctness wall | of it before the run | per kernel (amortised) | perf stage wall | total |",
         "|---|---|---|---|---|---|---|"]
    for i, r in enumerate(runs):
        n = data[i][0]
        before = f"{r['first_at']:.1f} s" if r.get("first_at") is not None else "not recorded"
        L.append(f"| {i} | {r['rc']} | {r['correct_wall']:.0f} s | {before} | {r['correct_wall'] / max(1, n):.2f} s | "
                 f"{r['wall'] - r['correct_wall']:.0f} s | {r['wall']:.0f} s |")
    L += ["", "Correctness stage, summed over processes (seconds of worker wall; the stage runs --jobs of them at once):", "",
          "| run | " + " | ".join(data[0][3]["_phases"][0]) + " | reference phases |",
          "|---" * (len(data[0][3]["_phases"][0]) + 2) + "|"]
    for i in range(len(data)):
        ph, rph, ntask = data[i][3]["_phases"]
        L.append(f"| {i} | " + " | ".join(f"{v:.0f}" for v in ph.values()) + f" | {ntask} tasks: " +
                 (", ".join(f"{k} {v:.1f}" for k, v in rph.items()) or "not recorded") + " |")
    L += ["", "Longest evaluations of the correctness stage (their own wall; the stage's wall is at least the longest; "
          "autotune_sweep is summed over its parallel processes, the extended tier runs beside the rest):", ""]
    for i in range(len(data)):
        for ev_s, task, code, parts in data[i][3].get("_longest", []):
            L.append(f"- run {i}: {task} {code} {ev_s:.1f} s (" + ", ".join(f"{k} {v:.1f}" for k, v in parts.items()) + ")")
    return L + [""]


RUN_SHIFT_MIN, RUN_SHIFT_TIMES_SD = 0.01, 3.0


def trimmed_rel_sd(xs):
    """The processes' relative sd (sd / mean), from four processes on without the one farthest from
    their median: one process off on its own does not make the others' spread. (Not the median
    absolute deviation: with three processes it is 0 when two agree, and a median that moves because
    one process of each run sits at the other level would read as a run-level shift.)"""
    if len(xs) >= 4:
        m = statistics.median(xs)
        xs = sorted(xs, key=lambda x: abs(x - m))[:-1]
    return statistics.stdev(xs) / statistics.mean(xs)


# Flags that do not say why a timing moved between runs (an audit of the roofline bound or of the
# speedup's size; a shape that did not run): shown beside a kernel, never counted as its cause. A
# roofline flag from a copy-bandwidth peak measured low once stood as the only "cause" of two
# kernels' 3-4 % moves (bench/results/2026-12-06-h100-first-wave-20d8ea2).
NOT_TIMING_CAUSES = ("faster_than_roofline", "speedup_over_10x", "shape_failed")


class RunPair:
    """Run 0 and run 1 of a repeat: per-kernel evidence (k0, k1) and per-shape timings (s0, s1)."""

    def __init__(self, d0, d1):
        _, self.k0, self.s0, _ = d0
        _, self.k1, self.s1, _ = d1
        self.at_diff = []  # (key, run 0's autotune choices, run 1's) where they differ
        for key in sorted(set(self.s0) & set(self.s1)):
            a0, a1 = autotune_of(self.s0[key][2]), autotune_of(self.s1[key][2])
            if a0 and a1 and a0 != a1:
                self.at_diff.append((key, a0, a1))
        self.at_kernels = {key[:2] for key, _, _ in self.at_diff}
        self.shifts_compared, self.shifts = self.run_shifts()

    def common_mode(self, kk, shape):
        # Both sides of the shape moved the same way between the runs and their ratio moved by less
        # than half as much: the machine's state (clocks, placement) shifted under both, and the
        # paired speedup cancelled most of it.
        (c0, b0, _), (c1, b1, _) = self.s0[kk + (shape,)], self.s1[kk + (shape,)]
        dc, db = c1 / c0 - 1, b1 / b0 - 1
        ds = (b1 / c1) / (b0 / c0) - 1
        if dc * db > 0 and abs(ds) < abs(dc) / 2:
            return f"common_mode:{shape} (candidate {100 * dc:+.1f} %, eager {100 * db:+.1f} %, speedup {100 * ds:+.1f} %)"
        return None

    def process_spread(self, kk, shape):
        # The candidate's per-process medians within one run already differ by at least the
        # run-to-run difference: a process-level effect (where the inputs landed, kbx_harness/perf.py
        # placement_offset) that each process samples at random and the repeat interval includes.
        (c0, _, m0), (c1, _, m1) = self.s0[kk + (shape,)], self.s1[kk + (shape,)]
        d = abs(c1 - c0) / ((c0 + c1) / 2)
        spread = 0.0
        for m in (m0, m1):
            pc = [p.get("candidate_ms") or 0 for p in m.get("per_process") or []]
            pc = [x for x in pc if x > 0]
            if len(pc) >= 2:
                spread = max(spread, (max(pc) - min(pc)) / (sum(pc) / len(pc)))
        if spread >= d:
            return f"process_spread:{shape} (one run's processes {100 * spread:.1f} % apart)"
        return None

    def run_shifts(self):
        """(shape-sides compared, [(key, side, run 0's median, shift, processes' sd)]): the sides of a
        shape whose median over the processes moved between the runs by more than RUN_SHIFT_MIN and more
        than RUN_SHIFT_TIMES_SD times the processes' own spread (trimmed_rel_sd, pooled over the two
        runs). The processes of one run agreed and the other run's agreed elsewhere: a run-level part
        that the repeat interval, built from the processes of one run, cannot see. Robust because one
        process off on its own (Optimizer/RMSProp 1M_params in the 0a58635 pair: 35.62 us against
        34.51-34.69) would otherwise hide a shift that the others share."""
        compared, out = 0, []
        for key in sorted(set(self.s0) & set(self.s1)):
            per = [self.s0[key][2].get("per_process") or [], self.s1[key][2].get("per_process") or []]
            for side, field in (("candidate", "candidate_ms"), ("eager", "reference_ms")):
                xs = [[x for x in ((p or {}).get(field) for p in run) if isinstance(x, (int, float)) and x > 0] for run in per]
                if min(len(x) for x in xs) < 2:
                    continue
                compared += 1
                m0, m1 = statistics.median(xs[0]), statistics.median(xs[1])
                shift = (m1 - m0) / ((m0 + m1) / 2)
                sd = math.sqrt(sum(trimmed_rel_sd(x) ** 2 for x in xs) / 2)
                if abs(shift) > RUN_SHIFT_MIN and abs(shift) > RUN_SHIFT_TIMES_SD * sd:
                    out.append((key, side, m0, shift, sd))
        return compared, out

    def flags(self, kk):
        """A kernel's flags in either run, in order, each once."""
        out = []
        for run_k in (self.k0, self.k1):
            for f in (run_k.get(kk) or {}).get("flags") or []:
                if f not in out:
                    out.append(f)
        return out

    def causes(self, kk, shape=None):
        """A kernel's causes: its flags in either run that say why a timing moves (NOT_TIMING_CAUSES
        left out), an autotuner that chose differently between the runs, and (for a shape) a
        common-mode shift or a process-level spread."""
        out = [f for f in self.flags(kk) if f.split(":")[0] not in NOT_TIMING_CAUSES]
        if kk in self.at_kernels:
            out.append("autotune_choice_differs_between_runs")
        if shape is not None and not out and (cm := self.common_mode(kk, shape) or self.process_spread(kk, shape)):
            out.append(cm)
        return out


def run_to_run_lines(pair):
    rows = {"candidate": ([], []), "eager": ([], [])}
    per_kernel_worst = {}
    for key in sorted(set(pair.s0) & set(pair.s1)):
        (c0, b0, _), (c1, b1, _) = pair.s0[key], pair.s1[key]
        for side, x0, x1 in (("candidate", c0, c1), ("eager", b0, b1)):
            d = abs(x1 - x0) / ((x0 + x1) / 2)
            rows[side][0 if (x0 + x1) / 2 >= 0.05 else 1].append(d)
            if side == "candidate":
                kk = key[:2]
                if d >= per_kernel_worst.get(kk, (0.0, ""))[0]:
                    per_kernel_worst[kk] = d, key[2]
    L = ["## Run-to-run (|m2 - m1| / mean of the per-shape medians; p50 / p90 / max)", "",
         "| side | shapes >= 50 us | shapes < 50 us |", "|---|---|---|"]
    for side in ("eager", "candidate"):
        L.append(f"| {side} | {dist(rows[side][0])} | {dist(rows[side][1])} |")
    allc = rows["candidate"][0] + rows["candidate"][1]
    p90 = pct(allc, .9) if allc else 0
    L += ["", "Kernels whose worst shape is at or above the candidate side's p90 or 2 %, with their causes "
          "(flags of either run; an autotuner that chose differently between the runs):", ""]
    unexplained = []
    for kk, (d, shape) in sorted(per_kernel_worst.items(), key=lambda x: -x[1][0]):
        if d < min(p90, 0.02) or d <= 0.02:
            continue
        why = pair.causes(kk, shape)
        if not why:
            unexplained.append(kk)
        other = [f for f in pair.flags(kk) if f.split(":")[0] in NOT_TIMING_CAUSES]
        L.append(f"- {kk[0]} {kk[1][:12]}: {100 * d:.1f} % on {shape}; causes: {', '.join(why) or 'none'}"
                 + (f" (other flags, not a cause: {', '.join(other)})" if other else ""))
    L += ["", f"- candidate side p90 (all shapes): {100 * p90:.2f} %; kernels over 2 % without a flagged cause: "
          f"{len(unexplained)}" + (f" ({', '.join(k[0] for k in unexplained)})" if unexplained else "")]
    return L


SHAPE_TIME_CLASSES = ((0.010, "< 10 us"), (0.050, "10-50 us"), (0.200, "50-200 us"), (float("inf"), ">= 200 us"))


def shape_spread_by_time(runs):
    """[(class label, [sd of one shape's log per-process speedups])] over the stored timings of
    `runs` ({(task, code, shape): (candidate_ms, baseline_ms, samples)} each), a shape in the class of
    its faster side's time; shapes timed in fewer than two processes are left out."""
    sds = {label: [] for _, label in SHAPE_TIME_CLASSES}
    for shapes in runs:
        for (c, b, smp) in shapes.values():
            est = [((p or {}).get("speedup") or {}).get("estimate") for p in (smp or {}).get("per_process") or []]
            if len(est) < 2 or not all(isinstance(v, (int, float)) and v > 0 for v in est):
                continue
            logs = [math.log(v) for v in est]
            label = next(lab for top, lab in SHAPE_TIME_CLASSES if min(c, b) < top)
            sds[label].append(statistics.stdev(logs))
    return [(label, sds[label]) for _, label in SHAPE_TIME_CLASSES if sds[label]]


def ci_coverage_lines(pair, cross):
    k0, k1, causes = pair.k0, pair.k1, pair.causes
    cover, widths, n_both = 0, [], 0
    cover_back = 0                      # the other direction: run 1's interval holds run 0
    plain, plain_cover, plain_back = 0, 0, 0  # kernels with no flagged cause
    misses, misses_back = [], []
    shifted = {}  # a miss's run-level shifts (run_shifts): read from both runs, not a flag of either
    for (task, code, shape), side, _, shift, _ in pair.shifts:
        shifted.setdefault((task, code), []).append(f"{shape} {side} {100 * shift:+.1f} %")

    def shift_note(kk):
        return f"; run-level shift: {', '.join(shifted[kk])}" if kk in shifted else ""

    for kk in sorted(set(k0) & set(k1)):
        g0, g1 = (k0[kk] or {}).get("geomean_speedup"), (k1[kk] or {}).get("geomean_speedup")
        if not (g0 and g1):
            continue
        n_both += 1
        widths.append((g0["hi"] - g0["lo"]) / g0["estimate"])
        back = g1["lo"] <= g0["estimate"] <= g1["hi"]
        cover_back += back
        if not back:
            misses_back.append(f"- {kk[0]} {kk[1][:12]}: run 1 {g1['estimate']:.3f} [{g1['lo']:.3f}, "
                               f"{g1['hi']:.3f}], run 0 {g0['estimate']:.3f}; causes: {', '.join(causes(kk)) or 'none'}"
                               + shift_note(kk))
        if not causes(kk):
            plain += 1
            plain_cover += g0["lo"] <= g1["estimate"] <= g0["hi"]
            plain_back += back
        if g0["lo"] <= g1["estimate"] <= g0["hi"]:
            cover += 1
        else:
            misses.append(f"- {kk[0]} {kk[1][:12]}: run 0 {g0['estimate']:.3f} [{g0['lo']:.3f}, {g0['hi']:.3f}], "
                          f"run 1 {g1['estimate']:.3f}; causes: {', '.join(causes(kk)) or 'none'}" + shift_note(kk))
    # The interval kbx reports (kbx-perf-2: the repeat interval over fresh processes) and, for
    # comparison, the first process's own within-process bootstrap interval.
    kinds, between, cover_within, widths_within = set(), [], 0, []
    for kk in sorted(set(k0) & set(k1)):
        g0, g1 = (k0[kk] or {}).get("geomean_speedup"), (k1[kk] or {}).get("geomean_speedup")
        if not (g0 and g1):
            continue
        kinds.add(f"{g0.get('interval', 'within')} interval, {g0.get('processes', 1)} process(es), prior "
                  f"{100 * g0.get('prior_rel', 0):.2f} % x {g0.get('prior_df', 0):g} df")
        if "between_process_rel" in g0 and g0.get("processes", 1) > 1:
            between.append(g0["between_process_rel"])
        w = ((k0[kk] or {}).get("geomean_speedup_per_process") or [None])[0]
        if w:
            widths_within.append((w["hi"] - w["lo"]) / w["estimate"])
            cover_within += w["lo"] <= g1["estimate"] <= w["hi"]
    L = ["", "## CI coverage" + (" (across GPUs)" if cross else ""), "",
         f"- interval: {'; '.join(sorted(kinds)) or '?'}",
         f"- kernels timed in both runs: {n_both}; second run's geomean speedup inside the first run's 95 % interval: "
         f"{cover} ({100 * cover / max(1, n_both):.0f} %); the other way (run 1's interval holds run 0): "
         f"{cover_back} ({100 * cover_back / max(1, n_both):.0f} %)",
         f"- of them with no flagged cause (see the causes above): {plain}; inside {plain_cover} and {plain_back} "
         f"(the two directions)",
         f"- median relative interval width (hi - lo) / estimate: {100 * statistics.median(widths):.2f} %" if widths else "- no CI"]
    if widths_within:
        L.append(f"- the first process's within-process bootstrap CI alone: {cover_within} of {len(widths_within)} "
                 f"({100 * cover_within / len(widths_within):.0f} %), median width {100 * statistics.median(widths_within):.2f} %")
    if between:
        between.sort()
        L.append(f"- between-process standard deviation of a kernel's log geomean speedup, this run: median "
                 f"{100 * statistics.median(between):.2f} %, p90 {100 * pct(between, .9):.2f} % (n={len(between)}); "
                 f"the prior's value should follow the median")
    if by_time := shape_spread_by_time([pair.s0, pair.s1]):
        L.append("- between-process standard deviation of a shape's log speedup by the shape's time (both runs; the "
                 "shapes' floor rests on it): " + ", ".join(f"{label} {100 * statistics.median(v):.2f} % (n={len(v)})"
                                                           for label, v in by_time))
    if misses:
        L += ["", "Run 1's estimate outside run 0's interval:"] + misses
    if misses_back:
        L += ["", "Run 0's estimate outside run 1's interval:"] + misses_back
    return L


def run_shift_lines(pair):
    L = ["", "## Run-level shifts", "",
         f"- shape sides (candidate or eager) timed in at least two processes in both runs: {pair.shifts_compared}; moved between "
         f"the runs by more than {100 * RUN_SHIFT_MIN:.0f} % and more than {RUN_SHIFT_TIMES_SD:.0f} times their "
         f"processes' sd (from four processes on without the one farthest from their median): {len(pair.shifts)}"]
    for (task, code, shape), side, m0, shift, sd in pair.shifts:
        L.append(f"  - {task} {code[:12]} {shape} {side}: {1000 * m0:.2f} us in run 0, {100 * shift:+.2f} % in run 1; "
                 f"processes' sd {100 * sd:.2f} %")
        L.append("    - processes: " + "; ".join(f"run {r}: " + ", ".join(process_placements(runs[(task, code, shape)][2], side))
                                                 for r, runs in enumerate((pair.s0, pair.s1))))
    return L


def process_placements(samples, side):
    """Each process's median of one side (us) with where it put its memory, as the worker recorded
    it (kbx_harness/perf.py: placement_offset_mb, the spacer before the inputs; placement_gap_mb, the
    experiment's gap before the outputs; history_flip, the other experiment's bit): e.g.
    ["20.75 (spacer 14, gap 512)", ...]. What a run-level shift is read against: if the processes'
    levels follow the gap or the bit, that is the cause."""
    field = "candidate_ms" if side == "candidate" else "reference_ms"
    out = []
    for p in (samples or {}).get("per_process") or []:
        x = (p or {}).get(field)
        if not isinstance(x, (int, float)) or x <= 0:
            continue
        where = [f"{k} {p[f]}" for k, f in (("spacer", "placement_offset_mb"), ("gap", "placement_gap_mb"), ("flip", "history_flip"))
                 if f in p]
        out.append(f"{1000 * x:.2f}" + (f" ({', '.join(where)})" if where else ""))
    return out


def autotune_lines(pair):
    L = ["", "## Autotune", "", f"- shapes whose autotuner chose another config in run 1: {len(pair.at_diff)}"]
    for key, x0, x1 in pair.at_diff[:20]:
        L.append(f"  - {key[0]} {key[1][:12]} {key[2]}: {x0} vs {x1}")
    return L


def roofline_lines(data):
    """Run 0's rooflines, and per run the shapes timed without the device's peaks: those have no bound,
    so "no shape faster than its roofline" says nothing of them (before 9dba2ac a timing that ended
    before the calibrating one's had none: bench/results/2026-12-06-h100-knowngood-pb2-5ba9844)."""
    fast, dts = [], {}
    for key, (c, b, m) in data[0][2].items():
        rl = m.get("roofline") or {}
        if rl.get("faster_than_bound"):
            fast.append(f"- {key[0]} {key[1][:12]} {key[2]}: {c:.4f} ms, held against the {rl.get('peak_dtype', '?')} peak "
                        f"({rl.get('peak_tflops', 0):.0f} TFLOP/s)")
        if rl.get("peak_dtype"):
            dts[rl["peak_dtype"]] = dts.get(rl["peak_dtype"], 0) + 1
    unbounded = []
    for r, d in enumerate(data):
        n = sum(1 for (_c, _b, m) in d[2].values() if "bound_ms" not in (m.get("roofline") or {}))
        unbounded.append(f"run {r} {n} of {len(d[2])}")
    return ["", "## Rooflines (run 0)", "", f"- peak dtypes of the timed shapes: {dts}",
            f"- shapes faster than their roofline bound: {len(fast)}"] + fast + \
        [f"- shapes timed without the device's peaks (no roofline bound, not checked): {', '.join(unbounded)}"]


def report(a, extra, runs):
    """repeat.md's text for these runs."""
    # runs.json names each database where it was written; a copied --out holds them beside it
    data = [load(r["db"] if os.path.exists(r["db"]) else os.path.join(a.out, os.path.basename(r["db"])))
            for r in runs]
    gpus = [d[3]["_gpus"] for d in data]
    cross = len(gpus) > 1 and any(g and gpus[0] and g != gpus[0] for g in gpus[1:])
    L = header_lines(a, extra, runs, data, gpus, cross) + stage_cost_lines(runs, data)
    if len(data) < 2:
        L += ["(one run only: no run-to-run figures)"]
    else:
        pair = RunPair(data[0], data[1])
        L += run_to_run_lines(pair) + ci_coverage_lines(pair, cross) + run_shift_lines(pair) + gap_lines(pair) + flip_lines(pair)
        L += parity_lines(pair, repeat_interval, shape_spread_variance, dist) + autotune_lines(pair)
        L += ["", "## Coverage against the prior (recomputed from the stored per-process estimates)", ""]
        for r in range(1, len(data)):
            replay = " (replaying run 0's autotune choices)" if a.replay_run == r else ""
            if gpus[r] and gpus[0] and gpus[r] != gpus[0]:
                replay += " (on another GPU)"
            floor = {"stored": None, "on": True, "off": False}[a.shape_floor]
            L += coverage_table(data[0][1], data[r][1], f"run 0 and run {r}{replay}", data[0][2], data[r][2], floor)
    L += roofline_lines(data)
    return "\n".join(L) + "\n"


def main():
    a, extra = parse_args(sys.argv[1:])
    os.makedirs(a.out, exist_ok=True)
    runs = do_runs(a, extra, os.path.join(a.out, "runs.json"))
    if runs is None:
        return
    text = report(a, extra, runs)
    with open(os.path.join(a.out, "repeat.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
