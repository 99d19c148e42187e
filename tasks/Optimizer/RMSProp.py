import torch

META = {
    "id": "Optimizer/RMSProp",
    "category": "Optimizer",
    "stem": "RMSProp",
    "entry": "RMSProp",
    "aliases": ["rmsprop_step"],  # the function name in the spec's signature
    "signature": "rmsprop_step(param, grad, square_avg, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0) -> tuple",
    "description": (
        "One RMSProp step (torch.optim.RMSprop without momentum or centering) as a function: "
        "RMSProp(param, grad, square_avg, lr, alpha, eps, weight_decay) with the spec's rmsprop_step "
        "signature, returning (param, square_avg) after the update; both may be updated in place (and "
        "returned) or returned as new tensors. Per element: g = grad + weight_decay * p; "
        "v = alpha * v + (1 - alpha) * g^2; p = p - lr * g / (sqrt(v) + eps). The harness (drive) "
        "keeps a zero-initialised float32 square_avg per parameter, calls the entry once per "
        "parameter and step, feeding back the returned state, and compares the final parameters and "
        "square averages."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "perf_cost_note": 'The optimizer state (square_avg and friends) is read and written every step but created inside drive(), so it is not among the arguments.',
    "tolerance_note": (
        "Defaults: a few float32 operations (square, sqrt, divide) per element and step, so only "
        "rounding order differs; the update is at most ~lr / sqrt(1 - alpha) in size."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_params", "params": {"sizes": [1048576], "steps": 3}},
        {"name": "16M_params_wd", "params": {"sizes": [16777216], "steps": 3, "weight_decay": 1e-4}},
        {"name": "mlp_like_8_tensors",
         "params": {"sizes": [4194304, 4096, 4194304, 4096, 1048576, 1024, 262144, 256], "steps": 3}},
        {"name": "64M_params", "params": {"sizes": [67108864], "steps": 2}},
    ],
}


def reference(param, grad, square_avg, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0):
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    param.addcdiv_(grad, square_avg.sqrt().add_(eps), value=-lr)
    return param, square_avg


def drive(fn, args, kwargs):
    """args = (p_0, ..., p_{k-1}, grads): each parameter is its own (mutated) argument and grads is a
    flat, step-major list of k * steps gradient tensors. square_avg starts at zero; the entry is
    called per parameter and step, its returned state is fed back. Returns params and square_avg."""
    params, grads = list(args[:-1]), args[-1]
    n = len(params)
    v = [torch.zeros_like(p) for p in params]
    for t in range(len(grads) // n):
        for i, p in enumerate(params):
            r = fn(p, grads[t * n + i].clone(), v[i], **kwargs)
            if r[0] is not p:
                p.copy_(r[0])
            v[i] = r[1]
    return {"params": list(params), "square_avg": v}


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
    yield _case("custom_alpha_eps", p, _grads(g, p, 3), lr=0.01, alpha=0.9, eps=1e-4)
    p = ps()
    yield _case("weight_decay", p, _grads(g, p, 3), lr=0.01, weight_decay=0.1)
    p = ps()
    yield _case("shrinking_grads", p, _grads(g, p, 4, scales=[3.0, 0.1, 0.1, 0.05]), lr=0.01)
    p = [g.randn(4, 4), g.randn(9)]
    zeros = [torch.zeros_like(t) for t in p] * 3
    yield _case("zero_gradients", p, zeros, lr=0.1)
    p = [g.randn(4, 4)]
    zeros = [torch.zeros_like(t) for t in p] * 3
    yield _case("zero_gradients_with_decay", p, zeros, lr=0.01, weight_decay=0.5)
    p = [g.randn(1)]
    yield _case("single_element_one_step", p, _grads(g, p, 1), lr=1.0, alpha=0.5)
    p = [g.randn(3, 3)]
    yield _case("large_eps", p, _grads(g, p, 2), lr=0.1, eps=1.0)


def random_cases(g):
    p = [g.randn(37, 129), g.randn(1000), g.randn(4, 33, 65)]
    yield _case("randn_3_tensors", p, _grads(g, p, 4), lr=0.001)
    p = [g.randn(257, 63)]
    yield _case("outlier_grads_wd", p, _grads(g, p, 3, outlier=True), lr=0.001, weight_decay=0.01)
    p = [g.outlier(100, 50), g.randn(50)]
    yield _case("outlier_params", p, _grads(g, p, 3), lr=0.002)
    p = [g.randn(64, 80), g.randn(80)]
    yield _case("randn_alpha", p, _grads(g, p, 5, outlier=True), lr=0.0005, alpha=0.9)
    # The seed's own call patterns (tasks/contracts.json): one 1-D parameter, defaults or lr and alpha.
    p = [g.randn(1000)]
    yield _case("seed_pattern_1d_default", p, _grads(g, p, 3))
    p = [g.outlier(777)]
    yield _case("seed_pattern_1d_lr_alpha", p, _grads(g, p, 3, outlier=True), lr=0.01, alpha=0.9)


def perf_inputs(g, params):
    ps = [g.randn(n) for n in params["sizes"]]
    grads = []
    for _ in range(int(params.get("steps", 3))):
        grads += [g.randn(n) for n in params["sizes"]]
    kw = {"lr": 1e-3}
    if "weight_decay" in params:
        kw["weight_decay"] = params["weight_decay"]
    return (*ps, grads), kw


def perf_cost(params):
    n = sum(params["sizes"])
    steps = int(params.get("steps", 3))
    # per element and step: read p, g, v; write p, v (float32)
    return {"bytes": steps * n * 4 * 5, "flops": steps * n * 9}
