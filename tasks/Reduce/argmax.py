import torch

META = {
    "id": "Reduce/argmax",
    "category": "Reduce",
    "stem": "argmax",
    "entry": "argmax",
    "signature": "argmax(input, dim, keepdim=False) -> LongTensor",
    "description": (
        "Index (int64) of the maximum value along `dim`; with dim=None the index into the flattened "
        "input (then keepdim=True returns a tensor with every dimension of size 1). keepdim=True "
        "keeps the reduced dimension with size 1. Ties resolve to the first (lowest) index, -0.0 and "
        "+0.0 are equal, and NaN counts as larger than everything: a slice containing NaN returns the "
        "index of its first NaN (the behaviour of torch.max). A slice of only -inf returns 0. Float "
        "(float32/float16/bfloat16) and integer inputs are supported; the result is compared exactly."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "Indices are int64 and compared exactly; the float tolerances are never used.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "4Kx4K_rows_f32", "params": {"shape": [4096, 4096], "dim": -1, "dtype": "float32"}},
        {"name": "vocab_256x32000_f32", "params": {"shape": [256, 32000], "dim": -1, "dtype": "float32"}},
        {"name": "vocab_1024x128256_bf16", "params": {"shape": [1024, 128256], "dim": -1, "dtype": "bfloat16"}},
        {"name": "4Kx4K_cols_f32", "params": {"shape": [4096, 4096], "dim": 0, "dtype": "float32"}},
        {"name": "16M_flat_f32", "params": {"shape": [4096, 4096], "dim": None, "dtype": "float32"}},
    ],
}


def reference(input, dim=None, keepdim=False):
    return torch.argmax(input, dim=dim, keepdim=keepdim)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    ties = g.tensor([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, 5.0], [-1.0, -2.0, -1.0, -3.0]])
    yield {"name": "ties_first_index_rows", "args": (ties, 1), "kwargs": {}}
    yield {"name": "ties_first_index_cols", "args": (ties, 0), "kwargs": {}}
    yield {"name": "ties_flattened_dim_none", "args": (g.tensor([[0.0, 7.0, 1.0], [7.0, 2.0, 7.0]]), None),
           "kwargs": {}}
    yield {"name": "dim_none_keepdim", "args": (g.randn(4, 5, 6), None, True), "kwargs": {}}
    nans = g.tensor([[1.0, nan, 3.0, nan], [nan, 9.0, 1.0, 2.0], [0.0, 1.0, 2.0, nan], [1.0, 2.0, inf, 0.0]])
    yield {"name": "nan_wins_first_nan", "args": (nans, 1), "kwargs": {}}
    yield {"name": "nan_dim_none", "args": (nans, None), "kwargs": {}}
    infs = g.tensor([[-inf, -inf, -inf], [-inf, -5.0, -inf], [inf, 1e30, inf], [-0.0, 0.0, -1.0]])
    yield {"name": "infs_and_signed_zero", "args": (infs, -1), "kwargs": {}}
    yield {"name": "size1_dim", "args": (g.randn(6, 1, 4), 1), "kwargs": {}}
    yield {"name": "keepdim_middle_3d", "args": (g.randn(3, 17, 5), 1, True), "kwargs": {}}
    yield {"name": "int32_ties", "args": (g.randint(-3, 4, 9, 40, dtype=torch.int32), 1), "kwargs": {}}
    yield {"name": "int64_large", "args": (g.randint(-2 ** 62, 2 ** 62, 50, 7), 0), "kwargs": {}}
    yield {"name": "one_d", "args": (g.randn(1001), 0), "kwargs": {}}
    # many exact ties in half precision, spread over a long row (ties across any chunking)
    yield {"name": "f16_coarse_ties_long_rows", "args": (g.randint(0, 8, 16, 3000).to(torch.float16), -1),
           "kwargs": {}}
    late = g.randn(4, 2500)
    late[:, 1500] = 9.0
    late[:, 2400] = 9.0
    yield {"name": "max_tied_late_in_long_row", "args": (late, 1), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_rows_odd", "args": (g.randn(37, 129), 1), "kwargs": {}}
    yield {"name": "randn_3d_dim0", "args": (g.randn(4, 33, 65), 0), "kwargs": {}}
    yield {"name": "outlier_long_rows", "args": (g.outlier(16, 3000), -1), "kwargs": {}}
    yield {"name": "randn_f16_dim1_keepdim", "args": (g.randn(5, 300, 20, dtype=torch.float16), 1, True), "kwargs": {}}
    yield {"name": "outlier_bf16_ties", "args": (g.outlier(30, 511, dtype=torch.bfloat16), -1), "kwargs": {}}
    yield {"name": "randn_flat_none", "args": (g.randn(64, 300), None), "kwargs": {}}
    yield {"name": "randint_ties_dim0", "args": (g.randint(0, 5, 257, 33).float(), 0), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    return (x, params.get("dim", -1)), {}


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
    # read x once, write int64 indices once; one compare per input element
    return {"bytes": n * es + out * 8, "flops": n}
