import torch

META = {
    "id": "MatrixMultiply/matmul_bf16",
    "category": "MatrixMultiply",
    "stem": "matmul_bf16",
    "entry": "matmul_bf16",
    "signature": "matmul_bf16(input: Tensor, other: Tensor) -> Tensor",
    "description": (
        "Matrix product of two bfloat16 tensors with a bfloat16 result: input (M, K) times other "
        "(K, N) gives (M, N); 3-D operands (B, M, K) x (B, K, N) give a batched product, and a 2-D "
        "operand is broadcast against a 3-D one as in torch.matmul. Products are accumulated in "
        "float32 and rounded to bfloat16 once, at the store."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-4, 1e-4],
        "float16": [1e-2, 1e-2],
        "bfloat16": [1e-2, 1e-2],
    },
    "tolerance_note": (
        "The reference is the exact (float64) product rounded to bfloat16; bf16 x bf16 products are "
        "exact in float32 and the float32 sum over K <= 256 is off by ~1e-6 relative, so a correct "
        "kernel is within one bf16 rounding (2^-8 relative) of it: rtol 1e-2 with atol 1e-2 for "
        "results that cancel to near zero."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "512", "params": {"a": [512, 512], "b": [512, 512]}},
        {"name": "2048", "params": {"a": [2048, 2048], "b": [2048, 2048]}},
        {"name": "4096", "params": {"a": [4096, 4096], "b": [4096, 4096]}},
        {"name": "batched_32x1024", "params": {"a": [32, 1024, 1024], "b": [32, 1024, 1024]}},
        {"name": "8192", "params": {"a": [8192, 8192], "b": [8192, 8192]}},
    ],
}

BF = torch.bfloat16


def reference(input, other):
    return torch.matmul(input, other)


def edge_cases(g):
    yield {"name": "outer_k1", "args": (g.randn(31, 1, dtype=BF), g.randn(1, 29, dtype=BF)), "kwargs": {}}
    yield {"name": "row_m1", "args": (g.randn(1, 64, dtype=BF), g.randn(64, 40, dtype=BF)), "kwargs": {}}
    yield {"name": "column_n1", "args": (g.randn(45, 64, dtype=BF), g.randn(64, 1, dtype=BF)), "kwargs": {}}
    yield {"name": "identity", "args": (g.randn(48, 48, dtype=BF), torch.eye(48, device=g.device, dtype=BF)),
           "kwargs": {}}
    yield {"name": "zeros", "args": (g.tensor([[0.0] * 20] * 10, dtype=BF), g.randn(20, 30, dtype=BF)),
           "kwargs": {}}
    yield {"name": "small_integers_exact",
           "args": (g.randint(-4, 5, 24, 40).to(BF), g.randint(-4, 5, 40, 19).to(BF)), "kwargs": {}}
    yield {"name": "large_magnitude",
           "args": (g.randn(16, 32, dtype=BF) * 1e10, g.randn(32, 16, dtype=BF) * 1e10), "kwargs": {}}
    yield {"name": "batched_3d", "args": (g.randn(3, 17, 40, dtype=BF), g.randn(3, 40, 23, dtype=BF)),
           "kwargs": {}}
    yield {"name": "broadcast_3d_2d", "args": (g.randn(2, 20, 32, dtype=BF), g.randn(32, 18, dtype=BF)),
           "kwargs": {}}
    yield {"name": "non_contiguous_transposed",
           "args": (g.randn(40, 24, dtype=BF).t(), g.randn(33, 40, dtype=BF).t()), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_64x256x64", "args": (g.randn(64, 256, dtype=BF), g.randn(256, 64, dtype=BF)),
           "kwargs": {}}
    yield {"name": "randn_odd_37x100x45", "args": (g.randn(37, 100, dtype=BF), g.randn(100, 45, dtype=BF)),
           "kwargs": {}}
    yield {"name": "outlier_48x128x80", "args": (g.outlier(48, 128, dtype=BF), g.outlier(128, 80, dtype=BF)),
           "kwargs": {}}
    yield {"name": "outlier_batched_odd",
           "args": (g.outlier(4, 33, 64, p=1e-2, dtype=BF), g.randn(4, 64, 31, dtype=BF)), "kwargs": {}}


def perf_inputs(g, params):
    return (g.randn(*params["a"], dtype=BF), g.randn(*params["b"], dtype=BF)), {}


def perf_cost(params):
    a, b = params["a"], params["b"]
    M, K, N = a[-2], a[-1], b[-1]
    batch = a[0] if len(a) == 3 else (b[0] if len(b) == 3 else 1)
    ab = batch if len(a) == 3 else 1
    bb = batch if len(b) == 3 else 1
    return {"bytes": 2 * (ab * M * K + bb * K * N + batch * M * N), "flops": 2 * batch * M * N * K}
