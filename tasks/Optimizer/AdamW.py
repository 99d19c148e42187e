import torch

META = {
    "id": "Optimizer/AdamW",
    "category": "Optimizer",
    "stem": "AdamW",
    "entry": "AdamW",
    "aliases": ["adamw_step"],  # the function name in the spec's signature
    "signature": ("adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, "
                  "weight_decay=0.01) -> tuple"),
    "description": (
        "One AdamW step (decoupled weight decay, torch.optim.AdamW semantics) as a function: "
        "AdamW(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay) with the "
        "spec's adamw_step signature, returning (param, exp_avg, exp_avg_sq) after the update; the "
        "three may be updated in place (and returned) or returned as new tensors. step is the 1-based "
        "index of this step (an int), used for bias correction. Per element: "
        "p = p * (1 - lr * weight_decay); m = beta1 * m + (1 - beta1) * g; "
        "v = beta2 * v + (1 - beta2) * g^2; "
        "p = p - lr / (1 - beta1^step) * m / (sqrt(v) / sqrt(1 - beta2^step) + eps). The harness "
        "(drive) keeps zero-initialised float32 state per parameter, calls the entry once per parameter "
        "and step with step = 1, 2, ..., feeding back the returned state, and compares the final "
        "parameters and moments."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 5e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "perf_cost_note": 'The optimizer state (exp_avg, exp_avg_sq) is read and written every step but created inside drive(), so it is not among the arguments.',
    "tolerance_note": (
        "Defaults: per-step updates are about lr in size and use a handful of float32 operations "
        "(sqrt, divide), so only rounding order differs between implementations. float32 rtol is 5e-5: "
        "a kernel that receives beta2 as a float32 scalar computes 1 - beta2 = 1 - 0.999f = 9.99987e-4, "
        "1.3e-5 relative away from 0.001, and every exp_avg_sq carries that factor (measured on the "
        "H200: max rel err 1.32e-5 on outlier gradients)."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_params", "params": {"sizes": [1048576], "steps": 3}},
        {"name": "16M_params", "params": {"sizes": [16777216], "steps": 3}},
        {"name": "mlp_like_8_tensors",
         "params": {"sizes": [4194304, 4096, 4194304, 4096, 1048576, 1024, 262144, 256], "steps": 3}},
        {"name": "64M_params", "params": {"sizes": [67108864], "steps": 2}},
    ],
}


def reference(param, grad, exp_avg, exp_avg_sq, step, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
              weight_decay=0.01):
    param.mul_(1 - lr * weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bc1 = 1 - beta1 ** step
    bc2 = 1 - beta2 ** step
    denom = (exp_avg_sq.sqrt() / (bc2 ** 0.5)).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-lr / bc1)
    return param, exp_avg, exp_avg_sq


def drive(fn, args, kwargs):
    """args = (p_0, ..., p_{k-1}, grads): each parameter is its own (mutated) argument and grads is a
    flat, step-major list of k * steps gradient tensors. State starts at zero; the entry is called
    per parameter and step, its returned state is fed back. Returns params, exp_avg, exp_avg_sq."""
    params, grads = list(args[:-1]), args[-1]
    n = len(params)
    m = [torch.zeros_like(p) for p in params]
    v = [torch.zeros_like(p) for p in params]
    for t in range(len(grads) // n):
        for i, p in enumerate(params):
            r = fn(p, grads[t * n + i].clone(), m[i], v[i], t + 1, **kwargs)
            if r[0] is not p:
                p.copy_(r[0])
            m[i], v[i] = r[1], r[2]
    return {"params": list(params), "exp_avg": m, "exp_avg_sq": v}


# The perf stage times drive() itself: building the optimizer and its steps are the operation
# (docs/TASK_FORMAT.md, perf_drive).
perf_drive = drive


def _case(name, params, grads, **kw):
    return {"name": name, "args": (*params, grads), "kwargs": kw, "mutates": list(range(len(params)))}


def _grads(g, params, steps, outlier=False, scales=None):
    out = []
    for t in range(steps):
        s = 1.0 if scales is None else scales[t]
        for p in params:
            out.append((g.outlier(*p.shape) if outlier else g.randn(*p.shape)) * s)
    return out


def edge_cases(g):
    def ps():
        return [g.randn(5, 7), g.randn(33), g.tensor(1.5)]
    p = ps()
    yield _case("default_hyperparameters", p, _grads(g, p, 3))
    p = ps()
    yield _case("lr0.1_three_steps", p, _grads(g, p, 3), lr=0.1)
    p = ps()
    yield _case("custom_betas_eps", p, _grads(g, p, 3), lr=0.05, beta1=0.8, beta2=0.99, eps=1e-6)
    p = ps()
    yield _case("no_weight_decay", p, _grads(g, p, 3), lr=0.05, weight_decay=0.0)
    p = ps()
    yield _case("strong_weight_decay", p, _grads(g, p, 3), lr=0.05, weight_decay=0.5)
    p = ps()
    yield _case("shrinking_grads", p, _grads(g, p, 4, scales=[3.0, 0.1, 0.1, 0.05]), lr=0.05)
    p = [g.randn(4, 4), g.randn(9)]
    zeros = [torch.zeros_like(t) for t in p] * 3
    yield _case("zero_gradients_decay_only", p, zeros, lr=0.1, weight_decay=0.2)
    p = [g.randn(1)]
    yield _case("single_element_one_step", p, _grads(g, p, 1), lr=1.0, beta1=0.5, beta2=0.75)
    p = [g.randn(3, 3)]
    yield _case("large_eps", p, _grads(g, p, 2), lr=0.1, eps=1.0)


def random_cases(g):
    p = [g.randn(37, 129), g.randn(1000), g.randn(4, 33, 65)]
    yield _case("randn_3_tensors", p, _grads(g, p, 4), lr=0.01)
    p = [g.randn(257, 63)]
    yield _case("outlier_grads", p, _grads(g, p, 3, outlier=True), lr=0.01, weight_decay=0.1)
    p = [g.outlier(100, 50), g.randn(50)]
    yield _case("outlier_params", p, _grads(g, p, 3), lr=0.02, weight_decay=0.05)
    p = [g.randn(64, 80), g.randn(80)]
    yield _case("randn_betas", p, _grads(g, p, 5, outlier=True), lr=0.005, beta1=0.85, beta2=0.98)
    # The seed's own call patterns (tasks/contracts.json): one 2-D parameter, defaults or weight decay.
    p = [g.randn(33, 65)]
    yield _case("seed_pattern_2d_default", p, _grads(g, p, 3))
    p = [g.outlier(47, 31)]
    yield _case("seed_pattern_2d_wd", p, _grads(g, p, 3, outlier=True), weight_decay=0.1)


def perf_inputs(g, params):
    ps = [g.randn(n) for n in params["sizes"]]
    grads = []
    for _ in range(int(params.get("steps", 3))):
        grads += [g.randn(n) for n in params["sizes"]]
    return (*ps, grads), {"lr": 1e-3}


def perf_cost(params):
    n = sum(params["sizes"])
    steps = int(params.get("steps", 3))
    # per element and step: read p, g, m, v; write p, m, v (float32)
    return {"bytes": steps * n * 4 * 7, "flops": steps * n * 14}
