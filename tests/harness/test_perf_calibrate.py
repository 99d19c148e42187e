# SPDX-License-Identifier: MIT
"""The device's copy bandwidth, the roofline's bandwidth peak (kbx_harness.perf_device.copy_bandwidth),
on the CPU: the timing of one buffer pair is replaced by a recorder, so the trials, their sizes against
the L2 cache and the choice of the best are checked without a GPU. Run by ctest (harness.perf_calibrate):
    test_perf_calibrate.py TASKS_DIR HARNESS_DIR
"""
import pathlib
import sys
import unittest

TASKS = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("tasks")
sys.path.insert(0, sys.argv[2] if len(sys.argv) > 2 else "tasks/worker/python")

from kbx_harness import perf_device  # noqa: E402

MiB = 1 << 20


class Rates:
    """measure(nbytes) -> GB/s from a list, recording the sizes asked for."""

    def __init__(self, *rates):
        self.rates = list(rates)
        self.sizes = []

    def __call__(self, nbytes):
        self.sizes.append(nbytes)
        r = self.rates.pop(0)
        if isinstance(r, Exception):
            raise r
        return r


class CopyBandwidth(unittest.TestCase):
    def test_a_slow_first_pair_does_not_set_the_peak(self):
        # The H100 of bench/results/2026-12-06-h100-first-wave-20d8ea2: one pair read 2,581 GB/s, the
        # next run's 2,948. The peak is the best pair, and every pair is kept beside it.
        m = Rates(2581.0, 2948.0, 2930.0)
        out = perf_device.copy_bandwidth(m, 50 * MiB)
        self.assertEqual(out["copy_gbs"], 2948.0)
        self.assertEqual([t["gbs"] for t in out["copy_trials"]], [2581.0, 2948.0, 2930.0])
        self.assertEqual(len(m.sizes), len(perf_device.COPY_TRIAL_MIB))
        self.assertEqual(len(set(m.sizes)), len(m.sizes), "each pair has a size of its own")

    def test_every_buffer_is_at_least_four_l2_caches(self):
        for l2 in (0, 50 * MiB, 126 * MiB, 512 * MiB):
            m = Rates(1.0, 1.0, 1.0)
            out = perf_device.copy_bandwidth(m, l2)
            self.assertTrue(all(n >= 4 * l2 for n in m.sizes), (l2, m.sizes))
            self.assertTrue(all(n >= 256 * MiB for n in m.sizes), m.sizes)
            self.assertEqual([t["mib"] for t in out["copy_trials"]], [n // MiB for n in m.sizes])

    def test_a_pair_that_does_not_fit_is_kept_with_its_error(self):
        m = Rates(RuntimeError("CUDA out of memory"), 900.0, 950.0)
        out = perf_device.copy_bandwidth(m, 0)
        self.assertEqual(out["copy_gbs"], 950.0)
        self.assertIn("out of memory", out["copy_trials"][0]["error"])
        self.assertNotIn("gbs", out["copy_trials"][0])

    def test_no_pair_at_all_is_an_error_not_a_zero_peak(self):
        m = Rates(*(RuntimeError("CUDA out of memory") for _ in perf_device.COPY_TRIAL_MIB))
        with self.assertRaisesRegex(RuntimeError, "no copy-bandwidth trial ran"):
            perf_device.copy_bandwidth(m, 0)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
