# SPDX-License-Identifier: MIT
"""The history-flip experiment (perf config history_flip, off by default; kbx_harness.perf).

A two-level kernel (relu on 16M float16) sat at one level in every process of a run and at the
other in the next run, so the repeat interval, built from the processes of one run, did not cover
the repeat. bench/placement_probe.py flipped such a kernel's level with each new input it made, or
with each kernel it launched besides (each new input there was one copy kernel):
bench/results/2026-12-06-h100-parity-ff437e0. A later probe told them apart: each kernel launched
flips it (bench/results/2026-12-06-launch-parity-6ac3849), and as the warm-up's number of calls
varies per process anyway, the bit does not decide the timed loop's parity; kbx_harness.parity is
the experiment that follows. Every perf process of a run makes
the same allocations and launches in the same order, so it would share that state. With the flip on,
each process draws one random bit per shape; on 1 the shape's input tensors are replaced, before the
warm-up, by tensors over fresh copies of their storages (same sizes, strides, offsets, dtypes;
tensors that shared a storage share its copy) and an odd number of extra kernels is launched in
all. So under either reading the processes of one run sample both states, and the repeat interval
can see a level that depends on it. Each process's bit is stored with its medians."""
from __future__ import annotations

import os

import torch


def _fresh(x, memo: dict, made: list):
    """x with every plain tensor (and nn.Parameter) over a copy of its storage; other types as they are."""
    if type(x) in (torch.Tensor, torch.nn.Parameter):
        st = x.untyped_storage()
        key = (st.device, st.data_ptr())
        if key not in memo:
            memo[key] = st.clone()
            made.append(key)
        with torch.no_grad():
            t = x.new_empty(0).set_(memo[key], x.storage_offset(), x.size(), x.stride())
        if type(x) is torch.nn.Parameter:
            return torch.nn.Parameter(t, requires_grad=x.requires_grad)
        return t.requires_grad_(x.requires_grad) if x.is_leaf and (x.is_floating_point() or x.is_complex()) else t
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return tuple(_fresh(v, memo, made) for v in x)
    if isinstance(x, list):
        return [_fresh(v, memo, made) for v in x]
    if isinstance(x, dict):
        return {k: _fresh(v, memo, made) for k, v in x.items()}
    return x


def fresh_copies(sets: list) -> int:
    """Replaces each (args, kwargs) of `sets` in place by one over fresh storages (the old tensors go
    as soon as nothing else holds them). Returns the storage copies made (one device copy each)."""
    made: list = []
    memo: dict = {}  # across the sets too: a tensor the sets share stays shared
    for i, (a, kw) in enumerate(sets):
        sets[i] = (_fresh(tuple(a), memo, made), _fresh(dict(kw), memo, made))
    return len(made)


def history_flip(device: str, on: bool, sets: list, bit=None):
    """The experiment for one shape in one process: None when off (or not on cuda), else the bit
    drawn (os.urandom) and, on 1, `sets` replaced by fresh copies and a spin kernel launched if the
    copies were an even number, so the extra kernels are odd."""
    if not on or device != "cuda":
        return None
    if bit is None:
        bit = os.urandom(1)[0] & 1
    if bit:
        if fresh_copies(sets) % 2 == 0:
            torch.cuda._sleep(100)
    return bit
