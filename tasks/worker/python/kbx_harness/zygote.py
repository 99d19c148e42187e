# SPDX-License-Identifier: MIT
"""Warm worker (fork server, `kbx-worker zygote`; kbx's side is core/warm.h).

Imports Python, torch, Triton and the harness once, then forks one child per worker process kbx
asks for. It never initialises CUDA (a CUDA context does not survive fork: every child makes its
own, after fork) and never runs candidate code or reads reference data: every child starts as a
copy of the same pristine interpreter, so candidates share nothing with each other or with us.

Protocol on fd 3 (a SOCK_SEQPACKET socket, one JSON object per message):
  -> kbx   {"ready": true, "preloaded": [...], "import_seconds": s}    once, or {"error": "..."}
  <- kbx   {"argv", "env", "cwd", "restrictions"} with five fds: the child's 0, 1, 2, 3 and a
           session socket, on which this process answers {"pid": N} at once and {"status": S}
           (a waitpid status) when the child ended.
A child: own process group; its fds 0-3 from kbx, every other fd closed; kbx's sandbox
restrictions (network namespace, rlimits, uid, no_new_privs, death with this process) applied by
the same C++ code as a fork+exec'd worker; the environment replaced by kbx's; then the role runs
exactly as in a fresh worker (kbx_harness.<role>.main(request)) and the child exits with its code.
"""
from __future__ import annotations

import importlib
import json
import os
import random
import select
import socket
import sys
import tempfile
import time
import traceback

# What every reference, candidate and precompile worker imports before it reaches candidate code.
# The run's first evaluations wait for these imports. torch._dynamo and torch.profiler are not among
# them: only the perf role needs them (before its fingerprint of torch), and perf workers start
# cold; torch._dynamo alone took 3.9 of the warm worker's ~7 s of imports on the H200 (python -X
# importtime, torch 2.11). A candidate that uses it imports it in its own process.
PRELOAD = ("torch", "triton", "triton.language",
           "kbx_harness.common", "kbx_harness.static_checks", "kbx_harness.reference",
           "kbx_harness.candidate", "kbx_harness.precompile")
# Perf workers start cold (core/evaluator.cpp says why).
ROLES = ("reference", "candidate", "precompile")
EXIT_HARNESS_ERROR = 67


def _send(sock: socket.socket, obj: dict) -> None:
    try:
        sock.send(json.dumps(obj).encode())
    except OSError:
        pass  # kbx closed this session: nobody to tell


def _child(job: dict, fds: list[int], keep_alive: list[socket.socket], parent: int) -> None:
    """In the forked child: becomes the worker process kbx asked for. Never returns."""
    code = EXIT_HARNESS_ERROR
    try:
        os.setpgid(0, 0)
        t_fork = time.time()
        for s in keep_alive:
            s.detach()  # their fds are closed below; the objects must never close a reused number
        for target, fd in zip((0, 1, 2, 3), fds[:4]):
            os.dup2(fd, target)
        os.closerange(4, 1 << 16)
        import _kbxworker  # type: ignore  # kbx-worker's embedded module
        _kbxworker.restrict(json.dumps(job.get("restrictions", {})), parent)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in job.get("env", {}).items()})
        # Values Python computed from our environment while importing: recomputed from the child's.
        tempfile.tempdir = None  # TMPDIR (Triton builds its launcher there)
        if job.get("cwd"):
            os.chdir(job["cwd"])
        # Fresh global RNGs, as a new interpreter would have (torch, too, seeds its default
        # generator at random at start-up; inputs never come from any of them).
        random.seed()
        if "torch" in sys.modules:
            sys.modules["torch"].seed()
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        argv = list(job.get("argv", []))
        role = argv[1] if len(argv) > 1 else ""
        if role not in ROLES or "--request" not in argv:
            raise RuntimeError(f"the warm worker does not run {argv[1:2]}")
        with open(argv[argv.index("--request") + 1], encoding="utf-8") as f:
            req = json.load(f)
        # Phases: the child's start is the fork; interpreter and imports took no time of its own.
        req["_t_main"] = t_fork
        req["_t_python"] = t_fork
        req["_warm"] = True
        code = int(importlib.import_module("kbx_harness." + role).main(req))
    except BaseException as e:  # noqa: BLE001
        try:
            from .common import send
            send({"type": "error", "failure_class": "harness_error",
                  "message": f"warm worker child: {type(e).__name__}: {e}"})
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    os._exit(code)


def inherited_state() -> str:
    """What every child inherits that a fresh process would have made itself: threads (absent in a
    forked child, their locks kept as they were) and loaded GPU driver / CUPTI libraries (fork-unsafe
    once initialised). Printed in the ready line because that is what decides whether forking from
    this process is safe: perf workers start cold while the CUDA build's warm worker holds threads."""
    try:
        threads = len(os.listdir("/proc/self/task"))
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            libs = sorted({ln.split()[-1].rsplit("/", 1)[-1] for ln in f
                           if "libcuda.so" in ln or "libnvidia-ml.so" in ln or "libcupti" in ln})
    except OSError as e:
        return f"cannot inspect itself: {e}"
    return f"{threads} thread(s), GPU driver libraries loaded: {', '.join(libs) or 'none'}"


def main(req: dict) -> int:
    ctl = socket.socket(fileno=3)
    t0 = time.time()
    try:
        for name in PRELOAD:
            importlib.import_module(name)
        import torch
        if torch.cuda.is_initialized():
            raise RuntimeError("CUDA was initialised before fork")
    except BaseException as e:  # noqa: BLE001
        _send(ctl, {"error": f"cannot preload: {type(e).__name__}: {e}"})
        traceback.print_exc()
        return EXIT_HARNESS_ERROR
    # For diagnosis (warm-worker.log in the run's scratch, kept with --keep-scratch).
    print(f"kbx warm worker {os.getpid()}: ready after {time.time() - t0:.2f} s, {inherited_state()}", flush=True)
    sys.stdout.flush()
    sys.stderr.flush()
    _send(ctl, {"ready": True, "pid": os.getpid(), "preloaded": list(PRELOAD),
                "import_seconds": round(time.time() - t0, 3)})
    sessions: dict[int, socket.socket] = {}
    me = os.getpid()
    while True:
        try:
            readable, _, _ = select.select([ctl], [], [], 0.02)
        except InterruptedError:
            readable = []
        if readable:
            try:
                msg, fds, _flags, _addr = socket.recv_fds(ctl, 1 << 20, 8)
            except OSError:
                break
            if not msg and not fds:
                break  # kbx is gone; our children die with us
            try:
                job = json.loads(msg)
            except ValueError:
                job = None
            if not isinstance(job, dict) or len(fds) != 5:
                for fd in fds:
                    os.close(fd)
                continue
            sess = socket.socket(fileno=fds[4])
            try:
                pid = os.fork()
            except OSError as e:
                for fd in fds[:4]:
                    os.close(fd)
                _send(sess, {"error": f"fork: {e}"})
                sess.close()
                continue
            if pid == 0:
                _child(job, fds, [ctl, sess, *sessions.values()], me)
            try:
                os.setpgid(pid, pid)  # also here: kbx may kill the group as soon as it has the pid
            except OSError:
                pass
            for fd in fds[:4]:
                os.close(fd)
            _send(sess, {"pid": pid})
            sessions[pid] = sess
        while sessions:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            sess = sessions.pop(pid, None)
            if sess is not None:
                _send(sess, {"status": status})
                sess.close()
    return 0
