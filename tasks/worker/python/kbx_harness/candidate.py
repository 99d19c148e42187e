# SPDX-License-Identifier: MIT
"""Candidate role: runs untrusted code in a process of its own. Inputs are loaded from the file the
reference role wrote *before* the candidate module is imported, so nothing the module does at
import time changes them. Every call gets fresh clones; the post-call state of every input tensor
is saved, so the trusted comparison (C++) detects mutation. Verdicts are not decided here."""
from __future__ import annotations

import os
import time
import traceback
import types

import torch

from . import autotune, static_checks
from .common import (Phases, call_entry, call_tensors, import_candidate, case_output, clone_tree, encode_case, encode_error,
                     flatten_output, guarded, load_task, send, tensors_in, to_cpu_copy, to_device, versions,
                     write_outputs)

CUDA_STICKY = ("illegal memory access", "device-side assert", "misaligned address", "illegal instruction",
               "unspecified launch failure", "cuda error", "cuda_error", "an illegal", "launch failure")

_launches: dict[str, int] = {}
# Evidence of what reached the launched Triton kernels, per kernel name: "args", the dtypes of the tensor
# arguments; "values", the element types the kernel computed with (CPU interpreter: every value it made
# while it ran; GPU: the types in its compiled TTIR). Reported with the result; the trusted side decides
# (e.g. whether integer data reached a kernel of a quantization task). Like the launch counter it lives
# in the candidate's process: a candidate can forge it (tests/fixtures/exploits/TABLE.md).
_launch_dtypes: dict[str, dict[str, set]] = {}
_EVIDENCE_LAUNCHES = 64  # launches per kernel name whose arguments are looked at (cost stays flat in loops)

_TL_TO_TORCH = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64", "int1": "bool",
                "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2", "fp8e4b8": "float8_e4m3fnuz",
                "fp8e5b16": "float8_e5m2fnuz", "fp8e4b15": "float8_e4b15"}
_MLIR_TO_TORCH = {"i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "f16": "float16",
                  "bf16": "bfloat16", "f32": "float32", "f64": "float64", "f8E4M3FN": "float8_e4m3fn",
                  "f8E5M2": "float8_e5m2", "f8E4M3FNUZ": "float8_e4m3fnuz", "f8E5M2FNUZ": "float8_e5m2fnuz"}
_TTIR_TYPES = None
_ttir_seen: dict[int, set] = {}


class TorchInTritonKernel(RuntimeError):
    """A PyTorch call made by the candidate's code while its @triton.jit kernel ran (CPU interpreter)."""


class _LaunchState:
    kernel = None      # name of the interpreted kernel running now (None: none)
    in_body = False    # its grid loop has started (set_grid_idx called): candidate code runs as the body
    values = None      # set collecting element types of the values it makes
    torch_calls = []   # (function, file, line) of torch calls from candidate code inside the body


def _tl_name(ty) -> str:
    n = getattr(ty, "name", None) or str(ty)
    return _TL_TO_TORCH.get(n, n)


def _arg_dtypes(args, kwargs) -> set:
    out = set()

    def add(v, depth=0):
        if isinstance(v, torch.Tensor):
            out.add(str(v.dtype).replace("torch.", ""))
        elif isinstance(v, (tuple, list)) and depth < 2:
            for e in v[:64]:
                add(e, depth + 1)
        elif hasattr(v, "base") and isinstance(getattr(v, "base", None), torch.Tensor):  # TensorDescriptor
            add(v.base, depth + 1)
    for v in args:
        add(v)
    for v in kwargs.values():
        add(v)
    return out


def _ttir_dtypes(kernel) -> set:
    """Element types in a compiled kernel's TTIR (GPU), once per kernel object."""
    global _TTIR_TYPES
    key = id(kernel)
    if key in _ttir_seen:
        return _ttir_seen[key]
    found = set()
    try:
        import re
        if _TTIR_TYPES is None:
            _TTIR_TYPES = re.compile(r"(?:(?<=[^A-Za-z0-9_])|(?<=\dx))(i1|i8|i16|i32|i64|f16|bf16|f32|f64|f8E[0-9A-Za-z]+)"
                                     r"(?![A-Za-z0-9_])")
        ttir = (getattr(kernel, "asm", None) or {}).get("ttir")
        if isinstance(ttir, bytes):
            ttir = ttir.decode("utf-8", "replace")
        if isinstance(ttir, str):
            found = {_MLIR_TO_TORCH.get(t, t) for t in _TTIR_TYPES.findall(ttir)}
    except Exception:  # noqa: BLE001 - evidence is best effort; its absence is judged by the trusted side
        pass
    _ttir_seen[key] = found
    return found


def _interpreter_hooks():
    """CPU interpreter only: record the element type of every value a running kernel makes, and
    catch PyTorch calls from the candidate's code while the kernel body runs (the interpreter runs the
    body as Python, where torch would work; a GPU cannot compile it: not a Triton kernel)."""
    try:
        from torch.overrides import TorchFunctionMode
        from triton.runtime import interpreter as interp
    except Exception:  # noqa: BLE001
        return None
    th = getattr(interp, "TensorHandle", None)
    if th is not None and not getattr(th.__post_init__, "_kbx_wrapped", False):
        orig_post = th.__post_init__

        def post_init(self):
            orig_post(self)
            if _LaunchState.values is not None:
                try:
                    _LaunchState.values.add(_tl_name(self.get_element_ty()))
                except Exception:  # noqa: BLE001
                    pass
        post_init._kbx_wrapped = True
        th.__post_init__ = post_init
    ib = type(getattr(interp, "interpreter_builder", None))
    if ib is not type(None) and hasattr(ib, "set_grid_idx") and not getattr(ib.set_grid_idx, "_kbx_wrapped", False):
        orig_idx = ib.set_grid_idx

        def set_grid_idx(self, *a, **k):
            if _LaunchState.kernel is not None:
                _LaunchState.in_body = True
            return orig_idx(self, *a, **k)
        set_grid_idx._kbx_wrapped = True
        ib.set_grid_idx = set_grid_idx

    import sys
    import triton
    torch_dir = os.path.dirname(torch.__file__) + os.sep
    ours = (os.path.dirname(triton.__file__) + os.sep, os.path.dirname(os.path.abspath(__file__)) + os.sep)

    class Watch(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if _LaunchState.in_body:
                f = sys._getframe(1)
                while f is not None and f.f_code.co_filename.startswith(torch_dir):
                    f = f.f_back
                where = f.f_code.co_filename if f is not None else ""
                if f is not None and not where.startswith(ours):
                    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or str(func)
                    _LaunchState.torch_calls.append((name, where, f.f_lineno))
                    raise TorchInTritonKernel(
                        f"the @triton.jit kernel '{_LaunchState.kernel}' called PyTorch ({name}, line {f.f_lineno}) "
                        "while it ran: a Triton kernel cannot call torch")
            return func(*args, **(kwargs or {}))
    return Watch


def _count_launches():
    """Counts Triton kernel launches (compiled and interpreted) and records what reached them."""
    interpreting = os.environ.get("TRITON_INTERPRET") == "1"
    watch = _interpreter_hooks() if interpreting else None

    def wrap(cls, interpreted):
        orig = cls.run
        if getattr(orig, "_kbx_wrapped", False):
            return

        def run(self, *a, **k):
            name = getattr(getattr(self, "fn", None), "__name__", None) or getattr(self, "__name__", "kernel")
            if k.get("warmup", False):
                return orig(self, *a, **k)
            n = _launches.get(name, 0)
            ev = None
            if n < _EVIDENCE_LAUNCHES:
                ev = _launch_dtypes.setdefault(name, {"args": set(), "values": set()})
                try:
                    ev["args"] |= _arg_dtypes(a, k)
                except Exception:  # noqa: BLE001
                    pass
            if not (interpreted and watch is not None):
                _launches[name] = n + 1
                ret = orig(self, *a, **k)
                if ev is not None and not interpreted:
                    ev["values"] |= _ttir_dtypes(ret)
                return ret
            if _LaunchState.kernel is not None:  # a launch from inside a running kernel body
                raise TorchInTritonKernel(f"kernel '{name}' was launched from inside the running kernel "
                                          f"'{_LaunchState.kernel}'")
            _LaunchState.kernel, _LaunchState.in_body, _LaunchState.torch_calls = name, False, []
            _LaunchState.values = ev["values"] if ev is not None else None
            try:
                with watch():
                    ret = orig(self, *a, **k)
            finally:
                calls = _LaunchState.torch_calls
                _LaunchState.kernel, _LaunchState.in_body, _LaunchState.values = None, False, None
            if calls:  # raised inside, and the candidate's code swallowed it
                fn_name, _, line = calls[0]
                raise TorchInTritonKernel(f"the @triton.jit kernel '{name}' called PyTorch ({fn_name}, line {line}) "
                                          "while it ran: a Triton kernel cannot call torch")
            _launches[name] = n + 1
            return ret
        run._kbx_wrapped = True
        cls.run = run
    try:
        from triton.runtime.jit import JITFunction
        wrap(JITFunction, False)
    except Exception:  # noqa: BLE001
        pass
    try:
        from triton.runtime.interpreter import InterpretedFunction
        wrap(InterpretedFunction, True)
    except Exception:  # noqa: BLE001
        pass


def launch_evidence() -> dict:
    """{kernel: {"args": [dtypes], "values": [dtypes]}} for the result frame."""
    return {k: {"args": sorted(v["args"]), "values": sorted(v["values"])} for k, v in _launch_dtypes.items()}


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
    # Never "not judged" from here: the candidate writes its exceptions' text and can raise anything
    # from anywhere. Gaps of Triton's CPU interpreter are found by the trusted canary role
    # (kbx_harness/canary.py) and applied by the evaluator from the cases' input dtypes.
    for x in chain:
        if type(x) is TorchInTritonKernel:
            return "not_triton_kernel"
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
    # An attribute triton.language (or one of its submodules) does not have: on a GPU the kernel does
    # not compile; the interpreter raises it as an AttributeError while the body runs.
    for x in chain:
        if isinstance(x, AttributeError) and isinstance(getattr(x, "obj", None), types.ModuleType) and \
                (getattr(x.obj, "__name__", "") or "").startswith("triton.language"):
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


def records_path(outputs_file: str) -> str:
    """Beside the tier's outputs file (outputs.pt -> outputs.drive_records.pt): one per tier."""
    return os.path.splitext(outputs_file)[0] + ".drive_records.pt"


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
    started = {}
    if isinstance(req.get("_t_main"), (int, float)) and isinstance(req.get("_t_python"), (int, float)):
        started["interpreter"] = round(req["_t_python"] - req["_t_main"], 4)
        started["harness_import"] = round(now - req["_t_python"], 4)  # import torch and the harness
    phase = Phases(started)
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
    # On the GPU the correctness stage needs a working config per key, not the fastest: bounded
    # autotuner benchmarking, and a record of what it chose (kbx_harness/autotune.py).
    # With autotune_pin (kbx's autotune sweep), every autotuner takes that config instead.
    autotune.install(bounded=req.get("device") == "cuda" and os.environ.get("TRITON_INTERPRET") != "1",
                     pin=req.get("autotune_pin"))
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
            outputs.append(encode_error("skipped", "skipped after a CUDA error"))
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
            structure, leaves, scalar = flatten_output(case_output(ret, args, c["mutates"], kwargs))
            # Every tensor the call received (positional, then keyword by name, `out=` included):
            # the comparison checks them against the reference's list of what may change.
            after = to_cpu_copy(call_tensors(args, kwargs))
            outputs.append(encode_case(structure, leaves, scalar, after))
            send({"type": "case", "index": i, "name": c["name"], "status": "ran",
                  "seconds": time.perf_counter() - t0})
        except BaseException as e:  # noqa: BLE001 - SystemExit and friends are candidate failures too
            cls = "runtime_error" if isinstance(e, (SystemExit, KeyboardInterrupt)) else classify(e)
            msg = (f"candidate called sys.exit({e.code})" if isinstance(e, SystemExit)
                   else f"{type(e).__name__}: {e}")[:2000]
            outputs.append(encode_error(cls, msg))
            send({"type": "case", "index": i, "name": c["name"], "status": "error", "failure_class": cls,
                  "message": msg, "traceback": traceback.format_exc()[-8000:],
                  "line": _candidate_line(e.__traceback__, req["source_file"]),
                  "seconds": time.perf_counter() - t0})
            if cls == "cuda_error":
                sticky = True
        # The first case carries the device context, allocator warm-up and Triton's JIT compilation.
        phase("first_case" if i == 0 else "other_cases")
    # Our own bounded format, not a pickle (kbx_harness.common.write_outputs; compare.cpp reads it).
    write_outputs(req["outputs_file"], outputs)
    if records is not None:
        torch.save({"version": 1, "cases": records}, records_path(req["outputs_file"]))
    phase("save_outputs")
    send({"type": "result", "stage": "cases", "launches": dict(_launches), "launch_dtypes": launch_evidence(),
          "autotune": autotune.evidence(),
          "triton_kernels": st.get("triton_kernels", []), "sticky_cuda_error": sticky, "phases": phase.times})
    return 68 if sticky else 0


def main(req: dict) -> int:
    return guarded(run, req, "candidate harness failed")
