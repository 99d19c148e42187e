# SPDX-License-Identifier: MIT
"""The reference role as a server (kbx_harness.reference.serve): tasks one after another from
stdin, each from the state a new process has; a failing request ends it. Run by ctest
(cpu.harness.reference_server):
    test_reference_server.py TASKS_DIR HARNESS_DIR
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

TASKS = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "tasks").resolve()
HARNESS = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "tasks/worker/python").resolve()
sys.path.insert(0, str(HARNESS))

import torch  # noqa: E402

from kbx_harness import reference  # noqa: E402


def serve(lines, req0="{'serve': True, 'device': 'cpu'}"):
    """Runs a server over `lines` on stdin; its frames (sent to stderr without kbx-worker)."""
    code = ("import sys, time; sys.path.insert(0, %r); from kbx_harness import reference; "
            "sys.exit(reference.main(%s))" % (str(HARNESS), req0))
    p = subprocess.run([sys.executable, "-c", code], input="".join(lines).encode(), capture_output=True, timeout=600,
                       env=dict(os.environ, PYTHONPATH=str(HARNESS)))
    frames = [json.loads(l[len("FRAME "):]) for l in p.stderr.decode().splitlines() if l.startswith("FRAME ")]
    return p.returncode, frames, p.stderr.decode()


def request(task_id, out):
    return json.dumps({"task_id": task_id, "task_file": str(TASKS / (task_id + ".py")), "device": "cpu",
                       "seeds": [{"label": "seed0", "seed": 0}, {"label": "secret", "seed": 5}],
                       "tier_out": {t: {"inputs_out": str(out / f"{task_id.replace('/', '_')}-inputs-{t}.pt"),
                                        "ref_out": str(out / f"{task_id.replace('/', '_')}-reference-{t}.pt")}
                                    for t in ("contract", "extended")}}) + "\n"


class Server(unittest.TestCase):
    def test_two_tasks_then_stop(self):
        with tempfile.TemporaryDirectory() as d:
            out = pathlib.Path(d)
            rc, frames, err = serve([request("Activation/relu", out), request("Math/add", out), "stop\n"])
            self.assertEqual(rc, 0, err[-2000:])
            types = [f["type"] for f in frames if f["type"] != "progress"]
            self.assertEqual(types, ["hello", "ready", "result", "ready", "result", "ready"])
            results = [f for f in frames if f["type"] == "result"]
            self.assertGreater(results[0]["cases"], 10)
            self.assertEqual(sorted(p.name for p in out.iterdir())[:2],
                             ["Activation_relu-inputs-contract.pt", "Activation_relu-inputs-extended.pt"])
            self.assertEqual(len(list(out.iterdir())), 8)

    def test_the_first_task_reports_the_servers_start(self):
        # As a warm worker's child: _t_main is its fork, launched_at when kbx launched it.
        with tempfile.TemporaryDirectory() as d:
            out = pathlib.Path(d)
            rc, frames, err = serve([request("Math/add", out), request("Activation/relu", out), "stop\n"],
                                    "{'serve': True, 'device': 'cpu', '_t_main': time.time() - 0.25, 'launched_at': time.time() - 1.25}")
            self.assertEqual(rc, 0, err[-2000:])
            first, second = [f["phases"] for f in frames if f["type"] == "result"]
            self.assertAlmostEqual(first["server_launch"], 1.0, delta=0.05)
            self.assertGreaterEqual(first["server_hello"], 0.25)
            self.assertNotIn("server_device", first, "no device to open on the CPU")
            self.assertIn("draw_inputs", first)
            self.assertFalse([k for k in second if k.startswith("server_")], "said once, with the first task")

    def test_eof_ends_it_too(self):
        rc, frames, _ = serve([])
        self.assertEqual(rc, 0)
        self.assertEqual([f["type"] for f in frames], ["hello", "ready"])

    def test_a_failing_request_ends_the_server_with_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            out = pathlib.Path(d)
            bad = json.dumps({"task_id": "Nope/none", "task_file": str(out / "none.py"), "device": "cpu", "seeds": []}) + "\n"
            rc, frames, _ = serve([bad, request("Math/add", out)])
            self.assertEqual(rc, 67)
            self.assertEqual([f["type"] for f in frames], ["hello", "ready", "error"])
            self.assertFalse(any(out.iterdir()), "the request after it was never taken")

    def test_each_task_starts_from_a_new_process_state(self):
        state = reference._global_state()
        torch.manual_seed(1)
        torch.set_default_dtype(torch.float64)
        torch.backends.cudnn.benchmark = not torch.backends.cudnn.benchmark
        torch.set_grad_enabled(False)
        reference._restore_state(state)
        self.assertNotEqual(torch.initial_seed(), 1, "a fresh random seed, as a new process has")
        self.assertEqual(torch.get_default_dtype(), torch.float32)
        self.assertTrue(torch.is_grad_enabled())
        self.assertEqual(reference._global_state(), state)

    def test_a_changed_deterministic_flag_is_restored_with_its_warn_only(self):
        state = reference._global_state()
        torch.use_deterministic_algorithms(True, warn_only=True)
        try:
            reference._restore_state(state)
            self.assertFalse(torch.are_deterministic_algorithms_enabled())
            self.assertFalse(torch.is_deterministic_algorithms_warn_only_enabled())
            self.assertEqual(reference._global_state(), state)
        finally:
            torch.use_deterministic_algorithms(False)

    def test_restoring_an_unchanged_state_imports_nothing(self):
        # torch.use_deterministic_algorithms imports torch._inductor.config (seconds): a server's
        # every task used to pay it once, while the first wave of candidates waited.
        code = ("import sys; sys.path.insert(0, %r); from kbx_harness import reference; s = reference._global_state(); "
                "reference._restore_state(s); print('torch._inductor.config' in sys.modules)" % str(HARNESS))
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        self.assertEqual(p.stdout.strip(), "False")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
