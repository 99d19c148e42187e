#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/gpu_runs.py gputests: the parts of --part K/N cover every selected gpu test once, in ctest's
order, and the suites other subcommands run in full are left out of the selection."""
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import gpu_runs  # noqa: E402


class PartOf(unittest.TestCase):
    NAMES = [f"gpu.Perf.T{i}" for i in range(14)]

    def test_parts_cover_every_test_once_in_order(self):
        for n in (1, 2, 3, 5, 14, 20):
            parts = [gpu_runs.part_of(self.NAMES, f"{k}/{n}") for k in range(1, n + 1)]
            flat = [t for p in parts for t in p]
            self.assertEqual(sorted(flat), sorted(self.NAMES), n)
            for p in parts:
                self.assertEqual(p, sorted(p, key=self.NAMES.index))
            sizes = [len(p) for p in parts]
            self.assertLessEqual(max(sizes) - min(sizes), 1, n)

    def test_a_part_outside_one_to_n_is_refused(self):
        for bad in ("0/3", "4/3", "-1/2"):
            with self.assertRaises(ValueError):
                gpu_runs.part_of(self.NAMES, bad)
        with self.assertRaises(ValueError):
            gpu_runs.part_of(self.NAMES, "two/3")

    def test_suites_made_elsewhere_are_left_out(self):
        made = re.compile(gpu_runs.GPUTESTS_MADE_ELSEWHERE)
        for name in ("gpu.tasks.self_check_all", "gpu.Exploits.EveryCaseIsContainedUnderTheDefaultSandbox",
                     "gpu.Eval.EveryKnownGoodFixturePasses", "gpu.Eval.EveryKnownBadFixtureGetsItsClass"):
            self.assertTrue(made.search(name), name)
        for name in ("gpu.Perf.CorrectKernelGetsTimingsSpeedupAndProvenance", "gpu.Eval.SameSubmissionTwiceIsStoredOnceWithTwoEvaluations"):
            self.assertFalse(made.search(name), name)


class NotOkEntries(unittest.TestCase):
    def test_only_entries_that_failed_come_back_with_their_reason(self):
        listing = ("[1/4] ok   reference   Activation/relu                    \n"
                   "[2/4] FAIL known-good  Math/floor                         output 3 of 16M differs\n"
                   "  max |a-b| 1.0 at 17\n"
                   "[perf 1/2] reference   Math/abs                           self-speedup 1.001x [0.99, 1.01]\n"
                   "[3/4] ok   known-good  Math/abs                           \n"
                   "[4/4] FAIL reference   Math/exp                           timed out\n"
                   "self-check: 2 of 4 ok in 9s\n")
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(listing)
        try:
            self.assertEqual(gpu_runs.not_ok_entries(f.name), [
                "[2/4] FAIL known-good  Math/floor                         output 3 of 16M differs",
                "  max |a-b| 1.0 at 17",
                "[4/4] FAIL reference   Math/exp                           timed out"])
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
