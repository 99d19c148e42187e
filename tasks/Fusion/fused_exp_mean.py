import torch

META = {
    "id": "Fusion/fused_exp_mean",
    "category": "Fusion",
    "stem": "fused_exp_mean",
    "entry": "fused_exp_mean",
    "signature": "def fused_exp_mean(input, dim=None, keepdim=False, dtype=None, out=None) -> Tensor",
    "description": (
        "Mean of exp(input): exponentiate every element, then average over dim (an int or a tuple "
        "of ints; None means over all elements), keeping reduced dims as size 1 when keepdim=True. "
        "If dtype is given, the input is cast to dtype before the operation and the result has that "
        "dtype (as torch.mean's dtype argument does), e.g. a float16 input with dtype=torch.float32 "
        "must not overflow exp in float16. exp(-inf) = 0, +inf and NaN propagate. If out is given "
        "the result is also written there."
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
        "exp() differs by a few ulp between libraries and the summation order of the mean is free, "
        "so float32 uses rtol 1e-4; half-precision outputs allow the reference's per-element "
        "rounding of exp()."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "rows_1k_x_1k_lastdim", "params": {"shape": [1024, 1024], "dim": -1}},
        {"name": "rows_4k_x_4k_lastdim", "params": {"shape": [4096, 4096], "dim": -1}},
        {"name": "16M_all", "params": {"shape": [4096, 4096], "dim": None}},
        {"name": "16M_dim0", "params": {"shape": [4096, 4096], "dim": 0}},
        {"name": "64M_lastdim_f16_to_f32", "params": {"shape": [8192, 8192], "dim": -1,
                                                     "dtype": "float16", "out_dtype": "float32"}},
    ],
}


def reference(input, dim=None, keepdim=False, dtype=None, out=None):
    x = input if dtype is None else input.to(dtype)
    if dim is None:
        y = torch.mean(torch.exp(x))
        if keepdim:
            y = y.reshape([1] * input.dim())
    else:
        y = torch.mean(torch.exp(x), dim=dim, keepdim=keepdim)
    if out is not None:
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    rows = g.tensor([[0.0, -0.0, 1.0, -1.0],
                     [-inf, -inf, -inf, -inf],
                     [-inf, 0.0, 0.0, 0.0],
                     [inf, 0.0, 1.0, 2.0],
                     [nan, 0.0, 1.0, 2.0],
                     [-100.0, -200.0, -80.0, -1000.0],
                     [80.0, 1.0, -1.0, 0.0]])
    yield {"name": "special_rows_lastdim", "args": (rows,), "kwargs": {"dim": 1}}
    yield {"name": "zeros_full_mean_is_one", "args": (g.tensor([[0.0] * 9] * 5),), "kwargs": {}}
    yield {"name": "full_reduce_keepdim", "args": (g.randn(6, 7, 5),), "kwargs": {"keepdim": True}}
    yield {"name": "dim0", "args": (g.randn(33, 20),), "kwargs": {"dim": 0}}
    yield {"name": "dim_negative_keepdim", "args": (g.randn(4, 5, 37),), "kwargs": {"dim": -1, "keepdim": True}}
    yield {"name": "dim_middle", "args": (g.randn(4, 37, 5),), "kwargs": {"dim": 1}}
    yield {"name": "dim_tuple_0_2", "args": (g.randn(6, 5, 11),), "kwargs": {"dim": (0, 2)}}
    yield {"name": "dim_tuple_keepdim", "args": (g.randn(3, 4, 5, 6),), "kwargs": {"dim": (1, 3), "keepdim": True}}
    yield {"name": "size1_reduced_dim", "args": (g.randn(7, 1, 3),), "kwargs": {"dim": 1}}
    yield {"name": "single_element", "args": (g.tensor([[0.5]]),), "kwargs": {}}
    yield {"name": "f16_dtype_f32_no_f16_overflow",
           "args": (g.tensor([[12.0, 11.5, 0.0, -3.0], [15.0, -15.0, 1.0, 2.0]], dtype=torch.float16),),
           "kwargs": {"dim": 1, "dtype": torch.float32}}
    yield {"name": "f32_dtype_f64", "args": (g.randn(5, 40),), "kwargs": {"dim": -1, "dtype": torch.float64}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {"dim": 1}}


def random_cases(g):
    yield {"name": "randn_rows_odd", "args": (g.randn(37, 129),), "kwargs": {"dim": -1}}
    yield {"name": "randn_full_1d_odd", "args": (g.randn(5000),), "kwargs": {}}
    yield {"name": "outlier_3d_dim1", "args": (g.outlier(4, 333, 17, p=0.002, scale=20.0),), "kwargs": {"dim": 1}}
    yield {"name": "outlier_full_2d", "args": (g.outlier(71, 211, p=0.002, scale=20.0),), "kwargs": {}}
    yield {"name": "randn_f16_lastdim", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {"dim": 1}}
    yield {"name": "randn_f16_to_f32", "args": (g.randn(33, 300, dtype=torch.float16),),
           "kwargs": {"dim": -1, "dtype": torch.float32}}
    yield {"name": "outlier_bf16_tuple", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16, scale=10.0),),
           "kwargs": {"dim": (0, 2), "keepdim": True}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    kwargs = {"dim": params.get("dim"), "keepdim": False}
    if params.get("out_dtype"):
        kwargs["dtype"] = getattr(torch, params["out_dtype"])
    return (x,), kwargs


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    sizes = {"float32": 4, "float16": 2, "bfloat16": 2}
    es_in = sizes[params.get("dtype", "float32")]
    es_out = sizes[params.get("out_dtype") or params.get("dtype", "float32")]
    dim = params.get("dim")
    out = 1 if dim is None else n // params["shape"][dim]
    # read x once, write the means; exp (counted 1) + accumulate per element, one divide per output
    return {"bytes": n * es_in + out * es_out, "flops": 2 * n + out}
