#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/perf_bench.py's report header: the device, versions and source from the run's provenance,
and the GPU slots only where the run recorded them (a run spread with --gpus); a one-GPU run has none
and gets no empty "slots:" line; a run whose repeats ran on different cards names each other card."""
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


if __name__ == "__main__":
    unittest.main()
