# SPDX-License-Identifier: MIT
"""What the perf stage times (kbx_harness.perf.timed_call), on the real task files.

A task's drive() either *is* the call (the optimizers: build, then step; they say so with
perf_drive) or calls the entry and then verifies its result in float64 (dropout statistics,
factorisation identities), which must not be timed. Run by ctest (cpu.harness.perf_timed_call):
    test_perf_timed_call.py TASKS_DIR HARNESS_DIR
"""
import pathlib
import sys
import unittest

TASKS = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("tasks")
sys.path.insert(0, sys.argv[2] if len(sys.argv) > 2 else "tasks/worker/python")

from kbx_harness.common import call_entry, load_task  # noqa: E402
from kbx_harness.inputs import InputGen, derive_seed  # noqa: E402
from kbx_harness.perf import timed_call  # noqa: E402


def task(task_id):
    return load_task(str(TASKS / (task_id + ".py")), task_id)


def tasks_with_drive():
    out = []
    for p in sorted(TASKS.glob("*/*.py")):
        tid = f"{p.parent.name}/{p.stem}"
        if "\ndef drive(" in p.read_text():
            out.append(tid)
    return out


class TimedCall(unittest.TestCase):
    def test_a_verifying_drive_is_not_timed(self):
        t = task("Fusion/fused_hardshrink_dropout")
        calls = []

        def fn(*a, **kw):
            calls.append((a, kw))
            return t.reference(*a, **kw)
        g = InputGen(derive_seed("Fusion/fused_hardshrink_dropout", "edge", 0), "cpu")
        case = next(c for c in t.edge_cases(g) if c.get("kwargs", {}).get("training", True))
        a, kw = tuple(case["args"]), dict(case.get("kwargs", {}))
        timed_call(t)(fn, a, kw)
        self.assertEqual(len(calls), 1, "the timed call is the entry, once")
        calls.clear()
        call_entry(t, fn, a, kw)  # correctness (and the perf re-check) still go through drive()
        self.assertGreaterEqual(len(calls), 1)

    def test_an_optimizer_is_timed_through_its_drive(self):
        t = task("Optimizer/SGD")
        self.assertIs(t.perf_drive, t.drive)
        seen = []

        def fn(params, **kw):
            seen.append(len(params))
            return t.reference(params, **kw)
        g = InputGen(derive_seed("Optimizer/SGD", "edge", 0), "cpu")
        case = next(iter(t.edge_cases(g)))
        timed_call(t)(fn, tuple(case["args"]), dict(case.get("kwargs", {})))
        self.assertEqual(seen, [len(case["args"]) - 1], "drive() built the optimizer from the parameters")

    def test_every_task_timed_without_its_drive_takes_the_plain_call(self):
        # Where drive() is not timed, the entry itself must be callable as fn(*args, **kwargs):
        # the reference, called that way on the task's first edge case, runs.
        ids = tasks_with_drive()
        self.assertGreaterEqual(len(ids), 15)
        plain = 0
        for tid in ids:
            t = task(tid)
            if hasattr(t, "perf_drive"):
                continue
            with self.subTest(task=tid):
                g = InputGen(derive_seed(tid, "edge", 0), "cpu")
                case = next(iter(t.edge_cases(g)))
                timed_call(t)(t.reference, tuple(case["args"]), dict(case.get("kwargs", {})))
                plain += 1
        self.assertGreaterEqual(plain, 10)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
