import torch

META = {
    "id": "Math/zeta",
    "category": "Math",
    "stem": "zeta",
    "entry": "zeta",
    "signature": "zeta(input, other, *, out=None) -> Tensor",
    "description": (
        "Hurwitz zeta function zeta(x, q) = sum_{k>=0} (k + q)^(-x), element-wise, with x = input "
        "and q = other broadcast against each other (torch.special.zeta; q = 1 gives the Riemann "
        "zeta function). Conventions as torch: x = 1 gives +inf, x < 1 gives NaN; for q <= 0, an "
        "integer q gives +inf, and a non-integer q gives NaN unless x is an integer (then the "
        "series is summed as written); NaN or infinite inputs give NaN (as torch does). float32 inputs give float32 output. "
        "The usual method is the Euler-Maclaurin formula (a few direct terms, then a tail with "
        "Bernoulli-number corrections). With out= the result is written into out and out is returned."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Judged against the exact (float64) value: float32 evaluation of (k+q)^(-x) as exp(-x*log(k+q)) "
        "loses about |x*log(k+q)| * eps relative per term (x <= 30, k+q <= 1e3 here: up to 2e-5), "
        "so rtol 1e-4; atol 1e-5 covers results that underflow toward 0 for large x and q."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024]}},
        {"name": "4M_f32", "params": {"shape": [2048, 2048]}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096]}},
        {"name": "16M_riemann_q1", "params": {"shape": [4096, 4096], "riemann": True}},
    ],
}


def reference(input, other, *, out=None):
    if out is not None:
        return torch.special.zeta(input, other, out=out)
    return torch.special.zeta(input, other)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    x = g.tensor([1.0, 0.5, -2.0, 2.0, 2.0, 2.0, 3.0, 2.5, 2.0, nan, 2.0, inf, 2.0, 4.0, 1.0 + 2.0 ** -10, 50.0])
    q = g.tensor([1.0, 1.0, 1.0, 0.0, -3.0, -2.5, -1.5, -0.5, nan, 1.0, inf, 2.0, 1e-3, 0.25, 1.0, 1.0])
    yield {"name": "special_values", "args": (x, q), "kwargs": {}}
    yield {"name": "riemann_integers", "args": (torch.arange(2, 40, device=g.device, dtype=torch.float32),
                                                torch.ones(38, device=g.device)), "kwargs": {}}
    yield {"name": "near_pole", "args": (1.0 + g.rand(200, low=1e-4, high=1e-1), g.rand(200, low=0.5, high=3.0)),
           "kwargs": {}}
    yield {"name": "broadcast_row_col", "args": (g.rand(20, 1, low=1.5, high=12.0), g.rand(1, 30, low=0.1, high=20.0)),
           "kwargs": {}}
    yield {"name": "scalar_q_tensor", "args": (g.rand(500, low=1.1, high=8.0), g.tensor(2.0)), "kwargs": {}}
    yield {"name": "out_kwarg", "args": (g.rand(7, 9, low=1.5, high=6.0), g.rand(7, 9, low=0.5, high=5.0)),
           "kwargs": {"out": torch.empty(7, 9, device=g.device)}}
    yield {"name": "non_contiguous", "args": (g.rand(30, 20, low=1.5, high=6.0).t(), g.rand(30, 20, low=0.2, high=9.0).t()),
           "kwargs": {}}


def random_cases(g):
    yield {"name": "x_1p1_10_q_0p1_10", "dist": "wide", "args": (g.rand(64, 256, low=1.1, high=10.0), g.rand(64, 256, low=0.1, high=10.0)),
           "kwargs": {}}
    yield {"name": "odd_large_q", "dist": "wide", "args": (g.rand(37, 129, low=1.5, high=6.0), g.rand(37, 129, low=10.0, high=1000.0)),
           "kwargs": {}}
    yield {"name": "large_x", "args": (g.rand(4, 33, 65, low=10.0, high=30.0), g.rand(4, 33, 65, low=0.5, high=4.0)),
           "kwargs": {}}
    yield {"name": "abs_outlier_q", "args": (g.rand(5000, low=1.2, high=5.0), g.outlier(5000, scale=20.0).abs() + 0.05),
           "kwargs": {}}


def perf_inputs(g, params):
    x = g.rand(*params["shape"], low=1.1, high=10.0)
    if params.get("riemann"):
        return (x, torch.ones(params["shape"], device=g.device)), {}
    return (x, g.rand(*params["shape"], low=0.1, high=10.0)), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    # read x and q, write zeta (float32); about 9 direct terms (log, exp, add) and up to 12
    # Euler-Maclaurin tail terms (~6 flops each): ~110 flops per element
    return {"bytes": 12 * n, "flops": 110 * n}
