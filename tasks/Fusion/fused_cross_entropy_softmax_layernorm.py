import torch

META = {
    "id": "Fusion/fused_cross_entropy_softmax_layernorm",
    "category": "Fusion",
    "stem": "fused_cross_entropy_softmax_layernorm",
    "entry": "fused_cross_entropy_softmax_layernorm",
    "signature": ("fused_cross_entropy_softmax_layernorm(logits, targets, normalized_shape, weight=None, "
                  "ignore_index=-100, reduction='mean', label_smoothing=0.0, eps=1e-5, *, out=None) "
                  "-> Tuple[Tensor, Tensor]"),
    "description": (
        "Returns (loss, normalized) for logits of shape (N, C). loss is "
        "torch.nn.functional.cross_entropy(logits, targets, weight, ignore_index, reduction, "
        "label_smoothing): targets are class indices (N,) int64 (entries equal to ignore_index skipped; "
        "'mean' divides by the summed weights of the non-ignored targets) or class probabilities (N, C) "
        "in the logits dtype; weight (C,) rescales classes. normalized is layer_norm(softmax(logits, "
        "dim=1), normalized_shape, eps) without affine parameters (normalized_shape = C or (C,)). "
        "Both outputs have the logits dtype; with out given, normalized is also written there."
    ),
    "notes": (
        "The spec's weight is the cross-entropy class weight (it says 'manual rescaling weight given to "
        "each class'), so the layer norm has no affine parameters. Only (N, C) logits are tested: for "
        "(N, C, *) logits the spec leaves the softmax axis versus normalized_shape ambiguous."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-4, 1e-4],
        "float16": [1e-2, 1e-2],
        "bfloat16": [3e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle: layer-normalizing softmax probabilities divides by their "
        "standard deviation (~1/C), amplifying the float32 rounding of the probabilities by up to C "
        "(<= 128 here) relative to ~1, hence 1e-4; losses are log-sum-exps with ~1e-6 error; half "
        "precision logits are exact in float32, leaving about one rounding of the output."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "8192x1000", "params": {"N": 8192, "C": 1000}},
        {"name": "32768x1024", "params": {"N": 32768, "C": 1024}},
        {"name": "8192x32000_f16", "params": {"N": 8192, "C": 32000, "dtype": "float16"}},
        {"name": "16384x32000", "params": {"N": 16384, "C": 32000}},
    ],
}


def reference(logits, targets, normalized_shape, weight=None, ignore_index=-100, reduction="mean",
              label_smoothing=0.0, eps=1e-5, *, out=None):
    F = torch.nn.functional
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    loss = F.cross_entropy(logits, targets, weight=weight, ignore_index=ignore_index, reduction=reduction,
                           label_smoothing=label_smoothing)
    probs = torch.softmax(logits, dim=1)
    normalized = F.layer_norm(probs, tuple(normalized_shape), eps=eps)
    if out is not None:
        out.copy_(normalized)
        normalized = out
    return loss, normalized


def _probs(g, n, c, dtype=torch.float32):
    return torch.softmax(g.randn(n, c, dtype=torch.float64), dim=1).to(dtype)


def edge_cases(g):
    yield {"name": "defaults_mean", "args": (g.randn(16, 10), g.randint(0, 10, 16), 10), "kwargs": {}}
    t = g.randint(0, 12, 20)
    t[3] = -100
    t[7] = -100
    yield {"name": "ignore_index_default", "args": (g.randn(20, 12), t, [12]), "kwargs": {}}
    t = g.randint(0, 6, 9)
    t[0] = 2
    yield {"name": "custom_ignore_index_sum", "args": (g.randn(9, 6), t, 6),
           "kwargs": {"ignore_index": 2, "reduction": "sum"}}
    yield {"name": "class_weight_mean", "args": (g.randn(24, 8), g.randint(0, 8, 24), 8, g.rand(8, low=0.2, high=2.0)),
           "kwargs": {}}
    yield {"name": "none_label_smoothing", "args": (g.randn(12, 7), g.randint(0, 7, 12), 7),
           "kwargs": {"reduction": "none", "label_smoothing": 0.1}}
    yield {"name": "probability_targets", "args": (g.randn(10, 9), _probs(g, 10, 9), 9), "kwargs": {}}
    yield {"name": "probability_targets_weight_smoothing_none",
           "args": (g.randn(10, 9), _probs(g, 10, 9), 9, g.rand(9, low=0.5, high=1.5)),
           "kwargs": {"reduction": "none", "label_smoothing": 0.2}}
    yield {"name": "large_logits_stable", "args": (g.randn(8, 16) * 40.0, g.randint(0, 16, 8), 16), "kwargs": {}}
    yield {"name": "two_classes_eps", "args": (g.randn(6, 2), g.randint(0, 2, 6), 2), "kwargs": {"eps": 1e-2}}
    yield {"name": "batch1", "args": (g.randn(1, 33), g.randint(0, 33, 1), 33), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randn(5, 11), g.randint(0, 11, 5), 11),
           "kwargs": {"out": torch.empty(5, 11, device=g.device)}}


def random_cases(g):
    yield {"name": "randn_odd_mean", "args": (g.randn(203, 65), g.randint(0, 65, 203), 65), "kwargs": {}}
    yield {"name": "outlier_weight_sum", "args": (g.outlier(128, 100, p=1e-2, scale=10.0), g.randint(0, 100, 128), 100,
                                                  g.rand(100, low=0.1, high=3.0)), "kwargs": {"reduction": "sum"}}
    yield {"name": "prob_targets_128", "args": (g.randn(64, 128), _probs(g, 64, 128), 128),
           "kwargs": {"label_smoothing": 0.05}}
    yield {"name": "f16_none", "args": (g.randn(96, 50, dtype=torch.float16), g.randint(0, 50, 96), 50),
           "kwargs": {"reduction": "none"}}
    yield {"name": "bf16_mean", "args": (g.randn(50, 77, dtype=torch.bfloat16), g.randint(0, 77, 50), 77), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    n, c = params["N"], params["C"]
    return (g.randn(n, c, dtype=dtype), g.randint(0, c, n), c), {}


def perf_cost(params):
    n, c = params["N"], params["C"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read logits and int64 targets, write the normalized probabilities and one loss; per element:
    # softmax (max, sub, exp, sum, div ~5) and layer norm (mean, var, normalize ~5)
    return {"bytes": 2 * n * c * es + 8 * n + es, "flops": 10 * n * c}
