import torch

META = {
    "id": "LinearAlgebra/solve_and_add_scaled_vector",
    "category": "LinearAlgebra",
    "stem": "solve_and_add_scaled_vector",
    "entry": "solve_and_add_scaled_vector",
    "signature": "def solve_and_add_scaled_vector(A: torch.Tensor, b: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:",
    "description": (
        "Solves the upper-triangular system A x = b by back substitution and returns x + alpha * y. "
        "A is (n, n); only its upper triangle (diagonal included) is read, whatever lies below the "
        "diagonal is ignored. b is a vector (n,) or a matrix (n, k) of k right-hand sides; the "
        "solution has b's shape. y is added with ordinary PyTorch broadcasting against x: (n,) or (1,) "
        "for a vector b, (k,) / (n, 1) / (n, k) for a matrix b. Diagonals are bounded away from zero "
        "(|A_ii| in [2, 3]); float32 and float64."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-4, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle; triangular solves are backward stable and the inputs have "
        "cond(A) of a few units (|diag| >= 2, off-diagonal entries N(0, 1/n)), so the float32 error "
        "is about n * eps * |x| <= 1e-5 for n <= 64; 1e-4 leaves margin for any summation order."
    ),
    "notes": (
        "Spec quirk: torch.linalg.solve_triangular rejects a 1-D right-hand side, so a vector b is "
        "solved as an (n, 1) column and squeezed back; y is added with torch broadcasting, exactly "
        "as the spec's `x += alpha * y`."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"A": [["add_eye", 3.0]]},
    "perf_shapes": [
        {"name": "n256_vec", "params": {"n": 256, "k": 0}},
        {"name": "n1024_k16", "params": {"n": 1024, "k": 16}},
        {"name": "n2048_k256", "params": {"n": 2048, "k": 256}},
        {"name": "n4096_k1024", "params": {"n": 4096, "k": 1024}},
    ],
}


def reference(A, b, y, alpha):
    vec = b.dim() == 1
    B = b.unsqueeze(-1) if vec else b
    x = torch.linalg.solve_triangular(A, B, upper=True)
    if vec:
        x = x.squeeze(-1)
    x += alpha * y
    return x


def _tri(g, n, dtype=torch.float32, full=False):
    """Upper-triangular, well-conditioned: off-diagonal N(0, 1/n), diagonal +-[2, 3]."""
    m = g.randn(n, n, dtype=torch.float64) / (n ** 0.5)
    d = g.rand(n, low=2.0, high=3.0, dtype=torch.float64)
    s = torch.where(g.bernoulli(n), 1.0, -1.0).to(torch.float64)
    if not full:
        m = torch.triu(m, 1)
    a = m - torch.diag(torch.diagonal(m)) + torch.diag(d * s)
    return a.to(dtype)


def edge_cases(g):
    yield {"name": "n1", "args": (g.tensor([[2.0]]), g.tensor([3.0]), g.tensor([1.0]), 0.5), "kwargs": {}}
    yield {"name": "identity_alpha0", "args": (g.tensor([[1.0 if i == j else 0.0 for j in range(6)] for i in range(6)]),
                                              g.randn(6), g.randn(6), 0.0), "kwargs": {}}
    yield {"name": "hand_n3", "args": (g.tensor([[2.0, 1.0, -1.0], [0.0, -3.0, 2.0], [0.0, 0.0, 4.0]]),
                                       g.tensor([1.0, 2.0, 8.0]), g.tensor([1.0, 1.0, 1.0]), -2.0), "kwargs": {}}
    yield {"name": "lower_part_ignored", "args": (_tri(g, 12, full=True), g.randn(12), g.randn(12), 1.5), "kwargs": {}}
    yield {"name": "y_broadcast_len1", "args": (_tri(g, 9), g.randn(9), g.randn(1), 3.0), "kwargs": {}}
    yield {"name": "matrix_b_y_row", "args": (_tri(g, 10), g.randn(10, 4), g.randn(4), 0.25), "kwargs": {}}
    yield {"name": "matrix_b_y_column", "args": (_tri(g, 10), g.randn(10, 3), g.randn(10, 1), -1.0), "kwargs": {}}
    yield {"name": "matrix_b_square_y_n", "args": (_tri(g, 8), g.randn(8, 8), g.randn(8), 2.0), "kwargs": {}}
    yield {"name": "non_contiguous_A", "args": (_tri(g, 11).t().contiguous().t(), g.randn(11, 2), g.randn(11, 2), 0.5),
           "kwargs": {}}
    yield {"name": "float64", "args": (_tri(g, 20, dtype=torch.float64), g.randn(20, dtype=torch.float64),
                                       g.randn(20, dtype=torch.float64), 0.75), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n16", "args": (_tri(g, 16), g.randn(16), g.randn(16), 0.5), "kwargs": {}}
    yield {"name": "randn_n37_k5", "args": (_tri(g, 37), g.randn(37, 5), g.randn(37, 5), -1.25), "kwargs": {}}
    yield {"name": "randn_n64_k16", "args": (_tri(g, 64), g.randn(64, 16), g.randn(16), 2.0), "kwargs": {}}
    yield {"name": "outlier_rhs_n48", "args": (_tri(g, 48), g.outlier(48, 3), g.outlier(48, 1), 1.0), "kwargs": {}}
    yield {"name": "float64_n29", "args": (_tri(g, 29, dtype=torch.float64), g.randn(29, 2, dtype=torch.float64),
                                           g.randn(2, dtype=torch.float64), 0.3), "kwargs": {}}


def perf_inputs(g, params):
    n, k = params["n"], params["k"]
    A = _tri(g, n)
    if k == 0:
        return (A, g.randn(n), g.randn(n), 0.5), {}
    return (A, g.randn(n, k), g.randn(n, k), 0.5), {}


def perf_cost(params):
    n, k = params["n"], params["k"]
    kk = max(k, 1)
    # float32: read A (n, n; only its upper triangle is needed but the tensor is dense), b and y
    # (n k each), write x (n k); back substitution n^2 FLOPs per right-hand side plus 2 n k for the add
    return {"bytes": 4 * (n * n + 3 * n * kk), "flops": n * n * kk + 2 * n * kk}
