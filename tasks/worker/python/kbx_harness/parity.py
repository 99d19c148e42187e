# SPDX-License-Identifier: MIT
"""The parity balance (perf config parity_balance: kbx's default on cuda is 2, on the CPU 0; kbx_harness.perf).

On an H100 and an H200 a kernel's time follows the parity of its launch index in the process: a
placement probe's level flipped with each kernel launched besides, and with one kernel more between
pairs the even and odd pairs of one block of timings sat at the two levels (relu 16M fp16 about
+-3 %, floor 1M f32 about +-8 % on the H200; bench/results/2026-12-06-launch-parity-6ac3849). A perf
pair launches the same kernels every time (inputs put back, L2 flush, spin, call, per side), so each
side's samples share one parity, set by everything the process launched before the timed loop; the
processes that launched alike share a level, and a run can sit at the other level than the next.

With the experiment on, one extra kernel runs before every block of pairs after the first, and each
sample keeps its group, 2 * (block parity) + (pair parity within the block). If a pair launches an
even number of kernels the blocks alternate parity; if odd, the pairs alternate, within the block or
(blocks of an even size) shifted by one each block: either way two groups sit at each parity, and the
geometric mean of the four groups' medians (computed by kbx from the stored samples,
perf::groupMedianGeomean) averages the two levels whatever parity the process started at. A call
whose kernel count varies from call to call, or the untimed re-check call (it runs once, inside the
first blocks), mixes the groups for the samples after it."""
from __future__ import annotations

import torch


def extra_kernel(device: str, on: bool, block_index: int) -> bool:
    """Before block `block_index` of the timed loop: one spin kernel when on, on cuda, after the first
    block. Returns whether it launched."""
    if not on or device != "cuda" or block_index < 1:
        return False
    torch.cuda._sleep(100)
    return True


def group(block_index: int, pair_index: int) -> int:
    """The group of a pair: 2 * (block parity) + (the pair's parity within its block)."""
    return 2 * (block_index % 2) + pair_index % 2
