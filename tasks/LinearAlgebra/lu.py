import torch

META = {
    "id": "LinearAlgebra/lu",
    "category": "LinearAlgebra",
    "stem": "lu",
    "entry": "lu",
    "signature": "lu(A, *, pivot=True, out=None) -> (Tensor, Tensor, Tensor)",
    "description": (
        "LU decomposition A = P L U of every matrix of A (*, m, n), k = min(m, n): P (*, m, m) a "
        "permutation matrix, L (*, m, k) unit lower triangular, U (*, k, n) upper triangular, all "
        "in A's dtype. pivot=True uses row pivoting (the inputs are general matrices with shuffled "
        "rows, zero leading pivots possible); pivot=False factors A = L U without row exchanges "
        "(inputs are perturbed identities for which this is stable) and returns an empty P. "
        "Inputs are well-conditioned (cond about 3); float32 and float64."
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
        "Any valid factorization is accepted (pivot choices differ between libraries): drive() "
        "compares P L U (= A), L's diagonal (= 1) and strict upper part (= 0), U's strict lower "
        "part (= 0), and that P is a permutation (P * (1 - P) = 0, row and column sums 1), against "
        "a float64 oracle. A backward-stable LU gives P L U - A of about n * eps * |A| growth, "
        "~1e-5 in float32 here, hence 1e-4."
    ),
    "notes": (
        "torch.linalg.lu(pivot=False) exists on CUDA only, so the reference runs its own Doolittle "
        "elimination for pivot=False; P is then not compared (the spec returns it empty)."
    ),
    "tf32": False,
    "drive_checks": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "batch4096_16x16", "params": {"batch": 4096, "m": 16, "n": 16}},
        {"name": "batch1024_64x64", "params": {"batch": 1024, "m": 64, "n": 64}},
        {"name": "batch64_256x256", "params": {"batch": 64, "m": 256, "n": 256}},
        {"name": "batch4_1024x1024", "params": {"batch": 4, "m": 1024, "n": 1024}},
    ],
}


def _lu_nopivot(A):
    """L (m, k) unit lower and U (k, n) upper with A = L U, no pivoting (Doolittle, plain torch)."""
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    U = A.clone()
    L = torch.zeros(*A.shape[:-2], m, k, dtype=A.dtype, device=A.device)
    for j in range(k):
        L[..., j, j] = 1.0
        f = U[..., j + 1:, j] / U[..., j:j + 1, j]
        L[..., j + 1:, j] = f
        U[..., j + 1:, j:] = U[..., j + 1:, j:] - f[..., :, None] * U[..., j:j + 1, j:]
    return L, torch.triu(U[..., :k, :])


def reference(A, *, pivot=True, out=None):
    if pivot:
        return torch.linalg.lu(A, pivot=True, out=out)
    L, U = _lu_nopivot(A)
    P = torch.empty(0, dtype=A.dtype, device=A.device)
    if out is not None:
        for o, t in zip(out, (P, L, U)):
            o.resize_(t.shape).copy_(t)
        return out
    return P, L, U


def drive(fn, args, kwargs):
    """Calls the entry and returns factorization invariants; see tolerance_note."""
    pivot = kwargs.get("pivot", True)
    P, L, U = fn(*args, **kwargs)
    LU = L @ U
    res = {"PLU": P @ LU if pivot else LU,
           "L_diag": torch.diagonal(L, dim1=-2, dim2=-1),
           "L_strict_upper": torch.triu(L, 1),
           "U_strict_lower": torch.tril(U, -1)}
    if pivot:
        res["P_binary"] = P * (1 - P)
        res["P_row_sums"] = P.sum(-1)
        res["P_col_sums"] = P.sum(-2)
    return res


def _mat(g, *batch_mn, dtype=torch.float32, mode="randn", permute=True):
    """2 I (leading block) + M / sqrt(max(m, n)) (cond ~3); rows shuffled if permute."""
    *batch, m, n = batch_mn
    draw = g.randn if mode == "randn" else g.outlier
    a = draw(*batch, m, n, dtype=torch.float64) / (max(m, n) ** 0.5)
    if mode != "randn":
        a = a.clamp(-2.0, 2.0)
    k = min(m, n)
    a[..., :k, :k] += 2.0 * torch.eye(k, dtype=torch.float64, device=a.device)
    if permute and m > 1:
        a = a[..., g.perm(m), :]
    return a.to(dtype)


def edge_cases(g):
    yield {"name": "n1", "args": (g.tensor([[-2.5]]),), "kwargs": {}}
    yield {"name": "zero_leading_pivot_n2", "args": (g.tensor([[0.0, 1.0], [2.0, 3.0]]),), "kwargs": {}}
    yield {"name": "permutation_n4", "args": (g.tensor([[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0],
                                                        [0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]),), "kwargs": {}}
    yield {"name": "identity_n5", "args": (g.tensor([[1.0 if i == j else 0.0 for j in range(5)] for i in range(5)]),),
           "kwargs": {}}
    yield {"name": "tall_9x4", "args": (_mat(g, 9, 4),), "kwargs": {}}
    yield {"name": "wide_4x9", "args": (_mat(g, 4, 9),), "kwargs": {}}
    yield {"name": "no_pivot_hand_n3", "args": (g.tensor([[4.0, 1.0, -1.0], [2.0, 5.0, 1.0], [1.0, -2.0, 6.0]]),),
           "kwargs": {"pivot": False}}
    yield {"name": "no_pivot_tall_batch", "args": (_mat(g, 2, 8, 5, permute=False),), "kwargs": {"pivot": False}}
    yield {"name": "batch_2x3_n6", "args": (_mat(g, 2, 3, 6, 6),), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (_mat(g, 11, 11).t(),), "kwargs": {}}
    yield {"name": "float64_n20", "args": (_mat(g, 20, 20, dtype=torch.float64),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n16", "args": (_mat(g, 16, 16),), "kwargs": {}}
    yield {"name": "randn_batch_n31", "args": (_mat(g, 2, 31, 31),), "kwargs": {}}
    yield {"name": "randn_48x40", "args": (_mat(g, 48, 40),), "kwargs": {}}
    yield {"name": "outlier_batch_n24", "args": (_mat(g, 3, 24, 24, mode="outlier"),), "kwargs": {}}
    yield {"name": "no_pivot_n27", "args": (_mat(g, 27, 27, permute=False),), "kwargs": {"pivot": False}}
    yield {"name": "float64_batch_13x17", "args": (_mat(g, 2, 13, 17, dtype=torch.float64),), "kwargs": {}}


def perf_inputs(g, params):
    return (_mat(g, params["batch"], params["m"], params["n"]),), {"pivot": True}


def perf_cost(params):
    b, m, n = params["batch"], params["m"], params["n"]
    k = min(m, n)
    # float32: read A (m, n), write P (m, m), L (m, k), U (k, n) per matrix;
    # LU with partial pivoting costs m n k - (m + n) k^2 / 2 + k^3 / 3 multiply-adds, times 2
    return {"bytes": 4 * b * (m * n + m * m + m * k + k * n),
            "flops": b * 2 * (m * n * k - (m + n) * k * k // 2 + k ** 3 // 3)}
