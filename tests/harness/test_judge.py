# SPDX-License-Identifier: MIT
"""The judge role (kbx_harness.judge, issue 20) on a real verifying drive() (Fusion/fused_hardshrink_dropout),
on the CPU: the candidate's process records what the entry returned, the judge re-runs the task's
drive() on those records. An honest candidate's judged outputs equal what drive() said in its own
process; a candidate that replaced drive() there is judged on what its kernel returned; a record
that is missing, unreadable, oversized or inconsistent fails its cases as runtime_error (never a
crash of the judge). Run by ctest (harness.judge):
    test_judge.py TASKS_DIR HARNESS_DIR FIXTURES_DIR
"""
import os
import pathlib
import sys
import tempfile
import unittest

import torch

TASKS = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("tasks")
sys.path.insert(0, sys.argv[2] if len(sys.argv) > 2 else "tasks/worker/python")
FIXTURES = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else pathlib.Path("tests/fixtures")
os.environ["TRITON_INTERPRET"] = "1"

from kbx_harness import candidate, judge, reference  # noqa: E402

TASK = "Fusion/fused_hardshrink_dropout"


def _reference_source(d):
    p = os.path.join(d, "ref_candidate.py")
    with open(p, "w") as f:
        f.write("import importlib.util as u\n"
                f"s = u.spec_from_file_location('kbx_task_reference', {str(TASKS / (TASK + '.py'))!r})\n"
                "m = u.module_from_spec(s)\ns.loader.exec_module(m)\n"
                "fused_hardshrink_dropout = m.reference\n")
    return p



def _decode(path):
    """Our outputs format (kbx_harness.common.write_outputs) back into dicts, for the assertions."""
    import struct
    from kbx_harness.common import OUTPUTS_MAGIC
    data = open(path, "rb").read()
    assert data.startswith(OUTPUTS_MAGIC)
    off = len(OUTPUTS_MAGIC)
    (n,) = struct.unpack_from("<I", data, off)
    off += 4

    def s32(b, o):
        (ln,) = struct.unpack_from("<I", b, o)
        return b[o + 4:o + 4 + ln].decode(), o + 4 + ln

    def tensor(b, o):
        _, ln = struct.unpack_from("<BB", b, o)
        name = b[o + 2:o + 2 + ln].decode()
        o += 2 + ln
        (nd,) = struct.unpack_from("<B", b, o)
        dims = struct.unpack_from(f"<{nd}q", b, o + 1)
        o += 1 + 8 * nd
        (nb,) = struct.unpack_from("<Q", b, o)
        raw = bytearray(b[o + 8:o + 8 + nb])
        dt = getattr(torch, name)
        t = torch.frombuffer(raw, dtype=dt).reshape(dims) if nb else torch.empty(dims, dtype=dt)
        return t, o + 8 + nb

    cases = []
    for _ in range(n):
        tag, ln = struct.unpack_from("<BQ", data, off)
        b, off = data[off + 9:off + 9 + ln], off + 9 + ln
        if tag == 1:
            cls, o = s32(b, 0)
            msg, _ = s32(b, o)
            cases.append({"error": cls, "message": msg})
            continue
        structure, o = s32(b, 0)
        (nl,) = struct.unpack_from("<I", b, o)
        o += 4
        leaves = []
        for _ in range(nl):
            t, o = tensor(b, o)
            leaves.append(t)
        (na,) = struct.unpack_from("<I", b, o)
        o += 4
        after = []
        for _ in range(na):
            t, o = tensor(b, o)
            after.append(t)
        cases.append({"structure": structure, "tensors": leaves, "args_after": after})
    return cases

class Judge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.d = cls.tmp.name
        cls.task_file = str(TASKS / (TASK + ".py"))
        reference.run({"task_id": TASK, "task_file": cls.task_file, "device": "cpu",
                       "seeds": [{"label": "public0", "seed": 3}],
                       "inputs_out": cls.d + "/inputs.pt", "ref_out": cls.d + "/reference.pt"})
        cls.cases = torch.load(cls.d + "/inputs.pt", weights_only=True)["cases"]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def candidate(self, source, name):
        d = os.path.join(self.d, name)
        os.makedirs(d, exist_ok=True)
        candidate.run({"task_id": TASK, "task_file": self.task_file, "source_file": source,
                       "inputs_file": self.d + "/inputs.pt", "outputs_file": d + "/outputs.pt", "device": "cpu",
                       "skip_static_contract": True})
        return d

    def judge(self, d, records=None):
        out = d + "/judged.pt"
        if os.path.lexists(out):
            os.remove(out)
        judge.run({"task_id": TASK, "task_file": self.task_file, "device": "cpu", "inputs_file": self.d + "/inputs.pt",
                   "ref_file": self.d + "/reference.pt", "outputs_file": d + "/outputs.pt",
                   "records_file": records or candidate.records_path(d + "/outputs.pt"), "judged_out": out})
        return _decode(out)

    def train_cases(self):
        return [i for i, c in enumerate(self.cases) if "/train_" in c["name"]]

    def test_honest_replay_matches_drive_in_the_candidate_process(self):
        d = self.candidate(_reference_source(self.d), "honest")
        mine = _decode(d + "/outputs.pt")
        judged = self.judge(d)
        self.assertEqual(len(judged), len(self.cases))
        for a, b in zip(mine, judged):
            self.assertNotIn("error", b, b.get("message"))
            self.assertEqual(a["structure"], b["structure"])
            for x, y in zip(a["tensors"] + a["args_after"], b["tensors"] + b["args_after"]):
                self.assertTrue(torch.equal(x, y) or torch.allclose(x, y, equal_nan=True), str(x.shape))

    def test_a_replaced_drive_is_judged_on_what_the_kernel_returned(self):
        d = self.candidate(str(FIXTURES / "exploits" / "forge_drive_checks.py"), "forge")
        mine = _decode(d + "/outputs.pt")
        judged = self.judge(d)
        for i in self.train_cases():
            # in its own process every check said true; the judge's drive() finds nothing dropped
            self.assertTrue(all(bool(t.all()) for t in mine[i]["tensors"]), self.cases[i]["name"])
            self.assertFalse(all(bool(t.all()) for t in judged[i]["tensors"]), self.cases[i]["name"])

    def tampered(self, name, edit):
        d = self.candidate(_reference_source(self.d), name)
        path = candidate.records_path(d + "/outputs.pt")
        recs = torch.load(path, weights_only=True)
        edit(recs, path)
        judged = self.judge(d)
        return [judged[i] for i in self.train_cases()]

    def assertRejected(self, judged, words):
        for j in judged:
            self.assertEqual(j.get("error"), "runtime_error", j)
            self.assertIn(words, j["message"])

    def test_missing_records_fail_every_case(self):
        self.assertRejected(self.tampered("missing", lambda r, p: os.remove(p)), "no drive records")

    def test_garbage_records_fail(self):
        def edit(r, p):
            with open(p, "wb") as f:
                f.write(b"PK\x03\x04 not a torch file" * 10)
        self.assertRejected(self.tampered("garbage", edit), "drive records unreadable")

    def test_a_link_is_not_followed(self):
        def edit(r, p):
            os.remove(p)
            os.symlink(self.d + "/reference.pt", p)
        self.assertRejected(self.tampered("link", edit), "drive records unreadable")

    def test_a_fifo_is_not_waited_for(self):
        def edit(r, p):
            os.remove(p)
            os.mkfifo(p)
        self.assertRejected(self.tampered("fifo", edit), "not a regular file")

    def test_an_extra_call_fails(self):
        def edit(r, p):
            for c in r["cases"]:
                c["calls"].append(c["calls"][-1] if c["calls"] else {"ret": None, "args_after": []})
            torch.save(r, p)
        self.assertRejected(self.tampered("extra", edit), "recorded 2 calls")

    def test_a_missing_call_fails(self):
        def edit(r, p):
            for c in r["cases"]:
                c["calls"].clear()
            torch.save(r, p)
        self.assertRejected(self.tampered("fewer", edit), "recorded 0 calls")

    def test_an_oversized_return_value_fails(self):
        def edit(r, p):
            for c in r["cases"]:
                for call in c["calls"]:
                    call["ret"] = torch.zeros(1).expand(1 << 30)  # one element stored, 2^30 claimed
            torch.save(r, p)
        self.assertRejected(self.tampered("huge", edit), "more than")

    def test_wrong_argument_states_fail(self):
        def edit(r, p):
            for c in r["cases"]:
                for call in c["calls"]:
                    call["args_after"] = [torch.zeros(3)]
            torch.save(r, p)
        self.assertRejected(self.tampered("args", edit), "argument tensor 0")

    def test_a_foreign_object_fails(self):
        def edit(r, p):
            r["cases"][0]["calls"] = [torch.nn.Linear(2, 2)]
            torch.save(r, p)
        self.assertRejected(self.tampered("object", edit), "drive records unreadable")

    def test_an_existing_output_file_is_never_overwritten(self):
        d = self.candidate(_reference_source(self.d), "preexisting")
        os.symlink(self.d + "/reference.pt", d + "/judged.pt")
        with self.assertRaises(FileExistsError):
            judge.run({"task_id": TASK, "task_file": self.task_file, "device": "cpu",
                       "inputs_file": self.d + "/inputs.pt", "ref_file": self.d + "/reference.pt",
                       "outputs_file": d + "/outputs.pt", "records_file": candidate.records_path(d + "/outputs.pt"),
                       "judged_out": d + "/judged.pt"})


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
