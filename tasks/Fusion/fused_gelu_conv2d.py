import torch

META = {
    "id": "Fusion/fused_gelu_conv2d",
    "category": "Fusion",
    "stem": "fused_gelu_conv2d",
    "entry": "fused_gelu_conv2d",
    "signature": "def fused_gelu_conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Union[int, Tuple[int, int]] = 1, padding: Union[int, Tuple[int, int], str] = 0, dilation: Union[int, Tuple[int, int]] = 1, groups: int = 1, approximate: str = 'none', out: Optional[Tensor] = None) -> Tensor",
    "description": (
        "gelu(conv2d(input, weight, bias, stride, padding, dilation, groups), approximate) in one "
        "pass: a 2-D "
        "cross-correlation of an NCHW input (N, C_in, H, W) with filters (C_out, C_in/groups, kH, kW) "
        "plus an optional per-channel bias, then GELU on every output element: x * Phi(x) (exact "
        "erf form) for approximate='none', 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) for "
        "approximate='tanh'. stride, padding "
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
        "GELU's slope is at most 1.13 and erf/tanh implementations differ by a few ulp, well inside."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "resnet_3x3_c64_56", "params": {"N": 8, "C": 64, "H": 56, "W": 56, "OC": 64, "k": 3, "stride": 1, "padding": 1}},
        {"name": "resnet_3x3_c64_56_tanh", "params": {"N": 8, "C": 64, "H": 56, "W": 56, "OC": 64, "k": 3, "stride": 1, "padding": 1, "approximate": "tanh"}},
        {"name": "resnet_3x3_c128_56_s2", "params": {"N": 16, "C": 128, "H": 56, "W": 56, "OC": 128, "k": 3, "stride": 2, "padding": 1}},
        {"name": "pointwise_1x1_c256_28", "params": {"N": 16, "C": 256, "H": 28, "W": 28, "OC": 512, "k": 1, "stride": 1, "padding": 0}},
        {"name": "resnet_3x3_c256_14_f16", "params": {"N": 32, "C": 256, "H": 14, "W": 14, "OC": 256, "k": 3, "stride": 1, "padding": 1, "dtype": "float16"}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, approximate="none",
              out=None):
    y = torch.nn.functional.conv2d(input, weight, bias, stride, padding, dilation, groups)
    y = torch.nn.functional.gelu(y, approximate=approximate)
    if out is not None:
        out.copy_(y)
        return out
    return y


def _case(name, g, x_shape, w_shape, bias=False, dtype=torch.float32, mode="randn", **kw):
    draw = g.randn if mode == "randn" else g.outlier
    x = draw(*x_shape, dtype=dtype)
    w = draw(*w_shape, dtype=dtype)
    b = draw(w_shape[0], dtype=dtype) if bias else None
    return {"name": name, "args": (x, w, b), "kwargs": kw}


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
    yield _case("tanh_approx", g, (1, 3, 6, 6), (4, 3, 3, 3), bias=True, padding=1, approximate="tanh")
    x, w = g.randn(2, 3, 6, 5), g.randn(4, 3, 3, 3)
    b = g.tensor([-100.0, 100.0, -6.0, 0.0])
    yield {"name": "bias_saturates", "args": (x, w, b), "kwargs": {"padding": 1}}
    yield {"name": "bias_saturates_tanh", "args": (x, w, b), "kwargs": {"padding": 1, "approximate": "tanh"}}
    x, w = g.randn(2, 3, 8, 8), g.randn(5, 3, 3, 3)
    out = torch.full((2, 5, 6, 6), float("nan"), device=g.device)
    yield {"name": "out_tensor", "args": (x, w, None, 1, 0, 1, 1, "none", out), "kwargs": {}, "mutates": [8]}


def random_cases(g):
    yield _case("randn_pad1_bias_odd", g, (2, 4, 15, 17), (8, 4, 3, 3), bias=True, padding=1)
    yield _case("randn_K144", g, (1, 16, 12, 11), (20, 16, 3, 3), bias=True, padding=1)
    yield _case("outlier_stride2_tanh", g, (2, 6, 13, 13), (10, 6, 3, 3), mode="outlier", stride=2,
                padding=1, approximate="tanh")
    yield _case("f16_same", g, (1, 8, 12, 13), (16, 8, 3, 3), bias=True, dtype=torch.float16, padding="same")
    yield _case("bf16_groups_4", g, (2, 8, 10, 9), (12, 2, 3, 3), bias=True, dtype=torch.bfloat16,
                padding=1, groups=4)


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    groups = params.get("groups", 1)
    k = params["k"]
    x = g.randn(params["N"], params["C"], params["H"], params["W"], dtype=dtype)
    w = g.randn(params["OC"], params["C"] // groups, k, k, dtype=dtype) * (1.0 / (params["C"] // groups * k * k) ** 0.5)
    b = g.randn(params["OC"], dtype=dtype)
    return (x, w, b), {"stride": params["stride"], "padding": params["padding"], "groups": groups,
                       "approximate": params.get("approximate", "none")}


def perf_cost(params):
    N, C, H, W, OC, k = params["N"], params["C"], params["H"], params["W"], params["OC"], params["k"]
    s, p, gr = params.get("stride", 1), params.get("padding", 0), params.get("groups", 1)
    OH = (H + 2 * p - k) // s + 1  # dilation 1 in every perf shape
    OW = (W + 2 * p - k) // s + 1
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    out = N * OC * OH * OW
    # read input, weight and bias once, write the output once; 2 FLOPs per tap per output,
    # plus the bias add and about 10 FLOPs of GELU (erf/tanh counted as a few FLOPs)
    return {"bytes": es * (N * C * H * W + OC * (C // gr) * k * k + OC + out),
            "flops": 2 * out * (C // gr) * k * k + 11 * out}
