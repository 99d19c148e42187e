import math

import torch

META = {
    "id": "Fusion/fused_bmm_dropout_gelu",
    "category": "Fusion",
    "stem": "fused_bmm_dropout_gelu",
    "entry": "fused_bmm_dropout_gelu",
    "signature": ("fused_bmm_dropout_gelu(input1, input2, p=0.5, training=True, inplace=False, approximate='none', "
                  "*, out=None) -> Tensor"),
    "description": (
        "Z = bmm(input1, input2) for (B, N, M) x (B, M, P); then dropout: with training=True each "
        "element of Z is zeroed with probability p and survivors are scaled by 1 / (1 - p) (p = 1 "
        "zeroes everything, training=False is the identity); then GELU (exact erf form, or the tanh "
        "approximation when approximate='tanh'). inplace only allows the dropout to overwrite the "
        "intermediate Z: the inputs are never modified. Output (B, N, P) in the input dtype; with out "
        "given the result is also written there."
    ),
    "notes": (
        "Dropout contract (no seed is part of the signature, so masks cannot be matched): cases with "
        "training=False, p = 0 or p = 1 are deterministic and compared value by value. For 0 < p < 1 "
        "the harness (drive) calls the entry three times: with training=True, with training=False, "
        "and with training=False on input1 * 1/(1-p) (GELU of a kept element); it compares (a) the "
        "training=False output value by value, (b) a per-element flag that every training output is "
        "either GELU(0) = 0 (dropped) or GELU(Z / (1 - p)) (kept) within 5% (relative, 1 + |value| scale), and (c) a flag "
        "that the fraction of dropped elements (among those where the two are distinguishable) is "
        "within 6 standard deviations of p. Any random stream with the right keep probability passes. "
        "Perf inputs pass p positionally and are timed as one plain call."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [3e-2, 1e-2],
        "float16": [1e-2, 1e-2],
        "bfloat16": [3e-2, 2e-2],
    },
    "tolerance_note": (
        "TF32 allowed for the float32 bmm (10-bit mantissa, possibly truncated inputs): as for "
        "MatrixMultiply/matmul, products of N(0,1) data with K <= 64 stay well inside atol 3e-2 + rtol "
        "1e-2 of the float64 oracle, and GELU's slope is below 1.13; half precision inputs multiply "
        "exactly in float32, leaving about one rounding of the output."
    ),
    "tf32": True,
    "drive_checks": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "b8_n512_m512_p512", "params": {"B": 8, "N": 512, "M": 512, "P": 512}},
        {"name": "b16_n1024_m1024_p1024", "params": {"B": 16, "N": 1024, "M": 1024, "P": 1024}},
        {"name": "b16_n1024_m1024_p1024_f16",
         "params": {"B": 16, "N": 1024, "M": 1024, "P": 1024, "dtype": "float16"}},
        {"name": "b32_n2048_m1024_p2048_bf16",
         "params": {"B": 32, "N": 2048, "M": 1024, "P": 2048, "dtype": "bfloat16"}},
    ],
}


def reference(input1, input2, p=0.5, training=True, inplace=False, approximate="none", *, out=None):
    F = torch.nn.functional
    z = torch.bmm(input1, input2)
    z = F.dropout(z, p=p, training=training, inplace=inplace)
    y = F.gelu(z, approximate=approximate)
    if out is not None:
        out.copy_(y)
        return out
    return y


_NAMES = ("input1", "input2", "p", "training", "inplace", "approximate")
_DEFAULTS = {"p": 0.5, "training": True}


def _opt(args, kwargs, name):
    i = _NAMES.index(name)
    if len(args) > i:
        return args[i]
    return kwargs.get(name, _DEFAULTS[name])


def _dropout_flags(d_train, d_eval, p, base):
    """d_train / d_eval: dropout outputs (training / eval) in float64; base: magnitude scale."""
    kept = d_eval / (1.0 - p)
    tol = 5e-2 * (1.0 + kept.abs() + base)
    is_zero = d_train.abs() <= tol
    consistent = is_zero | ((d_train - kept).abs() <= tol)
    distinct = kept.abs() > 4.0 * tol
    n = int(distinct.sum().item())
    if n < 50:
        return consistent, False
    frac = float((is_zero & distinct).sum().item()) / n
    ok = abs(frac - p) <= 6.0 * math.sqrt(p * (1.0 - p) / n) + 1.0 / n
    return consistent, bool(ok)


def drive(fn, args, kwargs):
    p = float(_opt(args, kwargs, "p"))
    training = bool(_opt(args, kwargs, "training"))
    # probe only where the case names the probability as a keyword (every stochastic correctness case
    # does); perf inputs pass it positionally and are timed as one plain call; meta tensors likewise
    if (not training or p <= 0.0 or p >= 1.0 or "p" not in kwargs
            or args[0].device.type == "meta"):
        return fn(*args, **kwargs)
    args = tuple(args[:2])  # the stochastic cases pass p / training as keywords
    a, b = args
    a_kept = (a.double() * (1.0 / (1.0 - p))).to(a.dtype)
    y_train = fn(a, b, **kwargs)
    y_eval = fn(a, b, **dict(kwargs, training=False))
    y_kept = fn(a_kept, b, **dict(kwargs, training=False))
    consistent, rate_ok = _dropout_flags(y_train.double(), y_kept.double() * (1.0 - p), p, 0.0)
    return {"eval": y_eval, "train_consistent": consistent, "drop_rate_ok": rate_ok}


def _bmm_inputs(g, B, N, M, P, dtype=torch.float32, outlier=False):
    a = (g.outlier(B, N, M, dtype=dtype, p=1e-2, scale=10.0) if outlier else g.randn(B, N, M, dtype=dtype))
    return a, g.randn(B, M, P, dtype=dtype)


def edge_cases(g):
    a, b = _bmm_inputs(g, 2, 8, 16, 24)
    yield {"name": "eval_mode", "args": (a, b), "kwargs": {"training": False}}
    a, b = _bmm_inputs(g, 2, 8, 16, 24)
    yield {"name": "p0_training_identity", "args": (a, b), "kwargs": {"p": 0.0}}
    a, b = _bmm_inputs(g, 2, 5, 16, 7)
    yield {"name": "p1_everything_dropped", "args": (a, b), "kwargs": {"p": 1.0}}
    a, b = _bmm_inputs(g, 3, 6, 9, 10)
    yield {"name": "eval_tanh", "args": (a, b), "kwargs": {"training": False, "approximate": "tanh"}}
    a, b = _bmm_inputs(g, 1, 1, 1, 1)
    yield {"name": "eval_all_size1", "args": (a, b), "kwargs": {"training": False}}
    a, b = _bmm_inputs(g, 2, 7, 1, 9)
    yield {"name": "eval_k1_outer_products", "args": (a, b), "kwargs": {"training": False}}
    a, b = _bmm_inputs(g, 2, 8, 16, 24)
    yield {"name": "eval_out_kwarg_inplace", "args": (a, b),
           "kwargs": {"training": False, "inplace": True, "out": torch.empty(2, 8, 24, device=g.device)}}
    a, b = _bmm_inputs(g, 4, 32, 32, 64)
    yield {"name": "train_p05_default", "args": (a, b), "kwargs": {"p": 0.5, "training": True}}
    a, b = _bmm_inputs(g, 4, 32, 32, 64)
    yield {"name": "train_p05_inplace", "args": (a, b), "kwargs": {"p": 0.5, "training": True, "inplace": True}}


def random_cases(g):
    a, b = _bmm_inputs(g, 4, 33, 64, 40)
    yield {"name": "train_p03_odd", "args": (a, b), "kwargs": {"p": 0.3, "training": True}}
    a, b = _bmm_inputs(g, 3, 40, 48, 64, outlier=True)
    yield {"name": "eval_outlier_f32", "args": (a, b), "kwargs": {"training": False}}
    a, b = _bmm_inputs(g, 2, 64, 64, 64)
    yield {"name": "train_p05_tanh", "args": (a, b), "kwargs": {"p": 0.5, "training": True, "approximate": "tanh"}}
    a, b = _bmm_inputs(g, 4, 32, 32, 48, dtype=torch.float16)
    yield {"name": "eval_f16", "args": (a, b), "kwargs": {"training": False}}
    a, b = _bmm_inputs(g, 4, 32, 32, 48, dtype=torch.bfloat16)
    yield {"name": "train_p02_bf16", "args": (a, b), "kwargs": {"p": 0.2, "training": True}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    B, N, M, P = params["B"], params["N"], params["M"], params["P"]
    a, b = _bmm_inputs(g, B, N, M, P, dtype=dtype)
    return (a, b, 0.5, True), {}


def perf_cost(params):
    B, N, M, P = params["B"], params["N"], params["M"], params["P"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read input1 and input2, write the output; bmm 2 B N M P, then per output element ~15 FLOPs
    # (dropout: random draw, compare, scale 3; GELU ~12)
    nbytes = (B * N * M + B * M * P + B * N * P) * es
    return {"bytes": nbytes, "flops": 2 * B * N * M * P + 15 * B * N * P}
