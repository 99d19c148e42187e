import torch

META = {
    "id": "Math/div",
    "category": "Math",
    "stem": "div",
    "entry": "div",
    "signature": "div(input, other, *, rounding_mode=None, out=None) -> Tensor",
    "description": (
        "Element-wise division input / other with broadcasting and PyTorch type promotion; other is a "
        "tensor or a Python number. rounding_mode=None is true division (IEEE: x/0 = +-inf, 0/0 = NaN; "
        "integer operands are promoted to float32). 'trunc' rounds the quotient toward zero and 'floor' "
        "rounds it down; both keep integer dtypes integer (exact, Python-style floor for negative "
        "operands). Floating 'floor' follows PyTorch's definition (the exact remainder fmod(a, b) is "
        "removed first, then (a - fmod) / b is rounded down, so it agrees with Python's a // b), and "
        "division by zero returns the IEEE quotient. Integer division by zero is an error and is not "
        "tested; neither are complex inputs."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "IEEE division is correctly rounded and the rounding modes produce integers, so a correct "
        "kernel is off by at most an ulp (approximate float32 division within 2 ulp); the defaults hold "
        "that and an off-by-one floor/trunc result fails."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"other": [["add", 1e-3]]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"a": [1024, 1024], "b": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"a": [4096, 4096], "b": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f32_floor", "params": {"a": [4096, 4096], "b": [4096, 4096], "dtype": "float32",
                                             "rounding_mode": "floor"}},
        {"name": "16M_f16_row_bcast", "params": {"a": [4096, 4096], "b": [4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"a": [8192, 8192], "b": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, other, *, rounding_mode=None, out=None):
    if out is not None:
        return torch.div(input, other, rounding_mode=rounding_mode, out=out)
    return torch.div(input, other, rounding_mode=rounding_mode)


def _nonzero_int(g, low, high, *shape, dtype=torch.int64):
    t = g.randint(low, high, *shape, dtype=dtype)
    return torch.where(t == 0, torch.ones_like(t), t)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    a = g.tensor([1.0, -1.0, 0.0, -0.0, 0.0, inf, inf, -inf, nan, 1.0, 7.0, -7.0, 7.0, -7.0, 3.0e38,
                  1e-38, 5.0, -5.0, 0.3, -0.3, 1.0, -1.0, 6.0, 1e-7])
    b = g.tensor([0.0, 0.0, 0.0, 0.0, -5.0, 2.0, inf, -3.0, 1.0, nan, 2.0, 2.0, -2.0, -2.0, 0.1,
                  1e10, inf, inf, 0.1, 0.1, -inf, -inf, 0.2, 3.0])
    for mode in (None, "trunc", "floor"):
        yield {"name": f"special_values_{mode}", "args": (a, b), "kwargs": {"rounding_mode": mode}}
    # quotients that land on, or within rounding of, an integer
    qa = g.tensor([0.3, 0.6, 0.9, 1.0, 2.0, -0.3, -0.6, 4.0, 100.0, -100.0, 0.7, 1.1, 7.5, 1e6])
    qb = g.tensor([0.1, 0.2, 0.3, 0.1, 0.4, 0.1, 0.2, 0.4, 0.01, 0.01, 0.1, 0.1, 0.5, 0.1])
    yield {"name": "near_integer_floor", "args": (qa, qb), "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "near_integer_trunc", "args": (qa, qb), "kwargs": {"rounding_mode": "trunc"}}
    ia = g.randint(-1000, 1000, 48)
    ib = _nonzero_int(g, -13, 14, 48)
    yield {"name": "int64_true_div_promotes", "args": (ia, ib), "kwargs": {}}
    yield {"name": "int64_trunc_exact", "args": (ia, ib), "kwargs": {"rounding_mode": "trunc"}}
    yield {"name": "int64_floor_exact", "args": (ia, ib), "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "int32_floor_int_scalar", "args": (g.randint(-100, 100, 7, 5, dtype=torch.int32), -3),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "int64_by_zero_true_div", "args": (g.tensor([1, -1, 0, 5], dtype=torch.int64),
                                                     g.tensor([0, 0, 0, 2], dtype=torch.int64)), "kwargs": {}}
    yield {"name": "int32_by_float_scalar", "args": (g.randint(-50, 50, 33, dtype=torch.int32), 2.5),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "f16_by_f32_promotes", "args": (g.randn(9, 17, dtype=torch.float16), g.randn(9, 17)),
           "kwargs": {}}
    yield {"name": "f16_by_0d_f32_stays_f16", "args": (g.randn(9, 17, dtype=torch.float16), g.tensor(0.75)),
           "kwargs": {"rounding_mode": "trunc"}}
    yield {"name": "scalar_float_other", "args": (g.randn(4, 9) * 10, 0.3), "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "bcast_col_row", "args": (g.randn(5, 1), g.randn(1, 7)), "kwargs": {}}
    yield {"name": "bcast_other_more_dims", "args": (g.randn(7) * 5, g.randn(3, 1, 7)),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "empty_rows", "args": (g.randn(0, 5), g.randn(5)), "kwargs": {}}
    yield {"name": "scalar_0d_both", "args": (g.tensor(-7.5), g.tensor(2.0)), "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "non_contiguous_inputs", "args": (g.randn(20, 30).t(), g.randn(30, 40)[:, ::2]),
           "kwargs": {"rounding_mode": "trunc"}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000), g.randn(1000)), "kwargs": {}}
    yield {"name": "randn_2d_odd_floor", "args": (g.randn(37, 129) * 8, g.randn(37, 129)),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "outlier_3d_bcast_trunc", "args": (g.outlier(4, 33, 65), g.outlier(33, 1)),
           "kwargs": {"rounding_mode": "trunc"}}
    yield {"name": "outlier_3d_floor", "args": (g.outlier(4, 33, 65), g.rand(4, 33, 65, low=0.05, high=3.0)),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),
                                        g.rand(64, 100, low=0.5, high=2.0, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "randn_f16_floor", "args": (g.randn(64, 100, dtype=torch.float16) * 10,
                                              g.randn(64, 100, dtype=torch.float16)),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),
                                           g.rand(3, 7, 311, low=0.5, high=2.0, dtype=torch.bfloat16)),
           "kwargs": {}}
    yield {"name": "randint_int64_floor_bcast", "args": (g.randint(-10**6, 10**6, 17, 31),
                                                        _nonzero_int(g, -1000, 1000, 31)),
           "kwargs": {"rounding_mode": "floor"}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    a = g.randn(*params["a"], dtype=dtype)
    b = g.rand(*params["b"], low=0.5, high=2.0, dtype=dtype)
    return (a, b), {"rounding_mode": params.get("rounding_mode")}


def perf_cost(params):
    na = nb = 1
    for s in params["a"]:
        na *= s
    for s in params["b"]:
        nb *= s
    n = max(na, nb)  # broadcast output size (perf shapes broadcast b into a)
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read a and b once, write the quotient; one division per element (plus a rounding for the modes)
    flops = n if params.get("rounding_mode") is None else 2 * n
    return {"bytes": (na + nb + n) * esize, "flops": flops}
