import torch

META = {
    "id": "Index/index_select",
    "category": "Index",
    "stem": "index_select",
    "entry": "index_select",
    "signature": "index_select(input, dim, index) -> Tensor",
    "description": (
        "Gathers whole slices of input along dimension dim (negative dims allowed) at the positions "
        "listed in the 1-D integer tensor index (int64 or int32; repeats and any order allowed; an "
        "empty index gives a size-0 dimension). The output has input's shape except that "
        "size(dim) becomes len(index); values are copied bit-exactly, so NaN/inf and integer "
        "payloads must be preserved."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "Pure data movement: every value must be copied exactly.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_cost_note": 'A gather: only the n_index selected slices of the input are read (plus the index), not the whole input tensor.',
    "perf_shapes": [
        {"name": "emb_32k_x_1k_take_4k", "params": {"shape": [32768, 1024], "dim": 0, "n_index": 4096}},
        {"name": "emb_128k_x_1k_take_16k", "params": {"shape": [131072, 1024], "dim": 0, "n_index": 16384}},
        {"name": "emb_64k_x_4k_take_16k_bf16", "params": {"shape": [65536, 4096], "dim": 0, "n_index": 16384, "dtype": "bfloat16"}},
        {"name": "cols_8k_x_8k_take_2k", "params": {"shape": [8192, 8192], "dim": 1, "n_index": 2048}},
    ],
}


def reference(input, dim, index):
    return torch.index_select(input, dim, index)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    table = g.tensor([[0.0, -0.0, inf], [-inf, nan, 1.0], [2.0, 3.0, 4.0]])
    yield {"name": "special_values_rows_repeated",
           "args": (table, 0, g.tensor([1, 1, 0, 2, 1], dtype=torch.int64)), "kwargs": {}}
    yield {"name": "cols_dim1", "args": (g.randn(5, 9), 1, g.tensor([8, 0, 3], dtype=torch.int64)), "kwargs": {}}
    yield {"name": "negative_dim", "args": (g.randn(3, 4, 6), -1, g.tensor([5, 5, 0], dtype=torch.int64)),
           "kwargs": {}}
    yield {"name": "middle_dim_int32_index", "args": (g.randn(3, 7, 5), 1, g.tensor([6, 0, 2, 2], dtype=torch.int32)),
           "kwargs": {}}
    yield {"name": "empty_index", "args": (g.randn(4, 6), 0, g.tensor([], dtype=torch.int64)), "kwargs": {}}
    yield {"name": "single_index", "args": (g.randn(10, 3), 0, g.tensor([9], dtype=torch.int64)), "kwargs": {}}
    yield {"name": "1d_input", "args": (g.randn(17), 0, g.tensor([16, 0, 8, 3, 3], dtype=torch.int64)), "kwargs": {}}
    yield {"name": "int64_values", "args": (g.randint(-2**40, 2**40, 6, 4), 0, g.tensor([5, 0, 3], dtype=torch.int64)),
           "kwargs": {}}
    yield {"name": "bool_values", "args": (g.bernoulli(5, 8), 1, g.tensor([7, 1, 1], dtype=torch.int64)), "kwargs": {}}
    yield {"name": "non_contiguous_input", "args": (g.randn(12, 10).t(), 0, g.tensor([9, 2, 4], dtype=torch.int64)),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "rows_randn_odd", "args": (g.randn(300, 65), 0, g.randint(0, 300, 123)), "kwargs": {}}
    yield {"name": "rows_outlier_perm", "args": (g.outlier(257, 33), 0, g.perm(257)), "kwargs": {}}
    yield {"name": "cols_randn_dim1", "args": (g.randn(40, 211), 1, g.randint(0, 211, 77)), "kwargs": {}}
    yield {"name": "middle_dim_f16", "args": (g.randn(6, 101, 17, dtype=torch.float16), 1,
                                             g.randint(0, 101, 50, dtype=torch.int32)), "kwargs": {}}
    yield {"name": "rows_bf16", "args": (g.randn(500, 48, dtype=torch.bfloat16), 0, g.randint(0, 500, 333)),
           "kwargs": {}}
    yield {"name": "last_dim_int32_values", "args": (g.randint(-1000, 1000, 9, 130, dtype=torch.int32), -1,
                                                    g.randint(0, 130, 61)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape = params["shape"]
    x = g.randn(*shape, dtype=dtype)
    idx = g.randint(0, shape[params["dim"]], params["n_index"])
    return (x, params["dim"], idx), {}


def perf_cost(params):
    shape, dim, m = params["shape"], params["dim"], params["n_index"]
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    rest = 1
    for i, s in enumerate(shape):
        if i != dim:
            rest *= s
    out = m * rest
    # a gather: the int64 index, the selected slices read once, the output written once; no FLOPs
    return {"bytes": m * 8 + out * es + out * es, "flops": 0}
