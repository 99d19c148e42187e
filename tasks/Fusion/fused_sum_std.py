import torch

META = {
    "id": "Fusion/fused_sum_std",
    "category": "Fusion",
    "stem": "fused_sum_std",
    "entry": "fused_sum_std",
    "signature": "def fused_sum_std(input, dim=None, keepdim=False, dtype=None, correction=1, out=None) -> Tensor",
    "description": (
        "Two chained reductions: first the sums of input over dim (an int or a tuple of ints; None "
        "means all elements; keepdim only shapes this intermediate), as torch.sum(input, dim, "
        "keepdim, dtype=dtype) - dtype casts the input before summing, so integer inputs need a "
        "floating dtype - then the standard deviation of all those sums, sqrt(sum((s - mean)^2) / "
        "max(0, N - correction)) with N the number of sums. The result is a 0-d tensor of the sum's "
        "dtype. With dim=None there is a single sum, so correction=1 gives NaN (0/0) and "
        "correction=0 gives 0, as torch.std does. If out is given the result is also written there."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-5, 1e-4],
        "float16": [1e-2, 1e-2],
        "bfloat16": [5e-2, 3e-2],
    },
    "tolerance_note": (
        "Both summation orders are free (float32 rtol 1e-4); in half precision the reference "
        "rounds every sum to the half type before the deviation (about 1e-3 relative for float16, "
        "8e-3 for bfloat16, partly averaging out), a fused kernel need not."
    ),
    "notes": (
        "The spec's math is ambiguous about which values the deviation runs over; following its "
        "description ('the standard deviation of the summed values') the deviation is over all "
        "the sums, giving one scalar."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "rows_1k_x_1k_lastdim", "params": {"shape": [1024, 1024], "dim": -1}},
        {"name": "rows_4k_x_4k_lastdim", "params": {"shape": [4096, 4096], "dim": -1}},
        {"name": "16M_dim0", "params": {"shape": [4096, 4096], "dim": 0}},
        {"name": "16M_3d_dim12", "params": {"shape": [256, 256, 256], "dim": [1, 2]}},
        {"name": "64M_lastdim_bf16", "params": {"shape": [8192, 8192], "dim": -1, "dtype": "bfloat16"}},
    ],
}


def reference(input, dim=None, keepdim=False, dtype=None, correction=1, out=None):
    if dim is None:
        s = torch.sum(input, dtype=dtype)
    else:
        s = torch.sum(input, dim=dim, keepdim=keepdim, dtype=dtype)
    y = torch.std(s, correction=correction)
    if out is not None:
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "rows_with_inf_nan", "args": (g.tensor([[1.0, 2.0], [inf, 0.0], [3.0, 4.0]]),), "kwargs": {"dim": 1}}
    yield {"name": "rows_with_nan", "args": (g.tensor([[1.0, 2.0], [nan, 0.0], [3.0, 4.0]]),), "kwargs": {"dim": 1}}
    yield {"name": "equal_sums_std_zero", "args": (g.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [2.0, 2.0, 2.0]]),),
           "kwargs": {"dim": 1}}
    yield {"name": "dim_none_correction0_is_zero", "args": (g.randn(6, 7),), "kwargs": {"correction": 0}}
    yield {"name": "dim_none_correction1_is_nan", "args": (g.randn(6, 7),), "kwargs": {}}
    yield {"name": "dim0_keepdim", "args": (g.randn(33, 20),), "kwargs": {"dim": 0, "keepdim": True}}
    yield {"name": "dim_middle_correction2", "args": (g.randn(4, 37, 5),), "kwargs": {"dim": 1, "correction": 2}}
    yield {"name": "dim_tuple_0_2", "args": (g.randn(6, 5, 11),), "kwargs": {"dim": (0, 2)}}
    yield {"name": "dim_negative_tuple_keepdim_c0", "args": (g.randn(3, 4, 5, 6),),
           "kwargs": {"dim": (-1, 1), "keepdim": True, "correction": 0}}
    yield {"name": "two_sums", "args": (g.randn(2, 50),), "kwargs": {"dim": 1}}
    yield {"name": "one_sum_per_row_correction_too_big", "args": (g.randn(3, 5),), "kwargs": {"dim": 1, "correction": 3}}
    yield {"name": "int_input_dtype_f32", "args": (g.randint(-100, 100, 8, 21, dtype=torch.int32),),
           "kwargs": {"dim": 1, "dtype": torch.float32}}
    yield {"name": "f16_dtype_f32_no_overflow",
           "args": (g.tensor([[60000.0, 60000.0, 1.0], [-60000.0, 5.0, 2.0], [1.0, 2.0, 3.0]], dtype=torch.float16),),
           "kwargs": {"dim": 1, "dtype": torch.float32}}
    yield {"name": "f32_dtype_f64", "args": (g.randn(5, 40),), "kwargs": {"dim": -1, "dtype": torch.float64}}
    yield {"name": "out_given", "args": (g.randn(5, 8),), "kwargs": {"dim": 1, "out": g.tensor(0.0)}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {"dim": 1}}


def random_cases(g):
    yield {"name": "randn_rows_odd", "args": (g.randn(37, 129),), "kwargs": {"dim": -1}}
    yield {"name": "randn_1d_chunks", "args": (g.randn(50, 99),), "kwargs": {"dim": 0}}
    yield {"name": "outlier_3d_dim1", "args": (g.outlier(4, 333, 17),), "kwargs": {"dim": 1}}
    yield {"name": "outlier_2d_tuple_c0", "args": (g.outlier(71, 21, 10),), "kwargs": {"dim": (1, 2), "correction": 0}}
    yield {"name": "randn_f16_lastdim", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {"dim": 1}}
    yield {"name": "outlier_bf16_lastdim_keepdim", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),),
           "kwargs": {"dim": 2, "keepdim": True}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    dim = params.get("dim")
    return (x,), {"dim": tuple(dim) if isinstance(dim, list) else dim}


def perf_cost(params):
    shape = params["shape"]
    n = 1
    for s in shape:
        n *= s
    dim = params.get("dim")
    dims = [] if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    r = 1
    for d in dims:
        r *= shape[d]
    m = n // r if dims else 1
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x once, write one scalar (the sums stay on chip or in a small buffer: not counted);
    # one add per element, then mean and squared deviation over the m sums (4 per sum) and sqrt
    return {"bytes": n * es + es, "flops": n + 4 * m + 2}
