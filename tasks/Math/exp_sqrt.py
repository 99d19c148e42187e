import torch

META = {
    "id": "Math/exp_sqrt",
    "category": "Math",
    "stem": "exp_sqrt",
    "entry": "exp_sqrt",
    "signature": 'def exp_sqrt(input, out=None) -> Tensor',
    "description": (
        'Element-wise square root of the exponential: y = sqrt(exp(x)), the composition of the '
        'two PyTorch ops. As in the composition, exp(x) is first rounded to the input dtype, so '
        "it overflows to +inf (and the result is +inf) once x exceeds the dtype's exp range (x > "
        '~88.72 in float32, ~11.09 in float16) even though sqrt(exp(x)) itself would be '
        "representable; -inf gives 0 and NaN stays NaN. The output has the input's shape and "
        'dtype.'
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 2e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        'exp has a relative condition number of |x| and sqrt halves it, so float32 results carry '
        'a few ulp; rtol 2e-5 covers exp implementations that differ by a couple of ulp, and '
        'halves are rounded like the reference.'
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": [["clamp", -10.0, 10.0]]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, out=None):
    result = torch.sqrt(torch.exp(input))
    if out is not None:
        out.copy_(result)
        return out
    return result


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1e-30, -1e-6, 1.0, -1.0, 10.0, -10.0, 88.0, 88.7, 88.8, 100.0, -87.0, -104.0,
               -200.0, 3.0e38, -3.0e38, inf, -inf, nan]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, 1.0, -1.0, 5.0, 11.0, 11.2, 15.0, -17.0, -20.0, inf, -inf, nan],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 1.0, -1.0, 40.0, 88.0, 89.0, -100.0, inf, -inf, nan], dtype=torch.bfloat16),),
           "kwargs": {}}

    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.75),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(0, 5),), "kwargs": {}}

    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t() * 4,), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "wide_2d_odd", "dist": "wide", "args": (g.rand(37, 129, low=-100.0, high=100.0),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, p=1e-2),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16) * 4,), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype) * 4,), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write sqrt(exp(x)); exp + sqrt counted as ~10 FLOPs
    return {"bytes": 2 * n * esize, "flops": 10 * n}
