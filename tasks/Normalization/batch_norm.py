import torch

META = {
    "id": "Normalization/batch_norm",
    "category": "Normalization",
    "stem": "batch_norm",
    "entry": "batch_norm",
    "signature": ("def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, "
                  "momentum=0.1, eps=1e-05) -> Tensor"),
    "description": (
        "Batch normalization over channel dimension 1 of an (N, C), (N, C, L) or (N, C, H, W) input: "
        "y = (x - mean_c) / sqrt(var_c + eps) * weight_c + bias_c, where weight/bias default to 1/0 "
        "when None. With training=False the statistics are running_mean and running_var. With "
        "training=True they are the batch mean and the biased batch variance over every axis except "
        "the channel axis, and, when running_mean/running_var are given (they may be None), those "
        "tensors are updated in place: running = (1 - momentum) * running + momentum * batch_stat, "
        "using the unbiased variance (n / (n - 1) correction) for running_var. Half precision inputs "
        "come with float32 running statistics, weight and bias; the output has the input dtype."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "float32 rtol 1e-4: batch statistics are reductions over up to a few thousand elements whose "
        "summation order (and one- vs two-pass variance) legitimately differs; half precision defaults."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "train_32x64x56x56", "params": {"shape": [32, 64, 56, 56], "training": True, "dtype": "float32"}},
        {"name": "eval_32x64x56x56", "params": {"shape": [32, 64, 56, 56], "training": False, "dtype": "float32"}},
        {"name": "train_64x256x28x28_f16",
         "params": {"shape": [64, 256, 28, 28], "training": True, "dtype": "float16"}},
        {"name": "train_128x512x14x14", "params": {"shape": [128, 512, 14, 14], "training": True, "dtype": "float32"}},
        {"name": "train_8192x1024_2d", "params": {"shape": [8192, 1024], "training": True, "dtype": "float32"}},
    ],
}


def reference(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
              eps=1e-05):
    return torch.nn.functional.batch_norm(input, running_mean, running_var, weight=weight, bias=bias,
                                          training=training, momentum=momentum, eps=eps)


def _stats(g, c):
    return g.randn(c) * 0.5, g.rand(c, low=0.5, high=2.0)


def _affine(g, c):
    return g.rand(c, low=0.5, high=1.5), g.randn(c) * 0.3


def edge_cases(g):
    rm, rv = _stats(g, 6)
    w, b = _affine(g, 6)
    yield {"name": "eval_2d_affine", "args": (g.randn(8, 6), rm, rv, w, b), "kwargs": {}}
    rm, rv = _stats(g, 5)
    yield {"name": "eval_3d_no_affine", "args": (g.randn(4, 5, 11), rm, rv), "kwargs": {"training": False}}
    rm, rv = _stats(g, 3)
    w, b = _affine(g, 3)
    yield {"name": "eval_batch1_4d", "args": (g.randn(1, 3, 5, 7), rm, rv, w, b), "kwargs": {"eps": 1e-3}}
    rm, rv = _stats(g, 7)
    w, b = _affine(g, 7)
    yield {"name": "train_2d_updates_running", "args": (g.randn(16, 7), rm, rv, w, b),
           "kwargs": {"training": True}, "mutates": [1, 2]}
    yield {"name": "train_no_running_stats", "args": (g.randn(4, 5, 9), None, None),
           "kwargs": {"training": True}}
    rm, rv = _stats(g, 4)
    w, b = _affine(g, 4)
    yield {"name": "train_4d_momentum_eps", "args": (g.randn(3, 4, 6, 5), rm, rv, w, b),
           "kwargs": {"training": True, "momentum": 0.3, "eps": 1e-3}, "mutates": [1, 2]}
    # channel 1 is all zeros (a dead channel): zero batch variance, so the output there is exactly
    # the bias. (Zero, not another constant: a one-ulp error in a nonzero mean, e.g. from an
    # approximate division, would be amplified by 1/sqrt(eps) ~ 316.)
    x = g.randn(6, 3, 10)
    x[:, 1, :] = 0.0
    rm, rv = _stats(g, 3)
    w, b = _affine(g, 3)
    yield {"name": "train_zero_variance_channel", "args": (x, rm, rv, w, b), "kwargs": {"training": True},
           "mutates": [1, 2]}
    # two values per channel: the smallest batch for which the unbiased variance exists
    rm, rv = _stats(g, 5)
    yield {"name": "train_two_values_per_channel", "args": (g.randn(2, 5), rm, rv),
           "kwargs": {"training": True, "momentum": 1.0}, "mutates": [1, 2]}
    rm, rv = _stats(g, 4)
    w, b = _affine(g, 4)
    yield {"name": "train_weight_only", "args": (g.randn(5, 4, 8), rm, rv, w),
           "kwargs": {"training": True}, "mutates": [1, 2]}


def _scaled_channels(g, x):
    c = x.shape[1]
    shape = [1, c] + [1] * (x.dim() - 2)
    scale = g.rand(c, low=0.3, high=3.0).reshape(shape)
    shift = (g.randn(c) * 2.0).reshape(shape)
    return x * scale.to(x.dtype) + shift.to(x.dtype)


def random_cases(g):
    x = _scaled_channels(g, g.randn(8, 19, 33))
    rm, rv = _stats(g, 19)
    w, b = _affine(g, 19)
    yield {"name": "train_3d_odd", "args": (x, rm, rv, w, b), "kwargs": {"training": True},
           "mutates": [1, 2]}
    x = _scaled_channels(g, g.outlier(4, 16, 12, 13, p=1e-2))
    rm, rv = _stats(g, 16)
    w, b = _affine(g, 16)
    yield {"name": "train_4d_outlier", "args": (x, rm, rv, w, b), "kwargs": {"training": True, "momentum": 0.2},
           "mutates": [1, 2]}
    x = _scaled_channels(g, g.randn(64, 37))
    rm, rv = _stats(g, 37)
    yield {"name": "train_2d_no_affine", "args": (x, rm, rv), "kwargs": {"training": True}, "mutates": [1, 2]}
    x = _scaled_channels(g, g.randn(6, 24, 9, 10))
    rm, rv = _stats(g, 24)
    w, b = _affine(g, 24)
    yield {"name": "eval_4d", "args": (x, rm, rv, w, b), "kwargs": {}}
    x = _scaled_channels(g, g.randn(8, 12, 65, dtype=torch.float16))
    rm, rv = _stats(g, 12)
    w, b = _affine(g, 12)
    yield {"name": "train_f16_fp32_stats", "args": (x, rm, rv, w, b), "kwargs": {"training": True},
           "mutates": [1, 2]}
    x = _scaled_channels(g, g.outlier(5, 10, 7, 9, dtype=torch.bfloat16))
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
    # per element: normalize with a precomputed per-channel scale/shift (mul + add = 2); training adds
    # the batch statistics (sum and sum of squares: add, mul, add = 3); per channel ~10 FLOPs for
    # scale/shift (rsqrt counted 1) and the running-stat updates
    flops = (5 if training else 2) * n + 10 * c
    return {"bytes": nbytes, "flops": flops}
