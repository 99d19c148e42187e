import math

import torch

META = {
    "id": "Math/signbit",
    "category": "Math",
    "stem": "signbit",
    "entry": "signbit",
    "signature": "signbit(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise test of the sign bit: returns a bool tensor of the input's shape that is True "
        "where the sign bit is set. For floats this is a test of the bit, not of x < 0: -0.0 gives True, "
        "+0.0 False, -inf True, and negative subnormals True. Integer inputs give x < 0 (always False "
        "for unsigned types); bool inputs give False. NaN inputs are not tested (their sign bit depends "
        "on how they were produced). When out is given the result is written there."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "Not used: the output is bool and compared exactly.",
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
        return torch.signbit(input, out=out)
    return torch.signbit(input)


def edge_cases(g):
    inf = float("inf")
    special = [0.0, -0.0, 1.0, -1.0, inf, -inf, 1e-45, -1e-45, 1e-38, -1e-38, 3.0e38, -3.0e38, -1e-30]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, 6.0e-8, -6.0e-8, 65504.0, -65504.0, -1.0],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, -1e-38, 1e-38, -3.0e38, 2.0], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "special_values_f64", "args": (g.tensor([0.0, -0.0, -1e-300, 1e-320, -1e-320, -inf],
                                                           dtype=torch.float64),), "kwargs": {}}
    yield {"name": "negative_zeros_mix", "args": (g.randn(300) * 0.0,), "kwargs": {}}
    yield {"name": "int32", "args": (g.tensor([0, -1, 1, -2147483648, 2147483647], dtype=torch.int32),),
           "kwargs": {}}
    yield {"name": "int64", "args": (g.randint(-10**12, 10**12, 301),), "kwargs": {}}
    yield {"name": "uint8", "args": (g.randint(0, 256, 40, dtype=torch.uint8),), "kwargs": {}}
    yield {"name": "bool", "args": (g.bernoulli(33),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[-2.5]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-0.0),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randn(9, 13),),
           "kwargs": {"out": torch.zeros(9, 13, dtype=torch.bool, device=g.device)}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "randint_int16", "args": (g.randint(-3000, 3000, 61, 67, dtype=torch.int16),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype),), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    return {"bytes": n * (size + 1), "flops": n}
