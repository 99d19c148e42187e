import torch

META = {
    "id": "Normalization/spectral_norm_eig",
    "category": "Normalization",
    "stem": "spectral_norm_eig",
    "entry": "spectral_norm_eig",
    "signature": "spectral_norm_eig(A, *, out=None) -> Tensor",
    "description": (
        "Spectral norm of square matrices computed through their eigenvalues: for A of shape "
        "(*, n, n) the result (*) holds max |lambda| over the (possibly complex) eigenvalues of each "
        "matrix, in the real dtype of A (float32 or float64 here; complex inputs are not tested). "
        "All test matrices are normal (A A^T = A^T A: symmetric, skew-symmetric, scaled orthogonal and "
        "Q diag-of-rotation-blocks Q^T), where the largest |eigenvalue| equals the operator 2-norm, "
        "so a spectral-radius and a largest-singular-value implementation agree; eigenvalues of equal "
        "modulus and opposite sign or complex-conjugate pairs occur. out, when given, receives the result."
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
        "Judged against a float64 oracle (eigenvalues of the very input matrix): a float32 method "
        "(eigen-solver, power or squaring iterations) reaches ~1e-6 relative on these normal, "
        "well-separated-or-exactly-tied spectra, so rtol 1e-4 leaves a margin without admitting a "
        "wrong eigenvalue; atol 1e-5 only matters for the zero matrix."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # Small batches: torch.linalg.eigvals on CUDA costs ~1-13 ms per matrix on an H200 (host-side
    # eigen-solver), so 4096 16x16 matrices took 3.9 s per reference call and this one task held a GPU
    # for ~200 s of a perf stage (bench/results/2026-11-30-h200x2-3runs). These keep a reference call
    # near 15 ms; the seed times single matrices (4x4 to 128x128).
    "perf_shapes": [
        {"name": "16x16x16", "params": {"batch": 16, "n": 16}},
        {"name": "8x32x32", "params": {"batch": 8, "n": 32}},
        {"name": "4x64x64", "params": {"batch": 4, "n": 64}},
        {"name": "1x128x128", "params": {"batch": 1, "n": 128}},
    ],
}


def reference(A, *, out=None):
    r = torch.linalg.eigvals(A).abs().amax(-1)
    if out is not None:
        out.resize_(r.shape)
        out.copy_(r)
        return out
    return r


def _sym(g, *shape, outlier=False):
    b = g.outlier(*shape, dtype=torch.float64) if outlier else g.randn(*shape, dtype=torch.float64)
    return (b + b.transpose(-1, -2)) * 0.5


def _orth(g, n):
    q, r = torch.linalg.qr(g.randn(n, n, dtype=torch.float64))
    return q * torch.sign(torch.diagonal(r)).unsqueeze(0)


def _rot_blocks(g, n, radii):
    """Q blockdiag(r_k * R(phi_k)) Q^T: complex-conjugate eigenvalue pairs r_k e^{+-i phi_k}."""
    m = torch.zeros(n, n, dtype=torch.float64, device=g.device)
    phis = g.rand(len(radii), low=0.2, high=2.9, dtype=torch.float64).tolist()
    for k, (rad, phi) in enumerate(zip(radii, phis)):
        c, s = rad * torch.cos(torch.tensor(phi)).item(), rad * torch.sin(torch.tensor(phi)).item()
        m[2 * k, 2 * k], m[2 * k, 2 * k + 1], m[2 * k + 1, 2 * k], m[2 * k + 1, 2 * k + 1] = c, -s, s, c
    q = _orth(g, n)
    return q @ m @ q.t()


def _similar(q, eig):
    """q diag(eig) q^T: a symmetric matrix with the given eigenvalues."""
    return q @ torch.diag(eig.to(torch.float64)) @ q.t()


def _c(name, A, dtype=torch.float32):
    return {"name": name, "args": (A.to(dtype),), "kwargs": {}}


def edge_cases(g):
    yield _c("1x1_negative", g.tensor([[-2.5]]))
    yield _c("zero_matrix", g.tensor([[0.0] * 5] * 5))
    yield _c("identity", torch.eye(7, device=g.device))
    yield _c("diag_equal_modulus_opposite_sign", torch.diag(g.tensor([3.0, -3.0, 1.0, 0.5])))
    yield _c("negative_dominant_symmetric", _similar(_orth(g, 5), g.tensor([-4.0, 2.0, 1.0, -1.0, 0.1])))
    yield _c("skew_symmetric_imaginary", (lambda b: b - b.t())(g.randn(9, 9, dtype=torch.float64)))
    yield _c("scaled_orthogonal_all_equal_modulus", _orth(g, 12) * 2.5)
    yield _c("rotation_pairs_dominate", _rot_blocks(g, 8, [3.0, 1.0, 0.5, 0.25]))
    yield _c("repeated_top_eigenvalue", _similar(_orth(g, 6), g.tensor([2.0, 2.0, 2.0, 1.0, -1.5, 0.0])))
    yield _c("tiny_scale_1e-15", _sym(g, 10, 10) * 1e-15)
    yield _c("huge_scale_1e15", _sym(g, 10, 10) * 1e15)
    yield _c("batched_2x3", _sym(g, 2, 3, 6, 6))
    yield _c("float64_symmetric", _sym(g, 20, 20), torch.float64)
    yield _c("float64_rotation_pairs", _rot_blocks(g, 10, [1.5, 1.4, 0.3, 0.2, 0.1]), torch.float64)
    yield _c("non_contiguous_transposed", _sym(g, 3, 9, 9).transpose(0, 2).transpose(0, 1).contiguous()
             .transpose(0, 1).transpose(0, 2))


def random_cases(g):
    yield _c("randn_symmetric_odd_37", _sym(g, 37, 37))
    yield _c("randn_symmetric_batched_4x16", _sym(g, 4, 16, 16))
    yield _c("outlier_symmetric_33", _sym(g, 33, 33, outlier=True))
    yield _c("rotation_pairs_24", _rot_blocks(g, 24, g.rand(12, low=0.1, high=3.0).tolist()))
    yield _c("skew_symmetric_odd_21", (lambda b: b - b.t())(g.randn(21, 21, dtype=torch.float64)))
    yield _c("float64_symmetric_50", _sym(g, 50, 50), torch.float64)


def perf_inputs(g, params):
    return (_sym(g, params["batch"], params["n"], params["n"]).float(),), {}


def perf_cost(params):
    b, n = params["batch"], params["n"]
    # bytes: read the matrices, write one value each; flops: a dense eigen-solver's ~10 n^3
    return {"bytes": 4 * (b * n * n + b), "flops": 10 * b * n ** 3}
