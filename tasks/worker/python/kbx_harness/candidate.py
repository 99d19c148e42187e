# SPDX-License-Identifier: MIT
"""Candidate role: runs untrusted code in a process of its own. Inputs are loaded from the file the
reference role wrote *before* the candidate module is imported, so nothing the module does at
import time changes them. Every call gets fresh clones; the post-call state of every input tensor
is saved, so the trusted comparison (C++) detects mutation. Verdicts are not decided here."""
from __future__ import annotations

import os
import time
import traceback

import torch

from . import static_checks
from .common import (call_entry, import_candidate, case_output, clone_tree, flatten_output, guarded, load_task, send,
                     tensors_in, to_cpu_copy, to_device, versions)

CUDA_STICKY = ("illegal memory access", "device-side assert", "misaligned address", "illegal instruction",
               "unspecified launch failure", "cuda error", "cuda_error", "an illegal", "launch failure")

_launches: dict[str, int] = {}


def _count_launches():
    """Counts Triton kernel launches (compiled and interpreted)."""
    def wrap(cls):
        orig = cls.run
        if getattr(orig, "_kbx_wrapped", False):
            return

        def run(self, *a, **k):
            name = getattr(getattr(self, "fn", None), "__name__", None) or getattr(self, "__name__", "kernel")
            if not k.get("warmup", False):
                _launches[name] = _launches.get(name, 0) + 1
            return orig(self, *a, **k)
        run._kbx_wrapped = True
        cls.run = run
    try:
        from triton.runtime.jit import JITFunction
        wrap(JITFunction)
    except Exception:  # noqa: BLE001
        pass
    try:
        from triton.runtime.interpreter import InterpretedFunction
        wrap(InterpretedFunction)
    except Exception:  # noqa: BLE001
        pass


def _interpreter_autotune():
    """CPU mode has no GPU driver, so @triton.autotune cannot benchmark its configs ("0 active
    drivers"). Verdicts need no timings: every config scores the same and the first (pruned)
    config is the one that runs, as the interpreter's stand-in for the tuned choice."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        return
    try:
        from triton.runtime.autotuner import Autotuner
    except Exception:  # noqa: BLE001
        return
    Autotuner._bench = lambda self, *a, config=None, **k: [0.0, 0.0, 0.0]


def _candidate_line(tb, source_file):
    line = None
    for fs in traceback.extract_tb(tb):
        if os.path.abspath(fs.filename) == os.path.abspath(source_file):
            line = fs.lineno
    return line


def classify(e: BaseException) -> str:
    chain, seen = [], set()
    x = e
    while x is not None and id(x) not in seen:
        chain.append(x)
        seen.add(id(x))
        x = x.__cause__ or x.__context__
    if os.environ.get("TRITON_INTERPRET") == "1":
        # Gaps of Triton's CPU interpreter (e.g. no bf16 constants: 'InterpreterBuilder' object has
        # no attribute 'get_bf16') are not the candidate's fault: the evaluation is not judged.
        for x in chain:
            if "InterpreterBuilder" in str(x) or (isinstance(x, NotImplementedError) and any(
                    f.filename.endswith(os.path.join("triton", "runtime", "interpreter.py"))
                    for f in traceback.extract_tb(x.__traceback__))):
                return "interpreter_unsupported"
    for x in chain:
        if isinstance(x, (ModuleNotFoundError, ImportError)):
            return "import_error"
    for x in chain:
        msg = str(x).lower()
        if isinstance(x, MemoryError) or type(x).__name__ == "OutOfMemoryError" or any(
                s in msg for s in ("out of memory", "can't allocate memory", "not enough memory", "cannot allocate memory")):
            return "out_of_memory"
    for x in chain:
        msg = str(x).lower()
        if any(s in msg for s in CUDA_STICKY) and "triton" not in type(x).__module__:
            return "cuda_error"
    for x in chain:
        mod, name = type(x).__module__, type(x).__name__
        if mod.startswith("triton.compiler") or name in ("CompilationError", "CompileTimeAssertionFailure",
                                                         "OutOfResources", "UnsupportedLanguageConstruct"):
            return "triton_compile_error"
    # Interpreter mode: a semantic error raised from inside triton.language is a compile error on a GPU.
    for x in chain:
        if type(x).__name__ == "InterpreterError" and x.__cause__ is not None:
            frames = traceback.extract_tb(x.__cause__.__traceback__)
            if any(os.sep + os.path.join("triton", "language") + os.sep in f.filename for f in frames):
                return "triton_compile_error"
    return "runtime_error"


def _poison(device, nbytes):
    """Fills memory the caching allocator will hand out next with 0xFF (NaN for floats)."""
    if device != "cuda":
        return
    try:
        blk = torch.empty(int(nbytes), dtype=torch.uint8, device=device)
        blk.fill_(0xFF)
        del blk
    except Exception:  # noqa: BLE001
        pass


RECORDS_NAME = "drive_records.pt"


def _call_recorded(task, fn, args, kwargs, records, name):
    """The task's drive() with every call of the entry recorded: its return value and the state of
    the tensors in that call's arguments afterwards (CPU copies, in call order). The judge role
    replays them through its own copy of drive(). Calls of a case that raises are not kept."""
    calls = []
    rec = {"name": name, "calls": calls, "complete": False}
    records.append(rec)

    def recording(*a, **k):
        out = fn(*a, **k)
        calls.append({"ret": to_cpu_copy(out), "args_after": to_cpu_copy(tensors_in((a, k)))})
        return out
    ret = task.drive(recording, args, kwargs)
    rec["complete"] = True
    return ret


def run(req: dict) -> int:
    # Wall seconds per phase of this process (reported with the result, for bench/: where the
    # correctness stage's time goes). Written by the harness but readable by the candidate's code
    # like every frame after "importing", so the supervisor keeps them as diagnostics only.
    now = time.time()
    phases = {}
    if isinstance(req.get("_t_main"), (int, float)) and isinstance(req.get("_t_python"), (int, float)):
        phases["interpreter"] = round(req["_t_python"] - req["_t_main"], 4)
        phases["harness_import"] = round(now - req["_t_python"], 4)  # import torch and the harness
    t_phase = [time.perf_counter()]

    def phase(name):
        t = time.perf_counter()
        phases[name] = round(phases.get(name, 0.0) + t - t_phase[0], 4)
        t_phase[0] = t
    send({"type": "hello", "magic": "KBXW", "protocol": 1, "role": "candidate", "versions": versions()})
    device = req["device"]
    task = load_task(req["task_file"], req["task_id"])
    meta = task.META
    bundle = torch.load(req["inputs_file"], weights_only=True, map_location="cpu")
    cases = bundle["cases"]
    with open(req["source_file"], encoding="utf-8", errors="replace") as f:
        src = f.read()
    quant_static = (meta.get("quantization") or {}).get("static") if meta.get("comparison") == "quantization" else None
    if req.get("skip_static_contract"):  # kbx tasks --check running the task's own reference
        quant_static = None
    st = static_checks.check(src, meta["entry"], quant_static, meta.get("aliases", ()))
    send(dict(st, type="static"))
    phase("inputs_and_static")
    if not st["ok"]:
        send({"type": "result", "stage": "static", "failure_class": st["failure_class"]})
        return 0
    _count_launches()
    _interpreter_autotune()
    # From here on candidate code runs in this process and can send any frame itself: the supervisor
    # believes a harness_error frame only while it has not seen this one (core/protocol.h).
    send({"type": "importing"})
    # Import the candidate as a module of its own; __name__ != "__main__" so demo blocks do not run.
    try:
        mod = import_candidate(req["source_file"])
    except BaseException as e:  # noqa: BLE001
        cls = "runtime_error" if isinstance(e, SystemExit) else classify(e)
        send({"type": "result", "stage": "import", "failure_class": cls,
              "message": f"{type(e).__name__}: {e}"[:2000], "traceback": traceback.format_exc()[-8000:],
              "line": _candidate_line(e.__traceback__, req["source_file"])})
        return 68 if cls == "cuda_error" else 0
    phase("candidate_import")
    fn = getattr(mod, st["entry"], None)
    if not callable(fn):
        send({"type": "result", "stage": "import", "failure_class": "no_entry_point",
              "message": f"'{st['entry']}' is not callable"})
        return 0
    outputs = []
    sticky = False
    # Verifying drive() (META "drive_checks"): what the entry returned is recorded for the trusted
    # judge role (kbx_harness/judge.py), which re-runs drive() itself; drive's verdict here is not used.
    records = [] if meta.get("drive_checks") and getattr(task, "drive", None) is not None else None
    for i, c in enumerate(cases):
        if sticky:
            outputs.append({"name": c["name"], "error": "skipped", "message": "skipped after a CUDA error"})
            continue
        args = to_device(clone_tree(c["args"]), device)
        kwargs = to_device(clone_tree(c["kwargs"]), device)
        _poison(device, 4 * sum(t.numel() * t.element_size() for t in tensors_in(args)) + (1 << 20))
        t0 = time.perf_counter()
        try:
            ret = (call_entry(task, fn, args, kwargs) if records is None
                   else _call_recorded(task, fn, args, kwargs, records, c["name"]))
            if device == "cuda":
                torch.cuda.synchronize()
            structure, leaves, scalar = flatten_output(case_output(ret, args, c["mutates"]))
            after = to_cpu_copy(tensors_in(args))
            outputs.append({"name": c["name"], "structure": structure, "tensors": leaves, "scalar": scalar,
                            "args_after": after})
            send({"type": "case", "index": i, "name": c["name"], "status": "ran",
                  "seconds": time.perf_counter() - t0})
        except BaseException as e:  # noqa: BLE001 - SystemExit and friends are candidate failures too
            cls = "runtime_error" if isinstance(e, (SystemExit, KeyboardInterrupt)) else classify(e)
            msg = (f"candidate called sys.exit({e.code})" if isinstance(e, SystemExit)
                   else f"{type(e).__name__}: {e}")[:2000]
            outputs.append({"name": c["name"], "error": cls, "message": msg})
            send({"type": "case", "index": i, "name": c["name"], "status": "error", "failure_class": cls,
                  "message": msg, "traceback": traceback.format_exc()[-8000:],
                  "line": _candidate_line(e.__traceback__, req["source_file"]),
                  "seconds": time.perf_counter() - t0})
            if cls == "cuda_error":
                sticky = True
        # The first case carries the device context, allocator warm-up and Triton's JIT compilation.
        phase("first_case" if i == 0 else "other_cases")
    torch.save({"version": 1, "cases": outputs}, req["outputs_file"])
    if records is not None:
        torch.save({"version": 1, "cases": records}, os.path.join(os.path.dirname(req["outputs_file"]), RECORDS_NAME))
    phase("save_outputs")
    send({"type": "result", "stage": "cases", "launches": dict(_launches),
          "triton_kernels": st.get("triton_kernels", []), "sticky_cuda_error": sticky, "phases": phases})
    return 68 if sticky else 0


def main(req: dict) -> int:
    return guarded(run, req, "candidate harness failed")
