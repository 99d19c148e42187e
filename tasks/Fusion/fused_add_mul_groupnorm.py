import torch

META = {
    "id": "Fusion/fused_add_mul_groupnorm",
    "category": "Fusion",
    "stem": "fused_add_mul_groupnorm",
    "entry": "fused_add_mul_groupnorm",
    "signature": "fused_add_mul_groupnorm(input1, input2, weight, bias, num_groups, eps=1e-5, *, out=None) -> Tensor",
    "description": (
        "Group normalisation of (input1 + input2) * input2: input1 has shape (N, C, *) (N, C, "
        "(N, C, L) or (N, C, H, W)), input2 is broadcast against it; M = (input1 + input2) * input2 "
        "is split along the channels into num_groups groups (C divisible by num_groups), each "
        "(sample, group) block is normalised with its own mean and biased variance, "
        "(M - mean) / sqrt(var + eps), then scaled and shifted per channel by weight and bias "
        "(shape (C,)). The output has the broadcast shape and the inputs' dtype (half precision "
        "statistics in float32 are expected). If out is given the result is also written there."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-5, 5e-4],
        "float16": [1e-2, 1e-2],
        "bfloat16": [5e-2, 3e-2],
    },
    "tolerance_note": (
        "Mean/variance summation order is free (float32 rtol 1e-4 on outputs of order 1); in half "
        "precision the reference rounds the sum and the product to the half type before the "
        "statistics, a fused kernel need not (one or two half ulps of M, amplified by the "
        "normalisation and by |weight|). float32 rtol 5e-4: on the H200 a Triton solution is 2.7e-4 off on groups of one channel of a 2-d input, where x - mean is rounding noise scaled by 1/sqrt(var + eps)."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "n8_c64_32x32", "params": {"shape": [8, 64, 32, 32], "groups": 8}},
        {"name": "n16_c128_64x64", "params": {"shape": [16, 128, 64, 64], "groups": 32}},
        {"name": "n16_c128_64x64_chan_bias", "params": {"shape": [16, 128, 64, 64], "groups": 32,
                                                        "y": [128, 1, 1]}},
        {"name": "n32_c256_32x32_f16", "params": {"shape": [32, 256, 32, 32], "groups": 32, "dtype": "float16"}},
        {"name": "n8_c512_64x64", "params": {"shape": [8, 512, 64, 64], "groups": 32}},
    ],
}


def reference(input1, input2, weight, bias, num_groups, eps=1e-5, *, out=None):
    m = (input1 + input2) * input2
    y = torch.nn.functional.group_norm(m, num_groups, weight, bias, eps)
    if out is not None:
        out.copy_(y)
        return out
    return y


def _wb(g, c, dtype=torch.float32):
    return g.randn(c, dtype=dtype), g.randn(c, dtype=dtype)


def edge_cases(g):
    w, b = _wb(g, 4)
    yield {"name": "nchw_same_shape", "args": (g.randn(2, 4, 5, 7), g.randn(2, 4, 5, 7), w, b, 2), "kwargs": {}}
    yield {"name": "channel_broadcast_input2", "args": (g.randn(2, 4, 5, 7), g.randn(4, 1, 1), w, b, 4), "kwargs": {}}
    yield {"name": "spatial_broadcast_input2", "args": (g.randn(2, 4, 5, 7), g.randn(1, 1, 5, 1), w, b, 1), "kwargs": {}}
    yield {"name": "scalar_like_input2", "args": (g.randn(3, 4, 6), g.tensor(1.5), w, b, 2), "kwargs": {}}
    w6, b6 = _wb(g, 6)
    yield {"name": "ncl_groups_3_eps", "args": (g.randn(3, 6, 19), g.randn(3, 6, 19), w6, b6, 3),
           "kwargs": {"eps": 1e-2}}
    yield {"name": "nc_2d_groups_equal_channels", "args": (g.randn(5, 6), g.randn(5, 6), w6, b6, 6), "kwargs": {}}
    yield {"name": "constant_group_var0", "args": (g.tensor([[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]),
                                                   g.tensor([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]),
                                                   g.tensor([1.0, -2.0]), g.tensor([0.5, 0.25]), 1),
           "kwargs": {"eps": 0.5}}  # a small eps would amplify the reference's own rounding of the mean
    yield {"name": "input2_zero_gives_bias", "args": (g.randn(2, 4, 3), g.tensor([[[0.0] * 3] * 4] * 2), w, b, 2),
           "kwargs": {}}
    yield {"name": "batch1_single_group", "args": (g.randn(1, 4, 9, 9), g.randn(1, 4, 9, 9), w, b, 1), "kwargs": {}}
    yield {"name": "out_given", "args": (g.randn(2, 4, 3), g.randn(2, 4, 3), w, b, 2),
           "kwargs": {"out": g.tensor([[[0.0] * 3] * 4] * 2)}}
    yield {"name": "non_contiguous", "args": (g.randn(2, 5, 4, 3).permute(0, 2, 1, 3), g.randn(2, 4, 5, 6)[..., ::2],
                                              w, b, 2), "kwargs": {}}


def random_cases(g):
    w, b = _wb(g, 16)
    yield {"name": "randn_nchw_odd", "args": (g.randn(3, 16, 9, 11), g.randn(3, 16, 9, 11), w, b, 4), "kwargs": {}}
    yield {"name": "outlier_nchw", "args": (g.outlier(2, 16, 16, 16), g.outlier(2, 16, 16, 16), w, b, 8), "kwargs": {}}
    yield {"name": "randn_ncl_channel_bias", "args": (g.randn(4, 16, 101), g.randn(16, 1), w, b, 2), "kwargs": {}}
    wh, bh = _wb(g, 16, torch.float16)
    yield {"name": "randn_f16", "args": (g.randn(2, 16, 12, 12, dtype=torch.float16),
                                         g.randn(2, 16, 12, 12, dtype=torch.float16), wh, bh, 4), "kwargs": {}}
    wb, bb = _wb(g, 16, torch.bfloat16)
    yield {"name": "outlier_bf16", "args": (g.outlier(2, 16, 37, dtype=torch.bfloat16),
                                            g.randn(2, 16, 37, dtype=torch.bfloat16), wb, bb, 8), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape = params["shape"]
    x = g.randn(*shape, dtype=dtype)
    y = g.randn(*(params.get("y") or shape), dtype=dtype)
    w, b = g.randn(shape[1], dtype=dtype), g.randn(shape[1], dtype=dtype)
    return (x, y, w, b, params["groups"]), {}


def perf_cost(params):
    shape = params["shape"]
    n = 1
    for s in shape:
        n *= s
    ny = 1
    for s in params.get("y") or shape:
        ny *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    c = shape[1]
    # read input1, input2, weight and bias once, write the output. Per element: add and multiply
    # (2), mean and variance accumulation (3), normalise, scale and shift (4)
    return {"bytes": es * (n + ny + 2 * c + n), "flops": 9 * n}
