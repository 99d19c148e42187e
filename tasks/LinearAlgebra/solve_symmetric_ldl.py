import torch

META = {
    "id": "LinearAlgebra/solve_symmetric_ldl",
    "category": "LinearAlgebra",
    "stem": "solve_symmetric_ldl",
    "entry": "solve_symmetric_ldl",
    "signature": "solve_symmetric_ldl(A, b, *, hermitian=False, out=None) -> Tensor",
    "description": (
        "Solves A x = b for a real symmetric, possibly indefinite A (*, n, n) through an LDL^T "
        "factorization of A. b is (*, n, k), or a vector right-hand side: b of shape (n,) or (*, n) "
        "with (*) equal to A's batch shape, giving x of b's shape; dtype is A's. hermitian has no "
        "effect for real inputs. Inputs are well-conditioned: eigenvalues of both signs with "
        "|lambda| in [0.5, 3] (cond <= 6), some with zero diagonals; float32 and float64. If out is "
        "given the result is also written there."
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
        "The solution is unique, so it is compared directly against a float64 oracle; with "
        "cond(A) <= 6 and n <= 40 a backward-stable symmetric solve gives float32 errors about "
        "cond * n * eps * |x| ~ 1e-5, hence 1e-4."
    ),
    "notes": (
        "The spec reconstructs A from L and D and calls torch.linalg.solve; with Bunch-Kaufman "
        "pivoting that reconstruction needs the pivots, so the reference uses the equivalent "
        "torch.linalg.ldl_factor + torch.linalg.ldl_solve (same solution x = A^-1 b)."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"A": ["sym", ["add_eye", 1e-3]]},
    "perf_shapes": [
        {"name": "batch4096_n16_k1", "params": {"batch": 4096, "n": 16, "k": 1}},
        {"name": "batch1024_n64_k16", "params": {"batch": 1024, "n": 64, "k": 16}},
        {"name": "batch64_n256_k64", "params": {"batch": 64, "n": 256, "k": 64}},
        {"name": "batch4_n1024_k256", "params": {"batch": 4, "n": 1024, "k": 256}},
    ],
}


def reference(A, b, *, hermitian=False, out=None):
    vec = b.dim() == 1 or (b.dim() == A.dim() - 1 and tuple(b.shape) == tuple(A.shape[:-1]))
    B = b.unsqueeze(-1) if vec else b
    LD, piv = torch.linalg.ldl_factor(A, hermitian=hermitian)
    if B.dim() > LD.dim():
        LD = LD.expand(*B.shape[:-2], *LD.shape[-2:])
        piv = piv.expand(*B.shape[:-2], piv.shape[-1])
    x = torch.linalg.ldl_solve(LD, piv, B, hermitian=hermitian)
    if vec:
        x = x.squeeze(-1)
    if out is not None:
        out.copy_(x)
        return out
    return x


def _sym(g, *batch_n, dtype=torch.float32, zero_diag=False):
    """Q diag(lambda) Q^T, Q random orthogonal, |lambda| in [0.5, 3] with random signs;
    zero_diag: the hollow variant [[0, B], [B^T, 0]] (B well-conditioned)."""
    *batch, n = batch_n
    if zero_diag:
        h = n // 2
        bm = g.randn(*batch, h, h, dtype=torch.float64) / (h ** 0.5)
        bm = bm + 2.0 * torch.eye(h, dtype=torch.float64, device=bm.device)
        a = torch.zeros(*batch, 2 * h, 2 * h, dtype=torch.float64, device=bm.device)
        a[..., :h, h:] = bm
        a[..., h:, :h] = bm.transpose(-2, -1)
        return a.to(dtype).to(g.device)
    q, _ = torch.linalg.qr(g.randn(*batch, n, n, dtype=torch.float64))
    lam = g.rand(*batch, n, low=0.5, high=3.0, dtype=torch.float64)
    lam = lam * torch.where(g.bernoulli(*batch, n), 1.0, -1.0).to(torch.float64)
    a = (q * lam[..., None, :]) @ q.transpose(-2, -1)
    a = 0.5 * (a + a.transpose(-2, -1))
    return a.to(dtype)


def edge_cases(g):
    yield {"name": "n1", "args": (g.tensor([[-2.0]]), g.tensor([3.0])), "kwargs": {}}
    yield {"name": "swap_2x2", "args": (g.tensor([[0.0, 1.0], [1.0, 0.0]]), g.tensor([[1.0, 2.0], [3.0, 4.0]])),
           "kwargs": {}}
    yield {"name": "spd_n3_vector", "args": (g.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.5, -1.0, 5.0]]),
                                             g.tensor([1.0, -2.0, 0.5])), "kwargs": {}}
    yield {"name": "identity_rhs_inverse", "args": (_sym(g, 6), g.tensor([[1.0 if i == j else 0.0 for j in range(6)]
                                                                         for i in range(6)])), "kwargs": {}}
    yield {"name": "hollow_n8", "args": (_sym(g, 8, zero_diag=True), g.randn(8, 3)), "kwargs": {}}
    yield {"name": "hermitian_flag_real", "args": (_sym(g, 7), g.randn(7, 2)), "kwargs": {"hermitian": True}}
    yield {"name": "batched_vector_rhs", "args": (_sym(g, 3, 5), g.randn(3, 5)), "kwargs": {}}
    yield {"name": "batch_2x2_n9", "args": (_sym(g, 2, 2, 9), g.randn(2, 2, 9, 4)), "kwargs": {}}
    yield {"name": "non_contiguous_rhs", "args": (_sym(g, 10), g.randn(3, 10).t()), "kwargs": {}}
    yield {"name": "float64_n20", "args": (_sym(g, 20, dtype=torch.float64), g.randn(20, 5, dtype=torch.float64)),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n16_k4", "args": (_sym(g, 16), g.randn(16, 4)), "kwargs": {}}
    yield {"name": "randn_batch_n31_k5", "args": (_sym(g, 2, 31), g.randn(2, 31, 5)), "kwargs": {}}
    yield {"name": "outlier_rhs_n40", "args": (_sym(g, 40), g.outlier(40, 7)), "kwargs": {}}
    yield {"name": "hollow_batch_n12_vec", "args": (_sym(g, 2, 12, zero_diag=True), g.randn(2, 12)), "kwargs": {}}
    yield {"name": "float64_batch_n13", "args": (_sym(g, 2, 13, dtype=torch.float64), g.randn(2, 13, 3, dtype=torch.float64)),
           "kwargs": {}}


def perf_inputs(g, params):
    b, n, k = params["batch"], params["n"], params["k"]
    return (_sym(g, b, n), g.randn(b, n, k)), {"hermitian": False}


def perf_cost(params):
    b, n, k = params["batch"], params["n"], params["k"]
    # float32: read A (n, n) and b (n, k), write x (n, k) per system;
    # LDL^T n^3 / 3 FLOPs plus the two triangular solves and the block-diagonal solve, ~2 n^2 k
    return {"bytes": 4 * b * (n * n + 2 * n * k), "flops": b * (n ** 3 // 3 + 2 * n * n * k)}
