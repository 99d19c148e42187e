import torch

META = {
    "id": "LinearAlgebra/cholesky",
    "category": "LinearAlgebra",
    "stem": "cholesky",
    "entry": "cholesky",
    "signature": "def linalg.cholesky(A, *, upper=False, out=None) -> Tensor",
    "description": (
        "Cholesky factor of a real symmetric positive-definite matrix A = L L^T, L lower "
        "triangular with a positive diagonal and exact zeros above it. A has shape (*, n, n) "
        "(any number of batch dimensions); the result has A's shape and dtype. With upper=True "
        "the upper-triangular U = L^T is returned instead (zeros below the diagonal). Inputs are "
        "well-conditioned (A = M M^T + n I); float32 and float64. If out is given the result is "
        "also written there."
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
        "Judged against a float64 oracle; Cholesky is backward stable, so for cond(A) <= ~5 and "
        "n <= 64 float32 factors are within a few hundred ulp of |L| (~sqrt(n)); TF32 is not "
        "allowed since a factorization needs full float32 accuracy."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"A": ["gram", "sym", ["add_eye", 1e-3]]},
    "perf_shapes": [
        {"name": "batch4096_n16", "params": {"batch": 4096, "n": 16}},
        {"name": "batch1024_n64", "params": {"batch": 1024, "n": 64}},
        {"name": "batch64_n256", "params": {"batch": 64, "n": 256}},
        {"name": "batch16_n512", "params": {"batch": 16, "n": 512}},
    ],
}


def reference(A, *, upper=False, out=None):
    return torch.linalg.cholesky(A, upper=upper, out=out)


def _spd(g, *batch_n, dtype=torch.float32, mode="randn"):
    *batch, n = batch_n
    draw = g.randn if mode == "randn" else g.outlier
    m = draw(*batch, n, n, dtype=torch.float64)
    a = m @ m.transpose(-2, -1) + n * torch.eye(n, dtype=torch.float64, device=m.device)
    return a.to(dtype)


def edge_cases(g):
    yield {"name": "n1_scalar_matrix", "args": (g.tensor([[4.0]]),), "kwargs": {}}
    yield {"name": "identity_n5", "args": (g.tensor([[1.0 if i == j else 0.0 for j in range(5)] for i in range(5)]),),
           "kwargs": {}}
    yield {"name": "diagonal_n7", "args": (g.tensor([[float(i + 1) ** 2 if i == j else 0.0 for j in range(7)]
                                                     for i in range(7)]),), "kwargs": {"upper": True}}
    yield {"name": "tridiagonal_n9", "args": (g.tensor([[4.0 if i == j else (-1.0 if abs(i - j) == 1 else 0.0)
                                                         for j in range(9)] for i in range(9)]),), "kwargs": {}}
    yield {"name": "n2_hand", "args": (g.tensor([[4.0, 2.0], [2.0, 3.0]]),), "kwargs": {}}
    yield {"name": "upper_n17", "args": (_spd(g, 17),), "kwargs": {"upper": True}}
    yield {"name": "batch_2x3_n6", "args": (_spd(g, 2, 3, 6),), "kwargs": {}}
    yield {"name": "batch_upper_n33", "args": (_spd(g, 2, 33),), "kwargs": {"upper": True}}
    yield {"name": "float64_n20", "args": (_spd(g, 20, dtype=torch.float64),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n16", "args": (_spd(g, 16),), "kwargs": {}}
    yield {"name": "randn_batch_n31", "args": (_spd(g, 3, 31),), "kwargs": {}}
    yield {"name": "randn_n64_upper", "args": (_spd(g, 64),), "kwargs": {"upper": True}}
    yield {"name": "outlier_batch_n24", "args": (_spd(g, 4, 24, mode="outlier"),), "kwargs": {}}
    yield {"name": "float64_batch_n13", "args": (_spd(g, 2, 13, dtype=torch.float64),), "kwargs": {}}
    # The seed's own call patterns (tasks/contracts.json): one float64 matrix, lower and upper.
    yield {"name": "float64_n21", "dist": "seed", "args": (_spd(g, 21, dtype=torch.float64),), "kwargs": {}}
    yield {"name": "float64_n19_upper", "dist": "seed", "args": (_spd(g, 19, mode="outlier", dtype=torch.float64),),
           "kwargs": {"upper": True}}


def perf_inputs(g, params):
    return (_spd(g, params["batch"], params["n"]),), {"upper": False}


def perf_cost(params):
    b, n = params["batch"], params["n"]
    # float32: read A (n, n) and write L (n, n, zeros above the diagonal included) per batch entry;
    # Cholesky factorization costs n^3 / 3 FLOPs per matrix (square roots counted 1, lower order dropped)
    return {"bytes": 4 * b * 2 * n * n, "flops": b * n ** 3 // 3}
