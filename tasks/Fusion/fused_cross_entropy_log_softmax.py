import torch

META = {
    "id": "Fusion/fused_cross_entropy_log_softmax",
    "category": "Fusion",
    "stem": "fused_cross_entropy_log_softmax",
    "entry": "fused_cross_entropy_log_softmax",
    "signature": ("def fused_cross_entropy_log_softmax(input: torch.Tensor, target: torch.Tensor, dim: int = 1, "
                  "weight: torch.Tensor = None, ignore_index: int = -100, reduction: str = 'mean', "
                  "label_smoothing: float = 0.0) -> torch.Tensor"),
    "description": (
        "Cross-entropy loss of logits: log_softmax(input, dim) followed by torch.nn.functional.cross_entropy "
        "on those log-probabilities (classes on dimension 1 of input (N, C) or (N, C, d1, ...)). Since "
        "log_softmax is idempotent this equals cross_entropy(input, ...) for dim=1 (or dim=-1 on 2-D "
        "input), which are the dims tested. target holds class indices (int64, shape (N,) or (N, d1, ...)) "
        "or class probabilities (same shape as input). weight (C,) rescales classes, targets equal to "
        "ignore_index are skipped (index targets only), label_smoothing mixes the target with the uniform "
        "distribution, and reduction is 'none' (per-sample losses), 'sum', or 'mean' (weighted by the "
        "targets' class weights for index targets, divided by N for probability targets)."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "Log-sum-exp and a weighted reduction in float32: ulp-level differences of exp/log and of the "
        "summation order, ~1e-6 relative on O(log C) losses; half precision allows the rounding of the "
        "log-probabilities and of the result (about one ulp of each)."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "notes": (
        "The spec's dim argument is applied by log_softmax before a cross_entropy that always uses dimension 1 "
        "for classes; other dims would mix two different axes, so cases use dim=1 or dim=-1 on 2-D input."
    ),
    "perf_shapes": [
        {"name": "4096x1000_f32", "params": {"N": 4096, "C": 1000, "dtype": "float32"}},
        {"name": "8192x32000_f32", "params": {"N": 8192, "C": 32000, "dtype": "float32"}},
        {"name": "8192x32000_bf16_smooth", "params": {"N": 8192, "C": 32000, "dtype": "bfloat16", "label_smoothing": 0.1}},
        {"name": "16384x50257_f16", "params": {"N": 16384, "C": 50257, "dtype": "float16"}},
    ],
}


def reference(input, target, dim=1, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    logp = torch.log_softmax(input, dim=dim)
    return torch.nn.functional.cross_entropy(logp, target, weight=weight, ignore_index=ignore_index,
                                             reduction=reduction, label_smoothing=label_smoothing)


def _probs(g, *shape, dim=1, dtype=torch.float32):
    return torch.softmax(g.randn(*shape) * 2.0, dim=dim).to(dtype)


def edge_cases(g):
    x = g.randn(8, 5)
    t = g.randint(0, 5, 8)
    yield {"name": "mean_default", "args": (x, t), "kwargs": {}}
    yield {"name": "none_reduction", "args": (x, t), "kwargs": {"reduction": "none"}}
    yield {"name": "sum_dim_minus1", "args": (x, t), "kwargs": {"reduction": "sum", "dim": -1}}
    yield {"name": "class_weights_mean", "args": (g.randn(16, 7), g.randint(0, 7, 16)),
           "kwargs": {"weight": g.rand(7, low=0.2, high=2.0)}}
    yield {"name": "ignore_index_default", "args": (g.randn(6, 4), g.tensor([0, -100, 3, -100, 1, 2], dtype=torch.int64)),
           "kwargs": {}}
    yield {"name": "ignore_index_custom_none", "args": (g.randn(6, 4), g.tensor([0, 2, 3, 2, 1, 2], dtype=torch.int64)),
           "kwargs": {"ignore_index": 2, "reduction": "none"}}
    yield {"name": "label_smoothing_weight", "args": (g.randn(10, 6), g.randint(0, 6, 10)),
           "kwargs": {"label_smoothing": 0.2, "weight": g.rand(6, low=0.5, high=1.5)}}
    yield {"name": "label_smoothing_ignore_sum", "args": (g.randn(6, 4), g.tensor([0, -100, 3, 1, 1, 2], dtype=torch.int64)),
           "kwargs": {"label_smoothing": 0.1, "reduction": "sum"}}
    yield {"name": "prob_targets_mean", "args": (g.randn(9, 5), _probs(g, 9, 5)), "kwargs": {}}
    yield {"name": "prob_targets_smoothing_weight_none", "args": (g.randn(9, 5), _probs(g, 9, 5)),
           "kwargs": {"label_smoothing": 0.3, "weight": g.rand(5, low=0.5, high=1.5), "reduction": "none"}}
    yield {"name": "spatial_nc_d", "args": (g.randn(3, 4, 7), g.randint(0, 4, 3, 7)), "kwargs": {"reduction": "none"}}
    yield {"name": "large_logits_stable", "args": (g.tensor([[1000.0, -1000.0, 0.0], [-500.0, 500.0, 499.0]]),
                                                   g.tensor([1, 2], dtype=torch.int64)), "kwargs": {"reduction": "none"}}
    yield {"name": "single_class", "args": (g.randn(5, 1), g.tensor([0] * 5, dtype=torch.int64)), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (g.randn(11, 20).t(), g.randint(0, 11, 20)), "kwargs": {"reduction": "sum"}}


def random_cases(g):
    yield {"name": "randn_mean_odd", "args": (g.randn(129, 37), g.randint(0, 37, 129)), "kwargs": {}}
    yield {"name": "randn_weight_ignore_smooth", "args": (g.randn(64, 100), g.randint(-1, 100, 64)),
           "kwargs": {"weight": g.rand(100, low=0.1, high=2.0), "ignore_index": -1, "label_smoothing": 0.05}}
    yield {"name": "outlier_none", "args": (g.outlier(50, 300), g.randint(0, 300, 50)), "kwargs": {"reduction": "none"}}
    yield {"name": "outlier_prob_targets_sum", "args": (g.outlier(40, 65), _probs(g, 40, 65)), "kwargs": {"reduction": "sum"}}
    yield {"name": "randn_spatial", "args": (g.randn(4, 10, 33), g.randint(0, 10, 4, 33)), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16), g.randint(0, 100, 64)), "kwargs": {}}
    yield {"name": "randn_bf16_none_smooth", "args": (g.randn(33, 77, dtype=torch.bfloat16), g.randint(0, 77, 33)),
           "kwargs": {"reduction": "none", "label_smoothing": 0.1}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    N, C = params["N"], params["C"]
    return (g.randn(N, C, dtype=dtype), g.randint(0, C, N)), {"label_smoothing": params.get("label_smoothing", 0.0)}


def perf_cost(params):
    N, C = params["N"], params["C"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read the logits and the int64 targets, write one scalar; per logit: max, subtract, exp, sum
    # (4), plus the smoothing sum (1) when label_smoothing > 0
    per = 4 + (1 if params.get("label_smoothing", 0.0) > 0 else 0)
    return {"bytes": N * C * es + N * 8 + es, "flops": per * N * C}
