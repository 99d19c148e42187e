import torch

META = {
    "id": "Fusion/fused_mv_sigmoid_sub",
    "category": "Fusion",
    "stem": "fused_mv_sigmoid_sub",
    "entry": "fused_mv_sigmoid_sub",
    "signature": "fused_mv_sigmoid_sub(input, vec, other, alpha=1, *, out=None) -> Tensor",
    "description": (
        "Computes y = sigmoid(input @ vec) - alpha * other: a matrix-vector product of input (n, m) "
        "and vec (m,), the logistic sigmoid of the resulting length-n vector, then subtraction of "
        "other scaled by alpha. other is a Python number or a tensor broadcastable to (n,) (shape "
        "(n,), (1,) or 0-d); the result has shape (n,) and the input dtype. If out is given the "
        "result is also written there."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle: the fp32 mat-vec sum is off by ~1e-6 and sigmoid's slope is at "
        "most 1/4, so 1e-5 absolute plus a little rtol for exp differences; half precision allows the "
        "rounding of z and of the sigmoid to the input dtype (about one ulp each)."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "4096x1024_f32", "params": {"n": 4096, "m": 1024, "dtype": "float32"}},
        {"name": "16384x4096_f32", "params": {"n": 16384, "m": 4096, "dtype": "float32"}},
        {"name": "16384x4096_f16", "params": {"n": 16384, "m": 4096, "dtype": "float16"}},
        {"name": "65536x4096_bf16", "params": {"n": 65536, "m": 4096, "dtype": "bfloat16"}},
    ],
}


def reference(input, vec, other, alpha=1, *, out=None):
    y = torch.sub(torch.sigmoid(torch.mv(input, vec)), other, alpha=alpha)
    if out is not None:
        out.copy_(y)
        return out
    return y


def _mv(g, n, m, dtype=torch.float32, mode="randn"):
    # rows scaled by 1/sqrt(m): z = A v stays O(1), where the sigmoid is not saturated
    a = (g.outlier(n, m) if mode == "outlier" else g.randn(n, m)) * (m ** -0.5)
    return a.to(dtype), g.randn(m).to(dtype)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    a, v = _mv(g, 37, 19)
    yield {"name": "scalar_other", "args": (a, v, 0.5), "kwargs": {}}
    yield {"name": "scalar_other_alpha_neg", "args": (a, v, 0.25), "kwargs": {"alpha": -3}}
    yield {"name": "tensor_other_alpha_float", "args": _mv(g, 41, 23) + (g.randn(41),), "kwargs": {"alpha": 0.5}}
    yield {"name": "other_len1_broadcast", "args": _mv(g, 30, 8) + (g.tensor([0.3]),), "kwargs": {}}
    yield {"name": "other_0d", "args": _mv(g, 30, 8) + (g.tensor(-1.25),), "kwargs": {"alpha": 2}}
    yield {"name": "alpha_zero", "args": _mv(g, 17, 9) + (g.randn(17),), "kwargs": {"alpha": 0}}
    # saturated sigmoid: z = +-1e3 gives exactly 1 and 0, no NaN from exp overflow
    yield {"name": "saturated", "args": (g.tensor([[1000.0, 0.0], [-1000.0, 0.0], [0.0, 0.0], [40.0, 0.0],
                                                   [-40.0, 0.0], [-90.0, 0.0]]), g.tensor([1.0, 2.0]), 0.0),
           "kwargs": {}}
    yield {"name": "nonfinite_other", "args": (g.randn(4, 3), g.randn(3), g.tensor([inf, -inf, nan, 1.0])),
           "kwargs": {}}
    yield {"name": "single_row_col", "args": (g.tensor([[2.0]]), g.tensor([-0.5]), g.tensor([0.1])), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (g.randn(20, 33).t(), g.randn(40)[::2], g.randn(66)[::2]),
           "kwargs": {}}
    yield {"name": "out_kwarg", "args": _mv(g, 25, 12) + (g.randn(25),),
           "kwargs": {"out": torch.empty(25, device=g.device)}}


def random_cases(g):
    yield {"name": "randn_odd", "args": _mv(g, 511, 100) + (g.randn(511),), "kwargs": {}}
    yield {"name": "randn_scalar_alpha", "args": _mv(g, 256, 64) + (0.75,), "kwargs": {"alpha": 1.5}}
    yield {"name": "outlier", "args": _mv(g, 300, 37, mode="outlier") + (g.outlier(300),), "kwargs": {}}
    yield {"name": "randn_f16", "args": _mv(g, 1000, 32, torch.float16) + (g.randn(1000, dtype=torch.float16),),
           "kwargs": {"alpha": 0.5}}
    yield {"name": "randn_bf16_odd", "args": _mv(g, 777, 48, torch.bfloat16) + (g.randn(777, dtype=torch.bfloat16),),
           "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    n, m = params["n"], params["m"]
    return (g.randn(n, m, dtype=dtype), g.randn(m, dtype=dtype), g.randn(n, dtype=dtype)), {"alpha": 1}


def perf_cost(params):
    n, m = params["n"], params["m"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read A, v and other (n), write y (n); 2*n*m for the mat-vec, sigmoid 4 (neg, exp, add, div)
    # and the scaled subtraction 2 per row
    return {"bytes": (n * m + m + 2 * n) * es, "flops": 2 * n * m + 6 * n}
