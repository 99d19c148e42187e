import torch

META = {
    "id": "Math/cos",
    "category": "Math",
    "stem": "cos",
    "entry": "cos",
    "signature": "cos(input, *, out=None) -> Tensor",
    "description": (
        "Element-wise cosine of the input (in radians). cos(+-inf) and cos(NaN) are NaN; the output "
        "has the shape of the input and its dtype (integer inputs give float32). Arguments of "
        "moderate size (up to about 1e4 in magnitude) must be reduced accurately; half precision "
        "inputs are expected to be computed in float32 and rounded once."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "cos is bounded by 1, so an absolute 1e-5 covers the few-ulp differences between float32 "
        "cosine implementations (and the argument-reduction error up to |x| ~ 1e4); half precision "
        "is rounded once."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, *, out=None):
    if out is not None:
        return torch.cos(input, out=out)
    return torch.cos(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    pi = 3.141592653589793
    special = [0.0, -0.0, inf, -inf, nan, pi, -pi, pi / 2, -pi / 2, 2 * pi, 1e-30, -1e-38,
               100.0, -1000.5, 12345.678, 1e-4]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, inf, -inf, nan, 3.140625, -1.5703125, 100.0, 1000.0, 6.0e-8],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, inf, nan, 3.140625, -1.5703125, 256.0, -1e-20], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "multiples_of_half_pi", "args": (g.tensor([k * pi / 2 for k in range(-20, 21)]),),
           "kwargs": {}}
    yield {"name": "int64_promotes_to_f32", "args": (g.randint(-500, 500, 7, 13),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[0.5]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-2.0),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(0, 4),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "wide_range_2d_odd", "dist": "wide", "args": (g.rand(37, 129, low=-1000.0, high=1000.0),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, p=1e-2),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16) * 4,), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype),), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write cos(x); one cosine evaluation counted as ~20 FLOPs (reduction + polynomial)
    return {"bytes": 2 * n * esize, "flops": 20 * n}
