import torch

META = {
    "id": "Pooling/avg_pool1d",
    "category": "Pooling",
    "stem": "avg_pool1d",
    "entry": "avg_pool1d",
    "signature": "avg_pool1d(input, kernel_size, stride=None, padding=0) -> Tensor",
    "description": (
        "1-D average pooling over the last dimension of an (N, C, L) or (C, L) input, with "
        "torch.nn.functional.avg_pool1d defaults (ceil_mode=False, count_include_pad=True): "
        "out[..., l] = (1 / k) * sum_{m<k} x_pad[..., l * stride + m], where x_pad is the input with "
        "`padding` zeros on both ends, stride defaults to kernel_size, and L_out = floor((L + 2 * "
        "padding - k) / stride) + 1 (trailing elements that do not fill a window are dropped). The "
        "divisor is always k, padded zeros included. kernel_size, stride and padding may be ints or "
        "1-tuples; padding is at most half the kernel. NaN/inf inside a window propagate. The output "
        "keeps the input dtype."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "Defaults: a window sum of at most a few dozen terms, accumulated in float32.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "16x64x4096_k4", "params": {"shape": [16, 64, 4096], "kernel_size": 4, "dtype": "float32"}},
        {"name": "32x256x8192_k3s2p1",
         "params": {"shape": [32, 256, 8192], "kernel_size": 3, "stride": 2, "padding": 1, "dtype": "float32"}},
        {"name": "32x256x8192_k8_f16", "params": {"shape": [32, 256, 8192], "kernel_size": 8, "dtype": "float16"}},
        {"name": "64x512x16384_k2", "params": {"shape": [64, 512, 16384], "kernel_size": 2, "dtype": "float32"}},
    ],
}


def reference(input, kernel_size, stride=None, padding=0):
    return torch.nn.functional.avg_pool1d(input, kernel_size, stride=stride, padding=padding)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "kernel1_identity", "args": (g.randn(2, 3, 17), 1), "kwargs": {}}
    yield {"name": "global_pool_kernel_eq_L", "args": (g.randn(3, 4, 25), 25), "kwargs": {}}
    yield {"name": "stride_default_drops_tail", "args": (g.randn(2, 5, 23), 4), "kwargs": {}}
    yield {"name": "stride_gt_kernel", "args": (g.randn(2, 3, 40), 2), "kwargs": {"stride": 5}}
    yield {"name": "overlap_stride1", "args": (g.randn(2, 3, 30), 5), "kwargs": {"stride": 1}}
    yield {"name": "padding_counts_in_divisor", "args": (g.randn(2, 3, 16), 3),
           "kwargs": {"stride": 1, "padding": 1}}
    yield {"name": "padding2_k4_s3", "args": (g.randn(1, 4, 29), 4), "kwargs": {"stride": 3, "padding": 2}}
    yield {"name": "unbatched_2d_input", "args": (g.randn(6, 21), 3), "kwargs": {"stride": 2}}
    yield {"name": "tuple_arguments", "args": (g.randn(2, 2, 19), (3,)),
           "kwargs": {"stride": (2,), "padding": (1,)}}
    yield {"name": "single_window_L_eq_k", "args": (g.randn(1, 1, 3), 3), "kwargs": {}}
    x = g.randn(1, 2, 12)
    x[0, 0, 1], x[0, 0, 6], x[0, 1, 10] = inf, nan, -inf
    yield {"name": "inf_nan_propagate", "args": (x, 3), "kwargs": {}}
    yield {"name": "ones_exact", "args": (torch.ones(2, 2, 9, device=g.device), 3),
           "kwargs": {"stride": 2, "padding": 1}}


def random_cases(g):
    yield {"name": "randn_k4_s2_p1", "args": (g.randn(4, 16, 1000), 4), "kwargs": {"stride": 2, "padding": 1}}
    yield {"name": "randn_odd_k3", "args": (g.randn(2, 33, 257), 3), "kwargs": {}}
    yield {"name": "outlier_k7_s3_p3", "args": (g.outlier(3, 20, 515, p=1e-2), 7),
           "kwargs": {"stride": 3, "padding": 3}}
    yield {"name": "randn_f16_k2", "args": (g.randn(4, 32, 300, dtype=torch.float16), 2), "kwargs": {}}
    yield {"name": "outlier_bf16_k5_s1", "args": (g.outlier(2, 17, 311, dtype=torch.bfloat16), 5),
           "kwargs": {"stride": 1, "padding": 2}}
    yield {"name": "randn_2d_k6_s4", "args": (g.randn(48, 999), 6), "kwargs": {"stride": 4}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    kw = {}
    if "stride" in params:
        kw["stride"] = params["stride"]
    if "padding" in params:
        kw["padding"] = params["padding"]
    return (x, params["kernel_size"]), kw


def perf_cost(params):
    shape = params["shape"]
    k = params["kernel_size"]
    s = params.get("stride") or k
    p = params.get("padding", 0)
    rows = 1
    for d in shape[:-1]:
        rows *= d
    l_out = (shape[-1] + 2 * p - k) // s + 1
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x once, write the pooled output once; per output: k - 1 adds and one scale by 1/k -> k FLOPs
    return {"bytes": (rows * shape[-1] + rows * l_out) * es, "flops": rows * l_out * k}
