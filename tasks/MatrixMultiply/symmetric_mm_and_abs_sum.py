import math

import torch

META = {
    "id": "MatrixMultiply/symmetric_mm_and_abs_sum",
    "category": "MatrixMultiply",
    "stem": "symmetric_mm_and_abs_sum",
    "entry": "symmetric_mm_and_abs_sum",
    "signature": ("symmetric_mm_and_abs_sum(A: torch.Tensor, C: torch.Tensor, alpha: float, beta: float) "
                  "-> torch.Tensor"),
    "description": (
        "With A (n, m) and C (n, n): form alpha * (A @ A^T) + beta * C and return the sum of the "
        "absolute values of all its entries as a 0-dimensional tensor of A's dtype (float32, "
        "float16 or bfloat16). The (n, n) matrix is an intermediate only; the C passed in is not "
        "modified. Accumulation in float32 is expected (products and the final sum); float32 inputs "
        "may use TF32 tensor-core products."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-2, 2e-3],
        "float16": [1e-2, 5e-3],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "The result is a sum of n*n absolute values, so per-entry TF32 errors (about 1e-3 relative) "
        "largely average out: a truncated-TF32 emulation over 20 seeds stays below 0.4 of atol 1e-2 + rtol 2e-3 "
        "against the exact float64 sum; float16/bfloat16 allow about 2 ulps of the rounded scalar "
        "(float32 accumulation of the sum is assumed)."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "512x512_f32", "params": {"n": 512, "m": 512, "dtype": "float32"}},
        {"name": "2048x2048_f32", "params": {"n": 2048, "m": 2048, "dtype": "float32"}},
        {"name": "4096x1024_f16", "params": {"n": 4096, "m": 1024, "dtype": "float16"}},
        {"name": "8192x256_f32", "params": {"n": 8192, "m": 256, "dtype": "float32"}},
        {"name": "8192x8192_bf16", "params": {"n": 8192, "m": 8192, "dtype": "bfloat16"}},
    ],
}


def reference(A, C, alpha, beta):
    C = alpha * torch.mm(A, A.T) + beta * C
    return torch.sum(torch.abs(C))


def _a(g, n, m, dtype=torch.float32, outlier=0.0):
    # scaled so that A @ A^T has entries of order 1 (keeps float16 sums far from overflow)
    a = g.outlier(n, m, scale=outlier) if outlier else g.randn(n, m)
    return (a / math.sqrt(m)).to(dtype)


def edge_cases(g):
    yield {"name": "n1_m1", "args": (g.tensor([[3.0]]), g.tensor([[-2.0]]), 0.5, 2.0), "kwargs": {}}
    yield {"name": "alpha_zero", "args": (_a(g, 20, 30), g.randn(20, 20), 0.0, -1.5), "kwargs": {}}
    yield {"name": "beta_zero", "args": (_a(g, 20, 30), g.randn(20, 20), 2.0, 0.0), "kwargs": {}}
    # beta * C = -alpha * A A^T exactly: the matrix cancels to zero (integers, exact even in TF32)
    A = g.randint(-3, 4, 24, 16).float()
    yield {"name": "exact_cancellation_to_zero", "args": (A, A @ A.T, 1.0, -1.0), "kwargs": {}}
    yield {"name": "small_integers_exact",
           "args": (g.randint(-3, 4, 33, 17).float(), g.randint(-5, 6, 33, 33).float(), 2.0, 0.5), "kwargs": {}}
    yield {"name": "m1_rank_one", "args": (g.randn(40, 1), g.randn(40, 40), 1.0, 1.0), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (_a(g, 48, 30).t(), g.randn(30, 30).t(), 1.0, 0.5),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_64x128", "args": (_a(g, 64, 128), g.randn(64, 64), 1.0, 0.5), "kwargs": {}}
    yield {"name": "randn_odd_77x45", "args": (_a(g, 77, 45), g.randn(77, 77), -1.5, 1.0), "kwargs": {}}
    yield {"name": "outlier_96x96", "args": (_a(g, 96, 96, outlier=10.0), g.outlier(96, 96, scale=10.0),
                                             0.5, 0.5), "kwargs": {}}
    yield {"name": "randn_f16", "args": (_a(g, 64, 96, torch.float16), g.randn(64, 64, dtype=torch.float16),
                                         1.0, 0.25), "kwargs": {}}
    yield {"name": "randn_bf16_odd", "args": (_a(g, 50, 70, torch.bfloat16),
                                              g.randn(50, 50, dtype=torch.bfloat16), 1.0, -1.0), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    n, m = params["n"], params["m"]
    return (_a(g, n, m, dtype), g.randn(n, n, dtype=dtype), 1.0, 0.5), {}


def perf_cost(params):
    n, m = params["n"], params["m"]
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read A (n, m) and C (n, n), write one scalar; 2*n*n*m for A A^T, then per entry
    # scale, scale-add, abs and sum (5)
    return {"bytes": (n * m + n * n + 1) * es, "flops": 2 * n * n * m + 5 * n * n}
