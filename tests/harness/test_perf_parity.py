# SPDX-License-Identifier: MIT
"""The parity balance (perf config parity_balance; kbx sends it, 2 on cuda by default; kbx_harness.parity), on
the CPU: the groups a pair gets; an extra kernel before every block after the first, on cuda only; a
perf run stores one group per clean sample, one to one with the samples, and none without the key.
Run by ctest (harness.perf_parity):
    test_perf_parity.py TASKS_DIR HARNESS_DIR
"""
import sys
import unittest
from unittest import mock

sys.path.insert(0, sys.argv[2] if len(sys.argv) > 2 else "tasks/worker/python")
sys.path.insert(0, __file__.rsplit("/", 1)[0])

from kbx_harness import parity, perf  # noqa: E402
from test_perf_history import relu_worker  # noqa: E402


class Groups(unittest.TestCase):
    def test_two_groups_sit_at_each_launch_parity_whatever_a_pair_launches(self):
        # A pair of L kernels, blocks of B pairs, one extra kernel before every block after the first:
        # pair j of block b starts at index b * (B * L + 1) + j * L (plus a constant).
        for launches in range(1, 7):
            for block in (3, 4, 10):
                at = {}
                for b in range(6):
                    for j in range(block):
                        at.setdefault(parity.group(b, j), set()).add((b * (block * launches + 1) + j * launches) % 2)
                self.assertEqual(sorted(at), [0, 1, 2, 3])
                self.assertTrue(all(len(p) == 1 for p in at.values()), (launches, block, at))  # one parity per group
                self.assertEqual(sorted(p.pop() for p in at.values()), [0, 0, 1, 1], (launches, block))

    def test_the_extra_kernel_runs_before_every_block_after_the_first_on_cuda_when_on(self):
        spins = []
        with mock.patch.object(parity.torch.cuda, "_sleep", lambda cycles: spins.append(cycles)):
            self.assertEqual([parity.extra_kernel("cuda", True, b) for b in range(3)], [False, True, True])
            self.assertFalse(parity.extra_kernel("cuda", False, 2))
            self.assertFalse(parity.extra_kernel("cpu", True, 2))
        self.assertEqual(len(spins), 2)


class PerfRun(unittest.TestCase):
    CFG = {"rotations": 2, "min_reps": 6, "max_reps": 9, "block": 3, "max_seconds": 30, "max_warmup": 2,
           "target_rel_ci": 1e-9, "shapes": ["__none__"]}
    SHAPE = {"name": "small", "params": {"shape": [32, 32], "dtype": "float32"}}

    def test_each_clean_sample_keeps_its_group(self):
        w = relu_worker({**self.CFG, "parity_balance": 1}, self.SHAPE)
        blocks = []
        real = parity.extra_kernel

        def spy(device, on, b):
            blocks.append((device, on, b))
            return real(device, on, b)
        with mock.patch.object(parity, "extra_kernel", spy):
            res = w.time_shape(self.SHAPE)
        self.assertNotIn("error", res, res)
        self.assertEqual(blocks, [("cpu", True, 0), ("cpu", True, 1), ("cpu", True, 2)])  # 9 pairs in blocks of 3
        groups = res["parity_groups"]
        for side in ("candidate", "reference"):
            self.assertEqual(len(groups[side]), len(res["samples_ms"][side]))
            self.assertEqual(groups[side], [0, 1, 0, 2, 3, 2, 0, 1, 0])

    def test_a_starved_sample_leaves_no_group_behind(self):
        w = relu_worker({**self.CFG, "parity_balance": 1}, self.SHAPE)
        calls = {"n": 0}

        def starved(gap, side, ev):  # every fourth candidate sample, as if the host held it up
            if side != "candidate":
                return False
            calls["n"] += 1
            return calls["n"] % 4 == 0
        with mock.patch.object(perf.LaunchGap, "starved", starved):
            res = w.time_shape(self.SHAPE)
        self.assertNotIn("error", res, res)
        self.assertEqual(res["starved"]["candidate"], 2)
        self.assertEqual(res["parity_groups"]["candidate"], [0, 1, 0, 3, 2, 0, 0])  # pairs 3 and 7 dropped
        self.assertEqual(len(res["parity_groups"]["reference"]), 9)

    def test_a_shape_that_converges_in_one_block_still_gets_two(self):
        # min_reps = block = 3 and a target any median meets: one block without the key, two with it,
        # so that every group has samples. (Any: a CPU sample held up by the host can be 20x the median, so
        # a target of 10 (a CI 20 medians wide) was missed now and then under ctest -j2, giving 9 reps.)
        cfg = {**self.CFG, "min_reps": 3, "target_rel_ci": 1e12}
        self.assertEqual(relu_worker(dict(cfg), self.SHAPE).time_shape(self.SHAPE)["reps"], 3)
        res = relu_worker({**cfg, "parity_balance": 1}, self.SHAPE).time_shape(self.SHAPE)
        self.assertEqual(res["reps"], 6)
        self.assertEqual(sorted(set(res["parity_groups"]["candidate"])), [0, 1, 2, 3])

    def test_without_the_key_nothing_is_stored(self):
        res = relu_worker(dict(self.CFG), self.SHAPE).time_shape(self.SHAPE)
        self.assertNotIn("error", res, res)
        self.assertNotIn("parity_groups", res)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
