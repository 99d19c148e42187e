import math

import torch

META = {
    "id": "Fusion/fused_mv_logsoftmax_dropout",
    "category": "Fusion",
    "stem": "fused_mv_logsoftmax_dropout",
    "entry": "fused_mv_logsoftmax_dropout",
    "signature": "fused_mv_logsoftmax_dropout(input, vec, p=0.5, training=True, inplace=False, dim=0, *, out=None) -> Tensor",
    "description": (
        "Matrix-vector product z = input @ vec (input (n, m), vec (m,)), then log-softmax of the "
        "length-n vector z along dim (0 or -1), then dropout: with training=True every element is "
        "independently zeroed with probability p and the survivors are scaled by 1/(1-p); with "
        "training=False (or p=0) the log-softmax is returned unchanged, with p=1 everything is zero. "
        "inplace only concerns the intermediate and never modifies the arguments. If out is given the "
        "result is also written there. Random cases are checked through drive(): the entry is called "
        "twice; every nonzero output must equal log_softmax(z)/(1-p), and the fraction of kept "
        "elements (overall, in each half of the vector, and the agreement between the two calls' "
        "masks) must be consistent with independent Bernoulli(1-p) draws (6 standard deviations), so "
        "any good random generator passes without matching torch's random stream."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [5e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [2e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle: an fp32 mat-vec sum and log-sum-exp are off by ~1e-6 on "
        "O(10) log-probabilities, scaled by up to 1/(1-p) = 10 after dropout; half precision allows "
        "the rounding of z to the input dtype (z kept O(1) in those cases) plus one output ulp."
    ),
    "tf32": False,
    "drive_checks": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "notes": (
        "Dropout contract (drive): deterministic cases (training=False, p=0, p=1) are compared "
        "directly; stochastic ones through the kept values and Bernoulli mask statistics."
    ),
    "perf_shapes": [
        {"name": "4096x1024_f32", "params": {"n": 4096, "m": 1024, "dtype": "float32"}},
        {"name": "16384x4096_f32", "params": {"n": 16384, "m": 4096, "dtype": "float32"}},
        {"name": "16384x4096_f16", "params": {"n": 16384, "m": 4096, "dtype": "float16"}},
        {"name": "65536x4096_bf16", "params": {"n": 65536, "m": 4096, "dtype": "bfloat16"}},
    ],
}


def reference(input, vec, p=0.5, training=True, inplace=False, dim=0, *, out=None):
    z = torch.mv(input, vec)
    s = torch.log_softmax(z, dim=dim)
    y = torch.nn.functional.dropout(s, p=p, training=training, inplace=inplace)
    if out is not None:
        out.copy_(y)
        return out
    return y


def _within(count, n, prob):
    """count ~ Binomial(n, prob): accept within 6 standard deviations (+1 for discreteness)."""
    return abs(count - n * prob) <= 6.0 * math.sqrt(n * prob * (1.0 - prob)) + 1.0


def drive(fn, args, kwargs):
    p = float(kwargs.get("p", 0.5))
    training = bool(kwargs.get("training", True))
    y = fn(*args, **kwargs)
    if not training or p == 0.0 or p == 1.0 or not isinstance(y, torch.Tensor) or y.device.type == "meta":
        return y
    y2 = fn(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args], **kwargs)
    dim = kwargs.get("dim", 0)
    inp, vec = args[0], args[1]
    s = torch.log_softmax(torch.mv(inp.double(), vec.double()), dim=dim)
    e = (s / (1.0 - p)).to(y.dtype)
    live = e != 0
    kept, kept2 = (y != 0) & live, (y2 != 0) & live
    n = int(live.sum())
    h = y.numel() // 2
    q = 1.0 - p
    checks = [
        _within(int(kept.sum()), n, q),
        _within(int(kept[:h].sum()), int(live[:h].sum()), q),
        _within(int(kept[h:].sum()), int(live[h:].sum()), q),
        _within(int((kept == kept2)[live].sum()), n, p * p + q * q),
    ]
    return {
        "kept_values": torch.where(y != 0, y, e),
        "kept_values_second_call": torch.where(y2 != 0, y2, e),
        "mask_statistics_ok": torch.tensor(checks, dtype=torch.bool),
    }


def _mv_inputs(g, n, m, dtype=torch.float32, mode="randn", scale=None):
    s = scale if scale is not None else 1.0
    a = (g.outlier(n, m) if mode == "outlier" else g.randn(n, m)) * s
    v = g.randn(m)
    return a.to(dtype), v.to(dtype)


def edge_cases(g):
    yield {"name": "eval_mode", "args": _mv_inputs(g, 33, 20), "kwargs": {"training": False}}
    yield {"name": "eval_dim_minus1_out", "args": _mv_inputs(g, 45, 7),
           "kwargs": {"training": False, "dim": -1, "out": torch.empty(45, device=g.device)}}
    yield {"name": "p0_identity", "args": _mv_inputs(g, 64, 16), "kwargs": {"p": 0.0}}
    yield {"name": "p1_all_zero", "args": _mv_inputs(g, 50, 9), "kwargs": {"p": 1.0}}
    yield {"name": "single_row", "args": _mv_inputs(g, 1, 13), "kwargs": {"training": False}}
    yield {"name": "single_column", "args": _mv_inputs(g, 40, 1), "kwargs": {"training": False}}
    # |z| ~ 1e3: a naive exp overflows, a stable log-sum-exp does not
    yield {"name": "large_logits_stable", "args": _mv_inputs(g, 29, 10, scale=300.0),
           "kwargs": {"training": False}}
    yield {"name": "non_contiguous_input", "args": (g.randn(24, 70).t(), g.randn(24)),
           "kwargs": {"training": False}}
    yield {"name": "dropout_p05", "args": _mv_inputs(g, 4096, 6), "kwargs": {"p": 0.5}}
    yield {"name": "dropout_p02_inplace", "args": _mv_inputs(g, 3001, 5),
           "kwargs": {"p": 0.2, "inplace": True}}
    yield {"name": "dropout_p09_dim_minus1", "args": _mv_inputs(g, 2000, 4),
           "kwargs": {"p": 0.9, "dim": -1}}


def random_cases(g):
    yield {"name": "randn_eval_odd", "args": _mv_inputs(g, 511, 64), "kwargs": {"training": False}}
    yield {"name": "randn_dropout_p03", "args": _mv_inputs(g, 2047, 16), "kwargs": {"p": 0.3}}
    yield {"name": "outlier_eval", "args": _mv_inputs(g, 300, 37, mode="outlier"),
           "kwargs": {"training": False}}
    yield {"name": "outlier_dropout_default", "args": _mv_inputs(g, 1500, 20, mode="outlier"),
           "kwargs": {}}
    # half precision: rows scaled by 1/sqrt(m) so that z = A v is O(1)
    yield {"name": "randn_f16_eval", "args": _mv_inputs(g, 1000, 32, torch.float16, scale=32 ** -0.5),
           "kwargs": {"training": False}}
    yield {"name": "randn_f16_dropout", "args": _mv_inputs(g, 3000, 8, torch.float16, scale=8 ** -0.5),
           "kwargs": {"p": 0.5}}
    yield {"name": "randn_bf16_eval_odd", "args": _mv_inputs(g, 777, 48, torch.bfloat16, scale=48 ** -0.5),
           "kwargs": {"training": False}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    n, m = params["n"], params["m"]
    return (g.randn(n, m, dtype=dtype), g.randn(m, dtype=dtype)), {"p": params.get("p", 0.5)}


def perf_cost(params):
    n, m = params["n"], params["m"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read A (n*m) and v (m), write y (n); 2*n*m for the mat-vec, then per element of z about 5
    # (max, subtract, exp, sum, log/subtract) for log-softmax and 2 (compare, scale) for dropout
    return {"bytes": (n * m + m + n) * es, "flops": 2 * n * m + 7 * n}
