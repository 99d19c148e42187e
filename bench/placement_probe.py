#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which per-process state moves a tiny kernel's time (issue 22's run-level part)?

On the H200 a 1M-element elementwise kernel (~6.5 us) is timed by kbx at one of two levels ~5 % apart,
the same level for all samples of one process, and the candidate and eager sides do not switch
together (bench/results/2026-12-02-h200-accept5: Math/floor 1M_f32, candidate 6.40 / eager 6.74 us
in one run, 6.69 / 6.40 in the next). This probe times, the way kbx_harness/perf.py does (an L2
flush by zeroing a buffer >= 2x L2, a spin kernel, CUDA events around one call), an own Triton
kernel and eager torch.floor in alternation, and between blocks of pairs changes one thing at a
time — a new flush buffer, a new input tensor, the output's block in the caching allocator — so
that a level change can be pinned on what changed. Each process prints JSON lines; the parent
starts --processes fresh ones and prints the table.

A large shape's level can move between whole runs while the processes of one run agree
(bench/results/2026-12-05-h200-repeat-0a58635: Activation/relu 16M fp16). For that question the
probe also takes another dtype and op (--dtype float16 --op relu), the factor "spacer" (a random
64..4096 MiB allocation kept before a new input, a wider move than kbx's 12..42 MiB spacer; "spacer:LO-HI"
another range), "gap[:LO-HI]" (a new input, then such an allocation, then new output blocks: the
outputs' segment beyond it; compare "input+output", the same without the allocation), and
--ballast-mb: before each process, another process holds that much device memory for its whole
life, so that the probe's allocations get other physical pages at the same virtual addresses.

Every probe of relu 16M fp16 before this note cycled an even number of factors that all made a new
input, so what changed and the trial's parity were the same partition: the level there alternated
trial by trial, which fits "each new input flips the level" (the floor 1M probe, five factors, moved
only at new inputs) as well as the factors. So the order is balanced now (an even number of factors
is rotated by one every cycle, so each factor meets both parities), "input-fresh" makes the new input
in a block of its own instead of the block the outputs were cycling through, and the summary also
groups the trials by parity and by the number of new inputs made before them (even or odd).
`--reread FILE` prints that summary for a table this script printed earlier, new or old format.

The balanced-order probe (H100, 2026-12-06) split all 84 trials by the parity of the extra kernels
launched before them, and not by the new inputs. Two options test what follows from that:
--pair-extra K launches K more spin kernels after every pair, so with K odd each side's call sits at
launch indices of alternating parity from pair to pair ("even pairs" and "odd pairs" columns: the
medians of the even- and odd-numbered pairs); --balanced launches one spin kernel halfway through the
pairs, and the "4 groups" column is the geometric mean of the medians of four groups of pairs (first
or second half, even or odd pair number), which holds two groups at each launch parity whether a pair
launches an even or odd number of kernels.

    python3 bench/placement_probe.py [--processes 4] [--numel 1048576] [--pairs 100] [--trials 16]
        [--dtype float32|float16] [--op floor|relu] [--factors none,flush,input,...] [--ballast-mb 0,4096]
        [--pair-extra K] [--balanced]
    python3 bench/placement_probe.py --reread bench/results/DIR/probe.md
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys

FACTORS = ["none", "flush", "input", "output", "flush+output"]
SPACER_MB = (64, 4096)


def factor_at(trial: int, factors: list) -> str:
    """What changes before `trial`: nothing before trial 0, then the factors in turn. An even number of
    factors is rotated by one each cycle, or factor and trial parity would be the same partition."""
    if not trial:
        return "none"
    cycle, pos = divmod(trial - 1, len(factors))
    return factors[(pos + (cycle if len(factors) % 2 == 0 else 0)) % len(factors)]


def makes_new_input(factor: str) -> bool:
    """Whether the factor replaces the input tensor (spacer and gap do, before their allocation or after)."""
    return factor.split("+")[0].partition(":")[0] in ("spacer", "gap") or factor.startswith("input")


def extra_kernels(factor: str) -> int:
    """Kernels the factor launches between two blocks of pairs: a new input's copy (x.clone()) and each
    "launch[:K]" part's K spin kernels (allocations launch none)."""
    n = int(makes_new_input(factor))
    for part in factor.split("+"):
        name, _, k = part.partition(":")
        if name == "launch":
            n += int(k or 1)
    return n


def four_groups(v: list) -> float:
    """The geometric mean of the medians of four groups of one side's times: first or second half of
    the pairs, even or odd pair number. With one kernel launched between the halves (--balanced), two
    groups sit at each launch parity, whatever the number of kernels a pair launches."""
    h = len(v) // 2
    meds = [statistics.median(g) for g in (v[:h][0::2], v[:h][1::2], v[h:][0::2], v[h:][1::2])]
    return math.prod(meds) ** 0.25


def child(a) -> None:
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def floor_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, tl.floor(tl.load(x_ptr + offs, mask=m)), mask=m)

    @triton.jit
    def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(x_ptr + offs, mask=m)
        tl.store(y_ptr + offs, tl.where(v > 0, v, 0.0), mask=m)

    kernel = {"floor": floor_kernel, "relu": relu_kernel}[a.op]

    def triton_side(x):
        y = torch.empty_like(x)
        kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y

    dev = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(dev).L2_cache_size
    keep = []  # what a change replaced stays allocated, so the next allocation lands elsewhere
    flush = torch.empty(max(2 * l2, 64 << 20), dtype=torch.int8, device=dev)
    x = (torch.randn(a.numel, device=dev) * 100).to(getattr(torch, a.dtype))
    sides = {"triton": triton_side, "eager": {"floor": torch.floor, "relu": torch.relu}[a.op]}
    factors = a.factors.split(",") if a.factors else FACTORS
    for f in sides.values():
        for _ in range(5):
            f(x)
    torch.cuda.synchronize()
    inputs = kernels = 0  # new inputs made and extra kernels launched so far in this process
    for trial in range(a.trials):
        factor = factor_at(trial, factors)
        inputs += makes_new_input(factor)
        kernels += extra_kernels(factor)
        spacer_mb = 0
        kind, _, span = factor.split("+")[0].partition(":")
        if kind in ("spacer", "gap"):
            lo, hi = (int(v) for v in span.split("-")) if span else SPACER_MB
            spacer_mb = 2 * (int.from_bytes(os.urandom(4), "little") % ((hi - lo) // 2 + 1)) + lo
        if kind == "spacer":  # a large allocation, then the new input
            keep.append(torch.empty(spacer_mb << 20, dtype=torch.int8, device=dev))
            keep.append(x)
            x = x.clone()
        if kind == "gap":  # the new input, then a large allocation, then new output blocks beyond it
            keep.append(x)
            x = x.clone()
            keep.append(torch.empty(spacer_mb << 20, dtype=torch.int8, device=dev))
        if "flush" in factor:
            keep.append(flush)
            flush = torch.empty_like(flush)
        if kind == "input-fresh":  # the freed output block is taken first, so the new input lands elsewhere
            keep.append(torch.empty_like(x))
        if factor.startswith("input"):
            keep.append(x)
            x = x.clone()
        if "output" in factor or kind == "gap":
            keep.append(torch.empty_like(x))  # takes the block the outputs were cycling through
        for _ in range(extra_kernels(factor) - makes_new_input(factor)):
            torch.cuda._sleep(1000)  # "launch[:K]": kernels and nothing else
        ptr = {}
        times = {s: [] for s in sides}
        for i in range(a.pairs):
            if a.balanced and i == a.pairs // 2:
                torch.cuda._sleep(1000)
            for _ in range(a.pair_extra if i else 0):
                torch.cuda._sleep(1000)
            for s, f in sides.items():
                flush.zero_()
                torch.cuda._sleep(200_000)
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                out = f(x)
                e1.record()
                ptr[s] = out.data_ptr()
                times[s].append((e0, e1))
                del out
        torch.cuda.synchronize()
        us = {s: [1000 * e0.elapsed_time(e1) for e0, e1 in ev] for s, ev in times.items()}
        print(json.dumps({"trial": trial, "factor": factor, "inputs": inputs, "kernels": kernels, "spacer_mb": spacer_mb,
                          "us": {s: statistics.median(v) for s, v in us.items()},
                          "pairs_even": {s: statistics.median(v[0::2]) for s, v in us.items()},
                          "pairs_odd": {s: statistics.median(v[1::2]) for s, v in us.items()},
                          "groups4": {s: four_groups(v) for s, v in us.items()},
                          "half1": {s: statistics.median(v[:len(v) // 2]) for s, v in us.items()},
                          "half2": {s: statistics.median(v[len(v) // 2:]) for s, v in us.items()},
                          "flush": flush.data_ptr() % (1 << 32), "x": x.data_ptr() % (1 << 32),
                          "out": {s: p % (1 << 32) for s, p in ptr.items()}}), flush=True)
        kernels += a.pair_extra * (a.pairs - 1) + a.balanced  # launched during the trial: counted for the next


def summary(trials: list) -> list:
    """The table's trials grouped by what changed before them, by the trial's parity, by the parity of
    the new inputs made so far in its process, then by the ballast: n, the medians of both sides and
    Triton/eager's min, median and max (two groups whose ranges do not overlap sit at two levels). A
    factor with a range ("gap:2-42") is its own group."""
    def rows(key):
        groups = {}
        for t in trials:
            groups.setdefault(key(t), []).append(t)
        out = []
        for k in sorted(groups, key=lambda k: (isinstance(k, str), k)):
            g = groups[k]
            ratio = sorted(t["triton"] / t["eager"] for t in g)
            out.append(f"| {k} | {len(g)} | {statistics.median(t['triton'] for t in g):.2f} | "
                       f"{statistics.median(t['eager'] for t in g):.2f} | {ratio[0]:.3f}, {statistics.median(ratio):.3f}, {ratio[-1]:.3f} |")
        return out
    head = ["| {} | n | triton us (median) | eager us (median) | triton/eager min, median, max |", "|---|---|---|---|---|"]

    def parity(n):
        return "odd" if n % 2 else "even"
    out = (["", "## By what changed before the trial (none: the first trial)", "", head[0].format("changed"), head[1]]
           + rows(lambda t: t["factor"]))
    if all("trial" in t and "inputs" in t and "kernels" in t for t in trials):
        out += (["", "## By the trial's parity", "", head[0].format("trial"), head[1]] + rows(lambda t: parity(t["trial"]))
                + ["", "## By the new inputs made in the process up to the trial, even or odd", "", head[0].format("new inputs"),
                   head[1]] + rows(lambda t: parity(t["inputs"]))
                + ["", "## By the extra kernels launched in the process up to the trial (a new input's copy is one), "
                   "even or odd", "", head[0].format("extra kernels"), head[1]] + rows(lambda t: parity(t["kernels"])))
    if all("groups4" in t for t in trials):
        out += ["", "## The four groups' estimate (--balanced) by the extra kernels' parity", "",
                "| extra kernels | n | 4 groups triton/eager min, median, max |", "|---|---|---|"]
        for k in ("even", "odd"):
            g = sorted(t["groups4"] for t in trials if parity(t["kernels"]) == k)
            if g:
                out.append(f"| {k} | {len(g)} | {g[0]:.3f}, {statistics.median(g):.3f}, {g[-1]:.3f} |")
    return (out + ["", "## By the ballast another process held (MiB)", "", head[0].format("ballast"), head[1]]
            + rows(lambda t: t["ballast"]))


def reread(text: str) -> list:
    """The trials of a table this script printed (any version: the ballast, spacer, new-inputs and
    extra-kernels columns came later; without the last two, they are counted from what changed)."""
    cols, trials, made, launched = None, [], {}, {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| process |"):
            cols = cells
            continue
        if not cols or not line.startswith("| ") or len(cells) != len(cols) or not cells[0].isdigit():
            continue
        r = dict(zip(cols, cells))
        p, factor = int(r["process"]), r["changed"]
        made[p] = made.get(p, 0) + makes_new_input(factor)
        launched[p] = launched.get(p, 0) + extra_kernels(factor)
        trials.append({"factor": factor, "ballast": int(r.get("ballast MiB", 0)), "trial": int(r["trial"]),
                       "inputs": int(r["new inputs"]) if "new inputs" in r else made[p],
                       "kernels": int(r["extra kernels"]) if "extra kernels" in r else launched[p],
                       "triton": float(r["triton us"]), "eager": float(r["eager us"])})
    return trials


def hold(mb: int) -> None:
    """Holds `mb` MiB of device memory (written once, so that its pages are really mapped) until stdin closes."""
    import torch
    ballast = torch.ones(mb << 20, dtype=torch.int8, device="cuda")
    torch.cuda.synchronize()
    print("ready", flush=True)
    sys.stdin.read()
    del ballast


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--numel", type=int, default=1 << 20)
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float16"])
    ap.add_argument("--op", default="floor", choices=["floor", "relu"])
    ap.add_argument("--factors", default="", help="comma-separated, cycled from trial 1 (default: " + ",".join(FACTORS)
                    + "; also input+output, input-fresh, spacer[:LO-HI], gap[:LO-HI] in MiB, launch[:K] (K spin "
                    "kernels), parts joined by +; "
                    "an even number is rotated by one each cycle)")
    ap.add_argument("--ballast-mb", default="0", help="comma-separated MiB held by another process, cycled over the processes")
    ap.add_argument("--pair-extra", type=int, default=0, metavar="K", help="K spin kernels between every two pairs")
    ap.add_argument("--balanced", action="store_true", help="one spin kernel halfway through each trial's pairs")
    ap.add_argument("--reread", metavar="FILE", help="print the summary of a table printed earlier, and nothing else")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--hold", type=int, default=-1, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.hold >= 0:
        hold(a.hold)
        return
    if a.child:
        child(a)
        return
    if a.reread:
        with open(a.reread) as f:
            print("\n".join(summary(reread(f.read()))[1:]))
        return
    ballasts = [int(b) for b in a.ballast_mb.split(",")]
    print(f"# placement probe: {a.op}, {a.numel} {a.dtype} elements, {a.pairs} pairs per trial, {a.trials} trials per process, "
          f"ballast MiB per process {ballasts}, {a.pair_extra} spin kernel(s) between pairs"
          + (", one halfway (balanced)" if a.balanced else ""))
    print("| process | ballast MiB | trial | changed | new inputs | extra kernels | spacer MiB | triton us | eager us | "
          "triton/eager | even pairs t/e | odd pairs t/e | 1st half t/e | 2nd half t/e | 4 groups t/e | flush | x | out (triton, eager) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    me = os.path.abspath(__file__)
    trials = []
    for p in range(a.processes):
        ballast = ballasts[p % len(ballasts)]
        holder = None
        if ballast:
            holder = subprocess.Popen([sys.executable, me, "--hold", str(ballast)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            if holder.stdout.readline().strip() != "ready":
                print(f"process {p}: the ballast holder of {ballast} MiB did not start")
                holder.kill()
                continue
        try:
            r = subprocess.run([sys.executable, me, "--child", "--numel", str(a.numel), "--pairs", str(a.pairs), "--trials",
                                str(a.trials), "--dtype", a.dtype, "--op", a.op, "--factors", a.factors,
                                "--pair-extra", str(a.pair_extra)] + (["--balanced"] if a.balanced else []),
                               capture_output=True, text=True)
        finally:
            if holder:
                holder.stdin.close()
                holder.wait()
        if r.returncode:
            print(f"process {p} failed: {r.stderr[-2000:]}")
            continue
        for line in r.stdout.splitlines():
            j = json.loads(line)
            t, e = j["us"]["triton"], j["us"]["eager"]
            ratios = {k: j[k]["triton"] / j[k]["eager"] for k in ("pairs_even", "pairs_odd", "half1", "half2", "groups4")}
            trials.append({"factor": j["factor"], "ballast": ballast, "trial": j["trial"], "inputs": j["inputs"],
                           "kernels": j["kernels"], "triton": t, "eager": e, "groups4": ratios["groups4"]})
            print(f"| {p} | {ballast} | {j['trial']} | {j['factor']} | {j['inputs']} | {j['kernels']} | {j['spacer_mb']} | "
                  f"{t:.2f} | {e:.2f} | {t / e:.3f} | {ratios['pairs_even']:.3f} | {ratios['pairs_odd']:.3f} | "
                  f"{ratios['half1']:.3f} | {ratios['half2']:.3f} | {ratios['groups4']:.3f} | "
                  f"{j['flush']:x} | {j['x']:x} | {j['out']['triton']:x}, {j['out']['eager']:x} |", flush=True)
    print("\n".join(summary(trials)))


if __name__ == "__main__":
    main()
