import torch

META = {
    "id": "Activation/gelu_fp16",
    "category": "Activation",
    "stem": "gelu_fp16",
    "entry": "gelu_fp16",
    "signature": "gelu_fp16(input: Tensor, approximate: str='none') -> Tensor",
    "description": (
        "Element-wise GELU on a torch.float16 tensor, returning torch.float16 of the same shape, with "
        "torch.nn.functional.gelu semantics: approximate='none' gives x * Phi(x) = 0.5 * x * "
        "(1 + erf(x / sqrt(2))), approximate='tanh' gives 0.5 * x * (1 + tanh(sqrt(2 / pi) * "
        "(x + 0.044715 * x^3))). Only float16 inputs are used; the value is expected to be computed in "
        "float32 and rounded to float16 once. NaN stays NaN; infinities are not tested (PyTorch's own CPU and CUDA kernels disagree there)."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [1e-5, 1e-3],
        "bfloat16": [1e-5, 8e-3],
    },
    "tolerance_note": (
        "Reference and candidate both round a float32 GELU once to float16; erf/tanh implementations differ "
        "by a few float32 ulp, which can flip that rounding by at most one float16 ulp (relative size <= "
        "2^-10, i.e. rtol 1e-3); atol 1e-5 covers the far negative tail, where 1 + erf (or 1 + tanh) cancels in float32. "
        "This is tight enough to tell the tanh approximation from the exact form."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M", "params": {"shape": [1024, 1024]}},
        {"name": "16M", "params": {"shape": [4096, 4096]}},
        {"name": "16M_tanh", "params": {"shape": [4096, 4096], "approximate": "tanh"}},
        {"name": "64M", "params": {"shape": [8192, 8192]}},
        {"name": "256M", "params": {"shape": [16384, 16384]}},
    ],
}

_DT = torch.float16


def reference(input, approximate='none'):
    return torch.nn.functional.gelu(input, approximate=approximate)


def edge_cases(g):
    nan = float("nan")
    # +-inf are left out on purpose: PyTorch's CPU and CUDA kernels disagree there (nan vs +-inf/0)
    special = [0.0, -0.0, nan, 6.0e-8, -6.0e-8, 1e-3, -1e-3, -0.75, -2.0, 2.0, 8.0, -8.0, 60000.0, -60000.0, 65504.0]
    yield {"name": "special_values_none", "args": (g.tensor(special, dtype=_DT),), "kwargs": {}}
    yield {"name": "special_values_tanh", "args": (g.tensor(special, dtype=_DT),),
           "kwargs": {"approximate": "tanh"}}
    sweep = [i / 64.0 - 8.0 for i in range(1025)]
    yield {"name": "dense_sweep_-8_8", "args": (g.tensor(sweep, dtype=_DT),), "kwargs": {}}
    yield {"name": "dense_sweep_-8_8_tanh", "args": (g.tensor(sweep, dtype=_DT),),
           "kwargs": {"approximate": "tanh"}}
    yield {"name": "single_element", "args": (g.tensor([[-0.75]], dtype=_DT),), "kwargs": {}}
    yield {"name": "scalar_0d_tanh", "args": (g.tensor(1.5, dtype=_DT),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "non_contiguous_slice", "args": (g.randn(30, 50, dtype=_DT)[:, ::3],), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000, dtype=_DT),), "kwargs": {}}
    yield {"name": "randn_2d_odd_tanh", "args": (g.randn(37, 129, dtype=_DT),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, dtype=_DT),), "kwargs": {}}
    yield {"name": "outlier_3d_tanh", "args": (g.outlier(3, 31, 67, dtype=_DT),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "randn_scaled_4_2d", "dist": "wide", "args": (g.randn(64, 100, dtype=_DT) * 4,), "kwargs": {}}


def perf_inputs(g, params):
    return (g.randn(*params["shape"], dtype=_DT),), {"approximate": params.get("approximate", "none")}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    return {"bytes": 2 * n * 2, "flops": (14 if params.get("approximate", "none") == "tanh" else 10) * n}
