import torch

META = {
    "id": "Math/trunc",
    "category": "Math",
    "stem": "trunc",
    "entry": "trunc",
    "signature": "trunc(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise rounding toward zero: every floating-point element keeps only its integer part "
        "(2.7 -> 2, -2.7 -> -2), values that are already integral (including everything of magnitude "
        "2**23 and above in float32), +-inf and NaN are returned unchanged. Integer tensors are "
        "returned as an (unchanged) copy in their own dtype. The output has the input's shape and dtype."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "Truncation is exact in every dtype (the result is representable), so results must match bit for bit up to the sign of zero.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_bf16", "params": {"shape": [4096, 4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.trunc(input, out=out)
    return torch.trunc(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 0.5, -0.5, 0.99999994, -0.99999994, 1.0, -1.0, 2.5, -2.5, 1e-45, -1e-38,
               8388607.5, -8388607.5, 8388609.0, 16777217.0, 1e20, -3.0e38, inf, -inf, nan]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.5, 0.5, 1023.5, -1023.5, 2049.0, 65504.0, -6.0e-8, inf, -inf, nan],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([-0.75, 0.75, 127.5, -255.0, 1e30, inf, nan, -1e-30], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "f64_beyond_f32", "args": (g.tensor([2.0**40 + 0.5, -(2.0**40) - 0.75, 1e300, -0.25],
                                                      dtype=torch.float64),), "kwargs": {}}
    yield {"name": "int64_copy", "args": (g.randint(-10**12, 10**12, 5, 9),), "kwargs": {}}
    yield {"name": "int32_copy", "args": (g.randint(-1000, 1000, 33, dtype=torch.int32),), "kwargs": {}}
    yield {"name": "uint8_copy", "args": (g.randint(0, 256, 4, 7, dtype=torch.uint8),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[-7.999]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(3.7),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(3, 0),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t() * 10,), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_scaled_1d_odd", "dist": "wide", "args": (g.randn(1000) * 5,), "kwargs": {}}
    yield {"name": "wide_range_2d_odd", "dist": "wide", "args": (g.rand(37, 129, low=-1e6, high=1e6),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, p=1e-2),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16) * 8,), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "randint_int64", "args": (g.randint(-10**6, 10**6, 17, 31),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype) * 100,), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write trunc(x); one rounding per element
    return {"bytes": 2 * n * esize, "flops": n}
