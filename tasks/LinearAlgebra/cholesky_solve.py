import torch

META = {
    "id": "LinearAlgebra/cholesky_solve",
    "category": "LinearAlgebra",
    "stem": "cholesky_solve",
    "entry": "cholesky_solve",
    "signature": "cholesky_solve(B, L, upper=False, *, out=None) -> Tensor",
    "description": (
        "Solves A X = B for X given the Cholesky factor of the symmetric positive-definite A: "
        "A = L L^T with L lower triangular (upper=False), or A = U^T U with U upper triangular "
        "(upper=True), i.e. one forward and one backward triangular solve. B is (*, n, k), the "
        "factor (*, n, n); batch dimensions broadcast and X has the broadcast batch shape, n x k, "
        "and B's dtype. The factors come from well-conditioned matrices (A = M M^T / n + I, "
        "cond <= ~5); float32 and float64. If out is given the result is also written there."
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
        "Judged against a float64 oracle (computed from the same float32 factor); two backward-stable "
        "triangular solves with cond(A) <= ~5 and n <= 64 give float32 errors around n * cond * eps "
        "* |X| ~ 1e-5, so 1e-4 leaves room for any summation order."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"L": ["gram", "sym", ["add_eye", 1e-3], "cholesky"]},
    "perf_shapes": [
        {"name": "batch4096_n16_k1", "params": {"batch": 4096, "n": 16, "k": 1}},
        {"name": "batch1024_n64_k16", "params": {"batch": 1024, "n": 64, "k": 16}},
        {"name": "batch64_n256_k64", "params": {"batch": 64, "n": 256, "k": 64}},
        {"name": "batch8_n1024_k256", "params": {"batch": 8, "n": 1024, "k": 256}},
    ],
}


def reference(B, L, upper=False, *, out=None):
    return torch.cholesky_solve(B, L, upper=upper, out=out)


def _factor(g, *batch_n, dtype=torch.float32, upper=False):
    """Cholesky factor of M M^T / n + I (eigenvalues in about [1, 5])."""
    *batch, n = batch_n
    m = g.randn(*batch, n, n, dtype=torch.float64)
    a = m @ m.transpose(-2, -1) / n + torch.eye(n, dtype=torch.float64, device=m.device)
    return torch.linalg.cholesky(a, upper=upper).to(dtype)


def edge_cases(g):
    yield {"name": "n1", "args": (g.tensor([[6.0, -2.0]]), g.tensor([[2.0]])), "kwargs": {}}
    yield {"name": "identity_factor", "args": (g.randn(5, 3), g.tensor([[1.0 if i == j else 0.0 for j in range(5)]
                                                                        for i in range(5)])), "kwargs": {}}
    yield {"name": "hand_n2_lower", "args": (g.tensor([[1.0], [2.0]]), g.tensor([[2.0, 0.0], [1.0, 3.0]])), "kwargs": {}}
    yield {"name": "hand_n2_upper", "args": (g.tensor([[1.0], [2.0]]), g.tensor([[2.0, 1.0], [0.0, 3.0]])),
           "kwargs": {"upper": True}}
    yield {"name": "upper_n17_k4", "args": (g.randn(17, 4), _factor(g, 17, upper=True)), "kwargs": {"upper": True}}
    yield {"name": "batch_2x3_n6", "args": (g.randn(2, 3, 6, 2), _factor(g, 2, 3, 6)), "kwargs": {}}
    yield {"name": "broadcast_factor", "args": (g.randn(3, 9, 2), _factor(g, 9)), "kwargs": {}}
    yield {"name": "broadcast_rhs", "args": (g.randn(8, 3), _factor(g, 4, 8, upper=True)), "kwargs": {"upper": True}}
    yield {"name": "non_contiguous_rhs", "args": (g.randn(5, 11).t(), _factor(g, 11)), "kwargs": {}}
    yield {"name": "float64_n20", "args": (g.randn(20, 5, dtype=torch.float64), _factor(g, 20, dtype=torch.float64)),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n16_k1", "args": (g.randn(16, 1), _factor(g, 16)), "kwargs": {}}
    yield {"name": "randn_batch_n31_k5", "args": (g.randn(2, 31, 5), _factor(g, 2, 31)), "kwargs": {}}
    yield {"name": "randn_n64_k16_upper", "args": (g.randn(64, 16), _factor(g, 64, upper=True)), "kwargs": {"upper": True}}
    yield {"name": "outlier_rhs_batch_n24", "args": (g.outlier(3, 24, 7), _factor(g, 3, 24)), "kwargs": {}}
    yield {"name": "float64_batch_n13", "args": (g.randn(2, 13, 3, dtype=torch.float64),
                                                 _factor(g, 2, 13, dtype=torch.float64)), "kwargs": {}}


def perf_inputs(g, params):
    b, n, k = params["batch"], params["n"], params["k"]
    return (g.randn(b, n, k), _factor(g, b, n)), {"upper": False}


def perf_cost(params):
    b, n, k = params["batch"], params["n"], params["k"]
    # float32: read the factor (n, n) and B (n, k), write X (n, k) per batch entry;
    # forward + backward triangular solves cost 2 n^2 FLOPs per right-hand side
    return {"bytes": 4 * b * (n * n + 2 * n * k), "flops": b * 2 * n * n * k}
