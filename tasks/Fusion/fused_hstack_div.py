import torch

META = {
    "id": "Fusion/fused_hstack_div",
    "category": "Fusion",
    "stem": "fused_hstack_div",
    "entry": "fused_hstack_div",
    "signature": "fused_hstack_div(tensors, divisor, *, rounding_mode=None, out=None) -> Tensor",
    "description": (
        "torch.div(torch.hstack(tensors), divisor, rounding_mode=rounding_mode) without building the "
        "stacked tensor first: 1-D tensors are concatenated end to end, tensors of two or more "
        "dimensions along dimension 1 (all other sizes equal; mixed dtypes promote as in torch.cat). "
        "divisor is a tensor broadcastable to the stacked shape or a Python number. rounding_mode "
        "None is true division (integer inputs give float32); 'trunc' rounds the quotient toward "
        "zero; 'floor' rounds it down with Python semantics (torch.div's floor mode: x // inf is -1 "
        "for x < 0, inf // y is NaN, division by zero gives the IEEE quotient). Integer inputs with "
        "'trunc'/'floor' stay integers (the tests never divide an integer by zero). If out is given "
        "the result is also written there."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-6, 1e-6],
        "float16": [1e-3, 1e-3],
        "bfloat16": [8e-3, 8e-3],
    },
    "tolerance_note": (
        "True division is correctly rounded (a fast GPU division is within 2 ulp, inside rtol 1e-6 "
        "for float32); rounded quotients are integers and must match exactly up to the output "
        "dtype's ulp (half precision is divided in float32 and rounded once)."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "2x_1k_x_512_f32", "params": {"parts": [[1024, 512], [1024, 512]], "divisor": [1024, 1024]}},
        {"name": "4x_4k_x_1k_row_divisor", "params": {"parts": [[4096, 1024]] * 4, "divisor": [4096]}},
        {"name": "3x_4k_x_1365_floor_scalar", "params": {"parts": [[4096, 1365], [4096, 1366], [4096, 1365]],
                                                         "divisor": None, "rounding_mode": "floor"}},
        {"name": "2x_4k_x_2k_f16", "params": {"parts": [[4096, 2048], [4096, 2048]], "divisor": [4096, 4096],
                                              "dtype": "float16"}},
        {"name": "8x_8k_x_1k_f32", "params": {"parts": [[8192, 1024]] * 8, "divisor": [8192, 8192]}},
    ],
}


def reference(tensors, divisor, *, rounding_mode=None, out=None):
    y = torch.div(torch.hstack(tensors), divisor, rounding_mode=rounding_mode)
    if out is not None:
        out.copy_(y)
        return out
    return y


def _nonzero_int(g, *shape, dtype=torch.int32):
    v = g.randint(1, 9, *shape, dtype=torch.int64)
    s = g.randint(0, 2, *shape, dtype=torch.int64) * 2 - 1
    return (v * s).to(dtype)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    a = g.tensor([inf, -inf, 5.0, -5.0, 0.0, -0.0, nan, 1.0, 7.0, 1e30, -7.5])
    b = g.tensor([2.0, 2.0, inf, inf, 3.0, 3.0, 1.0, 0.0, -2.0, 1e-10, 2.5])
    for mode in (None, "trunc", "floor"):
        yield {"name": f"special_values_{mode}", "args": ((a[:5], a[5:]), b), "kwargs": {"rounding_mode": mode}}
    # quotients whose float32 value rounds onto an integer while the exact quotient is just below it
    k = torch.arange(1, 41, dtype=torch.float32, device=g.device)
    yield {"name": "floor_python_semantics", "args": ((k * 0.1, k * 0.7), g.tensor(0.1)),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "1d_three_parts_scalar", "args": ((g.randn(5), g.randn(7), g.randn(3)), 2.5), "kwargs": {}}
    yield {"name": "2d_divisor_row", "args": ((g.randn(4, 3), g.randn(4, 5)), g.randn(8)), "kwargs": {}}
    yield {"name": "3d_divisor_broadcast_floor", "args": ((g.randn(2, 3, 4), g.randn(2, 1, 4)), g.randn(2, 1, 1)),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "single_tensor_trunc", "args": ((g.randn(6, 9) * 10,), g.randn(6, 9)),
           "kwargs": {"rounding_mode": "trunc"}}
    yield {"name": "int_true_division_to_float",
           "args": ((g.randint(-50, 50, 4, 3, dtype=torch.int32), g.randint(-50, 50, 4, 2, dtype=torch.int32)),
                    _nonzero_int(g, 4, 5)), "kwargs": {}}
    yield {"name": "int_floor", "args": ((g.randint(-50, 50, 6, 3, dtype=torch.int32),
                                          g.randint(-50, 50, 6, 4, dtype=torch.int32)), _nonzero_int(g, 6, 7)),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "int64_trunc_scalar", "args": ((g.randint(-50, 50, 9), g.randint(-50, 50, 4)), -3),
           "kwargs": {"rounding_mode": "trunc"}}
    yield {"name": "int_and_float_parts_promote", "args": ((g.randint(-5, 5, 3, 2, dtype=torch.int32), g.randn(3, 4)),
                                                          g.tensor(0.5)), "kwargs": {}}
    yield {"name": "zero_divisor_float", "args": ((g.randn(2, 3), g.randn(2, 2)), g.tensor([[0.0], [-0.0]])),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "out_given", "args": ((g.randn(3, 2), g.randn(3, 2)), 4.0),
           "kwargs": {"out": g.tensor([[0.0] * 4] * 3)}}
    yield {"name": "non_contiguous", "args": ((g.randn(20, 6).t(), g.randn(6, 40)[:, ::2]), g.randn(40, 6).t()),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": ((g.randn(500), g.randn(333)), g.randn(833)), "kwargs": {}}
    yield {"name": "randn_2d_odd_trunc", "args": ((g.randn(37, 29) * 8, g.randn(37, 71) * 8), g.randn(37, 100)),
           "kwargs": {"rounding_mode": "trunc"}}
    yield {"name": "outlier_3d_floor", "args": ((g.outlier(4, 33, 65), g.outlier(4, 17, 65)), g.randn(65)),
           "kwargs": {"rounding_mode": "floor"}}
    yield {"name": "randn_f16", "args": ((g.randn(64, 50, dtype=torch.float16), g.randn(64, 50, dtype=torch.float16)),
                                         g.randn(64, 1, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "outlier_bf16_floor", "args": ((g.outlier(3, 7, 111, dtype=torch.bfloat16),
                                                  g.outlier(3, 9, 111, dtype=torch.bfloat16)), -1.5),
           "kwargs": {"rounding_mode": "floor"}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    parts = tuple(g.randn(*p, dtype=dtype) for p in params["parts"])
    d = g.rand(*params["divisor"], low=0.5, high=2.0, dtype=dtype) if params.get("divisor") else 1.5
    return (parts, d), {"rounding_mode": params.get("rounding_mode")}


def perf_cost(params):
    def numel(shape):
        n = 1
        for s in shape:
            n *= s
        return n
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    n = sum(numel(p) for p in params["parts"])
    nd = numel(params["divisor"]) if params.get("divisor") else 0
    # read every part and the divisor once, write the stacked quotient; one division per element
    # (plus one rounding operation when a rounding mode is given)
    per = 1 if params.get("rounding_mode") is None else 2
    return {"bytes": es * (2 * n + nd), "flops": per * n}
