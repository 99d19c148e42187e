import torch

META = {
    "id": "Fusion/fused_sub_gelu",
    "category": "Fusion",
    "stem": "fused_sub_gelu",
    "entry": "fused_sub_gelu",
    "signature": "def fused_sub_gelu(input, other, alpha=1, approximate='none', out=None) -> Tensor",
    "description": (
        "Element-wise GELU(input - alpha * other) in one pass. other is a tensor (broadcast "
        "against input) or a Python number; the result has the broadcast shape and the dtype of "
        "PyTorch's type promotion for the subtraction. GELU is x * Phi(x) (exact erf form) for "
        "approximate='none' "
        "and 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) for approximate='tanh'. "
        "If out is given the result is also written there."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "erf/tanh implementations differ by a few ulp (rtol 1e-4 in float32); in half precision the "
        "reference rounds the difference to the half type before GELU, a fused kernel need not: "
        "about one extra rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"a": [1024, 1024], "b": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"a": [4096, 4096], "b": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f32_bias_tanh", "params": {"a": [4096, 4096], "b": [4096], "dtype": "float32", "approximate": "tanh"}},
        {"name": "16M_bf16_bias", "params": {"a": [4096, 4096], "b": [4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"a": [8192, 8192], "b": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, other, alpha=1, approximate="none", out=None):
    y = torch.nn.functional.gelu(torch.sub(input, other, alpha=alpha), approximate=approximate)
    if out is not None:
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    nan = float("nan")
    a = g.tensor([0.0, -0.0, nan, 1.0, -1.0, 3.0, -3.0, 10.0, -10.0, 1e4, -1e4, 0.5])
    b = g.tensor([0.0, -0.0, 1.0, nan, -1.0, -3.0, 6.0, 20.0, -20.0, 1.0, -1.0, 0.25])
    yield {"name": "special_values", "args": (a, b), "kwargs": {}}
    yield {"name": "special_values_tanh_alpha", "args": (a, b), "kwargs": {"alpha": -0.5, "approximate": "tanh"}}
    yield {"name": "scalar_other", "args": (g.randn(7, 9), 0.75), "kwargs": {}}
    yield {"name": "scalar_other_alpha_tanh", "args": (g.randn(7, 9), -1.5), "kwargs": {"alpha": 2.0, "approximate": "tanh"}}
    yield {"name": "alpha_zero", "args": (g.randn(5, 13), g.randn(5, 13)), "kwargs": {"alpha": 0}}
    yield {"name": "bias_broadcast_row", "args": (g.randn(6, 33), g.randn(33)), "kwargs": {}}
    yield {"name": "broadcast_col_row_tanh", "args": (g.randn(5, 1), g.randn(1, 7)), "kwargs": {"approximate": "tanh"}}
    yield {"name": "f16_minus_f32_promotes", "args": (g.randn(9, 17, dtype=torch.float16), g.randn(9, 17)),
           "kwargs": {}}
    yield {"name": "bf16_minus_0d_f32_stays_bf16", "args": (g.randn(9, 17, dtype=torch.bfloat16), g.tensor(0.5)),
           "kwargs": {"alpha": 2}}
    x = g.randn(6, 21)
    yield {"name": "difference_of_equal_tensors_is_zero", "args": (x, x.clone()), "kwargs": {}}
    yield {"name": "alpha_negative_int", "args": (g.randn(6, 21), g.randn(6, 21)), "kwargs": {"alpha": -2}}
    yield {"name": "single_element", "args": (g.tensor([[-0.3]]), g.tensor([[0.1]])), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (g.randn(20, 30).t(), g.randn(30, 40)[:, ::2]), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000), g.randn(1000)), "kwargs": {}}
    yield {"name": "randn_2d_odd_alpha", "args": (g.randn(37, 129), g.randn(37, 129)), "kwargs": {"alpha": 0.5}}
    yield {"name": "randn_2d_odd_tanh", "args": (g.randn(41, 97), g.randn(41, 97)), "kwargs": {"approximate": "tanh"}}
    yield {"name": "outlier_3d_bias", "args": (g.outlier(4, 33, 65), g.outlier(65)), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16), g.randn(64, 100, dtype=torch.float16)),
           "kwargs": {}}
    yield {"name": "outlier_bf16_tanh", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),
                                                g.outlier(3, 7, 311, dtype=torch.bfloat16)),
           "kwargs": {"approximate": "tanh", "alpha": -1}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    a = g.randn(*params["a"], dtype=dtype)
    b = g.randn(*params["b"], dtype=dtype)
    return (a, b), {"alpha": 1, "approximate": params.get("approximate", "none")}


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
    # read a and b (a broadcast bias is read once), write the broadcast output. Per output element:
    # the subtraction (alpha=1) 1, then gelu with transcendentals counted as 1: 'none' x*0.5*(1+erf(x/sqrt2))
    # = 5, 'tanh' 0.5*x*(1+tanh(c*(x+0.044715*x^3))) = 9
    per = 1 + (9 if params.get("approximate", "none") == "tanh" else 5)
    return {"bytes": es * (na + nb + nout), "flops": per * nout}
