import torch

META = {
    "id": "Fusion/fused_embedding_add_tanh",
    "category": "Fusion",
    "stem": "fused_embedding_add_tanh",
    "entry": "fused_embedding_add_tanh",
    "signature": ("fused_embedding_add_tanh(input_indices, weight, other, *, padding_idx=None, max_norm=None, "
                  "norm_type=2.0, scale_grad_by_freq=False, sparse=False, out=None) -> Tensor"),
    "description": (
        "Embedding lookup E = weight[input_indices] (indices of any shape, weight (V, D)), then "
        "tanh(E + other) with other broadcastable to E's shape (*, D). padding_idx, scale_grad_by_freq "
        "and sparse only concern gradients. With max_norm, as in torch.nn.functional.embedding, every "
        "row of weight that is looked up and whose norm_type-norm exceeds max_norm is rescaled in place "
        "to norm max_norm (scale max_norm / (norm + 1e-7)) before the lookup; those cases allow and "
        "compare the modification of weight. The output has E's shape and the promoted dtype. If out "
        "is given the result is also written there."
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
        "A gather, one add and tanh: tanh implementations differ by a few ulp (rtol 1e-4); the max_norm "
        "rescale depends on a norm whose summation order may differ (~1e-7 relative); half precision "
        "allows the rounding of the sum before tanh plus one output ulp."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_cost_note": "Only the looked-up rows of weight are read (one D-vector per index), not the whole table.",
    "perf_shapes": [
        {"name": "tokens8k_d1024_f32", "params": {"idx": [8, 1024], "V": 32000, "D": 1024, "dtype": "float32"}},
        {"name": "tokens32k_d1024_f32", "params": {"idx": [32, 1024], "V": 32000, "D": 1024, "dtype": "float32"}},
        {"name": "tokens32k_d2048_f16", "params": {"idx": [16, 2048], "V": 50000, "D": 2048, "dtype": "float16"}},
        {"name": "tokens64k_d1024_bf16_maxnorm",
         "params": {"idx": [64, 1024], "V": 32000, "D": 1024, "dtype": "bfloat16", "max_norm": 1.0}},
    ],
}


def reference(input_indices, weight, other, *, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False, out=None):
    e = torch.nn.functional.embedding(input_indices, weight, padding_idx=padding_idx, max_norm=max_norm,
                                      norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
    y = torch.tanh(e + other)
    if out is not None:
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    nan, inf = float("nan"), float("inf")
    yield {"name": "special_other", "args": (g.tensor([0, 2, 1, 2], dtype=torch.int64), g.randn(3, 6),
                                             g.tensor([0.0, nan, inf, -inf, 30.0, -30.0])), "kwargs": {}}
    yield {"name": "idx_2d_other_full", "args": (g.randint(0, 50, 7, 9), g.randn(50, 16), g.randn(7, 9, 16)), "kwargs": {}}
    yield {"name": "other_scalar_like_0d", "args": (g.randint(0, 10, 5), g.randn(10, 8), g.tensor(0.5)), "kwargs": {}}
    yield {"name": "other_broadcast_col", "args": (g.randint(0, 20, 4, 6), g.randn(20, 12), g.randn(4, 6, 1)), "kwargs": {}}
    yield {"name": "idx_0d", "args": (g.tensor(3, dtype=torch.int64), g.randn(5, 7), g.randn(7)), "kwargs": {}}
    yield {"name": "padding_idx_neg_scale_sparse", "args": (g.randint(0, 12, 10), g.randn(12, 9), g.randn(9)),
           "kwargs": {"padding_idx": -1, "scale_grad_by_freq": True, "sparse": True}}
    yield {"name": "max_norm_l2", "args": (g.randint(0, 30, 6, 5), g.randn(30, 16) * 2.0, g.randn(16)),
           "kwargs": {"max_norm": 1.5}, "mutates": [1]}
    yield {"name": "max_norm_l1_repeated_rows", "args": (g.tensor([[1, 1, 4], [4, 0, 1]], dtype=torch.int64),
                                                         g.randn(6, 10), g.randn(10)),
           "kwargs": {"max_norm": 2.0, "norm_type": 1.0}, "mutates": [1]}
    yield {"name": "max_norm_large_no_change", "args": (g.randint(0, 8, 9), g.randn(8, 4), g.randn(9, 4)),
           "kwargs": {"max_norm": 100.0}, "mutates": [1]}
    yield {"name": "empty_indices", "args": (g.randint(0, 5, 0), g.randn(5, 3), g.randn(3)), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randint(0, 10, 4, 3), g.randn(10, 5), g.randn(5)),
           "kwargs": {"out": torch.empty(4, 3, 5, device=g.device)}}


def random_cases(g):
    yield {"name": "randn_odd", "args": (g.randint(0, 1000, 37, 11), g.randn(1000, 65), g.randn(65)), "kwargs": {}}
    yield {"name": "outlier_full_other", "args": (g.randint(0, 300, 16, 20), g.outlier(300, 48), g.outlier(16, 20, 48)),
           "kwargs": {}}
    yield {"name": "max_norm_randn", "args": (g.randint(0, 200, 40, 7), g.randn(200, 33), g.randn(33)),
           "kwargs": {"max_norm": 4.0}, "mutates": [1]}
    yield {"name": "randn_f16", "args": (g.randint(0, 500, 64, 8), g.randn(500, 64, dtype=torch.float16),
                                         g.randn(64, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.randint(0, 100, 3, 50), g.outlier(100, 96, dtype=torch.bfloat16),
                                            g.randn(3, 50, 96, dtype=torch.bfloat16)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    idx, V, D = list(params["idx"]), params["V"], params["D"]
    kw = {"max_norm": params["max_norm"]} if params.get("max_norm") is not None else {}
    return (g.randint(0, V, *idx), g.randn(V, D, dtype=dtype), g.randn(*idx, D, dtype=dtype)), kw


def perf_cost(params):
    idx, D = list(params["idx"]), params["D"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    t = 1
    for s in idx:
        t *= s
    # read the indices (8 bytes each), one weight row, the matching other row; write one output row.
    # add + tanh (~5) per element; max_norm adds a norm (2 per element) and the rescale (1)
    per = 6 + (3 if params.get("max_norm") is not None else 0)
    return {"bytes": t * 8 + 3 * t * D * es, "flops": per * t * D}
