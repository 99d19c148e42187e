import math

import torch

META = {
    "id": "Activation/combined_activation",
    "category": "Activation",
    "stem": "combined_activation",
    "entry": "combined_activation",
    "signature": "combined_activation(input, weight1, weight2, bias, *, out=None) -> Tensor",
    "description": (
        "Computes Y = tanh(sigmoid(X @ W1)) * W2 + b. X has shape (*, N, D_in) with any number of "
        "leading batch dimensions (kept in the output), W1 is (D_in, D_out), W2 is broadcastable to the "
        "intermediate (*, N, D_out) and multiplies it element-wise, b is broadcastable to the output and "
        "added. All tensors share one floating dtype (float32, float16 or bfloat16), which is the output "
        "dtype; the product is expected to accumulate in float32 (TF32 allowed for float32 inputs). "
        "When out is given the result is written into it and returned."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [2e-2, 1e-2],
        "float16": [4e-3, 5e-3],
        "bfloat16": [2e-2, 2e-2],
    },
    "tolerance_note": (
        "TF32 allowed for float32: the error of X @ W1 (K <= 128, 10-bit mantissa) is damped by the "
        "activation chain (d tanh(sigmoid(z))/dz <= 0.25) and scaled by |W2| <= ~4, bounded by atol 2e-2; "
        "half precision products are exact in float32, so only about one output rounding is allowed. "
        "The reference is the float64 result cast back."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1Kx1Kx1K_f32", "params": {"x": [1024, 1024], "dout": 1024, "dtype": "float32"}},
        {"name": "4Kx4Kx4K_f32", "params": {"x": [4096, 4096], "dout": 4096, "dtype": "float32"}},
        {"name": "b8_2Kx1Kx4K_f16", "params": {"x": [8, 2048, 1024], "dout": 4096, "dtype": "float16"}},
        {"name": "b4_4Kx4Kx4K_bf16", "params": {"x": [4, 4096, 4096], "dout": 4096, "dtype": "bfloat16"}},
        {"name": "8Kx8Kx8K_bf16", "params": {"x": [8192, 8192], "dout": 8192, "dtype": "bfloat16"}},
    ],
}


def reference(input, weight1, weight2, bias, *, out=None):
    y = torch.tanh(torch.sigmoid(torch.matmul(input, weight1))) * weight2 + bias
    if out is not None:
        out.resize_(y.shape)
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    inf = float("inf")
    yield {"name": "2d_vector_w2_bias", "args": (g.randn(33, 40), g.randn(40, 24), g.randn(24), g.randn(24)),
           "kwargs": {}}
    yield {"name": "3d_full_w2_bias", "args": (g.randn(2, 17, 32), g.randn(32, 20), g.randn(2, 17, 20),
                                               g.randn(2, 17, 20)), "kwargs": {}}
    yield {"name": "4d_row_w2_scalar_bias", "args": (g.randn(2, 3, 9, 16), g.randn(16, 12), g.randn(9, 1),
                                                     g.randn(1)), "kwargs": {}}
    yield {"name": "batch_broadcast_w2", "args": (g.randn(3, 2, 10, 16), g.randn(16, 17), g.randn(2, 1, 17),
                                                  g.randn(3, 1, 1, 17)), "kwargs": {}}
    yield {"name": "saturating_logits", "args": (g.tensor([[100.0, -100.0], [1e4, -1e4], [inf, -inf]]),
                                                 g.tensor([[1.0, -1.0], [0.5, 2.0]]), g.tensor([1.0, 2.0]),
                                                 g.tensor([0.0, -1.0])), "kwargs": {}}
    yield {"name": "zero_input", "args": (g.tensor([[0.0] * 8] * 5), g.randn(8, 6), g.randn(6), g.randn(6)),
           "kwargs": {}}
    yield {"name": "k1_n1", "args": (g.randn(1, 1), g.randn(1, 7), g.randn(7), g.randn(7)), "kwargs": {}}
    yield {"name": "non_contiguous_w1", "args": (g.randn(20, 32), g.randn(24, 32).t(), g.randn(24), g.randn(24)),
           "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.randn(12, 16), g.randn(16, 16), g.randn(16), g.randn(16)),
           "kwargs": {"out": torch.empty(12, 16, device=g.device)}}


def random_cases(g):
    yield {"name": "randn_64x128x64", "args": (g.randn(64, 128), g.randn(128, 64) * 0.2, g.randn(64), g.randn(64)),
           "kwargs": {}}
    yield {"name": "randn_batched_odd", "args": (g.randn(3, 37, 50), g.randn(50, 45) * 0.2, g.randn(37, 45),
                                                 g.randn(45)), "kwargs": {}}
    yield {"name": "outlier_48x96x80", "args": (g.outlier(48, 96, scale=10.0), g.randn(96, 80) * 0.2,
                                                g.outlier(80, scale=10.0), g.randn(80)), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(4, 33, 64, dtype=torch.float16),
                                         (g.randn(64, 31) * 0.2).half(), g.randn(31, dtype=torch.float16),
                                         g.randn(31, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(50, 72, dtype=torch.bfloat16),
                                            (g.randn(72, 40) * 0.2).bfloat16(), g.randn(50, 40, dtype=torch.bfloat16),
                                            g.randn(40, dtype=torch.bfloat16)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["x"], dtype=dtype)
    k, n = params["x"][-1], params["dout"]
    w1 = (g.randn(k, n) / math.sqrt(k)).to(dtype)
    return (x, w1, g.randn(n, dtype=dtype), g.randn(n, dtype=dtype)), {}


def perf_cost(params):
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    m = 1
    for s in params["x"][:-1]:
        m *= s
    k, n = params["x"][-1], params["dout"]
    return {"bytes": (m * k + k * n + 2 * n + m * n) * es, "flops": 2 * m * n * k + 12 * m * n}
