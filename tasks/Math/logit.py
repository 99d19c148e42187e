import torch

META = {
    "id": "Math/logit",
    "category": "Math",
    "stem": "logit",
    "entry": "logit",
    "signature": 'logit(input, eps=None, *, out=None) -> Tensor',
    "description": (
        'Element-wise log-odds: y = ln(z / (1 - z)). With eps=None, z = x, so x = 0 gives -inf, x '
        '= 1 gives +inf and x outside [0, 1] gives NaN. With eps >= 0, z = x clamped to [eps, 1 - '
        'eps] (tested in this order: x < eps -> eps, else x > 1 - eps -> 1 - eps), where eps and '
        "1 - eps are taken in the input's dtype as PyTorch does (so in half precision they are "
        'rounded first). A negative eps acts like None. NaN propagates. The output has the '
        "input's shape and dtype."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 2e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 1e-2],
    },
    "tolerance_note": (
        "One log of a quotient: a few float32 ulp, so rtol 2e-5 (atol 1e-5 covers the cancellation near "
        "x = 0.5 where the result crosses 0). PyTorch evaluates bfloat16 logit in bfloat16 arithmetic "
        "(1 - z and the quotient rounded to 8 bits before the log), which is off by up to ~3 * 2**-9 "
        "absolute near x = 0.5, so bfloat16 gets atol 1e-2 to admit a correctly rounded float32 result. Low-precision eps cases "
        "use an eps whose 1 - eps is exact in the dtype (2**-6): with eps = 0.001, PyTorch's CPU kernel "
        "clamps to 1 - eps rounded to bfloat16 (= 1.0, so +inf) and its CUDA kernel to 0.999 (6.9): "
        "the answer would depend on the device (found on the H200)."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": ["sigmoid", ["clamp", 1e-4, 1.0 - 1e-4]]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input, eps=None, *, out=None):
    if out is not None:
        return torch.special.logit(input, eps=eps, out=out)
    return torch.special.logit(input, eps=eps)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, 0.5, 0.25, 0.75, 1e-30, 1e-7, 0.99999994, 1.00000012, -1e-30, 2.0, -3.0,
               inf, -inf, nan, 0.49999997, 0.50000006]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_eps", "args": (g.tensor(special),), "kwargs": {"eps": 1e-6}}
    yield {"name": "special_values_eps_zero", "args": (g.tensor(special),), "kwargs": {"eps": 0.0}}
    yield {"name": "negative_eps_is_none", "args": (g.tensor(special),), "kwargs": {"eps": -0.25}}
    yield {"name": "large_eps_clamps", "args": (g.rand(5, 13, low=-0.5, high=1.5),), "kwargs": {"eps": 0.2}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, 1.0, 0.5, 6.0e-8, 0.99951171875, 1.5, -0.5, inf, nan], dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "f16_eps_rounded",
           "args": (g.tensor([0.0, 1.0, 0.5, 0.001, 0.995, 1.5, -0.5, nan], dtype=torch.float16),),
           "kwargs": {"eps": 0.01}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 1.0, 0.5, 1e-20, 0.99609375, 2.0, -inf, nan], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "bf16_eps", "args": (g.rand(7, 9, low=-0.1, high=1.1, dtype=torch.bfloat16),),
           "kwargs": {"eps": 0.05}}
    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.75),), "kwargs": {"eps": 0.1}}
    yield {"name": "empty", "args": (g.randn(0, 5),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40).t(),), "kwargs": {}}


def random_cases(g):
    # raw N(0,1) without eps: elements outside [0, 1] must come out NaN
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_eps_1d_odd", "args": (g.randn(1000),), "kwargs": {"eps": 1e-6}}
    yield {"name": "domain_2d_odd", "args": (g.rand(37, 129),), "kwargs": {}}
    yield {"name": "outlier_sigmoid_3d", "args": (torch.sigmoid(g.outlier(4, 33, 65, p=1e-2, scale=10.0)),),
           "kwargs": {"eps": 1e-4}}
    yield {"name": "domain_f16", "args": (g.rand(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "domain_bf16_eps", "args": (g.rand(3, 7, 311, low=-0.2, high=1.2, dtype=torch.bfloat16),),
           "kwargs": {"eps": 0.015625}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.rand(*params["shape"], dtype=dtype),), {"eps": params.get("eps")}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write logit(x); clamp, subtract, divide, log counted as ~8 FLOPs
    return {"bytes": 2 * n * esize, "flops": 8 * n}
