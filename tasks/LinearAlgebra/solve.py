import torch

META = {
    "id": "LinearAlgebra/solve",
    "category": "LinearAlgebra",
    "stem": "solve",
    "entry": "solve",
    "signature": "solve(A, B, *, left=True, out=None) -> Tensor",
    "description": (
        "Solves the square linear system A X = B (left=True) or X A = B (left=False) for X, where A "
        "(*, n, n) is invertible but not symmetric and in general needs row pivoting (a zero or tiny "
        "leading diagonal is possible). B is (*, n, k), or a vector right-hand side: B of shape (n,) "
        "or (*, n) with (*) equal to A's batch shape, giving X of B's shape. Batch dimensions of A "
        "and B broadcast. Inputs are well-conditioned (cond(A) about 3); float32 and float64. "
        "If out is given the result is also written there."
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
        "Judged against a float64 oracle; with partial pivoting the float32 error is about "
        "cond(A) * n * eps * |X| (cond ~3, n <= 48), well under 1e-4; TF32 is not allowed since a "
        "solver needs full float32 accuracy."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"A": [["add_eye", 3.0]]},
    "perf_shapes": [
        {"name": "batch4096_n16_k1", "params": {"batch": 4096, "n": 16, "k": 1}},
        {"name": "batch1024_n64_k16", "params": {"batch": 1024, "n": 64, "k": 16}},
        {"name": "batch64_n256_k64", "params": {"batch": 64, "n": 256, "k": 64}},
        {"name": "batch8_n512_k512", "params": {"batch": 8, "n": 512, "k": 512}},
    ],
}


def reference(A, B, *, left=True, out=None):
    return torch.linalg.solve(A, B, left=left, out=out)


def _mat(g, *batch_n, dtype=torch.float32, permute=True):
    """Well-conditioned non-symmetric matrix (cond ~3) with rows shuffled so pivoting is needed."""
    *batch, n = batch_n
    m = g.randn(*batch, n, n, dtype=torch.float64) / (n ** 0.5)
    a = m + 3.0 * torch.eye(n, dtype=torch.float64, device=m.device)
    if permute and n > 1:
        a = a[..., g.perm(n), :]
    return a.to(dtype)


def edge_cases(g):
    yield {"name": "n1", "args": (g.tensor([[-2.5]]), g.tensor([[5.0, 1.0]])), "kwargs": {}}
    yield {"name": "zero_leading_pivot_n2", "args": (g.tensor([[0.0, 1.0], [2.0, 3.0]]), g.tensor([[1.0], [4.0]])),
           "kwargs": {}}
    yield {"name": "permutation_matrix_n4",
           "args": (g.tensor([[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]),
                    g.randn(4, 3)), "kwargs": {}}
    yield {"name": "identity_rhs_gives_inverse", "args": (_mat(g, 9), g.tensor([[1.0 if i == j else 0.0 for j in range(9)]
                                                                          for i in range(9)])), "kwargs": {}}
    yield {"name": "vector_rhs_1d", "args": (_mat(g, 12), g.randn(12)), "kwargs": {}}
    yield {"name": "batched_vector_rhs", "args": (_mat(g, 3, 7), g.randn(3, 7)), "kwargs": {}}
    yield {"name": "left_false", "args": (_mat(g, 10), g.randn(4, 10)), "kwargs": {"left": False}}
    yield {"name": "left_false_batched", "args": (_mat(g, 2, 6), g.randn(2, 3, 6)), "kwargs": {"left": False}}
    yield {"name": "broadcast_batch_A", "args": (_mat(g, 8), g.randn(3, 8, 2)), "kwargs": {}}
    yield {"name": "broadcast_batch_B", "args": (_mat(g, 2, 1, 5), g.randn(4, 5, 3)), "kwargs": {}}
    yield {"name": "float64", "args": (_mat(g, 20, dtype=torch.float64), g.randn(20, 5, dtype=torch.float64)),
           "kwargs": {}}
    yield {"name": "non_contiguous_A", "args": (_mat(g, 11).t(), g.randn(11, 2)), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n16_k4", "args": (_mat(g, 16), g.randn(16, 4)), "kwargs": {}}
    yield {"name": "randn_batch_n31_k5", "args": (_mat(g, 2, 31), g.randn(2, 31, 5)), "kwargs": {}}
    yield {"name": "randn_n48_k17", "args": (_mat(g, 48), g.randn(48, 17)), "kwargs": {}}
    yield {"name": "outlier_rhs_batch_n24", "args": (_mat(g, 3, 24), g.outlier(3, 24, 7)), "kwargs": {}}
    yield {"name": "left_false_n37", "args": (_mat(g, 37), g.randn(9, 37)), "kwargs": {"left": False}}
    yield {"name": "float64_batch_n13", "args": (_mat(g, 2, 13, dtype=torch.float64), g.randn(2, 13, 3, dtype=torch.float64)),
           "kwargs": {}}


def perf_inputs(g, params):
    b, n, k = params["batch"], params["n"], params["k"]
    return (_mat(g, b, n), g.randn(b, n, k)), {"left": True}


def perf_cost(params):
    b, n, k = params["batch"], params["n"], params["k"]
    # float32: read A (n, n) and B (n, k), write X (n, k) per batch entry.
    # FLOPs per system: LU with partial pivoting 2/3 n^3, forward + back substitution 2 n^2 k
    return {"bytes": 4 * b * (n * n + 2 * n * k), "flops": b * (2 * n ** 3 // 3 + 2 * n * n * k)}
