# SPDX-License-Identifier: MIT
"""Precompile role: compiles a correct candidate's Triton kernels for the task's perf shapes during
the correctness stage, so that the perf stage's exclusive GPU window does not wait for Triton's JIT.

The correctness cases are small and odd-sized on purpose; the perf shapes are large and usually
aligned, so Triton specialises the kernels again (divisibility by 16, constexpr block sizes derived
from the shape). Measured on 2 x H200: those first calls were 96 s of a run's 219 s of exclusive GPU
time (bench/results/2026-11-30-h200x2-3runs). Here the candidate is called once per perf shape on
the perf stage's own first input set with every Triton launch replaced by a compile
(`JITFunction.run(..., warmup=True)`: the same specialisation key as a real launch, nothing runs on
the device), plus the kernel's launcher (C code the host's compiler builds per signature and
constants) and module load; @triton.autotune compiles every config it would benchmark and
benchmarks none. The
compiled kernels land in this candidate's Triton cache, which the perf worker starts from
(core/evaluator.cpp).

Best effort and harmless: the candidate's outputs here are garbage (no kernel ran), so a wrapper
that reads them back may raise or stop; whatever compiled before that is kept, and nothing of this
process feeds a verdict or a timing. A shape is given at most `max_shape_seconds` (SIGALRM: a
Python loop is interrupted, a compilation in progress finishes first)."""
from __future__ import annotations

import signal
import time
import traceback

import torch

from .candidate import classify
from .common import guarded, import_candidate, load_task, send, triton_cache_entries, versions
from .perf import perf_input_sets, perf_shapes, timed_call


class _ShapeTimeout(Exception):
    pass


def compile_only():
    """Makes every Triton launch a compile (returns a function that undoes it). Autotuners compile
    each (pruned) config and time none of them; their choice here is arbitrary and dies with this
    process."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction
    saved = (JITFunction.run, Autotuner._bench)
    run0 = JITFunction.run

    def run(self, *a, grid=None, warmup=False, **k):
        kernel = run0(self, *a, grid=grid, warmup=True, **k)
        try:
            # The launcher (C, built by the host compiler per signature and constants) and the
            # module load, which a real launch does on its first call: the launcher is cached too.
            kernel._init_handles()
        except Exception:  # noqa: BLE001 - e.g. out of shared memory: the perf stage's launch says so
            pass
        return kernel

    def bench(self, *a, config, **meta):
        try:
            self.fn.run(*a, **dict(meta, **config.all_kwargs()))
        except Exception:  # noqa: BLE001 - a config that does not compile is one autotune would skip
            return [float("inf")] * 3
        return [0.0] * 3

    JITFunction.run, Autotuner._bench = run, bench

    def undo():
        JITFunction.run, Autotuner._bench = saved
    return undo


def run(req: dict) -> int:
    send({"type": "hello", "magic": "KBXW", "protocol": 1, "role": "precompile", "versions": versions()})
    device = req["device"]
    cfg = {"max_shape_seconds": 60.0}
    cfg.update(req.get("config") or {})
    task = load_task(req["task_file"], req["task_id"])
    shapes = perf_shapes(task.META, cfg, req)
    t0 = time.perf_counter()
    # The perf stage's first input set of every shape (the same draws, so the same sizes, dtypes and
    # integer arguments Triton specialises on), before any candidate code runs.
    sets = perf_input_sets(task, req["task_id"], shapes, device, 1)
    if device == "cuda":
        torch.cuda.synchronize()
    inputs_s = time.perf_counter() - t0
    before = triton_cache_entries()
    send({"type": "importing"})
    try:
        fn = getattr(import_candidate(req["source_file"]), req["entry"])
    except BaseException as e:  # noqa: BLE001
        send({"type": "result", "ok": False, "failure_class": classify(e), "message": f"{type(e).__name__}: {e}"[:500]})
        return 0
    undo = compile_only()

    def alarm(*_):
        raise _ShapeTimeout(f"no compile finished within {cfg['max_shape_seconds']} s")
    signal.signal(signal.SIGALRM, alarm)
    call = timed_call(task)
    done = []
    for s in shapes:
        a, kw = sets[s["name"]][0]
        ts = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, float(cfg["max_shape_seconds"]))
        err = None
        try:
            call(fn, a, kw)
            if device == "cuda":
                torch.cuda.synchronize()
        except BaseException as e:  # noqa: BLE001 - garbage outputs may make the wrapper raise
            err = f"{type(e).__name__}: {e}"[:300]
            if isinstance(e, _ShapeTimeout):
                err += " " + traceback.format_exc(limit=-2)[-300:]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        done.append({"shape": s["name"], "seconds": round(time.perf_counter() - ts, 4), **({"error": err} if err else {})})
        if err and device == "cuda":
            try:
                torch.cuda.synchronize()
            except Exception:  # noqa: BLE001 - a sticky CUDA error: nothing more can run here
                break
    undo()
    send({"type": "result", "ok": True, "shapes": done, "compiled": triton_cache_entries() - before,
          "inputs_seconds": round(inputs_s, 4), "seconds": round(time.perf_counter() - t0, 4)})
    return 0


def main(req: dict) -> int:
    return guarded(run, req, "precompile harness failed")
