#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/perf_bench.py's report header: the device, versions and source from the run's provenance,
and the GPU slots only where the run recorded them (a run spread with --gpus); a one-GPU run has none
and gets no empty "slots:" line; a run whose repeats ran on different cards names each other card; the
noise-floor section's range and the table that names which tasks it leaves out."""
import argparse
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import perf_bench  # noqa: E402

PROV = {"host": "gpu-host", "devices": [{"name": "NVIDIA H200", "uuid": "bee7"}],
        "versions": {"python": "3.12.3", "torch": "2.11.0", "cuda": "13.0", "triton": "3.6.0"}}


def args(**kw):
    a = dict(device="cuda", source="-", self_check_only=True, repeats=3, jobs=12, gpus="", tasks="")
    a.update(kw)
    return argparse.Namespace(**a)


class Header(unittest.TestCase):
    def test_a_one_gpu_run_names_its_device_and_no_slots(self):
        lines = perf_bench.header_lines(args(), PROV)
        text = "\n".join(lines)
        self.assertIn("- device: NVIDIA H200 (uuid bee7), host gpu-host", text)
        self.assertIn("torch 2.11.0, CUDA 13.0, triton 3.6.0", text)
        self.assertFalse([l for l in lines if l.startswith("- slots")], text)
        self.assertEqual(lines[-1], "")

    def test_a_run_over_gpu_slots_lists_each_slot_with_its_device(self):
        prov = dict(PROV, slots=[{"slot": "cuda:0", "devices": [{"name": "NVIDIA H200"}]},
                                 {"slot": "cuda:1", "devices": [{"name": "NVIDIA H100"}]}])
        lines = perf_bench.header_lines(args(gpus="0,1"), prov)
        self.assertIn("- slots: cuda:0: NVIDIA H200; cuda:1: NVIDIA H100", lines)
        self.assertIn("--gpus 0,1", "\n".join(lines))
        self.assertEqual(lines[-1], "")

    def test_repeats_on_another_card_name_that_card_and_the_same_card_is_not_repeated(self):
        other = dict(PROV, host="gpu-host-2", devices=[{"name": "NVIDIA H100 80GB HBM3", "uuid": "cafe"}])
        lines = perf_bench.header_lines(args(), PROV, [PROV, {}, other, PROV])  # run 1 not made
        self.assertEqual([l for l in lines if "another device" in l],
                         ["- run 2 on another device: NVIDIA H100 80GB HBM3 (uuid cafe), host gpu-host-2"])
        same = perf_bench.header_lines(args(), PROV, [PROV, PROV])
        self.assertEqual(same, perf_bench.header_lines(args(), PROV))
        self.assertEqual(lines[-1], "")


class SelfSpeedups(unittest.TestCase):
    def test_the_table_names_the_tasks_it_leaves_out_and_the_summary_gives_the_range(self):
        sp = {f"Math/t{i:02d}": [1 + i / 1000, 1 - 0.0004 * i] for i in range(12)}
        sp["Reduce/far"] = [1.03, 0.999]  # one value out of band
        lines = perf_bench.self_speedup_table(sp, 2, [100.0, 120.0])
        text = "\n".join(lines)
        self.assertIn("- 13 tasks x 2 runs: 25 of 26 self-speedups within [0.98, 1.02] (96.2%); range 0.996-1.030; "
                      "tasks within in every run: 12 of 13", text)
        self.assertIn("| task (the 10 of 13 furthest from 1) | self-speedups |", lines)
        rows = [l for l in lines if l.startswith("| Math/") or l.startswith("| Reduce/")]
        self.assertEqual(len(rows), 10)
        self.assertEqual(rows[0], "| Reduce/far | 1.030, 0.999 |")
        self.assertEqual(rows[1], "| Math/t11 | 1.011, 0.996 |")
        self.assertNotIn("Math/t00", text)  # the closest to 1 are the ones left out
        self.assertNotIn("Math/t01", text)

    def test_every_task_fits_and_the_heading_is_plain(self):
        lines = perf_bench.self_speedup_table({"Math/a": [0.999], "Math/b": [1.001]}, 1, [50.0])
        self.assertIn("| task | self-speedups |", lines)
        self.assertIn("range 0.999-1.001", "\n".join(lines))
        self.assertEqual(perf_bench.self_speedup_table({}, 3, [])[2],
                         "- 0 tasks x 3 runs: 0 of 0 self-speedups within [0.98, 1.02] (0.0%); tasks within in every run: 0 of 0")


if __name__ == "__main__":
    unittest.main()
