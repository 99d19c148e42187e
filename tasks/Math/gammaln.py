import torch

META = {
    "id": "Math/gammaln",
    "category": "Math",
    "stem": "gammaln",
    "entry": "gammaln",
    "signature": 'gammaln(input, *, out=None) -> Tensor',
    "description": (
        'Element-wise natural logarithm of the absolute value of the gamma function, ln|Gamma(x)| '
        '(the same as torch.lgamma). It is +inf at 0 and at every negative integer, +inf at '
        '+-inf, 0 at x = 1 and x = 2, negative between them, and finite for negative non-integers '
        "(where Gamma changes sign); NaN propagates. The output has the input's shape and dtype "
        '(integer inputs give float32); half precision inputs are expected to be computed in '
        'float32 and rounded once.'
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
        'A float32 evaluation (argument shift to x >= 8 plus Stirling series, reflection for x < '
        '0) is within a few ulp of values of order 10 around the roots at 1 and 2, so atol 1e-5 '
        'covers the cancellation there and rtol 2e-5 the rest; halves are rounded once.'
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": ["abs", ["add", 0.1]]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.special.gammaln(input, out=out)
    return torch.special.gammaln(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, 2.0, 3.0, 0.5, 1.5, 2.5, 1.4616321, 1e-30, 1e-45, 1e-7, 7.999, 8.0, 10.0, 100.0,
               1e4, 1e20, 1e36, 3.0e38, -1.0, -2.0, -100.0, -0.5, -1.5, -2.5, -0.999, -1e-7, -20.3, -1000.25,
               inf, -inf, nan]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, 6.0e-8, 0.5, 1.0, 2.0, 3.0, 10.0, 1000.0, 65504.0, -1.0, -0.5, -2.5, inf, nan],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 1e-20, 0.5, 1.0, 2.0, 7.0, 1e30, -3.0, -3.5, inf, -inf, nan], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "near_roots", "args": (g.rand(400, low=0.9, high=2.1),), "kwargs": {}}
    yield {"name": "negative_non_integers", "args": (g.rand(300, low=-30.0, high=0.0),), "kwargs": {}}
    yield {"name": "int64_promotes_to_f32", "args": (g.randint(-3, 50, 5, 7),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(4.5),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(0, 5),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t() * 5,), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "positive_2d_odd", "dist": "wide", "args": (g.rand(37, 129, low=0.0, high=50.0),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, p=1e-2),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16) * 4,), "kwargs": {}}
    yield {"name": "outlier_abs_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16).abs(),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.rand(*params["shape"], low=0.0, high=20.0, dtype=dtype),), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write lgamma(x); shift product, two logs, Stirling series and reflection counted as ~40 FLOPs
    return {"bytes": 2 * n * esize, "flops": 40 * n}
