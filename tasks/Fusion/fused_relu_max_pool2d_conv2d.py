import torch

META = {
    "id": "Fusion/fused_relu_max_pool2d_conv2d",
    "category": "Fusion",
    "stem": "fused_relu_max_pool2d_conv2d",
    "entry": "fused_relu_max_pool2d_conv2d",
    "signature": "fused_relu_max_pool2d_conv2d(input, weight, bias=None, conv_stride=1, conv_padding=0, conv_dilation=1, conv_groups=1, pool_kernel_size=2, pool_stride=None, pool_padding=0, pool_dilation=1, pool_ceil_mode=False, inplace=False) -> Tensor",
    "description": (
        "relu(max_pool2d(conv2d(input, weight, bias, conv_stride, conv_padding, conv_dilation, "
        "conv_groups), pool_kernel_size, pool_stride, pool_padding, pool_dilation, pool_ceil_mode)). "
        "The convolution is a 2-D cross-correlation of an NCHW input with filters (C_out, C_in/groups, "
        "kH, kW) plus an optional bias (conv_padding may be an int, a pair, 'valid' or 'same'). The "
        "max pooling takes the maximum over each (dilated) window of the convolution output, implicit "
        "padding being -inf (pool_padding <= half the pool kernel), pool_stride defaulting to the pool "
        "kernel; with pool_ceil_mode the last partial window is kept when it starts inside the input "
        "or left padding. Then max(x, 0). inplace only concerns the intermediate buffer; the input is "
        "never modified. Output (N, C_out, H_pool, W_pool) in the input dtype."
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
        "1e-3*sqrt(K), K <= 144 taps, atol 5e-2 about 4 sigma); max and ReLU add no error (a near-tie "
        "picked differently differs by less than the convolution error)."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "c64_112_k3_pool2", "params": {"N": 8, "C": 64, "H": 112, "W": 112, "OC": 64, "k": 3, "padding": 1, "pk": 2}},
        {"name": "resnet_stem_7x7s2_pool3s2", "params": {"N": 16, "C": 3, "H": 224, "W": 224, "OC": 64, "k": 7, "stride": 2, "padding": 3, "pk": 3, "ps": 2, "pp": 1}},
        {"name": "c128_56_k3_pool2", "params": {"N": 16, "C": 128, "H": 56, "W": 56, "OC": 128, "k": 3, "padding": 1, "pk": 2}},
        {"name": "c256_28_k3_pool2_f16", "params": {"N": 32, "C": 256, "H": 28, "W": 28, "OC": 256, "k": 3, "padding": 1, "pk": 2, "dtype": "float16"}},
    ],
}


def reference(input, weight, bias=None, conv_stride=1, conv_padding=0, conv_dilation=1, conv_groups=1,
              pool_kernel_size=2, pool_stride=None, pool_padding=0, pool_dilation=1, pool_ceil_mode=False,
              inplace=False):
    y = torch.nn.functional.conv2d(input, weight, bias, conv_stride, conv_padding, conv_dilation, conv_groups)
    y = torch.nn.functional.max_pool2d(y, pool_kernel_size, pool_stride, pool_padding, pool_dilation,
                                       ceil_mode=pool_ceil_mode)
    return torch.nn.functional.relu(y, inplace=inplace)


def _case(name, g, x_shape, w_shape, bias=False, dtype=torch.float32, mode="randn", **kw):
    draw = g.randn if mode == "randn" else g.outlier
    x = draw(*x_shape, dtype=dtype)
    w = draw(*w_shape, dtype=dtype)
    b = draw(w_shape[0], dtype=dtype) if bias else None
    return {"name": name, "args": (x, w, b), "kwargs": kw}


def edge_cases(g):
    yield _case("defaults_pool2", g, (1, 3, 8, 8), (4, 3, 3, 3))
    yield _case("odd_size_floor_drops_tail", g, (2, 3, 10, 9), (5, 3, 2, 2), bias=True)
    yield _case("ceil_mode_keeps_tail", g, (2, 3, 10, 9), (5, 3, 2, 2), bias=True, pool_ceil_mode=True)
    yield _case("pool3_stride2_pad1", g, (1, 4, 11, 11), (6, 4, 3, 3), conv_padding=1,
                pool_kernel_size=3, pool_stride=2, pool_padding=1)
    yield _case("pool_dilation2_ceil", g, (1, 2, 12, 11), (3, 2, 3, 3), conv_padding=1,
                pool_kernel_size=(2, 3), pool_stride=(1, 2), pool_dilation=2, pool_ceil_mode=True)
    yield _case("pool_kernel1_is_relu_conv", g, (2, 2, 6, 7), (3, 2, 3, 3), bias=True, pool_kernel_size=1)
    yield _case("conv_same_groups2", g, (2, 4, 9, 9), (6, 2, 3, 3), bias=True, conv_padding="same",
                conv_groups=2)
    yield _case("conv_stride_dilation_tuple", g, (1, 3, 13, 12), (4, 3, 3, 3), conv_stride=(2, 1),
                conv_padding=(1, 2), conv_dilation=(1, 2), pool_kernel_size=2)
    yield _case("global_pool_window", g, (2, 3, 6, 6), (4, 3, 3, 3), bias=True, pool_kernel_size=4)
    yield _case("inplace_flag", g, (1, 3, 8, 8), (4, 3, 3, 3), bias=True, inplace=True)
    x, w = g.randn(1, 2, 6, 6), g.randn(3, 2, 3, 3)
    yield {"name": "bias_all_negative", "args": (x, w, g.tensor([-100.0, -50.0, -100.0])), "kwargs": {}}


def random_cases(g):
    yield _case("randn_odd_pool2", g, (2, 4, 17, 15), (8, 4, 3, 3), bias=True, conv_padding=1)
    yield _case("randn_K144_pool3s2_ceil", g, (1, 16, 13, 11), (20, 16, 3, 3), bias=True, conv_padding=1,
                pool_kernel_size=3, pool_stride=2, pool_ceil_mode=True)
    yield _case("outlier_pool2_pad1", g, (2, 6, 12, 13), (10, 6, 3, 3), mode="outlier",
                pool_kernel_size=2, pool_padding=1)
    yield _case("f16_pool2", g, (1, 8, 14, 13), (16, 8, 3, 3), bias=True, dtype=torch.float16, conv_padding=1)
    yield _case("bf16_groups_4_pool3", g, (2, 8, 11, 9), (12, 2, 3, 3), bias=True, dtype=torch.bfloat16,
                conv_padding=1, conv_groups=4, pool_kernel_size=3, pool_stride=2, pool_padding=1)


def _pool_out(L, k, s, p):
    return (L + 2 * p - k) // s + 1


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    k = params["k"]
    x = g.randn(params["N"], params["C"], params["H"], params["W"], dtype=dtype)
    w = g.randn(params["OC"], params["C"], k, k, dtype=dtype) * (1.0 / (params["C"] * k * k) ** 0.5)
    b = g.randn(params["OC"], dtype=dtype)
    return (x, w, b), {"conv_stride": params.get("stride", 1), "conv_padding": params["padding"],
                       "pool_kernel_size": params["pk"], "pool_stride": params.get("ps", params["pk"]),
                       "pool_padding": params.get("pp", 0)}


def perf_cost(params):
    N, C, H, W, OC, k = params["N"], params["C"], params["H"], params["W"], params["OC"], params["k"]
    s, p = params.get("stride", 1), params.get("padding", 0)
    pk, ps, pp = params["pk"], params.get("ps", params["pk"]), params.get("pp", 0)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    PH, PW = _pool_out(OH, pk, ps, pp), _pool_out(OW, pk, ps, pp)
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    conv_out = N * OC * OH * OW
    out = N * OC * PH * PW
    # fused: read input, weight, bias once and write only the pooled output (the conv output can stay
    # on chip); FLOPs: 2 per tap per conv output + bias, one compare per pool tap, the ReLU
    return {"bytes": es * (N * C * H * W + OC * C * k * k + OC + out),
            "flops": 2 * conv_out * C * k * k + conv_out + out * pk * pk + out}
