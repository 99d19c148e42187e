import torch

META = {
    "id": "Fusion/fused_fractional_max_pool2d_with_relu",
    "category": "Fusion",
    "stem": "fused_fractional_max_pool2d_with_relu",
    "entry": "fused_fractional_max_pool2d_with_relu",
    "signature": "def fused_fractional_max_pool2d_with_relu(input: torch.Tensor, kernel_size, output_size=None, output_ratio=None, return_indices=False) -> torch.Tensor",
    "description": (
        "fractional_max_pool2d(relu(input), kernel_size, output_size, output_ratio, return_indices) "
        "for an (N, C, H, W) or (C, H, W) input. kernel_size (kH, kW) and output_size (OH, OW) are "
        "ints or pairs; without output_size, OH = int(H * output_ratio[0]), OW = int(W * "
        "output_ratio[1]). Each plane (n, c) has two samples u in [0, 1): u_w = "
        "_random_samples[n, c, 0] for the width and u_h = _random_samples[n, c, 1] for the height. "
        "Window starts along a dimension of size L with output size O and pool k: alpha = float32(L - "
        "k) / float32(O - 1), start_i = int((i + u) * alpha) - int(u * alpha) in float32 for i < O - "
        "1, and start_{O-1} = L - k. Output (i, j) is the maximum of relu(input) over the kH x kW "
        "window at (start_i, start_j), scanning rows then columns, first maximum wins and NaN wins; "
        "with return_indices also the int64 flat index h * W + w of that element."
    ),
    "notes": (
        "Seed contract: fractional max pooling is random through its per-plane samples. Like "
        "torch.nn.functional.fractional_max_pool2d, the entry accepts a keyword _random_samples "
        "(shape (N, C, 2), or (1, C, 2) for a 3-D input; float32) and every case passes it, so the "
        "result is deterministic. Without it an implementation draws its own uniform samples. The "
        "interval arithmetic is float32 for every input dtype (PyTorch's CUDA kernels do this; the "
        "reference pools a float32 copy, which is exact for max)."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "A max of ReLU values selects an input element, so values are exact; indices are compared exactly.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "32x64x112x112_k2_to_56", "params": {"shape": [32, 64, 112, 112], "kernel_size": 2, "output_size": [56, 56]}},
        {"name": "32x128x64x64_k3_ratio0.7", "params": {"shape": [32, 128, 64, 64], "kernel_size": 3, "output_size": [44, 44]}},
        {"name": "16x64x224x224_k2_to_150_idx", "params": {"shape": [16, 64, 224, 224], "kernel_size": 2, "output_size": [150, 150], "return_indices": True}},
        {"name": "32x64x112x112_k2_to_56_f16", "params": {"shape": [32, 64, 112, 112], "kernel_size": 2, "output_size": [56, 56], "dtype": "float16"}},
    ],
}


def reference(input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
    x = torch.nn.functional.relu(input).float()
    s = _random_samples.float() if _random_samples is not None else None
    out, idx = torch.nn.functional.fractional_max_pool2d(x, kernel_size, output_size=output_size,
                                                         output_ratio=output_ratio, return_indices=True,
                                                         _random_samples=s)
    out = out.to(input.dtype)
    return (out, idx) if return_indices else out


def _c(name, g, shape, kernel_size, dtype=torch.float32, mode="randn", samples=None, **kw):
    draw = g.randn if mode == "randn" else g.outlier
    x = draw(*shape, dtype=dtype)
    n, c = (1, shape[0]) if len(shape) == 3 else (shape[0], shape[1])
    if samples is None:
        s = g.rand(n, c, 2)
    else:
        s = torch.full((n, c, 2), float(samples), device=g.device)
    kw["_random_samples"] = s
    return {"name": name, "args": (x, kernel_size), "kwargs": kw}


def edge_cases(g):
    nan = float("nan")
    yield _c("k2_out4_from_8", g, (1, 1, 8, 8), (2, 2), output_size=(4, 4))
    yield _c("ratio_half", g, (2, 3, 10, 12), (2, 2), output_ratio=(0.5, 0.5))
    yield _c("return_indices", g, (2, 3, 9, 9), (2, 2), output_size=(5, 5), return_indices=True)
    yield _c("k3_int_args", g, (1, 2, 11, 11), 3, output_size=6, return_indices=True)
    yield _c("rect_kernel_rect_out", g, (2, 2, 13, 10), (2, 3), output_size=(7, 4), return_indices=True)
    yield _c("samples_zero", g, (1, 3, 12, 12), (2, 2), output_size=(7, 7), samples=0.0, return_indices=True)
    yield _c("samples_near_one", g, (1, 3, 12, 12), (2, 2), output_size=(7, 7), samples=0.9990234375,
             return_indices=True)
    yield _c("output_1x1_pins_last", g, (2, 2, 5, 6), (2, 2), output_size=(1, 1), return_indices=True)
    yield _c("stride1_when_out_is_in_minus_k_plus_1", g, (1, 2, 8, 9), (3, 2), output_size=(6, 8),
             return_indices=True)
    yield _c("ratio_uneven", g, (2, 2, 15, 11), (3, 3), output_ratio=(0.6, 0.75), return_indices=True)
    x = -g.rand(1, 2, 6, 6, low=0.1, high=3.0)
    yield {"name": "all_negative_ties_first_zero", "args": (x, 2),
           "kwargs": {"output_size": (3, 3), "return_indices": True, "_random_samples": g.rand(1, 2, 2)}}
    x = g.randn(1, 1, 6, 6)
    x[0, 0, 1, 1], x[0, 0, 4, 2] = nan, nan
    yield {"name": "nan_propagates", "args": (x, 2),
           "kwargs": {"output_size": (4, 4), "return_indices": True, "_random_samples": g.rand(1, 1, 2)}}
    yield _c("unbatched_3d", g, (3, 10, 9), (2, 2), output_size=(6, 5), return_indices=True)
    yield {"name": "non_contiguous_channels_last", "args": (g.randn(2, 9, 8, 3).permute(0, 3, 1, 2), 2),
           "kwargs": {"output_size": (5, 4), "return_indices": True, "_random_samples": g.rand(2, 3, 2)}}


def random_cases(g):
    yield _c("randn_odd_k2", g, (2, 8, 31, 29), (2, 2), output_size=(20, 17), return_indices=True)
    yield _c("randn_k3_ratio", g, (2, 4, 40, 36), (3, 3), output_ratio=(0.7, 0.6))
    yield _c("outlier_k2_idx", g, (3, 5, 33, 33), (2, 2), mode="outlier", output_size=(16, 16),
             return_indices=True)
    yield _c("randn_f16", g, (2, 8, 30, 30), (2, 2), dtype=torch.float16, output_size=(21, 21),
             return_indices=True)
    yield _c("outlier_bf16_k3", g, (2, 6, 27, 31), (3, 2), dtype=torch.bfloat16, mode="outlier",
             output_size=(13, 20))


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    N, C, H, W = params["shape"]
    x = g.randn(N, C, H, W, dtype=dt)
    return (x, params["kernel_size"]), {"output_size": tuple(params["output_size"]),
                                        "return_indices": params.get("return_indices", False),
                                        "_random_samples": g.rand(N, C, 2)}


def perf_cost(params):
    N, C, H, W = params["shape"]
    k = params["kernel_size"]
    OH, OW = params["output_size"]
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    out = N * C * OH * OW
    idx = 8 * out if params.get("return_indices") else 0
    # read the input (windows cover about all of it) and the samples, write the values (+ int64
    # indices); one ReLU/compare per window tap
    return {"bytes": es * (N * C * H * W + out) + 4 * N * C * 2 + idx, "flops": out * k * k * 2}
