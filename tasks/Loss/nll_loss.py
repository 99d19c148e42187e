import torch

META = {
    "id": "Loss/nll_loss",
    "category": "Loss",
    "stem": "nll_loss",
    "entry": "nll_loss",
    "signature": "nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean') -> Tensor",
    "description": (
        "Negative log likelihood loss for C-class classification with input holding log-probabilities, "
        "class dimension at dim 1: input (N, C) or (N, C, d1, ...) with int64 target (N) or (N, d1, ...), "
        "or unbatched input (C,) with a 0-d target. Each sample contributes -w[t] * input[n, t, ...], "
        "w being the optional per-class weight (default ones). Samples whose target equals ignore_index "
        "contribute 0 and count for nothing. reduction='mean' divides the weighted sum by the sum of the "
        "weights w[t] of the non-ignored samples (NaN when that sum is 0), 'sum' returns the weighted sum, "
        "'none' the per-sample losses with the target's shape. The output has the input's dtype."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [2e-3, 5e-3],
        "bfloat16": [1e-2, 2e-2],
    },
    "perf_cost_note": 'A gather: one log-probability per target is read (plus targets and weights), not the whole (N, C) input.',
    "tolerance_note": (
        "The per-sample loss is a product of two numbers; only the order of the reduction (and of the "
        "weight sum) is free, hence rtol 1e-4 in float32; half precision allows about one output rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "N4k_C1k", "params": {"N": 4096, "C": 1024}},
        {"name": "N64k_C1k", "params": {"N": 65536, "C": 1024}},
        {"name": "N16k_C32k_weighted", "params": {"N": 16384, "C": 32768, "weight": True}},
        {"name": "seg_N8_C21_512x512", "params": {"N": 8, "C": 21, "spatial": [512, 512]}},
        {"name": "N1M_C100_none", "params": {"N": 1048576, "C": 100, "reduction": "none"}},
    ],
}


def reference(input, target, weight=None, ignore_index=-100, reduction='mean'):
    return torch.nn.functional.nll_loss(input, target, weight=weight, ignore_index=ignore_index,
                                        reduction=reduction)


def _targets(g, shape, c, p_ignore=0.0, ignore_index=-100):
    t = g.randint(0, c, *shape)
    if p_ignore > 0:
        t = torch.where(g.bernoulli(*shape, p=p_ignore), torch.full_like(t, ignore_index), t)
    return t


def _logp(g, *shape, dtype=torch.float32, outlier=False):
    z = g.outlier(*shape) if outlier else g.randn(*shape)
    return torch.log_softmax(z, dim=1 if len(shape) > 1 else 0).to(dtype)


def edge_cases(g):
    inf = float("inf")
    x = g.tensor([[-1.0, -2.0, -3.0, -0.5], [-0.1, -0.2, -0.3, -0.4], [-5.0, -1.0, -0.5, -2.0], [-3.0, -inf, -1.0, 0.0]])
    t = g.tensor([3, 0, -100, 1], dtype=torch.int64)
    yield {"name": "ignored_mean", "args": (x, g.tensor([3, 0, -100, 2], dtype=torch.int64)), "kwargs": {}}
    yield {"name": "ignored_sum", "args": (x, t), "kwargs": {"reduction": "sum"}}
    yield {"name": "neg_inf_target_none", "args": (x, t), "kwargs": {"reduction": "none"}}
    w = g.tensor([0.5, 2.0, 1.0, 0.25])
    yield {"name": "weighted_mean_ignored", "args": (x, g.tensor([3, 0, -100, 2], dtype=torch.int64), w), "kwargs": {}}
    yield {"name": "weighted_none", "args": (x, g.tensor([3, 0, 1, 2], dtype=torch.int64), w), "kwargs": {"reduction": "none"}}
    yield {"name": "custom_ignore_index", "args": (x, g.tensor([1, 1, 2, 0], dtype=torch.int64)), "kwargs": {"ignore_index": 1}}
    yield {"name": "all_ignored_mean_is_nan", "args": (x, g.tensor([-100] * 4, dtype=torch.int64)), "kwargs": {}}
    yield {"name": "zero_weight_mean_is_nan", "args": (x, g.tensor([0, 0, 0, 0], dtype=torch.int64),
                                                       g.tensor([0.0, 1.0, 1.0, 1.0])), "kwargs": {}}
    yield {"name": "single_class", "args": (g.randn(5, 1), g.tensor([0] * 5, dtype=torch.int64)), "kwargs": {}}
    yield {"name": "unbatched_1d", "args": (_logp(g, 7), g.tensor(4, dtype=torch.int64)), "kwargs": {}}
    yield {"name": "unbatched_1d_none", "args": (_logp(g, 7), g.tensor(2, dtype=torch.int64)), "kwargs": {"reduction": "none"}}
    yield {"name": "spatial_NCL_none", "args": (_logp(g, 2, 5, 9), _targets(g, (2, 9), 5)), "kwargs": {"reduction": "none"}}
    yield {"name": "spatial_NCHW_weighted_ignore", "args": (_logp(g, 2, 4, 6, 5), _targets(g, (2, 6, 5), 4, 0.2),
                                                            g.rand(4, low=0.1, high=2.0)), "kwargs": {}}
    yield {"name": "non_contiguous_input", "args": (_logp(g, 20, 33)[:, ::3], _targets(g, (20,), 11)), "kwargs": {}}


def random_cases(g):
    yield {"name": "mean_odd", "dist": "seed", "args": (_logp(g, 37, 129), _targets(g, (37,), 129)), "kwargs": {}}
    yield {"name": "weighted_mean_ignore", "dist": "seed", "args": (_logp(g, 300, 50), _targets(g, (300,), 50, 0.1),
                                                    g.rand(50, low=0.1, high=3.0)), "kwargs": {}}
    yield {"name": "outlier_sum", "args": (_logp(g, 200, 100, outlier=True), _targets(g, (200,), 100)),
           "kwargs": {"reduction": "sum"}}
    yield {"name": "spatial_none", "args": (_logp(g, 3, 7, 11, 13), _targets(g, (3, 11, 13), 7, 0.1)),
           "kwargs": {"reduction": "none"}}
    yield {"name": "f16_mean", "args": (_logp(g, 64, 100, dtype=torch.float16), _targets(g, (64,), 100)), "kwargs": {}}
    yield {"name": "bf16_weighted_sum", "args": (_logp(g, 77, 31, dtype=torch.bfloat16), _targets(g, (77,), 31, 0.1),
                                                 g.rand(31, dtype=torch.bfloat16)), "kwargs": {"reduction": "sum"}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    n, c = params["N"], params["C"]
    sp = list(params.get("spatial", []))
    x = g.randn(n, c, *sp, dtype=dtype)
    t = g.randint(0, c, n, *sp)
    w = g.rand(c, dtype=dtype) if params.get("weight") else None
    return (x, t, w), {"reduction": params.get("reduction", "mean")}


def perf_cost(params):
    s = params["N"]
    for d in params.get("spatial", []):
        s *= d
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    out = s if params.get("reduction", "mean") == "none" else 1
    # one gathered log-probability per sample, the int64 target, the weight per sample when weighted
    return {"bytes": s * (es + 8) + (s * es if params.get("weight") else 0) + out * es, "flops": 3 * s}
