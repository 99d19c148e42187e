import math

import torch

META = {
    "id": "Math/signbit_bitwise_and",
    "category": "Math",
    "stem": "signbit_bitwise_and",
    "entry": "signbit_bitwise_and",
    "signature": "def signbit_bitwise_and(input: torch.Tensor, other: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]",
    "description": (
        "Returns a tuple (signbit(input), input AND other). The first output is a bool tensor of "
        "input's shape, True where input's sign bit is set (so -0.0 is True, +0.0 False). The second is "
        "the element-wise bitwise AND of input converted to other's dtype with other, with broadcasting "
        "between the two shapes and other's dtype (an integral type or bool). The conversion follows "
        "torch's .to(): floats are truncated toward zero (0.7 -> 0, -1.2 -> -1); converting to bool "
        "means x != 0. Example: input [0.7, -1.2, 0., 2.3], other int8 [1, 0, 1, 1] gives "
        "([False, True, False, False], [0, 0, 0, 0] as int8). Float inputs stay inside the range of "
        "other's dtype and are finite, since out-of-range conversion is undefined."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "Not used: both outputs are bool or integer and compared exactly.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32_i32", "params": {"shape": [1024, 1024], "dtype": "float32", "other_dtype": "int32"}},
        {"name": "16M_f32_i8", "params": {"shape": [4096, 4096], "dtype": "float32", "other_dtype": "int8"}},
        {"name": "16M_i64_i64", "params": {"shape": [4096, 4096], "dtype": "int64", "other_dtype": "int64"}},
        {"name": "64M_f32_i32", "params": {"shape": [8192, 8192], "dtype": "float32", "other_dtype": "int32"}},
    ],
}


def reference(input, other):
    return torch.signbit(input), torch.bitwise_and(input.to(other.dtype), other)


def edge_cases(g):
    yield {"name": "spec_example",
           "args": (g.tensor([0.7, -1.2, 0.0, 2.3]), g.tensor([1, 0, 1, 1], dtype=torch.int8)), "kwargs": {}}
    yield {"name": "signed_zeros_int32",
           "args": (g.tensor([0.0, -0.0, -1e-45, 1e-45, -0.99, 0.99, -1.0, 1.0, -5.5, 127.9, -128.4]),
                    g.tensor([-1, -1, -1, -1, -1, -1, -1, -1, 6, 255, 255], dtype=torch.int32)), "kwargs": {}}
    yield {"name": "f16_input_int16_other",
           "args": (g.tensor([-0.0, 0.0, -3.75, 1000.5, -1000.5, 65.0], dtype=torch.float16),
                    g.tensor([7, 7, 7, 1023, 1023, 64], dtype=torch.int16)), "kwargs": {}}
    yield {"name": "bf16_input_uint8_other",
           "args": (g.tensor([-0.0, 0.5, 3.0, 200.0, 255.0, 17.0], dtype=torch.bfloat16),
                    g.tensor([255, 255, 1, 128, 15, 16], dtype=torch.uint8)), "kwargs": {}}
    yield {"name": "bool_other",
           "args": (g.tensor([0.0, -0.0, 0.3, -2.0, 5.0, 0.0]),
                    g.tensor([True, True, True, True, False, False], dtype=torch.bool)), "kwargs": {}}
    yield {"name": "int_input_int64_other",
           "args": (g.randint(-1000, 1000, 200, dtype=torch.int32), g.randint(-2**40, 2**40, 200)), "kwargs": {}}
    yield {"name": "bool_input_bool_other", "args": (g.bernoulli(50), g.bernoulli(50)), "kwargs": {}}
    yield {"name": "broadcast_row", "args": (g.randn(7, 33) * 100, g.randint(-128, 128, 33, dtype=torch.int8)),
           "kwargs": {}}
    yield {"name": "broadcast_other_bigger", "args": (g.randn(5) * 20, g.randint(0, 64, 3, 1, 5, dtype=torch.int32)),
           "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[-6.9]]), g.tensor([[3]], dtype=torch.int64)), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-0.0), g.tensor(5, dtype=torch.int32)), "kwargs": {}}
    yield {"name": "non_contiguous", "args": ((g.randn(24, 40) * 50).t(), g.randint(-99, 99, 40, 24, dtype=torch.int32)),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd_i32", "args": (g.randn(1000) * 1000, g.randint(-2**31, 2**31, 1000, dtype=torch.int32)),
           "kwargs": {}}
    yield {"name": "randn_2d_odd_i8", "args": (g.randn(37, 129) * 30, g.randint(-128, 128, 37, 129, dtype=torch.int8)),
           "kwargs": {}}
    yield {"name": "outlier_3d_i64", "args": (g.outlier(4, 33, 65) * 100, g.randint(-2**50, 2**50, 4, 33, 65)),
           "kwargs": {}}
    yield {"name": "randn_f16_i16", "args": (g.randn(64, 100, dtype=torch.float16) * 100,
                                            g.randint(-2**15, 2**15, 64, 100, dtype=torch.int16)), "kwargs": {}}
    yield {"name": "outlier_bf16_i32", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),
                                               g.randint(-50, 50, 3, 7, 311, dtype=torch.int32)), "kwargs": {}}
    yield {"name": "randint_i64_i64", "args": (g.randint(-2**62, 2**62, 61, 67), g.randint(-2**62, 2**62, 61, 67)),
           "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    odt = getattr(torch, params.get("other_dtype", "int32"))
    if dtype.is_floating_point:
        x = g.randn(*params["shape"], dtype=dtype) * 50
    else:
        x = g.randint(-10**6, 10**6, *params["shape"], dtype=dtype)
    return (x, g.randint(-100, 100, *params["shape"], dtype=odt)), {}


def perf_cost(params):
    n = math.prod(params["shape"])
    size = {"float32": 4, "float16": 2, "bfloat16": 2, "int64": 8}[params.get("dtype", "float32")]
    osize = {"int8": 1, "int32": 4, "int64": 8}[params.get("other_dtype", "int32")]
    # read input and other, write the bool signbit and the AND result
    return {"bytes": n * (size + osize + 1 + osize), "flops": 2 * n}
