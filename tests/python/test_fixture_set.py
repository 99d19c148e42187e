#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/fixture_set.py table: a variant is as expected when its verdict has the expected class, or
when it passes the contract tier (the seed's test calls) and its extended tier fails with that class;
a variant that passes both tiers, or fails the extended tier with another class, is not."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "fixture_set.py")


def line(n, verdict, failure_class=None, extended=None, detail=""):
    return {"origin": f"f.jsonl:{n}", "verdict": verdict, "failure_class": failure_class, "extended": extended,
            "detail": detail, "seconds": 1.0}


class Table(unittest.TestCase):
    def table(self, fixtures, verdicts):
        with tempfile.TemporaryDirectory() as d:
            fx, vd = os.path.join(d, "f.jsonl"), os.path.join(d, "v.jsonl")
            with open(fx, "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in fixtures)
            with open(vd, "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in verdicts)
            p = subprocess.run([sys.executable, SCRIPT, "table", fx, vd], capture_output=True, text=True)
            return p.returncode, p.stdout

    FIXTURES = [
        {"kind": "good", "name": "A/relu", "file": "A/relu.py", "expect": "pass"},
        {"kind": "variant", "name": "wrong", "file": "A/relu.py", "expect": "value_mismatch"},
        {"kind": "variant", "name": "dtype", "file": "A/relu.py", "expect": "dtype_mismatch"},
    ]
    EXT_DTYPE = {"ran": True, "call_ok": True, "exe_ok": False, "failure_class": "dtype_mismatch",
                 "failure_detail": "case edge/f16: dtype float16 expected, got float32"}

    def test_a_class_caught_only_in_the_extended_tier_counts_and_is_shown(self):
        rc, out = self.table(self.FIXTURES, [line(1, "pass"), line(2, "fail", "value_mismatch"),
                                             line(3, "pass", extended=self.EXT_DTYPE)])
        self.assertEqual(rc, 0, out)
        self.assertIn("Verdict as expected: **3/3**", out)
        self.assertIn("1 variant(s) pass the contract tier", out)
        self.assertIn("| pass; extended tier: dtype_mismatch | yes |", out)
        self.assertIn("dtype float16 expected, got float32", out)

    def test_a_variant_that_passes_both_tiers_or_fails_with_another_class_is_not_as_expected(self):
        for ext in ({"ran": True, "call_ok": True, "exe_ok": True}, None, {"ran": False},
                    dict(self.EXT_DTYPE, failure_class="shape_mismatch")):
            rc, out = self.table(self.FIXTURES, [line(1, "pass"), line(2, "fail", "value_mismatch"),
                                                 line(3, "pass", extended=ext)])
            self.assertEqual(rc, 1, out)
            self.assertIn("Verdict as expected: **2/3**", out)
            self.assertIn("**NO**", out)

    def test_a_known_good_solution_failing_its_extended_tier_is_still_a_pass_not_a_catch(self):
        rc, out = self.table(self.FIXTURES[:1], [line(1, "pass", extended=self.EXT_DTYPE)])
        self.assertEqual(rc, 0, out)
        self.assertIn("Known-good: **1/1 pass**", out)
        self.assertNotIn("extended tier:", out)


if __name__ == "__main__":
    unittest.main()
