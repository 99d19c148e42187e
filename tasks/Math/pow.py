import math

import torch

META = {
    "id": "Math/pow",
    "category": "Math",
    "stem": "pow",
    "entry": "pow",
    "signature": "pow(input, exponent, *, out=None) -> Tensor",
    "description": (
        "Element-wise power input ** exponent, where exponent is a Python number or a tensor that "
        "broadcasts with input. The result dtype follows torch's type promotion: a float tensor keeps its "
        "dtype with a number exponent; an integer tensor with an integer exponent stays integer and must be "
        "exact (with wraparound on overflow), with a float number exponent it becomes float32; two tensors "
        "promote like other binary ops. Special values follow C pow: x ** 0 = 1 (even for NaN), "
        "1 ** y = 1, a negative base with a non-integer exponent gives NaN, a negative base with an integer "
        "exponent gives the signed result, 0 ** negative = +inf (-inf for -0 with odd exponents), "
        "|x| > 1 ** +inf = +inf, |x| < 1 ** +inf = 0, (-1) ** +-inf = 1. Negative integer exponents of integer "
        "tensors are not tested, nor the bases -0 and -inf with the number exponents +-0.5 (torch "
        "routes those through sqrt/rsqrt). Half precision is expected to be computed in float32 and rounded once."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "A float32 pow formed as exp2(y * log2|x|) loses about |y log2 x| * 2^-23 relative precision; "
        "the cases keep |y log2 x| below ~100, so rtol 1e-4 covers that plus approximate exp2/log2 "
        "hardware units; half precision is rounded once from float32."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": ["abs", ["add", 1e-3]]},
    "perf_shapes": [
        {"name": "1M_f32_scalar", "params": {"shape": [1024, 1024], "dtype": "float32", "exponent": 2.5}},
        {"name": "16M_f32_scalar", "params": {"shape": [4096, 4096], "dtype": "float32", "exponent": 1.7}},
        {"name": "16M_f32_tensor", "params": {"shape": [4096, 4096], "dtype": "float32", "exponent": "tensor"}},
        {"name": "16M_f16_scalar", "params": {"shape": [4096, 4096], "dtype": "float16", "exponent": 3.0}},
        {"name": "64M_f32_scalar", "params": {"shape": [8192, 8192], "dtype": "float32", "exponent": 0.75}},
    ],
}


def reference(input, exponent, *, out=None):
    if out is not None:
        return torch.pow(input, exponent, out=out)
    return torch.pow(input, exponent)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    xs = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, inf, -inf, nan, 3.0, -3.0, 1e-20, 10.0]
    ys = [0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 0.5, -0.5, 1.5, -3.0, inf, -inf, nan, 7.0, 0.3333]
    x = g.tensor([[a for a in xs] for _ in ys])
    y = g.tensor([[b] for b in ys])
    yield {"name": "special_grid_bcast", "args": (x, y), "kwargs": {}}
    for e in (0.0, 1.0, 2.0, 3.0, 0.5, -1.0, -2.0, -0.5, 2.5, -3.0):
        # torch evaluates number exponents +-0.5 as sqrt / rsqrt, which differ from C pow only on
        # the bases -0 and -inf: those two are left out there
        base = [v for v in xs if not (abs(e) == 0.5 and math.copysign(1.0, v) < 0 and v in (0.0, -inf))]
        yield {"name": f"special_scalar_exp_{e}", "args": (g.tensor(base), e), "kwargs": {}}
    yield {"name": "int_scalar_exp_on_float", "args": (g.randn(7, 9), 3), "kwargs": {}}
    yield {"name": "int64_int_exp_exact", "args": (g.randint(-30, 30, 200), 5), "kwargs": {}}
    yield {"name": "int32_int_exp_wraps", "args": (g.tensor([3, -3, 7, 1000, -1, 0, 2], dtype=torch.int32), 13),
           "kwargs": {}}
    yield {"name": "int64_tensor_exp", "args": (g.randint(-6, 7, 9, 11), g.randint(0, 12, 9, 11)), "kwargs": {}}
    yield {"name": "int64_float_exp_promotes", "args": (g.randint(0, 50, 40), 0.5), "kwargs": {}}
    yield {"name": "f16_scalar_exp", "args": (g.rand(33, low=0.0, high=8.0, dtype=torch.float16), 2.5), "kwargs": {}}
    yield {"name": "bf16_tensor_exp", "args": (g.rand(40, low=0.1, high=4.0, dtype=torch.bfloat16),
                                                g.rand(40, low=-3.0, high=3.0, dtype=torch.bfloat16)), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[-2.0]]]), g.tensor([[[3.0]]])), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(1.5), 2.0), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (g.rand(24, 40, low=0.0, high=3.0).t(), g.randn(40, 24)), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.rand(9, 13, low=0.0, high=3.0), 1.5), "kwargs": {"out": g.randn(9, 13)}}


def random_cases(g):
    yield {"name": "pos_base_scalar_exp_1d_odd", "dist": "wide", "args": (g.rand(1000, low=0.0, high=10.0), 2.7), "kwargs": {}}
    yield {"name": "randn_base_int_valued_tensor_exp",
           "args": (g.randn(37, 129) * 3, g.randint(-4, 6, 37, 129).float()), "kwargs": {}}
    yield {"name": "randn_base_randn_exp_nans", "args": (g.randn(37, 129), g.randn(37, 129)), "kwargs": {}}
    yield {"name": "outlier_abs_base_bcast_exp",
           "args": (g.outlier(4, 33, 65).abs(), g.rand(33, 1, low=-2.0, high=2.0)), "kwargs": {}}
    yield {"name": "f16_scalar_exp", "args": (g.randn(64, 100, dtype=torch.float16).abs() * 2, 1.5), "kwargs": {}}
    yield {"name": "bf16_scalar_exp", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16), 2), "kwargs": {}}
    yield {"name": "randint_int64_scalar", "args": (g.randint(-100, 100, 61, 67), 3), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.rand(*params["shape"], low=0.0, high=4.0, dtype=dtype)
    e = params.get("exponent", 2.0)
    if e == "tensor":
        e = g.rand(*params["shape"], low=-2.0, high=2.0, dtype=dtype)
    return (x, e), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    reads = 2 if params.get("exponent") == "tensor" else 1
    # log2, a multiply and exp2 per element
    return {"bytes": n * size * (reads + 1), "flops": 3 * n}
