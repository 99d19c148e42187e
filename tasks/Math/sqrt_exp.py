import torch

META = {
    "id": "Math/sqrt_exp",
    "category": "Math",
    "stem": "sqrt_exp",
    "entry": "sqrt_exp",
    "signature": 'def sqrt_exp(input, out=None) -> Tensor',
    "description": (
        'Element-wise exponential of the square root: y = exp(sqrt(x)), the composition of the '
        'two PyTorch ops. Negative inputs, -inf and NaN give NaN, sqrt_exp(0) = 1, +inf gives '
        "+inf, and the result overflows to +inf once sqrt(x) exceeds the dtype's exp range (x > "
        '~7872 in float32). As in the two-op composition, the intermediate sqrt(x) is rounded to '
        "the input dtype before exp (this matters in half precision). The output has the input's "
        'shape and dtype.'
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 2e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        'exp amplifies the relative error of its argument by sqrt(x) (at most ~89 before '
        'overflow), which is why float32 gets rtol 2e-5 over its few-ulp exp; halves round the '
        'intermediate like the reference and are then rounded once.'
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": ["abs", ["clamp_max", 100.0]]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, out=None):
    result = torch.exp(torch.sqrt(input))
    if out is not None:
        out.copy_(result)
        return out
    return result


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1e-30, 1e-6, 0.25, 1.0, 2.0, 100.0, 1000.0, 7800.0, 7900.0, 1e6, 3.0e38,
               inf, -1e-30, -1.0, -inf, nan]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, 6.0e-8, 0.25, 1.0, 9.0, 100.0, 122.0, 123.0, 200.0, inf, -2.0, nan],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 1e-20, 0.5, 2.0, 64.0, 1e30, inf, -0.5, nan], dtype=torch.bfloat16),),
           "kwargs": {}}

    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.75),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(0, 5),), "kwargs": {}}

    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40, low=0.0, high=50.0).t(),), "kwargs": {}}


def random_cases(g):
    # raw N(0,1): about half of the elements are negative and must come out NaN
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "domain_2d_odd", "dist": "wide", "args": (g.rand(37, 129, low=0.0, high=500.0),), "kwargs": {}}
    yield {"name": "outlier_abs_3d", "args": (g.outlier(4, 33, 65, p=1e-2).abs(),), "kwargs": {}}
    yield {"name": "domain_f16", "args": (g.rand(64, 100, low=0.0, high=110.0, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_abs_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16).abs(),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.rand(*params["shape"], low=0.0, high=100.0, dtype=dtype),), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write exp(sqrt(x)); sqrt + exp counted as ~10 FLOPs
    return {"bytes": 2 * n * esize, "flops": 10 * n}
