# SPDX-License-Identifier: MIT
"""@triton.autotune made visible and cheap where it does not matter (issue 22).

The correctness stage (kbx_harness/candidate.py) does not let the autotuner race: with `pin`
(the request's autotune_pin, 0 for the first run) every autotuner takes that config of its pruned list
without benchmarking, and kbx runs the contract cases once per config (the autotune sweep,
core/evaluator.cpp; docs/PERF_PROTOCOL.md "Autotuning"). A real generated smooth_l1_loss kernel is
wrong at BLOCK_SIZE 128, 256 and 512 and right at 1024: raced, its verdict followed the winner (pass in one
H200 run, fail in the next); swept, it fails. Without a pin (the perf stage) the autotuner runs as
Triton made it, and `install(bounded=True)` gives it a benchmarker of one warm-up and three timed
calls per config.

Both stages record what the autotuner chose: per kernel, the config per key, how many configs were
benchmarked and for how long, and (perf stage) each config's measured time. Read from the
autotuners' own state (their cache, best_config, configs_timings) after the calls: the only per-call
cost inside a timed call is one counter (the perf stage times what the candidate's call costs, not
ours). This is evidence, not verdict: the candidate's process writes it; kbx reads one number from
it, how many configs to sweep (a candidate that hides its configs is judged on its first only).
"""
from __future__ import annotations

import time
import weakref

_instances: "weakref.WeakSet" = weakref.WeakSet()
_bounded = False
MAX_KERNELS, MAX_KEYS, MAX_TEXT = 32, 64, 300


def _cfg(c) -> str:
    try:
        return str(c)[:MAX_TEXT]
    except Exception:  # noqa: BLE001
        return "?"


def _name(at) -> str:
    return getattr(getattr(at, "base_fn", None), "__name__", None) or "kernel"


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


_pin = None  # the config index every autotuner uses (kbx's autotune sweep), None: its own choice
_BIG = 1e6
# Replay (perf stage, `kbx eval --autotune-replay`): {kernel name: config text} recorded by an earlier
# run; an autotuner of that name whose configs include that text takes it without benchmarking.
_replay: dict = {}
_replay_gen = 0


def replay(choices) -> None:
    """Sets the recorded choices for what runs next (one perf shape): {kernel: config text}, or
    None/{} for the autotuner's own choice. Every autotuner forgets its per-key choices once when the
    choices change, so the next call chooses again (by replay, or by benchmarking)."""
    global _replay, _replay_gen
    new = {str(k): str(v) for k, v in (choices or {}).items()} if isinstance(choices, dict) else {}
    if new != _replay:
        _replay = new
        _replay_gen += 1


def _unusable_errors():
    """What Triton's autotuner scores inf (the config cannot run on this device for these
    arguments): such a config is never chosen, so a pinned one that raises it is skipped."""
    errs = []
    try:
        from triton.runtime.errors import OutOfResources, PTXASError
        errs += [OutOfResources, PTXASError]
    except Exception:  # noqa: BLE001
        pass
    try:
        from triton.compiler.errors import CompileTimeAssertionFailure
        errs.append(CompileTimeAssertionFailure)
    except Exception:  # noqa: BLE001
        pass
    return tuple(errs)


def install(bounded: bool, pin=None) -> None:
    """Registers every Autotuner made from now on, counts its runs, times its benchmarking and,
    with bounded (GPU only), gives it the bounded benchmarker.

    pin (kbx's autotune sweep, core/evaluator.cpp): every autotuner chooses the pin-th of its pruned
    configs (the first when it has fewer) instead of benchmarking: its pruning still applies, and a
    config that cannot run (what the autotuner scores inf) is skipped for the next, as the autotuner
    would. kbx judges a candidate that autotunes under each of its configs, so its verdict does not
    depend on which config wins a noisy race."""
    global _bounded, _pin
    try:
        from triton.runtime.autotuner import Autotuner
    except Exception:  # noqa: BLE001
        return
    _bounded = bounded
    _pin = int(pin) if isinstance(pin, int) and not isinstance(pin, bool) and 0 <= pin < 64 else None
    if getattr(Autotuner.run, "_kbx_autotune", False):
        return
    orig_init, orig_run, orig_bench = Autotuner.__init__, Autotuner.run, Autotuner._bench
    unusable = _unusable_errors()

    def __init__(self, *a, **k):
        orig_init(self, *a, **k)
        try:
            _instances.add(self)
        except TypeError:
            pass

    def run(self, *args, **kwargs):
        d = self.__dict__
        d["_kbx_calls"] = d.get("_kbx_calls", 0) + 1
        if d.get("_kbx_replay_gen", 0) != _replay_gen:
            # The replayed choices changed (another perf shape): decide again, once.
            d["_kbx_replay_gen"] = _replay_gen
            target = _replay.get(_name(self))
            d["_kbx_replay"] = None
            d["_kbx_replay_hit"] = None
            if target is not None:
                hit = any(_cfg(c) == target for c in self.configs)
                d["_kbx_replay_hit"] = hit
                if hit:
                    d["_kbx_replay"] = target
                    d["cache_results"] = False
            try:
                self.cache.clear()
            except Exception:  # noqa: BLE001
                pass
        if _pin is not None:
            d["cache_results"] = False  # no choice from Triton's disk cache (an earlier process's)
            d.setdefault("_kbx_unusable", set())
            for _ in range(len(self.configs)):
                d["_kbx_seq"] = 0
                try:
                    return orig_run(self, *args, **kwargs)
                except unusable:
                    # The pinned config cannot run here: the autotuner would score it inf. Forget
                    # the choice for this key and take the next config.
                    bad = getattr(self, "best_config", None)
                    if bad is None or id(bad) in d["_kbx_unusable"]:
                        raise
                    d["_kbx_unusable"].add(id(bad))
                    for k, v in list(self.cache.items()):
                        if v is bad:
                            del self.cache[k]
            return orig_run(self, *args, **kwargs)
        if _bounded and d.get("do_bench") is not _bounded_bench:
            d["do_bench"] = _bounded_bench  # do_bench is a cached_property: the instance's entry wins
        return orig_run(self, *args, **kwargs)

    def _bench(self, *args, **kwargs):
        target = self.__dict__.get("_kbx_replay")
        if _pin is None and target is not None:
            # Replay: the recorded config scores lowest, nothing is timed.
            cfg = kwargs.get("config")
            score = 0.0 if cfg is not None and _cfg(cfg) == target else 1.0
            return [score, score, score]
        if _pin is not None:
            # Called once per pruned config, in order: the pin-th scores lowest (the first config
            # when there are fewer), configs that could not run score inf; nothing is timed.
            d = self.__dict__
            i = d.get("_kbx_seq", 0)
            d["_kbx_seq"] = i + 1
            cfg = kwargs.get("config")
            if cfg is not None and id(cfg) in d.get("_kbx_unusable", ()):
                score = float("inf")
            else:
                score = float(i - _pin) if i >= _pin else float(i - _pin) + _BIG
            return [score, score, score]
        t0 = time.perf_counter()
        try:
            return orig_bench(self, *args, **kwargs)
        finally:
            d = self.__dict__
            d["_kbx_bench_s"] = d.get("_kbx_bench_s", 0.0) + time.perf_counter() - t0
            d["_kbx_benched"] = d.get("_kbx_benched", 0) + 1

    run._kbx_autotune = True
    Autotuner.__init__, Autotuner.run, Autotuner._bench = __init__, run, _bench


def _used():
    return [at for at in list(_instances) if at.__dict__.get("_kbx_calls")][:MAX_KERNELS]


def evidence() -> dict:
    """{kernel: {"configs": N, "keys": {key: config}, "benchmarked": configs timed, "bench_s": s,
    "bounded": bool}} for every autotuned kernel that ran."""
    out = {}
    for at in _used():
        d = at.__dict__
        keys = {}
        try:
            for key, cfg in list(getattr(at, "cache", {}).items())[:MAX_KEYS]:
                keys[repr(key)[:MAX_TEXT]] = _cfg(cfg)
        except Exception:  # noqa: BLE001
            pass
        if not keys and getattr(at, "best_config", None) is not None:
            keys["(any)"] = _cfg(at.best_config)  # one config: nothing to tune
        name = _name(at)
        while name in out:
            name += "'"
        out[name] = {"configs": len(getattr(at, "configs", []) or []), "keys": keys,
                     "benchmarked": d.get("_kbx_benched", 0), "bench_s": round(d.get("_kbx_bench_s", 0.0), 4),
                     "bounded": _bounded}
        if _pin is not None:
            out[name]["pin"] = _pin
    return out


def mark() -> dict:
    """The autotuners' counters now, for since()."""
    return {id(at): (at.__dict__.get("_kbx_calls", 0), at.__dict__.get("_kbx_bench_s", 0.0)) for at in list(_instances)}


def since(m: dict) -> list:
    """For every autotuned kernel that ran since mark m: the config it ran last, how long it
    benchmarked in that window and, if it did, each config's measured time (ms)."""
    out = []
    for at in list(_instances):
        d = at.__dict__
        calls0, bench0 = m.get(id(at), (0, 0.0))
        if d.get("_kbx_calls", 0) <= calls0:
            continue
        e = {"kernel": _name(at), "config": _cfg(getattr(at, "best_config", None))}
        if d.get("_kbx_replay_hit") is not None:
            e["replayed"] = bool(d["_kbx_replay_hit"])  # False: the recorded config is not among its configs
        bench = d.get("_kbx_bench_s", 0.0) - bench0
        if bench > 0:
            e["bench_s"] = round(bench, 4)
            tm = {}
            for c, v in list((getattr(at, "configs_timings", None) or {}).items())[:MAX_KEYS]:
                try:
                    tm[_cfg(c)] = float(v[0] if isinstance(v, (list, tuple)) else v)
                except Exception:  # noqa: BLE001
                    pass
            if tm:
                e["timings_ms"] = tm
        out.append(e)
        if len(out) >= MAX_KERNELS:
            break
    return out
