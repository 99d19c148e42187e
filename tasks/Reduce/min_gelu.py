import torch

META = {
    "id": "Reduce/min_gelu",
    "category": "Reduce",
    "stem": "min_gelu",
    "entry": "min_gelu",
    "signature": "min_gelu(input, dim=None, keepdim=False, approximate='none', out=None) -> Tensor",
    "description": (
        "Applies GELU element-wise (approximate='none': x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))); "
        "approximate='tanh': 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))) and takes the "
        "minimum of the result. With dim=None the minimum over all elements is returned as a 0-d tensor "
        "(keepdim is ignored). With an integer dim the result is the pair (values, indices) of torch.min "
        "along dim: values in the input's dtype, int64 indices of the first minimal element, keepdim "
        "keeping the reduced dimension with size 1. NaN propagates (the index is that of the first NaN). "
        "GELU is not monotonic (minimum about -0.17 near x = -0.75), so different inputs can map to "
        "nearly equal values: the index tests use float32 inputs on a 1/8 grid in [-4, 8] with "
        "approximate='none', where equal GELU values only come from equal inputs."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-6, 1e-5],
        "float16": [2e-3, 5e-3],
        "bfloat16": [8e-3, 1.6e-2],
    },
    "tolerance_note": (
        "The minimum is one GELU value, whose erf/tanh evaluation differs by a few float32 ulp between "
        "libraries; half precision allows one output rounding; indices are compared exactly."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_all_f32", "params": {"shape": [1024, 1024], "dim": None}},
        {"name": "16M_all_f32_tanh", "params": {"shape": [4096, 4096], "dim": None, "approximate": "tanh"}},
        {"name": "4Kx4K_rows_f32", "params": {"shape": [4096, 4096], "dim": 1}},
        {"name": "4Kx4K_cols_f32", "params": {"shape": [4096, 4096], "dim": 0}},
        {"name": "64M_all_bf16", "params": {"shape": [8192, 8192], "dim": None, "dtype": "bfloat16"}},
    ],
}


def reference(input, dim=None, keepdim=False, approximate='none', out=None):
    y = torch.nn.functional.gelu(input, approximate=approximate)
    if dim is None:
        r = torch.min(y)
    else:
        r = torch.min(y, dim, keepdim)
    if out is not None:
        out.resize_(r.shape).copy_(r)
        return out
    return r


def _grid(g, *shape):
    """float32 values on a 1/8 grid in [-4, 8]: distinct grid points have well separated GELU values."""
    return ((g.randn(*shape) * 8.0).round() / 8.0).clamp(-4.0, 8.0)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "all_special_values_dim_none", "args": (g.tensor([0.0, -0.0, 1.0, -1.0, -0.75, -0.5, 3.0, -3.0, 1e-30,
                                                                     -1e4, 1e4, 20.0, -20.0]),), "kwargs": {}}
    yield {"name": "all_special_values_dim_none_tanh", "args": (g.tensor([0.0, -0.0, 1.0, -1.0, -0.75, -0.5, 3.0, -3.0,
                                                                          -1e4, 1e4]),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "nan_dim_none", "args": (g.tensor([[1.0, -0.75], [nan, 2.0]]),), "kwargs": {}}
    yield {"name": "nan_rows_first_nan", "args": (g.tensor([[1.0, nan, -0.75, nan], [nan, -1.0, 1.0, 2.0], [0.0, 1.0, 2.0, -0.5]]), 1),
           "kwargs": {}}
    yield {"name": "ties_first_index", "args": (g.tensor([[0.5, -0.75, -0.75, 1.0], [2.0, 2.0, 2.0, 2.0], [-1.0, -0.5, -1.0, 0.0]]), 1),
           "kwargs": {}}
    yield {"name": "positive_only_monotone", "args": (g.tensor([[3.0, 1.0, 2.0, 0.125], [8.0, 7.5, 7.25, 7.0]]), -1), "kwargs": {}}
    yield {"name": "keepdim_dim0", "args": (_grid(g, 17, 5), 0, True), "kwargs": {}}
    yield {"name": "size1_dim", "args": (_grid(g, 6, 1, 4), 1), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-0.6),), "kwargs": {}}
    yield {"name": "keepdim_ignored_dim_none", "args": (g.randn(4, 5),), "kwargs": {"keepdim": True}}
    yield {"name": "f16_dim_none", "args": (g.tensor([-0.75, -0.5, 0.0, 3.0, -6.0e4, 6.0e4, -2.0], dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "non_contiguous_rows", "args": (_grid(g, 40, 24).t(), 1), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_all_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "randn_all_long_odd", "args": (g.randn(9001),), "kwargs": {}}
    yield {"name": "outlier_all_tanh", "args": (g.outlier(4, 33, 65),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "grid_rows_odd", "args": (_grid(g, 37, 129), 1), "kwargs": {}}
    yield {"name": "grid_3d_dim0_keepdim", "args": (_grid(g, 9, 33, 65), 0, True), "kwargs": {}}
    yield {"name": "grid_long_rows", "args": (_grid(g, 8, 3000), -1), "kwargs": {}}
    yield {"name": "randn_f16_all", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16_all_tanh", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {"approximate": "tanh"}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    return (x, params.get("dim")), {"approximate": params.get("approximate", "none")}


def perf_cost(params):
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    n = 1
    for s in params["shape"]:
        n *= s
    dim = params.get("dim")
    m = 1 if dim is None else n // params["shape"][dim]
    out = es if dim is None else m * (es + 8)
    return {"bytes": n * es + out, "flops": 11 * n}
