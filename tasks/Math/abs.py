import math

import torch

META = {
    "id": "Math/abs",
    "category": "Math",
    "stem": "abs",
    "entry": "abs",
    "signature": "abs(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise absolute value |x|. The output has the shape and dtype of the input. Floating "
        "inputs: -0 becomes +0, +-inf becomes +inf, NaN stays NaN. Integer inputs are exact (the most "
        "negative value of a signed type wraps to itself, as in two's complement). When out is given "
        "the result is written into it and out is returned."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "abs is exact in every dtype (it clears the sign bit), so the defaults only leave margin.",
    "tf32": False,
    "signed_zeros": True,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "16M_i32", "params": {"shape": [4096, 4096], "dtype": "int32"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.abs(input, out=out)
    return torch.abs(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 1e-38, -1e-38, 3.0e38, -3.0e38, -1e-45, -2.5]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, nan, -6.0e-8, 65504.0, -65504.0], dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([-0.0, inf, -inf, nan, -1e-38, -3.0e38, 2.0], dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "int32_with_min", "args": (g.tensor([0, -1, 1, -2147483648, 2147483647, -12345],
                                                       dtype=torch.int32),), "kwargs": {}}
    yield {"name": "int64_exact", "args": (g.randint(-10**12, 10**12, 300),), "kwargs": {}}
    yield {"name": "int8_with_min", "args": (g.tensor([-128, -127, -1, 0, 5, 127], dtype=torch.int8),),
           "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[-2.5]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-3.25),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(0, 7),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randn(9, 13),), "kwargs": {"out": g.randn(9, 13)}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "randint_int32", "args": (g.randint(-10**9, 10**9, 61, 67, dtype=torch.int32),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    if dtype.is_floating_point:
        x = g.randn(*params["shape"], dtype=dtype)
    else:
        x = g.randint(-10**6, 10**6, *params["shape"], dtype=dtype)
    return (x,), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2, "int32": 4}[params.get("dtype", "float32")]
    return {"bytes": 2 * n * size, "flops": n}
