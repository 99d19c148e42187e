import torch

META = {
    "id": "Fusion/fused_qr_solve",
    "category": "Fusion",
    "stem": "fused_qr_solve",
    "entry": "fused_qr_solve",
    "signature": "def fused_qr_solve(A: Tensor, b: Tensor) -> Tensor",
    "description": (
        "Solve A x = b through a reduced QR factorization A = Q R (Q of shape (m, n) with orthonormal "
        "columns, R upper triangular (n, n)): x = R^-1 (Q^T b). A has shape (m, n) with m >= n and "
        "full column rank, b has shape (m, k); x has shape (n, k) and the dtype of A (float32; "
        "float64 accepted). For m > n this is the least-squares solution, which does not depend on "
        "the sign convention of the factorization. Test matrices are well conditioned: tall Gaussian "
        "matrices (m >= 2n) or diagonally shifted square ones with permuted rows (condition number "
        "below ~6)."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-4, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Judged against the exact (float64) least-squares solution of the float32 data: with "
        "condition number < 6 (sensitivity ~cond^2 < 40 for the residual term) and n <= 64, a "
        "Householder or Gram-Schmidt-with-reorthogonalization float32 solve misses by ~1e-6; "
        "torch's own float32 QR path uses < 4% of atol 1e-4 + rtol 1e-4 over 30 seeds. Normal "
        "equations in float32 (error ~cond^2 eps) also fit; an unstable classical Gram-Schmidt may not."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "512x256_k16", "params": {"m": 512, "n": 256, "k": 16}},
        {"name": "2048x512_k64", "params": {"m": 2048, "n": 512, "k": 64}},
        {"name": "4096x1024_k64", "params": {"m": 4096, "n": 1024, "k": 64}},
        {"name": "8192x2048_k128", "params": {"m": 8192, "n": 2048, "k": 128}},
    ],
}


def reference(A, b):
    Q, R = torch.linalg.qr(A, mode="reduced")
    return torch.linalg.solve_triangular(R, Q.mT @ b, upper=True)


def _square(g, n, dtype=torch.float32):
    R = g.randn(n, n, dtype=torch.float64)
    A = R + (2.0 * n ** 0.5 + 2.0) * torch.eye(n, dtype=torch.float64, device=R.device)
    return A[g.perm(n)].to(dtype)


def _tall(g, m, n, dtype=torch.float32):
    return g.randn(m, n, dtype=dtype)


def edge_cases(g):
    yield {"name": "1x1", "args": (g.tensor([[-4.0]]), g.tensor([[2.0, 3.0]])), "kwargs": {}}
    yield {"name": "column_vector_m7_n1", "args": (g.randn(7, 1), g.randn(7, 2)), "kwargs": {}}
    yield {"name": "identity_square", "args": (torch.eye(16, device=g.device), g.randn(16, 3)), "kwargs": {}}
    # consistent overdetermined system: b = A x0 exactly solvable, residual zero
    A = _tall(g, 30, 10)
    x0 = g.randn(10, 2)
    yield {"name": "consistent_overdetermined", "args": (A, A @ x0), "kwargs": {}}
    yield {"name": "square_permuted", "args": (_square(g, 20), g.randn(20, 4)), "kwargs": {}}
    yield {"name": "negative_diagonal_upper",
           "args": (torch.triu(g.randn(6, 6)) - 4.0 * torch.eye(6, device=g.device), g.randn(6, 1)), "kwargs": {}}
    yield {"name": "zero_rhs", "args": (_tall(g, 12, 5), g.tensor([[0.0] * 3] * 12)), "kwargs": {}}
    yield {"name": "float64", "args": (_tall(g, 40, 16, torch.float64), g.randn(40, 3, dtype=torch.float64)),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "tall_128x64_k8", "args": (_tall(g, 128, 64), g.randn(128, 8)), "kwargs": {}}
    yield {"name": "tall_odd_75x33_k5", "args": (_tall(g, 75, 33), g.randn(75, 5)), "kwargs": {}}
    yield {"name": "square_40_outlier_rhs", "args": (_square(g, 40), g.outlier(40, 3, p=1e-2, scale=20.0)),
           "kwargs": {}}
    yield {"name": "tall_200x20_k1", "args": (_tall(g, 200, 20), g.randn(200, 1)), "kwargs": {}}


def perf_inputs(g, params):
    m, n, k = params["m"], params["n"], params["k"]
    return (_tall(g, m, n), g.randn(m, k)), {}


def perf_cost(params):
    m, n, k = params["m"], params["n"], params["k"]
    # read A and b, write x (float32); Householder QR 2 m n^2 - 2/3 n^3, applying Q^T to b
    # 4 m n k - 2 n^2 k, back substitution n^2 k
    flops = 2 * m * n * n - (2 * n ** 3) // 3 + 4 * m * n * k - n * n * k
    return {"bytes": (m * n + m * k + n * k) * 4, "flops": flops}
