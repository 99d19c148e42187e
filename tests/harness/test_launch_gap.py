# SPDX-License-Identifier: MIT
"""The perf stage's launch gap (kbx_harness.perf.LaunchGap) with fake events: what counts as a
starved sample, how the gap widens and where it stops, which sides are exempt, and when starved
samples must be kept. The same policy runs on the H200 in the GPU test
Perf.AHostSlowerThanTheLaunchGapIsCaughtAndTheGapWidened. Run by ctest (harness.launch_gap):
    test_launch_gap.py HARNESS_DIR
"""
import sys
import unittest

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "tasks/worker/python")

from kbx_harness.perf import LaunchGap  # noqa: E402

CFG = {"min_gap_us": 20, "max_gap_us": 2000}


class Event:
    """A start event whose query() says whether the device has passed it; elapsed is its sample."""

    def __init__(self, passed, ms):
        self.passed, self.ms = passed, ms

    def query(self):
        return self.passed


def ms(a, _b):
    return a.ms


def block(*pairs):
    """[(side, passed, ms), ...] per pair -> what the timed loop hands to sort()."""
    return [[(side, Event(p, m), None, None) for side, p, m in pair] for pair in pairs]


def judged(gap, blk):
    return [[(side, a, b, gap.starved(side, a)) for side, a, b, _ in pair] for pair in blk]


class LaunchGapTest(unittest.TestCase):
    def test_starts_at_twice_the_slowest_sides_median_enqueue_within_bounds(self):
        self.assertEqual(LaunchGap({"candidate": 30.0, "reference": 12.0}, CFG, 1.0).us, 60.0)
        self.assertEqual(LaunchGap({"candidate": 3.0, "reference": 2.0}, CFG, 1.0).us, 20.0)
        self.assertEqual(LaunchGap({"candidate": 5000.0, "reference": 2.0}, CFG, 1.0).us, 2000.0)
        g = LaunchGap({"candidate": 30.0}, CFG, 1500.0)
        self.assertEqual(g.cycles, 60 * 1500)
        self.assertEqual(g.probe_cycles(), 2000 * 1500)

    def test_a_starved_sample_is_kept_apart_and_doubles_the_gap_up_to_its_cap(self):
        g = LaunchGap({"candidate": 30.0, "reference": 10.0}, CFG, 1000.0)
        g.host_sync = {"candidate": False, "reference": False}
        samples, starved = {"candidate": [], "reference": []}, {"candidate": [], "reference": []}
        widths = []
        for _ in range(7):
            g.sort(judged(g, block([("candidate", True, 0.8), ("reference", False, 0.03)])), ms, samples, starved)
            widths.append(g.us)
        self.assertEqual(widths, [120.0, 240.0, 480.0, 960.0, 1920.0, 2000.0, 2000.0])
        self.assertEqual(starved["candidate"], [0.8] * 7)
        self.assertEqual(samples["candidate"], [])
        self.assertEqual(samples["reference"], [0.03] * 7, "the other side's clean samples are kept")
        self.assertEqual(g.start_us, 60.0)

    def test_a_clean_block_leaves_the_gap_alone(self):
        g = LaunchGap({"candidate": 30.0}, CFG, 1000.0)
        g.host_sync = {"candidate": False}
        samples, starved = {"candidate": []}, {"candidate": []}
        g.sort(judged(g, block([("candidate", False, 0.01)], [("candidate", False, 0.011)])), ms, samples, starved)
        self.assertEqual(g.us, 60.0)
        self.assertEqual(samples["candidate"], [0.01, 0.011])
        self.assertEqual(starved["candidate"], [])

    def test_only_sides_probed_and_found_not_to_wait_are_checked(self):
        g = LaunchGap({"candidate": 30.0, "reference": 10.0, "compile": 12.0}, CFG, 1000.0)
        g.host_sync = {"candidate": True, "reference": False, "compile": None}
        self.assertFalse(g.starved("candidate", Event(True, 0.2)), "waits for the device inside: exempt")
        self.assertTrue(g.starved("reference", Event(True, 0.2)))
        self.assertFalse(g.starved("reference", Event(False, 0.2)))
        self.assertFalse(g.starved("compile", Event(True, 0.2)), "a slow side, not probed: unchecked")
        self.assertFalse(g.starved("tf32", Event(True, 0.2)), "never probed: unchecked")

    def test_no_gap_on_the_cpu(self):
        g = LaunchGap({"candidate": 30.0}, CFG, 0.0)
        self.assertEqual(g.cycles, 0)
        self.assertFalse(g.starved("candidate", Event(True, 1.0)), "no spin, no starvation check")
        ev = g.evidence({"candidate": []}, [])
        self.assertEqual((ev["launch_gap_us"], ev["launch_gap_start_us"]), (0.0, 0.0))

    def test_too_few_clean_samples_keep_everything_and_say_so(self):
        samples = {"candidate": [0.01] * 4, "reference": [0.03] * 40}
        starved = {"candidate": [0.8] * 36, "reference": []}
        kept = LaunchGap.keep_if_too_few(samples, starved, 10)
        self.assertEqual(kept, ["candidate"])
        self.assertEqual(len(samples["candidate"]), 40)
        self.assertEqual(len(samples["reference"]), 40)
        enough = {"candidate": [0.01] * 10}
        self.assertEqual(LaunchGap.keep_if_too_few(enough, {"candidate": [0.8] * 90}, 10), [])
        self.assertEqual(enough["candidate"], [0.01] * 10, "clean samples are valid however many were starved")

    def test_evidence(self):
        g = LaunchGap({"candidate": 30.0}, CFG, 1000.0)
        g.host_sync = {"candidate": False}
        g.sort(judged(g, block([("candidate", True, 0.5)])), ms, {"candidate": []}, st := {"candidate": []})
        ev = g.evidence(st, [])
        self.assertEqual(ev, {"launch_gap_us": 120.0, "launch_gap_start_us": 60.0, "host_sync": {"candidate": False},
                              "starved": {"candidate": 1}, "starved_kept": []})


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
