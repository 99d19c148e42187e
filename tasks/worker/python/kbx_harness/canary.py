# SPDX-License-Identifier: MIT
"""Canary role: which dtypes and operations Triton's CPU interpreter gets wrong, found by running
small known-correct Triton kernels of our own (never candidate code) and comparing them with PyTorch.

Triton 3.6's interpreter returns NaN for some bfloat16 products and has no bfloat16 constants
(InterpreterBuilder.get_bf16): a correct bf16 kernel fails on the CPU through no fault of its own.
Whether a case is affected is decided by the trusted side from this report and the case's input
dtypes (core/interpgaps.h), never from the text of a candidate's exception.

Result frame: {"type": "result", "interpret": bool, "gaps": [{"dtype", "op", "what"}],
"probes": [{"dtype", "op", "ok", "what"?}], "seconds"}. A probe that cannot even be set up (our
own bug) is reported with ok=false too: an unknown state counts as a gap."""
from __future__ import annotations

import os
import time
import traceback

from .common import guarded, send, versions

FLOAT_DTYPES = ("float16", "bfloat16", "float32")
# Relative tolerance of one elementwise op in each dtype (a few units in the last place).
RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "float64": 1e-12}


def _kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def copy_k(x, o, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        tl.store(o + i, tl.load(x + i, mask=m), mask=m)

    @triton.jit
    def binop_k(x, y, o, n, OP: tl.constexpr, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        a = tl.load(x + i, mask=m, other=1)
        b = tl.load(y + i, mask=m, other=1)
        if OP == 0:
            r = a + b
        elif OP == 1:
            r = a - b
        elif OP == 2:
            r = a * b
        elif OP == 3:
            r = a / b
        else:
            r = tl.maximum(a, b)
        tl.store(o + i, r.to(o.dtype.element_ty), mask=m)

    @triton.jit
    def const_k(x, o, n, BLOCK: tl.constexpr):
        # a constant of the tensor's own dtype (bf16: InterpreterBuilder.get_bf16)
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        v = tl.load(x + i, mask=m)
        c = tl.full((BLOCK,), 1.5, o.dtype.element_ty)
        tl.store(o + i, v + c, mask=m)

    @triton.jit
    def cast_k(x, o, n, BLOCK: tl.constexpr):
        # up to float32, some arithmetic there, back down
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        v = tl.load(x + i, mask=m).to(tl.float32)
        tl.store(o + i, (v * 0.5 + 0.25).to(o.dtype.element_ty), mask=m)

    @triton.jit
    def sum_k(x, o, n, BLOCK: tl.constexpr):
        i = tl.arange(0, BLOCK)
        v = tl.load(x + i, mask=i < n, other=0).to(tl.float32)
        tl.store(o, tl.sum(v, axis=0))

    @triton.jit
    def dot_k(a, b, c, B: tl.constexpr):
        r = tl.arange(0, B)
        am = tl.load(a + r[:, None] * B + r[None, :])
        bm = tl.load(b + r[:, None] * B + r[None, :])
        tl.store(c + r[:, None] * B + r[None, :], tl.dot(am, bm).to(c.dtype.element_ty))

    @triton.jit
    def dot_int8_k(a, b, c, B: tl.constexpr):
        r = tl.arange(0, B)
        am = tl.load(a + r[:, None] * B + r[None, :])
        bm = tl.load(b + r[:, None] * B + r[None, :])
        tl.store(c + r[:, None] * B + r[None, :], tl.dot(am, bm, out_dtype=tl.int32))

    return dict(copy=copy_k, binop=binop_k, const=const_k, cast=cast_k, sum=sum_k, dot=dot_k, dot_int8=dot_int8_k)


def _close(got, want, rtol, atol=0.0):
    """'' when got matches want (float64) within rtol/atol, else what is wrong, in words."""
    import torch
    got = got.to(torch.float64)
    nan_got, nan_want = torch.isnan(got), torch.isnan(want)
    if (nan_got & ~nan_want).any():
        return f"returns NaN for {int((nan_got & ~nan_want).sum())} of {got.numel()} elements"
    bad = ~nan_want & ((got - want).abs() > atol + rtol * want.abs())
    if bad.any():
        k = int(bad.nonzero()[0, 0]) if got.dim() == 1 else 0
        return (f"wrong for {int(bad.sum())} of {got.numel()} elements (e.g. {float(got.flatten()[k]):.6g} "
                f"instead of {float(want.flatten()[k]):.6g})")
    return ""


def probes():
    """[(dtype, op, callable returning '' or what is wrong)], each independent."""
    import torch
    import triton
    k = _kernels()
    gen = torch.Generator().manual_seed(20261201)
    n, block = 1000, 128
    grid = (triton.cdiv(n, block),)
    out = []

    def rand(dt, *shape, scale=1.0):
        return (torch.randn(*shape, generator=gen, dtype=torch.float64) * scale).to(dt)

    for name in FLOAT_DTYPES:
        dt = getattr(torch, name)
        rtol = RTOL[name]

        def copy(dt=dt):
            x = rand(dt, n)
            o = torch.empty_like(x)
            k["copy"][grid](x, o, n, BLOCK=block)
            return "" if torch.equal(o, x) else "load/store changes values"
        out.append((name, "load_store", copy))

        for op, code, ref in (("add", 0, lambda a, b: a + b), ("subtract", 1, lambda a, b: a - b),
                              ("multiply", 2, lambda a, b: a * b), ("divide", 3, lambda a, b: a / b),
                              ("maximum", 4, torch.maximum)):
            def binop(dt=dt, code=code, ref=ref, rtol=rtol, op=op):
                x, y = rand(dt, n), rand(dt, n)
                if op == "divide":
                    y = torch.where(y.abs() < 0.1, torch.full_like(y, 0.5), y)
                o = torch.empty_like(x)
                k["binop"][grid](x, y, o, n, OP=code, BLOCK=block)
                # the exact result rounded once to dt, as the GPU computes it
                want = ref(x.double(), y.double()).to(dt).double()
                return _close(o, want, rtol, atol=rtol * 1e-3)
            out.append((name, op, binop))

        def const(dt=dt, rtol=rtol):
            x = rand(dt, n)
            o = torch.empty_like(x)
            k["const"][grid](x, o, n, BLOCK=block)
            return _close(o, (x.double() + 1.5).to(dt).double(), rtol, atol=rtol)
        out.append((name, "constant", const))

        def cast(dt=dt, rtol=rtol):
            x = rand(dt, n)
            o = torch.empty_like(x)
            k["cast"][grid](x, o, n, BLOCK=block)
            return _close(o, (x.double() * 0.5 + 0.25).to(dt).double(), rtol, atol=rtol)
        out.append((name, "cast", cast))

        def reduce(dt=dt):
            x = rand(dt, n)
            o = torch.empty(1, dtype=torch.float32)
            k["sum"][(1,)](x, o, n, BLOCK=1024)
            return _close(o, x.double().sum().reshape(1), 1e-4, atol=1e-3)
        out.append((name, "sum", reduce))

        def dot(dt=dt):
            b = 16
            a_, b_ = rand(dt, b, b), rand(dt, b, b)
            c = torch.empty(b, b, dtype=dt)
            k["dot"][(1,)](a_, b_, c, B=b)
            want = (a_.double() @ b_.double()).to(dt).double()
            return _close(c, want, 4 * RTOL[name] + 1e-3, atol=0.05 if name != "float32" else 1e-3)
        out.append((name, "dot", dot))

    def dot_int8():
        b = 32
        a_ = torch.randint(-127, 128, (b, b), generator=gen, dtype=torch.int8)
        b_ = torch.randint(-127, 128, (b, b), generator=gen, dtype=torch.int8)
        c = torch.empty(b, b, dtype=torch.int32)
        k["dot_int8"][(1,)](a_, b_, c, B=b)
        return "" if torch.equal(c, a_.int() @ b_.int()) else "int8 x int8 -> int32 dot is wrong"
    out.append(("int8", "dot", dot_int8))
    return out


def run(req: dict) -> int:
    send({"type": "hello", "magic": "KBXW", "protocol": 1, "role": "canary", "versions": versions()})
    t0 = time.perf_counter()
    interpret = os.environ.get("TRITON_INTERPRET") == "1"
    results, gaps = [], []
    if interpret:
        try:
            plist = probes()
        except Exception as e:  # noqa: BLE001 - the kernels would not even define: every float dtype is unknown
            plist = []
            for name in FLOAT_DTYPES:
                results.append({"dtype": name, "op": "setup", "ok": False,
                                "what": f"the canary's kernels could not be defined: {type(e).__name__}: {e}"[:300]})
        for dtype, op, fn in plist:
            try:
                what = fn()
            except Exception as e:  # noqa: BLE001 - a known-correct kernel that raises is a gap
                what = f"raises {type(e).__name__}: {e}"[:300]
                if os.environ.get("KBX_CANARY_TRACEBACK"):
                    what += "\n" + traceback.format_exc()[-2000:]
            results.append({"dtype": dtype, "op": op, "ok": not what, **({"what": what} if what else {})})
        gaps = [{"dtype": r["dtype"], "op": r["op"], "what": r["what"]} for r in results if not r["ok"]]
    send({"type": "result", "interpret": interpret, "gaps": gaps, "probes": results,
          "seconds": round(time.perf_counter() - t0, 3)})
    return 0


def main(req: dict) -> int:
    return guarded(run, req, "canary failed")
