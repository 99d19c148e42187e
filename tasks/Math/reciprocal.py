import math

import torch

META = {
    "id": "Math/reciprocal",
    "category": "Math",
    "stem": "reciprocal",
    "entry": "reciprocal",
    "signature": "reciprocal(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise reciprocal y = 1 / x. Floating inputs keep their dtype and shape (half precision "
        "computed in float32 and rounded once); integer and bool inputs are promoted to the default "
        "float dtype (float32) before dividing, so 1/0 = inf and 1/3 = 0.3333. IEEE edge values: "
        "1/+0 = +inf, 1/-0 = -inf, 1/+-inf = +-0, NaN propagates; results below the normal range are "
        "subnormal (or zero). When out is given the result is written there."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "One division: a correctly rounded or 2-ulp approximate float32 reciprocal is far inside the defaults.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": [["away_from_zero", 1e-3]]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "16M_i32_promotes", "params": {"shape": [4096, 4096], "dtype": "int32"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.reciprocal(input, out=out)
    return torch.reciprocal(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, -1.0, 3.0, -7.0, inf, -inf, nan, 1e-38, -1e-38, 3.0e38, -3.0e38, 0.5, 1e-30]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, nan, 6.0e-8, 1e-4, 65504.0, -3.0], dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, -0.0, inf, nan, 1e-37, 3.0e38, -0.1, 7.0], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "int64_promotes", "args": (g.randint(-1000, 1000, 300),), "kwargs": {}}
    yield {"name": "int32_promotes_zero", "args": (g.tensor([0, 1, -1, 3, -7, 2147483647], dtype=torch.int32),),
           "kwargs": {}}
    yield {"name": "uint8_promotes", "args": (g.randint(0, 256, 5, 11, dtype=torch.uint8),), "kwargs": {}}
    yield {"name": "bool_promotes", "args": (g.bernoulli(33),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[-2.5]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.1),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randn(9, 13),), "kwargs": {"out": g.randn(9, 13)}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "randint_int32", "args": (g.randint(-10**6, 10**6, 61, 67, dtype=torch.int32),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    if dtype.is_floating_point:
        return (g.randn(*params["shape"], dtype=dtype),), {}
    return (g.randint(1, 1000, *params["shape"], dtype=dtype),), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size_in = {"float32": 4, "float16": 2, "bfloat16": 2, "int32": 4}[params.get("dtype", "float32")]
    size_out = size_in if params.get("dtype", "float32") != "int32" else 4
    return {"bytes": n * (size_in + size_out), "flops": n}
