import torch

META = {
    "id": "Math/softmax",
    "category": "Math",
    "stem": "softmax",
    "entry": "softmax",
    "signature": "def softmax(input, dim, dtype=None) -> Tensor",
    "description": (
        "Softmax along one dimension: every slice along `dim` is mapped to exp(x_i) / sum_j exp(x_j), "
        "so its entries lie in [0, 1] and sum to 1. `dim` may be any (also negative) dimension, not "
        "only the last one. The result must be numerically stable for large inputs (subtract the "
        "slice maximum before exponentiating); -inf entries get probability 0. If `dtype` is given the "
        "input is cast to it first and the output has that dtype, otherwise the output keeps the input "
        "dtype (half precision is expected to be computed in float32 internally)."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-10],
        "float32": [1e-6, 1e-5],
        "float16": [1e-4, 5e-3],
        "bfloat16": [1e-4, 1e-2],
    },
    "tolerance_note": (
        "Outputs are probabilities, often ~1/N, so atol is kept small (1e-6 in float32) and the check "
        "is mostly relative: rtol 1e-5 covers exp approximations and a different summation order; "
        "half precision allows about one ulp of the rounded output."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1Kx1K_f32", "params": {"shape": [1024, 1024], "dim": -1, "dtype": "float32"}},
        {"name": "4Kx4K_f32", "params": {"shape": [4096, 4096], "dim": -1, "dtype": "float32"}},
        {"name": "4Kx4K_f16", "params": {"shape": [4096, 4096], "dim": -1, "dtype": "float16"}},
        {"name": "16Kx32K_f32_rows", "params": {"shape": [512, 32768], "dim": -1, "dtype": "float32"}},
        {"name": "8Kx2K_f32_dim0", "params": {"shape": [8192, 2048], "dim": 0, "dtype": "float32"}},
    ],
}


def reference(input, dim, dtype=None):
    return torch.nn.functional.softmax(input, dim=dim, dtype=dtype)


def edge_cases(g):
    inf = float("inf")
    yield {"name": "size1_dim", "args": (g.randn(7, 1), -1), "kwargs": {}}
    yield {"name": "one_d", "args": (g.randn(33), 0), "kwargs": {}}
    yield {"name": "equal_values_row", "args": (g.tensor([[2.5] * 10, [0.0] * 10, [-7.0] * 10]), 1),
           "kwargs": {}}
    # naive exp overflows / underflows here: the row maximum must be subtracted first
    yield {"name": "large_magnitudes", "args": (g.randn(6, 50) * 1000.0, -1), "kwargs": {}}
    yield {"name": "large_offset", "args": (g.randn(5, 40) + 500.0, 1), "kwargs": {}}
    # causal-style mask: every row keeps at least one finite entry
    mask = torch.triu(torch.ones(12, 12, dtype=torch.bool), diagonal=1).to(g.device)
    scores = g.randn(12, 12).masked_fill(mask, -inf)
    yield {"name": "neg_inf_causal_mask", "args": (scores, -1), "kwargs": {}}
    yield {"name": "neg_inf_mask_dim0", "args": (scores.t().contiguous(), 0), "kwargs": {}}
    yield {"name": "dim0_2d", "args": (g.randn(19, 23), 0), "kwargs": {}}
    yield {"name": "middle_dim_3d", "args": (g.randn(3, 17, 5), 1), "kwargs": {}}
    yield {"name": "negative_dim_4d", "args": (g.randn(2, 3, 9, 4), -3), "kwargs": {}}
    yield {"name": "f16_in_dtype_f32", "args": (g.randn(8, 65, dtype=torch.float16), -1),
           "kwargs": {"dtype": torch.float32}}
    yield {"name": "scalar_0d", "args": (g.tensor(1.5), 0), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129), -1), "kwargs": {}}
    yield {"name": "randn_long_rows", "args": (g.randn(6, 5003), 1), "kwargs": {}}
    yield {"name": "outlier_3d_dim1", "args": (g.outlier(4, 257, 9, p=1e-2), 1), "kwargs": {}}
    yield {"name": "outlier_scaled_rows", "dist": "wide", "args": (g.outlier(16, 1000, p=1e-2) * 4.0, -1), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 300, dtype=torch.float16), -1), "kwargs": {}}
    yield {"name": "outlier_bf16_dim0", "args": (g.outlier(311, 21, dtype=torch.bfloat16), 0),
           "kwargs": {}}
    yield {"name": "randn_bf16_to_f32", "args": (g.randn(10, 777, dtype=torch.bfloat16) * 3.0, -1),
           "kwargs": {"dtype": torch.float32}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    return (x, int(params.get("dim", -1))), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x once, write y once (the reduction dim does not change the traffic); per element: max
    # compare, subtract the max, exp (1), add to the sum, scale by 1/sum -> 5 FLOPs
    return {"bytes": 2 * n * es, "flops": 5 * n}
