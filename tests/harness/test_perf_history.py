# SPDX-License-Identifier: MIT
"""The history-flip experiment (perf config history_flip, off by default; kbx_harness.history), on
the CPU: the fresh copies keep every tensor's values, sizes, strides, offset, dtype, grad flag and
sharing but not its storage; on bit 1 the extra kernels are odd in all; off, or not on cuda, nothing
happens; a perf run asks for it per shape and stores the bit with its timings. Run by ctest
(harness.perf_history):
    test_perf_history.py TASKS_DIR HARNESS_DIR
"""
import pathlib
import random
import sys
import unittest
from unittest import mock

import torch

TASKS = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("tasks")
sys.path.insert(0, sys.argv[2] if len(sys.argv) > 2 else "tasks/worker/python")

from kbx_harness import history, perf  # noqa: E402


def ptr(t):
    return t.untyped_storage().data_ptr()


class FreshCopies(unittest.TestCase):
    def test_values_layout_and_sharing_are_kept_storages_are_new(self):
        base = torch.arange(24.0).reshape(4, 6)
        view = base[1:, ::2]  # offset 6, strides (6, 2)
        p = torch.nn.Parameter(torch.ones(5))
        ints = torch.arange(7, dtype=torch.int64)
        sets = [((base, view, [p, 3], "text"), {"w": ints, "lr": 0.1}), ((base,), {"n": None})]
        before = [(t, ptr(t)) for t in (base, view, p, ints)]
        made = history.fresh_copies(sets)
        self.assertEqual(made, 3)  # base's storage (shared by the view and set 1), p's, ints'
        (b, v, (q, three), text), kw = sets[0]
        for new, (old, old_ptr) in zip((b, v, q, kw["w"]), before):
            self.assertTrue(torch.equal(new, old))
            self.assertEqual((new.shape, new.stride(), new.storage_offset(), new.dtype),
                             (old.shape, old.stride(), old.storage_offset(), old.dtype))
            self.assertNotEqual(ptr(new), old_ptr)
        self.assertEqual(ptr(v), ptr(b))  # the view still views the copy of its base
        self.assertEqual(ptr(sets[1][0][0]), ptr(b))  # set 1's base too: shared across the sets
        self.assertIs(type(q), torch.nn.Parameter)
        self.assertTrue(q.requires_grad)
        self.assertEqual((three, text, kw["lr"], sets[1][1]), (3, "text", 0.1, {"n": None}))
        b[0, 0] = 100.0  # the copy is its own memory
        self.assertEqual(base[0, 0].item(), 0.0)

    def test_an_expanded_tensor_keeps_its_zero_stride(self):
        e = torch.arange(3.0).reshape(3, 1).expand(3, 4)
        sets = [((e,), {})]
        self.assertEqual(history.fresh_copies(sets), 1)
        n = sets[0][0][0]
        self.assertEqual(n.stride(), (1, 0))
        self.assertTrue(torch.equal(n, e))


class Flip(unittest.TestCase):
    def flip(self, device, on, sets, bit):
        spins = []
        with mock.patch.object(history.torch.cuda, "_sleep", lambda cycles: spins.append(cycles)):
            return history.history_flip(device, on, sets, bit), spins

    def test_off_or_on_the_cpu_nothing_happens(self):
        x = torch.ones(3)
        for device, on in (("cuda", False), ("cpu", True)):
            sets = [((x,), {})]
            self.assertEqual(self.flip(device, on, sets, 1), (None, []))
            self.assertIs(sets[0][0][0], x)

    def test_bit_0_keeps_the_inputs_and_launches_nothing(self):
        x = torch.ones(3)
        sets = [((x,), {})]
        self.assertEqual(self.flip("cuda", True, sets, 0), (0, []))
        self.assertIs(sets[0][0][0], x)

    def test_bit_1_makes_the_extra_kernels_odd(self):
        one = [((torch.ones(3),), {})]  # one copy: odd already
        self.assertEqual(self.flip("cuda", True, one, 1), (1, []))
        two = [((torch.ones(3), torch.zeros(2)), {})]  # two copies: one spin kernel more
        bit, spins = self.flip("cuda", True, two, 1)
        self.assertEqual((bit, len(spins)), (1, 1))

    def test_the_bit_is_drawn_when_not_given(self):
        bits = {self.flip("cuda", True, [((torch.ones(1),), {})], None)[0] for _ in range(64)}
        self.assertEqual(bits, {0, 1})


def relu_worker(cfg, shape):
    """A CPU perf worker for Activation/relu set up to time `shape` with `cfg`, its reference on both sides."""
    task_id = "Activation/relu"
    w = perf._PerfRun({"task_file": str(TASKS / (task_id + ".py")), "task_id": task_id, "device": "cpu", "seed": 7, "config": cfg})
    w.start()
    w.setup()
    w.shapes, w.sets = [shape], perf.perf_input_sets(w.task, task_id, [shape], "cpu", cfg["rotations"])
    w.fn = w.ref = w.task.reference
    w.extra, w.baseline_errors, w.rng = {}, {}, random.Random(3)
    return w


class PerfRun(unittest.TestCase):
    def test_the_worker_flips_per_shape_before_the_warm_up_and_stores_the_bit(self):
        cfg = {"rotations": 2, "min_reps": 4, "max_reps": 4, "block": 2, "max_seconds": 30, "max_warmup": 2,
               "shapes": ["__none__"], "history_flip": 1}
        shape = {"name": "small", "params": {"shape": [32, 32], "dtype": "float32"}}
        w = relu_worker(cfg, shape)
        old = [(t.clone(), ptr(t)) for a, _ in w.sets["small"] for t in a if isinstance(t, torch.Tensor)]
        asked = []
        real = history.history_flip

        def spy(device, on, sets):  # as on a GPU, with bit 1
            asked.append((device, on, sets is w.sets["small"]))
            with mock.patch.object(history.torch.cuda, "_sleep", lambda cycles: None):
                return real("cuda", on, sets, 1)
        with mock.patch.object(perf, "history_flip", spy):
            res = w.time_shape(shape)
        self.assertNotIn("error", res, res)
        self.assertEqual(asked, [("cpu", True, True)])
        self.assertEqual(res["history_flip"], 1)
        new = [t for a, _ in w.sets["small"] for t in a if isinstance(t, torch.Tensor)]
        self.assertEqual(len(new), len(old))
        for t, (values, p) in zip(new, old):
            self.assertTrue(torch.equal(t, values))
            self.assertNotEqual(ptr(t), p)

    def test_without_the_key_nothing_is_stored(self):
        cfg = {"rotations": 1, "min_reps": 2, "max_reps": 2, "block": 2, "max_warmup": 1, "shapes": ["__none__"]}
        shape = {"name": "small", "params": {"shape": [8], "dtype": "float32"}}
        w = relu_worker(cfg, shape)
        res = w.time_shape(shape)
        self.assertNotIn("error", res, res)
        self.assertNotIn("history_flip", res)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
