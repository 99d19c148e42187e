import torch

META = {
    "id": "LinearAlgebra/invert_matrix_lu",
    "category": "LinearAlgebra",
    "stem": "invert_matrix_lu",
    "entry": "invert_matrix_lu",
    "signature": "invert_matrix_lu(A, *, pivot=True, out=None) -> Tensor",
    "description": (
        "Inverse of every square matrix of A (*, n, n) through an LU factorization: A = P L U, then "
        "A^-1 = U^-1 L^-1 P^T by two triangular solves. pivot=True uses partial pivoting (the "
        "pivoted cases are general matrices with shuffled rows, zero leading pivots possible); "
        "pivot=False factors without row exchanges (those cases are matrices for which that is "
        "stable: a perturbed identity without shuffling). The result has A's shape and dtype. "
        "Inputs are well-conditioned (cond about 3); float32 and float64. If out is given the "
        "result is also written there."
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
        "Judged against a float64 oracle; an LU-based inverse has error about cond(A) * n * eps * "
        "|A^-1| (cond ~3, n <= 48, entries O(1)), a few 1e-6 in float32, so 1e-4 leaves margin for "
        "any elimination order."
    ),
    "notes": (
        "The spec writes A^-1 = U^-1 L^-1 P; with torch.linalg.lu's convention A = P L U the "
        "correct product is U^-1 L^-1 P^T, which the reference uses. torch.linalg.lu(pivot=False) "
        "exists on CUDA only, so the reference runs its own Doolittle elimination for pivot=False."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "batch4096_n16", "params": {"batch": 4096, "n": 16}},
        {"name": "batch1024_n64", "params": {"batch": 1024, "n": 64}},
        {"name": "batch64_n256", "params": {"batch": 64, "n": 256}},
        {"name": "batch4_n1024", "params": {"batch": 4, "n": 1024}},
    ],
}


def _lu_nopivot(A):
    """L (unit lower) and U (upper) of A = L U without pivoting (Doolittle, plain torch)."""
    n = A.shape[-1]
    U = A.clone()
    L = torch.zeros_like(A) + torch.eye(n, dtype=A.dtype, device=A.device)
    for k in range(n - 1):
        f = U[..., k + 1:, k] / U[..., k:k + 1, k]
        L[..., k + 1:, k] = f
        U[..., k + 1:, k:] = U[..., k + 1:, k:] - f[..., :, None] * U[..., k:k + 1, k:]
    return L, torch.triu(U)


def reference(A, *, pivot=True, out=None):
    if pivot:
        P, L, U = torch.linalg.lu(A, pivot=True)
        rhs = P.transpose(-2, -1)
    else:
        L, U = _lu_nopivot(A)
        rhs = torch.zeros_like(A) + torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    Y = torch.linalg.solve_triangular(L, rhs, upper=False, unitriangular=True)
    X = torch.linalg.solve_triangular(U, Y, upper=True)
    if out is not None:
        out.copy_(X)
        return out
    return X


def _mat(g, *batch_n, dtype=torch.float32, mode="randn", permute=True):
    """Well-conditioned non-symmetric matrix 2I + M/sqrt(n) (cond ~3); rows shuffled if permute."""
    *batch, n = batch_n
    draw = g.randn if mode == "randn" else g.outlier
    m = draw(*batch, n, n, dtype=torch.float64) / (n ** 0.5)
    if mode != "randn":
        m = m.clamp(-2.0, 2.0)
    a = m + 2.0 * torch.eye(n, dtype=torch.float64, device=m.device)
    if permute and n > 1:
        a = a[..., g.perm(n), :]
    return a.to(dtype)


def edge_cases(g):
    yield {"name": "n1", "args": (g.tensor([[-4.0]]),), "kwargs": {}}
    yield {"name": "zero_leading_pivot_n2", "args": (g.tensor([[0.0, 2.0], [4.0, 1.0]]),), "kwargs": {}}
    yield {"name": "permutation_n4", "args": (g.tensor([[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0],
                                                        [0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]),), "kwargs": {}}
    yield {"name": "diagonal_n6", "args": (g.tensor([[float(i + 1) * (-1.0) ** i if i == j else 0.0 for j in range(6)]
                                                     for i in range(6)]),), "kwargs": {}}
    yield {"name": "no_pivot_n1", "args": (g.tensor([[0.5]]),), "kwargs": {"pivot": False}}
    yield {"name": "no_pivot_hand_n3", "args": (g.tensor([[4.0, 1.0, -1.0], [2.0, 5.0, 1.0], [1.0, -2.0, 6.0]]),),
           "kwargs": {"pivot": False}}
    yield {"name": "no_pivot_batch_n10", "args": (_mat(g, 2, 10, permute=False),), "kwargs": {"pivot": False}}
    yield {"name": "batch_2x3_n5", "args": (_mat(g, 2, 3, 5),), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (_mat(g, 12).t(),), "kwargs": {}}
    yield {"name": "float64_n20", "args": (_mat(g, 20, dtype=torch.float64),), "kwargs": {}}


# The seed's own matrices are diagonally dominant (x * 0.1 + 3I): they never need a row exchange.
# Rows shuffled, the same matrices need partial pivoting, which the spec asks for (pivot=True) but
# the seed's tests never exercise: those cases are extended, with the reason.
PIVOTING = {"dist": "wide", "dist_why": "rows shuffled: needs the partial pivoting the seed's diagonally "
                                        "dominant matrices (x * 0.1 + 3I) never need"}


def _dominant(g, *batch_n, dtype=torch.float32, mode="randn"):
    """The seed's own recipe: x * 0.1 + 3I (x standard normal, or with sparse outliers)."""
    *batch, n = batch_n
    x = (g.randn if mode == "randn" else g.outlier)(*batch, n, n, dtype=torch.float64)
    return (x * 0.1 + 3.0 * torch.eye(n, dtype=torch.float64, device=x.device)).to(dtype)


def random_cases(g):
    yield {"name": "dominant_n16", "args": (_dominant(g, 16),), "kwargs": {}}
    yield {"name": "dominant_batch_n31", "args": (_dominant(g, 2, 31),), "kwargs": {}}
    yield {"name": "dominant_outlier_n24", "args": (_dominant(g, 24, mode="outlier"),), "kwargs": {}}
    yield {"name": "dominant_f64_n13", "args": (_dominant(g, 13, dtype=torch.float64),), "kwargs": {}}
    yield {"name": "dominant_no_pivot_n9", "args": (_dominant(g, 9),), "kwargs": {"pivot": False}}
    yield dict(name="randn_n16", args=(_mat(g, 16),), kwargs={}, **PIVOTING)
    yield dict(name="randn_batch_n31", args=(_mat(g, 2, 31),), kwargs={}, **PIVOTING)
    yield dict(name="randn_n48", args=(_mat(g, 48),), kwargs={}, **PIVOTING)
    yield dict(name="outlier_batch_n24", args=(_mat(g, 2, 24, mode="outlier"),), kwargs={}, **PIVOTING)
    yield {"name": "no_pivot_n27", "args": (_mat(g, 27, permute=False),), "kwargs": {"pivot": False}}
    yield dict(name="float64_batch_n13", args=(_mat(g, 2, 13, dtype=torch.float64),), kwargs={}, **PIVOTING)


def perf_inputs(g, params):
    return (_mat(g, params["batch"], params["n"]),), {"pivot": True}


def perf_cost(params):
    b, n = params["batch"], params["n"]
    # float32: read A and write A^-1 (n, n each) per matrix; an LU-based inverse costs 2 n^3 FLOPs
    # (2/3 n^3 factorization + 4/3 n^3 for the two triangular solves against the identity)
    return {"bytes": 4 * b * 2 * n * n, "flops": b * 2 * n ** 3}
