# SPDX-License-Identifier: MIT
"""kbx_harness.autotune (issue 22) under Triton's CPU interpreter: what @triton.autotune chose is
recorded per kernel and key (correctness stage) and per timed shape (perf stage). Run by ctest
(harness.autotune):
    test_autotune.py HARNESS_DIR
"""
import os
import sys
import unittest

os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "tasks/worker/python")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from kbx_harness import autotune  # noqa: E402
from kbx_harness.candidate import _interpreter_autotune  # noqa: E402

_interpreter_autotune()
autotune.install(bounded=False)


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def _twice(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)


def twice(x):
    y = torch.empty_like(x)
    _twice[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, y, x.numel())
    return y


class Autotune(unittest.TestCase):
    def test_choices_are_recorded_per_kernel_key_and_shape(self):
        m0 = autotune.mark()
        for n in (100, 300, 100):
            x = torch.arange(n, dtype=torch.float32)
            self.assertTrue(torch.equal(twice(x), x * 2))
        ev = autotune.evidence()["_twice"]
        self.assertEqual(ev["configs"], 2)
        # Triton's own cache key: the key arguments' values and the arguments' dtypes
        self.assertEqual(sorted(k.split(",")[0] for k in ev["keys"]), ["(100", "(300"])
        self.assertEqual(ev["benchmarked"], 4)  # 2 configs x 2 keys; the third call (n=100) reused the choice
        self.assertTrue(all("BLOCK: 64" in c for c in ev["keys"].values()))  # the interpreter scores configs alike: the first
        self.assertFalse(ev["bounded"])
        shape = autotune.since(m0)
        self.assertEqual(len(shape), 1)
        self.assertEqual(shape[0]["kernel"], "_twice")
        self.assertIn("BLOCK: 64", shape[0]["config"])
        self.assertEqual(len(shape[0]["timings_ms"]), 2)  # it benchmarked in that window
        m1 = autotune.mark()
        twice(torch.ones(100))
        again = autotune.since(m1)
        self.assertEqual(again[0]["config"], shape[0]["config"])
        self.assertNotIn("bench_s", again[0])  # cached: nothing benchmarked in this window
        m2 = autotune.mark()
        self.assertEqual(autotune.since(m2), [])  # nothing ran

    def test_recorded_choices_are_replayed_per_shape(self):
        # kbx eval --autotune-replay: the recorded config wins without benchmarking, per shape; a
        # config the kernel no longer has is a miss (it autotunes as usual) and says so.
        cfgs = [autotune._cfg(c) for c in _twice.configs]
        try:
            for target in (cfgs[1], cfgs[0], cfgs[1]):
                autotune.replay({"_twice": target})
                m = autotune.mark()
                x = torch.arange(100, dtype=torch.float32)
                self.assertTrue(torch.equal(twice(x), x * 2))
                self.assertTrue(torch.equal(twice(x), x * 2))
                got = autotune.since(m)
                self.assertEqual(got[0]["config"], target)
                self.assertTrue(got[0]["replayed"])
                self.assertNotIn("bench_s", got[0])  # nothing timed
            autotune.replay({"_twice": "BLOCK: 7"})
            m = autotune.mark()
            twice(torch.ones(100))
            self.assertFalse(autotune.since(m)[0]["replayed"])
        finally:
            autotune.replay(None)
        m = autotune.mark()
        twice(torch.ones(100))
        self.assertNotIn("replayed", autotune.since(m)[0])  # no replay: the autotuner's own choice


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
