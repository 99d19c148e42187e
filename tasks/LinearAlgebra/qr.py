import torch

META = {
    "id": "LinearAlgebra/qr",
    "category": "LinearAlgebra",
    "stem": "qr",
    "entry": "qr",
    "signature": "qr(A, mode='reduced', *, out=None) -> (Tensor, Tensor)",
    "description": (
        "QR decomposition A = Q R of every matrix of A (*, m, n), k = min(m, n): Q has orthonormal "
        "columns, R is upper triangular (exact zeros below the diagonal). mode='reduced' returns Q "
        "(*, m, k) and R (*, k, n); mode='complete' returns a square orthogonal Q (*, m, m) and R "
        "(*, m, n); mode='r' returns an empty Q and R (*, k, n). Both outputs have A's dtype. The "
        "first k columns of every input are well-conditioned (linearly independent with margin), "
        "so the factorization is unique up to the signs of R's diagonal; float32 and float64."
    ),
    "difficulty": 5,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-4, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "drive() canonicalises the non-unique signs (column j of Q and row j of R are multiplied "
        "by sign(R_jj), so diag(R) >= 0) and, in complete mode with m > n, compares only the first "
        "n columns of Q plus Q^T Q = I (the remaining columns are any orthonormal completion); "
        "mode='r' compares R and Q's element count. Judged against a float64 oracle: for cond(A) of "
        "a few units, Householder or re-orthogonalised Gram-Schmidt give float32 errors of about "
        "n * eps * |A| ~ 1e-5, hence 1e-4."
    ),
    "tf32": False,
    "drive_checks": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "batch4096_16x16", "params": {"batch": 4096, "m": 16, "n": 16}},
        {"name": "batch1024_64x32", "params": {"batch": 1024, "m": 64, "n": 32}},
        {"name": "batch64_256x128", "params": {"batch": 64, "m": 256, "n": 128}},
        {"name": "batch4_1024x512", "params": {"batch": 4, "m": 1024, "n": 512}},
    ],
}


def reference(A, mode='reduced', *, out=None):
    return torch.linalg.qr(A, mode=mode, out=out)


def drive(fn, args, kwargs):
    """Calls the entry and returns a sign-canonical form of (Q, R); see tolerance_note."""
    A = args[0]
    mode = args[1] if len(args) > 1 else kwargs.get("mode", "reduced")
    Q, R = fn(*args, **kwargs)
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    d = torch.diagonal(R[..., :k, :k], dim1=-2, dim2=-1)
    s = torch.where(d < 0, -torch.ones_like(d), torch.ones_like(d))
    rs = torch.cat([s, torch.ones(*s.shape[:-1], R.shape[-2] - k, dtype=s.dtype, device=s.device)], dim=-1)
    Rc = R * rs[..., :, None]
    if mode == "r":
        return {"Q_numel": int(Q.numel()), "R": Rc}
    Qc = Q[..., :, :k] * s[..., None, :]
    if mode == "complete" and m > n:
        return {"Q": Qc, "QtQ": Q.transpose(-2, -1) @ Q, "R": Rc}
    return {"Q": Qc, "R": Rc}


def _tall(g, *batch_mn, dtype=torch.float32, mode="randn"):
    """(m, n) with m >= n: 2 I (top block) + M / sqrt(m), singular values within about [1, 3]."""
    *batch, m, n = batch_mn
    draw = g.randn if mode == "randn" else g.outlier
    x = draw(*batch, m, n, dtype=torch.float64) / (m ** 0.5)
    if mode != "randn":
        x = x.clamp(-2.0, 2.0)
    x[..., :n, :] += 2.0 * torch.eye(n, dtype=torch.float64, device=x.device)
    return x.to(dtype)


def _wide(g, *batch_mn, dtype=torch.float32):
    """(m, n) with m < n: a well-conditioned leading m x m block followed by N(0, 1) columns."""
    *batch, m, n = batch_mn
    lead = _tall(g, *batch, m, m, dtype=torch.float64)
    rest = g.randn(*batch, m, n - m, dtype=torch.float64)
    return torch.cat([lead, rest], dim=-1).to(dtype)


def edge_cases(g):
    yield {"name": "n1x1", "args": (g.tensor([[-3.0]]),), "kwargs": {}}
    yield {"name": "column_vector", "args": (g.tensor([[3.0], [0.0], [-4.0]]),), "kwargs": {}}
    yield {"name": "row_vector_wide", "args": (g.tensor([[2.0, -1.0, 5.0, 0.5]]),), "kwargs": {}}
    yield {"name": "identity_n5", "args": (g.tensor([[1.0 if i == j else 0.0 for j in range(5)] for i in range(5)]),),
           "kwargs": {}}
    yield {"name": "negative_diagonal_n4", "args": (g.tensor([[-2.0, 1.0, 0.0, 3.0], [0.0, -1.0, 2.0, 0.0],
                                                              [0.0, 0.0, 3.0, 1.0], [0.0, 0.0, 0.0, -0.5]]),),
           "kwargs": {}}
    yield {"name": "hand_3x2", "args": (g.tensor([[1.0, 2.0], [2.0, 1.0], [2.0, -2.0]]),), "kwargs": {}}
    yield {"name": "complete_tall_12x5", "args": (_tall(g, 12, 5), "complete"), "kwargs": {}}
    yield {"name": "mode_r_tall_10x6", "args": (_tall(g, 10, 6),), "kwargs": {"mode": "r"}}
    yield {"name": "wide_5x9", "args": (_wide(g, 5, 9),), "kwargs": {}}
    yield {"name": "complete_wide_4x7", "args": (_wide(g, 4, 7),), "kwargs": {"mode": "complete"}}
    yield {"name": "batch_2x3_7x4", "args": (_tall(g, 2, 3, 7, 4),), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (_tall(g, 14, 9).t().contiguous().t(),), "kwargs": {}}
    yield {"name": "float64_20x12", "args": (_tall(g, 20, 12, dtype=torch.float64),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_16x16", "args": (_tall(g, 16, 16),), "kwargs": {}}
    yield {"name": "randn_batch_33x17", "args": (_tall(g, 2, 33, 17),), "kwargs": {}}
    yield {"name": "randn_64x32_complete", "args": (_tall(g, 64, 32),), "kwargs": {"mode": "complete"}}
    yield {"name": "outlier_batch_24x24", "args": (_tall(g, 3, 24, 24, mode="outlier"),), "kwargs": {}}
    yield {"name": "wide_batch_12x30", "args": (_wide(g, 2, 12, 30),), "kwargs": {}}
    yield {"name": "float64_batch_15x11_r", "args": (_tall(g, 2, 15, 11, dtype=torch.float64),), "kwargs": {"mode": "r"}}


def perf_inputs(g, params):
    return (_tall(g, params["batch"], params["m"], params["n"]),), {"mode": "reduced"}


def perf_cost(params):
    b, m, n = params["batch"], params["m"], params["n"]
    # float32, m >= n, reduced: read A (m, n), write Q (m, n) and R (n, n) per matrix;
    # Householder QR 2 m n^2 - 2/3 n^3 FLOPs plus forming the thin Q, the same again
    return {"bytes": 4 * b * (2 * m * n + n * n), "flops": b * 2 * (2 * m * n * n - 2 * n ** 3 // 3)}
