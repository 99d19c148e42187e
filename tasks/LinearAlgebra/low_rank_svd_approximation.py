import torch

META = {
    "id": "LinearAlgebra/low_rank_svd_approximation",
    "category": "LinearAlgebra",
    "stem": "low_rank_svd_approximation",
    "entry": "low_rank_svd_approximation",
    "signature": "def low_rank_svd_approximation(A, k, *, full_matrices=True, out=None) -> Tensor",
    "description": (
        "Best rank-k approximation (in Frobenius norm) of every matrix of A (*, m, n): "
        "A_k = U_k diag(S_k) Vh_k from the k largest singular values and their singular vectors, "
        "1 <= k <= min(m, n). The result has A's shape and dtype; full_matrices (full or reduced "
        "SVD inside) does not change it. Inputs have distinct singular values spaced by at least "
        "~2.5 / min(m, n) (built as U0 diag(s) V0^T with s evenly spread in [0.5, 3]), so A_k is "
        "unique and well-conditioned; float32 and float64. If out is given the result is also "
        "written there."
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
        "A_k is unique when s_k > s_{k+1}; judged against a float64 oracle. Its float32 error is "
        "about eps * |A| * |A| / gap (|A| <= 3, gap >= ~0.08 for n <= 32): a few 1e-6, so 1e-4 "
        "leaves margin for any SVD algorithm."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "batch4096_16x16_k4", "params": {"batch": 4096, "m": 16, "n": 16, "k": 4}},
        {"name": "batch512_64x32_k8", "params": {"batch": 512, "m": 64, "n": 32, "k": 8}},
        {"name": "batch32_256x128_k16", "params": {"batch": 32, "m": 256, "n": 128, "k": 16}},
        {"name": "batch2_1024x512_k64", "params": {"batch": 2, "m": 1024, "n": 512, "k": 64}},
    ],
}


def reference(A, k, *, full_matrices=True, out=None):
    U, S, Vh = torch.linalg.svd(A, full_matrices=full_matrices)
    res = (U[..., :, :k] * S[..., None, :k].to(U.dtype)) @ Vh[..., :k, :]
    if out is not None:
        out.copy_(res)
        return out
    return res


def _spectral(g, *batch_mn, dtype=torch.float32, lo=0.5, hi=3.0, rank=None):
    """U0 diag(s) V0^T: U0, V0 random orthonormal, s evenly spread in [lo, hi] (descending, then
    zeros beyond `rank`)."""
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
    yield {"name": "n1x1", "args": (g.tensor([[-3.0]]), 1), "kwargs": {}}
    yield {"name": "diagonal_k2", "args": (g.tensor([[1.0, 0.0, 0.0], [0.0, -3.0, 0.0], [0.0, 0.0, 2.0]]), 2),
           "kwargs": {}}
    yield {"name": "rank1_exact_k1", "args": (g.tensor([[float((i + 1) * (j - 1.5)) for j in range(4)] for i in range(5)]), 1),
           "kwargs": {}}
    yield {"name": "k_full_rank_is_identity_map", "args": (_spectral(g, 6, 6), 6), "kwargs": {}}
    yield {"name": "k1_tall", "args": (_spectral(g, 12, 5), 1), "kwargs": {}}
    yield {"name": "wide_k3_reduced", "args": (_spectral(g, 4, 9), 3), "kwargs": {"full_matrices": False}}
    yield {"name": "batch_2x3_7x5_k2", "args": (_spectral(g, 2, 3, 7, 5), 2), "kwargs": {}}
    yield {"name": "rank_deficient_k_eq_rank", "args": (_spectral(g, 10, 8, rank=3), 3), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (_spectral(g, 13, 9).t(), 4), "kwargs": {}}
    yield {"name": "float64_20x12_k5", "args": (_spectral(g, 20, 12, dtype=torch.float64), 5), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_16x16_k4", "args": (_spectral(g, 16, 16), 4), "kwargs": {}}
    yield {"name": "randn_batch_33x17_k7", "args": (_spectral(g, 2, 33, 17), 7), "kwargs": {"full_matrices": False}}
    yield {"name": "randn_48x32_k16", "args": (_spectral(g, 48, 32), 16), "kwargs": {}}
    yield {"name": "wide_batch_10x27_k9", "args": (_spectral(g, 2, 10, 27), 9), "kwargs": {}}
    yield {"name": "wide_spread_24x24_k12", "args": (_spectral(g, 3, 24, 24, lo=0.05, hi=5.0), 12), "kwargs": {}}
    yield {"name": "float64_batch_15x11_k3", "args": (_spectral(g, 2, 15, 11, dtype=torch.float64), 3), "kwargs": {}}


def perf_inputs(g, params):
    return (_spectral(g, params["batch"], params["m"], params["n"]), params["k"]), {"full_matrices": False}


def perf_cost(params):
    b, m, n, k = params["batch"], params["m"], params["n"], params["k"]
    # float32, m >= n: read A and write A_k (m, n each) per matrix; FLOPs: a reduced SVD
    # (4 m^2 n + 8 m n^2 + 9 n^3, Golub-Kahan estimate) plus the rank-k product 2 m n k
    return {"bytes": 4 * b * 2 * m * n, "flops": b * (4 * m * m * n + 8 * m * n * n + 9 * n ** 3 + 2 * m * n * k)}
