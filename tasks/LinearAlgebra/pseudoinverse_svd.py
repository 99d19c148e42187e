import torch

META = {
    "id": "LinearAlgebra/pseudoinverse_svd",
    "category": "LinearAlgebra",
    "stem": "pseudoinverse_svd",
    "entry": "pseudoinverse_svd",
    "signature": "def pseudoinverse_svd(A, *, full_matrices=True, rcond=1e-15, out=None) -> Tensor",
    "description": (
        "Moore-Penrose pseudoinverse of every matrix of A (*, m, n) through its SVD: "
        "A^+ = V diag(s^+) U^T, where s_i^+ = 1 / s_i if s_i > rcond * max(s) and 0 otherwise. The "
        "result is (*, n, m) in A's dtype; full_matrices (full or reduced SVD inside) does not "
        "change it. Full-rank inputs have singular values in [0.5, 3]; rank-deficient inputs are "
        "exactly low-rank in float64 (their remaining singular values are rounding noise, ~1e-7 "
        "in float32) and come with rcond = 1e-4 so that the noise is cut; an all-zero matrix gives "
        "zeros. float32 and float64. If out is given the result is also written there."
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
        "A^+ is unique for a given set of kept singular values; judged against a float64 oracle. "
        "With kept s in [0.5, 3] (cond <= 6) the float32 error is about cond * n * eps * |A^+| "
        "(|A^+| <= 2): ~1e-5, so 1e-4; the inputs keep every singular value far from the rcond "
        "cut-off, so the kept set is the same in every precision."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "batch4096_16x16", "params": {"batch": 4096, "m": 16, "n": 16}},
        {"name": "batch512_64x32", "params": {"batch": 512, "m": 64, "n": 32}},
        {"name": "batch32_256x128", "params": {"batch": 32, "m": 256, "n": 128}},
        {"name": "batch2_1024x512", "params": {"batch": 2, "m": 1024, "n": 512}},
    ],
}


def reference(A, *, full_matrices=True, rcond=1e-15, out=None):
    U, S, Vh = torch.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    if k > 0:
        cutoff = rcond * S.max(dim=-1, keepdim=True).values
    else:
        cutoff = S
    s_inv = torch.where(S > cutoff, 1.0 / S, torch.zeros_like(S))
    res = Vh[..., :k, :].mH @ (s_inv[..., :, None].to(U.dtype) * U[..., :, :k].mH)
    if out is not None:
        out.copy_(res)
        return out
    return res


def _spectral(g, *batch_mn, dtype=torch.float32, lo=0.5, hi=3.0, rank=None):
    """U0 diag(s) V0^T: U0, V0 random orthonormal, s evenly spread in [lo, hi], zeros beyond rank."""
    *batch, m, n = batch_mn
    r = min(m, n)
    u, _ = torch.linalg.qr(g.randn(*batch, m, r, dtype=torch.float64))
    v, _ = torch.linalg.qr(g.randn(*batch, n, r, dtype=torch.float64))
    s = torch.linspace(hi, lo, r, dtype=torch.float64, device=u.device) if r > 1 else \
        torch.full((1,), hi, dtype=torch.float64, device=u.device)
    if rank is not None:
        s[rank:] = 0.0
    return ((u * s) @ v.transpose(-2, -1)).to(dtype)


def edge_cases(g):
    yield {"name": "n1x1", "args": (g.tensor([[-4.0]]),), "kwargs": {}}
    yield {"name": "diagonal_n3", "args": (g.tensor([[1.0, 0.0, 0.0], [0.0, -2.0, 0.0], [0.0, 0.0, 0.5]]),), "kwargs": {}}
    yield {"name": "zero_matrix", "args": (g.tensor([[0.0] * 4 for _ in range(3)]),), "kwargs": {}}
    yield {"name": "column_vector", "args": (g.tensor([[3.0], [0.0], [-4.0]]),), "kwargs": {}}
    yield {"name": "rank1_exact_rcond", "args": (g.tensor([[float((i + 1) * (j - 1.5)) for j in range(4)] for i in range(5)]),),
           "kwargs": {"rcond": 1e-4}}
    yield {"name": "rank3_of_10x8_rcond", "args": (_spectral(g, 10, 8, rank=3),), "kwargs": {"rcond": 1e-4}}
    yield {"name": "singular_square_rcond", "args": (_spectral(g, 2, 6, 6, rank=4),), "kwargs": {"rcond": 1e-4}}
    yield {"name": "cutoff_between_kept_values", "args": (_spectral(g, 7, 7, lo=0.01, hi=3.0),), "kwargs": {"rcond": 0.05}}
    yield {"name": "tall_reduced_12x5", "args": (_spectral(g, 12, 5),), "kwargs": {"full_matrices": False}}
    yield {"name": "wide_4x9", "args": (_spectral(g, 4, 9),), "kwargs": {}}
    yield {"name": "batch_2x3_7x5", "args": (_spectral(g, 2, 3, 7, 5),), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (_spectral(g, 13, 9).t(),), "kwargs": {}}
    yield {"name": "float64_20x12", "args": (_spectral(g, 20, 12, dtype=torch.float64),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_16x16", "args": (_spectral(g, 16, 16),), "kwargs": {}}
    yield {"name": "randn_batch_33x17", "args": (_spectral(g, 2, 33, 17),), "kwargs": {"full_matrices": False}}
    yield {"name": "randn_48x32", "args": (_spectral(g, 48, 32),), "kwargs": {}}
    yield {"name": "wide_batch_10x27", "args": (_spectral(g, 2, 10, 27),), "kwargs": {}}
    yield {"name": "rank_deficient_24x20", "args": (_spectral(g, 2, 24, 20, rank=11),), "kwargs": {"rcond": 1e-4}}
    yield {"name": "float64_batch_15x11", "args": (_spectral(g, 2, 15, 11, dtype=torch.float64),), "kwargs": {}}


def perf_inputs(g, params):
    return (_spectral(g, params["batch"], params["m"], params["n"]),), {"full_matrices": False}


def perf_cost(params):
    b, m, n = params["batch"], params["m"], params["n"]
    # float32, m >= n: read A (m, n) and write A^+ (n, m) per matrix; FLOPs: a reduced SVD
    # (4 m^2 n + 8 m n^2 + 9 n^3, Golub-Kahan estimate) plus V diag(s^+) U^T, 2 m n^2
    return {"bytes": 4 * b * 2 * m * n, "flops": b * (4 * m * m * n + 8 * m * n * n + 9 * n ** 3 + 2 * m * n * n)}
