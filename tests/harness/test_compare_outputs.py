# SPDX-License-Identifier: MIT
"""kbx-worker compare against the candidate's outputs file (kbx_harness.common.write_outputs): honest
files judged as before, and every way the candidate's process can write that file wrong (counts,
lengths, dtypes, error classes, foreign formats) a failure with a class, never a crash or an
unjudged comparison. Usage: test_compare_outputs.py KBX_WORKER HARNESS_DIR"""
from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

import torch

WORKER, HARNESS = sys.argv[1], sys.argv[2]
sys.path.insert(0, HARNESS)
from kbx_harness.common import (call_tensor_names, call_tensors, case_output, encode_case, encode_error,  # noqa: E402
                                flatten_output, mutable_indices, write_outputs)

TMP = tempfile.mkdtemp(prefix="kbx-compare-test-")
FAILS = []


def make_cases():
    """Two cases: y = x * 2 with a keyword weight (not mutable) and an out= keyword."""
    g = torch.Generator().manual_seed(1)
    cases = []
    for name, with_out in (("plain", False), ("out_kwarg", True)):
        x = torch.randn(4, 5, generator=g)
        kwargs = {"weight": torch.randn(5, generator=g)}
        if with_out:
            kwargs["out"] = torch.randn(4, 5, generator=g)
        cases.append({"name": name, "args": (x,), "kwargs": kwargs, "mutates": []})
    return cases


def op(x, weight=None, out=None):
    y = x * 2 + weight
    if out is not None:
        out.copy_(y)
        return out
    return y


def clone(cases):
    return [{"args": tuple(t.clone() for t in c["args"]), "kwargs": {k: v.clone() for k, v in c["kwargs"].items()}}
            for c in cases]


CASES = make_cases()


def write_ref(path):
    refs = []
    for c, cl in zip(CASES, clone(CASES)):
        ret = op(*cl["args"], **cl["kwargs"])
        structure, leaves, scalar = flatten_output(case_output(ret, cl["args"], c["mutates"], cl["kwargs"]))
        refs.append({"name": c["name"], "structure": structure, "tensors": leaves, "scalar": scalar,
                     "inputs": [t.clone() for t in call_tensors(c["args"], c["kwargs"])],
                     "mutable": mutable_indices(c["args"], c["kwargs"], c["mutates"]),
                     "input_names": call_tensor_names(c["args"], c["kwargs"])})
    torch.save({"version": 2, "task": "test/op", "cases": refs}, path)


def honest_parts(fn=op):
    """(structure, leaves, scalar, after) per case as the candidate harness computes them."""
    parts = []
    for c, cl in zip(CASES, clone(CASES)):
        ret = fn(*cl["args"], **cl["kwargs"])
        structure, leaves, scalar = flatten_output(case_output(ret, cl["args"], c["mutates"], cl["kwargs"]))
        parts.append((structure, leaves, scalar, [t.clone() for t in call_tensors(cl["args"], cl["kwargs"])]))
    return parts


REF = os.path.join(TMP, "reference.pt")
write_ref(REF)


def compare(outputs_bytes=None, path=None):
    out = path or os.path.join(TMP, "outputs.pt")
    if outputs_bytes is not None:
        with open(out, "wb") as f:
            f.write(outputs_bytes)
    req = os.path.join(TMP, "compare-request.json")
    with open(req, "w") as f:
        json.dump({"ref_file": REF, "outputs_file": out,
                   "contract": {"comparison": "allclose", "tolerance": {"float32": [1e-5, 1e-5]}}}, f)
    p = subprocess.run([WORKER, "compare", "--request", req], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    frames, b = [], p.stdout
    while len(b) >= 4:
        n = struct.unpack("<I", b[:4])[0]
        frames.append(json.loads(b[4:4 + n]))
        b = b[4 + n:]
    return p.returncode, frames


def file_of(encoded_cases):
    path = os.path.join(TMP, "outputs.pt")
    write_outputs(path, encoded_cases)
    with open(path, "rb") as f:
        return f.read()


def check(name, data, want, path=None, detail=None):
    """want: per case (status, failure_class or None); detail(frames) -> error string or None."""
    rc, frames = compare(data, path)
    cases = [f for f in frames if f.get("type") == "case"]
    result = [f for f in frames if f.get("type") == "result"]
    got = [(c["status"], c.get("failure_class")) for c in cases]
    why = None
    if rc != 0 or not result:
        why = f"exit {rc}, result frame {bool(result)}"
    elif got != want:
        why = f"got {got}, want {want}"
    elif result[0]["pass"] != all(s == "pass" for s, _ in want):
        why = f"pass={result[0]['pass']}"
    elif detail:
        why = detail(cases)
    print(("ok   " if why is None else "FAIL ") + name + ("" if why is None else ": " + why))
    if why is not None:
        FAILS.append(name)
        print(json.dumps(cases)[:2000])


PASS = [("pass", None), ("pass", None)]
UNREADABLE = [("error", "runtime_error"), ("error", "runtime_error")]
honest = honest_parts()
enc = [encode_case(*p) for p in honest]

check("honest outputs pass", file_of(enc), PASS,
      detail=lambda cs: None if all("leaves" in c["evidence"] for c in cs) else "no leaf evidence")
check("out= written with the right values is judged on out and the return value", file_of(enc), PASS,
      detail=lambda cs: None if len(cs[1]["evidence"]["leaves"]) == 2 else "out= is not a compared leaf")


def lazy_out(x, weight=None, out=None):
    return x * 2 + weight  # out= left as it was


check("out= left as garbage", file_of([encode_case(*p) for p in honest_parts(lazy_out)]),
      [("pass", None), ("fail", "value_mismatch")])


def bad_weight(x, weight=None, out=None):
    y = op(x, weight=weight, out=out)
    weight.zero_()
    return y


check("keyword tensor overwritten", file_of([encode_case(*p) for p in honest_parts(bad_weight)]),
      [("fail", "input_mutated")] * 2,
      detail=lambda cs: None if cs[0]["evidence"].get("input") == "weight" else "evidence does not name weight")
s, leaves, sc, after = honest[0]
check("no leaves", file_of([encode_case(s, [], [], after), enc[1]]), [("fail", "shape_mismatch"), ("pass", None)],
      detail=lambda cs: None if cs[0]["evidence"].get("cand_leaves") == 0 else "no leaf count evidence")
check("an extra leaf", file_of([encode_case(s, leaves + leaves, sc + sc, after), enc[1]]),
      [("fail", "shape_mismatch"), ("pass", None)])
check("no snapshots", file_of([encode_case(s, leaves, sc, []), enc[1]]), [("fail", "input_mutated"), ("pass", None)])
check("an extra snapshot", file_of([encode_case(s, leaves, sc, after + after), enc[1]]),
      [("fail", "input_mutated"), ("pass", None)])
check("snapshot of another dtype", file_of([encode_case(s, leaves, sc, [after[0].double(), after[1]]), enc[1]]),
      [("fail", "input_mutated"), ("pass", None)])
check("leaf of another dtype", file_of([encode_case(s, [leaves[0].double()], sc, after), enc[1]]),
      [("fail", "dtype_mismatch"), ("pass", None)])
check("leaf of another shape", file_of([encode_case(s, [leaves[0].reshape(5, 4)], sc, after), enc[1]]),
      [("fail", "shape_mismatch"), ("pass", None)])
check("structure differs", file_of([encode_case("(T,T)", leaves, sc, after), enc[1]]),
      [("fail", "shape_mismatch"), ("pass", None)])
check("huge structure", file_of([encode_case("(" + "T," * 500000 + ")", leaves, sc, after), enc[1]]),
      [("fail", "shape_mismatch"), ("pass", None)],
      detail=lambda cs: None if len(cs[0]["evidence"]["cand_structure"]) < 5000 else "structure evidence not capped")


def tensor_raw(dtype_name: bytes, dims, data: bytes, scalar=0):
    return (struct.pack("<BB", scalar, len(dtype_name)) + dtype_name + struct.pack("<B", len(dims))
            + struct.pack(f"<{len(dims)}q", *dims) + struct.pack("<Q", len(data)) + data)


def case_raw(structure: bytes, leaves, after):
    body = (struct.pack("<I", len(structure)) + structure + struct.pack("<I", len(leaves)) + b"".join(leaves)
            + struct.pack("<I", len(after)) + b"".join(after))
    return struct.pack("<BQ", 0, len(body)) + body


sb = s.encode()
snap = [tensor_raw(b"float32", list(t.shape), t.numpy().tobytes()) for t in after]
check("a dtype compare does not read", file_of([case_raw(sb, [tensor_raw(b"qint8", [4, 5], b"\0" * 20)], snap), enc[1]]),
      [("fail", "dtype_mismatch"), ("pass", None)])
check("a claimed shape of 2^40 elements with 2^40 * 4 bytes missing",
      file_of([case_raw(sb, [tensor_raw(b"float32", [1 << 40], b"\0" * 4)], snap), enc[1]]), UNREADABLE)
check("a negative dimension", file_of([case_raw(sb, [tensor_raw(b"float32", [-1], b"")], snap), enc[1]]), UNREADABLE)
check("an unknown dtype with a huge claimed shape",
      file_of([case_raw(sb, [tensor_raw(b"weird", [1 << 30, 1 << 30], b"")], snap), enc[1]]),
      [("fail", "shape_mismatch"), ("pass", None)])
check("error class outside the taxonomy", file_of([encode_error("harness_error", "x\x1b[31m\x00y" * 3000), enc[1]]),
      [("error", "runtime_error"), ("pass", None)],
      detail=lambda cs: None if (cs[0]["evidence"].get("claimed_class") == "harness_error"
                                 and "\x1b" not in cs[0]["evidence"]["message"]
                                 and len(cs[0]["evidence"]["message"].encode()) <= 2003) else "class or message not cleaned")
check("a call class is kept", file_of([encode_error("cuda_error", "boom"), enc[1]]), [("error", "cuda_error"), ("pass", None)])
raw_err = b"\xff\xfe" * 10
check("invalid UTF-8 in a message",
      file_of([struct.pack("<BQ", 1, 4 + 12 + 4 + len(raw_err)) + struct.pack("<I", 12) + b"out_of_memor"
               + struct.pack("<I", len(raw_err)) + raw_err, enc[1]]),
      [("error", "runtime_error"), ("pass", None)])
check("fewer cases", file_of(enc[:1]), [("pass", None), ("error", "crash")])
good = file_of(enc)
check("more cases than the reference", file_of(enc + enc[:1]), UNREADABLE)
check("trailing bytes", good + b"\0", UNREADABLE)
for cut in (0, 4, 8, 11, 12, 13, 20, 40, len(good) // 2, len(good) - 1):
    check(f"truncated at {cut}", good[:cut], UNREADABLE)
check("a case length past the end", good[:12] + struct.pack("<BQ", 0, 1 << 62), UNREADABLE)
check("an unknown case kind", good[:12] + struct.pack("<BQ", 9, 0) + good[12 + 9:], UNREADABLE)
check("no outputs file", None, UNREADABLE, path=os.path.join(TMP, "missing.pt"))
# Foreign formats: the old pickle with a structure that is an int, a zip of deflated zeros.
buf = os.path.join(TMP, "p.pt")
torch.save({"version": 1, "cases": [{"name": "x", "structure": 7, "tensors": [], "args_after": []}] * 2}, buf)
with open(buf, "rb") as f:
    check("a pickle with an int structure", f.read(), UNREADABLE)
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("archive/data.pkl", bytes(64 << 20))
with open(buf, "rb") as f:
    check("a deflate bomb", f.read(), UNREADABLE)
print(f"{len(FAILS)} failed" if FAILS else "all passed")
sys.exit(1 if FAILS else 0)
