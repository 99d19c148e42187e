# SPDX-License-Identifier: MIT
"""The contract tier (kbx_harness.contract, issue 21) on a toy task of our own: which of a task's
cases the seed's recorded call patterns decide and which are extended, and why. Run by ctest
(harness.contract):
    test_contract.py HARNESS_DIR
"""
import sys
import types
import unittest

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "tasks/worker/python")

import torch  # noqa: E402

from kbx_harness import contract as C  # noqa: E402
from kbx_harness.common import clone_tree  # noqa: E402

TID = "Toy/scale"


def _reference(input, alpha=1.0, *, out=None):
    r = input * alpha
    if out is not None:
        out.copy_(r)
        return out
    return r


TASK = types.SimpleNamespace(reference=_reference)
# The seed calls scale(x) on fp32 tensors of rank 1 and 2, and scale(x, alpha=2.0) on rank 2: the
# abstract patterns (calls) and the calls with their shapes (examples), as scripts/contract_sync.py
# derives them from seed-test-calls.json.
F32 = lambda *shape: {"kind": "tensor", "dtype": "float32", "shape": list(shape)}  # noqa: E731
A32 = lambda rank: {"kind": "tensor", "dtype": "float32", "rank": rank, "empty": False,  # noqa: E731
                    "non_contiguous": False, "unit": []}
TWO = {"alpha": {"kind": "float", "value": 2.0}}
CONTRACTS = {"tasks": {TID: {
    "seed_file": "Toy/scale.py",
    "calls": [{"args": [A32(1)], "kwargs": {}}, {"args": [A32(2)], "kwargs": {}}, {"args": [A32(2)], "kwargs": TWO}],
    "examples": [{"args": [F32(8)], "kwargs": {}}, {"args": [F32(4, 4)], "kwargs": {}}, {"args": [F32(4, 4)], "kwargs": TWO}],
}}}


def case(name, *args, **kwargs):
    return {"name": name, "args": tuple(args), "kwargs": kwargs, "mutates": []}


def tiers(cases):
    run = lambda a, k: _reference(*a, **k)  # noqa: E731
    got, note = C.assign_tiers(TASK, TID, cases, [{"label": "public0", "seed": 0}], "cpu", CONTRACTS, run, clone_tree)
    return {c["name"]: t for c, t in zip(cases, got)}, note


class Tiers(unittest.TestCase):
    def setUp(self):
        self.g = torch.Generator().manual_seed(0)

    def randn(self, *shape, dtype=torch.float32):
        return torch.randn(*shape, generator=self.g, dtype=dtype)

    def test_the_seeds_patterns_decide_and_other_inputs_are_extended(self):
        cases = [case("public0/odd_1d", self.randn(1001)),
                 case("public0/odd_2d", self.randn(37, 129)),
                 case("public0/alpha_2d", self.randn(5, 7), alpha=2.0),
                 case("public0/f16", self.randn(64, dtype=torch.float16)),
                 case("public0/rank3", self.randn(2, 3, 4)),
                 case("public0/alpha_other", self.randn(5, 7), alpha=0.5),
                 case("public0/alpha_1d", self.randn(9), alpha=2.0),
                 case("public0/out", self.randn(8), out=torch.empty(8)),
                 case("public0/nan", torch.tensor([1.0, float("nan")])),
                 case("public0/non_contiguous", self.randn(6, 8).t()),
                 case("edge/tiny", torch.full((8,), 1e-30))]
        got, note = tiers(cases)
        self.assertIn("3 seed call patterns", note)
        # numbers are values (drawn like tensor values); the parameters passed make the pattern
        for name in ("public0/odd_1d", "public0/odd_2d", "public0/alpha_2d", "public0/alpha_other"):
            self.assertEqual(got[name], ("contract", ""), name)
        for name in ("public0/f16", "public0/rank3", "public0/alpha_1d", "public0/out", "public0/nan",
                     "public0/non_contiguous", "edge/tiny"):
            self.assertEqual(got[name][0], "extended", name)
            self.assertTrue(got[name][1], f"{name}: an extended case says why")
        self.assertIn("float16", got["public0/f16"][1])
        self.assertIn("out", got["public0/out"][1])
        self.assertIn("NaN", got["public0/nan"][1])
        self.assertIn("edge case", got["edge/tiny"][1])

    def test_a_case_drawn_wider_than_the_seed_is_found_and_extended_when_marked(self):
        wide = case("public0/wide", torch.empty(37, 129).uniform_(-60.0, 60.0, generator=self.g))
        self.assertEqual(len(C.wide_inputs(wide)), 1)
        self.assertIn("args[0]", C.wide_inputs(wide)[0])
        # sparse outliers (the seed's own outlier draws) and a standard draw are not wide
        std = self.randn(64, 64)
        outl = std.clone()
        outl.view(-1)[::500] *= 10.0
        self.assertEqual(C.wide_inputs(case("s", std)), [])
        self.assertEqual(C.wide_inputs(case("o", outl)), [])
        self.assertEqual(C.wide_inputs(case("kw", std, alpha=2.0, out=torch.full((3,), 7.0))), ["out: 100% beyond |6|"])
        # the pattern alone would put it in the contract; its mark makes it extended
        got, _ = tiers([case("public0/a", self.randn(9)), case("public0/b", self.randn(3, 3)),
                        case("public0/c", self.randn(11)), wide, dict(wide, name="public0/wide_marked", dist="wide")])
        self.assertEqual(got["public0/wide"], ("contract", ""))
        self.assertEqual(got["public0/wide_marked"][0], "extended")
        self.assertIn("wider range", got["public0/wide_marked"][1])

    def test_few_own_contract_cases_bring_in_cases_modelled_on_the_seeds_calls(self):
        cases = [case("public0/f16", self.randn(64, dtype=torch.float16))]
        got, note = tiers(cases)
        self.assertGreater(len(cases), 1)
        seedcalls = [c for c in cases if "/seedcall" in c["name"]]
        self.assertTrue(seedcalls)
        self.assertIn("modelled on the seed's calls", note)
        for c in seedcalls:
            self.assertEqual(got[c["name"]], ("contract", ""), c["name"])
            self.assertEqual(c["args"][0].dtype, torch.float32)

    def test_seed_call_outlier_draws_use_the_seeds_own_scale(self):
        # The seed's tests draw outliers at scale 10 (sometimes 20), never its helper's default 50:
        # a seed-call case must not ask for more than the seed's own inputs did (Math/i0 clamps to +-10).
        from kbx_harness.inputs import InputGen
        x = C._value({"kind": "tensor", "dtype": "float32", "shape": [256, 256]}, InputGen(7, "cpu"), "outlier", 4)
        big = x.abs() > 6
        self.assertTrue(0 < int(big.sum()) < 200, int(big.sum()))  # ~65 outliers of 65536, some small
        self.assertLess(float(x.abs().max()), 60.0)
        self.assertGreater(float(x.abs().max()), 15.0)

    def test_seed_call_draws_get_what_the_seeds_test_does_to_its_values(self):
        # The seed's test clamps (Math/i0 to +-10), takes abs() + c, or builds an SPD matrix before
        # the call: META["seed_values"] makes the seed-call draws do the same, and nothing else.
        clamped = types.SimpleNamespace(reference=_reference, META={"seed_values": {"input": [["clamp", -1.5, 1.5]]},
                                                                     "seed_outlier_p": 0.05})
        cases = [case("public0/f16", self.randn(64, dtype=torch.float16))]
        run = lambda a, k: _reference(*a, **k)  # noqa: E731
        C.assign_tiers(clamped, TID, cases, [{"label": "public0", "seed": 0}], "cpu", CONTRACTS, run, clone_tree)
        seedcalls = [c for c in cases if "/seedcall" in c["name"]]
        self.assertTrue(seedcalls)
        for c in seedcalls:
            x = c["args"][0]
            self.assertLessEqual(float(x.abs().max()), 1.5, c["name"])
            self.assertEqual(x.dtype, torch.float32)
        # without the ops the same draws go beyond 1.5 (so the test above can fail)
        plain = [case("public0/f16", self.randn(64, dtype=torch.float16))]
        C.assign_tiers(TASK, TID, plain, [{"label": "public0", "seed": 0}], "cpu", CONTRACTS, run, clone_tree)
        self.assertTrue(any(float(c["args"][0].abs().max()) > 1.5 for c in plain if "/seedcall" in c["name"]))
        # each op as the seed writes it
        x = torch.tensor([[-2.0, 0.0005], [3.0, -0.0001]], dtype=torch.float64)
        op = lambda o, b=None: C._seed_op(x, o, b or {})  # noqa: E731
        self.assertTrue(torch.equal(op(["clamp", -1.0, 1.0]), x.clamp(-1, 1)))
        self.assertTrue(torch.equal(op("abs"), x.abs()))
        self.assertTrue(torch.equal(op(["away_from_zero", 1e-3]), torch.tensor([[-2.0, 1e-3], [3.0, -1e-3]], dtype=torch.float64)))
        spd = C._apply_seed_values({"A": ["gram", "sym", ["add_eye", 1e-3]]}, {"A": x})["A"]
        self.assertTrue(bool((torch.linalg.eigvalsh(spd) > 0).all()))
        lower = C._seed_op(spd, "cholesky", {"upper": False})
        upper = C._seed_op(spd, "cholesky", {"upper": True})
        self.assertTrue(torch.allclose(lower @ lower.mT, spd) and torch.equal(upper, lower.mT))
        self.assertEqual(float(lower[0, 1]), 0.0)
        with self.assertRaises(ValueError):
            C.seed_value_ops(types.SimpleNamespace(META={"seed_values": {"input": [["log"]]}}))

    def test_a_task_without_seed_calls_has_every_case_decide(self):
        cases = [case("public0/f16", self.randn(64, dtype=torch.float16))]
        run = lambda a, k: _reference(*a, **k)  # noqa: E731
        got, note = C.assign_tiers(TASK, "Toy/unknown", cases, [{"label": "public0", "seed": 0}], "cpu", CONTRACTS,
                                   run, clone_tree)
        self.assertEqual(got, [("contract", "")])
        self.assertIn("every case decides", note)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
