import torch

META = {
    "id": "Math/rsqrt",
    "category": "Math",
    "stem": "rsqrt",
    "entry": "rsqrt",
    "signature": "rsqrt(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise reciprocal square root, y = 1 / sqrt(x). IEEE edge values are part of the "
        "contract: rsqrt(+0) = +inf, rsqrt(-0) = -inf, rsqrt(+inf) = 0, any negative input gives NaN, "
        "and NaN propagates. The output has the shape and dtype of the input; half precision inputs "
        "are expected to be computed in float32 and rounded once."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Defaults: the hardware rsqrt approximation is within ~2 ulp in float32 (far below rtol 1e-5), "
        "and half precision is rounded once from float32."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": ["abs", ["add", 1e-3]]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_bf16", "params": {"shape": [4096, 4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.rsqrt(input, out=out)
    return torch.rsqrt(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    # normal float32 only: subnormals may legitimately be flushed to zero on GPUs
    special = [0.0, -0.0, 1.0, 4.0, 0.25, -1.0, -1e-3, inf, -inf, nan, 1e-30, 2e-38, 3.0e38,
               1e30, 2.0, 1e-6]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, -2.0, inf, nan, 1e-4, 65504.0, 6.1e-5, 1.0],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, -0.0, -2.0, inf, -inf, nan, 1e-30, 1e30, 9.0],
                             dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "all_zeros", "args": (g.tensor([[0.0] * 9] * 4),), "kwargs": {}}
    yield {"name": "all_negative", "args": (-g.rand(5, 9, low=0.1, high=4.0),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[0.01]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(16.0),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40, low=0.01, high=9.0).t(),),
           "kwargs": {}}


def random_cases(g):
    # raw N(0,1): half of the elements are negative and must come out NaN
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_abs_2d_odd", "args": (g.randn(37, 129).abs() + 1e-3,), "kwargs": {}}
    yield {"name": "outlier_abs_3d", "args": (g.outlier(4, 33, 65).abs() + 1e-3,), "kwargs": {}}
    yield {"name": "uniform_f16", "args": (g.rand(64, 100, low=1e-2, high=100.0, dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "outlier_abs_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16).abs() + 0.01,),
           "kwargs": {}}
    # log-normal over ~60 decades, kept inside the normal float32 range
    wide = torch.exp((g.randn(128, 257) * 15.0).clamp(-80.0, 80.0))
    yield {"name": "wide_range_f32", "dist": "wide", "args": (wide,), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.rand(*params["shape"], low=0.01, high=100.0, dtype=dtype)
    return (x,), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write 1/sqrt(x); one reciprocal square root per element, counted as 1 (special function)
    return {"bytes": 2 * n * es, "flops": n}
