import math

import torch

META = {
    "id": "Quantization/linear_w4a16",
    "category": "Quantization",
    "stem": "linear_w4a16",
    "entry": "linear_w4a16",
    "signature": "linear_w4a16(input: Tensor, weight: Tensor, bias: Tensor = None) -> Tensor",
    "description": (
        "Weight-only W4A16 linear layer: input (..., K) float16 activations, weight (N, K) and "
        "optional bias (N,) in float16, output (..., N) float16 = input @ weight^T + bias. The "
        "pipeline to implement: quantize each output channel (row of weight) symmetrically to int4 "
        "(scale = max|row| / 7, q = round(w / scale) clamped to [-8, 7]; an all-zero row gets "
        "zeros), pack two int4 values per byte (uint8 storage, low and high nibble), and compute "
        "the product from the packed weights, unpacking and dequantizing with the per-channel "
        "scales in the kernel, with float16 activations and float16 or float32 accumulation; the "
        "bias is added in floating point and the result is returned as float16. The result is "
        "judged against torch.nn.functional.linear on the original inputs (computed in float32, "
        "rounded to float16) with quantization-aware metrics (cosine similarity, relative L1, RMSE); "
        "high-level quantized PyTorch APIs are not allowed. Weights are drawn like a freshly "
        "initialized nn.Linear (uniform in +-1/sqrt(K))."
    ),
    "difficulty": 4,
    "comparison": "quantization",
    "tolerance": {
        "float64": [1e-3, 1e-3],
        "float32": [1e-3, 1e-3],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Not used for the verdict: comparison is by the spec's thresholds (cosine >= 0.9, relative "
        "L1 <= 0.1, RMSE <= 0.15). Per-channel round-to-nearest int4 of uniform (nn.Linear-like) "
        "weights gives relative L1 about 0.07 and RMSE about 0.04; Gaussian weights would give "
        "relative L1 about 0.12 with this fixed scheme (their tails waste int4 levels), which is "
        "why the cases use nn.Linear's uniform initialization."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": {
        "cosine_sim": 0.9,
        "l1_relative": 0.1,
        "rmse": 0.15,
        "static": {
            "forbid": ["torch.ao", "torch.quantization", "quantize_per_tensor", "quantize_per_channel",
                       "torch.nn.quantized", "fake_quantize", "_weight_int4pack_mm",
                       "_convert_weight_to_int4pack", "_weight_int8pack_mm", "torch._scaled_mm"],
            "require_any": [["round", "rint"], ["uint8", "int8"], [">>", "<<"], ["scale"]],
        },
    },
    "uniform": None,
    "perf_shapes": [
        {"name": "decode_1x4096x4096", "params": {"m": 1, "k": 4096, "n": 4096}},
        {"name": "decode_16x8192x8192", "params": {"m": 16, "k": 8192, "n": 8192}},
        {"name": "512x4096x4096", "params": {"m": 512, "k": 4096, "n": 4096}},
        {"name": "4096x4096x11008", "params": {"m": 4096, "k": 4096, "n": 11008}},
        {"name": "8192x8192x8192", "params": {"m": 8192, "k": 8192, "n": 8192}},
    ],
}


def reference(input, weight, bias=None):
    y = torch.nn.functional.linear(input.float(), weight.float(), None if bias is None else bias.float())
    return y.to(input.dtype)


def _w(g, n, k):
    b = 1.0 / math.sqrt(k)
    return g.rand(n, k, low=-b, high=b, dtype=torch.float16)


def _b(g, n):
    return (0.1 * g.randn(n)).to(torch.float16)


def _x(g, *shape, outlier=0.0):
    x = g.outlier(*shape, scale=outlier) if outlier else g.randn(*shape)
    return x.to(torch.float16)


def edge_cases(g):
    # weights on the int4 grid (one row entry at +-7 per row): quantization is exact
    q = g.randint(-7, 8, 24, 64).float()
    q[:, 0] = 7.0
    s = g.rand(24, 1, low=0.01, high=0.05)
    yield {"name": "exact_int4_grid", "args": (_x(g, 16, 64), (q * s).to(torch.float16), _b(g, 24)), "kwargs": {}}
    w = _w(g, 30, 48)
    w[7].zero_()
    yield {"name": "zero_weight_row_no_bias", "args": (_x(g, 20, 48), w), "kwargs": {}}
    yield {"name": "single_token_m1", "args": (_x(g, 1, 128), _w(g, 64, 128), _b(g, 64)), "kwargs": {}}
    yield {"name": "single_output_n1", "args": (_x(g, 24, 96), _w(g, 1, 96)), "kwargs": {"bias": _b(g, 1)}}
    yield {"name": "odd_k_33", "args": (_x(g, 17, 33), _w(g, 19, 33), _b(g, 19)), "kwargs": {}}
    yield {"name": "batched_3d_input", "args": (_x(g, 2, 9, 64), _w(g, 40, 64), _b(g, 40)), "kwargs": {}}
    # output channels of very different magnitude: only per-channel scales keep all of them
    cs = torch.logspace(-2, 0.5, 36, device=g.device).unsqueeze(1)
    yield {"name": "mixed_channel_magnitudes",
           "args": (_x(g, 40, 64), (_w(g, 36, 64).float() * cs).to(torch.float16)), "kwargs": {}}
    yield {"name": "non_contiguous_input", "args": (_x(g, 64, 30).t(), _w(g, 24, 64), _b(g, 24)), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_64x256x96", "args": (_x(g, 64, 256), _w(g, 96, 256), _b(g, 96)), "kwargs": {}}
    yield {"name": "randn_odd_37x100x45", "args": (_x(g, 37, 100), _w(g, 45, 100), _b(g, 45)), "kwargs": {}}
    yield {"name": "outlier_activations", "args": (_x(g, 64, 256, outlier=20.0), _w(g, 80, 256), _b(g, 80)),
           "kwargs": {}}
    yield {"name": "outlier_3d_no_bias", "args": (_x(g, 3, 21, 128, outlier=8.0), _w(g, 64, 128)), "kwargs": {}}
    yield {"name": "wide_k512", "args": (_x(g, 16, 512), _w(g, 71, 512), _b(g, 71)), "kwargs": {}}


def perf_inputs(g, params):
    m, k, n = params["m"], params["k"], params["n"]
    return (_x(g, m, k), _w(g, n, k), _b(g, n)), {}


def perf_cost(params):
    m, k, n = params["m"], params["k"], params["n"]
    # read float16 input (M, K), weight (N, K) and bias (N), write float16 (M, N)
    nbytes = 2 * (m * k + n * k + n + m * n)
    # 2*M*N*K multiply-adds; quantization ~5 ops per weight element, bias add per output
    flops = 2 * m * n * k + 5 * n * k + m * n
    return {"bytes": nbytes, "flops": flops}
