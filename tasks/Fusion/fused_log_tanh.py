import torch

META = {
    "id": "Fusion/fused_log_tanh",
    "category": "Fusion",
    "stem": "fused_log_tanh",
    "entry": "fused_log_tanh",
    "signature": "def fused_log_tanh(input, out=None) -> Tensor",
    "description": (
        "Element-wise tanh(log(x)) in one pass; the result lies in [-1, 1]. Inputs are meant to be "
        "positive; the boundary values follow PyTorch: log(0) = -inf gives -1, +inf gives 1, and a "
        "negative input or NaN gives NaN. The output has the shape and dtype of the input (half "
        "precision computed in float32 and rounded once is expected). If out is given the result "
        "is also written there."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "The result is bounded by 1, so an absolute 1e-5 covers approximate GPU log/tanh (a few ulp, "
        "absolute error near log(1) = 0); half precision: the reference rounds log(x) to the half "
        "type before tanh, a fused kernel need not, about one extra rounding."
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
    ],
}


def reference(input, out=None):
    y = torch.tanh(torch.log(input))
    if out is not None:
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [1.0, 0.0, -0.0, inf, nan, -1.0, 1e-38, 1e-45, 3.0e38, 0.5, 2.0, 1.0001, 0.9999, 10.0, 0.1]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([1.0, 0.0, inf, nan, 6.0e-8, 65504.0, 0.5, 2.0, 1.001], dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "near_one", "args": (1.0 + 1e-3 * g.randn(7, 19),), "kwargs": {}}
    yield {"name": "ones", "args": (g.tensor([[1.0] * 9] * 4),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[3.0]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.25),), "kwargs": {}}
    yield {"name": "out_given", "args": (g.rand(6, 11, low=0.05, high=5.0),),
           "kwargs": {"out": g.tensor([[0.0] * 11] * 6)}}
    yield {"name": "non_contiguous_transposed", "args": (g.rand(24, 40, low=0.01, high=20.0).t(),), "kwargs": {}}


def random_cases(g):
    # log-normal inputs: log(x) ~ N(0, 1), where tanh is far from saturated
    yield {"name": "lognormal_1d_odd", "args": (g.randn(1000).exp(),), "kwargs": {}}
    yield {"name": "lognormal_2d_odd", "args": (g.randn(37, 129).exp(),), "kwargs": {}}
    yield {"name": "uniform_2d", "args": (g.rand(32, 64, low=1e-3, high=4.0),), "kwargs": {}}
    yield {"name": "outlier_abs_3d", "args": (g.outlier(4, 33, 65).abs() + 1e-3,), "kwargs": {}}
    yield {"name": "lognormal_f16", "args": (g.randn(64, 100).exp().to(torch.float16),), "kwargs": {}}
    yield {"name": "outlier_lognormal_bf16", "args": (g.outlier(3, 7, 311, scale=3.0).exp().to(torch.bfloat16),),
           "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.rand(*params["shape"], low=0.01, high=10.0, dtype=dtype)
    return (x,), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write tanh(log(x)); two transcendentals, counted 1 FLOP each
    return {"bytes": 2 * n * es, "flops": 2 * n}
