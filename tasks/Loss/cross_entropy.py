import torch

META = {
    "id": "Loss/cross_entropy",
    "category": "Loss",
    "stem": "cross_entropy",
    "entry": "cross_entropy",
    "signature": "cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean') -> Tensor",
    "description": (
        "Cross entropy between raw logits and integer class targets: for each sample, "
        "loss = w[t] * (logsumexp(x) - x[t]) with the class dimension at dim 1 (input (N, C) or "
        "(N, C, d1, ...), or unbatched (C,) with a 0-dim target). weight is an optional per-class "
        "rescaling (default all ones). Samples whose target equals ignore_index contribute 0 and are "
        "excluded from the mean. reduction='mean' divides the weighted sum by the sum of the weights "
        "of the non-ignored samples (NaN if all are ignored), 'sum' returns the weighted sum, 'none' "
        "the per-sample losses (shape of target). Must be stable for large logits and accept -inf "
        "logits on non-target classes."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "exp/log differ by a few ulp between libraries and the order of the logsumexp and of the "
        "final reduction is free, hence rtol 1e-4 in float32; half precision allows the output rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "N4k_C1k", "params": {"N": 4096, "C": 1024}},
        {"name": "N8k_C32k", "params": {"N": 8192, "C": 32768}},
        {"name": "N4k_C50257_weighted", "params": {"N": 4096, "C": 50257, "weight": True}},
        {"name": "N8k_C128k_bf16", "params": {"N": 8192, "C": 131072, "dtype": "bfloat16"}},
        {"name": "N16k_C32k_none", "params": {"N": 16384, "C": 32768, "reduction": "none"}},
    ],
}


def reference(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return torch.nn.functional.cross_entropy(input, target, weight=weight, ignore_index=ignore_index,
                                             reduction=reduction)


def _targets(g, n, c, p_ignore=0.0, ignore_index=-100):
    t = g.randint(0, c, n)
    if p_ignore > 0:
        t = torch.where(g.bernoulli(n, p=p_ignore), torch.full_like(t, ignore_index), t)
    return t


def edge_cases(g):
    inf = float("inf")
    x = g.tensor([[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0], [-1.0, 5.0, 0.5, 2.0], [3.0, -3.0, 1.0, 0.0]])
    t = g.tensor([3, 0, -100, 1], dtype=torch.int64)
    yield {"name": "small_with_ignored", "args": (x, t), "kwargs": {}}
    yield {"name": "small_ignored_sum", "args": (x, t), "kwargs": {"reduction": "sum"}}
    yield {"name": "small_ignored_none", "args": (x, t), "kwargs": {"reduction": "none"}}
    w = g.tensor([0.5, 2.0, 1.0, 0.25])
    yield {"name": "weighted_mean_ignored", "args": (x, t, w), "kwargs": {}}
    yield {"name": "weighted_none", "args": (x, t, w), "kwargs": {"reduction": "none"}}
    yield {"name": "custom_ignore_index", "args": (x, g.tensor([1, 1, 2, 0], dtype=torch.int64)),
           "kwargs": {"ignore_index": 1}}
    yield {"name": "all_ignored_mean_is_nan", "args": (x, g.tensor([-100] * 4, dtype=torch.int64)), "kwargs": {}}
    yield {"name": "huge_logits_stability",
           "args": (g.tensor([[1000.0, -1000.0, 999.0], [-1000.0, -1000.0, -999.0], [88.0, 89.0, 90.0]]),
                    g.tensor([1, 2, 0], dtype=torch.int64)), "kwargs": {"reduction": "none"}}
    yield {"name": "neg_inf_non_target_logits",
           "args": (g.tensor([[-inf, 1.0, -inf, 2.0], [0.5, -inf, -inf, -inf]]), g.tensor([3, 0], dtype=torch.int64)),
           "kwargs": {"reduction": "none"}}
    yield {"name": "single_class", "args": (g.randn(5, 1), g.tensor([0] * 5, dtype=torch.int64)), "kwargs": {}}
    yield {"name": "unbatched_1d", "args": (g.randn(7), g.tensor(4, dtype=torch.int64)), "kwargs": {}}
    yield {"name": "spatial_NCL_none", "args": (g.randn(2, 5, 9), _targets(g, 18, 5).reshape(2, 9)),
           "kwargs": {"reduction": "none"}}
    yield {"name": "spatial_NCHW_weighted_ignore",
           "args": (g.randn(2, 6, 3, 5), _targets(g, 30, 6, 0.2).reshape(2, 3, 5), g.rand(6, low=0.1, high=2.0)),
           "kwargs": {}}
    yield {"name": "non_contiguous_logits", "args": (g.randn(10, 6).t(), _targets(g, 6, 10)), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_N_odd_C_odd", "args": (g.randn(37, 129), _targets(g, 37, 129)), "kwargs": {}}
    yield {"name": "randn_wide_C", "args": (g.randn(16, 3001) * 3.0, _targets(g, 16, 3001, 0.1)), "kwargs": {}}
    yield {"name": "outlier_weighted_sum", "args": (g.outlier(100, 65), _targets(g, 100, 65, 0.1),
                                                   g.rand(65, low=0.0, high=3.0)), "kwargs": {"reduction": "sum"}}
    yield {"name": "outlier_none", "args": (g.outlier(53, 211, scale=20.0), _targets(g, 53, 211)),
           "kwargs": {"reduction": "none"}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16), _targets(g, 64, 100, 0.1)),
           "kwargs": {}}
    yield {"name": "randn_bf16_weighted_none", "args": (g.randn(33, 257, dtype=torch.bfloat16), _targets(g, 33, 257),
                                                       g.rand(257, low=0.5, high=1.5, dtype=torch.bfloat16)),
           "kwargs": {"reduction": "none"}}
    yield {"name": "spatial_randn", "args": (g.randn(3, 10, 7, 11), _targets(g, 231, 10, 0.05).reshape(3, 7, 11)),
           "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    n, c = params["N"], params["C"]
    x = g.randn(n, c, dtype=dtype)
    t = g.randint(0, c, n)
    w = g.rand(c, low=0.5, high=1.5, dtype=dtype) if params.get("weight") else None
    return (x, t), {"weight": w, "reduction": params.get("reduction", "mean")}


def perf_cost(params):
    n, c = params["N"], params["C"]
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    out = n if params.get("reduction", "mean") == "none" else 1
    w = c if params.get("weight") else 0
    # read the (N, C) logits, the int64 targets and the optional (C,) weight once, write the loss.
    # Per logit: max compare, subtract, exp (counted 1), accumulate = 4; per sample: log, add max,
    # subtract x[t], multiply by w[t], accumulate = 5
    return {"bytes": es * (n * c + w + out) + 8 * n, "flops": 4 * n * c + 5 * n}
