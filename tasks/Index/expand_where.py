import torch

META = {
    "id": "Index/expand_where",
    "category": "Index",
    "stem": "expand_where",
    "entry": "expand_where",
    "signature": "expand_where(input, target_sizes, cond, other) -> Tensor",
    "description": (
        "Broadcasts input to target_sizes with Tensor.expand semantics (size-1 dimensions are repeated, "
        "new leading dimensions may be added, -1 keeps a dimension's size), then selects element-wise: "
        "out = where(cond, expanded_input, other). cond is a bool tensor and other a tensor, both "
        "broadcastable against the expanded shape; the result has the broadcast shape of the three and "
        "the common dtype of input and other (they share one dtype in the tests). Values are selected, "
        "never computed, so the result is exact; the output is a new tensor, not a view."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "A selection moves values without arithmetic, so every dtype is compared exactly.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "row_to_4Kx4K_f32", "params": {"input": [1, 4096], "target": [4096, 4096]}},
        {"name": "col_to_8Kx8K_f32", "params": {"input": [8192, 1], "target": [8192, 8192]}},
        {"name": "bias_to_bsd_f16", "params": {"input": [4096], "target": [16, 2048, 4096], "dtype": "float16"}},
        {"name": "mask_bcast_bf16", "params": {"input": [32, 1, 2048], "target": [32, 2048, 2048], "dtype": "bfloat16"}},
        {"name": "full_16Kx16K_f32", "params": {"input": [16384, 1], "target": [16384, 16384]}},
    ],
}


def reference(input, target_sizes, cond, other):
    return torch.where(cond, input.expand(target_sizes), other)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "row_expand_special", "args": (g.tensor([[nan, -0.0, inf, -inf]]), [3, 4],
                                                  g.bernoulli(3, 4), g.tensor([[1.0, 2.0, nan, 0.0]] * 3)), "kwargs": {}}
    yield {"name": "minus_one_keeps_size", "args": (g.randn(5, 1, 7), (-1, 6, -1), g.bernoulli(5, 6, 7),
                                                    g.randn(5, 6, 7)), "kwargs": {}}
    yield {"name": "new_leading_dims", "args": (g.randn(9), [2, 3, 9], g.bernoulli(3, 9), g.randn(9)), "kwargs": {}}
    yield {"name": "cond_broadcasts_to_bigger", "args": (g.randn(4, 1), [4, 6], g.bernoulli(2, 1, 1),
                                                         g.randn(6)), "kwargs": {}}
    yield {"name": "other_bigger_than_target", "args": (g.randn(1, 8), [5, 8], g.bernoulli(5, 8),
                                                        g.randn(3, 1, 1)), "kwargs": {}}
    yield {"name": "all_true", "args": (g.randn(1, 10), [6, 10], torch.ones(6, 10, dtype=torch.bool, device=g.device),
                                        g.randn(6, 10)), "kwargs": {}}
    yield {"name": "all_false_scalar_other", "args": (g.randn(3, 1), [3, 5], g.tensor(False, dtype=torch.bool),
                                                      g.tensor(7.0)), "kwargs": {}}
    yield {"name": "0d_input", "args": (g.tensor(3.0), [4, 4], g.bernoulli(4, 4), g.randn(4, 4)), "kwargs": {}}
    yield {"name": "int64", "args": (g.randint(-2 ** 62, 2 ** 62, 1, 11), [7, 11], g.bernoulli(7, 11),
                                     g.randint(-5, 5, 7, 11)), "kwargs": {}}
    yield {"name": "bool_values", "args": (g.bernoulli(6, 1), [6, 4], g.bernoulli(6, 4), g.bernoulli(1, 4)), "kwargs": {}}
    yield {"name": "non_contiguous_inputs", "args": (g.randn(10, 1, 3)[::2], [5, 4, 3], g.bernoulli(3, 4, 5).permute(2, 1, 0),
                                                     g.randn(12, 3)[::3]), "kwargs": {}}


def random_cases(g):
    yield {"name": "row_to_odd_2d", "args": (g.randn(1, 129), [37, 129], g.bernoulli(37, 129), g.randn(37, 129)), "kwargs": {}}
    yield {"name": "col_outlier_3d", "args": (g.outlier(4, 33, 1), [4, 33, 65], g.bernoulli(4, 1, 65, p=0.3),
                                              g.outlier(4, 33, 65)), "kwargs": {}}
    yield {"name": "bias_to_batch", "args": (g.randn(100), [3, 50, 100], g.bernoulli(3, 50, 100, p=0.7),
                                             g.randn(50, 1)), "kwargs": {}}
    yield {"name": "f16", "args": (g.randn(8, 1, 64, dtype=torch.float16), [8, 31, 64], g.bernoulli(8, 31, 64),
                                   g.randn(31, 64, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "bf16", "args": (g.outlier(1, 311, dtype=torch.bfloat16), [21, 311], g.bernoulli(21, 1),
                                    g.randn(21, 311, dtype=torch.bfloat16)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    t = params["target"]
    return (g.randn(*params["input"], dtype=dtype), list(t), g.bernoulli(*t), g.randn(*t, dtype=dtype)), {}


def perf_cost(params):
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    n = 1
    for s in params["target"]:
        n *= s
    m = 1
    for s in params["input"]:
        m *= s
    # input read once, cond (1 byte) and other read per element, output written
    return {"bytes": m * es + n + n * es + n * es, "flops": 0}
