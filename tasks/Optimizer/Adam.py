import torch

META = {
    "id": "Optimizer/Adam",
    "category": "Optimizer",
    "stem": "Adam",
    "entry": "Adam",
    "signature": ("def Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, "
                  "foreach=None, maximize=False, capturable=False, differentiable=False, fused=None) -> Optimizer"),
    "description": (
        "Adam with torch.optim.Adam semantics. Adam(params, ...) returns an optimizer object; each "
        "call of its step() updates every parameter in place from its .grad (None grads are skipped), "
        "keeping per-parameter state (step count t, first moment m, second moment v, and for "
        "amsgrad the running maximum of v) across steps. Per element and step: g = grad, negated "
        "first when maximize=True; g = g + weight_decay * p (L2 penalty, not decoupled); "
        "m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g^2 (m, v start at 0); "
        "with amsgrad v_hat = max(v_hat, v), otherwise v_hat = v; "
        "p = p - lr / (1 - beta1^t) * m / (sqrt(v_hat) / sqrt(1 - beta2^t) + eps). Hyperparameters "
        "are passed as keywords. The harness (drive) builds the optimizer on a list of float32 "
        "parameters (possibly of different shapes, 0-d included), assigns fresh gradients and calls "
        "step() several times, then compares the parameters."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "perf_cost_note": 'The optimizer state (exp_avg, exp_avg_sq, and max_exp_avg_sq with amsgrad) is read and written every step but created inside the optimizer that drive() builds, so it is not among the arguments.',
    "tolerance_note": (
        "Defaults: per-step updates are about lr in size and are computed with a handful of float32 "
        "operations (sqrt, divide), so only rounding order differs."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_params", "params": {"sizes": [1048576], "steps": 3}},
        {"name": "16M_params_amsgrad", "params": {"sizes": [16777216], "steps": 3, "amsgrad": True}},
        {"name": "mlp_like_8_tensors_wd",
         "params": {"sizes": [4194304, 4096, 4194304, 4096, 1048576, 1024, 262144, 256], "steps": 3,
                    "weight_decay": 0.01}},
        {"name": "64M_params", "params": {"sizes": [67108864], "steps": 2}},
    ],
}


def reference(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, foreach=None,
              maximize=False, capturable=False, differentiable=False, fused=None):
    return torch.optim.Adam(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                            foreach=foreach, maximize=maximize, capturable=capturable,
                            differentiable=differentiable, fused=fused)


def drive(fn, args, kwargs):
    """args = (p_0, ..., p_{k-1}, grads): each parameter is its own (mutated) argument and grads is a
    flat, step-major list of k * steps gradient tensors. Returns the updated parameters."""
    params, grads = list(args[:-1]), args[-1]
    opt = fn(params, **kwargs)
    n = len(params)
    for t in range(len(grads) // n):
        for i, p in enumerate(params):
            p.grad = grads[t * n + i].clone()
        opt.step()
    return list(params)


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
    yield _case("custom_betas_eps", p, _grads(g, p, 3), lr=0.05, betas=(0.8, 0.99), eps=1e-6)
    p = ps()
    yield _case("weight_decay_l2", p, _grads(g, p, 3), lr=0.05, weight_decay=0.1)
    p = ps()
    yield _case("maximize", p, _grads(g, p, 3), lr=0.05, maximize=True)
    p = ps()
    yield _case("maximize_weight_decay", p, _grads(g, p, 3), lr=0.05, weight_decay=0.2, maximize=True)
    p = ps()
    # gradients shrink after the first step, so max(v_hat, v) differs from v
    yield _case("amsgrad_shrinking_grads", p, _grads(g, p, 4, scales=[3.0, 0.1, 0.1, 0.05]), lr=0.05,
                amsgrad=True)
    p = ps()
    yield _case("amsgrad_wd_maximize", p, _grads(g, p, 3, scales=[2.0, 0.2, 1.0]), lr=0.02,
                weight_decay=0.05, amsgrad=True, maximize=True)
    p = [g.randn(4, 4), g.randn(9)]
    zeros = [torch.zeros_like(t) for t in p] * 3
    yield _case("zero_gradients", p, zeros, lr=0.1)
    p = [g.randn(4, 4)]
    zeros = [torch.zeros_like(t) for t in p] * 3
    yield _case("zero_gradients_with_decay_amsgrad", p, zeros, lr=0.1, weight_decay=0.5, amsgrad=True)
    p = [g.randn(1)]
    yield _case("single_element_one_step", p, _grads(g, p, 1), lr=1.0, betas=(0.5, 0.75))


def random_cases(g):
    p = [g.randn(37, 129), g.randn(1000), g.randn(4, 33, 65)]
    yield _case("randn_3_tensors", p, _grads(g, p, 4), lr=0.01)
    p = [g.randn(257, 63)]
    yield _case("outlier_grads_amsgrad", p, _grads(g, p, 3, outlier=True), lr=0.01, amsgrad=True)
    p = [g.outlier(100, 50), g.randn(50)]
    yield _case("outlier_params_wd", p, _grads(g, p, 3), lr=0.02, weight_decay=0.01)
    p = [g.randn(64, 80), g.randn(80)]
    yield _case("randn_betas_maximize", p, _grads(g, p, 5, outlier=True), lr=0.005, betas=(0.85, 0.98),
                maximize=True)
    # The seed's own call patterns (tasks/contracts.json): one 2-D parameter, defaults or one option.
    p = [g.randn(33, 65)]
    yield _case("seed_pattern_2d_default", p, _grads(g, p, 3))
    p = [g.outlier(47, 31)]
    yield _case("seed_pattern_2d_lr", p, _grads(g, p, 3, outlier=True), lr=0.01)


def perf_inputs(g, params):
    ps = [g.randn(n) for n in params["sizes"]]
    grads = []
    for _ in range(int(params.get("steps", 3))):
        grads += [g.randn(n) for n in params["sizes"]]
    kw = {"lr": 1e-3}
    for k in ("amsgrad", "weight_decay", "maximize"):
        if k in params:
            kw[k] = params[k]
    return (*ps, grads), kw


def perf_cost(params):
    n = sum(params["sizes"])
    steps = int(params.get("steps", 3))
    amsgrad = bool(params.get("amsgrad", False))
    wd = float(params.get("weight_decay", 0.0)) != 0.0
    # per element and step: read p, g, m, v; write p, m, v (float32); amsgrad also reads and writes
    # max_exp_avg_sq
    nbytes = steps * n * 4 * (9 if amsgrad else 7)
    # per element and step: m = b1*m + (1-b1)*g (3), v = b2*v + (1-b2)*g*g (4),
    # denom = sqrt(v)/sqrt(bc2) + eps (3, sqrt counted 1), p -= step_size * m / denom (3);
    # weight decay g += wd * p (2); amsgrad max (1)
    per = 13 + (2 if wd else 0) + (1 if amsgrad else 0)
    return {"bytes": nbytes, "flops": steps * n * per}
