import torch

META = {
    "id": "Activation/sigmoid",
    "category": "Activation",
    "stem": "sigmoid",
    "entry": "sigmoid",
    "signature": "sigmoid(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise logistic function 1 / (1 + exp(-x)), mapping the reals into (0, 1): "
        "-inf gives 0, +inf gives 1 and NaN stays NaN; large-magnitude inputs must neither overflow "
        "nor produce NaN. The result has the input's shape and dtype (half precision computed in "
        "float32 and rounded once)."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 1e-2],
    },
    "tolerance_note": "Outputs lie in [0, 1]; a few ulp of exp() disagreement is far below atol 1e-5 (float32), half precision allows an output rounding.",
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
    return torch.sigmoid(input, out=out)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, inf, -inf, nan, 1e-30, -1e-30, 1.0, -1.0, 15.0, -15.0, 30.0, -30.0,
               88.0, -88.0, 89.0, -89.0, 100.0, -100.0, 1e30, -1e30, 3.0e38, -3.0e38]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, nan, 10.0, -10.0, 17.0, -17.0, 65504.0, -65504.0],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, inf, -inf, nan, 5.0, -5.0, 1e30, -1e30], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "dense_sweep_-20_20", "args": (g.tensor([i / 32.0 - 20.0 for i in range(1281)]),),
           "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-2.0),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype),), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write sigmoid(x); 1 / (1 + exp(-x)): negate, exp (counted 1), add, divide = 4 per element
    return {"bytes": 2 * n * es, "flops": 4 * n}
