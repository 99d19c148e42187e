import torch

META = {
    "id": "LinearAlgebra/ldl_factor",
    "category": "LinearAlgebra",
    "stem": "ldl_factor",
    "entry": "ldl_factor",
    "signature": "linalg.ldl_factor(A, *, hermitian=False, out=None) -> (Tensor, Tensor)",
    "description": (
        "Compact LDL^T factorization of every real symmetric, possibly indefinite matrix of A "
        "(*, n, n) in LAPACK sytrf format (lower variant): returns LD (*, n, n, A's dtype), whose "
        "strict lower part holds the multipliers of L and whose diagonal (plus the sub-diagonal "
        "entry of every 2x2 block) holds the block-diagonal D, and pivots (*, n, int32, 1-based): "
        "pivots[k] = p > 0 means a 1x1 block after swapping rows/columns k and p; "
        "pivots[k] = pivots[k+1] = -p < 0 means a 2x2 block after swapping k+1 and p, so that "
        "A = L D L^T with L = P(1) L(1) P(2) L(2) ... (Bunch-Kaufman symmetric pivoting). Only A's "
        "lower triangle needs to be read. hermitian has no effect for real inputs. Inputs have "
        "eigenvalues of both signs with |lambda| in [0.5, 3]; some have zero diagonals that force "
        "2x2 pivots; float32 and float64."
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
        "Pivot choices are not unique, so drive() decodes (LD, pivots) in the sytrf format and "
        "compares the reconstruction L D L^T (= A) against a float64 oracle; any valid factorization "
        "in that format passes. Bunch-Kaufman is backward stable with bounded growth, so the float32 "
        "reconstruction error is about n * eps * |A| * growth, ~1e-5 here, hence 1e-4."
    ),
    "tf32": False,
    "drive_checks": True,
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


def reference(A, *, hermitian=False, out=None):
    return torch.linalg.ldl_factor(A, hermitian=hermitian, out=out)


def _reconstruct(LD, piv):
    """L D L^T from one (n, n) compact factor and its 1-based pivots (LAPACK sytrf, lower)."""
    n = LD.shape[-1]
    eye = torch.eye(n, dtype=LD.dtype, device=LD.device)
    M = eye.clone()
    D = torch.zeros_like(LD)
    p = [int(v) for v in piv.tolist()]
    k = 0
    while k < n:
        s = 1 if p[k] > 0 else 2
        if s == 2 and k + 1 >= n:
            raise ValueError("2x2 pivot block at the last row")
        r = (p[k] if s == 1 else -p[k]) - 1
        if not 0 <= r < n:
            raise ValueError("pivot index out of range")
        perm = list(range(n))
        perm[k + s - 1], perm[r] = perm[r], perm[k + s - 1]
        Pk = eye[perm]
        Lk = eye.clone()
        Lk[k + s:, k:k + s] = LD[k + s:, k:k + s]
        D[k, k] = LD[k, k]
        if s == 2:
            D[k + 1, k + 1] = LD[k + 1, k + 1]
            D[k + 1, k] = LD[k + 1, k]
            D[k, k + 1] = LD[k + 1, k]
        M = M @ Pk @ Lk
        k += s
    return M @ D @ M.transpose(-2, -1)


def drive(fn, args, kwargs):
    """Calls the entry and returns the decoded reconstruction L D L^T; see tolerance_note."""
    LD, piv = fn(*args, **kwargs)
    n = LD.shape[-1]
    flat_ld = LD.reshape(-1, n, n)
    flat_piv = piv.reshape(-1, n)
    rec = [_reconstruct(flat_ld[i], flat_piv[i]) for i in range(flat_ld.shape[0])]
    out = torch.stack(rec) if rec else flat_ld.clone()
    return out.reshape(LD.shape)


def _sym(g, *batch_n, dtype=torch.float32, zero_diag=False):
    """Q diag(lambda) Q^T, Q random orthogonal, |lambda| in [0.5, 3] with random signs;
    zero_diag: the hollow variant [[0, B], [B^T, 0]] (B well-conditioned) forcing 2x2 pivots."""
    *batch, n = batch_n
    if zero_diag:
        h = n // 2
        b = g.randn(*batch, h, h, dtype=torch.float64) / (h ** 0.5)
        b = b + 2.0 * torch.eye(h, dtype=torch.float64, device=b.device)
        a = torch.zeros(*batch, 2 * h, 2 * h, dtype=torch.float64, device=b.device)
        a[..., :h, h:] = b
        a[..., h:, :h] = b.transpose(-2, -1)
        return a.to(dtype).to(g.device)
    q, _ = torch.linalg.qr(g.randn(*batch, n, n, dtype=torch.float64))
    lam = g.rand(*batch, n, low=0.5, high=3.0, dtype=torch.float64)
    lam = lam * torch.where(g.bernoulli(*batch, n), 1.0, -1.0).to(torch.float64)
    a = (q * lam[..., None, :]) @ q.transpose(-2, -1)
    a = 0.5 * (a + a.transpose(-2, -1))
    return a.to(dtype)


def edge_cases(g):
    yield {"name": "n1_negative", "args": (g.tensor([[-2.0]]),), "kwargs": {}}
    yield {"name": "swap_2x2_block", "args": (g.tensor([[0.0, 1.0], [1.0, 0.0]]),), "kwargs": {}}
    yield {"name": "diagonal_indefinite_n4", "args": (g.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, -2.0, 0.0, 0.0],
                                                                [0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, -0.5]]),),
           "kwargs": {}}
    yield {"name": "spd_n3", "args": (g.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.5, -1.0, 5.0]]),), "kwargs": {}}
    yield {"name": "small_leading_diag_n3", "args": (g.tensor([[0.01, 2.0, 1.0], [2.0, 1.0, 0.0], [1.0, 0.0, -1.0]]),),
           "kwargs": {}}
    yield {"name": "hollow_n8", "args": (_sym(g, 8, zero_diag=True),), "kwargs": {}}
    yield {"name": "hermitian_flag_real", "args": (_sym(g, 7),), "kwargs": {"hermitian": True}}
    yield {"name": "batch_2x3_n5", "args": (_sym(g, 2, 3, 5),), "kwargs": {}}
    yield {"name": "float64_n20", "args": (_sym(g, 20, dtype=torch.float64),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n16", "args": (_sym(g, 16),), "kwargs": {}}
    yield {"name": "randn_batch_n31", "args": (_sym(g, 2, 31),), "kwargs": {}}
    yield {"name": "hollow_batch_n12", "args": (_sym(g, 2, 12, zero_diag=True),), "kwargs": {}}
    yield {"name": "randn_n40", "args": (_sym(g, 40),), "kwargs": {}}
    yield {"name": "float64_batch_n13", "args": (_sym(g, 2, 13, dtype=torch.float64),), "kwargs": {}}


def perf_inputs(g, params):
    return (_sym(g, params["batch"], params["n"]),), {"hermitian": False}


def perf_cost(params):
    b, n = params["batch"], params["n"]
    # float32: read A (n, n), write LD (n, n) and int32 pivots (n) per matrix; LDL^T costs n^3 / 3 FLOPs
    return {"bytes": b * (4 * 2 * n * n + 4 * n), "flops": b * n ** 3 // 3}
