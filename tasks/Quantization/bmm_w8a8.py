import math

import torch

META = {
    "id": "Quantization/bmm_w8a8",
    "category": "Quantization",
    "stem": "bmm_w8a8",
    "entry": "bmm_w8a8",
    "signature": "bmm_w8a8(input: Tensor, mat2: Tensor) -> Tensor",
    "description": (
        "W8A8 batched matrix product of float32 input (B, M, K) and float32 mat2 (B, K, N), giving "
        "a float32 (B, M, N) output. The pipeline to implement: quantize every row of each input "
        "matrix symmetrically to int8 (scale = max|row| / 127, q = round(x / scale) clamped to the "
        "int8 range), quantize every column of each mat2 matrix the same way, multiply the int8 "
        "matrices batch by batch with int32 accumulation, and dequantize the int32 result with the "
        "product of the row and column scales. All-zero rows or columns must give zeros, not NaN. "
        "The result is judged against the plain float torch.bmm(input, mat2) with quantization-aware "
        "metrics (cosine similarity, relative L1, RMSE); high-level quantized PyTorch APIs are not "
        "allowed. mat2 is scaled like a linear layer's weight (std about 1/sqrt(K)), so outputs are "
        "of order 1."
    ),
    "difficulty": 3,
    "comparison": "quantization",
    "tolerance": {
        "float64": [1e-3, 1e-3],
        "float32": [1e-3, 1e-3],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Not used for the verdict: comparison is by the spec's thresholds (cosine >= 0.95, relative "
        "L1 <= 0.05, RMSE <= 0.1); simulated per-row/per-column W8A8 stays far inside each threshold "
        "on every case, while one scale per tensor fails the mixed-magnitude cases."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": {
        "cosine_sim": 0.95,
        "l1_relative": 0.05,
        "rmse": 0.1,
        "static": {
            "forbid": ["torch._int_mm", "torch.ao", "torch.quantization", "quantize_per_tensor",
                       "quantize_per_channel", "_weight_int8pack_mm", "torch.nn.quantized",
                       "fake_quantize", "torch._scaled_mm"],
            "require_any": [["round", "rint"], ["int8"], ["int32"], ["scale"]],
        },
    },
    "uniform": None,
    "perf_shapes": [
        {"name": "8x256x256x256", "params": {"b": 8, "m": 256, "k": 256, "n": 256}},
        {"name": "32x512x512x512", "params": {"b": 32, "m": 512, "k": 512, "n": 512}},
        {"name": "16x1024x1024x1024", "params": {"b": 16, "m": 1024, "k": 1024, "n": 1024}},
        {"name": "64x2048x128x2048", "params": {"b": 64, "m": 2048, "k": 128, "n": 2048}},
        {"name": "8x4096x4096x4096", "params": {"b": 8, "m": 4096, "k": 4096, "n": 4096}},
    ],
}


def reference(input, mat2):
    return torch.bmm(input, mat2)


def _w(g, b, k, n, outlier=0.0):
    w = g.outlier(b, k, n, scale=outlier) if outlier else g.randn(b, k, n)
    return w / math.sqrt(k)


def edge_cases(g):
    # integers on the int8 grid with scales 1 and 2^-11: quantization is exact, so is the result
    x = g.randint(-127, 128, 3, 16, 64).float()
    x[:, :, 0] = 127.0
    w = g.randint(-127, 128, 3, 64, 24).float()
    w[:, 0, :] = -127.0
    yield {"name": "exact_int8_grid", "args": (x, w * 2.0 ** -11), "kwargs": {}}
    x = g.randn(2, 20, 48)
    x[0, 3].zero_()
    x[1, 11].zero_()
    w = _w(g, 2, 48, 30)
    w[1, :, 7] = 0.0
    yield {"name": "zero_rows_and_columns", "args": (x, w), "kwargs": {}}
    yield {"name": "batch1", "args": (g.randn(1, 33, 64), _w(g, 1, 64, 40)), "kwargs": {}}
    yield {"name": "m1_n1", "args": (g.randn(5, 1, 128), _w(g, 5, 128, 1)), "kwargs": {}}
    yield {"name": "short_k8", "args": (g.randn(2, 17, 8), _w(g, 2, 8, 19)), "kwargs": {}}
    # batches of very different magnitude: a scale per tensor (or per batch) loses the small ones
    bs = torch.tensor([1e-3, 1.0, 4.0], device=g.device).view(3, 1, 1)
    yield {"name": "batch_magnitudes", "args": (g.randn(3, 24, 64) * bs, _w(g, 3, 64, 32)), "kwargs": {}}
    # rows and columns of very different magnitude: only per-row/per-column scales keep all of them
    rs = torch.logspace(-3, 0.5, 40, device=g.device).view(1, 40, 1)
    cs = torch.logspace(-2, 0.5, 36, device=g.device).view(1, 1, 36)
    yield {"name": "mixed_row_col_magnitudes", "args": (g.randn(2, 40, 64) * rs, _w(g, 2, 64, 36) * cs),
           "kwargs": {}}
    yield {"name": "non_contiguous_transposed",
           "args": (g.randn(2, 30, 48).transpose(1, 2), _w(g, 2, 40, 30).transpose(1, 2)), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_4x64x128x64", "args": (g.randn(4, 64, 128), _w(g, 4, 128, 64)), "kwargs": {}}
    yield {"name": "randn_odd_3x37x100x45", "args": (g.randn(3, 37, 100), _w(g, 3, 100, 45)), "kwargs": {}}
    yield {"name": "outlier_activations", "args": (g.outlier(2, 64, 256, scale=20.0), _w(g, 2, 256, 48)),
           "kwargs": {}}
    yield {"name": "outlier_mat2_odd", "args": (g.randn(3, 33, 96), _w(g, 3, 96, 71, outlier=20.0)),
           "kwargs": {}}
    yield {"name": "outlier_both", "args": (g.outlier(5, 21, 64, scale=8.0), _w(g, 5, 64, 40, outlier=8.0)),
           "kwargs": {}}


def perf_inputs(g, params):
    b, m, k, n = params["b"], params["m"], params["k"], params["n"]
    return (g.randn(b, m, k), _w(g, b, k, n)), {}


def perf_cost(params):
    b, m, k, n = params["b"], params["m"], params["k"], params["n"]
    # read float32 input (B, M, K) and mat2 (B, K, N) once, write the float32 (B, M, N) output once
    nbytes = 4 * b * (m * k + k * n + m * n)
    # 2*M*N*K int8 multiply-adds per batch; quantization ~5 ops per input element (abs, max,
    # divide, round, clamp) for both operands; dequantization 2 per output element
    flops = b * (2 * m * n * k + 5 * (m * k + k * n) + 2 * m * n)
    return {"bytes": nbytes, "flops": flops}
