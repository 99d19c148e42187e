import torch

META = {
    "id": "Reduce/min",
    "category": "Reduce",
    "stem": "min",
    "entry": "min",
    "signature": "min(input, dim, keepdim=False, *, out=None) -> (Tensor, LongTensor)",
    "description": (
        "Minimum along dimension dim together with its position: returns (values, indices), values in "
        "the input's dtype and indices as int64. keepdim=True keeps the reduced dimension with size 1, "
        "otherwise it is removed. Ties resolve to the first (lowest) index; -0.0 and +0.0 compare equal; "
        "NaN propagates: a slice containing NaN yields NaN and the index of its first NaN (the behaviour "
        "of torch.min). Float (float32/float16/bfloat16) and integer inputs are supported; everything is "
        "compared exactly."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "The minimum is one of the input values and the index an int64, so both are compared exactly.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "4Kx4K_rows_f32", "params": {"shape": [4096, 4096], "dim": -1}},
        {"name": "vocab_256x32000_f32", "params": {"shape": [256, 32000], "dim": -1}},
        {"name": "4Kx4K_cols_f32", "params": {"shape": [4096, 4096], "dim": 0}},
        {"name": "vocab_1024x128256_bf16", "params": {"shape": [1024, 128256], "dim": -1, "dtype": "bfloat16"}},
        {"name": "16Kx16K_rows_f16", "params": {"shape": [16384, 16384], "dim": 1, "dtype": "float16"}},
    ],
}


def reference(input, dim, keepdim=False, *, out=None):
    if out is not None:
        return torch.min(input, dim, keepdim, out=out)
    return torch.min(input, dim, keepdim)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    ties = g.tensor([[1.0, -3.0, -3.0, 2.0], [5.0, 5.0, 5.0, 5.0], [-1.0, 2.0, -1.0, 3.0]])
    yield {"name": "ties_first_index_rows", "args": (ties, 1), "kwargs": {}}
    yield {"name": "ties_first_index_cols", "args": (ties, 0), "kwargs": {}}
    nans = g.tensor([[1.0, nan, -3.0, nan], [nan, -9.0, 1.0, 2.0], [0.0, 1.0, -inf, nan], [1.0, 2.0, -inf, 0.0]])
    yield {"name": "nan_propagates_first_nan", "args": (nans, 1), "kwargs": {}}
    yield {"name": "nan_cols", "args": (nans, 0), "kwargs": {}}
    infs = g.tensor([[inf, inf, inf], [inf, 5.0, inf], [-inf, -1e30, -inf], [0.0, -0.0, 1.0], [1e-45, 0.0, 1.0]])
    yield {"name": "infs_signed_zero_denormal", "args": (infs, -1), "kwargs": {}}
    yield {"name": "size1_dim", "args": (g.randn(6, 1, 4), 1), "kwargs": {}}
    yield {"name": "keepdim_middle_3d", "args": (g.randn(3, 17, 5), 1, True), "kwargs": {}}
    yield {"name": "keepdim_0d", "args": (g.tensor(2.5), 0, True), "kwargs": {}}
    yield {"name": "int32_ties", "args": (g.randint(-3, 4, 9, 40, dtype=torch.int32), 1), "kwargs": {}}
    yield {"name": "int64_large", "args": (g.randint(-2 ** 62, 2 ** 62, 50, 7), 0), "kwargs": {}}
    yield {"name": "one_d", "args": (g.randn(1001), 0), "kwargs": {}}
    yield {"name": "f16_coarse_ties_long_rows", "args": (g.randint(0, 8, 16, 3000).to(torch.float16), -1), "kwargs": {}}
    late = g.randn(4, 2500)
    late[:, 1500] = -9.0
    late[:, 2400] = -9.0
    yield {"name": "min_tied_late_in_long_row", "args": (late, 1), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (g.randn(40, 24).t(), 1), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_rows_odd", "args": (g.randn(37, 129), 1), "kwargs": {}}
    yield {"name": "randn_3d_dim0", "args": (g.randn(4, 33, 65), 0), "kwargs": {}}
    yield {"name": "outlier_long_rows", "args": (g.outlier(16, 3000), -1), "kwargs": {}}
    yield {"name": "randn_f16_dim1_keepdim", "args": (g.randn(5, 300, 20, dtype=torch.float16), 1, True), "kwargs": {}}
    yield {"name": "outlier_bf16_ties", "args": (g.outlier(30, 511, dtype=torch.bfloat16), -1), "kwargs": {}}
    yield {"name": "randint_ties_dim0", "args": (g.randint(0, 5, 257, 33).float(), 0), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype), params.get("dim", -1)), {}


def perf_cost(params):
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    n = 1
    for s in params["shape"]:
        n *= s
    m = n // params["shape"][params["dim"]]
    return {"bytes": n * es + m * (es + 8), "flops": n}
