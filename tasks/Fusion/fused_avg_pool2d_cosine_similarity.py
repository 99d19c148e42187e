import torch

META = {
    "id": "Fusion/fused_avg_pool2d_cosine_similarity",
    "category": "Fusion",
    "stem": "fused_avg_pool2d_cosine_similarity",
    "entry": "fused_avg_pool2d_cosine_similarity",
    "signature": "fused_avg_pool2d_cosine_similarity(x1: torch.Tensor, x2: torch.Tensor, kernel_size: int, stride: int = None, padding: int = 0, eps: float = 1e-8) -> torch.Tensor",
    "description": (
        "avg_pool2d(cosine_similarity(x1, x2, dim=1, eps).unsqueeze(1), kernel_size, stride, padding) "
        "for two (N, C, H, W) tensors of the same shape. The cosine similarity along the channel "
        "dimension at every (n, h, w) is <x1, x2> / (max(||x1||, eps) * max(||x2||, eps)) (each norm "
        "clamped separately, so an all-zero vector gives 0). The (N, 1, H, W) similarity map is then "
        "average-pooled with square kernel_size windows, stride defaulting to kernel_size, zero "
        "padding (padding <= kernel_size / 2) counted in the divisor k*k, floor output size. Output "
        "(N, 1, H_out, W_out) in the input dtype."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle (a half-precision reference accumulates the channel dot "
        "products and norms in the input dtype and would be further from the truth than a float32 "
        "kernel). Outputs lie in [-1, 1]: float32 sums over <= a few dozen channels and a window of "
        "<= 25 terms are accurate to ~1e-6; half precision: one output rounding."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "16x64x112x112_k2", "params": {"shape": [16, 64, 112, 112], "kernel_size": 2}},
        {"name": "32x256x56x56_k3s1p1", "params": {"shape": [32, 256, 56, 56], "kernel_size": 3, "stride": 1, "padding": 1}},
        {"name": "64x512x28x28_k2", "params": {"shape": [64, 512, 28, 28], "kernel_size": 2}},
        {"name": "32x256x56x56_k2_bf16", "params": {"shape": [32, 256, 56, 56], "kernel_size": 2, "dtype": "bfloat16"}},
    ],
}


def reference(x1, x2, kernel_size, stride=None, padding=0, eps=1e-8):
    sim = torch.nn.functional.cosine_similarity(x1, x2, dim=1, eps=eps).unsqueeze(1)
    return torch.nn.functional.avg_pool2d(sim, kernel_size, stride, padding)


def _c(name, g, shape, k, dtype=torch.float32, mode="randn", **kw):
    draw = g.randn if mode == "randn" else g.outlier
    return {"name": name, "args": (draw(*shape, dtype=dtype), draw(*shape, dtype=dtype), k), "kwargs": kw}


def edge_cases(g):
    yield _c("kernel1_is_cosine_map", g, (2, 5, 6, 7), 1)
    yield _c("defaults_k2", g, (2, 4, 8, 8), 2)
    yield _c("odd_size_drops_tail", g, (2, 3, 9, 11), 2)
    yield _c("k3_s1_p1_counts_padding", g, (1, 6, 7, 7), 3, stride=1, padding=1)
    yield _c("k4_s3_p2", g, (2, 3, 11, 10), 4, stride=3, padding=2)
    yield _c("single_channel_sign", g, (2, 1, 6, 6), 2)
    yield _c("global_window", g, (3, 4, 5, 5), 5)
    yield _c("large_eps_clamps_norms", g, (1, 3, 6, 6), 2, eps=2.0)
    x = g.randn(2, 4, 6, 6)
    yield {"name": "identical_is_one", "args": (x, x.clone(), 3), "kwargs": {}}
    yield {"name": "opposite_is_minus_one", "args": (x, -2.0 * x, 2), "kwargs": {}}
    z = g.randn(1, 3, 4, 4)
    z[:, :, 0:2, 0:2] = 0.0
    yield {"name": "zero_vectors_give_zero", "args": (z, g.randn(1, 3, 4, 4), 2), "kwargs": {}}
    yield {"name": "non_contiguous_channels_last", "args": (g.randn(2, 8, 9, 5).permute(0, 3, 1, 2),
                                                            g.randn(2, 5, 8, 9), 2), "kwargs": {"stride": 1}}


def random_cases(g):
    yield _c("randn_2x16x32x32_k2", g, (2, 16, 32, 32), 2)
    yield _c("randn_odd_3x7x37x29_k3s2p1", g, (3, 7, 37, 29), 3, stride=2, padding=1)
    yield _c("outlier_2x8x40x40_k4", g, (2, 8, 40, 40), 4, mode="outlier")
    yield _c("randn_f16_2x8x33x33_k2", g, (2, 8, 33, 33), 2, dtype=torch.float16)
    yield _c("outlier_bf16_2x6x31x27_k3s1p1", g, (2, 6, 31, 27), 3, dtype=torch.bfloat16, mode="outlier",
             stride=1, padding=1)


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    x1 = g.randn(*params["shape"], dtype=dt)
    x2 = g.randn(*params["shape"], dtype=dt)
    kw = {}
    for key in ("stride", "padding"):
        if key in params:
            kw[key] = params[key]
    return (x1, x2, params["kernel_size"]), kw


def perf_cost(params):
    N, C, H, W = params["shape"]
    k = params["kernel_size"]
    s = params.get("stride") or k
    p = params.get("padding", 0)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    # read both inputs once, write the pooled map; per pixel 6*C FLOPs (dot and two squared norms)
    # plus ~5 (roots, clamps, divide); per output k*k adds and a scale
    return {"bytes": es * (2 * N * C * H * W + N * OH * OW),
            "flops": N * H * W * (6 * C + 5) + N * OH * OW * (k * k + 1)}
