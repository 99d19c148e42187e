import torch

META = {
    "id": "Optimizer/SGD",
    "category": "Optimizer",
    "stem": "SGD",
    "entry": "SGD",
    "signature": ("def SGD(params, lr=1e-3, momentum=0, weight_decay=0, dampening=0, nesterov=False, "
                  "maximize=False, foreach=None, differentiable=False, fused=None)"),
    "description": (
        "Stochastic gradient descent with torch.optim.SGD semantics. SGD(params, ...) returns an "
        "optimizer object; each call of its step() updates every parameter tensor in place from its "
        ".grad (parameters whose .grad is None are skipped), keeping a momentum buffer per parameter "
        "across steps. Per element and step: g = grad, negated first when maximize=True; "
        "g = g + weight_decay * p; with momentum != 0 the buffer is b = g on the first step and "
        "b = momentum * b + (1 - dampening) * g afterwards, then g = g + momentum * b if nesterov "
        "else g = b; finally p = p - lr * g. Hyperparameters are passed as keywords. The harness "
        "(drive) builds the optimizer on a list of float32 parameters (possibly of different shapes, 0-d "
        "included), assigns fresh gradients and calls step() several times, then compares the "
        "parameters."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "perf_cost_note": 'The momentum buffer is read and written every step but created inside the optimizer that drive() builds, so it is not among the arguments.',
    "tolerance_note": "Defaults: a few fused multiply-adds per element and step, so only rounding order differs.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_params_momentum", "params": {"sizes": [1048576], "steps": 3, "momentum": 0.9}},
        {"name": "16M_params_nesterov_wd",
         "params": {"sizes": [16777216], "steps": 3, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-4}},
        {"name": "mlp_like_8_tensors",
         "params": {"sizes": [4194304, 4096, 4194304, 4096, 1048576, 1024, 262144, 256], "steps": 3,
                    "momentum": 0.9}},
        {"name": "64M_params_plain", "params": {"sizes": [67108864], "steps": 2, "momentum": 0.0}},
    ],
}


def reference(params, lr=1e-3, momentum=0, weight_decay=0, dampening=0, nesterov=False, maximize=False,
              foreach=None, differentiable=False, fused=None):
    return torch.optim.SGD(params, lr=lr, momentum=momentum, dampening=dampening,
                           weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                           foreach=foreach, differentiable=differentiable, fused=fused)


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


def _grads(g, params, steps, outlier=False):
    out = []
    for _ in range(steps):
        for p in params:
            out.append(g.outlier(*p.shape) if outlier else g.randn(*p.shape))
    return out


def edge_cases(g):
    def ps():
        return [g.randn(5, 7), g.randn(33), g.tensor(1.5)]
    p = ps()
    yield _case("plain_lr0.1", p, _grads(g, p, 3), lr=0.1)
    p = ps()
    yield _case("default_hyperparameters", p, _grads(g, p, 3))
    p = ps()
    yield _case("momentum_first_step_buffer", p, _grads(g, p, 3), lr=0.1, momentum=0.9)
    p = ps()
    yield _case("momentum_dampening", p, _grads(g, p, 3), lr=0.05, momentum=0.8, dampening=0.5)
    p = ps()
    yield _case("nesterov", p, _grads(g, p, 3), lr=0.05, momentum=0.9, nesterov=True)
    p = ps()
    yield _case("weight_decay", p, _grads(g, p, 3), lr=0.1, weight_decay=0.1)
    p = ps()
    yield _case("maximize", p, _grads(g, p, 3), lr=0.1, maximize=True)
    p = ps()
    # maximize negates the gradient *before* weight decay is added
    yield _case("maximize_weight_decay_momentum", p, _grads(g, p, 3), lr=0.1, momentum=0.9,
                weight_decay=0.2, maximize=True)
    p = ps()
    yield _case("dampening_wd_maximize", p, _grads(g, p, 3), lr=0.03, momentum=0.7,
                dampening=0.3, weight_decay=0.05, maximize=True)
    p = [g.randn(4, 4), g.randn(9)]
    zeros = [torch.zeros_like(t) for t in p] * 3
    yield _case("zero_gradients_with_decay", p, zeros, lr=0.1, momentum=0.9, weight_decay=0.5)
    p = [g.randn(1)]
    yield _case("single_element_one_step", p, _grads(g, p, 1), lr=1.0, momentum=0.9)


def random_cases(g):
    p = [g.randn(37, 129), g.randn(1000), g.randn(4, 33, 65)]
    yield _case("randn_momentum_3_tensors", p, _grads(g, p, 4), lr=0.05, momentum=0.9, weight_decay=1e-3)
    p = [g.randn(257, 63)]
    yield _case("outlier_nesterov", p, _grads(g, p, 3, outlier=True), lr=0.01, momentum=0.95, nesterov=True)
    p = [g.outlier(100, 50), g.randn(50)]
    yield _case("outlier_params_plain", p, _grads(g, p, 3), lr=0.2)
    p = [g.randn(64, 80), g.randn(80)]
    yield _case("randn_dampening_maximize", p, _grads(g, p, 5, outlier=True), lr=0.02, momentum=0.5,
                dampening=0.1, maximize=True)


def perf_inputs(g, params):
    ps = [g.randn(n) for n in params["sizes"]]
    grads = []
    for _ in range(int(params.get("steps", 3))):
        grads += [g.randn(n) for n in params["sizes"]]
    kw = {"lr": 0.01}
    for k in ("momentum", "nesterov", "weight_decay", "dampening", "maximize"):
        if k in params:
            kw[k] = params[k]
    return (*ps, grads), kw


def perf_cost(params):
    n = sum(params["sizes"])
    steps = int(params.get("steps", 3))
    momentum = float(params.get("momentum", 0.0)) != 0.0
    wd = float(params.get("weight_decay", 0.0)) != 0.0
    nesterov = bool(params.get("nesterov", False))
    # per element and step: read p, g, write p (float32); with momentum also write the momentum
    # buffer every step and read it from the second step on (the first step initialises it from g)
    nbytes = 3 * steps * n * 4 + ((2 * steps - 1) * n * 4 if momentum else 0)
    # per element and step: p -= lr * g (2); weight decay g += wd * p (2); momentum
    # buf = mu * buf + (1 - dampening) * g (3); nesterov g += mu * buf (2)
    per = 2 + (2 if wd else 0) + (3 if momentum else 0) + (2 if nesterov else 0)
    return {"bytes": nbytes, "flops": steps * n * per}
