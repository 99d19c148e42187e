# SPDX-License-Identifier: MIT
"""Perf role: times a candidate that already passed the correctness stage against PyTorch eager
(the task's reference), in one process, on one device, on the same inputs, interleaved ABAB.

Protocol per perf shape (docs/PERF_PROTOCOL.md):
  * inputs: `rotations` input sets drawn by the harness from (task, shape, k), before the candidate
    module is imported; timed calls rotate through them (defeats caching by tensor id); inputs a
    call modifies (in-place ops, optimizer steps) are put back before every timed call, outside the
    timed region (kbx_harness.restore);
  * warm-up: the first call of each side is timed separately (JIT compilation, autotuning), then
    calls are repeated until two consecutive warm-up calls agree within 10 % (at most `max_warmup`);
  * placement: a random 12..42 MiB spacer is allocated before the inputs, so that each process
    draws them at another place in device memory (placement_offset); with the experiment's
    `placement_gap_mb` (off by default) also a random gap before each shape's outputs (placement_gap);
    with `history_flip` (off by default) a random bit per shape, on 1 fresh input storages and an odd
    number of extra kernels before the warm-up (kbx_harness.history); with `parity_balance` (kbx's
    default on cuda: 2) one extra kernel before every block after the first and each sample's group stored
    (kbx_harness.parity);
  * timed loop: L2 flushed (a buffer >= 2x the device's L2 is zeroed) before every timed call,
    outside the timed region; CUDA events on the current stream around each call plus a
    device-wide synchronize per block; candidate and reference alternate (ABAB);
  * launch gap: a spin kernel after the flush keeps the device busy while the host enqueues the
    timed call; a sample whose start event the device had already passed by the time the call and
    its end event were enqueued is starved (host latency inside), dropped, and the gap doubled;
    sides whose call waits for the device inside (probed) keep their host time by nature;
  * adaptive repetitions: at least `min_reps` pairs, then blocks until the 95 % CI of both medians
    (order statistics) is within `target_rel_ci` of the median, or `max_seconds` of timed work, or
    `max_reps` pairs; slow calls (min_reps pairs longer than `max_seconds`) need fewer pairs (at
    least `min_reps_slow`) and warm up for at most two calls after `max_warmup_seconds`;
  * output re-check: the candidate's output of a random timed call is compared with the reference's
    output of the same input set (a gross-error check, not the verdict; kbx_harness.recheck says how
    mutating ops, random outputs and quantized outputs are handled);
  * attribution: one profiled call (torch.profiler, CUDA activity) lists the GPU kernels that ran
    and the share of GPU time in Triton kernels launched by the candidate;
  * integrity: torch's public functions are fingerprinted before the candidate is imported and
    after timing; a candidate that replaced any of them gets no speedup.
Raw samples (ms) go back to the C++ side, which computes medians, bootstrap CIs and geomeans.
On the CPU (Triton interpreter) the same plumbing runs with wall-clock timers: for tests only,
never performance."""
from __future__ import annotations

import importlib
import math
import os
import random
import sys
import time
import traceback

import torch

from .candidate import _count_launches, _launches, classify
from . import autotune
from .common import Phases, guarded, import_candidate, load_task, send, triton_cache_entries, versions
from . import recheck
from .history import history_flip
from . import parity
from .restore import InputRestore, budget_bytes
from .inputs import InputGen, derive_seed
from .perf_device import Nvml, calibrate, kernel_attribution


# ---- integrity of torch's namespace ------------------------------------------------------------
def _fingerprint() -> dict:
    fp = {}
    for modname, mod in (("torch", torch), ("torch.nn.functional", torch.nn.functional),
                         ("torch.Tensor", torch.Tensor), ("torch.cuda", torch.cuda), ("torch.linalg", torch.linalg),
                         ("torch.special", torch.special), ("torch.fft", torch.fft)):
        for k in dir(mod):
            if k.startswith("__"):
                continue
            try:
                fp[f"{modname}.{k}"] = id(getattr(mod, k))
            except Exception:  # noqa: BLE001
                pass
    return fp


def _changed(before: dict, after: dict) -> list:
    return sorted(k for k, v in before.items() if after.get(k) != v)[:20]


# ---- timers ------------------------------------------------------------------------------------
class _Timer:
    """CUDA events per call on the current stream; wall clock on the CPU."""

    def __init__(self, device: str):
        self.cuda = device == "cuda"

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def pair(self):
        if self.cuda:
            return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        return [0.0], [0.0]

    def start(self, ev):
        if self.cuda:
            ev.record()
        else:
            ev[0] = time.perf_counter()

    def stop(self, ev):
        if self.cuda:
            ev.record()
        else:
            ev[0] = time.perf_counter()

    def ms(self, a, b) -> float:
        return a.elapsed_time(b) if self.cuda else (b[0] - a[0]) * 1e3


def _median_ci(xs):
    """Median and the 95 % CI of the median from order statistics (distribution-free)."""
    s = sorted(xs)
    n = len(s)
    med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    h = 1.96 * math.sqrt(n) / 2
    lo = s[max(0, int(math.floor(n / 2 - h)))]
    hi = s[min(n - 1, int(math.ceil(n / 2 + h)))]
    return med, lo, hi


class LaunchGap:
    """The launch gap of one shape. Before each timed call the device is kept busy (a spin kernel,
    outside the timed region, after the L2 flush) for longer than the host takes to enqueue the call,
    so that the events measure the device's work and not the host's launch latency, which varies
    with the host's load (small shapes varied 5x run to run without it). The gap starts at twice the
    host's median enqueue time of the warm-up (within [min_gap_us, max_gap_us]).

    A sample is *starved* when the device had already passed its start event by the time the host
    had enqueued the call and its end event: the device may have waited for the host inside the
    events. Starved samples are kept apart and double the gap (up to max_gap_us) for the next block.
    A side whose call waits for the device inside (a count read back, host-side work; `host_sync`,
    probed by the caller) reaches its start event before it returns whatever the gap: its events hold
    that host time by nature, and the check does not apply to it. Only sides probed and found not to
    wait (host_sync False) are checked: a slow side is not probed (None), because four extra calls
    would cost more than a launch latency can move its median. On the CPU there is no gap."""

    def __init__(self, host_us: dict, cfg: dict, cycles_per_us: float):
        self.max_us = float(cfg["max_gap_us"])
        self.us = min(self.max_us, max(float(cfg["min_gap_us"]), 2.0 * max(host_us.values())))
        self.start_us = self.us
        self.cycles_per_us = cycles_per_us
        self.host_sync = {}

    @property
    def cycles(self) -> int:
        return int(self.us * self.cycles_per_us) if self.cycles_per_us else 0

    def probe_cycles(self) -> int:
        """The longest gap, for the host_sync probe calls."""
        return int(self.max_us * self.cycles_per_us) if self.cycles_per_us else 0

    def starved(self, side: str, start_event) -> bool:
        """Right after the call and its end event were enqueued: has the device passed the start?"""
        return bool(self.cycles) and self.host_sync.get(side) is False and bool(start_event.query())

    def sort(self, block, ms, samples: dict, starved: dict, labels=None, groups=None) -> None:
        """A synchronised block [[(side, start, end, was_starved), ...], ...]: clean samples to
        `samples`, starved ones to `starved` (ms(start, end) each); any starved one widens the gap.
        With `groups` (the parity-balance experiment) each clean sample's pair label, labels[i] for
        pair i, goes to groups[side], so that groups and samples stay one to one."""
        widen = False
        for i, pair in enumerate(block):
            for side, a, b, was_starved in pair:
                (starved if was_starved else samples)[side].append(ms(a, b))
                if groups is not None and not was_starved:
                    groups.setdefault(side, []).append(labels[i])
                widen = widen or was_starved
        if widen:
            self.us = min(self.max_us, 2.0 * self.us)

    @staticmethod
    def keep_if_too_few(samples: dict, starved: dict, min_reps: int) -> list:
        """Fewer than min_reps clean samples of a side (a host too slow even for the longest gap):
        all of its samples are kept. Returns those sides (flag host_latency_in_samples)."""
        kept = []
        for side in samples:
            if starved.get(side) and len(samples[side]) < min_reps:
                samples[side] = samples[side] + starved[side]
                kept.append(side)
        return kept

    def evidence(self, starved: dict, kept: list) -> dict:
        on = bool(self.cycles_per_us)
        return {"launch_gap_us": self.us if on else 0.0, "launch_gap_start_us": self.start_us if on else 0.0,
                "host_sync": dict(self.host_sync), "starved": {side: len(v) for side, v in starved.items()},
                "starved_kept": kept}


# The timer's settings for a request that carries no "config" (or not all of it). The defaults live
# in core/perfconfig.cpp (PerfConfig), which kbx sends in full; these mirror them (JSON literals:
# tests/core/perfconfig_test.cpp compares them with PerfConfig's), but for parity_balance: kbx's
# default on cuda is 2, and a request without the key comes from a kbx that reads no groups.
FALLBACK_CONFIG = {"rotations": 3, "min_reps": 10, "max_reps": 300, "block": 10, "target_rel_ci": 0.005,
                   "max_seconds": 0.6, "max_warmup": 20, "max_warmup_seconds": 0.3, "min_reps_slow": 3,
                   "min_gap_us": 20, "max_gap_us": 2000, "probe_max_ms": 10.0, "recheck_drive_max_elements": 33554432,
                   "recheck_drive_max_seconds": 2.0, "compile_backend": "inductor", "placement_gap_mb": 0,
                   "history_flip": 0, "parity_balance": 0}


def perf_shapes(meta: dict, cfg: dict, req: dict) -> list:
    """The task's perf shapes, or those of them the configuration names ("shapes")."""
    shapes = meta.get("perf_shapes", [])
    only = cfg.get("shapes") or req.get("shapes")
    return [s for s in shapes if s["name"] in only] if only else shapes


def placement_offset(device: str):
    """A spacer allocation of a random 12..42 MiB (2 MiB steps, from os.urandom) held for the process's
    life, made just before the perf inputs are drawn: returns (the tensor or None, its MiB).

    Why: on an H200 a small memory-bound kernel's time depends on where its input lies (which address
    bits above the 2 MiB page; bench/placement_probe.py, bench/results/2026-12-03-h200-placement:
    a 1M-element floor took 6.4 or 6.9 us by the input tensor's address alone, and an eager kernel
    with another access pattern the other way round). Every perf process makes the same allocations
    in the same order, so without this all processes of a run drew their inputs at the same place
    and agreed, while another run (another sequence before the inputs) landed elsewhere: a run-level
    part the between-process spread could not see. With a random offset each process samples a
    placement on its own, so the spread between processes (and the extra processes it triggers)
    covers what a repeat of the run sees. Above 10 MiB the caching allocator gives a request its
    own segment, so the spacer moves every later segment by its own size."""
    if device != "cuda":
        return None, 0
    mb = 12 + 2 * (os.urandom(1)[0] % 16)
    return torch.empty(mb << 20, dtype=torch.int8, device=device), mb


def placement_gap(device: str, max_mb: int, free_bytes=None):
    """An allocation of a random 2..max_mb MiB, drawn uniformly on a log scale (2 MiB steps, from
    os.urandom; at most a quarter of the free device memory), made just before a shape's first
    call after the allocator's unused blocks went back to the driver: returns (the tensor or None,
    its MiB). The caller holds it while the shape is timed, so the outputs its calls make take new
    memory beyond it.

    Why (an experiment, off unless the configuration's placement_gap_mb asks for it): a two-level
    kernel (relu on 16M float16) sat at one level in every process of a run and at the other in the
    next run. The gap was meant to let the processes of one run sample both levels, from a probe
    reading in which the level followed the size of the allocation before the outputs; that reading
    was confounded with the trials' parity; the level follows the parity of the launch index, which
    no allocation moves (bench/results/2026-12-06-launch-parity-6ac3849). Kept for a repeat pair to
    test. A log scale so that every scale from 2 MiB to max_mb gets the same share of draws."""
    if device != "cuda" or max_mb <= 0:
        return None, 0
    torch.cuda.empty_cache()
    u = int.from_bytes(os.urandom(4), "little") / 0xFFFFFFFF  # 0..1, both ends included
    mb = 2 * max(1, round(max(max_mb // 2, 1) ** u))
    if free_bytes is None:
        free_bytes = torch.cuda.mem_get_info()[0]
    mb = min(mb, (free_bytes // 4) >> 20)
    mb -= mb % 2
    return (torch.empty(mb << 20, dtype=torch.int8, device=device) if mb > 0 else None), mb


def perf_input_sets(task, task_id: str, shapes: list, device: str, rotations: int) -> dict:
    """Input set k of every perf shape: {shape name: [(args, kwargs), ...]}, drawn on the device
    from (task, shape, k) alone, so the precompile role draws the same first set as the timer."""
    sets = {}
    for s in shapes:
        sets[s["name"]] = []
        for k in range(rotations):
            g = InputGen(derive_seed(task_id, "perf/" + s["name"], k), device, native=True)
            a, kw = task.perf_inputs(g, s["params"])
            sets[s["name"]].append((tuple(a), dict(kw)))
    return sets


def timed_call(task):
    """What the perf stage times: the task's operation, called as fn(*args, **kwargs). A task's
    drive() may also *verify* the result (dropout statistics, factorisation identities: float64
    work of its own, on some shapes more than the operation itself), which would be timed with it
    and dilute both sides' times and the Triton share; so drive() is the timed call only where the
    task says it *is* the call (perf_drive, e.g. the optimizers: build, step). The re-check of such
    tasks still goes through drive() (an untimed call on the re-checked input set)."""
    pd = getattr(task, "perf_drive", None)
    if pd is not None:
        return lambda f, a, kw: pd(f, a, kw)
    return lambda f, a, kw: f(*a, **kw)


def compute_dtype(meta: dict, args, kwargs) -> str:
    """The arithmetic a perf shape is held against (issue 22): "int8" for a quantization task (its
    dot products are int8 whatever its inputs are), else the floating dtype holding most of the
    inputs' elements (float64, float32, float16, bfloat16; complex counts as its real dtype), else
    "int8" for int8 inputs and "float32" for anything else. From the actual perf inputs, never from
    the shape's params (45 tasks have no dtype there)."""
    if (meta or {}).get("quantization"):
        return "int8"
    from .common import tensors_in
    count: dict = {}
    for t in tensors_in(args) + tensors_in(kwargs):
        dt = t.dtype
        if dt.is_complex:
            dt = torch.float64 if dt == torch.complex128 else torch.float32
        count[dt] = count.get(dt, 0) + t.numel()
    floats = {d: n for d, n in count.items() if d.is_floating_point}
    if floats:
        return str(max(floats, key=lambda d: (floats[d], d.itemsize))).replace("torch.", "")
    # no floating input (a generator such as rand or logspace): the dtype it is asked to produce
    asked = [v for v in list(args) + list(kwargs.values()) if isinstance(v, torch.dtype) and v.is_floating_point]
    if asked:
        return str(asked[0]).replace("torch.", "")
    if count.get(torch.int8) or count.get(torch.uint8):
        return "int8"
    return "float32"


def _baselines(cfg: dict, ref):
    """Optional baselines beside eager (config "baselines"), timed in the same ABAB… rotation as the
    candidate and the reference: "compile" = torch.compile of the reference (fixed shapes, warmed;
    its compile time is its first call), "tf32" = the reference with TF32 allowed for matmuls and
    convolutions (precision-matched to a Triton kernel whose tl.dot uses TF32). Returns (the
    baselines by name, why a baseline is left out by name)."""
    extra, baseline_errors = {}, {}
    for b in cfg.get("baselines") or []:
        if b == "compile":
            try:
                extra["compile"] = torch.compile(ref, dynamic=False, backend=cfg["compile_backend"])
            except Exception as e:  # noqa: BLE001
                baseline_errors["compile"] = f"{type(e).__name__}: {e}"[:500]
        elif b == "tf32":
            def tf32_ref(*a, **kw):
                m, c = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
                torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
                try:
                    return ref(*a, **kw)
                finally:
                    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = m, c
            extra["tf32"] = tf32_ref
        else:
            baseline_errors[str(b)] = "unknown baseline (compile, tf32)"
    return extra, baseline_errors


def _repetitions(cfg: dict, last_ms: dict, gap: LaunchGap, sides: list, recheck_at: int, inputs: list):
    """(min_reps, block, recheck_at) of one shape. Slow calls: when min_reps pairs would take longer
    than the time cap (a pair's cost known from the warm-up), fewer pairs are the minimum (at least
    min_reps_slow) and blocks are that small, so that the cap bounds the shape's time: long calls
    vary little run to run."""
    pair_s = 1e-3 * sum(last_ms.values()) + 1e-6 * gap.us * len(sides)
    min_reps = int(cfg["min_reps"])
    if pair_s * min_reps > cfg["max_seconds"]:
        min_reps = max(int(cfg["min_reps_slow"]), min(min_reps, math.ceil(cfg["max_seconds"] / max(pair_s, 1e-9))))
    block = max(1, min(int(cfg["block"]), min_reps))
    if recheck_at >= min_reps:  # the same input set as the reference outputs above
        recheck_at = recheck_at % len(inputs)
        min_reps = max(min_reps, recheck_at + 1)
    return min_reps, block, recheck_at


def _converged(samples: dict, min_reps: int, cfg: dict) -> bool:
    """Both medians' 95 % CIs within target_rel_ci of the median (optional baselines are recorded,
    not waited for)."""
    ok = True
    for side in ("candidate", "reference"):
        if len(samples[side]) < min_reps:
            ok = False
            continue
        m, lo, hi = _median_ci(samples[side])
        if m <= 0 or (hi - lo) / m > 2 * cfg["target_rel_ci"]:
            ok = False
    return ok


class _PerfRun:
    """One perf worker's work, phase by phase (run() drives it): start-up (overlapping other workers'
    timing), the wait for the GPU, device set-up and inputs, the candidate's import, the shapes,
    attribution and the result."""

    def __init__(self, req: dict):
        self.req = req
        # Wall seconds per phase of this worker (the process start before run() is the evaluator's total
        # minus their sum): where the perf stage's time goes, kept with every measurement.
        self.phase = Phases()
        self.device = req["device"]
        # kbx sends the complete configuration (core/perfconfig.cpp holds every key's default);
        # FALLBACK_CONFIG only fills what a request without one (an older kbx, a test) leaves out.
        self.cfg = dict(FALLBACK_CONFIG)
        self.cfg.update(req.get("config") or {})
        self.task = load_task(req["task_file"], req["task_id"])
        self.meta = self.task.META
        self.shapes = perf_shapes(self.meta, self.cfg, req)

    def start(self) -> None:
        """Everything before the GPU is ours: no work on the device yet."""
        self.nvml = Nvml() if self.device == "cuda" else None
        self.flush = None
        if self.device == "cuda":
            # The CUDA context and the L2 flush buffer (torch.empty launches nothing on the device).
            l2 = int(getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20) or (64 << 20))
            self.flush = torch.empty(max(2 * l2, 64 << 20), dtype=torch.int8, device="cuda")
        # Modules that rebind torch functions when first imported (torch._dynamo wraps torch.manual_seed;
        # Triton and the profiler import it) are imported now, so the fingerprint sees only the candidate.
        for name in ("torch._dynamo", "triton", "triton.language", "torch.profiler"):
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001
                pass
        self.phase("start")  # task module, CUDA context, flush buffer, imports: no work on the device yet

    def wait_for_gpu(self) -> bool:
        """Everything before may overlap another worker's timing on this GPU; what follows may not. The
        supervisor answers "go" when the GPU is ours (a stdin at EOF: nobody to wait for). False: "stop"."""
        send({"type": "ready"})
        answer = sys.stdin.buffer.readline().strip()
        self.t_go = time.time()
        self.cache0 = triton_cache_entries()
        self.phase("wait_gpu")
        return answer != b"stop"

    def setup(self) -> None:
        """NVML, calibration (first job per GPU), the timer, the spin rate, the perf inputs."""
        self.before = self.nvml.snapshot() if self.nvml else {}
        self.peaks = {}
        if self.req.get("calibrate"):
            if self.device == "cuda":
                try:
                    self.peaks = calibrate()
                except Exception as e:  # noqa: BLE001
                    self.peaks = {"error": f"{type(e).__name__}: {e}"[:300]}
            # In a frame of their own, before the candidate is imported: kbx takes the first such frame
            # of the worker it asked to calibrate and nothing of its result, which comes after the
            # candidate ran in this process (core/perf_stage.h, calibratedPeaks), and as it arrives,
            # so that other candidates' timings waiting for it get their rooflines (publishCalibration).
            # On the CPU they are empty: no peaks there, and the other timings need not wait.
            send({"type": "peaks", "peaks": self.peaks})
        timer = self.timer = _Timer(self.device)
        self.spin, self.cycles_per_us = None, 0.0
        if self.device == "cuda":
            # The device's spin rate (cycles per microsecond), for the launch gap; taken before any
            # candidate code runs, like every function the timed loop calls.
            spin = self.spin = torch.cuda._sleep
            spin(1000)
            ea, eb = timer.pair()
            ea.record()
            spin(2_000_000)
            eb.record()
            timer.sync()
            self.cycles_per_us = 2_000_000 / max(1e-3, ea.elapsed_time(eb) * 1e3)
        # Where the inputs land, drawn at random per process (placement_offset), then the inputs of
        # every shape and rotation, drawn on the device before any candidate code runs.
        self.spacer, self.placement_mb = placement_offset(self.device)
        self.sets = perf_input_sets(self.task, self.req["task_id"], self.shapes, self.device, int(self.cfg["rotations"]))
        timer.sync()
        self.phase("setup")  # NVML, calibration (first job per GPU), perf inputs

    def load_candidate(self) -> bool:
        """torch fingerprinted, launches counted, then the candidate imported. False: it failed (said)."""
        autotune.install(bounded=False)  # the perf stage autotunes fully; what it chose goes with each shape
        self.fp0 = _fingerprint()
        _count_launches()
        try:
            self.fn = getattr(import_candidate(self.req["source_file"]), self.req["entry"])
            self.phase("candidate_import")
        except BaseException as e:  # noqa: BLE001
            send({"type": "result", "ok": False, "failure_class": classify(e), "message": f"{type(e).__name__}: {e}"[:2000]})
            return False
        self.ref = self.task.reference
        self.extra, self.baseline_errors = _baselines(self.cfg, self.ref)
        self.rng = random.Random(self.req.get("seed", 0))
        return True

    def time_shape(self, s: dict):
        """One perf shape's result; None after a sticky CUDA error (said: the worker exits 68)."""
        name = s["name"]
        inputs = self.sets[name]
        # An earlier run's autotune choices for this shape, replayed (kbx eval --autotune-replay).
        autotune.replay({e.get("kernel"): e.get("config") for e in (self.req.get("autotune_replay") or {}).get(name, [])
                         if isinstance(e, dict) and isinstance(e.get("kernel"), str) and isinstance(e.get("config"), str)})
        at_mark = autotune.mark()
        cost = self.task.perf_cost(s["params"]) if hasattr(self.task, "perf_cost") else None
        try:
            return self._measure(s, inputs, at_mark, cost)
        except BaseException as e:  # noqa: BLE001
            res = {"shape": name, "error": classify(e), "message": f"{type(e).__name__}: {e}"[:2000],
                   "traceback": traceback.format_exc()[-4000:]}
            if self.device == "cuda":
                try:
                    torch.cuda.synchronize()
                except Exception:  # noqa: BLE001
                    send({"type": "shape", **res})
                    send({"type": "result", "ok": False, "failure_class": "cuda_error", "message": res["message"]})
                    return None
            return res

    def _measure(self, s: dict, inputs: list, at_mark, cost) -> dict:
        task, meta, cfg = self.task, self.meta, self.cfg
        # Reference outputs for the re-check (before any candidate call), then warm-up of both
        # sides. The re-check compares one random timed call: only its input set needs reference
        # outputs (two calls, to tell a random output; a slow reference is not called more).
        call = timed_call(task)
        # The experiment's history flip (off by default; kbx_harness.history): a random bit per
        # process and shape, on 1 fresh input storages and an odd number of extra kernels.
        flip = history_flip(self.device, bool(cfg.get("history_flip")), inputs)
        # Copies of the inputs before any call of this shape: an in-place call's inputs are put back
        # before every timed call (kbx_harness.restore).
        restore = InputRestore(inputs, budget_bytes(self.device))
        recheck_at = self.rng.randrange(cfg["min_reps"])
        k = recheck_at % len(inputs)
        # The re-check's reference output(s), from a pristine copy of input set k (kbx_harness.recheck).
        rplan = recheck.plan(task, meta, self.ref, inputs[k], int(cfg["recheck_drive_max_elements"]),
                             float(cfg["recheck_drive_max_seconds"]))
        sides = [("candidate", self.fn), ("reference", self.ref)] + [(b, f) for b, f in self.extra.items()
                                                                     if b not in self.baseline_errors]
        # The experiment's gap before the shape's outputs (off by default), held to the shape's end.
        gap_hold, gap_mb = placement_gap(self.device, int(cfg.get("placement_gap_mb", 0)))
        first, warm, last_ms, host_us = self._warm_up(sides, call, inputs)
        gap = LaunchGap(host_us, cfg, self.cycles_per_us)
        if gap.cycles:
            self._probe_host_sync(gap, sides, call, inputs, last_ms)
        restore.detect()
        self.phase("reference_outputs_and_warmup")
        samples = {side: [] for side, _ in sides}
        starved = {side: [] for side, _ in sides}  # LaunchGap: samples the host may have held up
        # The parity balance (kbx's default on cuda; kbx_harness.parity): each clean sample's group.
        groups = {side: [] for side, _ in sides} if cfg.get("parity_balance") else None
        min_reps, block, recheck_at = _repetitions(cfg, last_ms, gap, sides, recheck_at, inputs)
        if groups is not None:
            min_reps = max(min_reps, 2 * block)  # two blocks at least, or two of the four groups stay empty
        reps, stop, recheck_result = self._timed_loop(sides, call, inputs, gap, samples, starved, min_reps, block,
                                                      recheck_at, rplan, restore, groups)
        del gap_hold  # the gap was held through the warm-up and the timed loop
        kept_starved = LaunchGap.keep_if_too_few(samples, starved, min_reps)
        for side in kept_starved if groups is not None else []:
            groups.pop(side, None)  # its starved samples joined the clean ones: no groups for them
        res = {"shape": s["name"], "params": s["params"], "compute_dtype": compute_dtype(meta, *inputs[0]),
               "autotune": autotune.since(at_mark),
               "samples_ms": samples, "first_call_s": first,
               "warmup_calls": warm, "host_enqueue_us": host_us, **gap.evidence(starved, kept_starved),
               "reps": reps, "min_reps": min_reps, "stop": stop, "rotations": len(inputs), "placement_offset_mb": self.placement_mb,
               **({"placement_gap_mb": gap_mb} if cfg.get("placement_gap_mb") and self.device == "cuda" else {}),
               **({"history_flip": flip} if flip is not None else {}),
               **({"parity_groups": groups} if groups is not None else {}),
               "recheck": recheck_result, "inputs_restored": restore.evidence(), "cost": cost, "baseline_errors": dict(self.baseline_errors)}
        self.phase("timed_loops")
        return res

    def _warm_up(self, sides: list, call, inputs: list):
        """Each side's first call timed alone, then calls until two consecutive ones agree. An optional
        baseline that cannot run this shape is taken out of `sides`. Returns (first call s, warm-up
        calls, last warm-up ms, median host enqueue us), by side."""
        cfg, timer = self.cfg, self.timer
        first = {}
        warm = {}
        last_ms = {}
        host_us = {}
        for side, f in list(sides):
            a, kw = inputs[0]
            timer.sync()
            t0 = time.perf_counter()
            try:
                call(f, a, kw)
                timer.sync()
            except Exception as e:  # noqa: BLE001
                if side in ("candidate", "reference"):
                    raise
                # An optional baseline that cannot run this shape (torch.compile refusing an op):
                # left out of this shape, said why; the candidate's timing goes on.
                self.baseline_errors[side] = f"{type(e).__name__}: {e}"[:500]
                sides.remove((side, f))
                continue
            first[side] = time.perf_counter() - t0
            prev, n = None, 0
            enq = []
            warm_ms = 0.0
            t = 1e3 * first[side]  # a pair's cost estimate if no warm-up call runs (max_warmup 0)
            # Until two consecutive calls agree, or (slow calls) after two calls once the warm-up has
            # taken max_warmup_seconds: a call of seconds is past its JIT after the first.
            while n < cfg["max_warmup"] and not (n >= 2 and warm_ms > 1e3 * cfg["max_warmup_seconds"]):
                ea, eb = timer.pair()
                timer.start(ea)
                h0 = time.perf_counter()
                call(f, *inputs[n % len(inputs)])
                enq.append(time.perf_counter() - h0)
                timer.stop(eb)
                timer.sync()
                t = timer.ms(ea, eb)
                warm_ms += t
                n += 1
                if prev is not None and abs(t - prev) <= 0.1 * max(prev, 1e-6):
                    break
                prev = t
            warm[side] = n
            last_ms[side] = t
            host_us[side] = 1e6 * sorted(enq)[len(enq) // 2]
        return first, warm, last_ms, host_us

    def _probe_host_sync(self, gap: LaunchGap, sides: list, call, inputs: list, last_ms: dict) -> None:
        """Which sides wait for the device inside their call: two probe calls per side behind the
        longest gap; both must have found the start event passed when they returned. A side whose
        warm-up call took probe_max_ms or more is not probed (None, unchecked)."""
        timer, spin = self.timer, self.spin
        for side, f in sides:
            if last_ms[side] >= float(self.cfg["probe_max_ms"]):
                gap.host_sync[side] = None
                continue
            waited = 0
            for _ in range(2):
                timer.sync()
                spin(gap.probe_cycles())
                ea, eb = timer.pair()
                timer.start(ea)
                out = call(f, *inputs[0])
                timer.stop(eb)
                waited += bool(ea.query())
                del out
            gap.host_sync[side] = waited == 2
        timer.sync()

    def _timed_loop(self, sides: list, call, inputs: list, gap: LaunchGap, samples: dict, starved: dict, min_reps: int,
                    block: int, recheck_at: int, rplan, restore: InputRestore, groups=None):
        """ABAB… blocks until converged, max_reps or the time cap; the candidate's output of call
        recheck_at re-checked. With `groups` (kbx_harness.parity) an extra kernel before every block
        after the first and each clean sample's group. Returns (reps, why it stopped, the re-check)."""
        cfg, timer, flush, spin, task = self.cfg, self.timer, self.flush, self.spin, self.task
        recheck_result = None
        t_start = time.perf_counter()
        reps = 0
        b = 0  # the block's index
        while True:
            evs = []
            parity.extra_kernel(self.device, groups is not None, b)
            for _ in range(block):
                k = reps % len(inputs)
                a, kw = inputs[k]
                pair = []
                for side, f in sides:
                    restore.before_call(k)  # an in-place call's inputs, pristine again (before the flush)
                    if flush is not None:
                        flush.zero_()
                    if gap.cycles:
                        spin(gap.cycles)
                    ea, eb = timer.pair()
                    timer.start(ea)
                    out = call(f, a, kw)
                    timer.stop(eb)
                    pair.append((side, ea, eb, gap.starved(side, ea)))
                    if side == "candidate" and reps == recheck_at:
                        timer.sync()
                        if rplan.mode != "skipped" and recheck.needs_untimed_call(task, rplan, (a, kw)):
                            del out
                            out = recheck.untimed_output(task, f, rplan)
                            timer.sync()
                        recheck_result = recheck.check(rplan, out, self.meta)
                    del out
                evs.append(pair)
                reps += 1
            timer.sync()
            gap.sort(evs, timer.ms, samples, starved, [parity.group(b, j) for j in range(len(evs))], groups)
            b += 1
            if reps >= cfg["max_reps"]:
                return reps, "max_reps", recheck_result
            if reps >= min_reps and _converged(samples, min_reps, cfg):
                return reps, "converged", recheck_result
            if reps >= min_reps and time.perf_counter() - t_start > cfg["max_seconds"]:
                return reps, "time_cap", recheck_result

    def finish(self, results: list) -> None:
        """Attribution on the largest shape that ran, torch's integrity, NVML after; the result."""
        attribution = {"available": False, "reason": "no shape ran"}
        ran = [s for s in self.shapes if any(r.get("shape") == s["name"] and "error" not in r for r in results)]
        if ran:
            a, kw = self.sets[ran[-1]["name"]][0]
            try:
                attribution = kernel_attribution(lambda: timed_call(self.task)(self.fn, a, kw), self.device, set(_launches))
                attribution["shape"] = ran[-1]["name"]
            except Exception as e:  # noqa: BLE001
                attribution = {"available": False, "reason": f"{type(e).__name__}: {e}"[:500]}
        self.phase("attribution")
        changed = _changed(self.fp0, _fingerprint())
        after = self.nvml.snapshot() if self.nvml else {}
        self.phase("finish")
        send({"type": "result", "ok": True, "attribution": attribution, "torch_modified": changed,
              "launches": dict(_launches), "nvml_before": self.before, "nvml_after": after, "config": self.cfg,
              "phases": self.phase.times, "window": [self.t_go, time.time()],
              "triton_compiles": triton_cache_entries() - self.cache0})


def run(req: dict) -> int:
    send({"type": "hello", "magic": "KBXW", "protocol": 1, "role": "perf", "versions": versions()})
    work = _PerfRun(req)
    work.start()
    if not work.wait_for_gpu():
        send({"type": "result", "ok": False, "failure_class": "harness_error", "message": "perf stage cancelled"})
        return 0
    work.setup()
    if not work.load_candidate():
        return 0
    results = []
    for s in work.shapes:
        res = work.time_shape(s)
        if res is None:  # a sticky CUDA error: the worker exits (core/protocol.h)
            return 68
        send({"type": "shape", **res})
        results.append(res)
    work.finish(results)
    return 0


def main(req: dict) -> int:
    return guarded(run, req, "perf harness failed")
