import torch

META = {
    "id": "MatrixMultiply/tensordot_rsqrt",
    "category": "MatrixMultiply",
    "stem": "tensordot_rsqrt",
    "entry": "tensordot_rsqrt",
    "signature": "def tensordot_rsqrt(a: torch.Tensor, b: torch.Tensor, dims) -> torch.Tensor:",
    "description": (
        "Element-wise reciprocal square root of a tensor contraction: rsqrt(tensordot(a, b, dims)) "
        "with torch.tensordot's rules. dims is an int d (contract the last d dimensions of a with "
        "the first d of b, in order; d = 0 gives the outer product) or a pair of index lists "
        "(dims_a, dims_b), as a tuple or a list, naming the contracted dimensions of a and of b "
        "pairwise (negative indices allowed). The result has a's free dimensions followed by b's, "
        "in their original order, and the dtype of the inputs (float32 or float16). A zero "
        "contraction gives +inf, a negative one NaN. Accumulation in float32 is expected; float32 "
        "inputs may use TF32 tensor-core products."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-5, 2e-3],
        "float16": [1e-3, 5e-3],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "TF32 allowed: random cases contract positive data (sums far from zero, so the sign and the "
        "NaN/inf pattern are stable), where truncated TF32 biases the sum by at most ~1e-3 relative "
        "and rsqrt halves that; a truncated-TF32 emulation over 20 seeds stays below 0.5 of rtol "
        "2e-3 against the exact float64 result. Sign-changing data appears only as small integers, "
        "exact in every precision. float16 allows about 2 ulps of the rounded output."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"a": ["abs", ["add", 1e-3]], "b": ["abs", ["add", 1e-3]]},
    "perf_shapes": [
        {"name": "mm_1024_f32", "params": {"a": [1024, 1024], "b": [1024, 1024], "dims": 1, "dtype": "float32"}},
        {"name": "mm_4096_f32", "params": {"a": [4096, 4096], "b": [4096, 4096], "dims": 1, "dtype": "float32"}},
        {"name": "3d_dims2_f32", "params": {"a": [2048, 32, 64], "b": [32, 64, 2048], "dims": 2,
                                            "dtype": "float32"}},
        {"name": "lists_4096_f16", "params": {"a": [4096, 4096], "b": [4096, 4096], "dims": [[0], [1]],
                                              "dtype": "float16"}},
        {"name": "mm_8192_f32", "params": {"a": [8192, 8192], "b": [8192, 8192], "dims": 1, "dtype": "float32"}},
    ],
}


def reference(a, b, dims):
    return torch.rsqrt(torch.tensordot(a, b, dims=dims))


def _pos(g, *shape, dtype=torch.float32):
    return g.rand(*shape, low=0.1, high=1.0, dtype=dtype)


def edge_cases(g):
    # small integers, exact in TF32 and float32 accumulation: zero sums give +inf, negative sums NaN
    a = g.randint(-2, 3, 12, 8).float()
    b = g.randint(-2, 3, 8, 10).float()
    a[0].zero_()
    yield {"name": "integers_zero_negative_inf_nan", "args": (a, b, 1), "kwargs": {}}
    yield {"name": "dims0_outer", "args": (_pos(g, 3, 4), _pos(g, 5), 0), "kwargs": {}}
    yield {"name": "dims2_3d", "args": (_pos(g, 5, 6, 7), _pos(g, 6, 7, 9), 2), "kwargs": {}}
    yield {"name": "tuple_lists_permuted", "args": (_pos(g, 4, 5, 6), _pos(g, 6, 3, 4), ([0, 2], [2, 0])),
           "kwargs": {}}
    yield {"name": "list_of_lists_negative", "args": (_pos(g, 7, 20), _pos(g, 9, 20), [[-1], [-1]]),
           "kwargs": {}}
    yield {"name": "full_contraction_0d", "args": (_pos(g, 6, 5), _pos(g, 6, 5), 2), "kwargs": {}}
    yield {"name": "vector_dot_1d", "args": (_pos(g, 100), _pos(g, 100), 1), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (_pos(g, 40, 30).t(), _pos(g, 25, 40).t(), 1),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "mm_64x128x64", "args": (_pos(g, 64, 128), _pos(g, 128, 64), 1), "kwargs": {}}
    yield {"name": "odd_37x100x45", "args": (_pos(g, 37, 100), _pos(g, 100, 45), 1), "kwargs": {}}
    yield {"name": "abs_outlier_dims2", "args": (g.outlier(8, 16, 12, scale=10.0).abs() + 0.05,
                                                  g.outlier(16, 12, 33, scale=10.0).abs() + 0.05, 2), "kwargs": {}}
    yield {"name": "lists_4d", "args": (_pos(g, 3, 10, 4, 6), _pos(g, 6, 5, 10), ([1, 3], [2, 0])), "kwargs": {}}
    yield {"name": "f16", "args": (_pos(g, 48, 64, dtype=torch.float16), _pos(g, 64, 40, dtype=torch.float16), 1),
           "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    dims = params["dims"]
    if isinstance(dims, list):
        dims = (list(dims[0]), list(dims[1]))
    return (_pos(g, *params["a"], dtype=dtype), _pos(g, *params["b"], dtype=dtype), dims), {}


def perf_cost(params):
    a, b, dims = list(params["a"]), list(params["b"]), params["dims"]
    if isinstance(dims, int):
        da = list(range(len(a) - dims, len(a)))
    else:
        da = [d % len(a) for d in dims[0]]
    k = 1
    for d in da:
        k *= a[d]
    na, nb = 1, 1
    for s in a:
        na *= s
    for s in b:
        nb *= s
    m, n = na // k, nb // k
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read a and b, write the (M, N) result; 2*M*N*K for the contraction, 1 rsqrt per output
    return {"bytes": (na + nb + m * n) * es, "flops": 2 * m * n * k + m * n}
