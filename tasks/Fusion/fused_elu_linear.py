import torch

META = {
    "id": "Fusion/fused_elu_linear",
    "category": "Fusion",
    "stem": "fused_elu_linear",
    "entry": "fused_elu_linear",
    "signature": "def fused_elu_linear(input, weight, bias=None, alpha=1.0, inplace=False) -> Tensor",
    "description": (
        "Computes ELU(input @ weight^T + bias) with ELU(x) = x for x > 0 and alpha * (exp(x) - 1) "
        "otherwise. input is (*, in_features), weight (out_features, in_features), bias "
        "(out_features) or None; a 1-D input is a single row. The output has shape (*, "
        "out_features) and the input dtype; accumulation in float32 is expected. inplace=True only "
        "lets the activation overwrite the intermediate linear output: the arguments are never "
        "modified."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-2, 1e-2],
        "float16": [5e-3, 1e-2],
        "bfloat16": [2e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle; TF32 allowed for float32 (10-bit mantissa, inputs "
        "possibly truncated): emulated over 30 seeds with the cases' distributions (weight ~ N(0, "
        "1/K), K <= 256, x50 outliers), truncated-TF32 products pushed through the activation stay "
        "below 0.4 of this budget; half precision allows the rounding of the pre-activation to the "
        "input dtype plus one output ulp."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "4096x1024x1024_f32", "params": {"m": 4096, "k": 1024, "n": 1024, "dtype": "float32"}},
        {"name": "8192x4096x4096_f32", "params": {"m": 8192, "k": 4096, "n": 4096, "dtype": "float32"}},
        {"name": "8192x4096x4096_f16", "params": {"m": 8192, "k": 4096, "n": 4096, "dtype": "float16"}},
        {"name": "16384x4096x4096_bf16_inplace", "params": {"m": 16384, "k": 4096, "n": 4096, "dtype": "bfloat16", "kwargs": {"alpha": 1.0, "inplace": True}}},
    ],
}


def reference(input, weight, bias=None, alpha=1.0, inplace=False):
    return torch.nn.functional.elu(torch.nn.functional.linear(input, weight, bias), alpha=alpha, inplace=inplace)


def _w(g, n, k, dtype=torch.float32):
    # nn.Linear-like scale: weight ~ N(0, 1/k), so that the pre-activation stays O(1)
    return (g.randn(n, k) * (k ** -0.5)).to(dtype)


def _ints(g, lo, hi, *shape, scale=1.0):
    # small integers (times a power of two) are exact in TF32, fp16 and bf16: exact-product cases
    return g.randint(lo, hi, *shape).float() * scale


def _linear_edge_cases(g, kw):
    k = dict(kw)
    yield {"name": "exact_small_integers", "args": (_ints(g, -3, 4, 24, 40, scale=0.25),
                                                    _ints(g, -2, 3, 19, 40, scale=0.125),
                                                    _ints(g, -4, 5, 19, scale=0.5)), "kwargs": dict(k)}
    yield {"name": "input_1d", "args": (g.randn(40), _w(g, 23, 40), g.randn(23)), "kwargs": dict(k)}
    yield {"name": "no_bias", "args": (g.randn(17, 33), _w(g, 29, 33)), "kwargs": dict(k)}
    yield {"name": "bias_none_explicit_3d", "args": (g.randn(2, 5, 24), _w(g, 20, 24), None), "kwargs": dict(k)}
    yield {"name": "batched_4d", "args": (g.randn(2, 3, 4, 16), _w(g, 18, 16), g.randn(18)), "kwargs": dict(k)}
    yield {"name": "k1", "args": (g.randn(31, 1), g.randn(29, 1), g.randn(29)), "kwargs": dict(k)}
    yield {"name": "n1", "args": (g.randn(9, 40), _w(g, 1, 40), g.randn(1)), "kwargs": dict(k)}
    yield {"name": "m1", "args": (g.randn(1, 64), _w(g, 40, 64), g.randn(40)), "kwargs": dict(k)}
    yield {"name": "empty_batch", "args": (g.randn(0, 12), _w(g, 7, 12), g.randn(7)), "kwargs": dict(k)}
    yield {"name": "non_contiguous", "args": (g.randn(48, 20).t(), (g.randn(48, 36) * 48 ** -0.5).t(),
                                              g.randn(72)[::2]), "kwargs": dict(k)}
    yield {"name": "large_preactivation", "args": (g.randn(16, 32) * 8.0, _w(g, 24, 32), g.randn(24) * 4.0),
           "kwargs": dict(k)}


def _linear_random_cases(g, kw):
    k = dict(kw)
    yield {"name": "randn_64x256x64", "args": (g.randn(64, 256), _w(g, 64, 256), g.randn(64)), "kwargs": dict(k)}
    yield {"name": "randn_odd_37x100x45", "args": (g.randn(37, 100), _w(g, 45, 100), g.randn(45)), "kwargs": dict(k)}
    yield {"name": "outlier_48x128x80", "args": (g.outlier(48, 128), _w(g, 80, 128), g.outlier(80)),
           "kwargs": dict(k)}
    yield {"name": "randn_f16_3d", "args": (g.randn(2, 32, 128, dtype=torch.float16), _w(g, 96, 128, torch.float16),
                                            g.randn(96, dtype=torch.float16)), "kwargs": dict(k)}
    yield {"name": "outlier_f16_odd", "args": (g.outlier(33, 64, p=1e-2, dtype=torch.float16),
                                               _w(g, 31, 64, torch.float16), None), "kwargs": dict(k)}
    yield {"name": "randn_bf16_odd", "args": (g.randn(50, 200, dtype=torch.bfloat16),
                                              _w(g, 70, 200, torch.bfloat16),
                                              g.randn(70, dtype=torch.bfloat16)), "kwargs": dict(k)}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    m, k, n = params["m"], params["k"], params["n"]
    kw = dict(params.get("kwargs", {}))
    return (g.randn(m, k, dtype=dtype), g.randn(n, k, dtype=dtype), g.randn(n, dtype=dtype)), kw


def _linear_cost(params, epilogue_flops):
    m, k, n = params["m"], params["k"], params["n"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x (m*k), W (n*k) and the bias (n), write the (m, n) output; 2*m*n*k for the product, one
    # add per output for the bias and the activation's per-element FLOPs
    return {"bytes": (m * k + n * k + n + m * n) * es, "flops": 2 * m * n * k + m * n * (1 + epilogue_flops)}


def edge_cases(g):
    yield from _linear_edge_cases(g, {"alpha": 1.0})
    yield {"name": "alpha_half_inplace", "args": (g.randn(30, 48), _w(g, 40, 48), g.randn(40)),
           "kwargs": {"alpha": 0.5, "inplace": True}}
    yield {"name": "alpha_1p5_exact", "args": (_ints(g, -3, 4, 20, 32, scale=0.5),
                                               _ints(g, -2, 3, 24, 32, scale=0.25), _ints(g, -2, 3, 24)),
           "kwargs": {"alpha": 1.5}}
    yield {"name": "alpha_zero_is_relu", "args": (g.randn(12, 16), _w(g, 20, 16), None), "kwargs": {"alpha": 0.0}}


def random_cases(g):
    yield from _linear_random_cases(g, {"alpha": 1.0})


def perf_cost(params):
    # activation: 4 FLOPs per output element (transcendentals counted as 1)
    return _linear_cost(params, 4)
