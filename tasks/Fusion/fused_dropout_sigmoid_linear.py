import math

import torch

META = {
    "id": "Fusion/fused_dropout_sigmoid_linear",
    "category": "Fusion",
    "stem": "fused_dropout_sigmoid_linear",
    "entry": "fused_dropout_sigmoid_linear",
    "signature": "def fused_dropout_sigmoid_linear(input: torch.Tensor, weight: torch.Tensor, bias=None, p=0.5, training=True, inplace=False) -> torch.Tensor",
    "description": (
        "Linear layer (input (*, in_features), weight (out_features, in_features), optional bias), "
        "then the logistic sigmoid, then dropout: with training=True each element is independently "
        "zeroed with probability p and the survivors are scaled by 1/(1-p); training=False or p=0 "
        "returns the sigmoid unchanged, p=1 returns zeros. inplace only concerns the intermediate, "
        "never the arguments. Output shape (*, out_features), input dtype; accumulation in float32 "
        "is expected. Random cases are checked through drive(): the entry is called twice; every "
        "nonzero output must equal sigmoid(linear)/(1-p), and the fraction of kept elements "
        "(overall, in each half of the flattened output, and the agreement between the two calls' "
        "masks) must be consistent with independent Bernoulli(1-p) draws (6 standard deviations), "
        "so any good random generator passes without matching torch's random stream."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [2e-2, 1e-2],
        "float16": [5e-3, 1e-2],
        "bfloat16": [2e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle; TF32 allowed for float32 (10-bit mantissa, inputs "
        "possibly truncated): emulated over 30 seeds with the cases' distributions (weight ~ N(0, "
        "1/K), K <= 256, x50 outliers), truncated-TF32 products pushed through the sigmoid stay "
        "below 0.1 of [1e-2, 1e-2]; atol is doubled because dropout scales values and errors by up "
        "to 1/(1-p) = 5 (p <= 0.8 in float32 cases); half precision allows the rounding of the "
        "pre-activation to the input dtype plus one output ulp."
    ),
    "tf32": True,
    "drive_checks": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "notes": (
        "Dropout contract (drive): deterministic cases (training=False, p=0, p=1) are compared directly; "
        "stochastic ones through the kept values and Bernoulli mask statistics."
    ),
    "perf_shapes": [
        {"name": "4096x1024x1024_f32", "params": {"m": 4096, "k": 1024, "n": 1024, "dtype": "float32"}},
        {"name": "8192x4096x4096_f32", "params": {"m": 8192, "k": 4096, "n": 4096, "dtype": "float32"}},
        {"name": "8192x4096x4096_f16", "params": {"m": 8192, "k": 4096, "n": 4096, "dtype": "float16"}},
        {"name": "16384x4096x4096_bf16_p01", "params": {"m": 16384, "k": 4096, "n": 4096, "dtype": "bfloat16", "kwargs": {"p": 0.1}}},
    ],
}


def reference(input, weight, bias=None, p=0.5, training=True, inplace=False):
    s = torch.sigmoid(torch.nn.functional.linear(input, weight, bias))
    return torch.nn.functional.dropout(s, p=p, training=training, inplace=inplace)


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
    x, w = args[0], args[1]
    b = args[2] if len(args) > 2 else None
    s = torch.sigmoid(torch.nn.functional.linear(x.double(), w.double(), None if b is None else b.double()))
    e = (s / (1.0 - p)).to(y.dtype)
    live = (e != 0).flatten()
    kept, kept2 = (y != 0).flatten() & live, (y2 != 0).flatten() & live
    n = int(live.sum())
    h = live.numel() // 2
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


def _w(g, n, k, dtype=torch.float32):
    # nn.Linear-like scale: weight ~ N(0, 1/k), so that the pre-activation stays O(1)
    return (g.randn(n, k) * (k ** -0.5)).to(dtype)


def _ints(g, lo, hi, *shape, scale=1.0):
    # small integers (times a power of two) are exact in TF32, fp16 and bf16: exact-product cases
    return g.randint(lo, hi, *shape).float() * scale


def _linear_edge_cases(g, kw):
    k = dict(kw)
    yield {"name": "exact_small_integers", "args": (_ints(g, -3, 4, 24, 40, scale=0.25),
                                                    _ints(g, -2, 3, 19, 40, scale=0.125),
                                                    _ints(g, -4, 5, 19, scale=0.5)), "kwargs": dict(k)}
    yield {"name": "input_1d", "args": (g.randn(40), _w(g, 23, 40), g.randn(23)), "kwargs": dict(k)}
    yield {"name": "no_bias", "args": (g.randn(17, 33), _w(g, 29, 33)), "kwargs": dict(k)}
    yield {"name": "bias_none_explicit_3d", "args": (g.randn(2, 5, 24), _w(g, 20, 24), None), "kwargs": dict(k)}
    yield {"name": "batched_4d", "args": (g.randn(2, 3, 4, 16), _w(g, 18, 16), g.randn(18)), "kwargs": dict(k)}
    yield {"name": "k1", "args": (g.randn(31, 1), g.randn(29, 1), g.randn(29)), "kwargs": dict(k)}
    yield {"name": "n1", "args": (g.randn(9, 40), _w(g, 1, 40), g.randn(1)), "kwargs": dict(k)}
    yield {"name": "m1", "args": (g.randn(1, 64), _w(g, 40, 64), g.randn(40)), "kwargs": dict(k)}
    yield {"name": "empty_batch", "args": (g.randn(0, 12), _w(g, 7, 12), g.randn(7)), "kwargs": dict(k)}
    yield {"name": "non_contiguous", "args": (g.randn(48, 20).t(), (g.randn(48, 36) * 48 ** -0.5).t(),
                                              g.randn(72)[::2]), "kwargs": dict(k)}
    yield {"name": "large_preactivation", "args": (g.randn(16, 32) * 8.0, _w(g, 24, 32), g.randn(24) * 4.0),
           "kwargs": dict(k)}


def _linear_random_cases(g, kw):
    k = dict(kw)
    yield {"name": "randn_64x256x64", "args": (g.randn(64, 256), _w(g, 64, 256), g.randn(64)), "kwargs": dict(k)}
    yield {"name": "randn_odd_37x100x45", "args": (g.randn(37, 100), _w(g, 45, 100), g.randn(45)), "kwargs": dict(k)}
    yield {"name": "outlier_48x128x80", "args": (g.outlier(48, 128), _w(g, 80, 128), g.outlier(80)),
           "kwargs": dict(k)}
    yield {"name": "randn_f16_3d", "args": (g.randn(2, 32, 128, dtype=torch.float16), _w(g, 96, 128, torch.float16),
                                            g.randn(96, dtype=torch.float16)), "kwargs": dict(k)}
    yield {"name": "outlier_f16_odd", "args": (g.outlier(33, 64, p=1e-2, dtype=torch.float16),
                                               _w(g, 31, 64, torch.float16), None), "kwargs": dict(k)}
    yield {"name": "randn_bf16_odd", "args": (g.randn(50, 200, dtype=torch.bfloat16),
                                              _w(g, 70, 200, torch.bfloat16),
                                              g.randn(70, dtype=torch.bfloat16)), "kwargs": dict(k)}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    m, k, n = params["m"], params["k"], params["n"]
    kw = dict(params.get("kwargs", {}))
    kw.setdefault("p", 0.5)
    return (g.randn(m, k, dtype=dtype), g.randn(n, k, dtype=dtype), g.randn(n, dtype=dtype)), kw


def _linear_cost(params, epilogue_flops):
    m, k, n = params["m"], params["k"], params["n"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x (m*k), W (n*k) and the bias (n), write the (m, n) output; 2*m*n*k for the product, one
    # add per output for the bias and the activation's per-element FLOPs
    return {"bytes": (m * k + n * k + n + m * n) * es, "flops": 2 * m * n * k + m * n * (1 + epilogue_flops)}


def edge_cases(g):
    yield from _linear_edge_cases(g, {"training": False})
    yield {"name": "p0_identity", "args": (g.randn(20, 32), _w(g, 24, 32), g.randn(24)), "kwargs": {"p": 0.0}}
    yield {"name": "p1_all_zero", "args": (g.randn(20, 32), _w(g, 24, 32), g.randn(24)), "kwargs": {"p": 1.0}}
    yield {"name": "saturated_eval", "args": (g.tensor([[1.0], [-1.0], [0.0]]), g.tensor([[200.0], [-200.0], [30.0]]),
                                              None), "kwargs": {"training": False}}
    yield {"name": "dropout_p05_exact", "args": (_ints(g, -3, 4, 64, 16, scale=0.5), _ints(g, -2, 3, 64, 16, scale=0.25),
                                                 _ints(g, -2, 3, 64)), "kwargs": {"p": 0.5}}
    yield {"name": "dropout_p08_inplace_3d", "args": (g.randn(4, 30, 24), _w(g, 40, 24), g.randn(40)),
           "kwargs": {"p": 0.8, "inplace": True}}
    yield {"name": "dropout_p02_no_bias", "args": (g.randn(50, 40), _w(g, 45, 40)), "kwargs": {"p": 0.2}}


def random_cases(g):
    yield from _linear_random_cases(g, {"training": False})
    yield {"name": "dropout_randn_odd", "args": (g.randn(77, 100), _w(g, 45, 100), g.randn(45)), "kwargs": {"p": 0.3}}
    yield {"name": "dropout_outlier_default_p", "args": (g.outlier(64, 64), _w(g, 64, 64), g.randn(64)), "kwargs": {}}
    yield {"name": "dropout_f16", "args": (g.randn(64, 64, dtype=torch.float16), _w(g, 48, 64, torch.float16),
                                           g.randn(48, dtype=torch.float16)), "kwargs": {"p": 0.5}}
    yield {"name": "dropout_bf16_odd", "args": (g.randn(50, 40, dtype=torch.bfloat16), _w(g, 70, 40, torch.bfloat16),
                                                None), "kwargs": {"p": 0.4}}


def perf_cost(params):
    # epilogue: sigmoid 4 (neg, exp, add, div) plus dropout 2 (compare, scale) per output element
    return _linear_cost(params, 6)
