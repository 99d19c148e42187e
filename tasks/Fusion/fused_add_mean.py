import torch

META = {
    "id": "Fusion/fused_add_mean",
    "category": "Fusion",
    "stem": "fused_add_mean",
    "entry": "fused_add_mean",
    "signature": "def fused_add_mean(input, other, dim=None, alpha=1, keepdim=False, dtype=None, out=None) -> Tensor",
    "description": (
        "Mean of input + alpha * other without materialising the sum: other is a tensor "
        "(broadcast against input, possibly to a larger shape) or a Python number; the mean is "
        "taken over dim of the broadcast sum (an int or a tuple of ints; None means all elements, "
        "then keepdim=True keeps every dim as size 1). If dtype is given, input is cast to dtype "
        "before the addition (so an integer input with dtype=torch.float32 works; torch.mean "
        "rejects integer sums), and the result dtype is PyTorch's promotion of the cast input and "
        "other. NaN and inf propagate. The tests use real floating dtypes (and integer inputs with "
        "a floating dtype); complex inputs are not tested. If out is given the result is also "
        "written there."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "The summation order of the mean is free (float32 rtol 1e-4, atol 1e-5 for means near zero "
        "of N(0,1) data); in half precision the reference rounds every sum element to the half "
        "type before averaging, a fused kernel need not."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "rows_1k_x_1k_lastdim", "params": {"a": [1024, 1024], "b": [1024, 1024], "dim": -1}},
        {"name": "rows_4k_x_4k_lastdim", "params": {"a": [4096, 4096], "b": [4096, 4096], "dim": -1}},
        {"name": "16M_all_bias", "params": {"a": [4096, 4096], "b": [4096], "dim": None}},
        {"name": "16M_dim0", "params": {"a": [4096, 4096], "b": [4096, 4096], "dim": 0}},
        {"name": "64M_lastdim_bf16", "params": {"a": [8192, 8192], "b": [8192, 8192], "dim": -1,
                                                "dtype": "bfloat16"}},
    ],
}


def reference(input, other, dim=None, alpha=1, keepdim=False, dtype=None, out=None):
    x = input if dtype is None else input.to(dtype)
    y = torch.mean(torch.add(x, other, alpha=alpha), dim=dim, keepdim=keepdim)
    if out is not None:
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    a = g.tensor([[0.0, -0.0, 1.0, -1.0],
                  [inf, 0.0, 1.0, 2.0],
                  [inf, -inf, 0.0, 0.0],
                  [nan, 0.0, 1.0, 2.0],
                  [1e30, 1e30, -1e30, 1.0],
                  [3.0, 3.0, 3.0, 3.0]])
    b = g.tensor([[1.0, 2.0, 3.0, 4.0],
                  [0.0, 0.0, 0.0, 0.0],
                  [1.0, 1.0, 1.0, 1.0],
                  [1.0, 1.0, 1.0, 1.0],
                  [0.0, 0.0, 0.0, 0.0],
                  [-3.0, -3.0, -3.0, -3.0]])
    yield {"name": "special_rows_lastdim", "args": (a, b), "kwargs": {"dim": 1}}
    yield {"name": "scalar_other_full", "args": (g.randn(7, 9), 0.75), "kwargs": {}}
    yield {"name": "scalar_other_alpha_dim0", "args": (g.randn(7, 9), -1.5), "kwargs": {"dim": 0, "alpha": 2.0}}
    yield {"name": "alpha_zero", "args": (g.randn(5, 13), g.randn(5, 13)), "kwargs": {"dim": 1, "alpha": 0}}
    yield {"name": "bias_broadcast_dim0_keepdim", "args": (g.randn(33, 20), g.randn(20)),
           "kwargs": {"dim": 0, "keepdim": True}}
    yield {"name": "broadcast_to_larger_shape", "args": (g.randn(5, 1), g.randn(1, 7)), "kwargs": {"dim": 1}}
    yield {"name": "full_reduce_keepdim", "args": (g.randn(6, 7, 5), g.randn(7, 1)), "kwargs": {"keepdim": True}}
    yield {"name": "dim_tuple_0_2", "args": (g.randn(6, 5, 11), g.randn(6, 5, 11)), "kwargs": {"dim": (0, 2)}}
    yield {"name": "dim_negative_tuple_keepdim", "args": (g.randn(3, 4, 5, 6), g.randn(6)),
           "kwargs": {"dim": (-1, 1), "keepdim": True}}
    yield {"name": "size1_reduced_dim", "args": (g.randn(7, 1, 3), g.randn(7, 1, 3)), "kwargs": {"dim": 1}}
    yield {"name": "int_input_dtype_f32", "args": (g.randint(-100, 100, 8, 21, dtype=torch.int32), g.randn(8, 21)),
           "kwargs": {"dim": 1, "dtype": torch.float32}}
    yield {"name": "int_input_int_other_dtype_f32", "args": (g.randint(-100, 100, 8, 21), 3),
           "kwargs": {"dim": 0, "alpha": 2, "dtype": torch.float32}}
    yield {"name": "f16_dtype_f32_no_overflow",
           "args": (g.tensor([[60000.0, 60000.0, 1.0], [-60000.0, 5.0, 2.0]], dtype=torch.float16),
                    g.tensor([[60000.0, 1.0, 1.0], [-60000.0, 1.0, 1.0]], dtype=torch.float16)),
           "kwargs": {"dim": 1, "dtype": torch.float32}}
    yield {"name": "f16_plus_f32_promotes", "args": (g.randn(9, 17, dtype=torch.float16), g.randn(9, 17)),
           "kwargs": {"dim": 1}}
    yield {"name": "f32_dtype_f64", "args": (g.randn(5, 40), g.randn(5, 40)), "kwargs": {"dim": -1, "dtype": torch.float64}}
    yield {"name": "out_given", "args": (g.randn(5, 8), g.randn(5, 8)), "kwargs": {"dim": 1, "out": g.tensor([0.0] * 5)}}
    yield {"name": "non_contiguous", "args": (g.randn(24, 40).t(), g.randn(40, 48)[:, ::2]), "kwargs": {"dim": 1}}


def random_cases(g):
    yield {"name": "randn_rows_odd", "args": (g.randn(37, 129), g.randn(37, 129)), "kwargs": {"dim": -1}}
    yield {"name": "randn_full_1d_odd_alpha", "args": (g.randn(5000), g.randn(5000)), "kwargs": {"alpha": 0.5}}
    yield {"name": "outlier_3d_dim1_bias", "args": (g.outlier(4, 333, 17), g.outlier(17)), "kwargs": {"dim": 1}}
    yield {"name": "outlier_full_2d", "args": (g.outlier(71, 211), g.randn(71, 211)), "kwargs": {}}
    yield {"name": "randn_f16_lastdim", "args": (g.randn(64, 100, dtype=torch.float16),
                                                 g.randn(64, 100, dtype=torch.float16)), "kwargs": {"dim": 1}}
    yield {"name": "outlier_bf16_tuple", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),
                                                  g.randn(7, 1, dtype=torch.bfloat16)),
           "kwargs": {"dim": (0, 2), "keepdim": True, "alpha": -1}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    a = g.randn(*params["a"], dtype=dtype)
    b = g.randn(*params["b"], dtype=dtype)
    return (a, b), {"dim": params.get("dim")}


def perf_cost(params):
    a, b = params["a"], params["b"]
    na, nb, n = 1, 1, 1
    for s in a:
        na *= s
    for s in b:
        nb *= s
    ra, rb = a[::-1], b[::-1]
    shape = []
    for i in range(max(len(ra), len(rb))):  # broadcast shape, right-aligned as in PyTorch
        shape.insert(0, max(ra[i] if i < len(ra) else 1, rb[i] if i < len(rb) else 1))
    for s in shape:
        n *= s
    dim = params.get("dim")
    out = 1 if dim is None else n // shape[dim]
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read both operands once, write the means; per broadcast element the add (alpha = 1) and
    # the accumulation, per output one divide
    return {"bytes": es * (na + nb + out), "flops": 2 * n + out}
