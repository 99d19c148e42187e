import math

import torch

META = {
    "id": "Math/rad2deg_sqrt",
    "category": "Math",
    "stem": "rad2deg_sqrt",
    "entry": "rad2deg_sqrt",
    "signature": "def rad2deg_sqrt(input: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]",
    "description": (
        "Returns a tuple of two tensors computed element-wise from the same input: first the angle "
        "converted from radians to degrees, x * (180 / pi) (torch.rad2deg), then the square root sqrt(x) "
        "(torch.sqrt). Both outputs have the input's shape; floating inputs keep their dtype (half "
        "precision computed in float32 and rounded once), integer inputs give float32 outputs. sqrt of a "
        "negative number is NaN, sqrt(-0) = -0, sqrt(+inf) = +inf; rad2deg keeps signs, infinities and NaN, "
        "and overflows to +-inf for |x| above about 5.9e36 in float32."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "One multiply by a constant and one square root, each correctly rounded or within an ulp or two "
        "(approximate sqrt), far inside the defaults; half precision is rounded once."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": ["abs"]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input):
    return torch.rad2deg(input), torch.sqrt(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, -1.0, math.pi, -math.pi / 2, 2.0, 4.0, 0.25, inf, -inf, nan, 1e-38, 1e-45,
               3.0e38, 6.0e36, -6.0e36, 5.0e36]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, 1.0, -1.0, 3.14159, inf, -inf, nan, 6.0e-8, 65504.0, 1000.0],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, -0.0, 1.5707963, -2.0, 9.0, inf, nan, 3.0e38], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "perfect_squares", "args": (g.randint(0, 300, 500).float() ** 2,), "kwargs": {}}
    yield {"name": "int64_promotes", "args": (g.randint(0, 10**6, 200),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[2.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.5),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40, low=0.0, high=7.0).t(),), "kwargs": {}}


def random_cases(g):
    # raw N(0,1): negative elements give NaN square roots
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "angles_2d_odd", "args": (g.rand(37, 129, low=0.0, high=2 * math.pi),), "kwargs": {}}
    yield {"name": "outlier_abs_3d", "args": (g.outlier(4, 33, 65).abs(),), "kwargs": {}}
    yield {"name": "abs_randn_f16", "args": (g.randn(64, 100, dtype=torch.float16).abs(),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.rand(*params["shape"], low=0.0, high=2 * math.pi, dtype=dtype),), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    return {"bytes": 3 * n * size, "flops": 2 * n}
