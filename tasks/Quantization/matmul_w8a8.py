import math

import torch

META = {
    "id": "Quantization/matmul_w8a8",
    "category": "Quantization",
    "stem": "matmul_w8a8",
    "entry": "matmul_w8a8",
    "signature": "matmul_w8a8(input: Tensor, weight: Tensor) -> Tensor",
    "description": (
        "W8A8 matrix product of float32 activations input (M, K) (or (..., K), every leading index "
        "being one row) and float32 weights weight (K, N). The pipeline to implement: quantize each "
        "activation row symmetrically to int8 (scale = max|row| / 127, q = round(x / scale) clamped "
        "to the int8 range), quantize each weight output channel (column of weight) the same way, "
        "multiply the int8 matrices with int32 accumulation, and dequantize the int32 result with "
        "the product of the row and column scales into a float32 (..., N) output. All-zero rows or "
        "columns must give zeros, not NaN. The result is judged against the plain float product "
        "input @ weight with quantization-aware metrics (cosine similarity, relative L1, RMSE); "
        "high-level quantized PyTorch APIs are not allowed. Weights are scaled like a linear layer "
        "(std about 1/sqrt(K)), so outputs are of order 1."
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
        "L1 <= 0.05, RMSE <= 0.1); simulated per-row/per-channel W8A8 stays within half of each "
        "threshold on every case, while a per-tensor scale fails the outlier cases."
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
        {"name": "512x512x512", "params": {"m": 512, "k": 512, "n": 512}},
        {"name": "2048x2048x2048", "params": {"m": 2048, "k": 2048, "n": 2048}},
        {"name": "tokens_8192x4096x4096", "params": {"m": 8192, "k": 4096, "n": 4096}},
        {"name": "decode_16x8192x8192", "params": {"m": 16, "k": 8192, "n": 8192}},
        {"name": "8192x8192x8192", "params": {"m": 8192, "k": 8192, "n": 8192}},
    ],
}


def reference(input, weight):
    return torch.matmul(input, weight)


def _w(g, k, n, outlier=0.0):
    w = g.outlier(k, n, scale=outlier) if outlier else g.randn(k, n)
    return w / math.sqrt(k)


def edge_cases(g):
    # integers on the int8 grid with scales 1 and 2^-11: quantization is exact, so is the result
    x = g.randint(-127, 128, 16, 64).float()
    x[:, 0] = 127.0
    w = g.randint(-127, 128, 64, 24).float()
    w[0, :] = -127.0
    yield {"name": "exact_int8_grid", "args": (x, w * 2.0 ** -11), "kwargs": {}}
    x = g.randn(20, 48)
    x[3].zero_()
    x[11].zero_()
    w = _w(g, 48, 30)
    w[:, 7] = 0.0
    yield {"name": "zero_rows_and_columns", "args": (x, w), "kwargs": {}}
    yield {"name": "single_token_m1", "args": (g.randn(1, 128), _w(g, 128, 64)), "kwargs": {}}
    yield {"name": "single_output_n1", "args": (g.randn(24, 96), _w(g, 96, 1)), "kwargs": {}}
    yield {"name": "short_k8", "args": (g.randn(17, 8), _w(g, 8, 19)), "kwargs": {}}
    yield {"name": "batched_3d_input", "args": (g.randn(2, 9, 64), _w(g, 64, 40)), "kwargs": {}}
    # one dominant activation per row: the per-row scale follows it
    x = g.randn(32, 64) * 0.1
    x[torch.arange(32), g.randint(0, 64, 32)] = 4.0
    yield {"name": "row_spikes", "args": (x, _w(g, 64, 48)), "kwargs": {}}
    # rows and columns of very different magnitude: only per-row/per-channel scales keep all of them
    rs = torch.logspace(-3, 0.5, 40, device=g.device).unsqueeze(1)
    cs = torch.logspace(-2, 0.5, 36, device=g.device).unsqueeze(0)
    yield {"name": "mixed_row_col_magnitudes", "args": (g.randn(40, 64) * rs, _w(g, 64, 36) * cs), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_64x256x96", "args": (g.randn(64, 256), _w(g, 256, 96)), "kwargs": {}}
    yield {"name": "randn_odd_37x100x45", "args": (g.randn(37, 100), _w(g, 100, 45)), "kwargs": {}}
    # outlier scale 20: per-row/per-channel scales stay well inside the thresholds, a single
    # per-tensor scale does not
    yield {"name": "outlier_activations", "args": (g.outlier(64, 256, scale=20.0), _w(g, 256, 80)),
           "kwargs": {}}
    yield {"name": "outlier_weights_odd", "args": (g.randn(48, 200), _w(g, 200, 71, outlier=20.0)),
           "kwargs": {}}
    yield {"name": "outlier_both_3d", "args": (g.outlier(3, 21, 128, scale=8.0), _w(g, 128, 64, outlier=8.0)),
           "kwargs": {}}


def perf_inputs(g, params):
    m, k, n = params["m"], params["k"], params["n"]
    return (g.randn(m, k), _w(g, k, n)), {}


def perf_cost(params):
    m, k, n = params["m"], params["k"], params["n"]
    # read float32 input (M, K) and weight (K, N) once, write the float32 (M, N) output once
    nbytes = 4 * (m * k + k * n + m * n)
    # 2*M*N*K multiply-adds (int8 x int8 -> int32, counted as useful ops); quantization ~5 per input
    # element (abs, max, divide, round, clamp) for activations and weights; dequantization 2 per output
    flops = 2 * m * n * k + 5 * (m * k + k * n) + 2 * m * n
    return {"bytes": nbytes, "flops": flops}
