import torch

META = {
    "id": "Normalization/symmetric_matrix_vector_norm",
    "category": "Normalization",
    "stem": "symmetric_matrix_vector_norm",
    "entry": "symmetric_matrix_vector_norm",
    "signature": ("def symmetric_matrix_vector_norm(A: torch.Tensor, x: torch.Tensor, alpha: float, beta: float, "
                  "p: float = 2.0) -> torch.Tensor:"),
    "description": (
        "For a symmetric matrix A (n, n) and a vector x (n,), forms y = alpha * (A @ x) + beta * y0 "
        "and returns the vector p-norm of y as a 0-d tensor of the input dtype. The signature passes "
        "no initial vector, so y0 is a zero vector (BLAS convention for a freshly allocated y) and "
        "beta only matters through 0 * beta. p is 2.0 by default; p = 1, float('inf') and other "
        "positive values (sum |y_i|^p)^(1/p) are tested too. A is exactly symmetric, so rows and "
        "columns may be read interchangeably."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle: the norm is a positive sum without cancellation, so float32 "
        "GEMV and reduction rounding stays ~1e-6 relative; rtol 1e-4 also covers pow(., p) for "
        "non-integer p; half precision outputs allow one to two ulps."
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
        {"name": "16384_p1_bf16", "params": {"n": 16384, "p": 1.0, "dtype": "bfloat16"}},
    ],
}


def reference(A, x, alpha, beta, p=2.0):
    y = torch.zeros_like(x)
    y = alpha * torch.mv(A, x) + beta * y
    return torch.norm(y, p)


def _sym(g, n, dtype=torch.float32, outlier=False):
    b = g.outlier(n, n, dtype=torch.float64) if outlier else g.randn(n, n, dtype=torch.float64)
    return ((b + b.t()) * 0.5).to(dtype)


def _case(name, A, x, alpha, beta, **kw):
    return {"name": name, "args": (A, x, alpha, beta), "kwargs": kw}


def edge_cases(g):
    yield _case("n1", g.tensor([[-2.0]]), g.tensor([3.0]), 0.5, 1.0)
    yield _case("default_p_beta0", _sym(g, 24), g.randn(24), 1.0, 0.0)
    yield _case("alpha0_zero_norm", _sym(g, 10), g.randn(10), 0.0, 3.0)
    yield _case("zero_x", _sym(g, 9), g.tensor([0.0] * 9), 1.0, 1.0)
    yield _case("identity_is_norm_of_x", torch.eye(33, device=g.device), g.randn(33), -2.0, 1.0)
    yield _case("p1", _sym(g, 40), g.randn(40), 0.5, 1.0, p=1.0)
    yield _case("p_inf", _sym(g, 40), g.randn(40), 0.5, 1.0, p=float("inf"))
    yield _case("p3", _sym(g, 40), g.randn(40), 0.5, 1.0, p=3.0)
    yield _case("p_half", _sym(g, 20), g.randn(20), 1.0, 1.0, p=0.5)
    yield _case("small_integers_exact", (lambda b: b + b.t())(g.randint(-3, 4, 30, 30).float()),
                g.randint(-3, 4, 30).float(), 1.0, 1.0)


def random_cases(g):
    yield _case("randn_128", _sym(g, 128), g.randn(128), 1.0, 1.0)
    yield _case("randn_odd_201_p1", _sym(g, 201), g.randn(201), 0.25, -2.0, p=1.0)
    yield _case("outlier_96", _sym(g, 96, outlier=True), g.outlier(96), 1.5, 0.5)
    yield _case("outlier_96_pinf", _sym(g, 96, outlier=True), g.outlier(96), 1.5, 0.5, p=float("inf"))
    yield _case("randn_f16_64", _sym(g, 64, torch.float16), g.randn(64, dtype=torch.float16), 0.125, 1.0)
    yield _case("randn_bf16_37_p3", _sym(g, 37, torch.bfloat16), g.randn(37, dtype=torch.bfloat16), 0.5, 1.0,
                p=3.0)


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    n = params["n"]
    return (_sym(g, n, dt), g.randn(n, dtype=dt), 1.0, 0.5), {"p": float(params.get("p", 2.0))}


def perf_cost(params):
    n = params["n"]
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    return {"bytes": es * (n * n + n + 1), "flops": 2 * n * n + 3 * n}
