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


def serve(lines):
    """Runs a server over `lines` on stdin; its frames (sent to stderr without kbx-worker)."""
    code = ("import sys; sys.path.insert(0, %r); from kbx_harness import reference; "
            "sys.exit(reference.main({'serve': True, 'device': 'cpu'}))" % str(HARNESS))
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


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
