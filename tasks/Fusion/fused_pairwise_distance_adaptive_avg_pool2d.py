import torch

META = {
    "id": "Fusion/fused_pairwise_distance_adaptive_avg_pool2d",
    "category": "Fusion",
    "stem": "fused_pairwise_distance_adaptive_avg_pool2d",
    "entry": "fused_pairwise_distance_adaptive_avg_pool2d",
    "signature": "def fused_pairwise_distance_adaptive_avg_pool2d(x1: torch.Tensor, x2: torch.Tensor, output_size: int or tuple, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> torch.Tensor",
    "description": (
        "pairwise_distance(adaptive_avg_pool2d(x1, output_size), adaptive_avg_pool2d(x2, output_size), "
        "p, eps, keepdim). x1 and x2 have the same (N, C, H, W) or (C, H, W) shape; output_size is an "
        "int or a pair (S0, S1) whose entries may be None (keep the input size). Adaptive pooling: cell "
        "(i, j) averages rows floor(i * H / S0) .. ceil((i + 1) * H / S0) - 1 and columns likewise. The "
        "distance is taken along the last dimension of the pooled maps: out[..., i] = "
        "(sum_j |a[..., i, j] - b[..., i, j] + eps|^p)^(1/p), with p = inf the max and p = 0 the number "
        "of non-zero terms (p >= 0). Output (N, C, S0) (or (C, S0)), with a trailing 1 when keepdim, "
        "in the input dtype."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle: the pooled maps are subtracted, and a reference that rounds "
        "them to half precision first would differ from the exact answer by cancellation, not by the "
        "candidate's fault. float32: averages of <= ~100 values and a norm over <= ~20 terms; rtol "
        "1e-4 leaves room for pow via exp/log for general p. Half precision: one output rounding."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "32x256x56x56_to_7", "params": {"shape": [32, 256, 56, 56], "output_size": [7, 7]}},
        {"name": "16x64x224x224_to_14x16_p1", "params": {"shape": [16, 64, 224, 224], "output_size": [14, 16], "p": 1.0}},
        {"name": "64x512x28x28_to_4", "params": {"shape": [64, 512, 28, 28], "output_size": [4, 4]}},
        {"name": "32x256x56x56_to_7_bf16",
         "params": {"shape": [32, 256, 56, 56], "output_size": [7, 7], "dtype": "bfloat16"}},
    ],
}


def reference(x1, x2, output_size, p=2.0, eps=1e-6, keepdim=False):
    a = torch.nn.functional.adaptive_avg_pool2d(x1, output_size)
    b = torch.nn.functional.adaptive_avg_pool2d(x2, output_size)
    return torch.nn.functional.pairwise_distance(a, b, p, eps, keepdim)


def _c(name, g, shape, output_size, dtype=torch.float32, mode="randn", **kw):
    draw = g.randn if mode == "randn" else g.outlier
    return {"name": name, "args": (draw(*shape, dtype=dtype), draw(*shape, dtype=dtype), output_size),
            "kwargs": kw}


def edge_cases(g):
    yield _c("defaults_p2", g, (2, 3, 9, 11), 3)
    yield _c("p1_manhattan", g, (2, 3, 8, 8), (4, 4), p=1.0)
    yield _c("p3_general", g, (2, 2, 10, 9), (3, 5), p=3.0)
    yield _c("p_half", g, (1, 3, 8, 8), 4, p=0.5)
    yield _c("p_inf_max", g, (2, 2, 7, 12), (3, 4), p=float("inf"))
    yield _c("p0_count_nonzero", g, (1, 2, 6, 6), 3, p=0.0)
    yield _c("keepdim", g, (2, 3, 9, 9), (2, 3), keepdim=True)
    yield _c("global_1x1", g, (2, 4, 7, 5), 1)
    yield _c("upsample_3_to_5x7", g, (1, 2, 3, 5), (5, 7))
    yield _c("none_keeps_width", g, (2, 3, 9, 6), (4, None))
    yield _c("3d_input", g, (5, 13, 17), (4, 6))
    x = g.randn(2, 3, 8, 8)
    yield {"name": "identical_inputs_eps_only", "args": (x, x.clone(), 4), "kwargs": {"eps": 1e-2}}
    yield {"name": "identical_inputs_p0", "args": (x, x.clone(), 4), "kwargs": {"p": 0.0, "eps": 0.0}}
    yield {"name": "non_contiguous", "args": (g.randn(2, 9, 8, 3).permute(0, 3, 1, 2),
                                              g.randn(2, 3, 9, 8), (3, 4)), "kwargs": {}}


def random_cases(g):
    yield _c("randn_4x16x32x32_to_7", g, (4, 16, 32, 32), 7)
    yield _c("randn_odd_3x5x37x29_to_5x9_p1", g, (3, 5, 37, 29), (5, 9), p=1.0)
    yield _c("outlier_2x8x50x50_to_6", g, (2, 8, 50, 50), 6, mode="outlier")
    yield _c("randn_f16_2x8x33x33_to_4", g, (2, 8, 33, 33), 4, dtype=torch.float16)
    yield _c("outlier_bf16_3d_7x45x31_to_5x3_keepdim", g, (7, 45, 31), (5, 3), dtype=torch.bfloat16,
             mode="outlier", keepdim=True)


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    x1 = g.randn(*params["shape"], dtype=dt)
    x2 = g.randn(*params["shape"], dtype=dt)
    return (x1, x2, tuple(params["output_size"])), {"p": params.get("p", 2.0)}


def perf_cost(params):
    N, C, H, W = params["shape"]
    S0, S1 = params["output_size"]
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    kh = -(-H // S0) + (1 if H % S0 else 0)
    kw = -(-W // S1) + (1 if W % S1 else 0)
    cells = N * C * S0 * S1
    # read both inputs once, write the (N, C, S0) distances; two window averages per cell plus
    # ~4 FLOPs of difference/abs/power/accumulate, one root per output
    return {"bytes": es * (2 * N * C * H * W + N * C * S0), "flops": cells * (2 * (kh * kw + 1) + 4) + N * C * S0}
