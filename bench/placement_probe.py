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

    python3 bench/placement_probe.py [--processes 4] [--numel 1048576] [--pairs 100] [--trials 16]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

FACTORS = ["none", "flush", "input", "output", "flush+output"]


def child(a) -> None:
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def floor_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, tl.floor(tl.load(x_ptr + offs, mask=m)), mask=m)

    def triton_floor(x):
        y = torch.empty_like(x)
        floor_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y

    dev = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(dev).L2_cache_size
    keep = []  # what a change replaced stays allocated, so the next allocation lands elsewhere
    flush = torch.empty(max(2 * l2, 64 << 20), dtype=torch.int8, device=dev)
    x = torch.randn(a.numel, device=dev) * 100
    sides = {"triton": triton_floor, "eager": torch.floor}
    for f in sides.values():
        for _ in range(5):
            f(x)
    torch.cuda.synchronize()
    for trial in range(a.trials):
        factor = FACTORS[trial % len(FACTORS)] if trial else "none"
        if "flush" in factor:
            keep.append(flush)
            flush = torch.empty_like(flush)
        if factor == "input":
            keep.append(x)
            x = x.clone()
        if "output" in factor:
            keep.append(torch.empty_like(x))  # takes the block the outputs were cycling through
        ptr = {}
        times = {s: [] for s in sides}
        for _ in range(a.pairs):
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
        med = {s: 1000 * statistics.median(e0.elapsed_time(e1) for e0, e1 in ev) for s, ev in times.items()}
        print(json.dumps({"trial": trial, "factor": factor, "us": med, "flush": flush.data_ptr() % (1 << 32),
                          "x": x.data_ptr() % (1 << 32), "out": {s: p % (1 << 32) for s, p in ptr.items()}}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--numel", type=int, default=1 << 20)
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a)
        return
    print(f"# placement probe: {a.numel} float32 elements, {a.pairs} pairs per trial, {a.trials} trials per process")
    print("| process | trial | changed | triton us | eager us | triton/eager | flush | x | out (triton, eager) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p in range(a.processes):
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--numel", str(a.numel), "--pairs",
                            str(a.pairs), "--trials", str(a.trials)], capture_output=True, text=True)
        if r.returncode:
            print(f"process {p} failed: {r.stderr[-2000:]}")
            continue
        for line in r.stdout.splitlines():
            j = json.loads(line)
            t, e = j["us"]["triton"], j["us"]["eager"]
            print(f"| {p} | {j['trial']} | {j['factor']} | {t:.2f} | {e:.2f} | {t / e:.3f} | {j['flush']:x} | {j['x']:x} | "
                  f"{j['out']['triton']:x}, {j['out']['eager']:x} |")


if __name__ == "__main__":
    main()
