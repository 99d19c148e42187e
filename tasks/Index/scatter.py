import torch

META = {
    "id": "Index/scatter",
    "category": "Index",
    "stem": "scatter",
    "entry": "scatter",
    "signature": "scatter(input, dim, index, src) -> Tensor",
    "description": (
        "Out-of-place Tensor.scatter: returns a copy of input in which, for every position p of the int64 "
        "tensor index, the element of src at p is written to the position p with its coordinate along dim "
        "replaced by index[p] (for dim = 0 in 3-D: out[index[i][j][k]][j][k] = src[i][j][k]). index has "
        "the same number of dimensions as input and src, is no larger than src in any dimension and no "
        "larger than input outside dim; only the index-shaped corner of src is used. In the tests the "
        "targets along dim are distinct for each fixed position of the other coordinates (with repeats "
        "PyTorch leaves the winner unspecified). input is not modified; values are copied exactly."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "Scatter only moves values (no two writes to one element in the tests), so every dtype is compared exactly.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "rows_4Kx4K_f32", "params": {"shape": [4096, 4096], "dim": 0, "k": 2048}},
        {"name": "cols_4Kx4K_f32", "params": {"shape": [4096, 4096], "dim": 1, "k": 2048}},
        {"name": "onehot_8Kx32K_f16", "params": {"shape": [8192, 32768], "dim": 1, "k": 1, "dtype": "float16"}},
        {"name": "perm_16x2Kx1K_bf16", "params": {"shape": [16, 2048, 1024], "dim": 1, "k": 2048, "dtype": "bfloat16"}},
        {"name": "cols_16Kx16K_f32", "params": {"shape": [16384, 16384], "dim": 1, "k": 8192}},
    ],
}


def reference(input, dim, index, src):
    return torch.scatter(input, dim, index, src)


def _unique_index(g, in_shape, dim, ishape):
    """index of shape ishape whose entries along dim are distinct targets in [0, in_shape[dim])."""
    full = list(ishape)
    full[dim] = in_shape[dim]
    return g.rand(*full).argsort(dim=dim).narrow(dim, 0, ishape[dim]).contiguous()


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "spec_dim0_3d", "args": (g.randn(4, 3, 5), 0, _unique_index(g, (4, 3, 5), 0, (2, 3, 5)), g.randn(2, 3, 5)),
           "kwargs": {}}
    yield {"name": "dim1_smaller_index", "args": (g.randn(5, 8), 1, _unique_index(g, (5, 8), 1, (3, 4)), g.randn(6, 6)),
           "kwargs": {}}
    yield {"name": "negative_dim", "args": (g.randn(3, 4, 9), -1, _unique_index(g, (3, 4, 9), 2, (3, 4, 5)), g.randn(3, 4, 5)),
           "kwargs": {}}
    yield {"name": "onehot", "args": (g.tensor([[0.0] * 6] * 4), 1, g.tensor([[2], [0], [5], [2]], dtype=torch.int64),
                                      g.tensor([[1.0]] * 4)), "kwargs": {}}
    yield {"name": "full_permutation", "args": (g.randn(3, 7), 1, _unique_index(g, (3, 7), 1, (3, 7)), g.randn(3, 7)),
           "kwargs": {}}
    yield {"name": "special_values", "args": (g.randn(2, 6), 1, g.tensor([[0, 1, 2], [5, 4, 3]], dtype=torch.int64),
                                              g.tensor([[nan, inf, -0.0], [-inf, 1e-45, nan]])), "kwargs": {}}
    yield {"name": "empty_index", "args": (g.randn(3, 4), 0, torch.empty(0, 4, dtype=torch.int64, device=g.device),
                                           g.randn(3, 4)), "kwargs": {}}
    yield {"name": "1d", "args": (g.randn(33), 0, g.perm(33)[:10], g.randn(12)), "kwargs": {}}
    yield {"name": "int64_values", "args": (g.randint(-2 ** 62, 2 ** 62, 6, 5), 0, _unique_index(g, (6, 5), 0, (4, 5)),
                                            g.randint(-2 ** 62, 2 ** 62, 4, 5)), "kwargs": {}}
    yield {"name": "bool_values", "args": (g.bernoulli(5, 6), 1, _unique_index(g, (5, 6), 1, (5, 3)), g.bernoulli(5, 3)),
           "kwargs": {}}
    yield {"name": "non_contiguous_all", "args": (g.randn(8, 6).t(), 0, _unique_index(g, (6, 8), 0, (4, 8)).t().contiguous().t(),
                                                  g.randn(10, 20)[::2, ::2]), "kwargs": {}}


def random_cases(g):
    yield {"name": "rows_odd", "args": (g.randn(37, 129), 0, _unique_index(g, (37, 129), 0, (20, 129)), g.randn(20, 129)),
           "kwargs": {}}
    yield {"name": "cols_outlier_3d", "args": (g.outlier(4, 33, 65), 2, _unique_index(g, (4, 33, 65), 2, (4, 30, 40)),
                                               g.outlier(4, 33, 41)), "kwargs": {}}
    yield {"name": "middle_dim_4d", "args": (g.randn(2, 50, 3, 7), 1, _unique_index(g, (2, 50, 3, 7), 1, (2, 25, 3, 7)),
                                             g.randn(2, 25, 3, 7)), "kwargs": {}}
    yield {"name": "f16", "args": (g.randn(64, 100, dtype=torch.float16), 1, _unique_index(g, (64, 100), 1, (64, 33)),
                                   g.randn(64, 33, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "bf16", "args": (g.outlier(21, 311, dtype=torch.bfloat16), 0, _unique_index(g, (21, 311), 0, (21, 300)),
                                    g.randn(21, 311, dtype=torch.bfloat16)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape = params["shape"]
    d = params["dim"]
    ishape = list(shape)
    ishape[d] = params["k"]
    if params["k"] == 1:
        idx = g.randint(0, shape[d], *ishape)
    else:
        # distinct targets per fibre: a random cyclic shift of a strided pattern keeps it cheap to build
        base = torch.arange(params["k"], device=g.device) * (shape[d] // params["k"])
        view = [1] * len(shape)
        view[d] = params["k"]
        idx = (base.view(view) + g.randint(0, shape[d], *[1 if i == d else s for i, s in enumerate(shape)])) % shape[d]
        idx = idx.expand(ishape).contiguous()
    return (g.randn(*shape, dtype=dtype), d, idx, g.randn(*ishape, dtype=dtype)), {}


def perf_cost(params):
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    n = 1
    for s in params["shape"]:
        n *= s
    m = n // params["shape"][params["dim"]] * params["k"]
    # copy of input (read + write), index and src read
    return {"bytes": 2 * n * es + m * (8 + es), "flops": 0}
