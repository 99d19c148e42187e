import torch

META = {
    "id": "MatrixMultiply/matrix_multiply_and_row_dot",
    "category": "MatrixMultiply",
    "stem": "matrix_multiply_and_row_dot",
    "entry": "matrix_multiply_and_row_dot",
    "signature": ("def matrix_multiply_and_row_dot(A: torch.Tensor, B: torch.Tensor, alpha: float, beta: float, "
                  "C: torch.Tensor) -> torch.Tensor:"),
    "description": (
        "Forms D = alpha * (A @ B) + beta * C for A (n, m), B (m, p), C (n, p) with n >= 2 and returns "
        "the dot product of the first two rows of D, D[0] . D[1], as a 0-d tensor of the common "
        "input dtype. C is an input only: it must not be modified (the update is a new matrix). "
        "Only rows 0 and 1 of D influence the result."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-3, 1e-4],
        "float16": [5e-2, 1e-2],
        "bfloat16": [2e-1, 2e-2],
    },
    "perf_cost_note": 'Only rows 0 and 1 of A and C and all of B are needed for dot(D[0], D[1]); the other rows are never read.',
    "tolerance_note": (
        "Judged against a float64 oracle: a dot product of two rows whose entries are sums of m "
        "products, so float32 accumulation leaves ~1e-6 relative error (rtol 1e-4, atol 1e-3 for "
        "results that cancel); half precision cases may round the two rows to the storage dtype "
        "before the dot, a few ulp of the terms times sqrt(p)."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1024", "params": {"n": 1024, "m": 1024, "p": 1024}},
        {"name": "4096", "params": {"n": 4096, "m": 4096, "p": 4096}},
        {"name": "wide_2048x8192", "params": {"n": 2048, "m": 2048, "p": 8192}},
        {"name": "8192_bf16", "params": {"n": 8192, "m": 8192, "p": 8192, "dtype": "bfloat16"}},
    ],
}


def reference(A, B, alpha, beta, C):
    D = alpha * torch.mm(A, B) + beta * C
    return torch.dot(D[0], D[1])


def _case(name, A, B, alpha, beta, C):
    return {"name": name, "args": (A, B, alpha, beta, C), "kwargs": {}}


def edge_cases(g):
    yield _case("two_rows_k1_p1", g.tensor([[2.0], [3.0]]), g.tensor([[1.5]]), 1.0, 0.5, g.tensor([[1.0], [-2.0]]))
    yield _case("beta0", g.randn(4, 20), g.randn(20, 30), 1.0, 0.0, g.randn(4, 30))
    yield _case("alpha0_rows_of_C", g.randn(5, 8), g.randn(8, 33), 0.0, 2.0, g.randn(5, 33))
    yield _case("orthogonal_rows_zero",
                g.tensor([[1.0, 0.0], [0.0, 1.0], [3.0, 3.0]]), g.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
                1.0, 0.0, g.randn(3, 3))
    yield _case("small_integers_exact", g.randint(-3, 4, 6, 40).float(), g.randint(-3, 4, 40, 50).float(), 2.0,
                -1.0, g.randint(-3, 4, 6, 50).float())
    yield _case("non_contiguous", g.randn(40, 10).t(), g.randn(60, 40).t(), 0.5, 0.5, g.randn(60, 10).t())
    yield _case("f16_small", g.randn(3, 16, dtype=torch.float16), g.randn(16, 24, dtype=torch.float16), 0.5, 1.0,
                g.randn(3, 24, dtype=torch.float16))


def random_cases(g):
    yield _case("randn_64x128x96", g.randn(64, 128), g.randn(128, 96), 1.0, 1.0, g.randn(64, 96))
    yield _case("randn_odd_37x101x203", g.randn(37, 101), g.randn(101, 203), 0.3, -1.5, g.randn(37, 203))
    yield _case("outlier_16x256x128", g.outlier(16, 256), g.outlier(256, 128), 0.1, 2.0, g.outlier(16, 128))
    # Half precision: C in [2, 3] keeps rows 0 and 1 of D correlated, so their dot product stays far
    # from zero. With C ~ randn it cancelled to near zero on ~0.5 % of seeds, where the rounding of
    # D to the storage dtype alone (the reference's own) broke the tolerance.
    yield _case("randn_f16", g.randn(8, 64, dtype=torch.float16), g.randn(64, 48, dtype=torch.float16), 0.125,
                0.5, g.rand(8, 48, low=2.0, high=3.0, dtype=torch.float16))
    yield _case("randn_bf16_odd", g.randn(5, 33, dtype=torch.bfloat16), g.randn(33, 29, dtype=torch.bfloat16),
                0.25, 1.0, g.rand(5, 29, low=2.0, high=3.0, dtype=torch.bfloat16))


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    n, m, p = params["n"], params["m"], params["p"]
    return (g.randn(n, m, dtype=dt), g.randn(m, p, dtype=dt), 0.5, 1.0, g.randn(n, p, dtype=dt)), {}


def perf_cost(params):
    # only rows 0 and 1 of A and C are needed, all of B
    m, p = params["m"], params["p"]
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    return {"bytes": es * (2 * m + m * p + 2 * p + 1), "flops": 2 * 2 * m * p + 2 * 3 * p + 2 * p}
