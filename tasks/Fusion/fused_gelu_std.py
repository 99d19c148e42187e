import torch

META = {
    "id": "Fusion/fused_gelu_std",
    "category": "Fusion",
    "stem": "fused_gelu_std",
    "entry": "fused_gelu_std",
    "signature": "def fused_gelu_std(input, dim=None, keepdim=False, correction=1, approximate='none', out=None) -> Tensor",
    "description": (
        "Standard deviation of GELU(input): GELU is applied element-wise (x * Phi(x) with the exact "
        "erf form for approximate='none', 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) for "
        "'tanh'), then the standard deviation sqrt(sum((y - mean)^2) / max(0, N - correction)) is "
        "taken over dim (an int or a tuple of ints; None means all elements), keeping reduced dims "
        "as size 1 when keepdim=True. N - correction <= 0 gives inf or NaN as in torch.std. The "
        "output has the input's floating dtype. If out is given the result is also written there."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "erf/tanh differ by a few ulp between libraries and the summation order of the two "
        "reductions is free (rtol 1e-4 in float32); in half precision the reference rounds GELU's "
        "output to the half type before the reduction, a fused kernel need not."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "rows_1k_x_1k_lastdim", "params": {"shape": [1024, 1024], "dim": -1}},
        {"name": "rows_4k_x_4k_lastdim", "params": {"shape": [4096, 4096], "dim": -1}},
        {"name": "16M_all_tanh", "params": {"shape": [4096, 4096], "dim": None, "approximate": "tanh"}},
        {"name": "16M_dim0", "params": {"shape": [4096, 4096], "dim": 0}},
        {"name": "64M_lastdim_bf16", "params": {"shape": [8192, 8192], "dim": -1, "dtype": "bfloat16"}},
    ],
}


def reference(input, dim=None, keepdim=False, correction=1, approximate='none', out=None):
    y = torch.nn.functional.gelu(input, approximate=approximate)
    s = torch.std(y, dim=dim, keepdim=keepdim, correction=correction)
    if out is not None:
        out.copy_(s)
        return out
    return s


def edge_cases(g):
    nan = float("nan")
    rows = g.tensor([[0.0, -0.0, 1.0, -1.0, 2.0],
                     [nan, 0.0, 1.0, 2.0, 3.0],
                     [5.0, 5.0, 5.0, 5.0, 5.0],
                     [-30.0, -20.0, -10.0, -40.0, -50.0],
                     [40.0, 1.0, -1.0, 0.0, -3.0],
                     [-0.7, -0.75, -0.8, -0.72, -0.78]])
    yield {"name": "special_rows_lastdim", "args": (rows,), "kwargs": {"dim": 1}}
    yield {"name": "special_rows_lastdim_tanh", "args": (rows,), "kwargs": {"dim": 1, "approximate": "tanh"}}
    yield {"name": "full_reduce_default", "args": (g.randn(6, 7, 5),), "kwargs": {}}
    yield {"name": "full_reduce_keepdim_correction0", "args": (g.randn(6, 7, 5),),
           "kwargs": {"keepdim": True, "correction": 0}}
    yield {"name": "dim0_correction2", "args": (g.randn(33, 20),), "kwargs": {"dim": 0, "correction": 2}}
    yield {"name": "dim_negative_keepdim", "args": (g.randn(4, 5, 37),), "kwargs": {"dim": -1, "keepdim": True}}
    yield {"name": "dim_middle_tanh", "args": (g.randn(4, 37, 5),), "kwargs": {"dim": 1, "approximate": "tanh"}}
    yield {"name": "dim_tuple_0_2", "args": (g.randn(6, 5, 11),), "kwargs": {"dim": (0, 2)}}
    yield {"name": "size1_reduced_dim_correction0", "args": (g.randn(7, 1, 3),), "kwargs": {"dim": 1, "correction": 0}}
    yield {"name": "size1_reduced_dim_nan", "args": (g.randn(7, 1, 3),), "kwargs": {"dim": 1}}
    yield {"name": "out_given", "args": (g.randn(5, 8),), "kwargs": {"dim": 1, "out": g.tensor([0.0] * 5)}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {"dim": 1}}


def random_cases(g):
    yield {"name": "randn_rows_odd", "args": (g.randn(37, 129),), "kwargs": {"dim": -1}}
    yield {"name": "randn_full_1d_odd", "args": (g.randn(5000),), "kwargs": {}}
    yield {"name": "outlier_3d_dim1", "args": (g.outlier(4, 333, 17),), "kwargs": {"dim": 1}}
    yield {"name": "outlier_full_2d_tanh", "args": (g.outlier(71, 211),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "randn_f16_lastdim", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {"dim": 1}}
    yield {"name": "outlier_bf16_tuple", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),),
           "kwargs": {"dim": (0, 2), "keepdim": True}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    return (x,), {"dim": params.get("dim"), "approximate": params.get("approximate", "none")}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    dim = params.get("dim")
    out = 1 if dim is None else n // params["shape"][dim]
    # read x once, write the deviations. Per element: gelu ('none' 5, 'tanh' 9 FLOPs, a
    # transcendental counted 1), then mean (1 add) and squared deviation (sub, mul, add);
    # per output a divide and a sqrt
    per = (9 if params.get("approximate", "none") == "tanh" else 5) + 4
    return {"bytes": n * es + out * es, "flops": per * n + 2 * out}
