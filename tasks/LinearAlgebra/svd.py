import torch

META = {
    "id": "LinearAlgebra/svd",
    "category": "LinearAlgebra",
    "stem": "svd",
    "entry": "svd",
    "signature": "def linalg.svd(A, full_matrices=True, *, driver=None, out=None) -> (Tensor, Tensor, Tensor)",
    "description": (
        "Singular value decomposition A = U diag(S) Vh of every matrix of A (*, m, n), k = min(m, n). "
        "S (*, k) holds the singular values in descending order (real, A's dtype). With "
        "full_matrices=True U is (*, m, m) and Vh (*, n, n), both orthogonal; with False U is "
        "(*, m, k) and Vh (*, k, n) with orthonormal columns / rows. driver (a cuSOLVER choice) "
        "does not change the result and is always None here. Inputs are N(0, 1) matrices (some "
        "with outliers, some of exactly deficient rank); float32 and float64."
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
        "U and Vh are not unique (signs, and any basis of a repeated or zero singular value's "
        "subspace), so drive() compares invariants against a float64 oracle: S itself, the "
        "reconstruction U[:, :k] diag(S) Vh[:k] (= A), U^T U (= I) and Vh Vh^T (= I). A "
        "backward-stable SVD gives errors about max(m, n) * eps * |A| in float32, ~1e-5 for these "
        "sizes (|A| <= ~60 with outliers clamped), hence 1e-4."
    ),
    "tf32": False,
    "drive_checks": True,
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


def reference(A, full_matrices=True, *, driver=None, out=None):
    return torch.linalg.svd(A, full_matrices=full_matrices, driver=driver, out=out)


def drive(fn, args, kwargs):
    """Calls the entry and returns sign/basis-invariant quantities; see tolerance_note."""
    A = args[0]
    U, S, Vh = fn(*args, **kwargs)
    k = min(A.shape[-2], A.shape[-1])
    recon = (U[..., :, :k] * S[..., None, :].to(U.dtype)) @ Vh[..., :k, :]
    return {"S": S, "USVh": recon, "UtU": U.mH @ U, "VhVt": Vh @ Vh.mH}


def _mat(g, *shape, dtype=torch.float32, mode="randn"):
    if mode == "randn":
        return g.randn(*shape, dtype=dtype)
    return g.outlier(*shape, dtype=torch.float64).clamp(-60.0, 60.0).to(dtype)


def edge_cases(g):
    yield {"name": "n1x1_negative", "args": (g.tensor([[-3.0]]),), "kwargs": {}}
    yield {"name": "column_vector", "args": (g.tensor([[3.0], [0.0], [-4.0]]),), "kwargs": {}}
    yield {"name": "row_vector_reduced", "args": (g.tensor([[2.0, -1.0, 5.0, 0.5]]), False), "kwargs": {}}
    yield {"name": "diagonal_unsorted", "args": (g.tensor([[1.0, 0.0, 0.0], [0.0, -3.0, 0.0], [0.0, 0.0, 2.0]]),),
           "kwargs": {}}
    yield {"name": "zero_matrix", "args": (g.tensor([[0.0] * 4 for _ in range(3)]),), "kwargs": {}}
    yield {"name": "rank1_5x4", "args": (g.tensor([[float((i + 1) * (j - 1.5)) for j in range(4)] for i in range(5)]),),
           "kwargs": {}}
    yield {"name": "orthogonal_n3_repeated", "args": (g.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]]),),
           "kwargs": {}}
    yield {"name": "tall_reduced_12x5", "args": (g.randn(12, 5),), "kwargs": {"full_matrices": False}}
    yield {"name": "wide_full_4x9", "args": (g.randn(4, 9),), "kwargs": {}}
    yield {"name": "batch_2x3_6x4", "args": (g.randn(2, 3, 6, 4), False), "kwargs": {}}
    yield {"name": "driver_none", "args": (g.randn(7, 7),), "kwargs": {"driver": None}}
    yield {"name": "non_contiguous", "args": (g.randn(9, 13).t(),), "kwargs": {}}
    yield {"name": "float64_20x12", "args": (g.randn(20, 12, dtype=torch.float64),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_16x16", "args": (_mat(g, 16, 16),), "kwargs": {}}
    yield {"name": "randn_batch_33x17_reduced", "args": (_mat(g, 2, 33, 17),), "kwargs": {"full_matrices": False}}
    yield {"name": "randn_48x32", "args": (_mat(g, 48, 32),), "kwargs": {}}
    yield {"name": "wide_batch_10x27_reduced", "args": (_mat(g, 2, 10, 27),), "kwargs": {"full_matrices": False}}
    yield {"name": "outlier_batch_24x24", "args": (_mat(g, 3, 24, 24, mode="outlier"),), "kwargs": {}}
    yield {"name": "float64_batch_15x11", "args": (_mat(g, 2, 15, 11, dtype=torch.float64),), "kwargs": {}}


def perf_inputs(g, params):
    return (g.randn(params["batch"], params["m"], params["n"]),), {"full_matrices": False}


def perf_cost(params):
    b, m, n = params["batch"], params["m"], params["n"]
    # float32, m >= n, reduced: read A (m, n), write U (m, n), S (n), Vh (n, n) per matrix;
    # FLOPs: the classical Golub-Kahan estimate 4 m^2 n + 8 m n^2 + 9 n^3 for U, S and V
    return {"bytes": 4 * b * (2 * m * n + n + n * n), "flops": b * (4 * m * m * n + 8 * m * n * n + 9 * n ** 3)}
