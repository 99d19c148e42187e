#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The two timing experiments of a repeat pair, read from both runs' per-process medians (bench/perf_repeat.py):
the placement gap (perf config placement_gap_mb: do the processes' times follow the gap each drew?)
and the history flip (perf config history_flip: do they split by the bit each drew?). Each section is
empty when no process drew (the defaults)."""
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
