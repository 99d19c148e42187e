import torch

META = {
    "id": "Math/sqrt_tanh",
    "category": "Math",
    "stem": "sqrt_tanh",
    "entry": "sqrt_tanh",
    "signature": 'def sqrt_tanh(input, out=None) -> Tensor',
    "description": (
        'Element-wise tanh of the square root: y = tanh(sqrt(x)). Negative inputs (and -inf, NaN) '
        'give NaN, sqrt_tanh(0) = 0 and sqrt_tanh(+inf) = 1; the result lies in [0, 1]. The '
        "output has the input's shape and dtype; half precision inputs are expected to be "
        'computed in float32 and rounded once.'
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
        'The result is in [0, 1] and both steps are well conditioned (d tanh <= 1), so a float32 '
        'tanh (exp-based or polynomial, a few ulp) stays far inside atol 1e-5 / rtol 2e-5.'
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, out=None):
    result = torch.tanh(torch.sqrt(input))
    if out is not None:
        out.copy_(result)
        return out
    return result


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1e-30, 1e-10, 1e-6, 0.01, 0.25, 0.390625, 0.4, 1.0, 4.0, 25.0, 100.0, 1e4, 3.0e38,
               inf, -1e-30, -1.0, -inf, nan]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, 6.0e-8, 0.25, 1.0, 9.0, 65504.0, inf, -2.0, nan], dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 1e-20, 0.5, 2.0, 1e30, inf, -0.5, nan], dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "tiny_positive", "args": (g.rand(300, low=0.0, high=1e-4),), "kwargs": {}}

    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.75),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(0, 5),), "kwargs": {}}

    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40, low=0.0, high=9.0).t(),), "kwargs": {}}


def random_cases(g):
    # raw N(0,1): about half of the elements are negative and must come out NaN
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "domain_2d_odd", "dist": "wide", "args": (g.rand(37, 129, low=0.0, high=10.0),), "kwargs": {}}
    yield {"name": "outlier_abs_3d", "args": (g.outlier(4, 33, 65, p=1e-2).abs(),), "kwargs": {}}
    yield {"name": "domain_f16", "args": (g.rand(64, 100, low=0.0, high=12.0, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "randn_abs_bf16", "args": (g.randn(3, 7, 311, dtype=torch.bfloat16).abs(),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.rand(*params["shape"], low=0.0, high=10.0, dtype=dtype),), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write tanh(sqrt(x)); sqrt + exp-based tanh counted as ~15 FLOPs
    return {"bytes": 2 * n * esize, "flops": 15 * n}
