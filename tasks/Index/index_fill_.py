import torch

META = {
    "id": "Index/index_fill_",
    "category": "Index",
    "stem": "index_fill_",
    "entry": "index_fill_",
    "signature": "index_fill_(dim, index, value) -> Tensor",
    "description": (
        "In-place Tensor.index_fill_: the entry is called as index_fill_(self, dim, index, value) with "
        "the tensor to modify passed first. Every slice of self at position index[i] along dimension dim "
        "(negative dim and negative indices count from the end) is set to the scalar value, converted to "
        "self's dtype; index is a 1-D (or 0-d) int64 tensor whose entries may repeat and come in any "
        "order. self is modified in place and returned; all other elements are left unchanged."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "perf_cost_note": "In place: only the selected slices are written (plus the index read); the rest of the tensor is never touched, so the bytes are far below the tensor's size.",
    "tolerance_note": "Elements are either kept or replaced by the converted value, so everything is compared exactly.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "rows_4Kx4K_f32", "params": {"shape": [4096, 4096], "dim": 0, "k": 1024}},
        {"name": "cols_4Kx4K_f32", "params": {"shape": [4096, 4096], "dim": 1, "k": 1024}},
        {"name": "tokens_16x2Kx4K_bf16", "params": {"shape": [16, 2048, 4096], "dim": 1, "k": 512, "dtype": "bfloat16"}},
        {"name": "vocab_mask_256x128K_f16", "params": {"shape": [256, 131072], "dim": 1, "k": 32768, "dtype": "float16"}},
        {"name": "rows_16Kx16K_f32", "params": {"shape": [16384, 16384], "dim": 0, "k": 8192}},
    ],
}


def reference(input, dim, index, value):
    return input.index_fill_(dim, index, value)


def _idx(g, data):
    return g.tensor(data, dtype=torch.int64)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    x = g.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    yield {"name": "spec_example_cols", "args": (x, 1, _idx(g, [0, 2]), -1.0), "kwargs": {}, "mutates": [0]}
    yield {"name": "rows", "args": (g.randn(6, 5), 0, _idx(g, [4, 1]), 2.5), "kwargs": {}, "mutates": [0]}
    yield {"name": "negative_dim_and_index", "args": (g.randn(3, 4, 7), -1, _idx(g, [-1, 0, -3]), 0.0),
           "kwargs": {}, "mutates": [0]}
    yield {"name": "duplicate_unsorted_index", "args": (g.randn(5, 9), 1, _idx(g, [8, 2, 8, 2, 5]), 4.0),
           "kwargs": {}, "mutates": [0]}
    yield {"name": "fill_nan", "args": (g.randn(4, 6), 0, _idx(g, [3]), nan), "kwargs": {}, "mutates": [0]}
    yield {"name": "fill_neg_inf", "args": (g.randn(4, 6), 1, _idx(g, [0, 5]), -inf), "kwargs": {}, "mutates": [0]}
    yield {"name": "scalar_index_0d", "args": (g.randn(5, 5), 0, g.tensor(2, dtype=torch.int64), 1.0),
           "kwargs": {}, "mutates": [0]}
    yield {"name": "empty_index", "args": (g.randn(4, 4), 1, _idx(g, []), 9.0), "kwargs": {}, "mutates": [0]}
    yield {"name": "every_index", "args": (g.randn(3, 8), 1, g.perm(8), -2.0), "kwargs": {}, "mutates": [0]}
    yield {"name": "1d", "args": (g.randn(33), 0, _idx(g, [0, 32, 16]), 3.0), "kwargs": {}, "mutates": [0]}
    yield {"name": "middle_dim_4d", "args": (g.randn(2, 5, 3, 4), 1, _idx(g, [1, 3]), 0.5), "kwargs": {}, "mutates": [0]}
    yield {"name": "int32_tensor", "args": (g.randint(-100, 100, 6, 7, dtype=torch.int32), 0, _idx(g, [5, 0]), 42),
           "kwargs": {}, "mutates": [0]}
    yield {"name": "int64_fill_float_truncates", "args": (g.randint(-100, 100, 6, 7), 1, _idx(g, [3]), -3.0),
           "kwargs": {}, "mutates": [0]}
    yield {"name": "non_contiguous_self", "args": (g.randn(40, 24).t(), 0, _idx(g, [1, 7, 23]), 8.0),
           "kwargs": {}, "mutates": [0]}


def random_cases(g):
    yield {"name": "randn_cols_odd", "args": (g.randn(37, 129), 1, g.randint(0, 129, 20), -1.5), "kwargs": {}, "mutates": [0]}
    yield {"name": "outlier_rows_3d", "args": (g.outlier(4, 33, 65), 1, g.randint(-33, 33, 11), 0.0), "kwargs": {}, "mutates": [0]}
    yield {"name": "randn_last_dim_3d", "args": (g.randn(5, 17, 100), 2, g.perm(100)[:37], 7.0), "kwargs": {}, "mutates": [0]}
    yield {"name": "f16", "args": (g.randn(64, 100, dtype=torch.float16), 0, g.randint(0, 64, 9), 0.333), "kwargs": {}, "mutates": [0]}
    yield {"name": "bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16), 2, g.randint(0, 311, 50), -100.5),
           "kwargs": {}, "mutates": [0]}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape = params["shape"]
    d = params["dim"]
    return (g.randn(*shape, dtype=dtype), d, g.perm(shape[d])[:params["k"]], -1.0), {}


def perf_cost(params):
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    shape = params["shape"]
    rest = 1
    for i, s in enumerate(shape):
        if i != params["dim"]:
            rest *= s
    # only the filled slices are written (in place), plus the index read
    return {"bytes": params["k"] * rest * es + params["k"] * 8, "flops": 0}
