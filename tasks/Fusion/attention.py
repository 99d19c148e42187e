import math

import torch

META = {
    "id": "Fusion/attention",
    "category": "Fusion",
    "stem": "attention",
    "entry": "attention",
    "signature": "attention(q, k, v, causal: bool = False, softmax_scale=None, *, out=None) -> Tensor",
    "description": (
        "Scaled dot-product attention over 4-D tensors q (B, H, Lq, D), k and v (B, H, Lk, D): "
        "out = softmax(q k^T * scale) v with scale = softmax_scale, or 1/sqrt(D) when it is None. "
        "With causal=True query i may only attend to keys j <= i (upper-left aligned mask; tested only "
        "with Lq == Lk). Output (B, H, Lq, D) in the input dtype. Must be numerically stable for large "
        "scores; D need not be a power of two. If out is given the result is also written there."
    ),
    "difficulty": 5,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [2e-2, 2e-2],
        "float16": [1e-2, 1e-2],
        "bfloat16": [3e-2, 3e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle; TF32 allowed for float32 (10-bit mantissa, truncated on some GPUs, "
        "on q, k, P and v: score errors ~1e-3*|s| move the softmax weights by up to a few 1e-3 for "
        "D <= 64 and the outlier scales used), and half-precision kernels may round P to the input "
        "dtype before the P@V product."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "b4_h16_s512_d64_f16", "params": {"B": 4, "H": 16, "S": 512, "D": 64, "dtype": "float16"}},
        {"name": "b4_h16_s2048_d64_f16", "params": {"B": 4, "H": 16, "S": 2048, "D": 64, "dtype": "float16"}},
        {"name": "b4_h16_s2048_d64_f16_causal", "params": {"B": 4, "H": 16, "S": 2048, "D": 64, "dtype": "float16", "causal": True}},
        {"name": "b2_h16_s4096_d128_bf16_causal", "params": {"B": 2, "H": 16, "S": 4096, "D": 128, "dtype": "bfloat16", "causal": True}},
        {"name": "b2_h8_s2048_d64_f32", "params": {"B": 2, "H": 8, "S": 2048, "D": 64, "dtype": "float32"}},
    ],
}


def reference(q, k, v, causal=False, softmax_scale=None, *, out=None):
    scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(q.shape[-1])
    s = torch.matmul(q, k.transpose(-2, -1)) * scale
    if causal:
        lq, lk = q.shape[-2], k.shape[-2]
        keep = torch.ones(lq, lk, dtype=torch.bool, device=q.device).tril()
        s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s, dim=-1)
    o = torch.matmul(p, v)
    if out is not None:
        out.copy_(o)
        return out
    return o


def _qkv(g, b, h, lq, lk, d, dtype=torch.float32, mode="randn"):
    if mode == "randn":
        return g.randn(b, h, lq, d, dtype=dtype), g.randn(b, h, lk, d, dtype=dtype), g.randn(b, h, lk, d, dtype=dtype)
    # outlier mode: milder outliers in q/k (they multiply into the scores), full-size ones in v
    return (g.outlier(b, h, lq, d, dtype=dtype, p=2e-3, scale=10.0),
            g.outlier(b, h, lk, d, dtype=dtype, p=2e-3, scale=10.0),
            g.outlier(b, h, lk, d, dtype=dtype))


def edge_cases(g):
    yield {"name": "causal_small", "args": _qkv(g, 1, 2, 17, 17, 16), "kwargs": {"causal": True}}
    yield {"name": "cross_attention_lq_ne_lk", "args": _qkv(g, 2, 1, 20, 33, 32), "kwargs": {}}
    yield {"name": "single_query_single_key", "args": _qkv(g, 1, 3, 1, 1, 16), "kwargs": {}}
    yield {"name": "single_query_many_keys", "args": _qkv(g, 1, 1, 1, 50, 32), "kwargs": {}}
    yield {"name": "causal_first_row_copies_v0", "args": _qkv(g, 1, 1, 5, 5, 16), "kwargs": {"causal": True}}
    yield {"name": "scale_zero_uniform_average", "args": _qkv(g, 1, 2, 9, 13, 16), "kwargs": {"softmax_scale": 0.0}}
    q, k, v = _qkv(g, 1, 2, 24, 24, 32)
    yield {"name": "large_scores_stability", "args": (q * 8.0, k * 8.0, v), "kwargs": {"softmax_scale": 1.0}}
    yield {"name": "large_scores_causal", "args": (q * 8.0, k * 8.0, v), "kwargs": {"causal": True, "softmax_scale": 0.5}}
    yield {"name": "head_dim_40_not_pow2", "args": _qkv(g, 1, 2, 19, 19, 40), "kwargs": {}}
    yield {"name": "custom_scale_causal_f16", "args": _qkv(g, 1, 2, 31, 31, 64, dtype=torch.float16),
           "kwargs": {"causal": True, "softmax_scale": 0.3}}


def random_cases(g):
    yield {"name": "randn_d64_odd_len", "args": _qkv(g, 1, 2, 77, 77, 64), "kwargs": {}}
    yield {"name": "randn_causal_d32", "args": _qkv(g, 2, 2, 45, 45, 32), "kwargs": {"causal": True}}
    yield {"name": "outlier_d64", "args": _qkv(g, 1, 2, 50, 61, 64, mode="outlier"), "kwargs": {}}
    yield {"name": "f16_causal", "args": _qkv(g, 1, 4, 64, 64, 64, dtype=torch.float16), "kwargs": {"causal": True}}
    yield {"name": "f16_cross_outlier", "args": _qkv(g, 2, 2, 33, 48, 32, dtype=torch.float16, mode="outlier"),
           "kwargs": {}}
    yield {"name": "bf16", "args": _qkv(g, 1, 2, 57, 57, 64, dtype=torch.bfloat16), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float16"))
    b, h, s, d = params["B"], params["H"], params["S"], params["D"]
    q, k, v = _qkv(g, b, h, s, s, d, dtype=dtype)
    return (q, k, v), {"causal": bool(params.get("causal", False))}


def perf_cost(params):
    b, h, s, d = params["B"], params["H"], params["S"], params["D"]
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float16")]
    # read q, k, v once and write o once (the S x S scores never leave the chip in an ideal kernel).
    # FLOPs: the two matmuls Q K^T and P V, 2*S*S*D each per head; causal keeps the S*(S+1)/2
    # query-key pairs on or below the diagonal. Softmax (~5 per score) is left out, as is usual.
    pairs = s * (s + 1) // 2 if params.get("causal") else s * s
    return {"bytes": 4 * b * h * s * d * es, "flops": 4 * b * h * pairs * d}
