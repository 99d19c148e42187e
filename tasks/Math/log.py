import math

import torch

META = {
    "id": "Math/log",
    "category": "Math",
    "stem": "log",
    "entry": "log",
    "signature": "log(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise natural logarithm y = ln(x). Floating inputs keep their dtype and shape (half "
        "precision is expected to be computed in float32 and rounded once); integer inputs are promoted "
        "to the default float dtype (float32). IEEE edge values: ln(+-0) = -inf, ln(x < 0) = NaN, "
        "ln(+inf) = +inf, ln(1) = 0, NaN propagates; subnormal inputs give finite results near -103. "
        "When out is given the result is written there."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 2e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "A float32 log (libdevice or a hardware log2 times ln 2) is within ~2 ulp of the rounded exact "
        "value, far inside 1e-5 + 2e-5*|y|; half precision is rounded once from float32."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.log(input, out=out)
    return torch.log(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, -1.0, 2.718281828, 0.5, 2.0, inf, -inf, nan, 1e-38, 1e-45, 1.17549435e-38,
               3.0e38, 0.99999994, 1.00000012, -1e-30]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, 1.0, -2.0, inf, nan, 6.0e-8, 1e-4, 65504.0], dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 1.0, -1.0, inf, -inf, nan, 1e-38, 3.0e38, 0.5], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "int64_promotes", "args": (g.randint(0, 10**6, 300),), "kwargs": {}}
    yield {"name": "int32_promotes_with_zero_neg", "args": (g.tensor([0, 1, 2, -3, 1000, 2147483647],
                                                                     dtype=torch.int32),), "kwargs": {}}
    yield {"name": "near_one", "args": (1.0 + g.randn(513) * 1e-4,), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[7.5]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.125),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40, low=0.01, high=50.0).t(),), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.rand(9, 13, low=0.1, high=9.0),), "kwargs": {"out": g.randn(9, 13)}}


def random_cases(g):
    # raw N(0,1): half of the elements are negative and must come out NaN
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "abs_randn_2d_odd", "args": (g.randn(37, 129).abs(),), "kwargs": {}}
    yield {"name": "outlier_abs_3d", "args": (g.outlier(4, 33, 65).abs(),), "kwargs": {}}
    yield {"name": "wide_range_f32", "dist": "wide", "args": (torch.exp(g.rand(128, 257, low=-80.0, high=80.0)),), "kwargs": {}}
    yield {"name": "abs_randn_f16", "args": (g.randn(64, 100, dtype=torch.float16).abs(),), "kwargs": {}}
    yield {"name": "outlier_abs_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16).abs(),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.rand(*params["shape"], low=0.01, high=100.0, dtype=dtype),), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    return {"bytes": 2 * n * size, "flops": n}
