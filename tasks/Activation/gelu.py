import torch

META = {
    "id": "Activation/gelu",
    "category": "Activation",
    "stem": "gelu",
    "entry": "gelu",
    "signature": "gelu(input, approximate='none') -> Tensor",
    "description": (
        "Element-wise Gaussian Error Linear Unit. With approximate='none' the result is "
        "x * Phi(x), Phi being the standard normal CDF (0.5 * (1 + erf(x / sqrt(2)))); with "
        "approximate='tanh' it is 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))). "
        "The output has the input's shape and dtype; half-precision inputs are expected to be "
        "computed in float32 internally and rounded once."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "erf/tanh/exp implementations (libdevice, PyTorch's vectorized CPU code) differ by a few ulp, "
        "so float32 uses rtol 1e-4; half precision allows about two output roundings."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f32_tanh", "params": {"shape": [4096, 4096], "dtype": "float32", "approximate": "tanh"}},
        {"name": "16M_bf16", "params": {"shape": [4096, 4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, approximate="none"):
    return torch.nn.functional.gelu(input, approximate=approximate)


def edge_cases(g):
    nan = float("nan")
    # +-inf are left out on purpose: PyTorch's CPU and CUDA kernels disagree there (nan vs +-inf/0).
    special = [0.0, -0.0, nan, 1e-30, -1e-30, 1e-3, -1e-3, 0.5, -0.5, 3.0, -3.0, 6.0, -6.0,
               10.0, -10.0, 30.0, -30.0, 1e4, -1e4]
    for approx in ("none", "tanh"):
        yield {"name": f"special_values_f32_{approx}", "args": (g.tensor(special),),
               "kwargs": {"approximate": approx}}
    yield {"name": "special_values_f16_tanh",
           "args": (g.tensor([0.0, -0.0, nan, 6.0e-8, -2.0, 2.0, 8.0, -8.0, 60000.0, -60000.0],
                             dtype=torch.float16),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "special_values_bf16_none",
           "args": (g.tensor([0.0, -0.0, nan, -2.0, 2.0, 8.0, -8.0, 1e30, -1e30],
                             dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "dense_sweep_-8_8", "args": (g.tensor([i / 64.0 - 8.0 for i in range(1025)]),),
           "kwargs": {}}
    yield {"name": "dense_sweep_-8_8_tanh",
           "args": (g.tensor([i / 64.0 - 8.0 for i in range(1025)]),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "single_element", "args": (g.tensor([[-0.75]]),), "kwargs": {}}
    yield {"name": "scalar_0d_tanh", "args": (g.tensor(1.5),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "non_contiguous_slice", "args": (g.randn(30, 50)[:, ::3],), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd_tanh", "args": (g.randn(37, 129),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "outlier_3d_tanh", "args": (g.outlier(3, 31, 67),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "randn_f16_tanh", "args": (g.randn(33, 77, dtype=torch.float16),),
           "kwargs": {"approximate": "tanh"}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    return (x,), {"approximate": params.get("approximate", "none")}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write gelu(x). Per element, transcendentals counted as 1:
    # 'none': x * 0.5 * (1 + erf(x * 1/sqrt(2))) -> mul, erf, add, mul, mul = 5
    # 'tanh': 0.5 * x * (1 + tanh(c * (x + 0.044715 * x^3))) -> 2 mul (x^3), mul, add, mul, tanh, add,
    #         mul, mul = 9
    per = 9 if params.get("approximate", "none") == "tanh" else 5
    return {"bytes": 2 * n * es, "flops": per * n}
