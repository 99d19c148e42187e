import torch

META = {
    "id": "Fusion/fused_relu_batch_norm_conv2d",
    "category": "Fusion",
    "stem": "fused_relu_batch_norm_conv2d",
    "entry": "fused_relu_batch_norm_conv2d",
    "signature": "def fused_relu_batch_norm_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, running_mean=None, running_var=None, bn_weight=None, bn_bias=None, training=False, momentum=0.1, eps=1e-5, inplace=False) -> Tensor",
    "description": (
        "relu(batch_norm(conv2d(input, weight, bias, stride, padding, dilation, groups), running_mean, "
        "running_var, bn_weight, bn_bias, training, momentum, eps)). The convolution is a 2-D "
        "cross-correlation of an NCHW input with filters (C_out, C_in/groups, kH, kW) plus an optional "
        "bias (padding may be an int, a pair, 'valid' or 'same'). Batch normalization per output "
        "channel c: y = (x - mu_c) / sqrt(var_c + eps) * gamma_c + beta_c (gamma = bn_weight, beta = "
        "bn_bias, each optional). With training=False mu/var are running_mean/running_var (both "
        "given). With training=True they are the batch statistics over (N, H_out, W_out) (biased "
        "variance), and when running_mean/running_var are given they are updated in place: "
        "running = (1 - momentum) * running + momentum * batch_stat, using the unbiased variance "
        "(factor n / (n - 1), n = N*H_out*W_out) for running_var. Then max(y, 0). inplace only "
        "concerns the intermediate buffer. Output (N, C_out, H_out, W_out) in the input dtype; the "
        "running statistics may be float32 for half-precision inputs."
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
        "1e-3*sqrt(K), K <= 144 taps; atol 5e-2 about 4 sigma); the normalization divides by the "
        "channel std, which only shrinks that error for batch statistics, and the running-statistics "
        "update is a mean/variance of the same values (relative error ~1e-3, inside rtol 1e-2)."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "c64_56_eval", "params": {"N": 8, "C": 64, "H": 56, "W": 56, "OC": 64, "k": 3, "padding": 1, "training": False}},
        {"name": "c64_56_train", "params": {"N": 8, "C": 64, "H": 56, "W": 56, "OC": 64, "k": 3, "padding": 1, "training": True}},
        {"name": "c128_56_s2_train", "params": {"N": 16, "C": 128, "H": 56, "W": 56, "OC": 128, "k": 3, "stride": 2, "padding": 1, "training": True}},
        {"name": "c256_28_1x1_eval", "params": {"N": 16, "C": 256, "H": 28, "W": 28, "OC": 512, "k": 1, "padding": 0, "training": False}},
        {"name": "c256_14_eval_f16", "params": {"N": 32, "C": 256, "H": 14, "W": 14, "OC": 256, "k": 3, "padding": 1, "training": False, "dtype": "float16"}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, running_mean=None,
              running_var=None, bn_weight=None, bn_bias=None, training=False, momentum=0.1, eps=1e-5,
              inplace=False):
    y = torch.nn.functional.conv2d(input, weight, bias, stride, padding, dilation, groups)
    y = torch.nn.functional.batch_norm(y, running_mean, running_var, bn_weight, bn_bias, training, momentum, eps)
    return torch.nn.functional.relu(y, inplace=inplace)


def _case(name, g, x_shape, w_shape, bias=False, dtype=torch.float32, mode="randn", conv=(1, 0, 1, 1),
          running=True, affine=True, training=False, momentum=0.1, eps=1e-5, inplace=False):
    draw = g.randn if mode == "randn" else g.outlier
    x = draw(*x_shape, dtype=dtype)
    w = draw(*w_shape, dtype=dtype)
    b = draw(w_shape[0], dtype=dtype) if bias else None
    C = w_shape[0]
    rm = g.randn(C) if running else None
    rv = g.rand(C, low=0.5, high=2.0) * float(w_shape[1] * w_shape[2] * w_shape[3]) if running else None
    gw = g.rand(C, low=0.5, high=1.5) if affine else None  # float32 parameters, as in mixed precision
    gb = g.randn(C) if affine else None
    c = {"name": name, "args": (x, w, b) + tuple(conv) + (rm, rv, gw, gb, training, momentum, eps, inplace),
         "kwargs": {}}
    if training and running:
        c["mutates"] = [7, 8]
    return c


def edge_cases(g):
    yield _case("eval_running_affine", g, (2, 3, 8, 8), (4, 3, 3, 3), bias=True)
    yield _case("eval_no_affine_eps_0.5", g, (1, 3, 7, 6), (5, 3, 3, 3), affine=False, eps=0.5)
    yield _case("train_batch_stats_only", g, (2, 3, 8, 7), (4, 3, 3, 3), running=False, training=True,
                conv=(1, 1, 1, 1))
    yield _case("train_updates_running_m0.3", g, (2, 3, 9, 9), (5, 3, 3, 3), bias=True, training=True,
                momentum=0.3, conv=(2, 1, 1, 1))
    yield _case("train_momentum_1", g, (2, 2, 6, 6), (3, 2, 3, 3), training=True, momentum=1.0)
    yield _case("train_momentum_0", g, (2, 2, 6, 6), (3, 2, 3, 3), training=True, momentum=0.0, affine=False)
    yield _case("train_two_values_per_channel", g, (2, 3, 3, 3), (4, 3, 3, 3), bias=True, training=True)
    yield _case("eval_padding_same_groups2", g, (2, 4, 7, 9), (6, 2, 3, 3), conv=(1, "same", 1, 2))
    yield _case("train_depthwise_dilated", g, (1, 4, 10, 9), (4, 1, 3, 3), training=True,
                conv=((1, 2), (2, 1), (2, 1), 4))
    yield _case("eval_inplace_flag", g, (1, 3, 6, 6), (4, 3, 3, 3), inplace=True)
    x, w = g.randn(2, 2, 5, 5), g.randn(3, 2, 3, 3)
    yield {"name": "bn_bias_forces_zero", "args": (x, w, None, 1, 0, 1, 1, None, None, None,
                                                   g.tensor([-100.0, 0.0, 100.0]), True, 0.1, 1e-5, False),
           "kwargs": {}}


def random_cases(g):
    yield dict(_case("randn_train_running_odd", g, (2, 4, 15, 13), (8, 4, 3, 3), bias=True, training=True,
                     conv=(1, 1, 1, 1)), dist="seed")
    yield _case("randn_eval_K144", g, (1, 16, 12, 11), (20, 16, 3, 3), bias=True, conv=(1, 1, 1, 1))
    yield _case("outlier_train_stride2", g, (2, 6, 13, 13), (10, 6, 3, 3), mode="outlier", training=True,
                conv=(2, 1, 1, 1))
    yield _case("f16_train_f32_running", g, (2, 8, 9, 11), (16, 8, 3, 3), bias=True, dtype=torch.float16,
                training=True, conv=(1, 1, 1, 1))
    yield _case("bf16_eval_groups4", g, (2, 8, 10, 9), (12, 2, 3, 3), bias=True, dtype=torch.bfloat16,
                conv=(1, 1, 1, 4))


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    k, C, OC = params["k"], params["C"], params["OC"]
    x = g.randn(params["N"], C, params["H"], params["W"], dtype=dtype)
    w = g.randn(OC, C, k, k, dtype=dtype) * (1.0 / (C * k * k) ** 0.5)
    b = g.randn(OC, dtype=dtype)
    rm, rv = g.randn(OC), g.rand(OC, low=0.5, high=2.0)
    gw, gb = g.rand(OC, low=0.5, high=1.5), g.randn(OC)
    return (x, w, b, params.get("stride", 1), params["padding"], 1, 1, rm, rv, gw, gb,
            params["training"], 0.1, 1e-5), {}


def perf_cost(params):
    N, C, H, W, OC, k = params["N"], params["C"], params["H"], params["W"], params["OC"], params["k"]
    s, p = params.get("stride", 1), params.get("padding", 0)
    OH = (H + 2 * p - k) // s + 1
    OW = (W + 2 * p - k) // s + 1
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    out = N * OC * OH * OW
    # read input, weight, bias once, the float32 gamma/beta and running stats (the latter written back
    # in training), write the output once. FLOPs: 2 per tap + bias; statistics ~3 per element in
    # training; normalize, affine and ReLU ~5 per element
    stats = 3 * out if params["training"] else 0
    return {"bytes": es * (N * C * H * W + OC * C * k * k + OC + out) + 4 * 2 * OC * (3 if params["training"] else 2),
            "flops": 2 * out * C * k * k + out + stats + 5 * out}
