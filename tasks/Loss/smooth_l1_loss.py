import torch

META = {
    "id": "Loss/smooth_l1_loss",
    "category": "Loss",
    "stem": "smooth_l1_loss",
    "entry": "smooth_l1_loss",
    "signature": "smooth_l1_loss(input, target, beta=1.0, reduction='mean') -> Tensor",
    "description": (
        "Smooth L1 (Huber-like) loss between input and target of the same shape: with d = |x - y|, each "
        "element contributes 0.5 * d^2 / beta when d < beta and d - 0.5 * beta otherwise; beta = 0 gives "
        "the plain L1 loss |x - y|. reduction='mean' returns the mean over all elements (0-d tensor), "
        "'sum' the sum, 'none' the element-wise losses. The result has the input's dtype; half precision "
        "is expected to be computed (and reduced) in float32. NaN in an element propagates."
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
        "The element-wise formula is exact up to rounding; the order of the mean/sum reduction is free "
        "(rtol 1e-4 in float32); half precision allows about one output rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_mean", "params": {"shape": [1024, 1024]}},
        {"name": "16M_mean", "params": {"shape": [4096, 4096]}},
        {"name": "16M_none", "params": {"shape": [4096, 4096], "reduction": "none"}},
        {"name": "16M_sum_bf16", "params": {"shape": [4096, 4096], "reduction": "sum", "dtype": "bfloat16"}},
        {"name": "64M_mean", "params": {"shape": [8192, 8192]}},
    ],
}


def reference(input, target, beta=1.0, reduction='mean'):
    return torch.nn.functional.smooth_l1_loss(input, target, beta=beta, reduction=reduction)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    x = g.tensor([0.0, 1.0, -1.0, 0.5, 2.0, 0.999, 1.001, 3.0, -4.0, 1e-20])
    y = g.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.5, 4.0, 0.0])
    for red in ("none", "mean", "sum"):
        yield {"name": f"threshold_values_{red}", "args": (x, y), "kwargs": {"reduction": red}}
    yield {"name": "beta_zero_is_l1", "args": (x, y), "kwargs": {"beta": 0.0, "reduction": "none"}}
    yield {"name": "beta_zero_mean", "args": (g.randn(7, 9), g.randn(7, 9)), "kwargs": {"beta": 0.0}}
    yield {"name": "beta_small_none", "args": (g.randn(5, 11), g.randn(5, 11)), "kwargs": {"beta": 0.05, "reduction": "none"}}
    yield {"name": "beta_large_sum", "args": (g.randn(5, 11), g.randn(5, 11)), "kwargs": {"beta": 10.0, "reduction": "sum"}}
    yield {"name": "nan_inf_none", "args": (g.tensor([nan, 1.0, inf, -inf, 2.0]), g.tensor([0.0, nan, 0.0, 1.0, inf])),
           "kwargs": {"reduction": "none"}}
    yield {"name": "nan_propagates_mean", "args": (g.tensor([nan, 1.0, 2.0]), g.tensor([0.0, 0.0, 0.0])), "kwargs": {}}
    yield {"name": "single_element_mean", "args": (g.tensor([[2.5]]), g.tensor([[0.25]])), "kwargs": {}}
    yield {"name": "scalar_0d_none", "args": (g.tensor(0.3), g.tensor(-0.1)), "kwargs": {"reduction": "none"}}
    yield {"name": "non_contiguous", "args": (g.randn(24, 40).t(), g.randn(40, 24)), "kwargs": {"reduction": "none"}}


def random_cases(g):
    yield {"name": "randn_mean_odd", "args": (g.randn(37, 129), g.randn(37, 129)), "kwargs": {}}
    yield {"name": "randn_none_3d", "args": (g.randn(4, 33, 65), g.randn(4, 33, 65)), "kwargs": {"reduction": "none"}}
    yield {"name": "outlier_sum", "args": (g.outlier(64, 300), g.randn(64, 300)), "kwargs": {"reduction": "sum"}}
    yield {"name": "outlier_mean_beta_half", "args": (g.outlier(3000), g.outlier(3000)), "kwargs": {"beta": 0.5}}
    yield {"name": "randn_f16_mean", "args": (g.randn(64, 100, dtype=torch.float16), g.randn(64, 100, dtype=torch.float16)),
           "kwargs": {}}
    yield {"name": "randn_bf16_none", "args": (g.randn(3, 7, 311, dtype=torch.bfloat16), g.randn(3, 7, 311, dtype=torch.bfloat16)),
           "kwargs": {"reduction": "none"}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return ((g.randn(*params["shape"], dtype=dtype), g.randn(*params["shape"], dtype=dtype)),
            {"reduction": params.get("reduction", "mean")})


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    out = n if params.get("reduction", "mean") == "none" else 1
    return {"bytes": (2 * n + out) * es, "flops": 5 * n}
