import torch

META = {
    "id": "MatrixMultiply/addmm",
    "category": "MatrixMultiply",
    "stem": "addmm",
    "entry": "addmm",
    "signature": "addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor",
    "description": (
        "out = beta * input + alpha * (mat1 @ mat2) for 2-D mat1 (n x m) and mat2 (m x p). `input` "
        "only has to broadcast to (n x p): it may be a full matrix, a row vector (p,), (1, p), a "
        "column (n, 1) or a 0-d scalar tensor. beta and alpha are Python numbers (default 1). When "
        "beta is 0 the input is ignored entirely, so NaN or inf in it must not reach the output. All "
        "tensors share one floating dtype (float32, float16 or bfloat16), which is the output dtype; "
        "float32 accumulation is expected and float32 products may use TF32."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [3e-2, 1e-2],
        "float16": [1e-2, 1e-2],
        "bfloat16": [2e-2, 1e-2],
    },
    "tolerance_note": (
        "TF32 allowed for float32 (10-bit mantissa, inputs possibly truncated): emulated over 60 "
        "seeds, truncated-TF32 results with K <= 256 and |alpha| <= 2.5 stay below about 2/3 of "
        "atol 3e-2 + rtol 1e-2 against the exact float64 result; half precision allows about one ulp."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "512_f32_bias", "params": {"m": 512, "k": 512, "n": 512, "bias": "row", "dtype": "float32"}},
        {"name": "2048_f32_full", "params": {"m": 2048, "k": 2048, "n": 2048, "bias": "full",
                                             "dtype": "float32", "alpha": 0.5, "beta": 2.0}},
        {"name": "4096_f16_bias", "params": {"m": 4096, "k": 4096, "n": 4096, "bias": "row", "dtype": "float16"}},
        {"name": "tokens_8192x4096x1024_bf16",
         "params": {"m": 8192, "k": 4096, "n": 1024, "bias": "row", "dtype": "bfloat16"}},
        {"name": "8192_bf16_full", "params": {"m": 8192, "k": 8192, "n": 8192, "bias": "full", "dtype": "bfloat16"}},
    ],
}


def reference(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return torch.addmm(input, mat1, mat2, beta=beta, alpha=alpha, out=out)
    return torch.addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def edge_cases(g):
    nan, inf = float("nan"), float("inf")
    yield {"name": "defaults_full_bias", "args": (g.randn(24, 40), g.randn(24, 64), g.randn(64, 40)),
           "kwargs": {}}
    yield {"name": "row_vector_bias", "args": (g.randn(33), g.randn(20, 50), g.randn(50, 33)), "kwargs": {}}
    yield {"name": "bias_1xp", "args": (g.randn(1, 33), g.randn(20, 50), g.randn(50, 33)), "kwargs": {}}
    yield {"name": "column_bias_nx1", "args": (g.randn(20, 1), g.randn(20, 50), g.randn(50, 33)),
           "kwargs": {"beta": 0.5}}
    yield {"name": "scalar_bias_0d", "args": (g.tensor(3.0), g.randn(17, 30), g.randn(30, 19)), "kwargs": {}}
    bad = g.randn(16, 24)
    bad[0, 0], bad[3, 5], bad[7, 7] = nan, inf, -inf
    yield {"name": "beta0_ignores_nan_inf", "args": (bad, g.randn(16, 40), g.randn(40, 24)),
           "kwargs": {"beta": 0}}
    yield {"name": "beta0_float_alpha2", "args": (bad, g.randn(16, 40), g.randn(40, 24)),
           "kwargs": {"beta": 0.0, "alpha": 2.0}}
    yield {"name": "alpha0_only_bias", "args": (g.randn(18, 22), g.randn(18, 30), g.randn(30, 22)),
           "kwargs": {"alpha": 0, "beta": 1.5}}
    yield {"name": "alpha_beta_scaled", "args": (g.randn(40, 36), g.randn(40, 64), g.randn(64, 36)),
           "kwargs": {"alpha": 2.5, "beta": 0.5}}
    yield {"name": "negative_alpha_beta", "args": (g.randn(40, 36), g.randn(40, 64), g.randn(64, 36)),
           "kwargs": {"alpha": -0.5, "beta": -1.0}}
    yield {"name": "k1_outer_plus_bias", "args": (g.randn(31, 29), g.randn(31, 1), g.randn(1, 29)),
           "kwargs": {}}
    yield {"name": "single_row", "args": (g.randn(40), g.randn(1, 64), g.randn(64, 40)), "kwargs": {}}
    yield {"name": "small_integers_exact",
           "args": (g.randint(-3, 4, 24, 19).float(), g.randint(-4, 5, 24, 40).float(),
                    g.randint(-4, 5, 40, 19).float()), "kwargs": {"alpha": 2, "beta": 3}}


def random_cases(g):
    yield {"name": "randn_64x256x64_full", "args": (g.randn(64, 64), g.randn(64, 256), g.randn(256, 64)),
           "kwargs": {}}
    yield {"name": "randn_odd_rowbias_scaled", "args": (g.randn(45), g.randn(37, 100), g.randn(100, 45)),
           "kwargs": {"alpha": 1.5, "beta": 0.75}}
    yield {"name": "outlier_f32_moderate",
           "args": (g.outlier(48, 80, scale=10.0), g.outlier(48, 128, scale=10.0), g.outlier(128, 80, scale=10.0)),
           "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(96, dtype=torch.float16), g.randn(64, 128, dtype=torch.float16),
                                         g.randn(128, 96, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "outlier_f16_full", "args": (g.outlier(33, 57, dtype=torch.float16),
                                                g.outlier(33, 72, dtype=torch.float16),
                                                g.randn(72, 57, dtype=torch.float16)),
           "kwargs": {"alpha": 0.5, "beta": 2.0}}
    yield {"name": "outlier_bf16_odd", "args": (g.outlier(70, dtype=torch.bfloat16),
                                                g.outlier(50, 200, dtype=torch.bfloat16),
                                                g.randn(200, 70, dtype=torch.bfloat16)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    m, k, n = params["m"], params["k"], params["n"]
    bias = g.randn(n, dtype=dtype) if params.get("bias", "row") == "row" else g.randn(m, n, dtype=dtype)
    kwargs = {}
    if "alpha" in params:
        kwargs["alpha"] = params["alpha"]
    if "beta" in params:
        kwargs["beta"] = params["beta"]
    return (bias, g.randn(m, k, dtype=dtype), g.randn(k, n, dtype=dtype)), kwargs


def perf_cost(params):
    m, k, n = params["m"], params["k"], params["n"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    bias = n if params.get("bias", "row") == "row" else m * n
    # read bias, mat1, mat2 once, write out once; 2*M*N*K for the product plus 3 per output
    # element for beta * bias + alpha * acc (two multiplies, one add)
    return {"bytes": (bias + m * k + k * n + m * n) * es, "flops": 2 * m * n * k + 3 * m * n}
