import math

import torch

META = {
    "id": "Math/floor",
    "category": "Math",
    "stem": "floor",
    "entry": "floor",
    "signature": "floor(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise floor: the largest integer value not greater than x, returned in the input's "
        "dtype and shape. -0 stays -0, values in (-1, 0) become -1, +-inf and NaN pass through, and "
        "floats that are already integral (every |x| >= 2^23 in float32) are unchanged. Integer inputs "
        "are returned as an exact copy (a new tensor). When out is given the result is written there."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "floor is exact in every dtype; any candidate that rounds wrongly is off by a whole 1, far beyond the defaults.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_bf16", "params": {"shape": [4096, 4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.floor(input, out=out)
    return torch.floor(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.999999, -2.000001, inf, -inf, nan, 2e-38,
               -2e-38, -1.5e-38, 8388607.5, -8388607.5, 16777217.0, 3.0e38, -3.0e38, 0.99999994, -0.99999994]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([-0.0, 0.4, -0.4, 1023.5, -1023.5, 2049.0, inf, -inf, nan, 65504.0],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([-0.0, 0.75, -0.75, 127.5, -127.5, 3.0e38, inf, -inf, nan],
                             dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "int64_copy", "args": (g.randint(-10**15, 10**15, 257),), "kwargs": {}}
    yield {"name": "int32_copy", "args": (g.randint(-1000, 1000, 5, 9, dtype=torch.int32),), "kwargs": {}}
    yield {"name": "half_integers", "args": (g.randint(-50, 50, 200).float() + 0.5,), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[-2.5]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-0.25),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": ((g.randn(24, 40) * 10).t(),), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randn(9, 13) * 4,), "kwargs": {"out": g.randn(9, 13)}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "dist": "wide", "args": (g.randn(1000) * 8,), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, scale=1e6),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16) * 30,), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16) * 5,), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype) * 100,), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    return {"bytes": 2 * n * size, "flops": n}
