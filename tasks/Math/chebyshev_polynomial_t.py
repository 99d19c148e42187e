import torch

META = {
    "id": "Math/chebyshev_polynomial_t",
    "category": "Math",
    "stem": "chebyshev_polynomial_t",
    "entry": "chebyshev_polynomial_t",
    "signature": "chebyshev_polynomial_t(input, n, *, out=None) -> Tensor",
    "description": (
        "Chebyshev polynomial of the first kind T_n(input), element-wise, with input and the degree "
        "n broadcast against each other (n is a tensor of integer degrees, int64 or integer-valued "
        "float32, or a Python int). T_0 = 1 (for every input, NaN included), T_1 = x, and "
        "T_{k+1} = 2 x T_k - T_{k-1}; a negative degree gives 0; at x = +-1 the value is exactly "
        "(+-1)^n; for |x| < 1 the result equals cos(n * arccos(x)), which torch uses for n > 6 "
        "(either form is accepted: both agree within the tolerance for the degrees tested, n <= 50). "
        "Infinite or NaN inputs follow the recurrence (so T_2(inf) = inf, T_3(inf) = NaN). The "
        "output dtype is torch's promotion of input and n (float32 here). With out= the result is "
        "written into out and out is returned."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [5e-5, 2e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "The three-term recurrence in float32 and torch's float32 cos(n*acos(x)) both carry an error "
        "growing like n^2 * eps near |x| = 1 (measured difference up to 2e-5 at n = 50, 1e-5 at "
        "n = 30), hence atol 5e-5; rtol 2e-5 covers the recurrence's relative error for |x| > 1, "
        "where values grow like (2|x|)^n."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": [["clamp", -1.0, 1.0]]},
    "perf_shapes": [
        {"name": "1M_n10", "params": {"shape": [1024, 1024], "n": 10}},
        {"name": "16M_n10", "params": {"shape": [4096, 4096], "n": 10}},
        {"name": "16M_n4", "params": {"shape": [4096, 4096], "n": 4}},
        {"name": "16M_tensor_n_upto32", "params": {"shape": [4096, 4096], "n": "tensor", "nmax": 32}},
        {"name": "64M_n10", "params": {"shape": [8192, 8192], "n": 10}},
    ],
}


def reference(input, n, *, out=None):
    if out is not None:
        return torch.special.chebyshev_polynomial_t(input, n, out=out)
    return torch.special.chebyshev_polynomial_t(input, n)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    x = g.tensor([0.5, -0.5, 1.0, -1.0, 1.0, -1.0, 0.0, 0.0, nan, nan, nan, inf, inf, -inf, 2.0, -1.5, 0.3])
    n = g.tensor([0, 1, 7, 7, 8, 8, 9, 10, 0, -1, 3, 2, 3, 2, 5, 4, -3], dtype=torch.int64)
    yield {"name": "special_values_and_degrees", "args": (x, n), "kwargs": {}}
    yield {"name": "all_degrees_0_to_50_grid",
           "args": (g.rand(51, 64, low=-1.0, high=1.0), torch.arange(51, device=g.device).unsqueeze(1)),
           "kwargs": {}}
    yield {"name": "python_int_degree", "args": (g.rand(33, 17, low=-1.0, high=1.0), 9), "kwargs": {}}
    yield {"name": "scalar_tensor_degree", "args": (g.rand(1000, low=-1.0, high=1.0), g.tensor(5, dtype=torch.int64)),
           "kwargs": {}}
    yield {"name": "float_degree_tensor",
           "args": (g.rand(8, 40, low=-1.0, high=1.0), g.randint(0, 30, 8, 1).float()), "kwargs": {}}
    yield {"name": "outside_unit_interval", "args": (g.rand(12, 50, low=-1.6, high=1.6), g.randint(0, 13, 12, 50)),
           "kwargs": {}}
    yield {"name": "near_plus_minus_one",
           "args": (g.tensor([1.0 - 2.0 ** -20, -1.0 + 2.0 ** -20, 1.0 - 1e-3, -1.0 + 1e-3, 1.0 + 2.0 ** -20] * 4),
                    g.tensor([6, 7, 20, 40] * 5, dtype=torch.int64)), "kwargs": {}}
    yield {"name": "broadcast_x_column_n_row",
           "args": (g.rand(24, 1, low=-1.0, high=1.0), torch.arange(-2, 30, device=g.device).unsqueeze(0)),
           "kwargs": {}}
    out = torch.empty(9, 21, device=g.device)
    yield {"name": "out_kwarg", "args": (g.rand(9, 21, low=-1.0, high=1.0), 11), "kwargs": {"out": out}}
    yield {"name": "non_contiguous_transposed", "args": (g.rand(30, 20, low=-1.0, high=1.0).t(),
                                                         g.randint(0, 20, 30, 20).t()), "kwargs": {}}


def random_cases(g):
    yield {"name": "unit_interval_n_upto50", "args": (g.rand(64, 256, low=-1.0, high=1.0),
                                                      g.randint(0, 51, 64, 256)), "kwargs": {}}
    yield {"name": "randn_odd_small_degrees", "args": (0.6 * g.randn(37, 129), g.randint(0, 7, 37, 129)),
           "kwargs": {}}
    yield {"name": "outlier_degree12", "args": (g.outlier(4, 33, 65, scale=3.0).clamp(-1.5, 1.5), 12), "kwargs": {}}
    yield {"name": "degree_column_broadcast", "args": (g.rand(40, 300, low=-1.0, high=1.0),
                                                       g.randint(-2, 41, 40, 1)), "kwargs": {}}
    yield {"name": "float_degrees_1d_odd", "args": (g.rand(5001, low=-1.0, high=1.0),
                                                    g.randint(0, 25, 5001).float()), "kwargs": {}}


def perf_inputs(g, params):
    x = g.rand(*params["shape"], low=-1.0, high=1.0)
    if params["n"] == "tensor":
        return (x, g.randint(0, params["nmax"] + 1, *params["shape"])), {}
    return (x, params["n"]), {}


def perf_cost(params):
    numel = 1
    for s in params["shape"]:
        numel *= s
    if params["n"] == "tensor":
        # read x (float32) and n (int64), write float32; about nmax/2 recurrence steps on average
        return {"bytes": numel * (4 + 8 + 4), "flops": numel * 3 * (params["nmax"] // 2)}
    # read x, write T_n(x) (float32); the recurrence costs 3 flops per degree step
    return {"bytes": numel * 8, "flops": numel * 3 * max(params["n"] - 1, 1)}
