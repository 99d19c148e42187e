#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/gpu_runs.py gputests: the parts of --part K/N cover every selected gpu test once, in ctest's
order, and the suites other subcommands run in full are left out of the selection; check --after goes
on with what cut listings did not finish ok."""
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


class TasksLeft(unittest.TestCase):
    def test_a_cut_check_goes_on_with_what_no_listing_shows_ok(self):
        with tempfile.TemporaryDirectory() as d:
            for cat, stems in {"Math": ["abs", "exp", "floor"], "Activation": ["relu"], "lib": ["common"]}.items():
                os.makedirs(os.path.join(d, "tasks", cat))
                for s in stems:
                    open(os.path.join(d, "tasks", cat, s + ".py"), "w").close()
            for cat, stems in {"Math": ["abs", "exp"], "Activation": ["relu"]}.items():
                os.makedirs(os.path.join(d, "good", cat), exist_ok=True)
                for s in stems:
                    open(os.path.join(d, "good", cat, s + ".py"), "w").close()
            first, second = os.path.join(d, "call1.txt"), os.path.join(d, "call2.txt")
            with open(first, "w") as f:  # cut: relu's known-good never ran, exp's failed
                f.write("[1/7] ok   reference   Math/abs                           \n"
                        "[2/7] ok   known-good  Math/abs                           \n"
                        "[3/7] ok   reference   Activation/relu                    \n"
                        "[4/7] FAIL known-good  Math/exp                           timed out\n")
            with open(second, "w") as f:
                f.write("[1/7] ok   reference   Math/exp                           \n"
                        "[2/7] ok   reference   Math/floor                         \n")
            left = lambda *ls: gpu_runs.tasks_left(list(ls), os.path.join(d, "tasks"), os.path.join(d, "good"))
            self.assertEqual(left(first), ["Activation/relu", "Math/exp", "Math/floor"])
            # floor has no known-good solution: its reference alone finishes it
            self.assertEqual(left(first, second), ["Activation/relu", "Math/exp"])


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




class StageAb(unittest.TestCase):
    """stage-ab: every variant's kbx eval is stopped once its correctness stage ended (its tail
    work included; not waited for through the perf stage), with the options given, and its stage's process-seconds summed by kind
    (the reference once per task)."""

    def test_each_run_stops_at_its_last_correctness_line_and_sums_its_processes(self):
        import argparse
        import time
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import fixture_db
        with tempfile.TemporaryDirectory() as out:
            template = os.path.join(out, "template.sqlite")
            fixture_db.write(template, [{"device": "cuda", "provenance": {"devices": [{"name": "Test GPU"}]}, "evaluations": [
                {"task": "Math/abs", "code": "a = 1", "evidence": {},
                 "stage_seconds": {"candidate": 2.0, "candidate_extended": 1.4, "reference": 2.0, "evaluation": 3.0, "precompile": 1.2,
                                   "contract_started_after": 4.5,
                                   "reference_phases": {"server_launch": 0.25, "server_hello": 1.0, "server_device": 0.5,
                                                        "draw_inputs": 0.2}}},
                {"task": "Math/abs", "code": "a = 2", "evidence": {},
                 "stage_seconds": {"candidate": 1.0, "autotune_sweep": 4.0, "reference": 3.0, "evaluation": 5.0,
                                   "contract_started_after": 0.3}}]}])
            fake = os.path.join(out, "kbx")
            with open(fake, "w") as f:
                f.write(f"#!{sys.executable}\n"
                        "import os, shutil, sys, time\n"
                        "db = sys.argv[sys.argv.index('--db') + 1]\n"
                        f"shutil.copy({template!r}, db)\n"
                        f"open({os.path.join(out, 'args.txt')!r}, 'a').write(os.environ.get('KBX_SANDBOX_NO_NAMESPACES', '-') + ' ' + ' '.join(sys.argv[1:]) + '\\n')\n"
                        "lines = ['kbx: evaluating 2 candidate(s) from v.jsonl on cuda', '[1/2] pass  Math/abs', '[2/2] pass  Math/abs']\n"
                        "if '--extended-start' in sys.argv:  # a kbx that says when its stage's tail work ended\n"
                        "    lines += ['kbx: correctness stage ended 7.5 s after the run began; timing the correct candidates']\n"
                        "for line in lines + ['[perf 1/2] ok   Math/abs']:\n"
                        "    print(line, file=sys.stderr, flush=True)\n"
                        "time.sleep(60)\n")
            os.chmod(fake, 0o755)
            a = argparse.Namespace(kbx=fake, versions=os.path.join(out, "v.jsonl"), device="cuda", jobs=0, gpus="", out=out,
                                   variants=["", "KBX_SANDBOX_NO_NAMESPACES=1 --extended-start early"])
            t0 = time.time()
            self.assertEqual(gpu_runs.cmd_stage_ab(a), 0)
            self.assertLess(time.time() - t0, 30, "a run was waited for past its last correctness line")
            with open(os.path.join(out, "args.txt")) as f:
                args = f.read().splitlines()
            self.assertEqual(len(args), 2)
            self.assertIn("--perf", args[0].split())
            self.assertTrue(args[1].endswith("--extended-start early"), args[1])
            # A leading NAME=VALUE word is the run's environment, not a kbx option.
            self.assertEqual(args[0].split()[0], "-")
            self.assertEqual(args[1].split()[0], "1")
            self.assertNotIn("KBX_SANDBOX_NO_NAMESPACES=1", args[1])
            with open(os.path.join(out, "stage-ab.md")) as f:
                md = f.read()
            self.assertIn("| stage's last process | s/kernel | contract | extended | sweep | precompile | reference | evaluation walls |", md)
            rows = [l for l in md.splitlines() if l.startswith("| 0 |") or l.startswith("| 1 |")]
            self.assertEqual(len(rows), 2, md)
            self.assertTrue(rows[0].startswith("| 0 | `(defaults)` |"), rows[0])
            self.assertTrue(rows[1].startswith("| 1 | `KBX_SANDBOX_NO_NAMESPACES=1 --extended-start early` |"), rows[1])
            # The longest wait for a reference, and the servers' start (once per task).
            self.assertIn("| longest wait for a reference | servers' launch | servers' start |", md)
            for r in rows:
                self.assertTrue(r.endswith("| 3 | 1 | 4 | 1 | 2 | 8 | 4.5 | 0.2 | 1.5 |"), r)
                self.assertNotIn("(cut)", r)
            # the first kbx printed no end line (stopped at its first perf line), the second did
            self.assertEqual(rows[0].split("|")[5].strip(), "-", rows[0])
            self.assertRegex(rows[1].split("|")[5].strip(), r"^\d+\.\d s$", rows[1])


class GpuTestsAcrossCalls(unittest.TestCase):
    # ctest's own lines, as gputests.txt holds them (one call ran a test that failed and one cut short)
    CALL1 = ("Test project /work/main/build-gpu\n"
             "    Start 59: gpu.Eval.SameSubmissionTwiceIsStoredOnceWithTwoEvaluations\n"
             "1/3 Test #59: gpu.Eval.SameSubmissionTwiceIsStoredOnceWithTwoEvaluations .............   Passed   28.68 sec\n"
             "    Start 60: gpu.Perf.SlowCallsNeedFewerPairsSoTheTimeCapHolds\n"
             "2/3 Test #60: gpu.Perf.SlowCallsNeedFewerPairsSoTheTimeCapHolds .......***Failed   97.89 sec\n"
             "[  FAILED  ] Perf.SlowCallsNeedFewerPairsSoTheTimeCapHolds (97890 ms)\n"
             "3/3 Test #61: gpu.Perf.TheTasksOwnSelfSpeedupIsTheNoiseBandForTies ...***Timeout 1800.05 sec\n")
    CALL2 = "1/1 Test #62: gpu.Perf.ProcessesThatDisagreeAreJoinedByMore ...   Passed  103.20 sec\n"

    def listings(self, d):
        paths = []
        for i, text in enumerate((self.CALL1, self.CALL2)):
            paths.append(os.path.join(d, f"call{i}.txt"))
            with open(paths[-1], "w") as f:
                f.write(text)
        return paths

    def test_only_tests_shown_passed_are_left_out_of_a_later_call(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(gpu_runs.passed_tests(self.listings(d)),
                             {"gpu.Eval.SameSubmissionTwiceIsStoredOnceWithTwoEvaluations",
                              "gpu.Perf.ProcessesThatDisagreeAreJoinedByMore"})

    def test_what_each_test_took_is_read_whatever_its_status(self):
        with tempfile.TemporaryDirectory() as d:
            took = gpu_runs.test_durations(self.listings(d))
        self.assertEqual(took, {"gpu.Eval.SameSubmissionTwiceIsStoredOnceWithTwoEvaluations": 28.68,
                                "gpu.Perf.SlowCallsNeedFewerPairsSoTheTimeCapHolds": 97.89,
                                "gpu.Perf.TheTasksOwnSelfSpeedupIsTheNoiseBandForTies": 1800.05,
                                "gpu.Perf.ProcessesThatDisagreeAreJoinedByMore": 103.2})

    def test_a_test_starts_only_if_it_is_expected_to_end_before_the_deadline(self):
        took = {"slow": 100.0}
        self.assertTrue(gpu_runs.fits("slow", took, 120, now=1000, deadline=1100))
        self.assertFalse(gpu_runs.fits("slow", took, 120, now=1000.5, deadline=1100))
        self.assertTrue(gpu_runs.fits("unknown", took, 120, now=1000, deadline=1120))
        self.assertFalse(gpu_runs.fits("unknown", took, 120, now=1000, deadline=1119))
        self.assertTrue(gpu_runs.fits("slow", took, 120, now=1e12, deadline=0))  # no deadline



class RepeatCommand(unittest.TestCase):
    def args(self, perf_config, time_limit=0, run_estimate=0):
        import argparse
        return argparse.Namespace(versions="v.jsonl", out="o", kbx="kbx", device="cuda", run=1, runs=2, time_limit=time_limit,
                                  run_estimate=run_estimate, perf_config=perf_config)

    def test_a_time_limit_becomes_the_deadline_with_the_run_estimate(self):
        import time
        cmd = gpu_runs.repeat_command(self.args("", time_limit=500, run_estimate=450))
        a, _ = gpu_runs.perf_repeat.parse_args(cmd[2:])
        self.assertAlmostEqual(a.deadline, time.time() + 500, delta=30)
        self.assertEqual(a.run_estimate, 450)
        # without a time limit there is no deadline, and the estimate is not passed
        a, _ = gpu_runs.perf_repeat.parse_args(gpu_runs.repeat_command(self.args("", run_estimate=450))[2:])
        self.assertEqual((a.deadline, a.run_estimate), (0, 0))

    def test_a_perf_config_reaches_kbx_eval_of_every_run(self):
        cfg = '{"placement_gap_mb": 1024}'
        cmd = gpu_runs.repeat_command(self.args(cfg))
        self.assertEqual(cmd[-3:], ["--", "--perf-config", cfg])
        # perf_repeat.py hands what follows -- to kbx eval as it is.
        a, extra = gpu_runs.perf_repeat.parse_args(cmd[2:])
        self.assertEqual((a.run, a.runs, a.out), (1, 2, "o"))
        self.assertEqual(extra, ["--perf-config", cfg])

    def test_without_one_the_runs_take_kbx_defaults(self):
        cmd = gpu_runs.repeat_command(self.args(""))
        self.assertNotIn("--", cmd)
        self.assertEqual(gpu_runs.perf_repeat.parse_args(cmd[2:])[1], [])


class HostLine(unittest.TestCase):
    """environment.txt's host line: the CPU model, usable cores and memory, or that they are not known."""

    def test_model_cores_and_memory_from_proc_files(self):
        with tempfile.TemporaryDirectory() as d:
            cpu, mem = os.path.join(d, "cpuinfo"), os.path.join(d, "meminfo")
            with open(cpu, "w") as f:
                f.write("processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t: fpu\n")
            with open(mem, "w") as f:
                f.write("MemTotal:       131072000 kB\nMemFree: 1 kB\n")
            line = gpu_runs.host_line(cpu, mem)
            self.assertTrue(line.startswith("Intel(R) Xeon(R) Platinum 8480+, "), line)
            self.assertTrue(line.endswith(" usable core(s), 125 GiB memory"), line)
            self.assertEqual(gpu_runs.host_line(os.path.join(d, "no"), os.path.join(d, "no")).split(", ")[0], "CPU model not known")


if __name__ == "__main__":
    unittest.main()
