import torch

META = {
    "id": "Fusion/fused_instance_norm_selu_conv2d",
    "category": "Fusion",
    "stem": "fused_instance_norm_selu_conv2d",
    "entry": "fused_instance_norm_selu_conv2d",
    "signature": "fused_instance_norm_selu_conv2d(input: Tensor, weight: Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1, num_features=None, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False) -> Tensor",
    "description": (
        "instance_norm(selu(conv2d(input, weight, bias, stride, padding, dilation, groups)), eps). The "
        "convolution is a 2-D cross-correlation of an NCHW input with filters (C_out, C_in/groups, kH, "
        "kW) plus an optional bias (padding: int, pair, 'valid' or 'same'). SELU: scale * (max(0, x) + "
        "min(0, alpha * (exp(x) - 1))) with alpha = 1.6732632423543772, scale = 1.0507009873554805. "
        "Instance normalization: every (n, c) plane of the activated map is normalized by its own "
        "mean and biased variance, y = (x - mean) / sqrt(var + eps). H_out*W_out must exceed 1. Output "
        "(N, C_out, H_out, W_out) in the input dtype."
    ),
    "notes": (
        "num_features, momentum, affine and track_running_stats are accepted and do not change the "
        "result: there are no affine parameters or running statistics among the arguments, and a "
        "freshly initialized InstanceNorm2d (weight 1, bias 0, training mode) normalizes with the "
        "per-instance statistics whatever these flags are. Order as in the name and the spec: conv, "
        "then SELU, then instance norm."
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
        "1e-3*sqrt(K), K <= 144 taps); SELU's slope is at most 1.76 and the normalization divides by "
        "the plane's std, so the normalized error stays near 1e-3; half precision: only the output "
        "rounding counts."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "c64_64", "params": {"N": 8, "C": 64, "H": 64, "W": 64, "OC": 64, "k": 3, "padding": 1}},
        {"name": "style_c128_64_s2", "params": {"N": 8, "C": 128, "H": 128, "W": 128, "OC": 128, "k": 3, "stride": 2, "padding": 1}},
        {"name": "c256_32", "params": {"N": 16, "C": 256, "H": 32, "W": 32, "OC": 256, "k": 3, "padding": 1}},
        {"name": "c128_64_f16", "params": {"N": 16, "C": 128, "H": 64, "W": 64, "OC": 128, "k": 3, "padding": 1, "dtype": "float16"}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, num_features=None, eps=1e-5,
              momentum=0.1, affine=False, track_running_stats=False):
    y = torch.nn.functional.conv2d(input, weight, bias, stride, padding, dilation, groups)
    y = torch.nn.functional.selu(y)
    return torch.nn.functional.instance_norm(y, eps=eps, momentum=momentum)


def _case(name, g, x_shape, w_shape, bias=False, dtype=torch.float32, mode="randn", **kw):
    draw = g.randn if mode == "randn" else g.outlier
    x = draw(*x_shape, dtype=dtype)
    w = draw(*w_shape, dtype=dtype)
    b = draw(w_shape[0], dtype=dtype) if bias else None
    return {"name": name, "args": (x, w, b), "kwargs": kw}


def edge_cases(g):
    yield _case("defaults", g, (1, 3, 5, 5), (3, 3, 3, 3))
    yield _case("bias_stride2", g, (2, 3, 9, 9), (5, 3, 3, 3), bias=True, stride=2)
    yield _case("padding1_eps_0.5", g, (2, 3, 6, 7), (4, 3, 3, 3), padding=1, eps=0.5)
    yield _case("flags_ignored", g, (2, 3, 6, 6), (4, 3, 3, 3), bias=True, padding=1, num_features=4,
                momentum=0.5, affine=True, track_running_stats=True)
    yield _case("two_pixel_planes", g, (2, 3, 3, 4), (4, 3, 3, 3), bias=True)
    yield _case("padding_same_groups2", g, (2, 4, 7, 9), (6, 2, 3, 3), padding="same", groups=2)
    yield _case("depthwise_dilated_tuple", g, (1, 4, 10, 9), (4, 1, 3, 3), stride=(1, 2), padding=(2, 1),
                dilation=(2, 1), groups=4)
    x, w = g.randn(2, 2, 6, 6), g.randn(3, 2, 3, 3) * 0.01
    yield {"name": "negative_bias_saturated_selu", "args": (x, w, g.tensor([-20.0, -3.0, 0.5])),
           "kwargs": {}}


def random_cases(g):
    yield _case("randn_pad1_odd", g, (2, 4, 15, 13), (8, 4, 3, 3), bias=True, padding=1)
    yield _case("randn_K144", g, (1, 16, 12, 11), (20, 16, 3, 3), bias=True, padding=1)
    yield _case("outlier_stride2", g, (2, 6, 13, 13), (10, 6, 3, 3), mode="outlier", stride=2, padding=1)
    yield _case("f16_pad1", g, (2, 8, 9, 11), (16, 8, 3, 3), bias=True, dtype=torch.float16, padding=1)
    yield _case("bf16_groups4", g, (2, 8, 10, 9), (12, 2, 3, 3), bias=True, dtype=torch.bfloat16,
                padding=1, groups=4)


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    k, C, OC = params["k"], params["C"], params["OC"]
    x = g.randn(params["N"], C, params["H"], params["W"], dtype=dtype)
    w = g.randn(OC, C, k, k, dtype=dtype) * (1.0 / (C * k * k) ** 0.5)
    b = g.randn(OC, dtype=dtype)
    return (x, w, b), {"stride": params.get("stride", 1), "padding": params["padding"]}


def perf_cost(params):
    N, C, H, W, OC, k = params["N"], params["C"], params["H"], params["W"], params["OC"], params["k"]
    s, p = params.get("stride", 1), params.get("padding", 0)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    out = N * OC * OH * OW
    # read input, weight, bias once, write the output once; FLOPs: 2 per tap + bias, SELU ~4,
    # plane statistics ~3, normalize ~2 per element
    return {"bytes": es * (N * C * H * W + OC * C * k * k + OC + out),
            "flops": 2 * out * C * k * k + out + 9 * out}
