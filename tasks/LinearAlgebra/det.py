import torch

META = {
    "id": "LinearAlgebra/det",
    "category": "LinearAlgebra",
    "stem": "det",
    "entry": "det",
    "signature": "linalg.det(A, *, out=None) -> Tensor",
    "description": (
        "Determinant of every square matrix of A (*, n, n): the result has shape (*) (a 0-d tensor "
        "for a single matrix) and A's dtype. The matrices are general (not symmetric) and in general "
        "need row pivoting if computed through LU; exactly singular integer matrices give 0. Inputs "
        "are well-conditioned (I + 0.5 M / sqrt(n) with rows shuffled, so |det| stays within a few "
        "orders of magnitude of 1); float32 and float64. If out is given the result is also written there."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-9],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle; through a pivoted LU the relative error of det is the sum "
        "of the pivots' relative errors, about n * cond(A) * eps = 64 * 3 * 6e-8 ~ 1e-5 in float32, "
        "so rtol 1e-4; the small atol only matters for (near-)zero determinants."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "batch16384_n8", "params": {"batch": 16384, "n": 8}},
        {"name": "batch4096_n32", "params": {"batch": 4096, "n": 32}},
        {"name": "batch512_n128", "params": {"batch": 512, "n": 128}},
        {"name": "batch32_n512", "params": {"batch": 32, "n": 512}},
    ],
}


def reference(A, *, out=None):
    return torch.linalg.det(A, out=out)


def _mat(g, *batch_n, dtype=torch.float32, mode="randn", permute=True):
    """I + 0.5 M / sqrt(n) (eigenvalues within ~0.5 of 1, cond ~3), rows shuffled."""
    *batch, n = batch_n
    draw = g.randn if mode == "randn" else g.outlier
    m = draw(*batch, n, n, dtype=torch.float64) * (0.5 / n ** 0.5)
    if mode != "randn":
        m = m.clamp(-1.5, 1.5)
    a = m + torch.eye(n, dtype=torch.float64, device=m.device)
    if permute and n > 1:
        a = a[..., g.perm(n), :]
    return a.to(dtype)


def _eye(n):
    return [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]


def edge_cases(g):
    yield {"name": "n1", "args": (g.tensor([[-2.5]]),), "kwargs": {}}
    yield {"name": "n2_hand", "args": (g.tensor([[3.0, 1.0], [4.0, 2.0]]),), "kwargs": {}}
    yield {"name": "zero_leading_pivot_n3", "args": (g.tensor([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [2.0, 0.0, 3.0]]),),
           "kwargs": {}}
    yield {"name": "identity_n7", "args": (g.tensor(_eye(7)),), "kwargs": {}}
    yield {"name": "permutation_odd_n4", "args": (g.tensor([[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0],
                                                             [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]),), "kwargs": {}}
    yield {"name": "upper_triangular_n5", "args": (g.tensor([[2.0, 1.0, 3.0, -1.0, 0.5], [0.0, -1.5, 2.0, 1.0, 1.0],
                                                              [0.0, 0.0, 0.5, 4.0, -2.0], [0.0, 0.0, 0.0, 3.0, 1.0],
                                                              [0.0, 0.0, 0.0, 0.0, -2.0]]),), "kwargs": {}}
    # batch of three: the middle one is exactly singular (row 3 = row 1 + row 2), determinant 0
    yield {"name": "batch_with_singular", "args": (g.tensor([[[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]],
                                                             [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [5.0, 7.0, 9.0]],
                                                             [[0.0, 1.0, 2.0], [3.0, 0.0, 1.0], [1.0, 1.0, 0.0]]]),),
           "kwargs": {}}
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
    return (_mat(g, params["batch"], params["n"]),), {}


def perf_cost(params):
    b, n = params["batch"], params["n"]
    # float32: read A (n, n) per matrix, write one determinant; LU costs 2/3 n^3 FLOPs per matrix
    return {"bytes": 4 * b * (n * n + 1), "flops": b * 2 * n ** 3 // 3}
