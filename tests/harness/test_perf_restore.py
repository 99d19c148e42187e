# SPDX-License-Identifier: MIT
"""Inputs an in-place call modifies are put back before every timed call (kbx_harness.restore),
on the real task files and the CPU.

Without it the timer handed both sides whatever the previous calls had left: leaky_relu with
inplace=True scales the negative half by the slope on every call, so the data drifted towards zero
while it was timed (on the H200, 4.2 % between two runs with no other cause). Run by ctest
(cpu.harness.perf_restore):
    test_perf_restore.py TASKS_DIR HARNESS_DIR
"""
import pathlib
import sys
import unittest

import torch

TASKS = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("tasks")
sys.path.insert(0, sys.argv[2] if len(sys.argv) > 2 else "tasks/worker/python")

from kbx_harness import perf  # noqa: E402
from kbx_harness.restore import InputRestore  # noqa: E402

LEAKY = "Activation/leaky_relu"


def run_for(task_id, params, rotations=2):
    """A perf worker's state for one task on the CPU, set up as run() does up to the candidate."""
    req = {"task_file": str(TASKS / (task_id + ".py")), "task_id": task_id, "device": "cpu", "seed": 7,
           "config": {"rotations": rotations, "min_reps": 6, "max_reps": 6, "block": 3, "max_seconds": 30,
                      "max_warmup": 2, "shapes": ["__none__"]}}
    w = perf._PerfRun(req)
    w.start()
    w.setup()
    shape = {"name": "small_inplace", "params": params}
    w.shapes = [shape]
    w.sets = perf.perf_input_sets(w.task, task_id, [shape], "cpu", rotations)
    w.ref = w.task.reference
    w.extra, w.baseline_errors = {}, {}
    w.rng = __import__("random").Random(3)
    return w, shape


class Restore(unittest.TestCase):
    def test_every_timed_call_of_an_inplace_shape_sees_pristine_inputs(self):
        w, shape = run_for(LEAKY, {"shape": [64, 64], "dtype": "float32", "inplace": True})
        tensors = [a[0] for a, _ in w.sets[shape["name"]]]
        pristine = [t.clone() for t in tensors]
        seen = []  # (set k, its values pristine?) of every call on a set's own tensor

        def candidate(x, negative_slope=0.01, inplace=False):
            for k, t in enumerate(tensors):
                if x is t:
                    seen.append((k, torch.equal(x, pristine[k])))
            return torch.nn.functional.leaky_relu(x, negative_slope, inplace)
        w.fn = candidate
        res = w.time_shape(shape)
        self.assertNotIn("error", res, res)
        self.assertEqual(res["inputs_restored"]["restored"], True, res["inputs_restored"])
        self.assertEqual(res["inputs_restored"]["tensors"], [0])
        self.assertEqual(res["inputs_restored"]["bytes_per_call"], 64 * 64 * 4)
        self.assertIn((0, False), seen[:-res["reps"]], "the warm-up's calls did change the inputs")
        self.assertEqual(seen[-res["reps"]:], [(k % 2, True) for k in range(res["reps"])],
                         "each timed call got its set's pristine values, not what earlier calls left")
        self.assertTrue(res["recheck"]["ok"], res["recheck"])

    def test_without_a_restore_the_same_calls_drift(self):
        # The control: the same in-place calls on one set, nothing put back, do change what the
        # next call sees (so the test above can fail).
        w, shape = run_for(LEAKY, {"shape": [64, 64], "dtype": "float32", "inplace": True})
        (a, kw) = w.sets[shape["name"]][0]
        before = a[0].clone()
        w.task.reference(*a, **kw)
        w.task.reference(*a, **kw)
        self.assertFalse(torch.equal(a[0], before))

    def test_an_out_of_place_shape_restores_nothing(self):
        w, shape = run_for(LEAKY, {"shape": [64, 64], "dtype": "float32", "inplace": False})
        w.fn = w.task.reference
        res = w.time_shape(shape)
        self.assertNotIn("error", res, res)
        self.assertEqual(res["inputs_restored"], {"restored": False, "tensors": [], "bytes_per_call": 0})

    def test_an_optimizer_steps_parameters_in_place_and_they_are_restored(self):
        t = perf.load_task(str(TASKS / "Optimizer/SGD.py"), "Optimizer/SGD")
        s = t.META["perf_shapes"][0]
        sets = perf.perf_input_sets(t, "Optimizer/SGD", [s], "cpu", 2)[s["name"]]
        r = InputRestore(sets, 1 << 30)
        before = [[x.clone() for x in ts] for ts in r.sets]
        call = perf.timed_call(t)
        for k in range(2):
            call(t.reference, *sets[k])
        r.detect()
        self.assertTrue(r.mutated, "the step changed the parameters")
        for ts, bs in zip(r.sets, before):
            for x, b in zip(ts, bs):
                self.assertTrue(torch.equal(x, b))

    def test_nan_inputs_that_no_call_changes_are_not_taken_for_mutated(self):
        x = torch.tensor([1.0, float("nan"), -0.5])
        r = InputRestore([((x,), {})], 1 << 30)
        r.detect()
        self.assertEqual(r.mutated, [])

    def test_inputs_over_the_budget_are_not_copied_and_say_why(self):
        x = torch.zeros(1024)
        r = InputRestore([((x,), {})], 100)
        x.add_(1)
        r.detect()
        r.before_call(0)
        self.assertEqual(float(x[0]), 1.0)
        ev = r.evidence()
        self.assertFalse(ev["restored"])
        self.assertIn("exceed", ev["reason"])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
