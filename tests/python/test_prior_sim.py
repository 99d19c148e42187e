#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/prior_sim.py: its repeat interval is perf::repeatInterval's (the numbers of
tests/core/perfstats_test.cpp), it reads the per-process estimates kbx stores, pools runs per GPU,
and a kernel with two levels per process is covered more often with more processes."""
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import prior_sim  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_db  # noqa: E402

Z = 1.959964


def iv(e, lo=None, hi=None):
    return {"estimate": e, "lo": lo if lo is not None else e, "hi": hi if hi is not None else e}


def make_db(path, gpu, kernels):
    """A run database with the evidence prior_sim reads: {(task, code): [estimates]}, and a failing
    kernel without perf (not read). Returns {code: its stored hash}."""
    evs = [{"task": task, "code": code, "evidence": {"perf": {
               "nvml_before": {"uuid": gpu}, "geomean_speedup_per_process": [iv(e, e * 0.999, e * 1.001) for e in ests]}}}
           for (task, code), ests in sorted(kernels.items())]
    evs.append({"task": "Math/abs", "code": "broken", "failure_class": "value_mismatch"})
    return fixture_db.write(path, [{"device": "cuda", "evaluations": evs}])


class PriorSim(unittest.TestCase):
    def test_the_interval_is_perf_repeat_interval(self):
        e, lo, hi = prior_sim.repeat_interval([iv(1.0)], 0.01, 4)
        self.assertAlmostEqual(math.log(hi), Z * math.sqrt(2.0) * 0.01, places=9)
        self.assertAlmostEqual(math.log(lo), -Z * math.sqrt(2.0) * 0.01, places=9)
        e, lo, hi = prior_sim.repeat_interval([iv(2.0), iv(2.0)], 0.01, 4)
        self.assertAlmostEqual(e, 2.0, places=12)
        self.assertAlmostEqual(math.log(hi / 2.0), Z * math.sqrt(4.0 * 1e-4 / 5.0), places=9)
        e, lo, hi = prior_sim.repeat_interval([iv(1.0, 0.99, 1.01), iv(1.2, 1.19, 1.21)], 0.01, 4)
        self.assertAlmostEqual(e, math.sqrt(1.2), places=12)
        self.assertLess(lo, 1.0)
        self.assertGreater(hi, 1.2)

    def test_the_shapes_floor_is_perf_shape_spread_variance(self):
        # the same numbers as tests/core/perfstats_test.cpp (log speedups 0, 0.02, 0.04 and a constant)
        v = prior_sim.shape_spread_variance([[math.exp(0.0), math.exp(0.02), math.exp(0.04)], [1.01, 1.01, 1.01]])
        self.assertAlmostEqual(v, 4e-4 / 4.0, places=15)
        self.assertEqual(prior_sim.shape_spread_variance([[1.0], [1.1]]), 0.0)
        same = [iv(1.5), iv(1.5), iv(1.5)]
        e, lo, hi = prior_sim.repeat_interval(same, 0.001, 4, 1e-4)
        self.assertAlmostEqual(math.log(hi / 1.5), Z * math.sqrt(2.0 * 1e-4 / 3.0), places=12)
        self.assertEqual(prior_sim.repeat_interval(same, 0.02, 4, 1e-6), prior_sim.repeat_interval(same, 0.02, 4))
        # from stored timings: per kernel, each shape's per-process speedups
        smp = lambda *xs: {"per_process": [{"speedup": {"estimate": x}} for x in xs]}  # noqa: E731
        shapes = {("T", "c", "a"): (1, 1, smp(math.exp(0.0), math.exp(0.02), math.exp(0.04))),
                  ("T", "c", "b"): (1, 1, smp(1.01, 1.01, 1.01)),
                  ("T", "d", "a"): (1, 1, smp(1.0, 1.1)), ("T", "d", "b"): (1, 1, smp(1.0, 1.1, 1.2))}
        got = prior_sim.kernel_shape_variances(shapes)
        self.assertAlmostEqual(got[("T", "c")], 1e-4, places=15)
        self.assertNotIn(("T", "d"), got)  # shapes of different process counts: no floor

    def test_runs_pool_per_gpu_and_kernels_of_one_run_are_left_out(self):
        with tempfile.TemporaryDirectory() as d:
            a, b, c = (os.path.join(d, f"{n}.sqlite") for n in "abc")
            h = make_db(a, "GPU-1", {("Math/i0", "k1"): [2.10, 2.13, 2.09], ("Math/abs", "k2"): [1.0, 1.0]})
            make_db(b, "GPU-1", {("Math/i0", "k1"): [2.12, 2.08]})
            make_db(c, "GPU-2", {("Math/i0", "k1"): [2.0, 2.0]})
            by_gpu = prior_sim.pools([prior_sim.load(p) for p in (a, b, c)])
            self.assertEqual(set(by_gpu), {"GPU-1"})  # GPU-2 has one run only
            kernels, nruns = by_gpu["GPU-1"]
            self.assertEqual(nruns, 2)
            self.assertEqual(set(kernels), {("Math/i0", h["k1"])})  # k2: one run
            pool = kernels[("Math/i0", h["k1"])]
            self.assertEqual(len(pool), 5)
            # widened about the pool's mean by sqrt(n/(n-1)), the mean kept
            logs = [math.log(x["estimate"]) for x in pool]
            raw = [math.log(x) for x in (2.10, 2.13, 2.09, 2.12, 2.08)]
            m = sum(raw) / 5
            self.assertAlmostEqual(sum(logs) / 5, m, places=12)
            self.assertAlmostEqual(logs[0] - m, math.sqrt(5 / 4) * (raw[0] - m), places=12)

    def test_a_two_level_kernel_is_covered_more_often_with_more_processes(self):
        pool = [iv(2.08, 2.078, 2.082)] * 5 + [iv(2.13, 2.128, 2.132)] * 5
        quiet = [iv(1.0, 0.999, 1.001)] * 10
        kernels = {("Math/i0", "two"): pool, ("Math/abs", "quiet"): quiet}
        c2, w2, p2, worst2 = prior_sim.simulate(kernels, (2, 2, 1.0, 0.005, 4), 2000, 3)
        c4, w4, p4, _ = prior_sim.simulate(kernels, (4, 4, 1.0, 0.005, 4), 2000, 3)
        c3, _, px, _ = prior_sim.simulate(kernels, (3, 4, 0.005, 0.005, 4), 2000, 3)
        self.assertEqual((p2, p4), (2.0, 4.0))
        self.assertGreater(px, 3.0)  # the two levels differ by 2.4 %: a fourth process unless all three agree
        self.assertLess(px, 4.0)
        self.assertEqual(worst2[0][1], ("Math/i0", "two"))
        self.assertLess(worst2[0][0], 0.85)
        self.assertGreater(c4, c2)
        self.assertGreater(c3, c2)
        self.assertEqual(worst2[-1][0], 1.0)  # the quiet kernel always

    def test_the_width_target_adds_processes_to_wide_kernels_only(self):
        # A kernel whose processes sit at two levels 2.4 % apart gives intervals wider than 2 %: with
        # the target it gets processes up to MAXW and a narrower median width; a quiet kernel does not.
        pool = [iv(2.08, 2.078, 2.082)] * 5 + [iv(2.13, 2.128, 2.132)] * 5
        quiet = [iv(1.0, 0.999, 1.001)] * 10
        base = prior_sim.parse_config("3,4,0.005,0.0065,4,1")
        tgt = prior_sim.parse_config("3,4,0.005,0.0065,4,1,0.02,6")
        self.assertEqual(base, (3, 4, 0.005, 0.0065, 4.0, True, 0.0, 4))
        self.assertEqual(tgt, (3, 4, 0.005, 0.0065, 4.0, True, 0.02, 6))
        self.assertEqual(prior_sim.parse_config("3,4,0.005,0.0065,4")[5:], (False, 0.0, 4))
        _, w0, p0, _ = prior_sim.simulate({("Math/i0", "two"): pool}, base, 1000, 5)
        _, w1, p1, _ = prior_sim.simulate({("Math/i0", "two"): pool}, tgt, 1000, 5)
        self.assertGreater(p1, p0)
        self.assertLessEqual(p1, 6.0)
        self.assertLess(w1, w0)
        _, wq, pq, _ = prior_sim.simulate({("Math/abs", "quiet"): quiet}, tgt, 200, 5)
        self.assertEqual(pq, 3.0)  # its interval (the prior's, 1.7 %) is already narrow enough
        self.assertLess(wq, 0.02)
        rng = __import__("random").Random(1)
        for _ in range(200):
            pp = prior_sim.simulated_run(pool, tgt, rng)
            est, lo, hi = prior_sim.interval_of(pp, tgt)
            # it stopped because the interval was narrow enough, or at MAXW
            self.assertTrue((hi - lo) / est <= 0.02 or len(pp) == 6, (len(pp), (hi - lo) / est))

    def test_the_shapes_floor_is_drawn_with_the_processes(self):
        a = dict(iv(1.0), shapes=[1.0, 1.0])
        b = dict(iv(1.0), shapes=[1.02, 0.98])
        self.assertEqual(prior_sim.drawn_shape_variance([a]), 0.0)
        got = prior_sim.drawn_shape_variance([a, b])
        self.assertAlmostEqual(got, prior_sim.shape_spread_variance([[1.0, 1.02], [1.0, 0.98]]), places=15)
        self.assertGreater(got, 0.0)
        self.assertEqual(prior_sim.drawn_shape_variance([a, iv(1.0)]), 0.0)  # a process without shapes: none

    def test_a_bad_config_and_a_non_database_are_refused(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "x.sqlite")
            with open(bad, "w") as f:
                f.write("not a database")
            sys.argv = ["prior_sim.py", bad]
            self.assertEqual(prior_sim.main(), 2)
            sys.argv = ["prior_sim.py", bad, "--config", "3,4"]
            self.assertEqual(prior_sim.main(), 2)
            sys.argv = ["prior_sim.py", bad, "--config", "3,4,0.005,0.0065,4,1,0.02"]
            self.assertEqual(prior_sim.main(), 2)


if __name__ == "__main__":
    unittest.main()
