import torch

META = {
    "id": "Reduce/std",
    "category": "Reduce",
    "stem": "std",
    "entry": "std",
    "signature": "std(input, dim=None, *, correction=1, keepdim=False, out=None) -> Tensor",
    "description": (
        "Standard deviation over the dimensions in dim (an int, a tuple/list of ints, or None for all "
        "dimensions): sqrt(sum((x - mean)^2) / max(0, N - correction)), N being the number of reduced "
        "elements; correction=1 is Bessel's correction, 0 gives the population value. When "
        "N - correction <= 0 the division is by zero (inf, or NaN for 0/0, e.g. a single element with "
        "correction=1). keepdim=True keeps the reduced dimensions with size 1. The result has the input's "
        "floating dtype; half precision is expected to accumulate in float32. NaN propagates."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [1e-3, 5e-3],
        "bfloat16": [8e-3, 1.6e-2],
    },
    "tolerance_note": (
        "Two-pass, Welford or shifted single-pass float32 algorithms agree to ~1e-6 relative on these "
        "data (outliers included), and the reduction order is free: rtol 1e-4; half precision allows one "
        "output rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "rows_4Kx4K_f32", "params": {"shape": [4096, 4096], "dim": -1}},
        {"name": "cols_4Kx4K_f32", "params": {"shape": [4096, 4096], "dim": 0}},
        {"name": "all_16M_f32", "params": {"shape": [4096, 4096], "dim": None}},
        {"name": "hw_64x256x56x56_bf16", "params": {"shape": [64, 256, 56, 56], "dim": [2, 3], "dtype": "bfloat16"}},
        {"name": "rows_16Kx16K_f32", "params": {"shape": [16384, 16384], "dim": 1}},
    ],
}


def reference(input, dim=None, *, correction=1, keepdim=False, out=None):
    if out is not None:
        return torch.std(input, dim, correction=correction, keepdim=keepdim, out=out)
    return torch.std(input, dim, correction=correction, keepdim=keepdim)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    x = g.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, 5.0], [-1.0, 1.0, -1.0, 1.0]])
    yield {"name": "rows_default", "args": (x, 1), "kwargs": {}}
    yield {"name": "rows_correction0", "args": (x, 1), "kwargs": {"correction": 0}}
    yield {"name": "rows_correction2_keepdim", "args": (x, 1), "kwargs": {"correction": 2, "keepdim": True}}
    yield {"name": "all_dims_none", "args": (g.randn(5, 7, 3),), "kwargs": {}}
    yield {"name": "all_dims_none_keepdim", "args": (g.randn(5, 7, 3),), "kwargs": {"keepdim": True}}
    yield {"name": "tuple_dims", "args": (g.randn(4, 5, 6, 3), (1, 3)), "kwargs": {}}
    yield {"name": "list_negative_dims_keepdim", "args": (g.randn(4, 5, 6), [-1, 0]), "kwargs": {"keepdim": True}}
    yield {"name": "single_element_is_nan", "args": (g.tensor([[3.0], [4.0]]), 1), "kwargs": {}}
    yield {"name": "n_equals_correction_inf", "args": (g.tensor([[1.0, 2.0], [3.0, 3.0]]), 1), "kwargs": {"correction": 2}}
    yield {"name": "nan_inf_propagate", "args": (g.tensor([[1.0, nan, 2.0], [1.0, inf, 2.0], [0.0, 0.0, 0.0]]), 1), "kwargs": {}}
    yield {"name": "large_offset", "args": (g.randn(8, 300) * 0.01 + 1000.0, 1), "kwargs": {}}
    yield {"name": "one_d", "args": (g.randn(1001), 0), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (g.randn(40, 24).t(), 1), "kwargs": {}}


def random_cases(g):
    yield {"name": "rows_odd", "args": (g.randn(37, 129), 1), "kwargs": {}}
    yield {"name": "cols_3d", "args": (g.randn(4, 33, 65), 0), "kwargs": {}}
    yield {"name": "outlier_long_rows", "args": (g.outlier(16, 3000), -1), "kwargs": {}}
    yield {"name": "outlier_all", "args": (g.outlier(50, 120),), "kwargs": {"correction": 0}}
    yield {"name": "f16_hw", "args": (g.randn(4, 6, 17, 19, dtype=torch.float16), (2, 3)), "kwargs": {}}
    yield {"name": "bf16_rows_keepdim", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16), -1), "kwargs": {"keepdim": True}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    d = params.get("dim")
    return (g.randn(*params["shape"], dtype=dtype), tuple(d) if isinstance(d, list) else d), {}


def perf_cost(params):
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    shape = params["shape"]
    n = 1
    for s in shape:
        n *= s
    d = params.get("dim")
    if d is None:
        k = n
    else:
        k = 1
        for i in (d if isinstance(d, list) else [d]):
            k *= shape[i]
    return {"bytes": n * es + (n // k) * es, "flops": 4 * n}
