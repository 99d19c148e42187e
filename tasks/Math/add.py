import torch

META = {
    "id": "Math/add",
    "category": "Math",
    "stem": "add",
    "entry": "add",
    "signature": "add(input, other, *, alpha=1, out=None) -> Tensor",
    "description": (
        "Computes input + alpha * other element-wise. other is a tensor or a Python number; tensors "
        "broadcast to a common shape and the result dtype follows PyTorch's type promotion "
        "(torch.result_type: e.g. float16 + float32 tensor -> float32, int tensor + float number -> "
        "float32, a 0-dim tensor does not raise the dtype of a dimensioned one). Integer results "
        "must be exact; IEEE rules apply to inf/NaN (inf + -inf = NaN). Complex inputs are not tested."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "One correctly rounded multiply-add per element (fused or not): the defaults cover the one-ulp difference an FMA makes.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"a": [1024, 1024], "b": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"a": [4096, 4096], "b": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f32_row_bcast_alpha", "params": {"a": [4096, 4096], "b": [4096], "dtype": "float32", "alpha": 0.5}},
        {"name": "16M_bf16", "params": {"a": [4096, 4096], "b": [4096, 4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"a": [8192, 8192], "b": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, other, *, alpha=1, out=None):
    return torch.add(input, other, alpha=alpha, out=out)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    a = g.tensor([0.0, -0.0, -0.0, inf, inf, -inf, nan, 1.0, 3.0e38, 1e-30])
    b = g.tensor([0.0, -0.0, 0.0, -inf, inf, -inf, 1.0, nan, 3.0e38, -1e-30])
    yield {"name": "special_values", "args": (a, b), "kwargs": {}}
    yield {"name": "special_values_alpha_-1", "args": (a, b), "kwargs": {"alpha": -1}}
    yield {"name": "alpha_zero", "args": (g.randn(6, 7), g.randn(6, 7)), "kwargs": {"alpha": 0}}
    yield {"name": "alpha_float", "args": (g.randn(6, 7), g.randn(6, 7)), "kwargs": {"alpha": 2.5}}
    yield {"name": "bcast_col_row", "args": (g.randn(5, 1), g.randn(1, 7)), "kwargs": {}}
    yield {"name": "bcast_other_more_dims", "args": (g.randn(7), g.randn(3, 1, 7)), "kwargs": {"alpha": -2.0}}
    yield {"name": "bcast_middle", "args": (g.randn(3, 4, 5), g.randn(3, 1, 5)), "kwargs": {}}
    yield {"name": "scalar_float_other", "args": (g.randn(4, 9), 1.25), "kwargs": {}}
    yield {"name": "scalar_int_other_alpha", "args": (g.randn(4, 9), 3), "kwargs": {"alpha": 2}}
    yield {"name": "int64_exact", "args": (g.randint(-1000, 1000, 40, dtype=torch.int64),
                                          g.randint(-1000, 1000, 40, dtype=torch.int64)),
           "kwargs": {"alpha": 3}}
    yield {"name": "int32_plus_int_scalar", "args": (g.randint(-50, 50, 8, 5, dtype=torch.int32), 7),
           "kwargs": {}}
    yield {"name": "int32_plus_float_scalar_promotes", "args": (g.randint(-50, 50, 33, dtype=torch.int32), 2.5),
           "kwargs": {}}
    yield {"name": "f16_plus_f32_promotes", "args": (g.randn(9, 17, dtype=torch.float16), g.randn(9, 17)),
           "kwargs": {}}
    yield {"name": "f16_plus_0d_f32_stays_f16",
           "args": (g.randn(9, 17, dtype=torch.float16), g.tensor(0.75)), "kwargs": {}}
    yield {"name": "int64_plus_f32_tensor", "args": (g.randint(-9, 9, 3, 11, dtype=torch.int64), g.randn(3, 11)),
           "kwargs": {"alpha": 0.5}}
    yield {"name": "empty_rows", "args": (g.randn(0, 5), g.randn(5)), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[1.5]]), g.tensor([[-2.25]])), "kwargs": {}}
    yield {"name": "non_contiguous_inputs", "args": (g.randn(20, 30).t(), g.randn(30, 40)[:, ::2]),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000), g.randn(1000)), "kwargs": {}}
    yield {"name": "randn_2d_odd_alpha", "args": (g.randn(37, 129), g.randn(37, 129)), "kwargs": {"alpha": -0.75}}
    yield {"name": "outlier_3d_bcast", "args": (g.outlier(4, 33, 65), g.outlier(33, 1)), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16), g.randn(64, 100, dtype=torch.float16)),
           "kwargs": {}}
    yield {"name": "outlier_bf16_alpha", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),
                                                 g.outlier(3, 7, 311, dtype=torch.bfloat16)),
           "kwargs": {"alpha": 2}}
    yield {"name": "randint_int64_bcast", "args": (g.randint(-10**6, 10**6, 17, 31), g.randint(-10**6, 10**6, 31)),
           "kwargs": {"alpha": -4}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    a = g.randn(*params["a"], dtype=dtype)
    b = g.randn(*params["b"], dtype=dtype)
    return (a, b), {"alpha": params.get("alpha", 1)}


def perf_cost(params):
    a, b = params["a"], params["b"]
    na, nb, nout = 1, 1, 1
    for s in a:
        na *= s
    for s in b:
        nb *= s
    ra, rb = a[::-1], b[::-1]
    for i in range(max(len(ra), len(rb))):  # broadcast shape, right-aligned as in PyTorch
        nout *= max(ra[i] if i < len(ra) else 1, rb[i] if i < len(rb) else 1)
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read input and other (a broadcast operand is read once), write the broadcast output;
    # one add per output element, plus a multiply when alpha != 1
    per = 1 if params.get("alpha", 1) == 1 else 2
    return {"bytes": es * (na + nb + nout), "flops": per * nout}
