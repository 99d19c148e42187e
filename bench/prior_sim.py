#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a repeat-interval protocol would give, simulated from stored `--perf` runs (issue 22).

    bench/prior_sim.py RUN.sqlite [RUN.sqlite ...] [--md OUT.md] [--iters N] [--seed S]
                       [--config P,MAXP,THRESHOLD,PRIOR,DF[,FLOOR[,TARGET,MAXW]] ...]

Each `kbx eval --perf` database stores, per kernel, every perf process's geomean speedup with its
within-process interval (`geomean_speedup_per_process`) and, per shape, each process's speedup
(`samples.per_process`). Runs of the same GPU (the NVML uuid in the evidence) are pooled per kernel:
the pool is the kernel's empirical distribution of one process (its geomean and its shapes) on that
GPU, the heavy tail and the two-level kernels included. A simulated run draws `P` processes from the
pool (with replacement), `MAXP` in all when the first `P` differ by more than `THRESHOLD` (the
evaluator's extra processes), then, with `TARGET` > 0, one more at a time while the repeat interval is
wider than `TARGET` up to `MAXW` processes (the width target, `target_width` /
`max_processes_for_width`), and computes the repeat interval exactly as `perf::repeatInterval` does
(core/perfstats.cpp) with prior `PRIOR` worth `DF` degrees of freedom and, with `FLOOR` 1, the
shapes' floor (`perf::shapeSpreadVariance` over the drawn processes' shapes); a second simulated run's
estimate is then inside it or not. Printed per GPU and configuration: the coverage (target >= 90 %),
the median interval width (target <= 2 %) and the mean number of processes per kernel (the perf
stage's cost grows with it).

Drawing from a pool of n values understates its spread by (n-1)/n; the pool's log estimates are
widened about their mean by sqrt(n/(n-1)) to undo that (a process's shapes move with its geomean).
What the simulation cannot see: anything no stored process showed (a pool of six processes rarely
holds a one-in-twenty level), and a run-level effect larger than the processes' spread. A process
drawn whole keeps its shapes together, so shapes that move independently within a process are as
independent as the stored processes show. It is a way to choose the defaults from evidence; the
choice still has to hold in runs that did not inform it (bench/perf_repeat.py).
"""
from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import kbxdb  # noqa: E402

Z = 1.959964
DEFAULT_CONFIGS = ["2,4,0.01,0.005,4", "3,4,0.005,0.0065,4", "3,4,0.005,0.0065,4,1", "3,4,0.005,0.0065,4,1,0.02,5",
                   "3,4,0.005,0.0065,4,1,0.02,6", "4,4,0.005,0.0065,4,1", "4,5,0.005,0.0065,4,1"]


def load(db: str) -> dict:
    """{gpu uuid: {(task, code hash): [process estimates]}} of one run database; each process's
    "shapes" holds its speedup per shape (by shape name) where every shape has every process."""
    out: dict = {}
    for e in kbxdb.evaluations(db):
        task, code = e["task"], e["code_hash"]
        perf = (e["evidence"] or {}).get("perf") or {}
        pp = perf.get("geomean_speedup_per_process") or []
        pp = [dict(p) for p in pp if all(isinstance(p.get(k), (int, float)) and p[k] > 0 for k in ("estimate", "lo", "hi"))]
        if not pp:
            continue
        rows = [[((q or {}).get("speedup") or {}).get("estimate") for q in ((t.get("samples") or {}).get("per_process") or [])]
                for t in sorted(e.get("timings") or [], key=lambda t: t.get("shape") or "")]
        if rows and all(len(r) == len(pp) and all(isinstance(v, (int, float)) and v > 0 for v in r) for r in rows):
            for i, p in enumerate(pp):
                p["shapes"] = [r[i] for r in rows]
        gpu = (perf.get("nvml_before") or {}).get("uuid") or "unknown GPU"
        out.setdefault(gpu, {}).setdefault((task, code), []).append(pp)
    return out


def pools(runs: list[dict]) -> dict:
    """{gpu: {kernel: pool}} over kernels timed in at least two runs of that GPU."""
    by_gpu: dict = {}
    for run in runs:
        for gpu, kernels in run.items():
            g = by_gpu.setdefault(gpu, {})
            for k, lists in kernels.items():
                g.setdefault(k, []).append([p for pp in lists for p in pp])
    out = {}
    for gpu, kernels in by_gpu.items():
        ks = {}
        for k, per_run in kernels.items():
            if len(per_run) < 2:
                continue
            xs = [p for r in per_run for p in r]
            n = len(xs)
            mean = statistics.fmean(math.log(p["estimate"]) for p in xs)
            f = math.sqrt(n / (n - 1))
            pool = []
            for p in xs:
                shift = math.exp(mean + f * (math.log(p["estimate"]) - mean)) / p["estimate"]
                q = {"estimate": p["estimate"] * shift, "lo": p["lo"] * shift, "hi": p["hi"] * shift}
                if p.get("shapes"):
                    q["shapes"] = [v * shift for v in p["shapes"]]
                pool.append(q)
            ks[k] = pool
        if ks:
            out[gpu] = (ks, sum(1 for r in runs if gpu in r))
    return out


def shape_spread_variance(per_shape: list[list[float]]) -> float:
    """perf::shapeSpreadVariance (core/perfstats.cpp): per_shape[s] holds shape s's speedup estimate
    in each process; (1 / S^2) * sum of the log estimates' sample variances (0 with < 2 processes)."""
    if not per_shape or any(len(x) < 2 for x in per_shape):
        return 0.0
    total = 0.0
    for xs in per_shape:
        logs = [math.log(v) for v in xs]
        m = sum(logs) / len(logs)
        total += sum((v - m) ** 2 for v in logs) / (len(logs) - 1)
    return total / len(per_shape) ** 2


def kernel_shape_variances(shapes: dict) -> dict:
    """{(task, code): shape_spread_variance} from stored timings {(task, code, shape): (candidate_ms,
    baseline_ms, samples)}, each shape's per-process speedups (samples["per_process"]) as kbx stored
    them; a kernel with a shape of another process count gets none."""
    by: dict = {}
    for (task, code, _shape), (_c, _b, smp) in sorted(shapes.items()):
        est = [((p or {}).get("speedup") or {}).get("estimate") for p in (smp or {}).get("per_process") or []]
        ok = est and all(isinstance(v, (int, float)) and v > 0 for v in est)
        by.setdefault((task, code), []).append(est if ok else None)
    out = {}
    for k, rows in by.items():
        if all(rows) and len({len(r) for r in rows}) == 1:
            out[k] = shape_spread_variance(rows)
    return out


def repeat_interval(pp: list[dict], prior: float, df0: float, shape_var: float = 0.0) -> tuple[float, float, float]:
    """perf::repeatInterval (core/perfstats.cpp), the same formula; shape_var: the floor the kernel's
    shapes give (shape_spread_variance, 0: none)."""
    p = len(pp)
    logs = [math.log(x["estimate"]) for x in pp]
    mean = sum(logs) / p
    w2 = sum(((math.log(x["hi"]) - math.log(x["lo"])) / (2 * Z)) ** 2 for x in pp) / p
    s2 = sum((v - mean) ** 2 for v in logs) / (p - 1) if p > 1 else 0.0
    df = df0 + p - 1
    v0 = prior ** 2 + w2
    v = (df0 * v0 + (p - 1) * s2) / df if df > 0 else v0
    v = max(v, shape_var if shape_var > 0 else 0.0)
    half = Z * math.sqrt(2 * v / p)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def drawn_shape_variance(pp: list[dict]) -> float:
    """The shapes' floor over drawn processes (0 unless every one has the same shapes)."""
    sh = [p.get("shapes") for p in pp]
    if len(pp) < 2 or not all(sh) or len({len(x) for x in sh}) != 1:
        return 0.0
    return shape_spread_variance([list(col) for col in zip(*sh)])


def interval_of(pp: list[dict], cfg: tuple) -> tuple[float, float, float]:
    """The repeat interval of drawn processes under configuration cfg (see parse_config)."""
    _p, _maxp, _thr, prior, df0, floor, _target, _maxw = cfg
    return repeat_interval(pp, prior, df0, drawn_shape_variance(pp) if floor else 0.0)


def simulated_run(pool, cfg, rng):
    p, maxp, threshold, _prior, _df0, _floor, target, maxw = cfg
    pp = [rng.choice(pool) for _ in range(p)]
    es = [x["estimate"] for x in pp]
    if maxp > p and max(es) / min(es) - 1 > threshold:
        pp += [rng.choice(pool) for _ in range(maxp - p)]
    while target > 0 and len(pp) < maxw:
        est, lo, hi = interval_of(pp, cfg)
        if (hi - lo) / est <= target:
            break
        pp.append(rng.choice(pool))
    return pp


def parse_config(text: str) -> tuple:
    """P,MAXP,THRESHOLD,PRIOR,DF[,FLOOR[,TARGET,MAXW]] -> (P, MAXP, THRESHOLD, PRIOR, DF, FLOOR, TARGET,
    MAXW); FLOOR 0 or 1 (default 0, the shapes' floor off), TARGET 0: no width target."""
    f = text.split(",")
    if len(f) not in (5, 6, 8):
        raise ValueError(text)
    p, maxp = int(f[0]), max(int(f[0]), int(f[1]))
    floor = len(f) > 5 and f[5].strip() not in ("0", "")
    target = float(f[6]) if len(f) == 8 else 0.0
    maxw = max(maxp, int(f[7])) if len(f) == 8 else maxp
    return (p, maxp, float(f[2]), float(f[3]), float(f[4]), floor, target, maxw)


def simulate(kernels: dict, cfg: tuple, iters: int, seed: int):
    if len(cfg) == 5:
        cfg = tuple(cfg) + (False, 0.0, cfg[1])
    rng = random.Random(seed)
    hit = tot = procs = 0
    widths, worst = [], []
    for k, pool in sorted(kernels.items()):
        kh = 0
        for _ in range(iters):
            a = simulated_run(pool, cfg, rng)
            b = simulated_run(pool, cfg, rng)
            est, lo, hi = interval_of(a, cfg)
            other = math.exp(statistics.fmean(math.log(x["estimate"]) for x in b))
            kh += lo <= other <= hi
            widths.append((hi - lo) / est)
            procs += len(a)
        hit += kh
        tot += iters
        worst.append((kh / iters, k))
    worst.sort()
    return hit / tot, statistics.median(widths), procs / tot, worst


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dbs", nargs="+", help="kbx eval --perf databases (two or more runs of the same set)")
    ap.add_argument("--config", action="append", help="P,MAXP,THRESHOLD,PRIOR,DF[,FLOOR[,TARGET,MAXW]] (repeatable)")
    ap.add_argument("--iters", type=int, default=600, help="simulated pairs of runs per kernel")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--md", help="write the table here too")
    a = ap.parse_args()
    configs = []
    for c in a.config or DEFAULT_CONFIGS:
        try:
            configs.append(parse_config(c))
        except ValueError:
            print(f"prior_sim.py: --config {c!r}: want P,MAXP,THRESHOLD,PRIOR,DF[,FLOOR[,TARGET,MAXW]], "
                  f"e.g. 3,4,0.005,0.0065,4,1,0.02,5", file=sys.stderr)
            return 2
    runs = []
    for db in a.dbs:
        try:
            runs.append(load(db))
        except kbxdb.NotADatabase as e:
            print(f"prior_sim.py: {e}", file=sys.stderr)
            return 2
    by_gpu = pools(runs)
    if not by_gpu:
        print("prior_sim.py: no kernel was timed in two runs of one GPU", file=sys.stderr)
        return 1
    lines = ["| GPU (runs, kernels) | processes | max | threshold | prior | df | shapes' floor | width target (max) | coverage | "
             "median width | processes per kernel | lowest kernels |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for gpu, (kernels, nruns) in sorted(by_gpu.items()):
        for cfg in configs:
            cov, width, procs, worst = simulate(kernels, cfg, a.iters, a.seed)
            low = ", ".join(f"{k[0]} {k[1][:8]} {100 * c:.0f} %" for c, k in worst[:3])
            tgt = f"{100 * cfg[6]:.3g} % ({cfg[7]})" if cfg[6] > 0 else "-"
            lines.append(f"| {gpu[:12]} ({nruns}, {len(kernels)}) | {cfg[0]} | {cfg[1]} | {100 * cfg[2]:.2g} % | "
                         f"{100 * cfg[3]:.3g} % | {cfg[4]:g} | {'on' if cfg[5] else 'off'} | {tgt} | {100 * cov:.1f} % | "
                         f"{100 * width:.2f} % | {procs:.2f} | {low} |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
