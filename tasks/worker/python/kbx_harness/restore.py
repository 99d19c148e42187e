# SPDX-License-Identifier: MIT
"""Inputs a timed call modifies, put back before every timed call (kbx_harness.perf).

The timer rotates through a few input sets and hands both sides the same tensors. An in-place
operation (relu_, an optimizer step, `out=`) changes them on every call, so without a restore each
side would be timed on data the previous calls left behind: values scaled by a slope again and
again, drifting towards denormals or zero, or growing, at a rate that depends on how many calls ran
(issue 22: `leaky_relu` and `relu` on `64M_f32_inplace` moved 2.6-4.2 % between runs, with no other
cause). Here the shape's tensors are copied before any call of that shape; after the warm-up the
tensors some call changed are found by comparing them with their copies (bitwise, NaN equal to
NaN), only their copies are kept, and `before_call(k)` copies set k's back, outside the timed
region and before the L2 flush. Both sides get the same, pristine inputs on every timed call."""
from __future__ import annotations

import torch

from .common import tensors_in


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_complex:
        a, b = torch.view_as_real(a), torch.view_as_real(b)
    if a.is_floating_point():
        return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())
    return torch.equal(a, b)


def budget_bytes(device: str) -> int:
    """How much memory the copies may take: a quarter of the device's free memory (cuda), 1 GiB on
    the CPU (the interpreter's perf runs are small, for tests)."""
    if device == "cuda":
        try:
            return int(torch.cuda.mem_get_info()[0] // 4)
        except Exception:  # noqa: BLE001
            return 0
    return 1 << 30


class InputRestore:
    """Pristine copies of one perf shape's input sets (a list of (args, kwargs))."""

    def __init__(self, sets: list, budget: int):
        self.sets = [tensors_in(list(a)) + tensors_in(kw) for a, kw in sets]
        self.copies = None
        self.mutated: list = []  # positions in a set's tensor list that some call changed
        self.reason = ""
        total = sum(t.numel() * t.element_size() for ts in self.sets for t in ts)
        if total > budget:
            self.reason = f"inputs of {total} bytes exceed the copies' budget of {budget} bytes"
            return
        with torch.no_grad():
            self.copies = [[t.detach().clone() for t in ts] for ts in self.sets]

    def detect(self) -> None:
        """After the warm-up: which tensor positions a call changed in any set; keeps only their copies."""
        if self.copies is None:
            return
        with torch.no_grad():
            changed = {i for ts, cs in zip(self.sets, self.copies) for i, (t, c) in enumerate(zip(ts, cs)) if not _same(t, c)}
        self.mutated = sorted(changed)
        self.copies = [[c if i in changed else None for i, c in enumerate(cs)] for cs in self.copies]
        for k in range(len(self.sets)):
            self.before_call(k)

    def before_call(self, k: int) -> None:
        """Set k's changed tensors back to their pristine values (device work, not synchronised)."""
        if not self.mutated or self.copies is None:
            return
        with torch.no_grad():
            for i in self.mutated:
                self.sets[k][i].copy_(self.copies[k][i])

    def evidence(self) -> dict:
        if self.copies is None:
            return {"restored": False, "reason": self.reason}
        nbytes = sum(self.sets[0][i].numel() * self.sets[0][i].element_size() for i in self.mutated)
        return {"restored": bool(self.mutated), "tensors": self.mutated, "bytes_per_call": nbytes}
