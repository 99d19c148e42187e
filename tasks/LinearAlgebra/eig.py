import torch

META = {
    "id": "LinearAlgebra/eig",
    "category": "LinearAlgebra",
    "stem": "eig",
    "entry": "eig",
    "signature": "def linalg.eig(A, *, out=None) -> (Tensor, Tensor) Args: A (Tensor): tensor of shape `(*, n, n)` where `*` is zero or more batch dimensions consisting of diagonalizable matrices. Keyword args: out (tuple, optional): output tuple of two tensors. Ignored if `None`. Default: `None`.",
    "description": (
        "Eigen-decomposition A = V diag(L) V^-1 of every (diagonalizable, non-symmetric) matrix of "
        "A (*, n, n). Returns the eigenvalues L (*, n) and the eigenvectors V (*, n, n) (column j "
        "belongs to L[j], Euclidean norm 1), both complex (complex64 for float32 / complex64 input, "
        "complex128 for float64 / complex128), in any order. Inputs are S diag(lambda) S^-1 with a "
        "well-conditioned S (cond ~2) and well-separated eigenvalues (distinct real parts at least "
        "0.5 apart, or complex-conjugate pairs a +- ib with |b| >= 0.5), so eigenvectors are unique "
        "up to a unit phase."
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
        "Order and phase are free, so drive() sorts the eigenpairs by the key 100 * Re(L) + Im(L) "
        "(robust: real parts differ by >= 0.5 or are conjugate-equal with |Im| >= 0.5) and compares "
        "the eigenvalues plus the phase-free projectors v_j v_j^H (*, n, n, n) against a float64 "
        "oracle; complex outputs are compared as (re, im) pairs under their component dtype. "
        "Eigenvector error ~ eps * |A| * cond(S) / gap ~ 1e-6 in float32 for |A| <= ~12, so 1e-4."
    ),
    "notes": "The spec's signature field includes its argument docs; copied as given.",
    "perf_cost_note": (
        "The entry only writes L (n) and V (n, n); the (n, n, n) projectors exist only in drive()'s "
        "comparison form, so they are not counted."
    ),
    "tf32": False,
    "drive_checks": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"A": ["sym", ["add_eye", 1e-3]]},
    "perf_shapes": [
        {"name": "batch4096_n8", "params": {"batch": 4096, "n": 8}},
        {"name": "batch512_n32", "params": {"batch": 512, "n": 32}},
        {"name": "batch32_n128", "params": {"batch": 32, "n": 128}},
        {"name": "batch2_n512", "params": {"batch": 2, "n": 512}},
    ],
}


def reference(A, *, out=None):
    return torch.linalg.eig(A, out=out)


def drive(fn, args, kwargs):
    """Calls the entry and returns order- and phase-free quantities; see tolerance_note."""
    L, V = fn(*args, **kwargs)
    key = 100.0 * L.real + L.imag
    idx = torch.argsort(key, dim=-1)
    Ls = torch.gather(L, -1, idx)
    Vs = torch.gather(V, -1, idx[..., None, :].expand(V.shape))
    cols = Vs.transpose(-2, -1)  # (*, n, n): row j = eigenvector j
    P = cols[..., :, :, None] * cols.conj()[..., :, None, :]
    return {"L": Ls, "P": P}


def _diagonalizable(g, *batch_n, dtype=torch.float32, pairs=0, complex_input=False, spacing=1.0):
    """S diag(lambda) S^-1 with S = I + 0.3 M / sqrt(n); lambda: distinct reals spaced by
    `spacing` (shuffled), the first `pairs` of them turned into conjugate pairs a +- ib."""
    *batch, n = batch_n
    m = g.randn(*batch, n, n, dtype=torch.float64) * (0.3 / n ** 0.5)
    s = m + torch.eye(n, dtype=torch.float64, device=m.device)
    lam = (torch.arange(n, dtype=torch.float64, device=m.device) - (n - 1) / 2.0) * spacing
    lam = lam[g.perm(n)] + 0.2 * g.rand(n, low=-1.0, high=1.0, dtype=torch.float64) * spacing
    if complex_input:
        s = s.to(torch.complex128) + 1j * (g.randn(*batch, n, n, dtype=torch.float64) * (0.3 / n ** 0.5))
        im = g.rand(n, low=-1.0, high=1.0, dtype=torch.float64)
        d = torch.diag_embed(lam.to(torch.complex128) + 1j * im)
        a = s @ d @ torch.linalg.inv(s)
        return a.to(dtype)
    d = torch.diag_embed(lam).expand(*batch, n, n).clone()
    for p in range(pairs):
        i = 2 * p
        a_, b_ = d[..., i, i].clone(), 0.5 + 0.5 * float(p % 3)
        d[..., i + 1, i + 1] = a_
        d[..., i, i + 1] = -b_
        d[..., i + 1, i] = b_
    a = s @ d @ torch.linalg.inv(s)
    return a.to(dtype)


def edge_cases(g):
    yield {"name": "n1", "args": (g.tensor([[-2.5]]),), "kwargs": {}}
    yield {"name": "diagonal_n4", "args": (g.tensor([[3.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0],
                                                     [0.0, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 2.0]]),), "kwargs": {}}
    yield {"name": "upper_triangular_n3", "args": (g.tensor([[1.0, 2.0, 3.0], [0.0, 4.0, 5.0], [0.0, 0.0, -2.0]]),),
           "kwargs": {}}
    yield {"name": "rotation_scaling_n2", "args": (g.tensor([[1.0, -2.0], [2.0, 1.0]]),), "kwargs": {}}
    yield {"name": "symmetric_n3", "args": (g.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 5.0]]),), "kwargs": {}}
    yield {"name": "conjugate_pairs_n6", "args": (_diagonalizable(g, 6, pairs=2),), "kwargs": {}}
    yield {"name": "batch_2x3_n5", "args": (_diagonalizable(g, 2, 3, 5),), "kwargs": {}}
    yield {"name": "complex64_n7", "args": (_diagonalizable(g, 7, dtype=torch.complex64, complex_input=True),),
           "kwargs": {}}
    yield {"name": "non_contiguous", "args": (_diagonalizable(g, 9).t(),), "kwargs": {}}
    yield {"name": "float64_n12", "args": (_diagonalizable(g, 12, dtype=torch.float64, pairs=1),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n8", "args": (_diagonalizable(g, 8),), "kwargs": {}}
    yield {"name": "randn_batch_n13_pairs", "args": (_diagonalizable(g, 2, 13, pairs=3),), "kwargs": {}}
    yield {"name": "randn_n24", "args": (_diagonalizable(g, 24, spacing=0.5),), "kwargs": {}}
    yield {"name": "complex64_batch_n10", "args": (_diagonalizable(g, 2, 10, dtype=torch.complex64, complex_input=True),),
           "kwargs": {}}
    yield {"name": "float64_batch_n11", "args": (_diagonalizable(g, 2, 11, dtype=torch.float64, pairs=2),), "kwargs": {}}


def perf_inputs(g, params):
    return (_diagonalizable(g, params["batch"], params["n"]),), {}


def perf_cost(params):
    b, n = params["batch"], params["n"]
    # float32 input (n, n) read, complex64 L (n) and V (n, n) written per matrix;
    # FLOPs: the usual ~25 n^3 estimate for the non-symmetric QR algorithm with eigenvectors
    return {"bytes": b * (4 * n * n + 8 * n + 8 * n * n), "flops": b * 25 * n ** 3}
