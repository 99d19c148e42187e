import torch

META = {
    "id": "Loss/kl_div",
    "category": "Loss",
    "stem": "kl_div",
    "entry": "kl_div",
    "signature": "kl_div(input, target, reduction='batchmean', log_target=False) -> Tensor",
    "description": (
        "Kullback-Leibler divergence loss with input given as log-probabilities. Element-wise term: "
        "target * (log(target) - input) when log_target=False, where a zero target contributes exactly 0 "
        "(x log x at 0 is 0), and exp(target) * (target - input) when log_target=True (target also in "
        "log space). reduction='batchmean' (the default here) divides the sum by input.size(0), 'sum' "
        "returns the sum, 'mean' the mean over all elements, 'none' the element-wise terms. Input and "
        "target have the same shape and dtype, which is the output dtype; half precision is computed in "
        "float32."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [2e-3, 5e-3],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "log/exp differ by a few ulp between libraries and the order of the reduction is free: rtol 1e-4 "
        "in float32; half precision allows about one output rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": ["log_softmax"], "target": [["softmax_or_log", "log_target"]]},
    "perf_shapes": [
        {"name": "N1k_C1k", "params": {"shape": [1024, 1024]}},
        {"name": "N4k_C4k", "params": {"shape": [4096, 4096]}},
        {"name": "N4k_C4k_logtarget", "params": {"shape": [4096, 4096], "log_target": True}},
        {"name": "N1k_C32k_bf16", "params": {"shape": [1024, 32768], "dtype": "bfloat16"}},
        {"name": "N8k_C8k_none", "params": {"shape": [8192, 8192], "reduction": "none"}},
    ],
}


def reference(input, target, reduction='batchmean', log_target=False):
    return torch.nn.functional.kl_div(input, target, reduction=reduction, log_target=log_target)


def _logp(g, *shape, dtype=torch.float32, scale=1.0):
    return torch.log_softmax(g.randn(*shape) * scale, dim=-1).to(dtype)


def _p(g, *shape, dtype=torch.float32):
    return torch.softmax(g.randn(*shape), dim=-1).to(dtype)


def edge_cases(g):
    x = g.tensor([[-1.0, -2.0, -0.5, -3.0], [-0.1, -5.0, -1e4, -2.0]])
    t = g.tensor([[0.0, 0.5, 0.5, 0.0], [1.0, 0.0, 0.0, 0.0]])
    for red in ("none", "batchmean", "sum", "mean"):
        yield {"name": f"zero_targets_{red}", "args": (x, t), "kwargs": {"reduction": red}}
    lt = g.tensor([[-1.0, -0.5, -30.0, -float("inf")], [0.0, -2.0, -100.0, -1.0]])
    yield {"name": "log_target_neg_inf_none", "args": (x, lt), "kwargs": {"reduction": "none", "log_target": True}}
    yield {"name": "log_target_batchmean", "args": (_logp(g, 8, 33), _logp(g, 8, 33)), "kwargs": {"log_target": True}}
    same = _logp(g, 5, 17)
    yield {"name": "identical_distributions", "args": (same, same.exp()), "kwargs": {}}
    yield {"name": "single_row", "args": (_logp(g, 1, 50), _p(g, 1, 50)), "kwargs": {}}
    yield {"name": "3d_batchmean", "args": (_logp(g, 3, 5, 7), _p(g, 3, 5, 7)), "kwargs": {}}
    yield {"name": "1d_batchmean", "args": (_logp(g, 9), _p(g, 9)), "kwargs": {}}
    yield {"name": "non_contiguous_none", "args": (_logp(g, 40, 24).t(), _p(g, 24, 40)), "kwargs": {"reduction": "none"}}


def random_cases(g):
    yield {"name": "batchmean_odd", "dist": "seed", "args": (_logp(g, 37, 129), _p(g, 37, 129)), "kwargs": {}}
    yield {"name": "none_3d", "args": (_logp(g, 4, 33, 65), _p(g, 4, 33, 65)), "kwargs": {"reduction": "none"}}
    yield {"name": "outlier_sum", "args": (torch.log_softmax(g.outlier(64, 300), -1), _p(g, 64, 300)),
           "kwargs": {"reduction": "sum"}}
    yield {"name": "log_target_mean", "args": (_logp(g, 30, 100), torch.log_softmax(g.outlier(30, 100), -1)),
           "kwargs": {"reduction": "mean", "log_target": True}}
    yield {"name": "f16_batchmean", "args": (_logp(g, 64, 100, dtype=torch.float16), _p(g, 64, 100, dtype=torch.float16)),
           "kwargs": {}}
    yield {"name": "bf16_none_log_target", "args": (_logp(g, 21, 311, dtype=torch.bfloat16),
                                                    _logp(g, 21, 311, dtype=torch.bfloat16)),
           "kwargs": {"reduction": "none", "log_target": True}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape = params["shape"]
    x = g.randn(*shape, dtype=dtype) - 8.0
    t = g.rand(*shape, dtype=dtype) if not params.get("log_target") else g.randn(*shape, dtype=dtype) - 8.0
    return (x, t), {"reduction": params.get("reduction", "batchmean"), "log_target": bool(params.get("log_target", False))}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    out = n if params.get("reduction", "batchmean") == "none" else 1
    return {"bytes": (2 * n + out) * es, "flops": 5 * n}
