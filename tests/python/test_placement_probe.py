#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/placement_probe.py's summary: trials grouped by what changed before them, by the trial's
parity, by the parity of the new inputs and extra kernels before them, and by the ballast, with the
medians of both sides and Triton/eager's range, so two levels read as ranges that do not overlap; the
factor order that keeps factor and parity apart; a stored table read back. (The probe itself needs a
GPU.)"""
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


class FourGroups(unittest.TestCase):
    """--balanced: one kernel halfway through the pairs; each side's estimate is the geometric mean of
    the medians of four groups (half x even/odd pair), which holds two groups at each launch parity."""

    @staticmethod
    def side(pairs, per_pair_odd, start, low=6.4, high=7.0):
        # A side's times when the level is set by its call's launch parity: `start` at pair 0, flipped
        # by the halfway kernel, and pair by pair when a pair launches an odd number of kernels.
        out = []
        for i in range(pairs):
            parity = (start + (i >= pairs // 2) + (i if per_pair_odd else 0)) % 2
            out.append((high if parity else low) + 0.001 * (i % 3))
        return out

    def test_the_estimate_does_not_depend_on_the_parity_the_side_starts_at(self):
        for per_pair_odd in (False, True):
            est = [placement_probe.four_groups(self.side(200, per_pair_odd, start)) for start in (0, 1)]
            self.assertAlmostEqual(est[0], est[1], places=3)
            self.assertAlmostEqual(est[0], (6.4 * 7.0) ** 0.5, places=2)
        # The plain median is not: with unequal halves it sits at one level, set by the start.
        a, b = (self.side(180, False, s)[:110] for s in (0, 1))
        self.assertGreater(abs(sorted(a)[55] - sorted(b)[55]), 0.5)

    def test_the_summary_groups_the_estimate_by_the_extra_kernels_parity(self):
        trials = [dict(trial("launch", 0, 6.5, 6.9), trial=t, inputs=0, kernels=k, groups4=g)
                  for t, (k, g) in enumerate([(0, 1.004), (1, 1.001), (2, 1.008), (3, 1.000)])]
        lines = placement_probe.summary(trials)
        i = lines.index("## The four groups' estimate (--balanced) by the extra kernels' parity")
        self.assertEqual(lines[i + 4:i + 6], ["| even | 2 | 1.004, 1.006, 1.008 |", "| odd | 2 | 1.000, 1.000, 1.001 |"])
        self.assertFalse(any("four groups" in l for l in placement_probe.summary(Summary.TRIALS)))


class Design(unittest.TestCase):
    def test_an_even_number_of_factors_meets_both_parities(self):
        # Cycled plainly, ["a", "b"] would put "a" on every odd trial and "b" on every even one.
        for factors in (["a", "b"], ["a", "b", "c", "d"], ["a", "b", "c", "d", "e", "f"]):
            seen = {}
            for t in range(1, 2 * len(factors) + 1):
                seen.setdefault(placement_probe.factor_at(t, factors), set()).add(t % 2)
            self.assertEqual(seen, {f: {0, 1} for f in factors}, factors)

    def test_an_odd_number_is_cycled_and_trial_0_changes_nothing(self):
        f = ["a", "b", "c"]
        self.assertEqual([placement_probe.factor_at(t, f) for t in range(8)], ["none", "a", "b", "c", "a", "b", "c", "a"])

    def test_what_a_factor_launches_and_whether_it_makes_a_new_input(self):
        cases = {"none": (False, 0), "flush": (False, 0), "output": (False, 0), "flush+output": (False, 0),
                 "input": (True, 1), "input+output": (True, 1), "input-fresh": (True, 1), "spacer": (True, 1),
                 "spacer:12-42": (True, 1), "gap:44-96": (True, 1), "launch": (False, 1), "launch:2": (False, 2),
                 "input+launch": (True, 2), "input-fresh+launch:3": (True, 4), "spacer:12-42+launch": (True, 2)}
        for factor, (new, kernels) in cases.items():
            self.assertEqual((placement_probe.makes_new_input(factor), placement_probe.extra_kernels(factor)), (new, kernels), factor)


OLD_TABLE = """# placement probe: 1048576 float32 elements, 100 pairs per trial, 16 trials per process
| process | trial | changed | triton us | eager us | triton/eager | flush | x | out (triton, eager) |
|---|---|---|---|---|---|---|---|---|
| 0 | 0 | none | 7.00 | 6.50 | 1.077 | ca000000 | f0c00000 | f0800000, f0800000 |
| 0 | 1 | flush | 7.10 | 6.50 | 1.092 | e4000000 | f0c00000 | f0800000, f0800000 |
| 0 | 2 | input | 6.50 | 7.00 | 0.929 | e4000000 | f0800000 | f1000000, f1000000 |
| 0 | 3 | output | 6.40 | 7.00 | 0.914 | e4000000 | f0800000 | f1400000, f1400000 |
| 1 | 0 | none | 7.20 | 6.60 | 1.091 | 76000000 | 9cc00000 | 9c800000, 9c800000 |
| 1 | 1 | input | 6.60 | 7.10 | 0.930 | 90000000 | 9c800000 | 9d000000, 9d000000 |

## By what changed before the trial (none: the first trial)
| none | 2 | 7.10 | 6.55 | 1.077, 1.084, 1.091 |
"""

NEW_TABLE = """# placement probe: relu, 16777216 float16 elements, 100 pairs per trial, 4 trials per process, ballast MiB per process [0, 2048]
| process | ballast MiB | trial | changed | new inputs | extra kernels | spacer MiB | triton us | eager us | triton/eager | flush | x | out (triton, eager) |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
| 0 | 0 | 0 | none | 0 | 0 | 0 | 27.5 | 28.2 | 0.975 | 5 | 5 | 5, 5 |
| 0 | 0 | 1 | launch | 0 | 1 | 0 | 28.3 | 27.5 | 1.029 | 5 | 5 | 5, 5 |
| 0 | 0 | 2 | input+launch | 1 | 3 | 0 | 28.2 | 27.6 | 1.022 | 5 | 5 | 5, 5 |
| 1 | 2048 | 0 | none | 0 | 0 | 0 | 27.6 | 28.1 | 0.982 | 5 | 5 | 5, 5 |
"""


class Reread(unittest.TestCase):
    def test_an_old_table_counts_new_inputs_and_kernels_from_what_changed(self):
        trials = placement_probe.reread(OLD_TABLE)
        self.assertEqual([(t["trial"], t["factor"], t["inputs"], t["kernels"], t["ballast"]) for t in trials],
                         [(0, "none", 0, 0, 0), (1, "flush", 0, 0, 0), (2, "input", 1, 1, 0), (3, "output", 1, 1, 0),
                          (0, "none", 0, 0, 0), (1, "input", 1, 1, 0)])  # per process, and the summary rows are not trials
        self.assertEqual(trials[2]["triton"], 6.5)
        lines = placement_probe.summary(trials)
        start = lines.index("## By the new inputs made in the process up to the trial, even or odd")
        rows = [l for l in lines[start:start + 6] if l.startswith(("| even", "| odd"))]
        self.assertEqual(rows, ["| even | 3 | 7.10 | 6.50 | 1.077, 1.091, 1.092 |",
                                "| odd | 3 | 6.50 | 7.00 | 0.914, 0.929, 0.930 |"])

    def test_a_new_table_takes_its_own_columns(self):
        trials = placement_probe.reread(NEW_TABLE)
        self.assertEqual([(t["factor"], t["inputs"], t["kernels"], t["ballast"]) for t in trials],
                         [("none", 0, 0, 0), ("launch", 0, 1, 0), ("input+launch", 1, 3, 0), ("none", 0, 0, 2048)])
        lines = placement_probe.summary(trials)
        start = lines.index("## By the trial's parity")
        self.assertTrue(lines[start + 4].startswith("| even | 3 |") and lines[start + 5].startswith("| odd | 1 |"), lines)

    def test_trials_without_their_counts_get_no_parity_groups(self):
        self.assertFalse(any("parity" in l for l in placement_probe.summary(Summary.TRIALS)))


if __name__ == "__main__":
    unittest.main()
