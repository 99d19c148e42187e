#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fixed costs of a perf worker on this machine, each in a fresh interpreter (where the
perf stage's seconds go before any kernel is timed).

  bench/perf_overheads.py [--repeats 3] [--json]

Measures, per fresh `python3 -c` process: the interpreter alone, `import torch`, `import triton`,
CUDA initialisation (first tensor on the device), a first and a second torch.profiler pass with
CUDA activity around one tiny kernel, an NVML snapshot through libnvidia-ml, and the harness's
device calibration (copy bandwidth and four matmul rates). Prints the median over --repeats."""
import argparse
import json
import statistics
import subprocess
import sys
import time

PROBE = r'''
import time, json, sys
t = {}
t0 = time.perf_counter()
import torch
t["import_torch"] = time.perf_counter() - t0
t0 = time.perf_counter()
import triton, triton.language
t["import_triton"] = time.perf_counter() - t0
t0 = time.perf_counter()
x = torch.ones(1 << 20, device="cuda"); torch.cuda.synchronize()
t["cuda_init"] = time.perf_counter() - t0
t0 = time.perf_counter()
import torch.profiler
t["import_profiler"] = time.perf_counter() - t0
from torch.profiler import profile, ProfilerActivity
for k in ("profiler_first", "profiler_second"):
    t0 = time.perf_counter()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        y = x * 2; torch.cuda.synchronize()
    n = len([e for e in p.events()])
    t[k] = time.perf_counter() - t0
t0 = time.perf_counter()
import ctypes
lib = ctypes.CDLL("libnvidia-ml.so.1"); lib.nvmlInit_v2()
h = ctypes.c_void_p(); lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(0), ctypes.byref(h))
v = ctypes.c_uint(); lib.nvmlDeviceGetClockInfo(h, ctypes.c_uint(1), ctypes.byref(v))
t["nvml"] = time.perf_counter() - t0
sys.path.insert(0, sys.argv[1])
t0 = time.perf_counter()
from kbx_harness import perf
t["import_harness"] = time.perf_counter() - t0
t0 = time.perf_counter()
perf.calibrate()
t["calibrate"] = time.perf_counter() - t0
t0 = time.perf_counter()
f = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.int8, device="cuda")
ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
ev[0].record()
for _ in range(100):
    f.zero_()
ev[1].record(); torch.cuda.synchronize()
t["l2_flush_ms_each"] = ev[0].elapsed_time(ev[1]) / 100 / 1e3
print(json.dumps(t))
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    import os
    harness = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tasks", "worker", "python")
    runs = []
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", PROBE, harness], check=True, capture_output=True, text=True).stdout
        total = time.perf_counter() - t0
        r = json.loads(out.strip().splitlines()[-1])
        r["interpreter"] = bare
        r["process_total"] = total
        runs.append(r)
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    if a.json:
        print(json.dumps({"median_s": med, "runs": runs}))
        return
    print(f"| step | median s over {a.repeats} fresh processes |\n|---|---:|")
    for k, v in med.items():
        print(f"| {k} | {v:.4f} |")


if __name__ == "__main__":
    main()
