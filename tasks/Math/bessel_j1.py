import math

import torch

META = {
    "id": "Math/bessel_j1",
    "category": "Math",
    "stem": "bessel_j1",
    "entry": "bessel_j1",
    "signature": "bessel_j1(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise Bessel function of the first kind of order 1, J1(x) (torch.special.bessel_j1): an "
        "odd, oscillating function with J1(0) = 0, J1(x) ~ x/2 for small x, a maximum of about 0.5819 at "
        "x ~ 1.841, zeros near 3.8317, 7.0156, ..., and decay like sqrt(2/(pi x)) cos(x - 3 pi/4) for large "
        "|x|. As in torch, J1(+-inf) and J1(NaN) are NaN and the sign of 0 is kept. The input is float32 "
        "or float64 (torch has no half precision kernel) and the output has its dtype and shape; the "
        "reference is computed in float64 and rounded."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-6, 1e-6],
        "float32": [1e-5, 2e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Judged against float64 values rounded to float32; J1 is bounded by 0.582, so atol 1e-5 is ~100 "
        "float32 ulp of its peak and absorbs the absolute (not relative) accuracy that rational or "
        "asymptotic float32 evaluations have near the zeros and at |x| up to a few hundred (phase error "
        "of the argument reduction); rtol 2e-5 keeps the small-|x| region relative. torch's own float32 "
        "kernel passes. float64 is loose on purpose: torch's own float64 J1 (the reference) is off by up "
        "to 4e-7 near |x| = 5 (checked against mpmath)."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f64", "params": {"shape": [4096, 4096], "dtype": "float64"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.special.bessel_j1(input, out=out)
    return torch.special.bessel_j1(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1e-30, -1e-30, 1e-4, 1.0, -1.0, 1.8411838, 3.8317060, -3.8317060, 5.0, 7.0155867,
               8.0, 10.0, 12.0, 13.0, 25.0, -25.0, 100.0, 300.0, inf, -inf, nan]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f64", "args": (g.tensor(special, dtype=torch.float64),), "kwargs": {}}
    yield {"name": "dense_grid_0_40", "args": (torch.linspace(-40.0, 40.0, 4001, device=g.device),), "kwargs": {}}
    yield {"name": "tiny_magnitudes", "args": (g.randn(257) * 1e-5,), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[2.5]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-4.75),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": ((g.randn(24, 40) * 5).t(),), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randn(9, 13) * 6,), "kwargs": {"out": g.randn(9, 13)}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "dist": "wide", "args": (g.randn(1000) * 4,), "kwargs": {}}
    yield {"name": "uniform_2d_odd", "dist": "wide", "args": (g.rand(37, 129, low=-30.0, high=30.0),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, scale=50.0),), "kwargs": {}}
    yield {"name": "randn_f64", "args": (g.randn(64, 100, dtype=torch.float64) * 10,), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.rand(*params["shape"], low=-30.0, high=30.0, dtype=dtype),), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float64": 8}[params.get("dtype", "float32")]
    # a rational approximation or asymptotic form: ~40 flops per element
    return {"bytes": 2 * n * size, "flops": 40 * n}
