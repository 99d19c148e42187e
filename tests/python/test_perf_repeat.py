#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/perf_repeat.py --no-run: the report of two stored `--perf` runs (issue 22's acceptance
figures). Coverage both ways and among kernels with no flagged cause, each direction's misses named
with their causes, and databases found beside runs.json when the paths it names (written on the GPU
machine) do not exist here."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_db  # noqa: E402


def iv(e, lo, hi):
    return {"estimate": e, "lo": lo, "hi": hi}


def make_db(path, kernels, gpu="GPU-aaaa", no_peaks=(), host_cpu=None):
    """kernels: {(task, code): (geomean interval, flags)}; one shape each, 10 us candidate, 12 us eager,
    its roofline bound from the device's peaks unless its task is in no_peaks.
    Returns {code: its stored hash}."""
    evs = []
    for (task, code), (g, flags) in sorted(kernels.items()):
        g = dict(g, interval="repeat", processes=3, prior_rel=0.0065, prior_df=4, between_process_rel=0.005)
        per = [iv(g["estimate"], g["estimate"] * 0.998, g["estimate"] * 1.002)] * 3
        perf = {"geomean_speedup": g, "flags": flags, "geomean_speedup_per_process": per,
                "nvml_before": {"uuid": gpu}, "nvml_after": {"uuid": gpu}}
        roofline = {"peak_dtype": "float32"} if task in no_peaks else {"peak_dtype": "float32", "bound_ms": 0.004, "peak_tflops": 51.5}
        samples = {"per_process": [{"candidate_ms": 0.010}] * 3, "roofline": roofline}
        evs.append({"task": task, "code": code, "evidence": {"perf": perf},
                    "stage_seconds": {"candidate": 1.0, "compare": 0.1, "reference": 0.5, "evaluation": 1.5 + len(evs),
                                      "precompile": 0.25},
                    "timings": [{"shape": "1M_f32", "candidate_ms": 0.010, "baseline_ms": 0.012, "samples": samples}]})
    return fixture_db.write(path, [{"device": "cuda", "provenance": dict({"devices": [{"name": "Test GPU"}], "versions": {"torch": "x"}}, **({"host_cpu": host_cpu} if host_cpu else {})),
                                    "evaluations": evs}])


class PerfRepeatReport(unittest.TestCase):
    def report(self, out, runs):
        """runs.json written into out, then perf_repeat.py --no-run there; returns repeat.md."""
        with open(os.path.join(out, "runs.json"), "w") as f:
            json.dump(runs, f)
        p = subprocess.run([sys.executable, os.path.join(BENCH, "perf_repeat.py"), "versions.jsonl", "--out", out, "--no-run"],
                           capture_output=True, text=True, cwd=out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "repeat.md")) as f:
            return f.read()

    def test_both_directions_their_misses_and_the_unflagged_split(self):
        run0 = {("Math/abs", "a" * 40): (iv(1.000, 0.990, 1.010), []),              # held both ways
                # missed both ways, no cause: a roofline audit flag does not say why a timing moved
                ("Math/i0", "b" * 40): (iv(2.120, 2.100, 2.140), ["faster_than_roofline:64M_f32"]),
                ("Activation/relu", "c" * 40): (iv(1.000, 0.980, 1.020), ["host_in_timing:1M_f32"]),
                ("Math/exp", "d" * 40): (iv(1.000, 0.970, 1.030), [])}              # held one way only
        run1 = {("Math/abs", "a" * 40): (iv(1.005, 0.995, 1.015), []),
                ("Math/i0", "b" * 40): (iv(2.088, 2.070, 2.106), []),
                ("Activation/relu", "c" * 40): (iv(1.030, 1.020, 1.040), []),
                ("Math/exp", "d" * 40): (iv(1.020, 1.015, 1.025), [])}
        with tempfile.TemporaryDirectory() as out:
            h = make_db(os.path.join(out, "run-0.sqlite"), run0)
            self.assertEqual(make_db(os.path.join(out, "run-1.sqlite"), run1, no_peaks=("Math/exp", "Math/abs")), h)
            b, c, d = (h[x * 40][:12] for x in "bcd")
            # As the GPU machine wrote it: paths relative to another working directory.
            # Run 0 says when kbx's first progress line came (the start's share of the correctness
            # wall); run 1, as runs.json files written before that key, does not.
            runs = [{"rc": 0, "wall": 100.0, "correct_wall": 20.0, "first": "kbx: evaluating 4", "db": f".bench-state/repeat/run-{r}.sqlite"}
                    for r in (0, 1)]
            runs[0]["first_at"] = 6.54
            md = self.report(out, runs)
        self.assertIn("kernels timed in both runs: 4; second run's geomean speedup inside the first run's 95 % interval: "
                      "2 (50 %); the other way (run 1's interval holds run 0): 1 (25 %)", md)
        self.assertIn("of them with no flagged cause (see the causes above): 3; inside 2 and 1 (the two directions)", md)
        forward = md.split("Run 1's estimate outside run 0's interval:")[1].split("\n\n")[0]
        back = md.split("Run 0's estimate outside run 1's interval:")[1].split("\n\n")[0]
        self.assertIn(f"Math/i0 {b}: run 0 2.120 [2.100, 2.140], run 1 2.088; causes: none", forward)
        self.assertIn(f"Activation/relu {c}: run 0 1.000 [0.980, 1.020], run 1 1.030; causes: host_in_timing:1M_f32", forward)
        self.assertNotIn("Math/exp", forward)
        self.assertNotIn("Math/abs", forward + back)
        self.assertIn(f"Math/exp {d}: run 1 1.020 [1.015, 1.025], run 0 1.000; causes: none", back)
        self.assertIn(f"Math/i0 {b}: run 1 2.088 [2.070, 2.106], run 0 2.120; causes: none", back)
        self.assertEqual([l[:17] for l in back.strip().splitlines()], ["- Activation/relu", f"- Math/exp {d[:6]}", f"- Math/i0 {b[:7]}"])
        self.assertIn("| 0 | 0 | 20 s | 6.5 s | 5.00 s | 80 s | 100 s |", md)
        self.assertIn("| 1 | 0 | 20 s | not recorded | 5.00 s | 80 s | 100 s |", md)
        # The processes' seconds summed per kind, the candidate's other processes too (4 x 0.25 s of
        # precompile; the reference once per task).
        self.assertIn("| run | reference (per task) | candidate | compare | extended tier | autotune sweep | precompile | reference phases |", md)
        self.assertIn("| 0 | 2 | 4 | 0 | 0 | 0 | 1 | 4 tasks: not recorded |", md)
        # The longest evaluations first, with their phases (Math/i0 was stored fourth: 4.5 s).
        longest = md.split("Longest evaluations of the correctness stage")[1].split("\n\n")[1].splitlines()
        self.assertEqual(longest[0], f"- run 0: Math/i0 {h['b' * 40][:8]} 4.5 s (reference 0.5, candidate 1.0, precompile 0.2)")
        self.assertEqual(len(longest), 8)  # four per run
        self.assertIn("- GPUs (NVML uuid of the perf workers): run 0 GPU-aaaa; run 1 GPU-aaaa", md)
        self.assertNotIn("cross-machine", md)
        self.assertIn("## CI coverage\n", md)
        self.assertNotIn("## Placement gap", md)  # no process drew a gap: the default
        # Timings without the device's peaks have no bound: counted per run, not read as "none faster".
        self.assertIn("- shapes timed without the device's peaks (no roofline bound, not checked): run 0 0 of 4, run 1 2 of 4", md)

    def test_the_recomputed_table_applies_the_shapes_floor_as_the_run_did(self):
        # One kernel whose three processes agree on the geomean (1.0) while its two shapes swing
        # against each other by 4 %: the prior alone gives about +-0.9 %, the shapes' floor about
        # +-4.5 %; run 1's 1.015 is outside the one and inside the other.
        def db(path, estimate, floor):
            g = {"estimate": estimate, "lo": estimate * 0.99, "hi": estimate * 1.01, "interval": "repeat", "processes": 3,
                 "prior_rel": 0.0065, "prior_df": 4, "between_process_rel": 0.0}
            if floor:
                g["shape_spread_rel"] = 0.028
            per = [iv(estimate, estimate * 0.998, estimate * 1.002)] * 3
            swing = [0.96, 1.0, 1.04]
            timings = [{"shape": name, "candidate_ms": 0.010, "baseline_ms": 0.010,
                        "samples": {"per_process": [{"candidate_ms": 0.010, "speedup": {"estimate": estimate * x}} for x in xs]}}
                       for name, xs in (("a", swing), ("b", swing[::-1]))]
            ev = {"task": "Math/abs", "code": "a" * 40, "stage_seconds": {"evaluation": 1.0},
                  "evidence": {"perf": {"geomean_speedup": g, "flags": [], "geomean_speedup_per_process": per,
                                        "nvml_before": {"uuid": "GPU-aaaa"}}}, "timings": timings}
            fixture_db.write(path, [{"device": "cuda", "provenance": {"devices": [{"name": "Test GPU"}]}, "evaluations": [ev]}])

        runs = [{"rc": 0, "wall": 10.0, "correct_wall": 2.0, "first": "kbx", "db": f"run-{r}.sqlite"} for r in (0, 1)]
        for floor, row in ((True, "| 0.65 % (this run's) | 1/1 | 1/1 |"), (False, "| 0.65 % (this run's) | 0/1 | 0/1 |")):
            with tempfile.TemporaryDirectory() as out:
                db(os.path.join(out, "run-0.sqlite"), 1.0, floor)
                db(os.path.join(out, "run-1.sqlite"), 1.015, floor)
                md = self.report(out, runs)
            table = md.split("## Coverage against the prior")[1]
            self.assertEqual("each interval at least what its shapes spread" in table, floor, table)
            self.assertIn(row, table, table)
            # the shapes' spread by their time (10 us: the 10-50 us class), both runs' two shapes
            self.assertIn("by the shape's time (both runs; the shapes' floor rests on it): 10-50 us 4.00 % (n=4)", md)

    def test_a_shape_whose_processes_agree_in_each_run_but_not_across_runs_is_named(self):
        # Shape "tight": each run's three processes within 0.1 %, run 1 2 % slower on the candidate
        # side (a run-level shift: named, and the kernel's miss says so). Shape "loose": the same
        # 2 % shift, but the processes themselves 2 % apart (not beyond their spread). Shape "small":
        # tight processes, a 0.5 % shift (under the 1 % threshold). Shape "outlier": the 2 % shift, three
        # of four processes within 0.1 % and one 3 % off in each run (with it the sd, 1.4 %, would hide
        # the shift; it is left out from four processes on). Eager sides do not move.
        def db(path, estimate, scale):
            g = {"estimate": estimate, "lo": estimate * 0.995, "hi": estimate * 1.005, "interval": "repeat", "processes": 3,
                 "prior_rel": 0.0065, "prior_df": 4, "between_process_rel": 0.0}
            per = [iv(estimate, estimate * 0.998, estimate * 1.002)] * 3
            spread = {"tight": (0.999, 1.0, 1.001), "loose": (0.98, 1.0, 1.02), "small": (0.999, 1.0, 1.001),
                      "outlier": (0.999, 1.0, 1.001, 1.03)}
            timings = []
            for name, xs in spread.items():
                c = 0.020 * scale[name]
                timings.append({"shape": name, "candidate_ms": c, "baseline_ms": 0.020,
                                "samples": {"per_process": [{"candidate_ms": c * x, "reference_ms": 0.020 * y,
                                                             "placement_offset_mb": 12 + 2 * i, "placement_gap_mb": (64 if scale[name] == 1.0 else 512) * i}
                                                            for i, (x, y) in enumerate(zip(xs, (0.9995, 1.0, 1.0005, 1.0)))]}})
            ev = {"task": "Activation/relu", "code": "e" * 40, "stage_seconds": {"evaluation": 1.0},
                  "evidence": {"perf": {"geomean_speedup": g, "flags": [], "geomean_speedup_per_process": per,
                                        "nvml_before": {"uuid": "GPU-aaaa"}}}, "timings": timings}
            return fixture_db.write(path, [{"device": "cuda", "provenance": {"devices": [{"name": "Test GPU"}]}, "evaluations": [ev]}])

        runs = [{"rc": 0, "wall": 10.0, "correct_wall": 2.0, "first": "kbx", "db": f"run-{r}.sqlite"} for r in (0, 1)]
        with tempfile.TemporaryDirectory() as out:
            h = db(os.path.join(out, "run-0.sqlite"), 1.0, {"tight": 1.0, "loose": 1.0, "small": 1.0, "outlier": 1.0})["e" * 40][:12]
            db(os.path.join(out, "run-1.sqlite"), 0.98, {"tight": 1.02, "loose": 1.02, "small": 1.005, "outlier": 1.02})
            md = self.report(out, runs)
        section = md.split("## Run-level shifts")[1].split("\n## ")[0]
        self.assertIn("timed in at least two processes in both runs: 8; moved between the runs by more than 1 % and more "
                      "than 3 times their processes' sd (from four processes on without the one farthest from their "
                      "median): 2", section)
        self.assertIn(f"  - Activation/relu {h} tight candidate: 20.00 us in run 0, +1.98 % in run 1; processes' sd 0.10 %", section)
        self.assertIn(f"  - Activation/relu {h} outlier candidate: 20.01 us in run 0, +1.98 % in run 1; processes' sd 0.10 %", section)
        # Each process's median with the spacer and the gap it drew, so a level can be read against them.
        self.assertIn("    - processes: run 0: 19.98 (spacer 12, gap 0), 20.00 (spacer 14, gap 64), 20.02 (spacer 16, gap 128); "
                      "run 1: 20.38 (spacer 12, gap 0), 20.40 (spacer 14, gap 512), 20.42 (spacer 16, gap 1024)", section)
        self.assertNotIn("loose", section)
        self.assertNotIn("small", section)
        self.assertNotIn("eager:", section)
        self.assertIn(f"- Activation/relu {h}: run 0 1.000 [0.995, 1.005], run 1 0.980; causes: none; "
                      "run-level shift: outlier candidate +2.0 %, tight candidate +2.0 %", md)

    def experiment_report(self, field, draws, high, same_draw_shape=None):
        """The report of a repeat pair whose processes drew `field` (draws: per run, per process):
        shape "two_level", its candidate at 21 us where high(draw) and 20 us elsewhere, its eager side
        2 % apart by process order; "quiet", within 0.2 %; and same_draw_shape, if named, like "quiet"
        with every process at draw 0. Returns (the report, the kernel's short hash)."""
        def db(path, run):
            timings = []
            for name in ("two_level", "quiet") + ((same_draw_shape,) if same_draw_shape else ()):
                per = []
                for i, d in enumerate(draws[run]):
                    c = (0.021 if high(d) else 0.020) if name == "two_level" else 0.020 * (1 + 0.001 * i)
                    e = 0.030 * (1 + 0.01 * ((i + run) % 3)) if name == "two_level" else 0.030
                    per.append({"candidate_ms": c, "reference_ms": e, "placement_offset_mb": 20,
                                field: 0 if name == same_draw_shape else d})
                timings.append({"shape": name, "candidate_ms": 0.0205, "baseline_ms": 0.030, "samples": {"per_process": per}})
            g = {"estimate": 1.46, "lo": 1.40, "hi": 1.52, "interval": "repeat", "processes": 3, "prior_rel": 0.0065, "prior_df": 4}
            ev = {"task": "Activation/relu", "code": "f" * 40, "stage_seconds": {"evaluation": 1.0}, "timings": timings,
                  "evidence": {"perf": {"geomean_speedup": g, "flags": [], "geomean_speedup_per_process": [iv(1.46, 1.45, 1.47)] * 3,
                                        "nvml_before": {"uuid": "GPU-aaaa"}}}}
            return fixture_db.write(path, [{"device": "cuda", "provenance": {"devices": [{"name": "Test GPU"}]}, "evaluations": [ev]}])

        runs = [{"rc": 0, "wall": 10.0, "correct_wall": 2.0, "first": "kbx", "db": f"run-{r}.sqlite"} for r in (0, 1)]
        with tempfile.TemporaryDirectory() as out:
            h = db(os.path.join(out, "run-0.sqlite"), 0)["f" * 40][:12]
            db(os.path.join(out, "run-1.sqlite"), 1)
            return self.report(out, runs), h

    def test_with_the_placement_experiment_the_spread_sides_are_read_against_the_gap(self):
        # Shape "two_level": the candidate's processes sit at 20 us with no gap and at 21 us with a
        # gap of 64 MiB or more, in both runs (follows the gap: Spearman 0.93 by hand, ties at their mean rank). Its eager side
        # spreads 2 % too, but by process order, not by gap. Shape "quiet": within 0.2 %, not listed.
        gaps = ([0, 128, 0], [512, 0, 64])
        md, h = self.experiment_report("placement_gap_mb", gaps, lambda g: g >= 64)
        section = md.split("## Placement gap")[1].split("\n## ")[0]
        self.assertIn("shape sides whose processes drew a gap (both runs): 4; their processes more than 1 % apart: 2; of these, "
                      "time rank-correlated with the gap (|Spearman| >= 0.7, at least 4 processes): 1", section)
        self.assertIn(f"  - Activation/relu {h} two_level candidate: processes 4.9 % apart, Spearman +0.93; by gap (MiB: us): "
                      "0: 20.00, 0: 20.00, 0: 20.00, 64: 21.00, 128: 21.00, 512: 21.00", section)
        self.assertIn(f"two_level eager: processes 2.0 % apart, Spearman", section)
        self.assertNotIn("quiet", section)

    def test_with_the_history_flip_the_sides_that_split_by_the_bit_are_listed(self):
        # Shape "two_level": the candidate's processes at 20 us with bit 0 and 21 us with bit 1 in both
        # runs (split); its eager side 2 % apart by process order, not by bit (the ranges overlap).
        # Shape "quiet": within 0.2 %. Shape "one_bit": every process drew 0 (not compared).
        bits = ([0, 1, 0], [1, 0, 1])
        md, h = self.experiment_report("history_flip", bits, lambda b: b == 1, same_draw_shape="one_bit")
        section = md.split("## History flip")[1].split("\n## ")[0]
        self.assertIn("shape sides timed by processes of both bits (both runs): 4; split by the bit (ranges apart, medians more "
                      "than 1 % apart): 1", section)
        self.assertIn(f"  - Activation/relu {h} two_level candidate: bit 1 +4.88 % against bit 0; bit 0: 20.00, 20.00, 20.00; "
                      "bit 1: 21.00, 21.00, 21.00", section)
        self.assertNotIn("eager", section)
        self.assertNotIn("quiet", section)
        self.assertNotIn("one_bit", section)
        self.assertNotIn("two_level candidate: 20", md.split("## Run-level shifts")[1].split("\n## ")[0])  # the bit, not the run
        sys.path.insert(0, BENCH)
        import perf_repeat  # each process's bit beside its median where run-level shifts are listed
        self.assertEqual(perf_repeat.process_placements({"per_process": [{"candidate_ms": 0.021, "placement_offset_mb": 20,
                                                                          "history_flip": 1}]}, "candidate"),
                         ["21.00 (spacer 20, flip 1)"])
        # Without the experiment there is no such section.
        self.assertNotIn("## History flip", self.plain_report())

    def plain_report(self):
        k = {("Math/abs", "a" * 40): (iv(1.000, 0.990, 1.010), [])}
        with tempfile.TemporaryDirectory() as out:
            make_db(os.path.join(out, "run-0.sqlite"), k)
            make_db(os.path.join(out, "run-1.sqlite"), k)
            runs = [{"rc": 0, "wall": 10.0, "correct_wall": 2.0, "first": "", "db": f"run-{r}.sqlite"} for r in (0, 1)]
            return self.report(out, runs)

    def test_spearman_uses_average_ranks_and_is_none_for_a_constant(self):
        sys.path.insert(0, BENCH)
        import perf_repeat
        self.assertEqual(perf_repeat.ranks([3, 1, 3, 2]), [3.5, 1.0, 3.5, 2.0])
        self.assertAlmostEqual(perf_repeat.spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1.0)
        self.assertAlmostEqual(perf_repeat.spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1.0)
        self.assertIsNone(perf_repeat.spearman([1, 1, 1], [1, 2, 3]))

    def test_a_repeat_on_another_gpu_says_so(self):
        k = {("Math/abs", "a" * 40): (iv(1.000, 0.990, 1.010), [])}
        with tempfile.TemporaryDirectory() as out:
            make_db(os.path.join(out, "run-0.sqlite"), k, gpu="GPU-f880")
            make_db(os.path.join(out, "run-1.sqlite"), k, gpu="GPU-7fbb")
            runs = [{"rc": 0, "wall": 10.0, "correct_wall": 2.0, "first": "", "db": f"run-{r}.sqlite"} for r in (0, 1)]
            md = self.report(out, runs)
        self.assertIn("- GPUs (NVML uuid of the perf workers): run 0 GPU-f880; run 1 GPU-7fbb", md)
        self.assertIn("**a cross-machine repeat: the runs were timed on different GPUs.**", md)
        self.assertIn("## CI coverage (across GPUs)", md)
        self.assertIn("### run 0 and run 1 (on another GPU)", md)

    def test_each_runs_host_cpu_is_named_and_an_older_database_says_not_recorded(self):
        k = {("Math/abs", "a" * 40): (iv(1.000, 0.990, 1.010), [])}
        with tempfile.TemporaryDirectory() as out:
            make_db(os.path.join(out, "run-0.sqlite"), k, host_cpu={"model": "AMD EPYC 9654", "cores": 16, "mem_available_gib": 125.3})
            make_db(os.path.join(out, "run-1.sqlite"), k)
            runs = [{"rc": 0, "wall": 10.0, "correct_wall": 2.0, "first": "", "db": f"run-{r}.sqlite"} for r in (0, 1)]
            md = self.report(out, runs)
        self.assertIn("run 0 AMD EPYC 9654, 16 core(s), 125.3 GiB available; run 1 not recorded", md)


class ParityBalance(unittest.TestCase):
    """The parity-balance experiment's section: the same processes read by the plain medians and by
    the four-group medians (per_process[].parity_balance), spread and coverage side by side."""

    @staticmethod
    def pair(plain_candidate):
        """One kernel, one 10 us shape, three processes per run: the plain candidate medians given per
        run (eager 12 us), the four-group ones at 10.3 us in both runs (within 0.1 %)."""
        from types import SimpleNamespace
        s, k = [], []
        for run in (0, 1):
            per = []
            for i, c in enumerate(plain_candidate[run]):
                b = 0.0103 * (1 + 0.0005 * i)
                per.append({"candidate_ms": c, "reference_ms": 0.012, "speedup": iv(0.012 / c, 0.0119 / c, 0.0121 / c),
                            "parity_balance": {"candidate_ms": b, "reference_ms": 0.012, "speedup": 0.012 / b}})
            key = ("Math/floor", "e" * 40)
            s.append({key + ("1M_f32",): (0.0103, 0.012, {"per_process": per})})
            g = [iv(p["speedup"]["estimate"], p["speedup"]["estimate"] * 0.998, p["speedup"]["estimate"] * 1.002) for p in per]
            k.append({key: {"geomean_speedup": {"prior_rel": 0.0065, "prior_df": 4}, "geomean_speedup_per_process": g}})
        return SimpleNamespace(s0=s[0], s1=s[1], k0=k[0], k1=k[1])

    def lines(self, pair):
        sys.path.insert(0, BENCH)
        import perf_experiments
        import perf_repeat
        return perf_experiments.parity_lines(pair, perf_repeat.repeat_interval, perf_repeat.shape_spread_variance, perf_repeat.dist)

    def test_a_run_level_shift_the_four_groups_average_away(self):
        # Run 0's processes all at the low level (10.0 us), run 1's all at the high one (10.6 us).
        L = self.lines(self.pair(([0.0100, 0.01001, 0.00999], [0.0106, 0.01061, 0.01059])))
        text = "\n".join(L)
        self.assertIn("| plain | candidate | - | 5.83 % / 5.83 % / 5.83 % (n=1) |", text)
        self.assertIn("| four groups | candidate | - | 0.00 % / 0.00 % / 0.00 % (n=1) |", text)
        self.assertIn("| plain | eager | - | 0.00 % / 0.00 % / 0.00 % (n=1) |", text)
        self.assertIn("| plain | 0/1 | 0/1 |", text)
        self.assertIn("| four groups | 1/1 | 1/1 |", text)
        self.assertIn("kernels with both in every process of both runs: 1", text)

    def test_under_parity_balance_2_the_plain_figures_come_from_plain(self):
        # The process's own figures are then the aligned samples' (at the four-group level); the
        # plain medians are under "plain": the same table as under 1.
        pair = self.pair(([0.0100, 0.01001, 0.00999], [0.0106, 0.01061, 0.01059]))
        for s in (pair.s0, pair.s1):
            for p in next(iter(s.values()))[2]["per_process"]:
                p["plain"] = {"candidate_ms": p["candidate_ms"], "reference_ms": p["reference_ms"], "speedup": p["speedup"]["estimate"]}
                p["candidate_ms"] = p["parity_balance"]["candidate_ms"]
                p["speedup"] = iv(p["parity_balance"]["speedup"], p["parity_balance"]["speedup"] * 0.99, p["parity_balance"]["speedup"] * 1.01)
        text = "\n".join(self.lines(pair))
        self.assertIn("| plain | candidate | - | 5.83 % / 5.83 % / 5.83 % (n=1) |", text)
        self.assertIn("| four groups | candidate | - | 0.00 % / 0.00 % / 0.00 % (n=1) |", text)

    def test_without_the_estimate_in_every_process_there_is_no_section(self):
        pair = self.pair(([0.0100] * 3, [0.0100] * 3))
        self.assertTrue(self.lines(pair))
        del next(iter(pair.s1.values()))[2]["per_process"][1]["parity_balance"]
        self.assertEqual(self.lines(pair), [])
        self.assertNotIn("## Parity balance", PerfRepeatReport("plain_report").plain_report())


class CrossMachine(unittest.TestCase):
    def setUp(self):
        sys.path.insert(0, BENCH)
        import perf_repeat
        self.pr = perf_repeat

    def test_a_run_on_another_gpu_is_warned_before_it_starts(self):
        w = self.pr.cross_machine_warning(["GPU-aaaa"], ["GPU-bbbb"], 1)
        self.assertIn("run 0 ran on GPU-aaaa, this machine has GPU-bbbb: run 1 makes a cross-machine repeat", w)
        self.assertIsNone(self.pr.cross_machine_warning(["GPU-aaaa"], ["GPU-bbbb", "GPU-aaaa"], 1))
        self.assertIsNone(self.pr.cross_machine_warning([], ["GPU-bbbb"], 1))   # run 0 recorded none
        self.assertIsNone(self.pr.cross_machine_warning(["GPU-aaaa"], [], 1))   # no nvidia-smi here

    def test_a_run_that_would_end_after_the_deadline_is_not_started(self):
        refuse = self.pr.start_refusal
        now = 1000.0
        # no deadline, or no estimate before any run: it starts
        self.assertIsNone(refuse(0, [], 500, 0, now))
        self.assertIsNone(refuse(0, [], 0, now + 100, now))
        # the first run by --run-estimate (plus 10 %)
        self.assertIsNone(refuse(0, [], 400, now + 450, now))
        why = refuse(0, [], 440, now + 454, now)
        self.assertIn("run 0: not started (deadline): about 484 s needed (--run-estimate plus 10 %), 454 s left", why)
        # later runs by the longest run made so far, not by the estimate
        made = [{"wall": 433.0}, None, {"wall": 300.0}]
        self.assertIsNone(refuse(1, made, 9999, now + 480, now))
        self.assertIn("the longest run so far", refuse(1, made, 0, now + 470, now))

    def test_a_refused_run_exits_3_and_keeps_runs_json(self):
        with tempfile.TemporaryDirectory() as d:
            meta = os.path.join(d, "runs.json")
            with open(meta, "w") as f:
                json.dump([{"wall": 433.0, "rc": 0}], f)
            p = subprocess.run([sys.executable, os.path.join(BENCH, "perf_repeat.py"), "v.jsonl", "--out", d, "--kbx", "/bin/false",
                                "--run", "1", "--runs", "2", "--deadline", str(time.time() + 200)],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertIn("run 1: not started (deadline)", p.stderr)
            with open(meta) as f:
                self.assertEqual(json.load(f), [{"wall": 433.0, "rc": 0}])
            self.assertEqual(sorted(os.listdir(d)), ["runs.json"])

    def test_the_gpus_come_from_nvidia_smi(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "nvidia-smi")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho GPU-1111\necho GPU-2222\n")
            os.chmod(fake, 0o755)
            old = os.environ["PATH"]
            os.environ["PATH"] = d + os.pathsep + old
            try:
                self.assertEqual(self.pr.gpu_uuids(), ["GPU-1111", "GPU-2222"])
            finally:
                os.environ["PATH"] = old
        os.environ["PATH"], saved = "/nonexistent", os.environ["PATH"]
        try:
            self.assertEqual(self.pr.gpu_uuids(), [])
        finally:
            os.environ["PATH"] = saved


if __name__ == "__main__":
    unittest.main()
