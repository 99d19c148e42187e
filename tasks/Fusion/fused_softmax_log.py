import torch

META = {
    "id": "Fusion/fused_softmax_log",
    "category": "Fusion",
    "stem": "fused_softmax_log",
    "entry": "fused_softmax_log",
    "signature": "def fused_softmax_log(input, dim=-1, dtype=None) -> Tensor",
    "description": (
        "softmax(log(input), dim): the natural logarithm element-wise, then a softmax along dim. "
        "For positive inputs this is input / sum(input) along dim (computed stably, e.g. "
        "exp(log x - max log x) / sum). If dtype is given the input is cast to dtype first and the "
        "result has that dtype (a float16 input with dtype=torch.float32 is computed and returned "
        "in float32). Zeros give log = -inf and probability 0; a slice that is all zeros, holds a "
        "negative value, a NaN or +inf gives NaN for the whole slice, as PyTorch does."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-10],
        "float32": [1e-6, 1e-4],
        "float16": [1e-3, 1e-2],
        "bfloat16": [4e-3, 2e-2],
    },
    "tolerance_note": (
        "Probabilities are at most 1: log/exp differ by a few ulp between libraries (an approximate "
        "exp of log x - max loses about |log x - max| ulp) and the sum's order is free, so float32 "
        "allows rtol 1e-4; half precision: the reference rounds log(x) to the half type before the "
        "softmax, a fused kernel need not."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "rows_1k_x_1k", "params": {"shape": [1024, 1024], "dim": -1}},
        {"name": "rows_4k_x_4k", "params": {"shape": [4096, 4096], "dim": -1}},
        {"name": "rows_16k_x_1k_f16", "params": {"shape": [16384, 1024], "dim": -1, "dtype": "float16"}},
        {"name": "cols_4k_x_4k_dim0", "params": {"shape": [4096, 4096], "dim": 0}},
        {"name": "rows_8k_x_8k", "params": {"shape": [8192, 8192], "dim": -1}},
    ],
}


def reference(input, dim=-1, dtype=None):
    x = input if dtype is None else input.to(dtype)
    return torch.softmax(torch.log(x), dim=dim)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    rows = g.tensor([[1.0, 2.0, 3.0, 4.0],
                     [0.0, 1.0, 3.0, 0.0],
                     [0.0, 0.0, 0.0, 0.0],
                     [-1.0, 1.0, 2.0, 3.0],
                     [nan, 1.0, 2.0, 3.0],
                     [inf, 1.0, 2.0, 3.0],
                     [1e-45, 1e-45, 0.0, 1e-45],
                     [1e30, 1e-30, 1.0, 3e38],
                     [5.0, 5.0, 5.0, 5.0]])
    yield {"name": "special_rows_lastdim", "args": (rows,), "kwargs": {}}
    yield {"name": "special_rows_dim0", "args": (rows.t().contiguous(),), "kwargs": {"dim": 0}}
    yield {"name": "dim_middle", "args": (g.rand(4, 37, 5, low=0.01, high=3.0),), "kwargs": {"dim": 1}}
    yield {"name": "dim_negative_2", "args": (g.rand(3, 20, 6, low=0.0, high=1.0),), "kwargs": {"dim": -2}}
    yield {"name": "size1_softmax_dim_is_one", "args": (g.rand(7, 1, 3, low=0.1, high=2.0),), "kwargs": {"dim": 1}}
    yield {"name": "single_element", "args": (g.tensor([[2.5]]),), "kwargs": {}}
    yield {"name": "f16_dtype_f32", "args": (g.rand(9, 33, low=0.0, high=100.0, dtype=torch.float16),),
           "kwargs": {"dim": 1, "dtype": torch.float32}}
    yield {"name": "f32_dtype_f64", "args": (g.rand(5, 40, low=0.0, high=2.0),), "kwargs": {"dtype": torch.float64}}
    yield {"name": "1d", "args": (g.rand(101, low=0.0, high=1.0),), "kwargs": {"dim": 0}}
    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40, low=0.0, high=1.0).t(),), "kwargs": {}}


def random_cases(g):
    yield {"name": "halfnormal_rows_odd", "args": (g.randn(37, 129).abs(),), "kwargs": {}}
    yield {"name": "lognormal_rows", "args": (g.randn(64, 64).exp(),), "kwargs": {"dim": -1}}
    yield {"name": "outlier_abs_3d_dim1", "args": (g.outlier(4, 333, 17).abs(),), "kwargs": {"dim": 1}}
    yield {"name": "halfnormal_f16", "args": (g.randn(64, 100, dtype=torch.float16).abs(),), "kwargs": {}}
    yield {"name": "halfnormal_f16_to_f32", "args": (g.randn(33, 300, dtype=torch.float16).abs(),),
           "kwargs": {"dtype": torch.float32}}
    yield {"name": "outlier_abs_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16).abs(),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.rand(*params["shape"], low=0.01, high=2.0, dtype=dtype)
    return (x,), {"dim": params.get("dim", -1)}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x once, write the probabilities; per element log, max, subtract, exp, sum and divide
    # (transcendentals counted 1 FLOP each)
    return {"bytes": 2 * n * es, "flops": 6 * n}
