import torch

META = {
    "id": "MatrixMultiply/matrix_vector_dot",
    "category": "MatrixMultiply",
    "stem": "matrix_vector_dot",
    "entry": "matrix_vector_dot",
    "signature": "def matrix_vector_dot(A: Tensor, x: Tensor, y: Tensor, alpha: float, beta: float) -> Tensor:",
    "description": (
        "Updates y in place to alpha * (A @ x) + beta * y (a GEMV with scaling) and returns the dot "
        "product of the updated y with x as a 0-d tensor. A is (n, m), x is (m,), y is (n,); the dot "
        "product needs n == m, so A is square. All three share one floating dtype, which is also the "
        "result dtype. The final value of y is compared as well."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-3, 1e-4],
        "float16": [5e-2, 1e-2],
        "bfloat16": [2e-1, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle: the returned dot product sums n terms of size ~|alpha|*sqrt(n), "
        "so float32 rounding of y and of the sum gives ~1e-5 relative error, covered by rtol 1e-4 with "
        "atol 1e-3 for results that cancel; half precision cases are small (n <= 64) and may round y "
        "to the storage dtype before the dot, which moves the result by ~1 ulp of its terms times sqrt(n)."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1024", "params": {"n": 1024}},
        {"name": "4096", "params": {"n": 4096}},
        {"name": "8192", "params": {"n": 8192}},
        {"name": "16384", "params": {"n": 16384}},
        {"name": "16384_bf16", "params": {"n": 16384, "dtype": "bfloat16"}},
    ],
}


def reference(A, x, y, alpha, beta):
    y.mul_(beta).add_(torch.mv(A, x), alpha=alpha)
    return torch.dot(y, x)


def _case(name, A, x, y, alpha, beta):
    return {"name": name, "args": (A, x, y, alpha, beta), "kwargs": {}, "mutates": [2]}


def edge_cases(g):
    yield _case("n1", g.tensor([[2.0]]), g.tensor([3.0]), g.tensor([-1.0]), 0.5, 2.0)
    yield _case("beta0_ignores_y_values", g.randn(20, 20), g.randn(20), g.randn(20), 1.0, 0.0)
    yield _case("alpha0_only_scales_y", g.randn(17, 17), g.randn(17), g.randn(17), 0.0, -1.5)
    yield _case("zero_x", g.randn(9, 9), g.tensor([0.0] * 9), g.randn(9), 2.0, 3.0)
    yield _case("identity_matrix", torch.eye(33, device=g.device), g.randn(33), g.randn(33), 1.0, 1.0)
    yield _case("small_integers_exact", g.randint(-3, 4, 40, 40).float(), g.randint(-3, 4, 40).float(),
                g.randint(-3, 4, 40).float(), 2.0, -1.0)
    yield _case("non_contiguous_A", g.randn(50, 50).t(), g.randn(50), g.randn(50), 0.7, 0.3)
    yield _case("f16_small", g.randn(16, 16, dtype=torch.float16), g.randn(16, dtype=torch.float16),
                g.randn(16, dtype=torch.float16), 0.5, 0.5)


def random_cases(g):
    # A = randn + 8 I makes x^T A x ~ 8 |x|^2, so the returned dot product stays far from zero. With
    # A ~ randn it cancelled on ~0.6 % of bf16 seeds (to ~0.01, where rounding y to the storage dtype,
    # eager's own, broke the tolerance) and on ~0.02 % of float32 ones (scripts/oracle_sweep.py).
    yield _case("randn_128", _diag_heavy(g.randn(128, 128)), g.randn(128), g.randn(128), 1.0, 1.0)
    yield _case("randn_odd_201", _diag_heavy(g.randn(201, 201)), g.randn(201), g.randn(201), 0.25, -2.0)
    yield _case("outlier_96", g.outlier(96, 96), g.outlier(96), g.randn(96), 1.5, 0.5)
    yield _case("randn_f16_64", _diag_heavy(g.randn(64, 64, dtype=torch.float16)), g.randn(64, dtype=torch.float16),
                g.randn(64, dtype=torch.float16), 0.125, 1.0)
    yield _case("randn_bf16_37", _diag_heavy(g.randn(37, 37, dtype=torch.bfloat16)), g.randn(37, dtype=torch.bfloat16),
                g.randn(37, dtype=torch.bfloat16), 0.25, 0.5)


def _diag_heavy(A, d=8.0):
    return A + d * torch.eye(A.shape[0], dtype=A.dtype, device=A.device)


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    n = params["n"]
    return (g.randn(n, n, dtype=dt), g.randn(n, dtype=dt), g.randn(n, dtype=dt), 1.0, 0.5), {}


def perf_cost(params):
    n = params["n"]
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    return {"bytes": es * (n * n + n + 2 * n + 1), "flops": 2 * n * n + 3 * n + 2 * n}
