import torch

META = {
    "id": "MatrixMultiply/tril_mm_and_scale",
    "category": "MatrixMultiply",
    "stem": "tril_mm_and_scale",
    "entry": "tril_mm_and_scale",
    "signature": ("def tril_mm_and_scale(A: torch.Tensor, B: torch.Tensor, alpha: float, beta: float) "
                  "-> torch.Tensor:"),
    "description": (
        "Product of the lower-triangular part of a square matrix A (n, n) (the diagonal included, "
        "everything above it taken as zero) with B (n, p), scaled by alpha and then by beta: "
        "beta * (alpha * (tril(A) @ B)). A and B share a floating dtype (float32, float16 or "
        "bfloat16), which is the output dtype; the output has shape (n, p). Entries of A above the "
        "diagonal must not influence the result, whatever they hold (even inf or NaN). Accumulation "
        "in float32 is expected; float32 inputs may use TF32 tensor-core products."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [3e-2, 1e-2],
        "float16": [1e-2, 1e-2],
        "bfloat16": [2e-2, 1e-2],
    },
    "tolerance_note": (
        "TF32 allowed for float32 (10-bit mantissa, inputs possibly truncated): a truncated-TF32 "
        "emulation of every case over 20 seeds stays below 0.4 of atol 3e-2 + rtol 1e-2 against the "
        "exact float64 result (|alpha*beta| <= 1.5, n <= 160); float16/bfloat16 allow about one ulp "
        "of the rounded output."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_cost_note": "Only the lower triangle of A (n(n+1)/2 entries) needs to be read; the upper one never matters.",
    "perf_shapes": [
        {"name": "512x512_f32", "params": {"n": 512, "p": 512, "dtype": "float32"}},
        {"name": "2048x2048_f32", "params": {"n": 2048, "p": 2048, "dtype": "float32"}},
        {"name": "4096x4096_f16", "params": {"n": 4096, "p": 4096, "dtype": "float16"}},
        {"name": "4096x256_f32", "params": {"n": 4096, "p": 256, "dtype": "float32"}},
        {"name": "8192x8192_bf16", "params": {"n": 8192, "p": 8192, "dtype": "bfloat16"}},
    ],
}


def reference(A, B, alpha, beta):
    return beta * (alpha * torch.mm(torch.tril(A), B))


def edge_cases(g):
    # only the lower triangle may be read: the upper one holds inf/NaN here
    A = g.randn(40, 40)
    iu = torch.triu_indices(40, 40, offset=1, device=g.device)
    A[iu[0], iu[1]] = float("nan")
    A[0, 39] = float("inf")
    yield {"name": "upper_triangle_nan_inf", "args": (A, g.randn(40, 24), 1.0, 1.0), "kwargs": {}}
    yield {"name": "n1", "args": (g.randn(1, 1), g.randn(1, 33), 2.0, -0.5), "kwargs": {}}
    yield {"name": "p1", "args": (g.randn(64, 64), g.randn(64, 1), 0.5, 1.5), "kwargs": {}}
    yield {"name": "alpha_zero", "args": (g.randn(20, 20), g.randn(20, 9), 0.0, 3.0), "kwargs": {}}
    yield {"name": "beta_zero", "args": (g.randn(20, 20), g.randn(20, 9), 3.0, 0.0), "kwargs": {}}
    yield {"name": "identity", "args": (torch.eye(48, device=g.device), g.randn(48, 17), 1.0, 1.0), "kwargs": {}}
    yield {"name": "ones_integer_exact",
           "args": (g.tensor([[1.0] * 33] * 33), g.randint(-3, 4, 33, 20).float(), -1.0, 0.5), "kwargs": {}}
    yield {"name": "non_contiguous_transposed",
           "args": (g.randn(50, 50).t(), g.randn(30, 50).t(), 0.75, 1.25), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_128x64", "args": (g.randn(128, 128), g.randn(128, 64), 1.5, 0.5), "kwargs": {}}
    yield {"name": "randn_odd_97x45", "args": (g.randn(97, 97), g.randn(97, 45), -0.7, 1.3), "kwargs": {}}
    yield {"name": "outlier_80x80", "args": (g.outlier(80, 80, scale=10.0), g.outlier(80, 80, scale=10.0),
                                             1.0, 1.0), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(96, 96, dtype=torch.float16),
                                         g.randn(96, 64, dtype=torch.float16), 0.5, 0.5), "kwargs": {}}
    yield {"name": "outlier_bf16_odd", "args": (g.outlier(71, 71, p=1e-2, dtype=torch.bfloat16),
                                                g.randn(71, 50, dtype=torch.bfloat16), 1.0, -1.0), "kwargs": {}}
    yield {"name": "randn_160x32", "args": (g.randn(160, 160), g.randn(160, 32), 1.0, 0.25), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    n, p = params["n"], params["p"]
    return (g.randn(n, n, dtype=dtype), g.randn(n, p, dtype=dtype), 1.5, 0.5), {}


def perf_cost(params):
    n, p = params["n"], params["p"]
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read the lower triangle of A (n(n+1)/2), read B, write the (n, p) output;
    # n(n+1)/2 * p multiply-adds (only the triangle is useful), plus 2 scalings per output
    perf_tri = n * (n + 1) // 2
    return {"bytes": (perf_tri + 2 * n * p) * es, "flops": 2 * perf_tri * p + 2 * n * p}
