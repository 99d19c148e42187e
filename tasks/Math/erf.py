import math

import torch

META = {
    "id": "Math/erf",
    "category": "Math",
    "stem": "erf",
    "entry": "erf",
    "signature": "erf(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise Gauss error function erf(x) = 2/sqrt(pi) * integral from 0 to x of exp(-t^2) dt "
        "(torch.special.erf). An odd function with values in [-1, 1]: erf(+-0) = +-0, erf(+-inf) = +-1, "
        "NaN propagates, and it saturates to +-1 for |x| above about 4 in float32. Floating inputs keep "
        "their dtype and shape (half precision computed in float32 and rounded once); integer inputs are "
        "promoted to float32. When out is given the result is written there."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 2e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "A float32 erf (libdevice erff, or a rational/Abramowitz-Stegun-class approximation good to a few "
        "ulp) stays well inside 1e-5 absolute on outputs bounded by 1; rtol 2e-5 keeps the tiny-|x| region "
        "(erf(x) ~ 1.128 x) relative; half precision is rounded once."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": [["clamp", -10.0, 10.0]]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_bf16", "params": {"shape": [4096, 4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.special.erf(input, out=out)
    return torch.special.erf(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1e-30, -1e-30, 1e-6, -1e-6, 0.5, -0.5, 1.0, -1.0, 2.0, 3.0, 3.9, -3.9, 4.0, 5.0,
               -6.0, 10.0, inf, -inf, nan, 3.0e38, -1e-45]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, 1e-4, -0.75, 2.5, inf, -inf, nan, 65504.0], dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 0.01, -1.5, 4.0, inf, -inf, nan, -3.0e38], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "dense_grid", "args": (torch.linspace(-5.0, 5.0, 4001, device=g.device),), "kwargs": {}}
    yield {"name": "tiny_magnitudes", "args": (g.randn(257) * 1e-5,), "kwargs": {}}
    yield {"name": "int64_promotes", "args": (g.randint(-4, 5, 40),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[0.3]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-1.25),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randn(9, 13),), "kwargs": {"out": g.randn(9, 13)}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129) * 2,), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype),), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # ~20 flops: a degree ~10 polynomial / rational evaluation per element
    return {"bytes": 2 * n * size, "flops": 20 * n}
