#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/placement_probe.py's summary: trials grouped by what changed before them and by the ballast,
with the medians of both sides and Triton/eager's range, so two levels read as ranges that do not
overlap. (The probe itself needs a GPU.)"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import placement_probe  # noqa: E402


def trial(factor, ballast, triton, eager):
    return {"factor": factor, "ballast": ballast, "triton": triton, "eager": eager}


class Summary(unittest.TestCase):
    TRIALS = [trial("none", 30000, 20.8, 22.1), trial("spacer", 30000, 21.5, 21.5), trial("input", 30000, 20.9, 22.0),
              trial("spacer", 8192, 21.6, 21.4), trial("input", 8192, 20.7, 22.2), trial("gap:2-42", 8192, 21.0, 21.0)]

    def rows(self, section):
        lines = placement_probe.summary(self.TRIALS)
        start = next(i for i, l in enumerate(lines) if l.startswith("## " + section))
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        return [l for l in lines[start + 1:end] if l.startswith("| ") and not l.startswith(("| changed", "| ballast"))]

    def test_each_factor_is_a_group_with_its_ratio_range(self):
        rows = self.rows("By what changed")
        self.assertEqual([r.split(" | ")[0] for r in rows], ["| gap:2-42", "| input", "| none", "| spacer"])
        spacer = next(r for r in rows if r.startswith("| spacer"))
        self.assertIn("| 2 |", spacer)
        self.assertIn("21.55 | 21.45 |", spacer)  # medians of both sides
        self.assertIn(f"{21.5 / 21.5:.3f}, {(21.5 / 21.5 + 21.6 / 21.4) / 2:.3f}, {21.6 / 21.4:.3f}", spacer)
        inp = next(r for r in rows if r.startswith("| input"))
        self.assertIn(f"{20.7 / 22.2:.3f}, {(20.7 / 22.2 + 20.9 / 22.0) / 2:.3f}, {20.9 / 22.0:.3f}", inp)

    def test_ballasts_are_grouped_in_numeric_order(self):
        rows = self.rows("By the ballast")
        self.assertEqual([r.split(" | ")[0] for r in rows], ["| 8192", "| 30000"])  # not as strings
        self.assertTrue(rows[0].startswith("| 8192 | 3 |") and rows[1].startswith("| 30000 | 3 |"), rows)


if __name__ == "__main__":
    unittest.main()
