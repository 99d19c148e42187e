# SPDX-License-Identifier: MIT
"""The candidate's static checks (kbx_harness.static_checks: the AST, never the text), the
classification of a candidate's exceptions (kbx_harness.candidate.classify: never "not judged"), the
launch wrapper's evidence and its watch for torch inside an interpreted kernel body, and the canary
role (kbx_harness.canary) on Triton's CPU interpreter. Run by ctest (harness.static_and_classify):
    test_static_and_classify.py HARNESS_DIR
"""
import os
import sys
import unittest

os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "tasks/worker/python")

from kbx_harness import static_checks as sc  # noqa: E402

Q = {"forbid": ["torch._int_mm", "torch.ao", "F.conv2d", "torch.nn.functional.conv2d", "quantize_per_tensor",
                "torch._scaled_mm"],
     "require_any": [["round", "rint"], ["int8"], ["int32"], ["scale"]]}
WORDS = "import torch\nx_scale = 1\nr = round\nd = torch.int8\ne = torch.int32\n"


def klass(src, q=Q, entry="f"):
    r = sc.check(src, entry, q)
    return r.get("failure_class", "ok") if not r["ok"] else "ok"


class QuantContract(unittest.TestCase):
    def test_strings_and_comments_are_no_evidence(self):
        src = 'import torch\n"round int8 int32 scale"  # round int8 int32 scale\ndef f(a, b):\n    return a @ b\n'
        self.assertEqual(klass(src), "quant_contract_violated")
        self.assertEqual(klass(WORDS + "def f(a, b):\n    return a @ b\n"), "ok")

    def test_shift_operators_count_only_as_operators(self):
        q = {"require_any": [[">>", "<<"]]}
        self.assertEqual(klass('def f(a):\n    return ">> <<"\n', q), "quant_contract_violated")
        self.assertEqual(klass("def f(a):\n    return a >> 4\n", q), "ok")

    def test_forbidden_apis_through_aliases(self):
        for body in ('getattr(torch, "_int_mm")(a, b)', "T._int_mm(a, b)", "m(a, b)", "mm._int_mm(a, b)",
                     "torch.ops.aten._int_mm(a, b)", "G.conv2d(a, b)", "torch._scaled_mm(a, b)"):
            src = (WORDS + "import torch as T\nfrom torch import _int_mm as m\nmm = torch\n"
                   "from torch.nn import functional as G\ndef f(a, b):\n    return " + body + "\n")
            self.assertEqual(klass(src), "quant_contract_violated", body)
        self.assertEqual(klass(WORDS + "from torch.ao.quantization import observer\ndef f(a, b):\n    pass\n"),
                         "quant_contract_violated")

    def test_dynamic_access_is_a_violation(self):
        for body in ('getattr(torch, "_" + "int" + "_mm")(a, b)', 'torch.__dict__["_int_mm"](a, b)',
                     'vars(torch)["_int_mm"](a, b)', '__import__("torch")', 'eval("torch._int_mm")(a, b)',
                     'exec("x = 1")', 'globals()["torch"]', 'torch.ops.aten.__getattr__("_int_mm")'):
            self.assertEqual(klass(WORDS + "def f(a, b):\n    return " + body + "\n"), "quant_contract_violated", body)
        for imp in ("import importlib", "from importlib import import_module", "from operator import attrgetter",
                    "import sys\nM = sys.modules"):
            self.assertEqual(klass(WORDS + imp + "\ndef f(a, b):\n    pass\n"), "quant_contract_violated", imp)

    def test_honest_code_is_not_caught(self):
        src = (WORDS + "import sys\nimport re\nimport triton\nimport triton.language as tl\n"
               "class M:\n    def g(self):\n        return self.modules()\n"
               "def f(a, b):\n    t = getattr(tl, 'int8')\n    re.compile('x')\n    return torch.compile\n")
        self.assertEqual(klass(src), "ok")

    def test_no_contract_without_quantization(self):
        self.assertEqual(klass('import torch\ndef f(a, b):\n    return getattr(torch, "_int" + "_mm")(a, b)\n', None), "ok")


JIT = '''import torch, triton
import triton.language as tl
dtype = torch.float16
@triton.jit
def k(x, o, dtype: tl.constexpr):
    y = dtype
    tl.store(o, tl.load(x))
def helper(a):
    return torch.relu(a)
@triton.jit
def k2(x, o):
    v = BODY
def f(a):
    pass
'''


class TorchInJit(unittest.TestCase):
    def test_torch_in_a_jit_body(self):
        for body, want in (("tl.load(x)", "ok"), ("torch.relu(x)", "not_triton_kernel"),
                           ("helper(x)", "not_triton_kernel"), ("torch", "not_triton_kernel")):
            self.assertEqual(klass(JIT.replace("BODY", body), None), want, body)


class Parse(unittest.TestCase):
    def test_unparsable_source_is_a_syntax_error(self):
        self.assertEqual(klass("def f(a):\n    return a  # \0\n", None), "syntax_error")
        self.assertEqual(klass("def f(a:\n", None), "syntax_error")
        self.assertEqual(klass("x = " + "(" * 500 + ")" * 500 + "\ndef f(a): pass\n", None), "syntax_error")


STATE = {}  # module level: the interpreter runs a kernel's source again with its module's globals


class Runtime(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch
        import triton
        import triton.language as tl
        from kbx_harness import candidate as C
        C._count_launches()
        cls.C, cls.torch = C, torch
        cls.state = STATE

        @triton.jit
        def q(x, o, n, BLOCK: tl.constexpr):
            i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = i < n
            v = tl.load(x + i, mask=m)
            tl.store(o + i, (v * 10).to(tl.int8).to(tl.float32), mask=m)

        @triton.jit
        def sneaky(x, o, n, BLOCK: tl.constexpr):
            STATE["y"] = STATE["f"](STATE["x"])

        @triton.jit
        def swallowed(x, o, n, BLOCK: tl.constexpr):
            try:
                STATE["y"] = STATE["f"](STATE["x"])
            except Exception:
                pass

        @triton.jit
        def unknown(x, o):
            tl.store(o, tl.frobnicate(tl.load(x)))

        cls.q, cls.sneaky, cls.swallowed, cls.unknown = q, sneaky, swallowed, unknown

    def test_evidence_and_grid_callables(self):
        x = self.torch.randn(100)
        o = self.torch.empty(100)
        # a grid callable may use torch (it runs before the body)
        self.q[lambda meta: (x.numel() // meta["BLOCK"] + 1,)](x, o, 100, BLOCK=32)
        ev = self.C.launch_evidence()["q"]
        self.assertEqual(ev["args"], ["float32"])
        self.assertIn("int8", ev["values"])

    def test_torch_while_a_kernel_body_runs(self):
        x = self.torch.randn(100)
        self.state.update(f=self.torch.relu, x=x)
        for k in (self.sneaky, self.swallowed):
            before = dict(self.C._launches)
            with self.assertRaises(Exception) as cm:
                k[(1,)](x, x, 100, BLOCK=32)
            self.assertEqual(self.C.classify(cm.exception), "not_triton_kernel", repr(cm.exception))
            self.assertEqual(self.C._launches.get(k.__name__), before.get(k.__name__), "not counted as a launch")

    def test_classification_never_trusts_the_text(self):
        for e in (RuntimeError("'InterpreterBuilder' object has no attribute 'get_bf16'"),
                  NotImplementedError("InterpreterBuilder")):
            self.assertEqual(self.C.classify(e), "runtime_error")
        with self.assertRaises(Exception) as cm:
            self.unknown[(1,)](self.torch.ones(4), self.torch.ones(4))
        self.assertEqual(self.C.classify(cm.exception), "triton_compile_error")


class Canary(unittest.TestCase):
    def test_reports_the_bf16_gaps_of_this_interpreter(self):
        from kbx_harness import canary
        frames = []
        canary.send = frames.append
        self.assertEqual(canary.run({}), 0)
        res = frames[-1]
        self.assertEqual(res["type"], "result")
        self.assertTrue(res["interpret"])
        bad = {(g["dtype"], g["op"]) for g in res["gaps"]}
        self.assertFalse({d for d, _ in bad} & {"float32", "float16"}, res["gaps"])
        import triton
        if triton.__version__.startswith("3.6"):
            self.assertIn(("bfloat16", "constant"), bad)
            self.assertIn(("bfloat16", "multiply"), bad)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
