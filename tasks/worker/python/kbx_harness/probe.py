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
    send({"type": "result", "versions": v, "cuda_available": torch.cuda.is_available(), "devices": devices})
    return 0
