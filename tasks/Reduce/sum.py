import torch

META = {
    "id": "Reduce/sum",
    "category": "Reduce",
    "stem": "sum",
    "entry": "sum",
    "signature": "def sum(input, dim, keepdim=False, *, dtype=None) -> Tensor",
    "description": (
        "Sum of the input over `dim`, which may be one int, a tuple of ints (negative allowed) or "
        "None (reduce every dimension). keepdim=True keeps each reduced dimension with size 1, "
        "otherwise it is removed. If dtype is given the input is cast to it before summing and the "
        "result has that dtype. Without dtype, floating inputs keep their dtype (half precision is "
        "expected to accumulate in float32 and round once, so an fp16 result that exceeds the fp16 "
        "range is inf) and integer or bool inputs are summed exactly into int64. inf and NaN follow "
        "IEEE rules (inf + -inf = NaN)."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-4, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "float32 atol 1e-4: sums of up to ~8000 N(0,1) terms (magnitude ~100) whose summation order "
        "legitimately differs; integer sums are exact, half precision uses the defaults."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "4Kx4K_rows_f32", "params": {"shape": [4096, 4096], "dim": -1, "dtype": "float32"}},
        {"name": "4Kx4K_cols_f32", "params": {"shape": [4096, 4096], "dim": 0, "dtype": "float32"}},
        {"name": "8Kx8K_rows_bf16", "params": {"shape": [8192, 8192], "dim": -1, "dtype": "bfloat16"}},
        {"name": "64x512x1024_dims02", "params": {"shape": [64, 512, 1024], "dim": [0, 2], "dtype": "float32"}},
        {"name": "64M_full_f32", "params": {"shape": [8192, 8192], "dim": None, "dtype": "float32"}},
    ],
}


def reference(input, dim=None, keepdim=False, *, dtype=None):
    return torch.sum(input, dim=dim, keepdim=keepdim, dtype=dtype)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "last_dim_2d", "args": (g.randn(9, 13), -1), "kwargs": {}}
    yield {"name": "dim0_keepdim", "args": (g.randn(9, 13), 0, True), "kwargs": {}}
    yield {"name": "tuple_dims_3d", "args": (g.randn(5, 6, 7), (0, 2)), "kwargs": {}}
    yield {"name": "negative_tuple_keepdim", "args": (g.randn(3, 4, 5, 6), (-1, -3)), "kwargs": {"keepdim": True}}
    yield {"name": "dim_none_full", "args": (g.randn(7, 11, 3), None), "kwargs": {}}
    yield {"name": "dim_none_keepdim", "args": (g.randn(7, 11), None, True), "kwargs": {}}
    yield {"name": "size1_reduced_dim", "args": (g.randn(8, 1, 5), 1), "kwargs": {}}
    yield {"name": "one_d", "args": (g.randn(1001), 0), "kwargs": {}}
    x = g.tensor([[1.0, inf, 2.0], [inf, -inf, 0.0], [nan, 1.0, 1.0], [-inf, -inf, 3.0]])
    yield {"name": "inf_nan", "args": (x, 1), "kwargs": {}}
    big = torch.full((4, 100), 1000.0, dtype=torch.float16, device=g.device)
    yield {"name": "f16_result_overflows_to_inf", "args": (big, 1), "kwargs": {}}
    yield {"name": "f16_dtype_f32_no_overflow", "args": (big, 1), "kwargs": {"dtype": torch.float32}}
    # 4096 ones: an fp16 accumulator would stall at 2048
    yield {"name": "f16_fp32_accumulation", "args": (torch.ones(3, 4096, dtype=torch.float16, device=g.device), 1),
           "kwargs": {"dtype": torch.float32}}
    yield {"name": "int32_to_int64", "args": (g.randint(-1000, 1000, 6, 50, dtype=torch.int32), 1), "kwargs": {}}
    yield {"name": "int64_large_values", "args": (g.randint(2 ** 40, 2 ** 41, 5, 9), 0), "kwargs": {}}
    yield {"name": "bool_count", "args": (g.bernoulli(7, 30, p=0.3), -1), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_rows_odd", "args": (g.randn(37, 129), 1), "kwargs": {}}
    yield {"name": "randn_3d_dims02", "args": (g.randn(4, 33, 65), (0, 2)), "kwargs": {}}
    yield {"name": "outlier_rows", "args": (g.outlier(64, 1000), -1), "kwargs": {}}
    yield {"name": "randn_long_rows", "args": (g.randn(6, 8000), 1), "kwargs": {"keepdim": True}}
    yield {"name": "randn_f16_dim0", "args": (g.randn(300, 64, dtype=torch.float16), 0), "kwargs": {}}
    yield {"name": "outlier_bf16_last", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16), -1), "kwargs": {}}
    yield {"name": "randn_f16_full_to_f32", "args": (g.randn(50, 333, dtype=torch.float16), None),
           "kwargs": {"dtype": torch.float32}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    dim = params.get("dim", -1)
    if isinstance(dim, list):
        dim = tuple(dim)
    return (x, dim), {}


def perf_cost(params):
    shape = params["shape"]
    n = 1
    for s in shape:
        n *= s
    dim = params.get("dim", -1)
    if dim is None:
        out = 1
    else:
        dims = dim if isinstance(dim, (list, tuple)) else [dim]
        red = 1
        for d in dims:
            red *= shape[d]
        out = n // red
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x once, write the reduced output once (input dtype); one add per input element
    return {"bytes": (n + out) * es, "flops": n}
