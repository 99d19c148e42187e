# SPDX-License-Identifier: MIT
"""What the perf worker measures of the device beside its timings: NVML clocks, temperature and power
(before and after), the device's peaks (calibrate: copy bandwidth and matmul rates, once per run and
GPU), and which GPU kernels one call ran (attribution, through torch.profiler)."""
from __future__ import annotations

import ctypes

import torch


class Nvml:
    """NVML through the driver's own library (no Python package needed); empty snapshots without it."""

    def __init__(self):
        self.lib = None
        try:
            self.lib = ctypes.CDLL("libnvidia-ml.so.1")
            if self.lib.nvmlInit_v2() != 0:
                self.lib = None
        except OSError:
            self.lib = None

    def snapshot(self, index: int = 0) -> dict:
        if self.lib is None:
            return {}
        h = ctypes.c_void_p()
        if self.lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(index), ctypes.byref(h)) != 0:
            return {}
        out = {}
        v = ctypes.c_uint()
        for name, clock in (("sm_clock_mhz", 1), ("mem_clock_mhz", 2)):  # NVML_CLOCK_SM, NVML_CLOCK_MEM
            if self.lib.nvmlDeviceGetClockInfo(h, ctypes.c_uint(clock), ctypes.byref(v)) == 0:
                out[name] = v.value
        if self.lib.nvmlDeviceGetTemperature(h, ctypes.c_uint(0), ctypes.byref(v)) == 0:
            out["temperature_c"] = v.value
        if self.lib.nvmlDeviceGetPowerUsage(h, ctypes.byref(v)) == 0:
            out["power_w"] = v.value / 1000.0
        buf = ctypes.create_string_buffer(96)
        if self.lib.nvmlSystemGetDriverVersion(buf, ctypes.c_uint(96)) == 0:
            out["driver"] = buf.value.decode()
        if self.lib.nvmlDeviceGetUUID(h, buf, ctypes.c_uint(96)) == 0:
            out["uuid"] = buf.value.decode()
        return out


def kernel_attribution(fn_call, device: str, triton_names: set) -> dict:
    if device != "cuda":
        return {"available": False, "reason": "no CUDA profiler on the CPU"}
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn_call()
        torch.cuda.synchronize()
    kernels = {}
    for ev in prof.events():
        if getattr(ev, "device_type", None) is None or str(ev.device_type).split(".")[-1] != "CUDA":
            continue
        name = ev.name
        us = float(getattr(ev, "device_time_total", 0.0) or getattr(ev, "cuda_time_total", 0.0) or 0.0)
        k = kernels.setdefault(name, {"name": name, "calls": 0, "us": 0.0})
        k["calls"] += 1
        k["us"] += us
    total = sum(k["us"] for k in kernels.values())

    def is_triton(name):
        return any(name == t or name.startswith(t + "_") or name.startswith(t) for t in triton_names)

    trit = sum(k["us"] for k in kernels.values() if is_triton(k["name"]))
    top = sorted(kernels.values(), key=lambda k: -k["us"])[:12]
    for k in top:
        k["triton"] = is_triton(k["name"])
    return {"available": True, "gpu_us": total, "triton_us": trit,
            "triton_share": (trit / total) if total > 0 else 0.0, "kernels": top}


# The buffer sizes of the copy-bandwidth trials (MiB per buffer; each at least four L2 caches).
COPY_TRIAL_MIB = (1024, 512, 256)


def copy_bandwidth(measure, l2_bytes: int) -> dict:
    """The device's copy bandwidth (GB/s, read + write counted): the best of copies between buffer pairs
    of COPY_TRIAL_MIB sizes, measure(nbytes) timing one pair; a peak is the best the device did. One
    1 GiB pair alone read 2,581 GB/s in one run on an H100 and 2,948 in the next, at the same clocks
    and with the GPU to itself; 16 honest elementwise shapes at 2,970 GB/s were flagged faster than
    their roofline in the first (bench/results/2026-12-06-h100-first-wave-20d8ea2). calibrate() keeps
    every pair allocated until all were timed, so each lies elsewhere in device memory. Each buffer is
    at least four times the L2 cache, so no trial is served from it. The trials are kept beside the
    peak (copy_trials); a trial that fails (out of memory on a small card) is kept with its error."""
    trials = []
    for mib in COPY_TRIAL_MIB:
        nbytes = max(mib << 20, 4 * l2_bytes)
        try:
            trials.append({"mib": nbytes >> 20, "gbs": float(measure(nbytes))})
        except RuntimeError as e:  # torch.cuda.OutOfMemoryError is one
            trials.append({"mib": nbytes >> 20, "error": f"{type(e).__name__}: {e}"[:160]})
    rates = [t["gbs"] for t in trials if "gbs" in t]
    if not rates:
        raise RuntimeError("no copy-bandwidth trial ran: " + "; ".join(t["error"] for t in trials))
    return {"copy_gbs": max(rates), "copy_trials": trials}


def calibrate() -> dict:
    """Device peaks, measured once per run: device-to-device copy bandwidth (GB/s, read + write
    counted; the best of three buffer pairs, copy_bandwidth) and dense matmul rates (TFLOP/s) for
    fp32 (TF32 off), TF32, bf16, fp16, fp64 and int8."""
    out = {}

    def best_ms(fn, reps=10):
        fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(reps):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            ts.append(a.elapsed_time(b))
        return min(ts)

    held = []  # every pair stays allocated until all were timed, so each lies elsewhere in memory

    def copy_gbs(nbytes: int) -> float:
        x = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda")
        y = torch.empty_like(x)
        held.extend((x, y))
        return 2 * x.numel() * 4 / (best_ms(lambda: y.copy_(x)) * 1e-3) / 1e9

    out.update(copy_bandwidth(copy_gbs, int(getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or 0)))
    held.clear()
    m = 8192
    prev = torch.backends.cuda.matmul.allow_tf32
    try:
        for key, dt, tf32 in (("fp32_tflops", torch.float32, False), ("tf32_tflops", torch.float32, True),
                              ("bf16_tflops", torch.bfloat16, False), ("fp16_tflops", torch.float16, False)):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            a = torch.randn(m, m, device="cuda", dtype=dt)
            b = torch.randn(m, m, device="cuda", dtype=dt)
            out[key] = 2 * m ** 3 / (best_ms(lambda: a @ b, reps=5) * 1e-3) / 1e12
            del a, b
        # fp64 (a smaller product: its rate is a fraction of the others') and int8 dot products
        a = torch.randn(4096, 4096, device="cuda", dtype=torch.float64)
        out["fp64_tflops"] = 2 * 4096 ** 3 / (best_ms(lambda: a @ a, reps=5) * 1e-3) / 1e12
        del a
        try:
            a = torch.randint(-128, 127, (m, m), device="cuda", dtype=torch.int8)
            b = torch.randint(-128, 127, (m, m), device="cuda", dtype=torch.int8).t().contiguous().t()
            out["int8_tops"] = 2 * m ** 3 / (best_ms(lambda: torch._int_mm(a, b), reps=5) * 1e-3) / 1e12
            del a, b
        except Exception as e:  # noqa: BLE001 - no int8 tensor cores: the int8 peak falls back to bf16's
            out["int8_error"] = f"{type(e).__name__}: {e}"[:200]
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev
    torch.cuda.empty_cache()
    p = torch.cuda.get_device_properties(0)
    out["l2_bytes"] = int(getattr(p, "L2_cache_size", 0) or 0)
    out["sm_count"] = p.multi_processor_count
    out["name"] = p.name
    return out
