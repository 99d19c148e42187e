import torch

META = {
    "id": "LinearAlgebra/matrix_power_eig",
    "category": "LinearAlgebra",
    "stem": "matrix_power_eig",
    "entry": "matrix_power_eig",
    "signature": "def matrix_power_eig(A, k, *, out=None) -> Tensor",
    "description": (
        "Matrix power A^k = V diag(L^k) V^-1 of every diagonalizable matrix of A (*, n, n) through "
        "its eigen-decomposition (L, V = eig(A)), for a real or complex exponent k (a Python int, "
        "float or complex; L^k is the principal power). The result is complex: complex64 for "
        "float32 / complex64 input, complex128 for float64 / complex128, shape (*, n, n). Inputs "
        "are S diag(lambda) S^-1 with cond(S) ~2 and well-separated eigenvalues; non-integer "
        "exponents only meet eigenvalues with positive real part (away from the branch cut), "
        "integer exponents also meet negative and complex-conjugate eigenvalues."
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
        "A^k is unique (principal branch, eigenvalues kept off the negative real axis for "
        "non-integer k), so it is compared directly, as (re, im) pairs, against a float64 oracle. "
        "The float32 error is about (|k| + 1) * cond(S)^2 * eps * |A^k| with |lambda|^k <= ~8: "
        "~1e-5, hence 1e-4."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "batch4096_n8", "params": {"batch": 4096, "n": 8}},
        {"name": "batch512_n32", "params": {"batch": 512, "n": 32}},
        {"name": "batch32_n128", "params": {"batch": 32, "n": 128}},
        {"name": "batch2_n512", "params": {"batch": 2, "n": 512}},
    ],
}


def reference(A, k, *, out=None):
    L, V = torch.linalg.eig(A)
    res = (V * (L ** k)[..., None, :]) @ torch.linalg.inv(V)
    if out is not None:
        out.copy_(res)
        return out
    return res


def _diagonalizable(g, *batch_n, dtype=torch.float32, lo=0.5, hi=2.0, pairs=0, complex_input=False):
    """S diag(lambda) S^-1, S = I + 0.3 M / sqrt(n); lambda evenly spread in [lo, hi] (shuffled);
    the first `pairs` eigenvalue slots become conjugate pairs a +- 0.5i (integer powers only)."""
    *batch, n = batch_n
    m = g.randn(*batch, n, n, dtype=torch.float64) * (0.3 / n ** 0.5)
    s = m + torch.eye(n, dtype=torch.float64, device=m.device)
    lam = torch.linspace(lo, hi, n, dtype=torch.float64, device=m.device) if n > 1 else \
        torch.full((1,), hi, dtype=torch.float64, device=m.device)
    lam = lam[g.perm(n)]
    if complex_input:
        s = s.to(torch.complex128) + 1j * (g.randn(*batch, n, n, dtype=torch.float64) * (0.3 / n ** 0.5))
        d = torch.diag_embed(lam.to(torch.complex128) + 1j * g.rand(n, low=-0.5, high=0.5, dtype=torch.float64))
        return (s @ d @ torch.linalg.inv(s)).to(dtype)
    d = torch.diag_embed(lam).expand(*batch, n, n).clone()
    for p in range(pairs):
        i = 2 * p
        d[..., i + 1, i + 1] = d[..., i, i]
        d[..., i, i + 1] = -0.5
        d[..., i + 1, i] = 0.5
    return (s @ d @ torch.linalg.inv(s)).to(dtype)


def edge_cases(g):
    yield {"name": "n1_sqrt", "args": (g.tensor([[4.0]]), 0.5), "kwargs": {}}
    yield {"name": "k0_identity", "args": (_diagonalizable(g, 5), 0), "kwargs": {}}
    yield {"name": "k1_same_matrix", "args": (_diagonalizable(g, 6), 1), "kwargs": {}}
    yield {"name": "k_minus1_inverse", "args": (_diagonalizable(g, 7), -1), "kwargs": {}}
    yield {"name": "diagonal_k3_negative_eigs", "args": (g.tensor([[2.0, 0.0, 0.0], [0.0, -1.5, 0.0], [0.0, 0.0, 0.5]]), 3),
           "kwargs": {}}
    yield {"name": "rotation_k2", "args": (g.tensor([[0.0, -1.0], [1.0, 0.0]]), 2), "kwargs": {}}
    yield {"name": "sqrt_float_k", "args": (_diagonalizable(g, 8), 0.5), "kwargs": {}}
    yield {"name": "conjugate_pairs_k3", "args": (_diagonalizable(g, 6, lo=-1.5, hi=1.5, pairs=2), 3), "kwargs": {}}
    yield {"name": "complex_exponent", "args": (_diagonalizable(g, 5), 0.5 + 0.25j), "kwargs": {}}
    yield {"name": "complex64_input_k2", "args": (_diagonalizable(g, 6, dtype=torch.complex64, complex_input=True), 2),
           "kwargs": {}}
    yield {"name": "batch_2x3_n4_k1.5", "args": (_diagonalizable(g, 2, 3, 4), 1.5), "kwargs": {}}
    yield {"name": "non_contiguous_k2", "args": (_diagonalizable(g, 9).t(), 2), "kwargs": {}}
    yield {"name": "float64_n12_k-0.5", "args": (_diagonalizable(g, 12, dtype=torch.float64), -0.5), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_n8_k3", "args": (_diagonalizable(g, 8, lo=-2.0, hi=2.0), 3), "kwargs": {}}
    yield {"name": "randn_batch_n13_k0.3", "args": (_diagonalizable(g, 2, 13), 0.3), "kwargs": {}}
    yield {"name": "randn_n24_k2_pairs", "args": (_diagonalizable(g, 24, lo=-1.5, hi=1.5, pairs=3), 2), "kwargs": {}}
    yield {"name": "complex64_batch_n10_k1.5", "args": (_diagonalizable(g, 2, 10, dtype=torch.complex64,
                                                                          complex_input=True), 1.5), "kwargs": {}}
    yield {"name": "float64_batch_n11_k-2", "args": (_diagonalizable(g, 2, 11, dtype=torch.float64), -2), "kwargs": {}}


def perf_inputs(g, params):
    return (_diagonalizable(g, params["batch"], params["n"]), 0.5), {}


def perf_cost(params):
    b, n = params["batch"], params["n"]
    # float32 A (n, n) read, complex64 A^k (n, n) written per matrix; FLOPs: eig with vectors
    # (~25 n^3), V^-1 (2 n^3) and the product V diag V^-1 (2 n^3), complex arithmetic not weighted
    return {"bytes": b * (4 * n * n + 8 * n * n), "flops": b * 29 * n ** 3}
