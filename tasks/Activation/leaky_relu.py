import torch

META = {
    "id": "Activation/leaky_relu",
    "category": "Activation",
    "stem": "leaky_relu",
    "entry": "leaky_relu",
    "signature": "leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor",
    "description": (
        "Element-wise leaky ReLU: positive elements pass through, the others are multiplied by "
        "negative_slope (max(0, x) + negative_slope * min(0, x)); NaN stays NaN and -inf maps to "
        "negative_slope * -inf. With inplace=True the input is overwritten and returned."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "One multiplication per element, correctly rounded in every dtype: the defaults are ample.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
        {"name": "64M_f32_inplace", "params": {"shape": [8192, 8192], "dtype": "float32", "inplace": True}},
    ],
}


def reference(input, negative_slope=0.01, inplace=False):
    return torch.nn.functional.leaky_relu(input, negative_slope=negative_slope, inplace=inplace)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 1e-30, -1e-30, 3.0e38, -3.0e38, 100.0, -100.0]
    yield {"name": "special_values_default_slope", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_slope_0.2", "args": (g.tensor(special),),
           "kwargs": {"negative_slope": 0.2}}
    yield {"name": "slope_zero_is_relu", "args": (g.randn(9, 11),), "kwargs": {"negative_slope": 0.0}}
    yield {"name": "slope_one_is_identity", "args": (g.randn(9, 11),), "kwargs": {"negative_slope": 1.0}}
    yield {"name": "slope_negative", "args": (g.randn(5, 13),), "kwargs": {"negative_slope": -0.5}}
    yield {"name": "slope_large", "args": (g.randn(5, 13),), "kwargs": {"negative_slope": 3.0}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, nan, -65504.0, 65504.0, -3.0], dtype=torch.float16),),
           "kwargs": {"negative_slope": 0.1}}
    yield {"name": "single_element", "args": (g.tensor([[-4.0]]),), "kwargs": {}}
    yield {"name": "inplace_f32", "args": (g.randn(17, 33),),
           "kwargs": {"negative_slope": 0.05, "inplace": True}, "mutates": [0]}
    yield {"name": "inplace_bf16", "args": (g.randn(3, 45, dtype=torch.bfloat16),),
           "kwargs": {"inplace": True}, "mutates": [0]}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),),
           "kwargs": {"negative_slope": 0.3}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd_slope", "args": (g.randn(37, 129),), "kwargs": {"negative_slope": 0.2}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),),
           "kwargs": {"negative_slope": 0.1}}
    yield {"name": "randn_inplace_f32", "args": (g.randn(5, 1023),),
           "kwargs": {"negative_slope": 0.01, "inplace": True}, "mutates": [0]}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    return (x,), {"negative_slope": 0.01, "inplace": bool(params.get("inplace", False))}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write the result (in place too: the same n elements are read and written);
    # per element one multiply by negative_slope and one compare/select = 2
    return {"bytes": 2 * n * es, "flops": 2 * n}
