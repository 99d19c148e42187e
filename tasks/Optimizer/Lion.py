import torch

META = {
    "id": "Optimizer/Lion",
    "category": "Optimizer",
    "stem": "Lion",
    "entry": "Lion",
    "aliases": ["lion_step"],  # the function name in the spec's signature
    "signature": "lion_step(param, grad, exp_avg, lr=1e-4, beta1=0.9, beta2=0.99, weight_decay=0.0) -> tuple",
    "description": (
        "One Lion step (sign-based momentum) as a function: Lion(param, grad, exp_avg, lr, beta1, beta2, "
        "weight_decay) with the spec's lion_step signature, returning (param, exp_avg) after the "
        "update; both may be updated in place (and returned) or returned as new tensors. Per element: "
        "u = beta1 * m + (1 - beta1) * g; p = p * (1 - lr * weight_decay) - lr * sign(u) (sign(0) = 0); "
        "m = beta2 * m + (1 - beta2) * g (the momentum is updated after, and independently of, u). "
        "The harness (drive) keeps a zero-initialised float32 momentum per parameter, calls the entry "
        "once per parameter and step, feeding back the returned momentum, and compares the final "
        "parameters and momenta."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "perf_cost_note": 'The optimizer state (exp_avg) is read and written every step but created inside drive(), so it is not among the arguments.',
    "tolerance_note": (
        "Defaults: the parameter moves by exactly +-lr per step and the momentum is two fused "
        "multiply-adds, so only rounding order differs; u is computed as beta1 * m + (1 - beta1) * g "
        "and a sign flip (|u| within an ulp of 0) is vanishingly rare with Gaussian data."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_params", "params": {"sizes": [1048576], "steps": 3}},
        {"name": "16M_params_wd", "params": {"sizes": [16777216], "steps": 3, "weight_decay": 0.1}},
        {"name": "mlp_like_8_tensors",
         "params": {"sizes": [4194304, 4096, 4194304, 4096, 1048576, 1024, 262144, 256], "steps": 3}},
        {"name": "64M_params", "params": {"sizes": [67108864], "steps": 2}},
    ],
}


def reference(param, grad, exp_avg, lr=1e-4, beta1=0.9, beta2=0.99, weight_decay=0.0):
    u = exp_avg * beta1 + grad * (1 - beta1)
    param.mul_(1 - lr * weight_decay).add_(torch.sign(u), alpha=-lr)
    exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)
    return param, exp_avg


def drive(fn, args, kwargs):
    """args = (p_0, ..., p_{k-1}, grads): each parameter is its own (mutated) argument and grads is a
    flat, step-major list of k * steps gradient tensors. The momentum starts at zero; the entry is
    called per parameter and step, its returned momentum is fed back. Returns params and exp_avg."""
    params, grads = list(args[:-1]), args[-1]
    n = len(params)
    m = [torch.zeros_like(p) for p in params]
    for t in range(len(grads) // n):
        for i, p in enumerate(params):
            r = fn(p, grads[t * n + i].clone(), m[i], **kwargs)
            if r[0] is not p:
                p.copy_(r[0])
            m[i] = r[1]
    return {"params": list(params), "exp_avg": m}


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
    yield _case("lr0.01_three_steps", p, _grads(g, p, 3), lr=0.01)
    p = ps()
    yield _case("custom_betas", p, _grads(g, p, 4), lr=0.01, beta1=0.5, beta2=0.9)
    p = ps()
    yield _case("weight_decay", p, _grads(g, p, 3), lr=0.01, weight_decay=0.5)
    p = ps()
    # momentum from step 1 opposes the small later gradients: sign(u) follows m, not g
    yield _case("momentum_dominates_sign", p, _grads(g, p, 3, scales=[5.0, 0.01, 0.01]), lr=0.01, beta1=0.9)
    p = [g.randn(4, 4), g.randn(9)]
    zeros = [torch.zeros_like(t) for t in p] * 3
    yield _case("zero_gradients_sign_zero", p, zeros, lr=0.1, weight_decay=0.2)
    p = [g.randn(1)]
    yield _case("single_element_one_step", p, _grads(g, p, 1), lr=1.0)


def random_cases(g):
    p = [g.randn(37, 129), g.randn(1000), g.randn(4, 33, 65)]
    yield _case("randn_3_tensors", p, _grads(g, p, 4), lr=0.001)
    p = [g.randn(257, 63)]
    yield _case("outlier_grads_wd", p, _grads(g, p, 3, outlier=True), lr=0.001, weight_decay=0.1)
    p = [g.outlier(100, 50), g.randn(50)]
    yield _case("outlier_params", p, _grads(g, p, 3), lr=0.002)
    p = [g.randn(64, 80), g.randn(80)]
    yield _case("randn_betas", p, _grads(g, p, 5, outlier=True), lr=0.0005, beta1=0.95, beta2=0.98)
    # The seed's own call patterns (tasks/contracts.json): one 1-D parameter, lr or betas with decay.
    p = [g.randn(1000)]
    yield _case("seed_pattern_1d_lr", p, _grads(g, p, 3), lr=0.001)
    p = [g.outlier(777)]
    yield _case("seed_pattern_1d_betas_wd", p, _grads(g, p, 3, outlier=True), beta1=0.95, beta2=0.98,
                weight_decay=0.1)


def perf_inputs(g, params):
    ps = [g.randn(n) for n in params["sizes"]]
    grads = []
    for _ in range(int(params.get("steps", 3))):
        grads += [g.randn(n) for n in params["sizes"]]
    kw = {"lr": 1e-4}
    if "weight_decay" in params:
        kw["weight_decay"] = params["weight_decay"]
    return (*ps, grads), kw


def perf_cost(params):
    n = sum(params["sizes"])
    steps = int(params.get("steps", 3))
    # per element and step: read p, g, m; write p, m (float32)
    return {"bytes": steps * n * 4 * 5, "flops": steps * n * 9}
