import torch

META = {
    "id": "Fusion/fused_sigmoid_batch_norm",
    "category": "Fusion",
    "stem": "fused_sigmoid_batch_norm",
    "entry": "fused_sigmoid_batch_norm",
    "signature": ("def fused_sigmoid_batch_norm(input, running_mean, running_var, weight=None, bias=None, "
                  "training=False, momentum=0.1, eps=1e-5) -> Tensor"),
    "description": (
        "Batch normalization over channel dimension 1 of an (N, C) or (N, C, L) input followed by an "
        "element-wise logistic sigmoid: y = sigmoid((x - mean_c) / sqrt(var_c + eps) * weight_c + "
        "bias_c), weight/bias defaulting to 1/0 when None. With training=False the statistics are "
        "running_mean and running_var. With training=True they are the batch mean and the biased "
        "batch variance over every axis except the channel axis, and running_mean/running_var are "
        "updated in place: running = (1 - momentum) * running + momentum * batch_stat, with the "
        "unbiased (n / (n - 1)) variance for running_var. Half precision inputs come with float32 "
        "running statistics, weight and bias; the output has the input dtype and lies in [0, 1]."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "float32 rtol 1e-4 for the updated running statistics (reductions over up to a few thousand "
        "elements in any order, one- or two-pass variance); the sigmoid output has derivative <= 1/4, "
        "so it is at least as accurate as the normalized value; half precision: about one rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "eval_256x1024x64", "params": {"shape": [256, 1024, 64], "training": False}},
        {"name": "train_256x1024x64", "params": {"shape": [256, 1024, 64], "training": True}},
        {"name": "train_8192x4096_2d", "params": {"shape": [8192, 4096], "training": True}},
        {"name": "train_512x512x256_f16",
         "params": {"shape": [512, 512, 256], "training": True, "dtype": "float16"}},
        {"name": "train_512x1024x256", "params": {"shape": [512, 1024, 256], "training": True}},
    ],
}


def reference(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
              eps=1e-5):
    y = torch.nn.functional.batch_norm(input, running_mean, running_var, weight=weight, bias=bias,
                                       training=training, momentum=momentum, eps=eps)
    return torch.sigmoid(y)


def _stats(g, c):
    return g.randn(c) * 0.5, g.rand(c, low=0.5, high=2.0)


def _affine(g, c):
    return g.rand(c, low=0.5, high=1.5), g.randn(c) * 0.3


def _scaled_channels(g, x):
    c = x.shape[1]
    shape = [1, c] + [1] * (x.dim() - 2)
    scale = g.rand(c, low=0.3, high=3.0).reshape(shape)
    shift = (g.randn(c) * 2.0).reshape(shape)
    return x * scale.to(x.dtype) + shift.to(x.dtype)


def edge_cases(g):
    rm, rv = _stats(g, 6)
    w, b = _affine(g, 6)
    yield {"name": "eval_2d_affine", "args": (g.randn(8, 6), rm, rv, w, b), "kwargs": {}}
    rm, rv = _stats(g, 5)
    yield {"name": "eval_3d_no_affine", "args": (g.randn(4, 5, 11), rm, rv), "kwargs": {"training": False}}
    rm, rv = _stats(g, 3)
    w, b = _affine(g, 3)
    yield {"name": "eval_batch1_eps", "args": (g.randn(1, 3, 7), rm, rv, w, b), "kwargs": {"eps": 1e-3}}
    # saturation: huge normalized values must give exactly 0 / 1 (no NaN from exp overflow)
    rm, rv = g.tensor([0.0, 0.0]), g.tensor([1e-6, 1e-6])
    x = g.tensor([[300.0, -300.0], [-1e4, 1e4], [0.0, 0.0]])
    yield {"name": "eval_saturation", "args": (x, rm, rv), "kwargs": {"eps": 1e-12}}  # CUDA batch_norm refuses eps = 0 (found on the H200)
    rm, rv = _stats(g, 7)
    w, b = _affine(g, 7)
    yield {"name": "train_2d_updates_running", "args": (g.randn(16, 7), rm, rv, w, b),
           "kwargs": {"training": True}, "mutates": [1, 2]}
    rm, rv = _stats(g, 4)
    w, b = _affine(g, 4)
    yield {"name": "train_3d_momentum_eps", "args": (g.randn(3, 4, 10), rm, rv, w, b),
           "kwargs": {"training": True, "momentum": 0.3, "eps": 1e-3}, "mutates": [1, 2]}
    # a dead (all-zero) channel: zero batch variance, output sigmoid(bias) there
    x = g.randn(6, 3, 10)
    x[:, 1, :] = 0.0
    rm, rv = _stats(g, 3)
    w, b = _affine(g, 3)
    yield {"name": "train_zero_variance_channel", "args": (x, rm, rv, w, b), "kwargs": {"training": True},
           "mutates": [1, 2]}
    rm, rv = _stats(g, 5)
    yield {"name": "train_two_values_per_channel", "args": (g.randn(2, 5), rm, rv),
           "kwargs": {"training": True, "momentum": 1.0}, "mutates": [1, 2]}
    rm, rv = _stats(g, 4)
    w, b = _affine(g, 4)
    yield {"name": "train_weight_only", "args": (g.randn(5, 4, 8), rm, rv, w),
           "kwargs": {"training": True}, "mutates": [1, 2]}
    rm, rv = _stats(g, 1)
    yield {"name": "train_single_channel_L1", "args": (g.randn(9, 1, 1), rm, rv),
           "kwargs": {"training": True, "momentum": 0.0}, "mutates": [1, 2]}


def random_cases(g):
    x = _scaled_channels(g, g.randn(8, 19, 33))
    rm, rv = _stats(g, 19)
    w, b = _affine(g, 19)
    yield {"name": "train_3d_odd", "args": (x, rm, rv, w, b), "kwargs": {"training": True},
           "mutates": [1, 2]}
    x = _scaled_channels(g, g.outlier(16, 12, 40, p=1e-2))
    rm, rv = _stats(g, 12)
    w, b = _affine(g, 12)
    yield {"name": "train_3d_outlier", "args": (x, rm, rv, w, b), "kwargs": {"training": True, "momentum": 0.2},
           "mutates": [1, 2]}
    x = _scaled_channels(g, g.randn(64, 37))
    rm, rv = _stats(g, 37)
    yield {"name": "train_2d_no_affine", "args": (x, rm, rv), "kwargs": {"training": True}, "mutates": [1, 2]}
    x = _scaled_channels(g, g.randn(6, 24, 45))
    rm, rv = _stats(g, 24)
    w, b = _affine(g, 24)
    yield {"name": "eval_3d", "args": (x, rm, rv, w, b), "kwargs": {}}
    x = _scaled_channels(g, g.randn(8, 12, 65, dtype=torch.float16))
    rm, rv = _stats(g, 12)
    w, b = _affine(g, 12)
    yield {"name": "train_f16_fp32_stats", "args": (x, rm, rv, w, b), "kwargs": {"training": True},
           "mutates": [1, 2]}
    x = _scaled_channels(g, g.outlier(5, 10, 63, dtype=torch.bfloat16))
    rm, rv = _stats(g, 10)
    w, b = _affine(g, 10)
    yield {"name": "eval_bf16_fp32_stats", "args": (x, rm, rv, w, b), "kwargs": {}}
    x = _scaled_channels(g, g.randn(4, 8, 31, dtype=torch.bfloat16))
    rm, rv = _stats(g, 8)
    yield {"name": "train_bf16_no_affine", "args": (x, rm, rv), "kwargs": {"training": True},
           "mutates": [1, 2]}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape = params["shape"]
    c = shape[1]
    x = g.randn(*shape, dtype=dtype)
    rm, rv = _stats(g, c)
    w, b = _affine(g, c)
    return (x, rm, rv, w, b), {"training": bool(params.get("training", False))}


def perf_cost(params):
    shape = params["shape"]
    c = shape[1]
    n = 1
    for s in shape:
        n *= s
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    training = bool(params.get("training", False))
    # read x, write y (input dtype); read float32 running_mean/var, weight, bias; in training also
    # write the updated running_mean/var
    nbytes = 2 * n * es + 4 * c * 4 + (2 * c * 4 if training else 0)
    # per element: normalize (mul + add = 2) and sigmoid (neg, exp, add, div = 4); training adds the
    # batch statistics (add, mul, add = 3); ~10 FLOPs per channel for scale/shift and running updates
    flops = (9 if training else 6) * n + 10 * c
    return {"bytes": nbytes, "flops": flops}
