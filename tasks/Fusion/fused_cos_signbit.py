import math

import torch

META = {
    "id": "Fusion/fused_cos_signbit",
    "category": "Fusion",
    "stem": "fused_cos_signbit",
    "entry": "fused_cos_signbit",
    "signature": "def fused_cos_signbit(input: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]",
    "description": (
        "Element-wise cosine of the input (radians) and, in the same pass, the sign bit of each "
        "cosine: returns the tuple (cos(input), signbit(cos(input))), the first with the input's "
        "shape and floating dtype, the second a bool tensor of the same shape that is True where "
        "the cosine is negative. Half precision inputs are expected to be computed in float32 and "
        "rounded once. The test inputs are finite and keep |cos(x)| >= 1e-3, so the sign bit does "
        "not depend on the last-ulp accuracy of the cosine (nor on the sign of a NaN)."
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
        "cos is bounded by 1, so an absolute 1e-5 covers few-ulp float32 cosine differences and "
        "argument reduction up to |x| ~ 1e3; the bool sign bits are compared exactly, which is why "
        "inputs with |cos(x)| < 1e-3 are moved away from the zero crossings."
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


def reference(input):
    c = torch.cos(input)
    return c, torch.signbit(c)


def _away_from_zeros(x, dtype=torch.float32):
    """Cast to dtype and move every element whose cosine is within 1e-3 of zero up by 0.05 rad
    plus a few ulp of the dtype (so that the step survives the rounding of large half values)."""
    x = x.to(dtype)
    step = 4.0 * torch.finfo(dtype).eps
    for _ in range(6):
        xd = x.double()
        near = torch.cos(xd).abs() < 1e-3
        if not bool(near.any()):
            break
        x = torch.where(near, (xd + 0.05 + step * xd.abs()).to(dtype), x)
    return x


def edge_cases(g):
    pi = math.pi
    special = [0.0, -0.0, 1.0, -1.0, pi, -pi, pi / 2 - 0.01, pi / 2 + 0.01, -pi / 2 + 0.01,
               -pi / 2 - 0.01, 3 * pi / 2 + 0.002, 2 * pi, 100.0, -100.0, 1000.5, 3.0e-8]
    yield {"name": "special_values_f32", "args": (_away_from_zeros(g.tensor(special)),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (_away_from_zeros(g.tensor([0.0, -0.0, 3.14, -3.14, 1.5, 1.65, 100.0, 6.0e-8, 4.7]),
                                     torch.float16),), "kwargs": {}}
    grid = torch.linspace(-20.0, 20.0, 801, dtype=torch.float64, device=g.device)
    yield {"name": "dense_grid_-20_20", "args": (_away_from_zeros(grid),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[2.0]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-0.5),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (_away_from_zeros(g.randn(24, 40) * 3).t(),),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (_away_from_zeros(g.randn(1000) * 3),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (_away_from_zeros(g.randn(37, 129) * 3),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (_away_from_zeros(g.outlier(4, 33, 65)),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (_away_from_zeros(g.randn(64, 100) * 3, torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (_away_from_zeros(g.outlier(3, 7, 311), torch.bfloat16),),
           "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    return (x,), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write cos(x) and one bool byte per element; cos counted 1 FLOP, the sign test 1
    return {"bytes": n * (2 * es + 1), "flops": 2 * n}
