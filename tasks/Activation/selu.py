import torch

META = {
    "id": "Activation/selu",
    "category": "Activation",
    "stem": "selu",
    "entry": "selu",
    "signature": "selu(input, inplace=False) -> Tensor",
    "description": (
        "Element-wise scaled exponential linear unit: scale * x for x > 0 and "
        "scale * alpha * (exp(x) - 1) otherwise, with alpha = 1.6732632423543772848170429916717 and "
        "scale = 1.0507009873554804934193349852946. NaN stays NaN, -inf maps to -scale * alpha. The "
        "output has the input's shape and dtype (half precision computed in float32, rounded once). "
        "With inplace=True the input itself is overwritten with the result and returned."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-10],
        "float32": [1e-6, 1e-5],
        "float16": [1e-3, 5e-3],
        "bfloat16": [8e-3, 1e-2],
    },
    "tolerance_note": (
        "exp differs by an ulp or two between libraries and exp(x) - 1 (instead of expm1) loses "
        "relative accuracy only near 0, where the 1e-6 absolute part covers it; half precision allows "
        "one output rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_bf16", "params": {"shape": [4096, 4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
        {"name": "64M_f32_inplace", "params": {"shape": [8192, 8192], "dtype": "float32", "inplace": True}},
    ],
}


def reference(input, inplace=False):
    return torch.nn.functional.selu(input, inplace=inplace)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 1e-30, -1e-30, 1e-4, -1e-4, -5.0, -20.0,
               -100.0, 3.0e38, -3.0e38, 1e-45]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, nan, 6.0e-8, -6.0e-8, -1e-3, -4.0, 4.0, 60000.0],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "all_negative", "args": (-g.rand(5, 9, low=0.1, high=4.0),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[-2.5]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-0.25),), "kwargs": {}}
    yield {"name": "inplace_f32", "args": (g.randn(17, 33),), "kwargs": {"inplace": True}, "mutates": [0]}
    yield {"name": "inplace_bf16_special",
           "args": (g.tensor([-1.0, 2.0, -inf, inf, nan, -0.0, 0.0], dtype=torch.bfloat16),),
           "kwargs": {"inplace": True}, "mutates": [0]}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "randn_inplace_f16", "args": (g.randn(5, 1023, dtype=torch.float16),),
           "kwargs": {"inplace": True}, "mutates": [0]}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype),), {"inplace": bool(params.get("inplace", False))}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    return {"bytes": 2 * n * es, "flops": 5 * n}
