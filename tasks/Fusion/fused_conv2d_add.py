import torch

META = {
    "id": "Fusion/fused_conv2d_add",
    "category": "Fusion",
    "stem": "fused_conv2d_add",
    "entry": "fused_conv2d_add",
    "signature": "fused_conv2d_add(input, weight, bias=None, other=None, stride=1, padding=0, dilation=1, groups=1, alpha=1, out=None) -> Tensor",
    "description": (
        "conv2d(input, weight, bias, stride, padding, dilation, groups) + alpha * other in one pass: a 2-D "
        "cross-correlation of an NCHW input (N, C_in, H, W) with filters (C_out, C_in/groups, kH, kW) "
        "plus an optional per-channel bias, then alpha * other is added: other is None (nothing added), "
        "a Python number, or a tensor of the input dtype that broadcasts against the convolution output "
        "(full (N, C_out, H_out, W_out), per channel (C_out, 1, 1), ...). stride, padding "
        "and dilation are an int or an (h, w) pair; padding may also be 'valid' or 'same' (stride 1; "
        "an odd total padding puts the extra row/column at the bottom/right). Output "
        "(N, C_out, H_out, W_out) in the input dtype (float32/float16/bfloat16); if out (a tensor of "
        "that shape and dtype) is given, the result is written into it and out is returned."
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
        "The scaled add is one more float32 rounding; in half precision the reference rounds the convolution before adding (one extra output rounding, inside rtol)."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "resnet_3x3_c64_56", "params": {"N": 8, "C": 64, "H": 56, "W": 56, "OC": 64, "k": 3, "stride": 1, "padding": 1}},
        {"name": "resnet_3x3_c64_56_alpha_0.5", "params": {"N": 8, "C": 64, "H": 56, "W": 56, "OC": 64, "k": 3, "stride": 1, "padding": 1, "alpha": 0.5}},
        {"name": "resnet_3x3_c128_56_s2", "params": {"N": 16, "C": 128, "H": 56, "W": 56, "OC": 128, "k": 3, "stride": 2, "padding": 1}},
        {"name": "pointwise_1x1_c256_28", "params": {"N": 16, "C": 256, "H": 28, "W": 28, "OC": 512, "k": 1, "stride": 1, "padding": 0}},
        {"name": "resnet_3x3_c256_14_f16", "params": {"N": 32, "C": 256, "H": 14, "W": 14, "OC": 256, "k": 3, "stride": 1, "padding": 1, "dtype": "float16"}},
    ],
}


def reference(input, weight, bias=None, other=None, stride=1, padding=0, dilation=1, groups=1, alpha=1, out=None):
    y = torch.nn.functional.conv2d(input, weight, bias, stride, padding, dilation, groups)
    if other is not None:
        y = torch.add(y, other, alpha=alpha)
    if out is not None:
        out.copy_(y)
        return out
    return y


def _out_hw(x_shape, w_shape, stride=1, padding=0, dilation=1):
    def pair(v):
        return (v, v) if isinstance(v, int) else tuple(v)
    if padding == "same":
        return x_shape[2], x_shape[3]
    s, d = pair(stride), pair(dilation)
    p = (0, 0) if padding == "valid" else pair(padding)
    return tuple((x_shape[2 + i] + 2 * p[i] - d[i] * (w_shape[2 + i] - 1) - 1) // s[i] + 1 for i in range(2))


def _case(name, g, x_shape, w_shape, bias=False, dtype=torch.float32, mode="randn", other="full", **kw):
    """other: "full" (N, C_out, OH, OW), "channel" (C_out, 1, 1), "row" (OW,), a number, or None."""
    draw = g.randn if mode == "randn" else g.outlier
    x = draw(*x_shape, dtype=dtype)
    w = draw(*w_shape, dtype=dtype)
    b = draw(w_shape[0], dtype=dtype) if bias else None
    oh, ow = _out_hw(x_shape, w_shape, kw.get("stride", 1), kw.get("padding", 0), kw.get("dilation", 1))
    if other == "full":
        o = draw(x_shape[0], w_shape[0], oh, ow, dtype=dtype)
    elif other == "channel":
        o = draw(w_shape[0], 1, 1, dtype=dtype)
    elif other == "row":
        o = draw(ow, dtype=dtype)
    else:
        o = other
    return {"name": name, "args": (x, w, b, o), "kwargs": kw}


def edge_cases(g):
    yield _case("pointwise_1x1_no_bias", g, (1, 3, 5, 5), (4, 3, 1, 1))
    yield _case("bias_stride2_pad1", g, (2, 3, 9, 9), (5, 3, 3, 3), bias=True, stride=2, padding=1)
    yield _case("padding_valid_string", g, (1, 2, 7, 6), (3, 2, 3, 2), padding="valid")
    yield _case("padding_same_even_kernel", g, (2, 3, 7, 7), (4, 3, 4, 2), padding="same")
    yield _case("tuple_stride_pad_dilation", g, (2, 3, 11, 12), (4, 3, 3, 3), bias=True,
                stride=(1, 2), padding=(2, 0), dilation=(2, 1))
    yield _case("groups_2", g, (2, 4, 8, 8), (6, 2, 3, 3), bias=True, padding=1, groups=2)
    yield _case("depthwise", g, (2, 5, 9, 7), (5, 1, 3, 3), bias=True, padding=1, groups=5)
    yield _case("kernel_covers_input", g, (3, 2, 3, 3), (4, 2, 3, 3), bias=True)
    yield _case("other_none", g, (1, 3, 6, 6), (4, 3, 3, 3), bias=True, padding=1, other=None, alpha=3.0)
    yield _case("other_scalar_alpha", g, (1, 3, 6, 6), (4, 3, 3, 3), padding=1, other=0.75, alpha=-2)
    yield _case("other_per_channel", g, (2, 3, 7, 6), (5, 3, 3, 3), bias=True, other="channel", alpha=0.5)
    yield _case("other_row_broadcast", g, (2, 2, 6, 9), (3, 2, 2, 2), other="row")
    yield _case("alpha_zero", g, (1, 2, 5, 5), (3, 2, 3, 3), alpha=0)
    x, w = g.randn(2, 3, 8, 8), g.randn(5, 3, 3, 3)
    o = g.randn(2, 5, 6, 6)
    out = torch.full((2, 5, 6, 6), float("nan"), device=g.device)
    yield {"name": "out_tensor", "args": (x, w, None, o, 1, 0, 1, 1, 1.5, out), "kwargs": {}, "mutates": [9]}


def random_cases(g):
    yield _case("randn_pad1_bias_odd", g, (2, 4, 15, 17), (8, 4, 3, 3), bias=True, padding=1)
    yield _case("randn_K144", g, (1, 16, 12, 11), (20, 16, 3, 3), bias=True, padding=1)
    yield _case("outlier_stride2_alpha", g, (2, 6, 13, 13), (10, 6, 3, 3), mode="outlier", stride=2,
                padding=1, alpha=-0.5)
    yield _case("f16_same", g, (1, 8, 12, 13), (16, 8, 3, 3), bias=True, dtype=torch.float16, padding="same")
    yield _case("bf16_groups_4_channel", g, (2, 8, 10, 9), (12, 2, 3, 3), bias=True, dtype=torch.bfloat16,
                padding=1, groups=4, other="channel")


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    groups = params.get("groups", 1)
    k = params["k"]
    x = g.randn(params["N"], params["C"], params["H"], params["W"], dtype=dtype)
    w = g.randn(params["OC"], params["C"] // groups, k, k, dtype=dtype) * (1.0 / (params["C"] // groups * k * k) ** 0.5)
    b = g.randn(params["OC"], dtype=dtype)
    s, p = params["stride"], params["padding"]
    OH = (params["H"] + 2 * p - k) // s + 1
    OW = (params["W"] + 2 * p - k) // s + 1
    o = g.randn(params["N"], params["OC"], OH, OW, dtype=dtype)
    return (x, w, b, o), {"stride": s, "padding": p, "groups": groups, "alpha": params.get("alpha", 1)}


def perf_cost(params):
    N, C, H, W, OC, k = params["N"], params["C"], params["H"], params["W"], params["OC"], params["k"]
    s, p, gr = params.get("stride", 1), params.get("padding", 0), params.get("groups", 1)
    OH = (H + 2 * p - k) // s + 1  # dilation 1 in every perf shape
    OW = (W + 2 * p - k) // s + 1
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    out = N * OC * OH * OW
    # read input, weight, bias and the full-size other once, write the output once;
    # 2 FLOPs per tap per output, plus the bias add and the scaled add (2)
    return {"bytes": es * (N * C * H * W + OC * (C // gr) * k * k + OC + 2 * out),
            "flops": 2 * out * (C // gr) * k * k + 3 * out}
