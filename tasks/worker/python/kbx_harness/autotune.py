# SPDX-License-Identifier: MIT
"""@triton.autotune made visible and cheap where it does not matter (issue 22).

The correctness stage (kbx_harness/candidate.py) needs a working config per kernel key, not the
fastest one: Triton's autotuner benchmarks every pruned config for 25 ms + 100 ms on every new key,
and a real generated matmul spent 60-80 s of its verdict doing so. `install(bounded=True)` keeps the
autotuner's logic (pruning, configs that fail to compile or run out of resources score inf, the
fastest measured config wins) but times each config with one warm-up and three timed calls. The
perf stage times the config its own full autotuning picks, and its output re-check judges that
config's output.

Not done, on purpose: autotuning once per kernel and reusing that choice for later keys. It halves
the stage on the H200 (50 s instead of 78 s for the 50 adjudicated corpus versions) but changes a
verdict: a real generated smooth_l1_loss kernel is wrong at BLOCK_SIZE 256 and 512 and right at
1024; autotuned per key it fails (as on the seed's inputs), reused from its first key it passed.
Such a kernel's verdict depends on which config wins the autotuner's race, which is noisy (a second
run chose otherwise on 15 of 93 timed shapes): judging every case under every config that compiles
would make it deterministic at about the cost autotuning already pays (docs/PERF_PROTOCOL.md).

Both stages record what the autotuner chose: per kernel, the config per key, how many keys were
benchmarked and for how long, and (perf stage) each config's measured time. This is evidence, not
verdict: the candidate's process writes it and the judge never reads it.
"""
from __future__ import annotations

import time

_records: dict = {}  # kernel name -> {"keys": {key repr: config repr}, "bench_s": float, "benchmarked": int}
_events: list = []   # (kernel, key repr, config repr, bench_s or None, {config repr: ms} or None), in call order
_bounded = False
MAX_KERNELS, MAX_KEYS, MAX_TEXT = 32, 64, 300


def _cfg(c) -> str:
    try:
        return str(c)[:MAX_TEXT]
    except Exception:  # noqa: BLE001
        return "?"


def _bounded_bench(kernel_call, quantiles=None, **_kw):
    """One warm-up call and three timed ones (the median, the minimum and the maximum as
    Triton's (0.5, 0.2, 0.8) quantiles)."""
    import torch
    kernel_call()
    torch.cuda.synchronize()
    ts = []
    for _ in range(3):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        kernel_call()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return [ts[1], ts[0], ts[2]] if quantiles else ts[1]


def install(bounded: bool) -> None:
    """Wraps Autotuner.run (recording) and, with bounded, its benchmarker (GPU only)."""
    global _bounded
    try:
        from triton.runtime.autotuner import Autotuner
    except Exception:  # noqa: BLE001
        return
    _bounded = bounded
    orig_run = Autotuner.run
    if getattr(orig_run, "_kbx_autotune", False):
        return

    def run(self, *args, **kwargs):
        if _bounded:
            self.__dict__["do_bench"] = _bounded_bench  # do_bench is a cached_property: the instance wins
        before = getattr(self, "bench_time", None)
        timings_before = getattr(self, "configs_timings", None)
        t0 = time.perf_counter()
        ret = orig_run(self, *args, **kwargs)
        try:
            name = getattr(getattr(self, "base_fn", None), "__name__", None) or "kernel"
            rec = _records.get(name)
            if rec is None and len(_records) < MAX_KERNELS:
                rec = _records[name] = {"keys": {}, "bench_s": 0.0, "benchmarked": 0, "configs": len(self.configs)}
            timings = getattr(self, "configs_timings", None)
            benchmarked = timings is not None and timings is not timings_before or getattr(self, "bench_time", None) != before
            key = None
            try:
                nargs = dict(zip(self.arg_names, args))
                key = repr(tuple(nargs.get(k, kwargs.get(k)) for k in self.keys))[:MAX_TEXT]
            except Exception:  # noqa: BLE001
                key = "?"
            cfg = _cfg(getattr(self, "best_config", None))
            bench_s = None
            if benchmarked:
                bench_s = float(getattr(self, "bench_time", time.perf_counter() - t0) or 0.0)
            if rec is not None:
                if key in rec["keys"] or len(rec["keys"]) < MAX_KEYS:
                    rec["keys"][key] = cfg
                if bench_s is not None:
                    rec["bench_s"] += bench_s
                    rec["benchmarked"] += 1
            if len(_events) < 4096:
                tm = None
                if benchmarked and isinstance(timings, dict):
                    tm = {}
                    for c, v in list(timings.items())[:MAX_KEYS]:
                        try:
                            tm[_cfg(c)] = float(v[0] if isinstance(v, (list, tuple)) else v)
                        except Exception:  # noqa: BLE001
                            pass
                _events.append((name, key, cfg, bench_s, tm))
        except Exception:  # noqa: BLE001 - evidence only: never the candidate's failure
            pass
        return ret

    run._kbx_autotune = True
    Autotuner.run = run


def evidence() -> dict:
    """{kernel: {"configs": N, "keys": {key: config}, "benchmarked": keys, "bench_s": s, "bounded": bool}}"""
    return {k: dict(v, keys=dict(v["keys"]), bounded=_bounded) for k, v in _records.items()}


def mark() -> int:
    return len(_events)


def since(m: int) -> list:
    """What the autotuner chose in the calls since mark m: per kernel, its last key's config, and
    the measured time of each config where it benchmarked then."""
    out: dict = {}
    for name, key, cfg, bench_s, tm in _events[m:]:
        e = out.setdefault(name, {"kernel": name})
        e["key"], e["config"] = key, cfg
        if bench_s is not None:
            e["bench_s"] = round(e.get("bench_s", 0.0) + bench_s, 4)
            if tm:
                e["timings_ms"] = tm
    return list(out.values())
