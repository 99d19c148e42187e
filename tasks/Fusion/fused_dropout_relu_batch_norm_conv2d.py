import torch

META = {
    "id": "Fusion/fused_dropout_relu_batch_norm_conv2d",
    "category": "Fusion",
    "stem": "fused_dropout_relu_batch_norm_conv2d",
    "entry": "fused_dropout_relu_batch_norm_conv2d",
    "signature": "fused_dropout_relu_batch_norm_conv2d(input: torch.Tensor, weight: torch.Tensor, bias=None, stride=1, padding=0, dilation=1, groups=1, p=0.5, training=True, inplace=False) -> torch.Tensor",
    "description": (
        "dropout(relu(batch_norm(conv2d(input, weight, bias, stride, padding, dilation, groups))), p, "
        "training). The convolution is a 2-D cross-correlation of an NCHW input with filters (C_out, "
        "C_in/groups, kH, kW) plus an optional bias (padding: int, pair, 'valid' or 'same'). The batch "
        "normalization has no parameters or running statistics: every output channel is normalized with "
        "its own batch statistics over (N, H_out, W_out), y = (x - mean) / sqrt(biased_var + 1e-5), in "
        "both modes (what a freshly built BatchNorm2d does). Then max(y, 0). With training=True, dropout "
        "zeroes each element with probability p and scales the kept ones by 1 / (1 - p) (p = 0: "
        "nothing dropped; p = 1: all zeros); with training=False it is the identity. inplace only "
        "concerns intermediate buffers. Output (N, C_out, H_out, W_out) in the input dtype."
    ),
    "notes": (
        "Spec quirk: the signature carries no batch-norm statistics or affine parameters and "
        "batch_norm cannot run in evaluation mode without running statistics, so BatchNorm always uses "
        "batch statistics (eps 1e-5, no affine). Dropout contract: its mask comes from an RNG the "
        "harness cannot reproduce, so only deterministic configurations are judged - training=False "
        "(any p), and training=True with p = 0 (identity) or p = 1 (all zeros). A candidate must still "
        "implement real dropout for 0 < p < 1."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [5e-2, 1e-2],
        "float16": [1e-2, 1e-2],
        "bfloat16": [3e-2, 2e-2],
    },
    "tolerance_note": (
        "As Convolution/conv2d: float64 oracle, TF32 allowed for float32 (random error about "
        "1e-3*sqrt(K), K <= 144 taps); dividing by the channel's batch std leaves a normalized error "
        "near 1e-3, far inside atol 5e-2; half precision: only the output rounding counts."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "c64_56_eval", "params": {"N": 8, "C": 64, "H": 56, "W": 56, "OC": 64, "k": 3, "padding": 1, "training": False}},
        {"name": "c64_56_train_p0.1", "params": {"N": 8, "C": 64, "H": 56, "W": 56, "OC": 64, "k": 3, "padding": 1, "training": True, "p": 0.1}},
        {"name": "c128_56_s2_train_p0.5", "params": {"N": 16, "C": 128, "H": 56, "W": 56, "OC": 128, "k": 3, "stride": 2, "padding": 1, "training": True, "p": 0.5}},
        {"name": "c256_14_eval_f16", "params": {"N": 32, "C": 256, "H": 14, "W": 14, "OC": 256, "k": 3, "padding": 1, "training": False, "dtype": "float16"}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, p=0.5, training=True,
              inplace=False):
    y = torch.nn.functional.conv2d(input, weight, bias, stride, padding, dilation, groups)
    y = torch.nn.functional.batch_norm(y, None, None, None, None, True, 0.0, 1e-5)
    y = torch.nn.functional.relu(y, inplace=inplace)
    return torch.nn.functional.dropout(y, p, training, inplace)


def _case(name, g, x_shape, w_shape, bias=False, dtype=torch.float32, mode="randn", **kw):
    draw = g.randn if mode == "randn" else g.outlier
    x = draw(*x_shape, dtype=dtype)
    w = draw(*w_shape, dtype=dtype)
    b = draw(w_shape[0], dtype=dtype) if bias else None
    return {"name": name, "args": (x, w, b), "kwargs": kw}


def edge_cases(g):
    yield _case("eval_default_p", g, (2, 3, 8, 8), (4, 3, 3, 3), bias=True, training=False)
    yield _case("train_p0_identity_dropout", g, (2, 3, 9, 7), (5, 3, 3, 3), p=0.0, training=True)
    yield _case("train_p1_all_zero", g, (2, 3, 6, 6), (4, 3, 3, 3), bias=True, p=1.0, training=True)
    yield _case("eval_p0.9_ignored", g, (1, 3, 7, 7), (4, 3, 3, 3), p=0.9, training=False)
    yield _case("eval_stride2_pad1", g, (2, 3, 9, 9), (5, 3, 3, 3), bias=True, stride=2, padding=1,
                training=False)
    yield _case("train_p0_same_groups2", g, (2, 4, 7, 9), (6, 2, 3, 3), padding="same", groups=2,
                p=0.0, training=True)
    yield _case("eval_depthwise_dilated", g, (1, 4, 10, 9), (4, 1, 3, 3), stride=(1, 2), padding=(2, 1),
                dilation=(2, 1), groups=4, training=False)
    yield _case("eval_two_values_per_channel", g, (2, 3, 3, 3), (4, 3, 3, 3), bias=True, training=False)
    yield _case("eval_inplace_flag", g, (1, 3, 6, 6), (4, 3, 3, 3), training=False, inplace=True)


def random_cases(g):
    yield _case("randn_eval_odd", g, (2, 4, 15, 13), (8, 4, 3, 3), bias=True, padding=1, training=False)
    yield _case("randn_train_p0_K144", g, (1, 16, 12, 11), (20, 16, 3, 3), bias=True, padding=1,
                p=0.0, training=True)
    yield _case("outlier_eval_stride2", g, (2, 6, 13, 13), (10, 6, 3, 3), mode="outlier", stride=2,
                padding=1, training=False)
    yield _case("f16_eval", g, (2, 8, 9, 11), (16, 8, 3, 3), bias=True, dtype=torch.float16, padding=1,
                training=False)
    yield _case("bf16_train_p0_groups4", g, (2, 8, 10, 9), (12, 2, 3, 3), bias=True, dtype=torch.bfloat16,
                padding=1, groups=4, p=0.0, training=True)


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    k, C, OC = params["k"], params["C"], params["OC"]
    x = g.randn(params["N"], C, params["H"], params["W"], dtype=dtype)
    w = g.randn(OC, C, k, k, dtype=dtype) * (1.0 / (C * k * k) ** 0.5)
    b = g.randn(OC, dtype=dtype)
    return (x, w, b), {"stride": params.get("stride", 1), "padding": params["padding"],
                       "p": params.get("p", 0.5), "training": params["training"]}


def perf_cost(params):
    N, C, H, W, OC, k = params["N"], params["C"], params["H"], params["W"], params["OC"], params["k"]
    s, p = params.get("stride", 1), params.get("padding", 0)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    out = N * OC * OH * OW
    # read input, weight, bias once, write the output once; FLOPs: 2 per tap + bias, batch
    # statistics ~3 per element, normalize + ReLU ~3, dropout compare + scale 2 in training
    drop = 2 * out if params["training"] else 0
    return {"bytes": es * (N * C * H * W + OC * C * k * k + OC + out),
            "flops": 2 * out * C * k * k + out + 6 * out + drop}
