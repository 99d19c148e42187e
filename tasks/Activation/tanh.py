import torch

META = {
    "id": "Activation/tanh",
    "category": "Activation",
    "stem": "tanh",
    "entry": "tanh",
    "signature": "tanh(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise hyperbolic tangent (e^x - e^-x) / (e^x + e^-x). The result has the input's shape "
        "and dtype and lies in [-1, 1]: +inf maps to 1, -inf to -1, NaN stays NaN and the sign of zero "
        "is kept. Half-precision inputs are expected to be computed in float32 and rounded once. When "
        "out is given the result is written into it and out is returned."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-10],
        "float32": [1e-6, 1e-4],
        "float16": [1e-3, 5e-3],
        "bfloat16": [8e-3, 1e-2],
    },
    "tolerance_note": (
        "tanh implementations (libdevice, exp-based formulas, PyTorch's vectorized CPU code) differ by a "
        "few ulp and an exp-based formula loses a few ulp of relative accuracy for tiny |x| (bounded by "
        "the 1e-6 absolute part); half precision allows one output rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "16M_bf16", "params": {"shape": [4096, 4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.tanh(input, out=out)
    return torch.tanh(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 1e-30, -1e-30, 1e-4, -1e-4, 0.3, -0.3,
               9.0, -9.0, 20.0, -20.0, 100.0, -100.0, 3.0e38, -3.0e38, 1e-45]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, nan, 6.0e-8, -6.0e-8, 1e-3, 4.0, -4.0, 65504.0],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, nan, 1e-20, -2.0, 2.0, 1e30, -1e30],
                             dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "dense_sweep_-6_6", "args": (g.tensor([i / 64.0 - 6.0 for i in range(769)]),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[-0.5]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.75),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randn(9, 13),), "kwargs": {"out": torch.empty(9, 13, device=g.device)}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "randn_scaled_3", "args": (g.randn(50, 77) * 3.0,), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype),), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    return {"bytes": 2 * n * es, "flops": 8 * n}
