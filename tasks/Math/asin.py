import torch

META = {
    "id": "Math/asin",
    "category": "Math",
    "stem": "asin",
    "entry": "asin",
    "signature": 'asin(input, *, out=None) -> Tensor',
    "description": (
        'Element-wise inverse sine: y = arcsin(x) in radians, in [-pi/2, pi/2]. Inputs outside '
        '[-1, 1] (including +-inf) give NaN, NaN propagates, asin(+-1) = +-pi/2 and asin(+-0) = '
        "+-0. The output has the input's shape and dtype (integer inputs give float32); half "
        'precision inputs are expected to be computed in float32 and rounded once.'
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
        'arcsin has no libdevice-free closed form, so a float32 minimax polynomial (a few ulp) is '
        'the natural Triton form; rtol 2e-5 leaves margin for it, and the slope blow-up at |x| -> '
        '1 is covered because inputs are exact and only the output is rounded.'
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


def reference(input, *, out=None):
    if out is not None:
        return torch.asin(input, out=out)
    return torch.asin(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.49999997, 0.50000006, 0.99999994, -0.99999994,
               1.00000012, -1.0000001, 2.0, -3.5, inf, -inf, nan, 1e-30, -1e-38, 1e-4, 0.70710678]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, 1.0, -1.0, 0.5, 0.99951171875, -0.999, 1.5, inf, nan, 6.0e-8],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 1.0, -1.0, 0.5, 0.99609375, 2.0, -inf, nan, 1e-20], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "near_one", "args": (g.rand(257, low=0.99, high=1.0),), "kwargs": {}}
    yield {"name": "int64_promotes_to_f32", "args": (g.randint(-2, 3, 5, 7),), "kwargs": {}}

    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.75),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(0, 5),), "kwargs": {}}

    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40, low=-1.0, high=1.0).t(),), "kwargs": {}}


def random_cases(g):
    # raw N(0,1): about a third of the elements lie outside [-1, 1] and must come out NaN
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "domain_2d_odd", "args": (g.rand(37, 129, low=-1.0, high=1.0),), "kwargs": {}}
    yield {"name": "outlier_scaled_3d", "args": (g.outlier(4, 33, 65, scale=5.0) * 0.3,), "kwargs": {}}
    yield {"name": "domain_f16", "args": (g.rand(64, 100, low=-1.0, high=1.0, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "domain_bf16", "args": (g.rand(3, 7, 311, low=-1.0, high=1.0, dtype=torch.bfloat16),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.rand(*params["shape"], low=-1.0, high=1.0, dtype=dtype),), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write asin(x); a float32 evaluation is ~15 FLOPs (sqrt, degree-5 polynomial, select)
    return {"bytes": 2 * n * esize, "flops": 15 * n}
