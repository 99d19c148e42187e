#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The timing experiments of a repeat pair, read from both runs' per-process medians (bench/perf_repeat.py):
the placement gap (perf config placement_gap_mb: do the processes' times follow the gap each drew?)
and the history flip (perf config history_flip: do they split by the bit each drew?), and the parity
balance (perf config parity_balance: plain medians against four-group medians). Each section is
empty when no process drew or recorded groups (the experiments' defaults; the parity balance is on by
default on cuda since 2026-12-07)."""
import math
import statistics


GAP_SPREAD_MIN, GAP_RHO_MIN = 0.01, 0.7


def ranks(xs):
    """Average ranks (1-based; tied values share their mean rank)."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    """Spearman's rank correlation of two equally long lists, or None where either is constant."""
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx, syy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


def gap_lines(pair):
    """The placement experiment (perf config placement_gap_mb): where the processes drew a gap before
    a shape's outputs, do the shape sides whose processes spread (over both runs) follow it? Each
    such side's processes sorted by their gap, and the rank correlation of time and gap. Nothing
    when no process drew a gap (the default)."""
    sides = []  # (spread, rho, key, side, [(gap, us)])
    with_gap = 0
    for key in sorted(set(pair.s0) & set(pair.s1)):
        procs = (pair.s0[key][2].get("per_process") or []) + (pair.s1[key][2].get("per_process") or [])
        for side, field in (("candidate", "candidate_ms"), ("eager", "reference_ms")):
            pts = [(p["placement_gap_mb"], 1000 * p[field]) for p in procs
                   if isinstance(p, dict) and isinstance(p.get("placement_gap_mb"), (int, float))
                   and isinstance(p.get(field), (int, float)) and p[field] > 0]
            if len(pts) < 2:
                continue
            with_gap += 1
            us = [u for _, u in pts]
            spread = (max(us) - min(us)) / (sum(us) / len(us))
            if spread > GAP_SPREAD_MIN:
                rho = spearman([g for g, _ in pts], us) if len(pts) >= 4 else None
                sides.append((spread, rho, key, side, sorted(pts)))
    if not with_gap:
        return []
    follow = [x for x in sides if x[1] is not None and abs(x[1]) >= GAP_RHO_MIN]
    L = ["", "## Placement gap (the experiment, perf config placement_gap_mb)", "",
         f"- shape sides whose processes drew a gap (both runs): {with_gap}; their processes more than "
         f"{100 * GAP_SPREAD_MIN:.0f} % apart: {len(sides)}; of these, time rank-correlated with the gap "
         f"(|Spearman| >= {GAP_RHO_MIN}, at least 4 processes): {len(follow)}"]
    for spread, rho, (task, code, shape), side, pts in sorted(sides, key=lambda x: -x[0])[:20]:
        L.append(f"  - {task} {code[:12]} {shape} {side}: processes {100 * spread:.1f} % apart, Spearman "
                 + (f"{rho:+.2f}" if rho is not None else "n/a") + "; by gap (MiB: us): "
                 + ", ".join(f"{g:g}: {u:.2f}" for g, u in pts))
    return L


FLIP_SPLIT_MIN = 0.01


def flip_lines(pair):
    """The history-flip experiment (perf config history_flip): for each shape side timed by processes
    of both bits (over both runs), the median of each bit's processes, and whether the two groups
    split (their ranges do not overlap and their medians are more than FLIP_SPLIT_MIN apart). If the
    probes' level flip is what moves a kbx process, the two-level sides split by the bit, and a run's
    processes then sample both levels. Nothing when no process drew a bit (the default)."""
    both, split = 0, []
    for key in sorted(set(pair.s0) & set(pair.s1)):
        procs = (pair.s0[key][2].get("per_process") or []) + (pair.s1[key][2].get("per_process") or [])
        for side, field in (("candidate", "candidate_ms"), ("eager", "reference_ms")):
            by = {0: [], 1: []}
            for p in procs:
                if isinstance(p, dict) and p.get("history_flip") in (0, 1) and isinstance(p.get(field), (int, float)) and p[field] > 0:
                    by[p["history_flip"]].append(1000 * p[field])
            if not by[0] or not by[1]:
                continue
            both += 1
            m0, m1 = statistics.median(by[0]), statistics.median(by[1])
            d = (m1 - m0) / ((m0 + m1) / 2)
            if abs(d) > FLIP_SPLIT_MIN and (max(by[0]) < min(by[1]) or max(by[1]) < min(by[0])):
                split.append((d, key, side, sorted(by[0]), sorted(by[1])))
    if not both:
        return []
    L = ["", "## History flip (the experiment, perf config history_flip)", "",
         f"- shape sides timed by processes of both bits (both runs): {both}; split by the bit (ranges apart, medians more "
         f"than {100 * FLIP_SPLIT_MIN:.0f} % apart): {len(split)}"]
    for d, (task, code, shape), side, xs0, xs1 in sorted(split, key=lambda x: -abs(x[0]))[:20]:
        L.append(f"  - {task} {code[:12]} {shape} {side}: bit 1 {100 * d:+.2f} % against bit 0; bit 0: "
                 + ", ".join(f"{u:.2f}" for u in xs0) + "; bit 1: " + ", ".join(f"{u:.2f}" for u in xs1))
    return L


def _balanced(smp):
    """A shape's per-process (plain, four-group) pairs of {candidate_ms, reference_ms, speedup}, or None
    when a process lacks the experiment's estimate. Under parity_balance 2 the plain figures are the
    process's `plain` (its own are the aligned samples')."""
    out = []
    for p in (smp or {}).get("per_process") or []:
        b = (p or {}).get("parity_balance") or {}
        if isinstance((p or {}).get("plain"), dict):  # parity_balance 2: the process's own figures are the aligned ones
            pl = p["plain"]
            vals = (pl.get("candidate_ms"), pl.get("reference_ms"), pl.get("speedup"))
        else:
            vals = ((p or {}).get("candidate_ms"), (p or {}).get("reference_ms"), ((p or {}).get("speedup") or {}).get("estimate"))
        vals += (b.get("candidate_ms"), b.get("reference_ms"), b.get("speedup"))
        if not all(isinstance(v, (int, float)) and v > 0 for v in vals):
            return None
        out.append(({"candidate_ms": vals[0], "reference_ms": vals[1], "speedup": vals[2]},
                    {"candidate_ms": vals[3], "reference_ms": vals[4], "speedup": vals[5]}))
    return out or None


def _kernel_processes(k, shapes, kk, which):
    """A kernel's per-process {estimate, lo, hi} under one estimator (0 plain, 1 four groups): the
    geometric mean of its shapes' per-process speedups, with the within-process width kbx stored for
    that process (the plain bootstrap's, for both), and the shapes' speedups per process (the floor's
    input). None unless every shape has both estimates in the same processes."""
    per = (k.get(kk) or {}).get("geomean_speedup_per_process") or []
    rows = [_balanced(smp) for (t, c, _s), (_c, _b, smp) in sorted(shapes.items()) if (t, c) == kk]
    if not per or not rows or any(r is None or len(r) != len(per) for r in rows):
        return None
    ests = [[r[p][which]["speedup"] for p in range(len(per))] for r in rows]
    logs = [[math.log(v) for v in x] for x in ests]
    pp = []
    for p, w in enumerate(per):
        est = math.exp(sum(x[p] for x in logs) / len(logs))
        pp.append({"estimate": est, "lo": est * w["lo"] / w["estimate"], "hi": est * w["hi"] / w["estimate"]})
    return pp, ests


def parity_lines(pair, repeat_interval, shape_spread_variance, dist):
    """The parity-balance experiment (perf config parity_balance): the same samples read by the plain
    medians and by the four-group medians (per_process[].parity_balance), side by side: run-to-run
    spread of the per-shape times, and the repeat interval's coverage and width, both recomputed here
    from per-process estimates in the same way (geomean of the shapes' per-process speedups, kbx's
    within-process widths, the run's prior and the shapes' floor). Nothing when no process has the
    estimate (runs with parity_balance 0, the CPU's default and cuda's before 2026-12-07)."""
    spread = {}
    for key in sorted(set(pair.s0) & set(pair.s1)):
        r0, r1 = _balanced(pair.s0[key][2]), _balanced(pair.s1[key][2])
        if not r0 or not r1:
            continue
        for which, est in ((0, "plain"), (1, "four groups")):
            for side, field in (("candidate", "candidate_ms"), ("eager", "reference_ms")):
                m0 = math.exp(statistics.mean(math.log(p[which][field]) for p in r0))
                m1 = math.exp(statistics.mean(math.log(p[which][field]) for p in r1))
                big = "shapes >= 50 us" if 1000 * (m0 + m1) / 2 >= 50 else "shapes < 50 us"
                spread.setdefault((est, side, big), []).append(abs(m1 - m0) / ((m0 + m1) / 2))
    if not spread:
        return []
    L = ["", "## Parity balance (perf config parity_balance, the default on cuda): plain medians against four groups", "",
         "Run-to-run (|m2 - m1| / mean of the per-shape geometric means over the processes; p50 / p90 / max):", "",
         "| estimator | side | shapes >= 50 us | shapes < 50 us |", "|---|---|---|---|"]
    for est in ("plain", "four groups"):
        for side in ("candidate", "eager"):
            L.append(f"| {est} | {side} | {dist(spread.get((est, side, 'shapes >= 50 us'), []))} | "
                     f"{dist(spread.get((est, side, 'shapes < 50 us'), []))} |")
    cov = {0: [0, 0, []], 1: [0, 0, []]}
    n = 0
    for kk in sorted(set(pair.k0) & set(pair.k1)):
        g = (pair.k0.get(kk) or {}).get("geomean_speedup") or {}
        prior, df = g.get("prior_rel", 0.0065), g.get("prior_df", 4)
        got = [(_kernel_processes(pair.k0, pair.s0, kk, w), _kernel_processes(pair.k1, pair.s1, kk, w)) for w in (0, 1)]
        if any(a is None or b is None for a, b in got):
            continue
        n += 1
        for w, ((pp0, ests0), (pp1, ests1)) in enumerate(got):
            e0, lo0, hi0 = repeat_interval(pp0, prior, df, shape_spread_variance(ests0))
            e1, lo1, hi1 = repeat_interval(pp1, prior, df, shape_spread_variance(ests1))
            cov[w][0] += lo0 <= e1 <= hi0
            cov[w][1] += lo1 <= e0 <= hi1
            cov[w][2].append((hi0 - lo0) / e0)
    L += ["", f"Coverage, recomputed the same way for both estimators (kernels with both in every process of both runs: {n}):", "",
          "| estimator | run 0's interval holds run 1 | run 1's holds run 0 | median width |", "|---|---|---|---|"]
    for w, est in ((0, "plain"), (1, "four groups")):
        a, b, widths = cov[w]
        L.append(f"| {est} | {a}/{n} | {b}/{n} | " + (f"{100 * statistics.median(widths):.2f} % |" if widths else "- |"))
    return L
