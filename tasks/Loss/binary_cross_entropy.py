import torch

META = {
    "id": "Loss/binary_cross_entropy",
    "category": "Loss",
    "stem": "binary_cross_entropy",
    "entry": "binary_cross_entropy",
    "signature": "binary_cross_entropy(input, target, weight=None, reduction='mean') -> Tensor",
    "description": (
        "Binary cross entropy between probabilities x in [0, 1] and targets y in [0, 1] (hard or soft "
        "labels) of the same shape: each element gives -w * (y * log(x) + (1 - y) * log(1 - x)), where "
        "both logarithms are clamped below at -100 (so x = 0 or x = 1 give finite losses, as in PyTorch). "
        "weight (optional) is broadcastable to the input and rescales each element. reduction='mean' "
        "averages over all elements (weights do not renormalize), 'sum' adds, 'none' returns the "
        "element-wise losses. The result has the input's dtype; half precision is computed in float32."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [2e-3, 5e-3],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "log/log1p differ by a few ulp between libraries (log(1 - x) vs log1p(-x) agree to ~1e-7 absolute "
        "for float32 inputs) and the reduction order is free: rtol 1e-4 in float32; half precision allows "
        "about one output rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_mean", "params": {"shape": [1024, 1024]}},
        {"name": "16M_mean", "params": {"shape": [4096, 4096]}},
        {"name": "16M_none_weighted", "params": {"shape": [4096, 4096], "reduction": "none", "weight": True}},
        {"name": "16M_sum_bf16", "params": {"shape": [4096, 4096], "reduction": "sum", "dtype": "bfloat16"}},
        {"name": "64M_mean", "params": {"shape": [8192, 8192]}},
    ],
}


def reference(input, target, weight=None, reduction='mean'):
    return torch.nn.functional.binary_cross_entropy(input, target, weight=weight, reduction=reduction)


def _probs(g, *shape, dtype=torch.float32):
    return torch.sigmoid(g.randn(*shape) * 2.0).to(dtype)


def edge_cases(g):
    x = g.tensor([0.0, 0.0, 1.0, 1.0, 0.5, 1e-30, 1.0 - 1e-7, 1e-45, 0.25, 0.999])
    y = g.tensor([0.0, 1.0, 0.0, 1.0, 0.5, 1.0, 0.0, 1.0, 0.7, 0.1])
    for red in ("none", "mean", "sum"):
        yield {"name": f"clamped_logs_{red}", "args": (x, y), "kwargs": {"reduction": red}}
    w = g.tensor([0.0, 1.0, 2.0, 0.5, 1.0, 3.0, 0.1, 1.0, 2.0, 1.0])
    yield {"name": "weighted_none", "args": (x, y, w), "kwargs": {"reduction": "none"}}
    yield {"name": "weighted_mean_broadcast_row", "args": (_probs(g, 6, 9), g.rand(6, 9), g.rand(9, low=0.0, high=2.0)),
           "kwargs": {}}
    yield {"name": "weighted_sum_broadcast_col", "args": (_probs(g, 6, 9), g.bernoulli(6, 9).float(),
                                                          g.rand(6, 1, low=0.0, high=2.0)), "kwargs": {"reduction": "sum"}}
    yield {"name": "single_element_mean", "args": (g.tensor([[0.3]]), g.tensor([[1.0]])), "kwargs": {}}
    yield {"name": "scalar_0d_none", "args": (g.tensor(0.8), g.tensor(0.0)), "kwargs": {"reduction": "none"}}
    yield {"name": "non_contiguous", "args": (_probs(g, 24, 40).t(), g.rand(40, 24)), "kwargs": {"reduction": "none"}}


def random_cases(g):
    yield {"name": "hard_labels_mean_odd", "args": (_probs(g, 37, 129), g.bernoulli(37, 129).float()), "kwargs": {}}
    yield {"name": "soft_labels_none_3d", "args": (_probs(g, 4, 33, 65), g.rand(4, 33, 65)), "kwargs": {"reduction": "none"}}
    # outlier logits push probabilities to (or very near) 0 and 1, exercising the -100 clamp
    yield {"name": "outlier_saturated_sum", "args": (torch.sigmoid(g.outlier(64, 300, p=1e-2, scale=50.0)),
                                                     g.bernoulli(64, 300).float()), "kwargs": {"reduction": "sum"}}
    yield {"name": "weighted_mean", "args": (_probs(g, 3000), g.rand(3000), g.rand(3000, low=0.0, high=2.0)), "kwargs": {}}
    yield {"name": "f16_mean", "args": (_probs(g, 64, 100, dtype=torch.float16), g.rand(64, 100, dtype=torch.float16)),
           "kwargs": {}}
    yield {"name": "bf16_none", "args": (_probs(g, 3, 7, 311, dtype=torch.bfloat16),
                                         g.bernoulli(3, 7, 311).to(torch.bfloat16)), "kwargs": {"reduction": "none"}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape = params["shape"]
    x = g.rand(*shape, low=0.01, high=0.99, dtype=dtype)
    y = g.bernoulli(*shape).to(dtype)
    w = g.rand(*shape, dtype=dtype) if params.get("weight") else None
    return (x, y, w), {"reduction": params.get("reduction", "mean")}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    out = n if params.get("reduction", "mean") == "none" else 1
    ins = 3 * n if params.get("weight") else 2 * n
    return {"bytes": (ins + out) * es, "flops": 8 * n}
