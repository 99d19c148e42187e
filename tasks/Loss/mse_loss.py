import torch

META = {
    "id": "Loss/mse_loss",
    "category": "Loss",
    "stem": "mse_loss",
    "entry": "mse_loss",
    "signature": "mse_loss(input, target, reduction='mean') -> Tensor",
    "description": (
        "Squared error (input - target)^2 between two tensors of the same shape, reduced according "
        "to reduction: 'mean' (a 0-dim tensor, the average over all elements), 'sum' (a 0-dim "
        "tensor) or 'none' (element-wise, same shape as input). The result has input's dtype; "
        "NaN/inf propagate."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "The summation order of the reduction is free (blocked/tree sums over up to 64k terms in "
        "tests), hence rtol 1e-4 in float32; half precision allows the final output rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_mean", "params": {"shape": [1024, 1024], "reduction": "mean"}},
        {"name": "16M_mean", "params": {"shape": [4096, 4096], "reduction": "mean"}},
        {"name": "16M_none", "params": {"shape": [4096, 4096], "reduction": "none"}},
        {"name": "16M_sum_bf16", "params": {"shape": [4096, 4096], "reduction": "sum", "dtype": "bfloat16"}},
        {"name": "64M_mean", "params": {"shape": [8192, 8192], "reduction": "mean"}},
    ],
}


def reference(input, target, reduction="mean"):
    return torch.nn.functional.mse_loss(input, target, reduction=reduction)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "identical_inputs_zero_loss", "args": (g.tensor([[1.0, -2.0, 3.0]] * 4),
                                                         g.tensor([[1.0, -2.0, 3.0]] * 4)), "kwargs": {}}
    yield {"name": "special_values_none",
           "args": (g.tensor([0.0, -0.0, inf, 1.0, nan, 1e20, -1e-20, 5.0]),
                    g.tensor([-0.0, 0.0, 1.0, inf, 0.0, 0.0, 1e-20, -5.0])),
           "kwargs": {"reduction": "none"}}
    yield {"name": "inf_in_sum", "args": (g.tensor([1.0, inf, 2.0]), g.tensor([0.0, 0.0, 0.0])),
           "kwargs": {"reduction": "sum"}}
    yield {"name": "nan_in_mean", "args": (g.tensor([1.0, nan, 2.0]), g.tensor([0.0, 0.0, 0.0])), "kwargs": {}}
    yield {"name": "single_element_mean", "args": (g.tensor([[3.0]]), g.tensor([[-1.5]])), "kwargs": {}}
    yield {"name": "scalar_0d_sum", "args": (g.tensor(2.0), g.tensor(-1.0)), "kwargs": {"reduction": "sum"}}
    yield {"name": "sum_3d", "args": (g.randn(3, 5, 7), g.randn(3, 5, 7)), "kwargs": {"reduction": "sum"}}
    yield {"name": "none_f16", "args": (g.randn(9, 17, dtype=torch.float16), g.randn(9, 17, dtype=torch.float16)),
           "kwargs": {"reduction": "none"}}
    yield {"name": "non_contiguous", "args": (g.randn(20, 30).t(), g.randn(30, 40)[:, ::2]), "kwargs": {}}


def random_cases(g):
    yield {"name": "mean_1d_odd", "args": (g.randn(1000), g.randn(1000)), "kwargs": {}}
    yield {"name": "mean_2d_large_odd", "args": (g.randn(211, 255), g.randn(211, 255)), "kwargs": {}}
    yield {"name": "sum_outlier", "args": (g.outlier(4, 33, 65), g.outlier(4, 33, 65)), "kwargs": {"reduction": "sum"}}
    yield {"name": "none_outlier", "args": (g.outlier(37, 129), g.randn(37, 129)), "kwargs": {"reduction": "none"}}
    yield {"name": "mean_f16", "args": (g.randn(64, 100, dtype=torch.float16), g.randn(64, 100, dtype=torch.float16)),
           "kwargs": {}}
    yield {"name": "sum_bf16", "args": (g.randn(3, 7, 311, dtype=torch.bfloat16), g.randn(3, 7, 311, dtype=torch.bfloat16)),
           "kwargs": {"reduction": "sum"}}
    yield {"name": "none_bf16_outlier", "args": (g.outlier(33, 77, dtype=torch.bfloat16),
                                                g.randn(33, 77, dtype=torch.bfloat16)), "kwargs": {"reduction": "none"}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    a = g.randn(*params["shape"], dtype=dtype)
    b = g.randn(*params["shape"], dtype=dtype)
    return (a, b), {"reduction": params["reduction"]}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    out = n if params.get("reduction", "mean") == "none" else 1
    # read input and target, write the loss (n elements for 'none', one scalar otherwise);
    # per element subtract + square (+ accumulate when reduced), one final divide for 'mean'
    per = 2 if out == n else 3
    return {"bytes": (2 * n + out) * es, "flops": per * n + (1 if params.get("reduction", "mean") == "mean" else 0)}
