import math

import torch

META = {
    "id": "Math/ifftshift",
    "category": "Math",
    "stem": "ifftshift",
    "entry": "ifftshift",
    "signature": "ifftshift(input, dim=None) -> Tensor",
    "description": (
        "Inverse of fftshift: moves the zero-frequency entry of a centred spectrum back to index 0. Along "
        "every rearranged dimension of length n the output is the input rolled by -(n // 2), i.e. "
        "out[i] = in[(i + n // 2) mod n]; for odd n this differs from fftshift. dim is an int or a tuple "
        "of ints (negative values allowed) naming the dimensions to rearrange; the default None means "
        "all of them. The output has the input's shape and dtype (any real or integer dtype); values are "
        "moved, never changed."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "A pure permutation of the elements: the result is bit-exact, the defaults only leave margin.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32_2d", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32_2d", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f32_batched_last2", "params": {"shape": [64, 512, 512], "dtype": "float32", "dim": [-2, -1]}},
        {"name": "16M_f16_3d", "params": {"shape": [256, 256, 256], "dtype": "float16"}},
        {"name": "64M_f32_2d", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, dim=None):
    return torch.fft.ifftshift(input, dim=dim)


def edge_cases(g):
    yield {"name": "1d_even", "args": (g.tensor([float(i) for i in range(8)]),), "kwargs": {}}
    yield {"name": "1d_odd", "args": (g.tensor([float(i) for i in range(9)]),), "kwargs": {}}
    yield {"name": "1d_len1", "args": (g.tensor([5.0]),), "kwargs": {}}
    yield {"name": "1d_len2", "args": (g.tensor([1.0, 2.0]),), "kwargs": {}}
    yield {"name": "2d_all_dims_odd_even", "args": (g.randn(7, 10),), "kwargs": {}}
    yield {"name": "dim_int_0", "args": (g.randn(7, 10),), "kwargs": {"dim": 0}}
    yield {"name": "dim_int_negative", "args": (g.randn(5, 6, 7),), "kwargs": {"dim": -1}}
    yield {"name": "dim_tuple", "args": (g.randn(5, 6, 7),), "kwargs": {"dim": (0, 2)}}
    yield {"name": "dim_tuple_negative", "args": (g.randn(3, 5, 6, 7),), "kwargs": {"dim": (-3, -2)}}
    yield {"name": "size1_dims", "args": (g.randn(1, 9, 1, 4),), "kwargs": {}}
    yield {"name": "int64_values", "args": (g.randint(-10**12, 10**12, 6, 11),), "kwargs": {}}
    yield {"name": "int32_dim1", "args": (g.randint(-100, 100, 4, 13, dtype=torch.int32),), "kwargs": {"dim": 1}}
    yield {"name": "bool_values", "args": (g.bernoulli(5, 7),), "kwargs": {}}
    yield {"name": "special_values", "args": (g.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1.0]),),
           "kwargs": {}}
    yield {"name": "empty_dim", "args": (g.randn(0, 5),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 41).t(),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1001),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "outlier_3d_last2", "args": (g.outlier(4, 33, 65),), "kwargs": {"dim": (-2, -1)}}
    yield {"name": "randn_4d_all", "args": (g.randn(3, 5, 16, 31),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16_dim0", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {"dim": 0}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    dim = params.get("dim")
    return (g.randn(*params["shape"], dtype=dtype),), {"dim": tuple(dim) if dim is not None else None}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    return {"bytes": 2 * n * size, "flops": 0}
