import torch

META = {
    "id": "Reduce/mean",
    "category": "Reduce",
    "stem": "mean",
    "entry": "mean",
    "signature": "mean(input, dim, keepdim=False, *, dtype=None, out=None) -> Tensor",
    "description": (
        "Arithmetic mean of the input over `dim`, which may be one int, a tuple of ints (negative "
        "allowed) or None (every dimension). keepdim=True keeps each reduced dimension with size 1, "
        "otherwise it is removed. If dtype is given the input is cast to it first and the result has "
        "that dtype (this is also how integer inputs are averaged); otherwise the result keeps the "
        "floating input dtype, with half precision expected to accumulate in float32 and round once. "
        "NaN propagates and inf follows IEEE rules."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Defaults: dividing by the count scales the summation-order error of up to ~8000 terms down to "
        "~1e-7, well inside 1e-5."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "4Kx4K_rows_f32", "params": {"shape": [4096, 4096], "dim": -1, "dtype": "float32"}},
        {"name": "4Kx4K_cols_f32", "params": {"shape": [4096, 4096], "dim": 0, "dtype": "float32"}},
        {"name": "8Kx8K_rows_f16", "params": {"shape": [8192, 8192], "dim": -1, "dtype": "float16"}},
        {"name": "32x256x56x56_spatial", "params": {"shape": [32, 256, 56, 56], "dim": [2, 3], "dtype": "float32"}},
        {"name": "64M_full_f32", "params": {"shape": [8192, 8192], "dim": None, "dtype": "float32"}},
    ],
}


def reference(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        return torch.mean(input, dim=dim, keepdim=keepdim, dtype=dtype, out=out)
    return torch.mean(input, dim=dim, keepdim=keepdim, dtype=dtype)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "last_dim_2d", "args": (g.randn(9, 13), -1), "kwargs": {}}
    yield {"name": "dim0_keepdim", "args": (g.randn(9, 13), 0, True), "kwargs": {}}
    yield {"name": "tuple_dims_spatial", "args": (g.randn(2, 3, 5, 7), (2, 3)), "kwargs": {"keepdim": True}}
    yield {"name": "negative_tuple", "args": (g.randn(3, 4, 5, 6), (-1, -3)), "kwargs": {}}
    yield {"name": "dim_none_full", "args": (g.randn(7, 11, 3), None), "kwargs": {}}
    yield {"name": "dim_none_keepdim", "args": (g.randn(7, 11), None, True), "kwargs": {}}
    yield {"name": "size1_reduced_dim", "args": (g.randn(8, 1, 5), 1), "kwargs": {}}
    yield {"name": "one_d_odd", "args": (g.randn(1001) + 3.0, 0), "kwargs": {}}
    x = g.tensor([[1.0, inf, 2.0], [inf, -inf, 0.0], [nan, 1.0, 1.0], [-inf, -inf, 3.0]])
    yield {"name": "inf_nan", "args": (x, 1), "kwargs": {}}
    # the fp16 sum (100000) overflows fp16, the mean (1000) does not
    big = torch.full((4, 100), 1000.0, dtype=torch.float16, device=g.device)
    yield {"name": "f16_sum_overflow_mean_fine", "args": (big, 1), "kwargs": {}}
    yield {"name": "f16_dtype_f32", "args": (g.randn(6, 70, dtype=torch.float16), 1),
           "kwargs": {"dtype": torch.float32}}
    yield {"name": "int_input_dtype_f32", "args": (g.randint(-50, 50, 5, 9, dtype=torch.int32), 0),
           "kwargs": {"dtype": torch.float32}}
    yield {"name": "constant_exact", "args": (torch.full((3, 37), 0.25, device=g.device), 1), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_rows_odd", "args": (g.randn(37, 129), 1), "kwargs": {}}
    yield {"name": "randn_3d_dims02", "args": (g.randn(4, 33, 65), (0, 2)), "kwargs": {}}
    yield {"name": "outlier_rows", "args": (g.outlier(64, 1000), -1), "kwargs": {}}
    yield {"name": "randn_long_rows_offset", "dist": "wide", "args": (g.randn(6, 8000) + 10.0, 1), "kwargs": {"keepdim": True}}
    yield {"name": "randn_f16_dim0", "args": (g.randn(300, 64, dtype=torch.float16), 0), "kwargs": {}}
    yield {"name": "outlier_bf16_last", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16), -1), "kwargs": {}}
    yield {"name": "randn_full_dim_none", "args": (g.randn(50, 333), None), "kwargs": {}}


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
    # read x once, write the reduced output once (input dtype); one add per input element plus one
    # division per output element
    return {"bytes": (n + out) * es, "flops": n + out}
