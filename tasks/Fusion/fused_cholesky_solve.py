import torch

META = {
    "id": "Fusion/fused_cholesky_solve",
    "category": "Fusion",
    "stem": "fused_cholesky_solve",
    "entry": "fused_cholesky_solve",
    "signature": "def fused_cholesky_solve(A: Tensor, b: Tensor) -> Tensor",
    "description": (
        "Solve A x = b for a symmetric positive-definite A of shape (n, n) and a right-hand side b of "
        "shape (n, k): factor A = L L^T (L lower triangular with a positive diagonal), then solve "
        "L y = b and L^T x = y. The result x has shape (n, k) and the dtype of A (float32; float64 is "
        "accepted too). A is exactly symmetric; the test matrices are well conditioned (M M^T / n + "
        "I / 2, condition number below ~12)."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-4, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Judged against the exact (float64) solution of the float32 system: with condition number "
        "< 12 and n <= 100 a backward-stable float32 Cholesky solve misses by ~1e-6 (torch's own "
        "float32 path uses < 1% of atol 1e-4 + rtol 1e-4 over 30 seeds), which leaves room for any "
        "summation order or blocking."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "n256_k16", "params": {"n": 256, "k": 16}},
        {"name": "n1024_k64", "params": {"n": 1024, "k": 64}},
        {"name": "n2048_k128", "params": {"n": 2048, "k": 128}},
        {"name": "n4096_k256", "params": {"n": 4096, "k": 256}},
    ],
}


def reference(A, b):
    L = torch.linalg.cholesky(A)
    return torch.cholesky_solve(b, L, upper=False)


def _spd(g, n, dtype=torch.float32):
    M = g.randn(n, n, dtype=torch.float64)
    A = M @ M.mT / n + 0.5 * torch.eye(n, dtype=torch.float64, device=M.device)
    return ((A + A.mT) / 2).to(dtype)


def edge_cases(g):
    yield {"name": "n1", "args": (g.tensor([[4.0]]), g.tensor([[2.0, -6.0]])), "kwargs": {}}
    yield {"name": "identity", "args": (torch.eye(16, device=g.device), g.randn(16, 3)), "kwargs": {}}
    yield {"name": "diagonal", "args": (torch.diag(g.rand(10, low=0.5, high=4.0)), g.randn(10, 4)), "kwargs": {}}
    yield {"name": "k1_column", "args": (_spd(g, 20), g.randn(20, 1)), "kwargs": {}}
    yield {"name": "tridiagonal_2_-1",
           "args": (2.0 * torch.eye(8, device=g.device) - torch.diag(g.tensor([1.0] * 7), 1)
                    - torch.diag(g.tensor([1.0] * 7), -1), g.randn(8, 2)), "kwargs": {}}
    yield {"name": "zero_rhs", "args": (_spd(g, 9), g.tensor([[0.0] * 3] * 9)), "kwargs": {}}
    yield {"name": "float64", "args": (_spd(g, 24, torch.float64), g.randn(24, 5, dtype=torch.float64)), "kwargs": {}}


def random_cases(g):
    yield {"name": "n64_k8", "args": (_spd(g, 64), g.randn(64, 8)), "kwargs": {}}
    yield {"name": "n_odd_37_k5", "args": (_spd(g, 37), g.randn(37, 5)), "kwargs": {}}
    yield {"name": "n100_k3_outlier_rhs", "args": (_spd(g, 100), g.outlier(100, 3, p=1e-2, scale=20.0)),
           "kwargs": {}}
    yield {"name": "n5_k17", "args": (_spd(g, 5), g.randn(5, 17)), "kwargs": {}}


def perf_inputs(g, params):
    n, k = params["n"], params["k"]
    return (_spd(g, n), g.randn(n, k)), {}


def perf_cost(params):
    n, k = params["n"], params["k"]
    # read A (the lower triangle suffices, counted whole) and b, write x (float32);
    # Cholesky n^3 / 3, two triangular solves 2 n^2 k
    return {"bytes": (n * n + 2 * n * k) * 4, "flops": n ** 3 // 3 + 2 * n * n * k}
