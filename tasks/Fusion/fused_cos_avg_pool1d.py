import torch

META = {
    "id": "Fusion/fused_cos_avg_pool1d",
    "category": "Fusion",
    "stem": "fused_cos_avg_pool1d",
    "entry": "fused_cos_avg_pool1d",
    "signature": "def fused_cos_avg_pool1d(input: torch.Tensor, kernel_size: int, stride: int = None, padding: int = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> torch.Tensor",
    "description": (
        "avg_pool1d(cos(input), kernel_size, stride, padding, ceil_mode, count_include_pad) over the "
        "last dimension of an (N, C, L) or (C, L) input. The cosine is taken element-wise first, then "
        "windows of kernel_size are averaged; stride defaults to kernel_size; the zero padding "
        "(padding <= kernel_size / 2 on both ends) pads the cosines with 0, not cos(0). L_out = "
        "floor((L + 2 * padding - k) / stride) + 1, or ceil(...) + 1 with ceil_mode, dropping a last "
        "window that would start in the right padding. The divisor is the window length clipped to "
        "the padded range with count_include_pad=True, and the number of real elements otherwise. "
        "NaN/inf inputs give NaN in their windows. The output keeps the input dtype."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 1e-2],
    },
    "tolerance_note": (
        "Outputs lie in [-1, 1]: float32 atol 1e-5 leaves room for a few-ulp cosine (including GPU "
        "fast approximations after range reduction) plus the window sum; inputs stay below ~100 in "
        "magnitude (outliers at scale 10) so argument reduction costs no more than ~1e-5. Half "
        "precision: the reference rounds every cosine to the input dtype before pooling (bf16: up to "
        "2^-9 each) and then rounds the mean once more."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "16x64x4096_k4", "params": {"shape": [16, 64, 4096], "kernel_size": 4}},
        {"name": "32x256x8192_k3s2p1", "params": {"shape": [32, 256, 8192], "kernel_size": 3, "stride": 2, "padding": 1}},
        {"name": "32x256x8192_k8_f16", "params": {"shape": [32, 256, 8192], "kernel_size": 8, "dtype": "float16"}},
        {"name": "64x512x16384_k2", "params": {"shape": [64, 512, 16384], "kernel_size": 2}},
    ],
}


def reference(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return torch.nn.functional.avg_pool1d(torch.cos(input), kernel_size, stride, padding, ceil_mode,
                                          count_include_pad)


def _c(name, x, k, **kw):
    return {"name": name, "args": (x, k), "kwargs": kw}


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield _c("kernel1_is_cos", g.randn(2, 3, 17), 1)
    yield _c("zeros_give_one", torch.zeros(1, 2, 9, device=g.device), 3)
    yield _c("global_window", g.randn(3, 4, 25), 25)
    yield _c("default_stride_drops_tail", g.randn(2, 5, 23), 4)
    yield _c("stride_gt_kernel", g.randn(2, 3, 40), 2, stride=5)
    yield _c("pad_counts_zero_cos", g.randn(2, 3, 16), 3, stride=1, padding=1)
    yield _c("pad_excluded_from_divisor", g.randn(2, 3, 16), 3, stride=1, padding=1, count_include_pad=False)
    yield _c("ceil_mode_partial_window", g.randn(2, 3, 10), 4, stride=3, ceil_mode=True)
    yield _c("ceil_mode_pad_no_count", g.randn(1, 4, 11), 4, stride=3, padding=2, ceil_mode=True,
             count_include_pad=False)
    yield _c("ceil_mode_pad_count", g.randn(1, 4, 11), 4, stride=3, padding=2, ceil_mode=True)
    yield _c("unbatched_2d", g.randn(6, 21), 3, stride=2)
    yield _c("large_arguments", g.rand(2, 2, 30, low=-100.0, high=100.0), 3)
    x = g.randn(1, 2, 12)
    x[0, 0, 1], x[0, 0, 6], x[0, 1, 10] = inf, nan, -inf
    yield _c("inf_nan_give_nan", x, 3)
    yield _c("non_contiguous", g.randn(30, 2, 3).permute(1, 2, 0), 5, stride=2, padding=2)


def random_cases(g):
    yield _c("randn_k4_s2_p1", g.randn(4, 16, 1000), 4, stride=2, padding=1)
    yield _c("randn_odd_k3", g.randn(2, 33, 257), 3)
    yield _c("outlier_k7_s3_p3_ceil", g.outlier(3, 20, 515, p=1e-2, scale=10.0), 7, stride=3, padding=3,
             ceil_mode=True)
    yield _c("randn_f16_k2", g.randn(4, 32, 300, dtype=torch.float16), 2)
    yield _c("outlier_bf16_k5_s1_nopad", g.outlier(2, 17, 311, dtype=torch.bfloat16, scale=10.0), 5, stride=1,
             padding=2, count_include_pad=False)
    yield _c("randn_4x_k6_s4_ceil", g.randn(3, 16, 999) * 4.0, 6, stride=4, ceil_mode=True)


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
    L = shape[-1]
    l_out = (L + 2 * p - k) // s + 1
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x once, write the output once; one cosine per input element (counted as ~8 FLOPs; with
    # overlapping windows a fused kernel may recompute some) plus k adds/scale per output
    return {"bytes": (rows * L + rows * l_out) * es, "flops": 8 * rows * L + rows * l_out * k}
