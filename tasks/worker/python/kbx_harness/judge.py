# SPDX-License-Identifier: MIT
"""Judge role (trusted, never imports candidate code): the statistics of a verifying drive() run
here, not in the candidate's process (issue 20).

A task whose drive() verifies the entry's results (dropout statistics, factorisation invariants;
META "drive_checks") has its drive() run in the candidate's process only to record what the entry
returned: every call's return value and the state of that call's argument tensors afterwards
(kbx_harness/candidate.py, drive_records.pt). Whatever the candidate's code did to drive() or to
the harness in its own process, this role loads the task and the case inputs the reference role
wrote, runs the task's own drive() with a replay function that hands back the recorded results in
order (applying the recorded argument states), and writes the outputs the C++ comparison checks
against the reference. Everything read from the candidate's files is bounded; an unreadable,
oversized or inconsistent record fails the case (runtime_error with the reason), never the judge.
"""
from __future__ import annotations

import io
import os
import stat

import torch

import struct

from .common import (OUTPUTS_MAGIC, call_tensors, case_output, encode_case, encode_error, flatten_output, guarded,
                     load_task, send, tensors_in, to_cpu_copy, to_device, tree_map, versions)

MAX_CALLS = 64          # calls of the entry per case (the verifying drives make at most 4)
MAX_LEAVES = 64         # leaves of one recorded return value
MAX_DEPTH = 8           # nesting of one recorded return value
HARD_CAP = 1 << 30      # bytes of a candidate file read here, whatever the reference's size
NUMBERS = (bool, int, float, complex)


class RecordError(Exception):
    """The candidate's record cannot stand for a call the trusted drive() makes."""


def _case_errors(path: str, limit: int, n_cases: int) -> list:
    """Per case of the candidate's outputs file (our bounded binary format, kbx_harness.common
    write_outputs): (class, message) where the entry raised, else None. Malformed: RecordError."""
    data = _read_bytes(path, limit)
    if not data.startswith(OUTPUTS_MAGIC) or len(data) < len(OUTPUTS_MAGIC) + 4:
        raise RecordError("not an outputs file of ours")
    off = len(OUTPUTS_MAGIC)
    (n,) = struct.unpack_from("<I", data, off)
    off += 4
    if n > n_cases:
        raise RecordError(f"{n} cases for {n_cases}")
    out = []
    for _ in range(n):
        if off + 9 > len(data):
            raise RecordError("truncated")
        tag, length = struct.unpack_from("<BQ", data, off)
        off += 9
        if length > len(data) - off:
            raise RecordError("a case's length runs past the file")
        payload = data[off:off + length]
        off += length
        if tag == 1:
            (lc,) = struct.unpack_from("<I", payload, 0)
            cls = payload[4:4 + lc].decode("utf-8", "replace")
            (lm,) = struct.unpack_from("<I", payload, 4 + lc)
            msg = payload[8 + lc:8 + lc + lm].decode("utf-8", "replace")
            out.append((cls[:64], msg[:2000]))
        elif tag == 0:
            out.append(None)
        else:
            raise RecordError(f"unknown case tag {tag}")
    return out


def _read_bytes(path: str, limit: int) -> bytes:
    """A regular file of at most `limit` bytes; no link is followed."""
    # O_NONBLOCK: a FIFO left under the name does not wait for a writer (then it is not a regular file)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise RecordError("not a regular file")
        if st.st_size > limit:
            raise RecordError(f"{st.st_size} bytes, more than the {limit} this case set allows")
        chunks, left = [], st.st_size + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 24))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
        if len(data) > limit:
            raise RecordError("the file grew while it was read")
    finally:
        os.close(fd)
    return data


def _read_bounded(path: str, limit: int):
    """torch.load (weights only) of a regular file of at most `limit` bytes; no link is followed."""
    return torch.load(io.BytesIO(_read_bytes(path, limit)), weights_only=True, map_location="cpu")


def _numel_budget(call_args) -> int:
    """Most elements one return value may hold: what the call's own tensors hold, times 8, plus the
    square of their largest dimension (full factorisations: U of a tall matrix), plus a margin."""
    ts = tensors_in(call_args)
    total = sum(t.numel() for t in ts)
    big = max([max(t.shape) for t in ts if t.dim() > 0] + [1])
    return 8 * total + 4 * big * big + 65536


def _check_value(v, budget: int):
    """A recorded return value: plain dense tensors and numbers in tuples/lists/dicts, bounded."""
    leaves, numel = [0], [0]

    def rec(x, depth):
        if depth > MAX_DEPTH:
            raise RecordError("the recorded return value is nested too deeply")
        if isinstance(x, torch.Tensor):
            if type(x) is not torch.Tensor or x.layout != torch.strided or x.is_quantized:
                raise RecordError(f"the recorded return value holds a {type(x).__name__} with layout {x.layout}")
            leaves[0] += 1
            numel[0] += x.numel()
        elif x is None or isinstance(x, NUMBERS):
            leaves[0] += 1
        elif isinstance(x, (tuple, list)):
            for e in x:
                rec(e, depth + 1)
        elif isinstance(x, dict):
            for k, e in x.items():
                if not isinstance(k, (str, int)):
                    raise RecordError("the recorded return value has a dict key that is not a string")
                rec(e, depth + 1)
        else:
            raise RecordError(f"the recorded return value holds a {type(x).__name__}")
        if leaves[0] > MAX_LEAVES:
            raise RecordError(f"the recorded return value has more than {MAX_LEAVES} leaves")
        if numel[0] > budget:
            raise RecordError(f"the recorded return value holds more than {budget} elements, more than the call's "
                              "arguments can explain")
    rec(v, 0)


class Replay:
    """The entry, as the trusted drive() sees it: the recorded calls, in order."""

    def __init__(self, calls, device):
        self.calls = calls
        self.device = device
        self.used = 0

    def __call__(self, *a, **k):
        if self.used >= len(self.calls):
            raise RecordError(f"drive() calls the entry {self.used + 1} times or more; the candidate's process "
                              f"recorded {len(self.calls)} calls")
        call = self.calls[self.used]
        self.used += 1
        if not isinstance(call, dict) or "ret" not in call or not isinstance(call.get("args_after"), (list, tuple)):
            raise RecordError(f"call {self.used}: malformed record")
        ret, after = call["ret"], list(call["args_after"])
        _check_value(ret, _numel_budget((a, k)))
        mine = tensors_in((a, k))
        if len(after) != len(mine):
            raise RecordError(f"call {self.used}: {len(after)} argument tensors recorded, the call has {len(mine)}")
        for j, (t, s) in enumerate(zip(mine, after)):
            if type(s) is not torch.Tensor or s.layout != torch.strided or tuple(s.shape) != tuple(t.shape) \
                    or s.dtype != t.dtype:
                raise RecordError(f"call {self.used}: argument tensor {j} recorded as "
                                  f"{getattr(s, 'dtype', type(s).__name__)} {tuple(getattr(s, 'shape', ()))}, "
                                  f"the call has {t.dtype} {tuple(t.shape)}")
        with torch.no_grad():
            for t, s in zip(mine, after):
                if t.numel():
                    t.copy_(s.contiguous().to(t.device))
        return to_device(tree_map(lambda t: t.contiguous().clone(), ret), self.device)


def _error(name, cls, msg):
    return encode_error(cls, str(msg)[:2000])


def _size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def run(req: dict) -> int:
    send({"type": "hello", "magic": "KBXW", "protocol": 1, "role": "judge", "versions": versions()})
    device = req["device"]
    task = load_task(req["task_file"], req["task_id"])
    drive = getattr(task, "drive", None)
    bundle = torch.load(req["inputs_file"], weights_only=True, map_location="cpu")  # ours
    cases = bundle["cases"]
    # What the candidate's process may have written, bounded by what the reference's files hold.
    limit = min(HARD_CAP, 64 * (1 << 20) + 32 * (_size(req["inputs_file"]) + _size(req.get("ref_file", ""))))
    problems = {}
    try:
        cand_cases = _case_errors(req["outputs_file"], limit, len(cases))
    except Exception as e:  # noqa: BLE001 - the candidate wrote it
        cand_cases, problems["outputs"] = None, f"candidate outputs unreadable: {type(e).__name__}: {e}"[:500]
    try:
        recs = _read_bounded(req["records_file"], limit)
        rec_cases = recs["cases"] if isinstance(recs, dict) and isinstance(recs.get("cases"), list) else None
        if rec_cases is None:
            raise RecordError("no case list")
        if len(rec_cases) > len(cases):
            raise RecordError(f"{len(rec_cases)} case records for {len(cases)} cases")
    except FileNotFoundError:
        rec_cases, problems["records"] = None, "the candidate's process left no drive records"
    except Exception as e:  # noqa: BLE001
        rec_cases, problems["records"] = None, f"drive records unreadable: {type(e).__name__}: {e}"[:500]

    out, judged, failed = [], 0, []
    for i, c in enumerate(cases):
        name = c["name"]
        if cand_cases is None:
            out.append(_error(name, "runtime_error", problems["outputs"]))
            failed.append(i)
            continue
        cc = cand_cases[i] if i < len(cand_cases) else None
        if cc is not None:
            # The entry raised in the candidate's process: its class, as the comparison would read it.
            out.append(_error(name, cc[0], cc[1]))
            continue
        try:
            if rec_cases is None:
                raise RecordError(problems["records"])
            r = rec_cases[i] if i < len(rec_cases) else None
            if not isinstance(r, dict) or r.get("name") != name or r.get("complete") is not True:
                raise RecordError("no complete drive record for this case")
            calls = r.get("calls")
            if not isinstance(calls, list) or len(calls) > MAX_CALLS:
                raise RecordError(f"the record's calls are not a list of at most {MAX_CALLS}")
            args = to_device(c["args"], device)
            kwargs = to_device(c["kwargs"], device)
            replay = Replay(calls, device)
            ret = drive(replay, args, kwargs)
            if replay.used != len(calls):
                raise RecordError(f"the candidate's process recorded {len(calls)} calls of the entry, drive() "
                                  f"made {replay.used}")
            if device == "cuda":
                torch.cuda.synchronize()
            structure, leaves, scalar = flatten_output(case_output(ret, args, c["mutates"], kwargs))
            out.append(encode_case(structure, leaves, scalar, to_cpu_copy(call_tensors(args, kwargs))))
            judged += 1
        except RecordError as e:
            out.append(_error(name, "runtime_error", f"drive record rejected: {e}"))
            failed.append(i)
        except Exception as e:  # noqa: BLE001 - drive()'s own checks raise on the recorded results
            out.append(_error(name, "runtime_error", f"{type(e).__name__}: {e}"))
            failed.append(i)
    buf = io.BytesIO()
    buf.write(OUTPUTS_MAGIC + struct.pack("<I", len(out)))  # kbx_harness.common.write_outputs's format
    for c in out:
        buf.write(c)
    # Never through a link or over a file someone else left there.
    fd = os.open(req["judged_out"], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                 0o644)
    try:
        data = buf.getvalue()
        off = 0
        while off < len(data):
            off += os.write(fd, data[off:off + (1 << 24)])
    finally:
        os.close(fd)
    send({"type": "result", "cases": len(cases), "judged": judged, "rejected": failed[:50],
          "problems": problems})
    return 0


def main(req: dict) -> int:
    return guarded(run, req, "judge failed")
