# SPDX-License-Identifier: MIT
"""Probe role: what this worker can run on (versions, devices). Used for run provenance.

With KBX_PROBE_HOLD=1 (kbx eval on CUDA, core/probe_hold.h) a probe whose device ran its kernel
then keeps the process, and with it the device's context, alive: {"type": "hold"} after the
result, and it exits on the first line (or the end) of its stdin. A GPU that no process holds open
is set up again by the driver for the next process that opens it; held, the run's first workers
find it set up."""
from __future__ import annotations

import os
import sys

import torch

from .common import send, versions


def main(req: dict) -> int:
    v = versions()
    send({"type": "hello", "magic": "KBXW", "protocol": 1, "role": "probe", "versions": v})
    devices = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            devices.append({"index": i, "name": p.name, "capability": f"{p.major}.{p.minor}",
                            "memory_bytes": p.total_memory,
                            "uuid": str(getattr(p, "uuid", ""))})
    # A device that is listed but cannot run a kernel (fallen off the bus, ECC-retired, another
    # process's sticky error) is not usable: kbx's multi-GPU supervisor takes it out of the pool.
    cuda_works = False
    cuda_error = ""
    if devices:
        try:
            x = torch.arange(1024, device="cuda", dtype=torch.float32)
            cuda_works = float((x * 2).sum().item()) == 1047552.0
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - any failure means the device is unusable
            cuda_error = f"{type(e).__name__}: {e}"[:500]
    send({"type": "result", "versions": v, "cuda_available": torch.cuda.is_available(), "devices": devices,
          "cuda_works": cuda_works, "cuda_error": cuda_error})
    if cuda_works and os.environ.get("KBX_PROBE_HOLD") == "1":
        # Every other visible device opened too (after the answer: the run does not wait for it),
        # for the slots of a run on several GPUs.
        for i in range(1, len(devices)):
            try:
                torch.ones(1, device=f"cuda:{i}")
            except Exception:  # noqa: BLE001 - that slot's own health probe says what is wrong
                pass
        send({"type": "hold"})
        sys.stdin.readline()
    return 0
