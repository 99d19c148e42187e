import math

import torch

META = {
    "id": "Math/polygamma",
    "category": "Math",
    "stem": "polygamma",
    "entry": "polygamma",
    "signature": "def polygamma(n, input, *, out=None) -> Tensor",
    "description": (
        "Element-wise polygamma function of order n (a Python int >= 0): the n-th derivative of the "
        "digamma function psi(x) = d/dx ln Gamma(x) (torch.special.polygamma). n = 0 is digamma itself; "
        "for n >= 1, psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) with the Hurwitz zeta function, which is "
        "also defined for negative non-integer x. Poles and edge values as in torch: digamma(+0) = -inf, "
        "digamma(-0) = +inf, digamma at negative integers and at -inf is NaN, digamma(+inf) = +inf; for "
        "n >= 1 the value at x = +-0 is +inf for odd n and -inf for even n, and (n >= 2) the same at "
        "negative integers; NaN propagates. Floating inputs keep their dtype and shape (half precision "
        "computed in float32 or better and rounded once), integer inputs give float32. The reference is "
        "computed in float64 and rounded to the output dtype."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 5e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Judged against the float64 value rounded to float32: a careful float32 evaluation (recurrence "
        "to x >= 10, asymptotic series, reflection for x < 0) is within a few e-7 relative, and cancels to "
        "~1e-6 absolute near digamma's roots and its negative-axis reflection; rtol 5e-5 and atol 1e-5 "
        "cover that with margin (torch's own float32 kernel passes). On the H200, PyTorch's own CUDA float32 polygamma(4, x) is 3.6e-4 relative off near a pole (-9.7e3), so float32 rtol is 5e-4: the reference itself must meet its contract."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": ["abs", ["add", 0.1]]},
    "perf_shapes": [
        {"name": "1M_f32_n0", "params": {"shape": [1024, 1024], "dtype": "float32", "n": 0}},
        {"name": "16M_f32_n0", "params": {"shape": [4096, 4096], "dtype": "float32", "n": 0}},
        {"name": "16M_f32_n1", "params": {"shape": [4096, 4096], "dtype": "float32", "n": 1}},
        {"name": "16M_f32_n3", "params": {"shape": [4096, 4096], "dtype": "float32", "n": 3}},
        {"name": "64M_f32_n1", "params": {"shape": [8192, 8192], "dtype": "float32", "n": 1}},
    ],
}


def reference(n, input, *, out=None):
    if out is not None:
        return torch.special.polygamma(n, input, out=out)
    return torch.special.polygamma(n, input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    dig = [0.0, -0.0, 1.0, 0.5, 2.0, 1.4616321, -0.5, -1.5, -2.5, -3.7, -10.2, -1.0, -2.0, -100.0, 1e-3,
           1e-6, 30.0, 1e6, 3.0e38, inf, -inf, nan, -0.999, -1.001]
    yield {"name": "digamma_special_f32", "args": (0, g.tensor(dig)), "kwargs": {}}
    # order n >= 1: positive axis, negative non-integers, and the pole at 0
    pg = [0.0, -0.0, 1.0, 0.5, 2.0, 1e-3, 30.0, 1000.0, -0.5, -2.5, -3.7, -10.2, nan]
    for order in (1, 2, 3, 4):
        yield {"name": f"n{order}_special_f32", "args": (order, g.tensor(pg)), "kwargs": {}}
    # negative integer poles (n >= 2 only: torch's float path returns finite garbage there for n = 1)
    yield {"name": "n2_negative_integers", "args": (2, g.tensor([-1.0, -2.0, -5.0])), "kwargs": {}}
    yield {"name": "n3_negative_integers", "args": (3, g.tensor([-1.0, -3.0])), "kwargs": {}}
    yield {"name": "n1_f16", "args": (1, g.tensor([0.25, 1.0, 3.0, 10.0, -0.5, 100.0], dtype=torch.float16)),
           "kwargs": {}}
    yield {"name": "n0_bf16", "args": (0, g.tensor([0.25, 1.0, 3.0, 10.0, -0.5, 100.0, 0.0], dtype=torch.bfloat16)),
           "kwargs": {}}
    yield {"name": "n0_int64_promotes", "args": (0, g.randint(1, 100, 50)), "kwargs": {}}
    yield {"name": "n5_positive", "args": (5, g.rand(64, low=0.2, high=20.0)), "kwargs": {}}
    yield {"name": "single_element", "args": (1, g.tensor([[[2.5]]])), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (0, g.tensor(0.75)), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (1, g.rand(24, 40, low=0.1, high=12.0).t()), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (2, g.rand(9, 13, low=0.5, high=5.0)), "kwargs": {"out": g.randn(9, 13)}}


def random_cases(g):
    yield {"name": "n0_randn_1d_odd", "args": (0, g.randn(1000) * 3),  "kwargs": {}}
    yield {"name": "n0_outlier_3d", "args": (0, g.outlier(4, 33, 65)), "kwargs": {}}
    yield {"name": "n1_positive_2d_odd", "args": (1, g.rand(37, 129, low=0.05, high=40.0)), "kwargs": {}}
    yield {"name": "n2_randn_abs", "args": (2, g.randn(61, 67).abs() * 4 + 0.01), "kwargs": {}}
    yield {"name": "n3_negative_axis", "args": (3, g.rand(500, low=-6.0, high=-0.01)), "kwargs": {}}
    yield {"name": "n1_f16", "args": (1, g.rand(64, 100, low=0.3, high=30.0, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "n0_bf16", "args": (0, g.rand(3, 7, 311, low=0.1, high=50.0, dtype=torch.bfloat16)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (params.get("n", 0), g.rand(*params["shape"], low=0.01, high=20.0, dtype=dtype)), {}


def perf_cost(params):
    numel = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # ~10 recurrence steps plus an asymptotic series: about 60 flops per element
    return {"bytes": 2 * numel * size, "flops": 60 * numel}
