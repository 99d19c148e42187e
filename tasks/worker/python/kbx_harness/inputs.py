# SPDX-License-Identifier: MIT
"""Harness-owned input generation.

Every random tensor a task draws comes from an explicit ``torch.Generator`` owned by the harness,
seeded from (task id, case group, seed). Nothing here touches the global torch RNG, so whatever a
candidate's module code does (warm-ups with ``torch.randn``, leftover test code, ``manual_seed``)
cannot change the inputs. Inputs are drawn on the CPU and moved to the evaluation device, so CPU and
CUDA runs see bit-identical inputs.

Perf inputs (``native=True``) are drawn on the evaluation device itself, in float32 rather than
float64: drawing hundreds of megabytes on one CPU thread took seconds per shape, and timing needs
inputs that repeat run to run on one device (a device generator with a fixed seed does), not inputs
identical to the CPU's.
"""
from __future__ import annotations

import hashlib

import torch


def derive_seed(*parts) -> int:
    """A stable 63-bit seed from any printable parts (task id, group, seed)."""
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "little") & ((1 << 63) - 1)


def _shape(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
        return tuple(shape[0])
    return tuple(int(s) for s in shape)


class InputGen:
    """Draws task inputs from a private generator. See docs/TASK_FORMAT.md."""

    def __init__(self, seed: int, device: str = "cpu", native: bool = False):
        self.seed = int(seed)
        self.device = device
        self._native = bool(native) and device not in ("cpu", "meta")
        self._draw = device if self._native else "cpu"          # where random numbers are drawn
        self._f = torch.float32 if self._native else torch.float64  # the dtype they are drawn in
        self._gen = torch.Generator(device=self._draw)
        self._gen.manual_seed(self.seed)

    def _meta(self, shape, dtype):
        """device="meta": shapes and dtypes only, nothing drawn (perf-cost checks of huge shapes)."""
        return torch.empty(_shape(shape), dtype=dtype, device="meta")

    def _out(self, t: torch.Tensor, dtype=None) -> torch.Tensor:
        if dtype is not None:
            t = t.to(dtype)
        return t.to(self.device)

    def randn(self, *shape, dtype=torch.float32):
        if self.device == "meta":
            return self._meta(shape, dtype)
        return self._out(torch.randn(_shape(shape), generator=self._gen, dtype=self._f, device=self._draw), dtype)

    def outlier(self, *shape, dtype=torch.float32, p=1e-3, scale=50.0):
        if self.device == "meta":
            return self._meta(shape, dtype)
        s = _shape(shape)
        base = torch.randn(s, generator=self._gen, dtype=self._f, device=self._draw)
        big = torch.randn(s, generator=self._gen, dtype=self._f, device=self._draw) * scale
        mask = torch.rand(s, generator=self._gen, dtype=self._f, device=self._draw) < p
        return self._out(torch.where(mask, big, base), dtype)

    def rand(self, *shape, low=0.0, high=1.0, dtype=torch.float32):
        if self.device == "meta":
            return self._meta(shape, dtype)
        u = torch.rand(_shape(shape), generator=self._gen, dtype=self._f, device=self._draw)
        return self._out(low + (high - low) * u, dtype)

    def randint(self, low, high, *shape, dtype=torch.int64):
        if self.device == "meta":
            return self._meta(shape, dtype)
        t = torch.randint(int(low), int(high), _shape(shape), generator=self._gen, dtype=torch.int64, device=self._draw)
        return self._out(t, dtype)

    def bernoulli(self, *shape, p=0.5):
        if self.device == "meta":
            return self._meta(shape, torch.bool)
        return self._out(torch.rand(_shape(shape), generator=self._gen, dtype=self._f, device=self._draw) < p)

    def perm(self, n):
        if self.device == "meta":
            return self._meta((int(n),), torch.int64)
        return self._out(torch.randperm(int(n), generator=self._gen, dtype=torch.int64, device=self._draw))

    def tensor(self, data, dtype=torch.float32):
        return torch.tensor(data, dtype=dtype, device=self.device)
