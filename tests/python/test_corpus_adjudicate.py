#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/corpus_adjudicate.py table: each version's final verdict against its adjudication. Under
--perf kbx writes a second line per evaluation ("type": "perf") whose verdict is final: the perf
stage's kernel attribution can turn a pass into not_triton_kernel, a benchmark rule ("rule"), and
the table must show that verdict, not the correctness stage's."""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import corpus_adjudicate  # noqa: E402


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class Table(unittest.TestCase):
    # Four versions of our own: a Triton kernel that stays correct, one whose GPU time the perf
    # stage finds in torch, one that is wrong, and one adjudicated correct that we fail outright.
    VERSIONS = [("Math/a.py", "a1"), ("LinearAlgebra/b.py", "b1"), ("Math/c.py", "c1"), ("Math/d.py", "d1")]
    LABELS = ["correct", "correct", "wrong_values", "correct"]

    def run_table(self, eval_lines):
        with tempfile.TemporaryDirectory() as d:
            adj, vers, ev, md = (os.path.join(d, n) for n in ("adj.json", "versions.jsonl", "eval.jsonl", "t.md"))
            write(adj, json.dumps({"versions": [{"task": f, "code_sha256": h, "adjudicated": lab}
                                                for (f, h), lab in zip(self.VERSIONS, self.LABELS)]}))
            write(vers, "".join(json.dumps({"file": f, "predict": "", "code_sha256": h}) + "\n" for f, h in self.VERSIONS))
            write(ev, "".join(json.dumps(x) + "\n" for x in eval_lines) + "not json\n")
            out = io.StringIO()
            with redirect_stdout(out):
                rc = corpus_adjudicate.table(adj, vers, ev, md)
            with open(md, encoding="utf-8") as f:
                self.assertEqual(f.read(), out.getvalue())
            rows = {int(l.split("|")[1]): [c.strip() for c in l.split("|")[2:-1]]
                    for l in out.getvalue().splitlines() if l.startswith("| ") and l.split("|")[1].strip().isdigit()}
            return rc, rows, out.getvalue()

    @staticmethod
    def line(i, verdict, cls=None, incl=None):
        return {"origin": f"/x/versions.jsonl:{i}", "evaluation_id": 10 + i, "verdict": verdict, "failure_class": cls,
                "correct_incl_extended": incl, "task": "t"}

    @staticmethod
    def perf(i, verdict, cls=None):
        return {"type": "perf", "evaluation_id": 10 + i, "verdict": verdict, "failure_class": cls, "task": "t"}

    def test_the_perf_stages_verdict_is_the_one_shown(self):
        rc, rows, text = self.run_table([
            self.line(1, "pass", incl=True), self.line(2, "pass", incl=True), self.line(3, "fail", "value_mismatch", False),
            self.line(4, "pass", incl=True),
            self.perf(1, "pass"), self.perf(2, "fail", "not_triton_kernel")])
        self.assertEqual(rc, 0)
        self.assertEqual(rows[1][2:4], ["pass", ""])
        self.assertEqual(rows[1][-1], "yes")
        self.assertEqual(rows[2][2:5], ["fail", "not_triton_kernel (perf stage)", "False"])
        self.assertEqual(rows[2][-1], "rule")
        self.assertEqual(rows[3][-1], "yes")
        self.assertIn("- correct: 1 rule, 2 yes", text)

    def test_without_perf_lines_the_correctness_verdict_stands(self):
        rc, rows, _ = self.run_table([self.line(i, "pass", incl=True) for i in (1, 2, 4)]
                                     + [self.line(3, "fail", "value_mismatch", False)])
        self.assertEqual(rc, 0)
        self.assertEqual([rows[i][2] for i in (1, 2, 3, 4)], ["pass", "pass", "fail", "pass"])

    def test_a_perf_stage_fail_that_is_no_rule_is_a_disagreement(self):
        rc, rows, text = self.run_table([self.line(i, "pass", incl=True) for i in (1, 2, 4)]
                                        + [self.line(3, "fail", "value_mismatch", False), self.perf(4, "fail", "value_mismatch")])
        self.assertEqual(rc, 1)
        self.assertEqual(rows[4][-1], "no")
        self.assertIn("Disagreements:", text)

    def test_a_version_without_a_verdict_is_missing(self):
        rc, rows, _ = self.run_table([self.line(i, "pass", incl=True) for i in (1, 2)] + [self.line(3, "fail", "value_mismatch")])
        self.assertEqual(rc, 1)
        self.assertEqual(rows[4][2], "missing")


if __name__ == "__main__":
    unittest.main()
