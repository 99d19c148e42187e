import torch

META = {
    "id": "Fusion/fused_pixel_shuffle_conv2d",
    "category": "Fusion",
    "stem": "fused_pixel_shuffle_conv2d",
    "entry": "fused_pixel_shuffle_conv2d",
    "signature": "def fused_pixel_shuffle_conv2d(input: torch.Tensor, weight: torch.Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1, upscale_factor=2) -> torch.Tensor",
    "description": (
        "pixel_shuffle(conv2d(input, weight, bias, stride, padding, dilation, groups), upscale_factor) "
        "in one pass: a 2-D "
        "cross-correlation of an NCHW input (N, C_in, H, W) with filters (C_out, C_in/groups, kH, kW) "
        "plus an optional per-channel bias, then the sub-pixel rearrangement with r = upscale_factor: "
        "conv channel c*r*r + i*r + j at (h, w) goes to out[n, c, h*r + i, w*r + j]; C_out must be "
        "divisible by r*r (r = 1 is the plain convolution). stride, padding "
        "and dilation are an int or an (h, w) pair; padding may also be 'valid' or 'same' (stride 1; "
        "an odd total padding puts the extra row/column at the bottom/right). Output "
        "(N, C_out/r^2, H_out*r, W_out*r) in the input dtype (float32/float16/bfloat16)."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [5e-2, 1e-2],
        "float16": [1e-2, 1e-2],
        "bfloat16": [3e-2, 2e-2],
    },
    "tolerance_note": (
        "As Convolution/conv2d: float64 oracle, TF32 allowed for float32 (random error about "
        "1e-3*sqrt(K) over K = C_in/groups*kH*kW <= 144 taps, atol 5e-2 is about 4 sigma); half "
        "precision is exact products with float32 accumulation, only the output rounding counts. "
        "The pixel shuffle only moves values."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "espcn_3x3_c64_64_r2", "params": {"N": 8, "C": 64, "H": 64, "W": 64, "OC": 256, "k": 3, "stride": 1, "padding": 1, "r": 2}},
        {"name": "espcn_3x3_c32_128_r3", "params": {"N": 8, "C": 32, "H": 128, "W": 128, "OC": 27, "k": 3, "stride": 1, "padding": 1, "r": 3}},
        {"name": "edsr_3x3_c64_96_r2", "params": {"N": 16, "C": 64, "H": 96, "W": 96, "OC": 256, "k": 3, "stride": 1, "padding": 1, "r": 2}},
        {"name": "edsr_3x3_c128_48_r4_f16", "params": {"N": 16, "C": 128, "H": 48, "W": 48, "OC": 512, "k": 3, "stride": 1, "padding": 1, "r": 4, "dtype": "float16"}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, upscale_factor=2):
    y = torch.nn.functional.conv2d(input, weight, bias, stride, padding, dilation, groups)
    return torch.nn.functional.pixel_shuffle(y, upscale_factor)


def _case(name, g, x_shape, w_shape, bias=False, dtype=torch.float32, mode="randn", **kw):
    draw = g.randn if mode == "randn" else g.outlier
    x = draw(*x_shape, dtype=dtype)
    w = draw(*w_shape, dtype=dtype)
    b = draw(w_shape[0], dtype=dtype) if bias else None
    return {"name": name, "args": (x, w, b), "kwargs": kw}


def edge_cases(g):
    yield _case("pointwise_1x1_no_bias_r2", g, (1, 3, 5, 5), (4, 3, 1, 1))
    yield _case("bias_stride2_pad1_r2", g, (2, 3, 9, 9), (8, 3, 3, 3), bias=True, stride=2, padding=1)
    yield _case("upscale_1_plain_conv", g, (1, 2, 7, 6), (3, 2, 3, 2), upscale_factor=1)
    yield _case("upscale_3", g, (1, 2, 6, 5), (18, 2, 3, 3), bias=True, padding=1, upscale_factor=3)
    yield _case("padding_same_even_kernel", g, (2, 3, 7, 7), (4, 3, 4, 2), padding="same")
    yield _case("tuple_stride_pad_dilation", g, (2, 3, 11, 12), (8, 3, 3, 3), bias=True,
                stride=(1, 2), padding=(2, 0), dilation=(2, 1))
    yield _case("groups_2", g, (2, 4, 8, 8), (8, 2, 3, 3), bias=True, padding=1, groups=2)
    yield _case("depthwise_r2", g, (1, 4, 6, 7), (4, 1, 3, 3), bias=True, padding=1, groups=4)
    yield _case("single_pixel_output_r4", g, (2, 3, 3, 3), (16, 3, 3, 3), bias=True, upscale_factor=4)


def random_cases(g):
    yield _case("randn_pad1_bias_odd", g, (2, 4, 15, 17), (8, 4, 3, 3), bias=True, padding=1)
    yield _case("randn_K144_r2", g, (1, 16, 12, 11), (20, 16, 3, 3), bias=True, padding=1)
    yield _case("outlier_stride2_r3", g, (2, 6, 13, 13), (18, 6, 3, 3), mode="outlier", stride=2, padding=1,
                upscale_factor=3)
    yield _case("f16_same", g, (1, 8, 12, 13), (16, 8, 3, 3), bias=True, dtype=torch.float16, padding="same")
    yield _case("bf16_groups_4", g, (2, 8, 10, 9), (16, 2, 3, 3), bias=True, dtype=torch.bfloat16,
                padding=1, groups=4)


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    groups = params.get("groups", 1)
    k = params["k"]
    x = g.randn(params["N"], params["C"], params["H"], params["W"], dtype=dtype)
    w = g.randn(params["OC"], params["C"] // groups, k, k, dtype=dtype) * (1.0 / (params["C"] // groups * k * k) ** 0.5)
    b = g.randn(params["OC"], dtype=dtype)
    return (x, w, b), {"stride": params["stride"], "padding": params["padding"], "groups": groups,
                       "upscale_factor": params.get("r", 2)}


def perf_cost(params):
    N, C, H, W, OC, k = params["N"], params["C"], params["H"], params["W"], params["OC"], params["k"]
    s, p, gr = params.get("stride", 1), params.get("padding", 0), params.get("groups", 1)
    OH = (H + 2 * p - k) // s + 1  # dilation 1 in every perf shape
    OW = (W + 2 * p - k) // s + 1
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    out = N * OC * OH * OW
    # read input, weight and bias once, write the output once; 2 FLOPs per tap per output,
    # plus the bias add (the shuffle is data movement only)
    return {"bytes": es * (N * C * H * W + OC * (C // gr) * k * k + OC + out),
            "flops": 2 * out * (C // gr) * k * k + out}
