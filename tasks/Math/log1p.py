import torch

META = {
    "id": "Math/log1p",
    "category": "Math",
    "stem": "log1p",
    "entry": "log1p",
    "signature": "log1p(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise natural logarithm of one plus the input, y = ln(1 + x), computed so that it stays "
        "accurate when x is tiny (where forming 1 + x first would lose the low bits of x). Defined "
        "values at the domain edges: log1p(-1) = -inf, log1p(x) = NaN for x < -1, log1p(+inf) = +inf, "
        "NaN propagates, and log1p(+-0) = +-0. The output has the shape and dtype of the input; half "
        "precision inputs are expected to be computed in float32 and rounded once."
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
        "Defaults: log1p is within an ulp or two of the exact value in any sane float32 formulation "
        "(libdevice log1p or the log(u)*x/(u-1) correction), and half precision is rounded once."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": [["clamp", -0.9, 10.0]]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.log1p(input, out=out)
    return torch.log1p(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, -1.0, -2.0, -1.5, inf, -inf, nan, 1e-10, -1e-10, 1e-7, -1e-7, 3e-4,
               -0.5, -0.99999988, 1.0, 1e10, 3.0e38, 1e-38]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -1.0, -3.0, inf, nan, 1e-4, -1e-4, 65504.0, -0.999],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, -1.0, -3.0, inf, -inf, nan, 1e-20, 1e30, -0.5],
                             dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "tiny_magnitudes", "args": (g.randn(513) * 1e-6,), "kwargs": {}}
    yield {"name": "all_zeros", "args": (g.tensor([[0.0] * 9] * 4),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-0.75),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40, low=-0.9, high=3.0).t(),),
           "kwargs": {}}


def random_cases(g):
    # raw N(0,1): about 16% of the elements lie below -1 and must come out NaN
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "domain_2d_odd", "dist": "wide", "args": (g.rand(37, 129, low=-0.999, high=8.0),), "kwargs": {}}
    yield {"name": "outlier_abs_3d", "args": (g.outlier(4, 33, 65).abs(),), "kwargs": {}}
    yield {"name": "domain_f16", "args": (g.rand(64, 100, low=-0.99, high=20.0, dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "randn_abs_bf16", "args": (g.randn(3, 7, 311, dtype=torch.bfloat16).abs(),),
           "kwargs": {}}
    yield {"name": "outlier_f32_large", "args": (g.outlier(128, 257, p=1e-2).abs(),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.rand(*params["shape"], low=-0.9, high=10.0, dtype=dtype)
    return (x,), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write log1p(x); one log1p evaluation per element, counted as 1 (transcendental)
    return {"bytes": 2 * n * es, "flops": n}
