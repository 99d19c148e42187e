# SPDX-License-Identifier: MIT
"""Probe role: what this worker can run on (versions, devices). Used for run provenance."""
from __future__ import annotations

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
    return 0
