import torch

META = {
    "id": "MatrixMultiply/matmul",
    "category": "MatrixMultiply",
    "stem": "matmul",
    "entry": "matmul",
    "signature": "matmul(input, other, *, out=None) -> Tensor",
    "description": (
        "Matrix product with torch.matmul's dimension rules: 1-D x 1-D is a dot product (0-d result); "
        "2-D x 2-D is a matrix product; a 1-D first argument is treated as a row vector and a 1-D "
        "second argument as a column vector, the added dimension being removed from the result; with "
        "more than two dimensions the leading (batch) dimensions broadcast against each other and a "
        "batched matrix product is taken. Both operands share a floating dtype (float32, float16 or "
        "bfloat16), which is also the output dtype; accumulation in float32 is expected, and float32 "
        "inputs may use TF32 tensor-core products."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [3e-2, 1e-2],
        "float16": [1e-2, 1e-2],
        "bfloat16": [2e-2, 1e-2],
    },
    "tolerance_note": (
        "TF32 allowed for float32 (10-bit mantissa, inputs possibly truncated rather than rounded): "
        "emulated over 60 seeds, truncated-TF32 products with N(0,1) data and K <= 256 stay below 2/3 "
        "of atol 3e-2 + rtol 1e-2 against the exact float64 product; half precision inputs are exact "
        "in the dot, so float16/bfloat16 allow about one ulp of the rounded output."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "512_f32", "params": {"a": [512, 512], "b": [512, 512], "dtype": "float32"}},
        {"name": "2048_f32", "params": {"a": [2048, 2048], "b": [2048, 2048], "dtype": "float32"}},
        {"name": "4096_f16", "params": {"a": [4096, 4096], "b": [4096, 4096], "dtype": "float16"}},
        {"name": "batched_32x512_bf16",
         "params": {"a": [32, 512, 512], "b": [32, 512, 512], "dtype": "bfloat16"}},
        {"name": "8192_bf16", "params": {"a": [8192, 8192], "b": [8192, 8192], "dtype": "bfloat16"}},
    ],
}


def reference(input, other, *, out=None):
    if out is not None:
        return torch.matmul(input, other, out=out)
    return torch.matmul(input, other)


def edge_cases(g):
    yield {"name": "dot_1d_1d", "args": (g.randn(100), g.randn(100)), "kwargs": {}}
    yield {"name": "vec_mat_1d_2d", "args": (g.randn(50), g.randn(50, 33)), "kwargs": {}}
    yield {"name": "mat_vec_2d_1d", "args": (g.randn(33, 50), g.randn(50)), "kwargs": {}}
    yield {"name": "vec_batched_1d_3d", "args": (g.randn(24), g.randn(3, 24, 10)), "kwargs": {}}
    yield {"name": "batched_3d_3d", "args": (g.randn(2, 17, 40), g.randn(2, 40, 23)), "kwargs": {}}
    yield {"name": "broadcast_3d_2d", "args": (g.randn(3, 20, 32), g.randn(32, 18)), "kwargs": {}}
    yield {"name": "broadcast_2d_3d", "args": (g.randn(20, 32), g.randn(3, 32, 18)), "kwargs": {}}
    yield {"name": "broadcast_4d", "args": (g.randn(2, 1, 9, 16), g.randn(1, 3, 16, 12)), "kwargs": {}}
    yield {"name": "outer_k1", "args": (g.randn(31, 1), g.randn(1, 29)), "kwargs": {}}
    yield {"name": "row_times_matrix_m1", "args": (g.randn(1, 64), g.randn(64, 40)), "kwargs": {}}
    yield {"name": "identity", "args": (g.randn(48, 48), torch.eye(48, device=g.device)), "kwargs": {}}
    yield {"name": "zeros", "args": (g.tensor([[0.0] * 20] * 10), g.randn(20, 30)), "kwargs": {}}
    yield {"name": "small_integers_exact",
           "args": (g.randint(-4, 5, 24, 40).float(), g.randint(-4, 5, 40, 19).float()), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_64x256x64", "args": (g.randn(64, 256), g.randn(256, 64)), "kwargs": {}}
    yield {"name": "randn_odd_37x100x45", "args": (g.randn(37, 100), g.randn(100, 45)), "kwargs": {}}
    # float32 outliers are kept moderate (x10): a TF32 product of a x50 outlier that cancels
    # against the rest of its row can legitimately miss by ~0.08, beyond any useful atol
    yield {"name": "outlier_48x128x80", "args": (g.outlier(48, 128, scale=10.0),
                                                 g.outlier(128, 80, scale=10.0)), "kwargs": {}}
    yield {"name": "outlier_batched_odd_f16",
           "args": (g.outlier(4, 33, 64, p=1e-2, dtype=torch.float16),
                    g.randn(4, 64, 31, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 128, dtype=torch.float16),
                                         g.randn(128, 96, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "randn_bf16_odd", "args": (g.randn(50, 200, dtype=torch.bfloat16),
                                              g.randn(200, 70, dtype=torch.bfloat16)), "kwargs": {}}
    yield {"name": "outlier_f16_broadcast", "args": (g.outlier(2, 40, 72, dtype=torch.float16),
                                                     g.randn(72, 56, dtype=torch.float16)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["a"], dtype=dtype), g.randn(*params["b"], dtype=dtype)), {}


def perf_cost(params):
    a, b = list(params["a"]), list(params["b"])
    m, k, n = a[-2], a[-1], b[-1]
    ba, bb = a[:-2], b[:-2]
    batch = []  # broadcast batch dims of the two operands
    for i in range(max(len(ba), len(bb))):
        x = ba[i - max(len(ba), len(bb)) + len(ba)] if i >= max(len(ba), len(bb)) - len(ba) else 1
        y = bb[i - max(len(ba), len(bb)) + len(bb)] if i >= max(len(ba), len(bb)) - len(bb) else 1
        batch.append(max(x, y))
    nb = 1
    for s in batch:
        nb *= s
    na = 1
    for s in a:
        na *= s
    nbm = 1
    for s in b:
        nbm *= s
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read A and B once, write C = A @ B once; 2*M*N*K FLOPs per (broadcast) batch entry
    return {"bytes": (na + nbm + nb * m * n) * es, "flops": 2 * nb * m * n * k}
