# SPDX-License-Identifier: MIT
"""Where a perf process puts its memory (kbx_harness.perf placement_offset, placement_gap), on the CPU.

The gap (perf config placement_gap_mb, an experiment, off by default) is a CUDA allocation; here the
device's calls are replaced by recorders, so the draw, its bounds and its order (the allocator's
cache released first) are checked without a GPU, and a CPU perf run shows that the worker asks for
it per shape with the configured size and stores nothing on the CPU. Run by ctest
(harness.perf_placement):
    test_perf_placement.py TASKS_DIR HARNESS_DIR
"""
import pathlib
import random
import sys
import unittest
from unittest import mock

import torch

TASKS = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("tasks")
sys.path.insert(0, sys.argv[2] if len(sys.argv) > 2 else "tasks/worker/python")

from kbx_harness import perf  # noqa: E402

MiB = 1 << 20
REAL_EMPTY = torch.empty


class FakeCuda:
    """torch.cuda.empty_cache and torch.empty on "cuda", recorded in order."""

    def __init__(self):
        self.calls = []

    def empty_cache(self):
        self.calls.append(("empty_cache",))

    def empty(self, n, dtype=None, device=None):
        self.calls.append(("empty", n, device))
        return REAL_EMPTY(0, dtype=dtype)  # the size is what is checked, not the memory


def draw(max_mb, free_bytes, urandom=None):
    fake = FakeCuda()
    with mock.patch.object(perf.torch.cuda, "empty_cache", fake.empty_cache), \
         mock.patch.object(perf.torch, "empty", fake.empty), \
         mock.patch.object(perf.os, "urandom", urandom or perf.os.urandom):
        hold, mb = perf.placement_gap("cuda", max_mb, free_bytes)
    return hold, mb, fake.calls


class Gap(unittest.TestCase):
    def test_off_and_on_the_cpu_nothing_is_allocated(self):
        for device, max_mb in (("cuda", 0), ("cpu", 512), ("cuda", -4)):
            fake = FakeCuda()
            with mock.patch.object(perf.torch.cuda, "empty_cache", fake.empty_cache), mock.patch.object(perf.torch, "empty", fake.empty):
                self.assertEqual(perf.placement_gap(device, max_mb, 1 << 40), (None, 0))
            self.assertEqual(fake.calls, [], (device, max_mb))

    def test_a_draw_is_even_within_the_range_and_made_after_the_cache_is_released(self):
        seen = []
        for _ in range(2000):
            hold, mb, calls = draw(64, 1 << 40)
            self.assertEqual(mb % 2, 0)
            self.assertTrue(2 <= mb <= 64, mb)
            self.assertEqual(calls, [("empty_cache",), ("empty", mb * MiB, "cuda")])
            self.assertIsNotNone(hold)
            seen.append(mb)
        # Uniform on a log scale: half the draws lie below the range's geometric middle (sqrt(2 * 64)
        # = 11.3 MiB); a draw uniform in MiB would put 6 of 33 values (18 %) there. 2000 draws: the
        # share's sd is 1.1 %, so 40..60 % fails only for another distribution.
        below = sum(mb <= 11 for mb in seen) / len(seen)
        self.assertTrue(0.40 <= below <= 0.60, below)
        self.assertIn(2, seen)
        self.assertTrue(any(mb >= 48 for mb in seen), sorted(set(seen)))

    def test_the_ends_of_the_range_come_from_the_random_bytes(self):
        def u(x):
            return lambda n: x.to_bytes(n, "little")
        self.assertEqual(draw(64, 1 << 40, u(0))[1], 2)
        self.assertEqual(draw(64, 1 << 40, u(0xFFFFFFFF))[1], 64)
        self.assertEqual(draw(64, 1 << 40, u(0x80000000))[1], 12)  # 2 * round(32 ** 0.5)
        self.assertEqual(draw(63, 1 << 40, u(0xFFFFFFFF))[1], 62)  # never above the range
        self.assertEqual(draw(2, 1 << 40, u(0x12345678))[1], 2)

    def test_a_gap_takes_at_most_a_quarter_of_the_free_memory(self):
        _, mb, calls = draw(4096, 100 * MiB, lambda n: (0xFFFFFFFF).to_bytes(n, "little"))
        self.assertEqual(mb, 24)  # a quarter of 100 MiB is 25, rounded down to 2 MiB steps
        self.assertEqual(calls[-1], ("empty", 24 * MiB, "cuda"))
        self.assertEqual(draw(4096, MiB, lambda n: (7).to_bytes(n, "little"))[1], 0)


class PerfRun(unittest.TestCase):
    def run_shape(self, gap_mb):
        task_id = "Activation/relu"
        cfg = {"rotations": 2, "min_reps": 4, "max_reps": 4, "block": 2, "max_seconds": 30, "max_warmup": 2,
               "shapes": ["__none__"]}
        if gap_mb is not None:
            cfg["placement_gap_mb"] = gap_mb
        w = perf._PerfRun({"task_file": str(TASKS / (task_id + ".py")), "task_id": task_id, "device": "cpu",
                           "seed": 7, "config": cfg})
        w.start()
        w.setup()
        shape = {"name": "small", "params": {"shape": [32, 32], "dtype": "float32"}}
        w.shapes, w.sets = [shape], perf.perf_input_sets(w.task, task_id, [shape], "cpu", 2)
        w.fn = w.ref = w.task.reference
        w.extra, w.baseline_errors, w.rng = {}, {}, random.Random(3)
        asked = []
        real = perf.placement_gap

        def spy(device, max_mb, free_bytes=None):
            asked.append((device, max_mb))
            return real(device, max_mb, free_bytes)
        with mock.patch.object(perf, "placement_gap", spy):
            res = w.time_shape(shape)
        self.assertNotIn("error", res, res)
        return res, asked

    def test_the_worker_asks_for_the_configured_gap_per_shape_and_stores_none_on_the_cpu(self):
        res, asked = self.run_shape(256)
        self.assertEqual(asked, [("cpu", 256)])
        self.assertNotIn("placement_gap_mb", res)
        self.assertEqual(res["placement_offset_mb"], 0)

    def test_without_the_key_the_fallback_is_off(self):
        res, asked = self.run_shape(None)
        self.assertEqual(asked, [("cpu", 0)])
        self.assertNotIn("placement_gap_mb", res)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
