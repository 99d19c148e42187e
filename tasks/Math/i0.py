import torch

META = {
    "id": "Math/i0",
    "category": "Math",
    "stem": "i0",
    "entry": "i0",
    "signature": 'i0(input, *, out=None) -> Tensor',
    "description": (
        'Element-wise modified Bessel function of the first kind of order zero, I0(x) = sum_k '
        '(x^2/4)^k / (k!)^2. It is even, I0(0) = 1, grows like exp(|x|) / sqrt(2 pi |x|) and '
        'overflows to +inf in float32 once exp(|x|) does (|x| > ~88.7); NaN propagates (+-inf inputs '
        "are not tested: PyTorch's evaluation returns NaN there). The output has the input's shape and dtype (integer inputs give float32); "
        'half precision inputs are expected to be computed in float32 and rounded once.'
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 3e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        'The standard float32 evaluation (exp(|x|) times a Chebyshev series, ~30 terms) carries a '
        'few ulp of exp plus the series rounding; rtol 3e-5 covers it over the whole range up to '
        'overflow.'
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
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.special.i0(input, out=out)
    return torch.special.i0(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1e-30, 1e-4, 0.5, -0.5, 1.0, 2.0, 3.75, -3.75, 7.999, 8.0, 8.001, -8.0, 10.0, 20.0,
               50.0, -50.0, 85.0, 88.0, 95.0, 200.0, -1e4, nan]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, 6.0e-8, 0.5, 1.0, -4.0, 8.0, 10.0, 12.0, 13.0, nan],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 1e-20, 0.5, -2.0, 8.0, 30.0, 85.0, 100.0, nan], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "around_branch_8", "args": (g.rand(301, low=7.0, high=9.0),), "kwargs": {}}
    yield {"name": "int64_promotes_to_f32", "args": (g.randint(-20, 21, 5, 7),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-3.5),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(0, 5),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t() * 5,), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "wide_2d_odd", "dist": "wide", "args": (g.rand(37, 129, low=-60.0, high=60.0),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, p=1e-2, scale=20.0),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16) * 3,), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16, scale=20.0),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype) * 5,), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write I0(x); exp + 30-term Chebyshev series (~3 FLOPs a term) counted as ~100 FLOPs
    return {"bytes": 2 * n * esize, "flops": 100 * n}
