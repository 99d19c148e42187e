import torch

META = {
    "id": "Fusion/fused_sigmoid_adaptive_avg_pool2d",
    "category": "Fusion",
    "stem": "fused_sigmoid_adaptive_avg_pool2d",
    "entry": "fused_sigmoid_adaptive_avg_pool2d",
    "signature": "def fused_sigmoid_adaptive_avg_pool2d(input: Tensor, output_size: Union[int, Tuple[int, int]]) -> Tensor",
    "description": (
        "sigmoid(adaptive_avg_pool2d(input, output_size)) for an (N, C, H, W) or (C, H, W) input. "
        "output_size is an int (square) or a pair (S0, S1) whose entries may be None (keep that input "
        "size). Output cell (i, j) averages the input rows floor(i * H / S0) .. ceil((i + 1) * H / S0) "
        "- 1 and the columns likewise for W / S1 (windows may overlap; S may exceed the input size), "
        "then 1 / (1 + exp(-mean)) is applied. NaN propagates; +-inf averages saturate to 1/0. The "
        "output keeps the input dtype."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "Outputs lie in (0, 1) and sigmoid's slope is at most 1/4, so float32 averaging/exp errors stay "
        "far below 1e-5; half precision: the reference rounds the mean to the input dtype before the "
        "sigmoid (bf16 2^-9 relative) and rounds again at the end."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "32x256x56x56_to_7", "params": {"shape": [32, 256, 56, 56], "output_size": [7, 7]}},
        {"name": "64x512x14x14_global", "params": {"shape": [64, 512, 14, 14], "output_size": [1, 1]}},
        {"name": "16x64x224x224_to_13x17", "params": {"shape": [16, 64, 224, 224], "output_size": [13, 17]}},
        {"name": "32x256x56x56_to_7_bf16",
         "params": {"shape": [32, 256, 56, 56], "output_size": [7, 7], "dtype": "bfloat16"}},
    ],
}


def reference(input, output_size):
    return torch.sigmoid(torch.nn.functional.adaptive_avg_pool2d(input, output_size))


def _c(name, x, output_size):
    return {"name": name, "args": (x, output_size), "kwargs": {}}


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield _c("global_1x1", g.randn(2, 3, 9, 11), 1)
    yield _c("identity_size_is_sigmoid", g.randn(2, 3, 6, 7), (6, 7))
    yield _c("exact_divisor_2x", g.randn(1, 4, 16, 16), 8)
    yield _c("overlapping_windows_10_to_3", g.randn(2, 2, 10, 10), 3)
    yield _c("upsample_3_to_7", g.randn(1, 2, 3, 5), (7, 11))
    yield _c("none_keeps_height", g.randn(2, 3, 9, 12), (None, 5))
    yield _c("none_keeps_width", g.randn(2, 3, 9, 12), (4, None))
    yield _c("3d_input_chw", g.randn(5, 13, 17), (4, 6))
    yield _c("saturation_large_means", g.rand(2, 2, 8, 8, low=-200.0, high=200.0), 4)
    yield _c("zeros_give_half", torch.zeros(1, 2, 5, 5, device=g.device), 2)
    yield _c("special_values", g.tensor([[[[1.0, inf, 2.0, 3.0], [nan, 0.0, -1.0, -inf],
                                           [4.0, 5.0, 6.0, 7.0]]]]), (2, 2))
    yield _c("non_contiguous_channels_last", g.randn(2, 9, 8, 5).permute(0, 3, 1, 2), (3, 4))


def random_cases(g):
    yield _c("randn_4x16x32x32_to_7", g.randn(4, 16, 32, 32), 7)
    yield _c("randn_odd_3x5x37x29_to_5x9", g.randn(3, 5, 37, 29), (5, 9))
    yield _c("outlier_2x8x50x50_to_6", g.outlier(2, 8, 50, 50), 6)
    yield _c("randn_f16_2x8x33x33_to_4", g.randn(2, 8, 33, 33, dtype=torch.float16), 4)
    yield _c("outlier_bf16_3d_7x45x31_to_5x3", g.outlier(7, 45, 31, dtype=torch.bfloat16), (5, 3))


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dt), tuple(params["output_size"])), {}


def perf_cost(params):
    N, C, H, W = params["shape"]
    S0, S1 = params["output_size"]
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    kh = -(-H // S0) + (1 if H % S0 else 0)
    kw = -(-W // S1) + (1 if W % S1 else 0)
    # read the input once, write the pooled output; window sums + divide, then ~4 FLOPs of sigmoid
    return {"bytes": es * (N * C * H * W + N * C * S0 * S1), "flops": N * C * S0 * S1 * (kh * kw + 5)}
