import torch

META = {
    "id": "MatrixMultiply/matmul_fp16",
    "category": "MatrixMultiply",
    "stem": "matmul_fp16",
    "entry": "matmul_fp16",
    "signature": "matmul_fp16(input: Tensor, other: Tensor) -> Tensor",
    "description": (
        "Half precision matrix product: input and other are torch.float16 and so is the result, "
        "with torch.matmul's shape rules for the tested shapes (2-D x 2-D, batched 3-D x 3-D, and a "
        "3-D batch times a shared 2-D matrix). Products must be accumulated in float32 and rounded to "
        "float16 only once at the end: partial sums that would overflow float16 or lose low-order "
        "bits in a float16 accumulator must not affect the result."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-5, 1e-5],
        "float16": [1e-2, 1e-2],
        "bfloat16": [2e-2, 1e-2],
    },
    "tolerance_note": (
        "float16 products are exact in float32, so an fp32-accumulating kernel lands within about one "
        "ulp of the exactly rounded float64 result (rtol 1e-2 is ~10 ulp); the edge cases are built "
        "so that a float16 accumulator misses by far more."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "512", "params": {"a": [512, 512], "b": [512, 512]}},
        {"name": "2048", "params": {"a": [2048, 2048], "b": [2048, 2048]}},
        {"name": "4096", "params": {"a": [4096, 4096], "b": [4096, 4096]}},
        {"name": "tokens_16384x4096x1024", "params": {"a": [16384, 4096], "b": [4096, 1024]}},
        {"name": "batched_64x512", "params": {"a": [64, 512, 512], "b": [64, 512, 512]}},
        {"name": "8192", "params": {"a": [8192, 8192], "b": [8192, 8192]}},
    ],
}


def reference(input, other):
    return torch.matmul(input, other)


def edge_cases(g):
    h = torch.float16
    # every partial sum over a prefix of 2..32 products exceeds 65504 before the second half of
    # the row cancels it to exactly 0, so even a blockwise float16 accumulator overflows
    a = g.tensor([[300.0] * 32 + [-300.0] * 32] * 16, dtype=h)
    b = g.tensor([[300.0] * 16] * 64, dtype=h)
    yield {"name": "fp32_accumulation_overflow", "args": (a, b), "kwargs": {}}
    # 2048 + 511 * 1: a float16 accumulator is stuck at 2048 (ulp 2), the true sum rounds to 2560
    row = [2048.0] + [1.0] * 511
    yield {"name": "fp32_accumulation_precision",
           "args": (g.tensor([row] * 16, dtype=h), g.tensor([[1.0] * 16] * 512, dtype=h)), "kwargs": {}}
    yield {"name": "result_overflows_to_inf",
           "args": (g.tensor([[200.0] * 32] * 16, dtype=h), g.tensor([[20.0] * 16] * 32, dtype=h)),
           "kwargs": {}}
    yield {"name": "odd_small_3x5x7", "args": (g.randn(3, 5, dtype=h), g.randn(5, 7, dtype=h)), "kwargs": {}}
    yield {"name": "single_row", "args": (g.randn(1, 96, dtype=h), g.randn(96, 40, dtype=h)), "kwargs": {}}
    yield {"name": "identity", "args": (g.randn(48, 48, dtype=h), torch.eye(48, dtype=h, device=g.device)),
           "kwargs": {}}
    yield {"name": "zeros", "args": (g.randn(20, 30, dtype=h), torch.zeros(30, 10, dtype=h, device=g.device)),
           "kwargs": {}}


def random_cases(g):
    h = torch.float16
    yield {"name": "randn_64x384x64", "args": (g.randn(64, 384, dtype=h), g.randn(384, 64, dtype=h)),
           "kwargs": {}}
    yield {"name": "randn_odd_37x100x45", "args": (g.randn(37, 100, dtype=h), g.randn(100, 45, dtype=h)),
           "kwargs": {}}
    yield {"name": "outlier_48x256x80", "args": (g.outlier(48, 256, dtype=h), g.outlier(256, 80, dtype=h)),
           "kwargs": {}}
    yield {"name": "batched_3d", "args": (g.randn(4, 33, 64, dtype=h), g.randn(4, 64, 31, dtype=h)),
           "kwargs": {}}
    yield {"name": "outlier_batched_shared_2d",
           "args": (g.outlier(3, 40, 72, p=1e-2, dtype=h), g.randn(72, 56, dtype=h)), "kwargs": {}}


def perf_inputs(g, params):
    return (g.randn(*params["a"], dtype=torch.float16), g.randn(*params["b"], dtype=torch.float16)), {}


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
    es = 2  # float16 operands and result
    # read A and B once, write C = A @ B once; 2*M*N*K FLOPs per (broadcast) batch entry
    return {"bytes": (na + nbm + nb * m * n) * es, "flops": 2 * nb * m * n * k}
