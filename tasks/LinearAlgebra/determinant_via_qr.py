import torch

META = {
    "id": "LinearAlgebra/determinant_via_qr",
    "category": "LinearAlgebra",
    "stem": "determinant_via_qr",
    "entry": "determinant_via_qr",
    "signature": "determinant_via_qr(A, *, mode='reduced', out=None) -> Tensor",
    "description": (
        "Determinant of every square matrix of A (*, n, n) through a QR decomposition A = Q R: "
        "det(A) = det(Q) * prod(diag(R)), where det(Q) = +-1 for a real orthogonal Q (for a "
        "Householder QR, (-1) to the number of non-trivial reflections). The result has shape (*) "
        "(0-d for a single matrix) and A's dtype. mode ('reduced' or 'complete', identical for "
        "square matrices) is passed to the QR. Inputs are well-conditioned general matrices "
        "(I + 0.5 M / sqrt(n), rows shuffled, |det| within a few orders of magnitude of 1); "
        "float32 and float64. If out is given the result is also written there."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-9],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "The determinant is unique, so it is compared directly against a float64 oracle; a "
        "backward-stable QR gives diag(R) with relative errors about n * eps, and det's relative "
        "error is their sum times cond(A) (~3): ~1e-5 in float32 for n <= 64, hence rtol 1e-4; "
        "the small atol only matters for (near-)zero determinants."
    ),
    "notes": (
        "mode='r' is not exercised: it returns an empty Q, so det(Q) cannot be taken as the "
        "spec describes. Complex inputs are not exercised (real float32/float64 only)."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"A": [["add_eye", 3.0]]},
    "perf_shapes": [
        {"name": "batch16384_n8", "params": {"batch": 16384, "n": 8}},
        {"name": "batch4096_n32", "params": {"batch": 4096, "n": 32}},
        {"name": "batch512_n128", "params": {"batch": 512, "n": 128}},
        {"name": "batch32_n512", "params": {"batch": 32, "n": 512}},
    ],
}


def reference(A, *, mode='reduced', out=None):
    Q, R = torch.linalg.qr(A, mode=mode)
    res = torch.linalg.det(Q) * torch.prod(torch.diagonal(R, dim1=-2, dim2=-1), dim=-1)
    if out is not None:
        out.copy_(res)
        return out
    return res


def _mat(g, *batch_n, dtype=torch.float32, mode="randn"):
    """I + 0.5 M / sqrt(n) (eigenvalues within ~0.5 of 1, cond ~3), rows shuffled."""
    *batch, n = batch_n
    draw = g.randn if mode == "randn" else g.outlier
    m = draw(*batch, n, n, dtype=torch.float64) * (0.5 / n ** 0.5)
    if mode != "randn":
        m = m.clamp(-1.5, 1.5)
    a = m + torch.eye(n, dtype=torch.float64, device=m.device)
    if n > 1:
        a = a[..., g.perm(n), :]
    return a.to(dtype)


def _eye(n):
    return [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]


def edge_cases(g):
    yield {"name": "n1_negative", "args": (g.tensor([[-2.5]]),), "kwargs": {}}
    yield {"name": "n2_hand", "args": (g.tensor([[3.0, 1.0], [4.0, 2.0]]),), "kwargs": {}}
    yield {"name": "identity_n6", "args": (g.tensor(_eye(6)),), "kwargs": {}}
    yield {"name": "rotation_n2", "args": (g.tensor([[0.6, -0.8], [0.8, 0.6]]),), "kwargs": {}}
    yield {"name": "permutation_odd_n4", "args": (g.tensor([[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0],
                                                             [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]),), "kwargs": {}}
    yield {"name": "negative_diagonal_n5", "args": (g.tensor([[-1.0 if i == j else 0.0 for j in range(5)]
                                                              for i in range(5)]),), "kwargs": {}}
    yield {"name": "zero_leading_pivot_n3", "args": (g.tensor([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [2.0, 0.0, 3.0]]),),
           "kwargs": {}}
    yield {"name": "mode_complete_n9", "args": (_mat(g, 9),), "kwargs": {"mode": "complete"}}
    yield {"name": "batch_2x3_n6", "args": (_mat(g, 2, 3, 6),), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (_mat(g, 13).t(),), "kwargs": {}}
    yield {"name": "float64_n20", "args": (_mat(g, 20, dtype=torch.float64),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n16", "args": (_mat(g, 16),), "kwargs": {}}
    yield {"name": "randn_batch_n31", "args": (_mat(g, 4, 31),), "kwargs": {}}
    yield {"name": "randn_n64", "args": (_mat(g, 64),), "kwargs": {}}
    yield {"name": "outlier_batch_n24", "args": (_mat(g, 3, 24, mode="outlier"),), "kwargs": {}}
    yield {"name": "float64_batch_n13", "args": (_mat(g, 2, 13, dtype=torch.float64),), "kwargs": {}}


def perf_inputs(g, params):
    return (_mat(g, params["batch"], params["n"]),), {"mode": "reduced"}


def perf_cost(params):
    b, n = params["batch"], params["n"]
    # float32: read A (n, n) per matrix, write one determinant; Householder QR costs 4/3 n^3 FLOPs
    return {"bytes": 4 * b * (n * n + 1), "flops": b * 4 * n ** 3 // 3}
