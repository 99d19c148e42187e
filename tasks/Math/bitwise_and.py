import torch

META = {
    "id": "Math/bitwise_and",
    "category": "Math",
    "stem": "bitwise_and",
    "entry": "bitwise_and",
    "signature": "bitwise_and(input, other, *, out=None) -> Tensor",
    "description": (
        "Element-wise bitwise AND of two integer or bool operands (logical AND for bool). other is a "
        "tensor or a Python int/bool; tensors broadcast to a common shape and the result dtype follows "
        "PyTorch's type promotion (e.g. int32 & int64 -> int64, uint8 & bool -> uint8, a Python int keeps "
        "the tensor's dtype and is wrapped into it, so uint8 & -1 keeps every bit). Negative numbers use "
        "two's complement. Floating-point inputs are an error and are not tested. Results are exact."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "Integer and bool outputs are always compared exactly; the float entries are unused.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_i32", "params": {"a": [1024, 1024], "b": [1024, 1024], "dtype": "int32"}},
        {"name": "16M_i32", "params": {"a": [4096, 4096], "b": [4096, 4096], "dtype": "int32"}},
        {"name": "16M_i64_row_bcast", "params": {"a": [4096, 4096], "b": [4096], "dtype": "int64"}},
        {"name": "16M_bool", "params": {"a": [4096, 4096], "b": [4096, 4096], "dtype": "bool"}},
        {"name": "64M_u8", "params": {"a": [8192, 8192], "b": [8192, 8192], "dtype": "uint8"}},
    ],
}


def reference(input, other, *, out=None):
    if out is not None:
        return torch.bitwise_and(input, other, out=out)
    return torch.bitwise_and(input, other)


def edge_cases(g):
    i64 = [0, -1, 1, 2**62, -(2**63), 2**63 - 1, 0x5555555555555555, -0x5555555555555556, 255, -256]
    yield {"name": "int64_extremes", "args": (g.tensor(i64, dtype=torch.int64),
                                             g.tensor(list(reversed(i64)), dtype=torch.int64)), "kwargs": {}}
    yield {"name": "int64_self", "args": (g.tensor(i64, dtype=torch.int64), g.tensor(i64, dtype=torch.int64)),
           "kwargs": {}}
    yield {"name": "bool_truth_table", "args": (g.tensor([True, True, False, False], dtype=torch.bool),
                                               g.tensor([True, False, True, False], dtype=torch.bool)),
           "kwargs": {}}
    yield {"name": "bool_bcast", "args": (g.bernoulli(6, 1), g.bernoulli(1, 9)), "kwargs": {}}
    yield {"name": "int32_and_int64_promotes", "args": (g.randint(-2**31, 2**31, 5, 7, dtype=torch.int32),
                                                       g.randint(-2**40, 2**40, 5, 7)), "kwargs": {}}
    yield {"name": "uint8_and_bool_promotes", "args": (g.randint(0, 256, 4, 8, dtype=torch.uint8),
                                                      g.bernoulli(4, 8)), "kwargs": {}}
    yield {"name": "int8_and_uint8_promotes_int16", "args": (g.randint(-128, 128, 33, dtype=torch.int8),
                                                            g.randint(0, 256, 33, dtype=torch.uint8)),
           "kwargs": {}}
    yield {"name": "uint8_and_scalar_minus_one", "args": (g.randint(0, 256, 3, 5, dtype=torch.uint8), -1),
           "kwargs": {}}
    yield {"name": "int32_and_scalar_mask", "args": (g.randint(-2**31, 2**31, 40, dtype=torch.int32), 0xF0F),
           "kwargs": {}}
    yield {"name": "int64_and_big_scalar", "args": (g.randint(-2**62, 2**62, 17), 2**40 + 12345), "kwargs": {}}
    yield {"name": "bool_and_python_bool", "args": (g.bernoulli(11), True), "kwargs": {}}
    yield {"name": "int16_bcast_3d", "args": (g.randint(-2**15, 2**15, 3, 1, 5, dtype=torch.int16),
                                             g.randint(-2**15, 2**15, 4, 1, dtype=torch.int16)), "kwargs": {}}
    yield {"name": "empty", "args": (g.randint(0, 9, 0, 3), g.randint(0, 9, 3)), "kwargs": {}}
    yield {"name": "scalar_0d_both", "args": (g.tensor(12, dtype=torch.int64), g.tensor(10, dtype=torch.int64)),
           "kwargs": {}}
    yield {"name": "non_contiguous_inputs", "args": (g.randint(-1000, 1000, 20, 30).t(),
                                                    g.randint(-1000, 1000, 30, 40)[:, ::2]), "kwargs": {}}


def random_cases(g):
    yield {"name": "int64_1d_odd", "args": (g.randint(-2**62, 2**62, 1000), g.randint(-2**62, 2**62, 1000)),
           "kwargs": {}}
    yield {"name": "int32_2d_odd", "args": (g.randint(-2**31, 2**31, 37, 129, dtype=torch.int32),
                                           g.randint(-2**31, 2**31, 37, 129, dtype=torch.int32)), "kwargs": {}}
    yield {"name": "uint8_3d_bcast", "args": (g.randint(0, 256, 4, 33, 65, dtype=torch.uint8),
                                             g.randint(0, 256, 33, 1, dtype=torch.uint8)), "kwargs": {}}
    yield {"name": "bool_2d", "args": (g.bernoulli(64, 100, p=0.7), g.bernoulli(64, 100, p=0.4)), "kwargs": {}}
    yield {"name": "int16_and_int64_row", "args": (g.randint(-2**15, 2**15, 17, 31, dtype=torch.int16),
                                                  g.randint(-2**20, 2**20, 31)), "kwargs": {}}


def perf_inputs(g, params):
    dt = params.get("dtype", "int32")
    if dt == "bool":
        return (g.bernoulli(*params["a"]), g.bernoulli(*params["b"])), {}
    dtype = getattr(torch, dt)
    hi = 256 if dt == "uint8" else 2**31
    lo = 0 if dt == "uint8" else -(2**31)
    return (g.randint(lo, hi, *params["a"], dtype=dtype), g.randint(lo, hi, *params["b"], dtype=dtype)), {}


def perf_cost(params):
    na = nb = 1
    for s in params["a"]:
        na *= s
    for s in params["b"]:
        nb *= s
    n = max(na, nb)  # broadcast output size (perf shapes broadcast b into a)
    esize = {"int64": 8, "int32": 4, "uint8": 1, "bool": 1}[params.get("dtype", "int32")]
    # read a and b once, write the output; one AND per output element
    return {"bytes": (na + nb + n) * esize, "flops": n}
