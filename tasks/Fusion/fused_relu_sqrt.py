import torch

META = {
    "id": "Fusion/fused_relu_sqrt",
    "category": "Fusion",
    "stem": "fused_relu_sqrt",
    "entry": "fused_relu_sqrt",
    "signature": "def fused_relu_sqrt(input, inplace=False, out=None) -> Tensor",
    "description": (
        "Element-wise sqrt(max(0, x)) in one pass: negative elements become zero before the square "
        "root, so the result is never NaN for a negative input; NaN stays NaN and +inf stays +inf. "
        "The output has the shape and dtype of the input. With inplace=True the input tensor itself "
        "is overwritten with the result and returned; if out is given the result is also written "
        "there."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-6, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "sqrt is correctly rounded in IEEE arithmetic, but a fast (approximate) GPU square root is "
        "within 2 ulp, covered by rtol 1e-5; half precision is computed in float32 and rounded once."
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
        {"name": "64M_f32_inplace", "params": {"shape": [8192, 8192], "dtype": "float32", "inplace": True}},
    ],
}


def reference(input, inplace=False, out=None):
    if inplace:
        y = input.relu_().sqrt_()
    else:
        y = torch.sqrt(torch.relu(input))
    if out is not None:
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1.0, -1.0, 4.0, 2.0, inf, -inf, nan, 1e-38, -1e-38, 3.0e38, 1e-45, 0.25]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, -0.0, inf, -inf, nan, 6.0e-8, -6.0e-8, 65504.0, 9.0], dtype=torch.float16),),
           "kwargs": {}}
    yield {"name": "all_negative", "args": (-g.rand(5, 9, low=0.1, high=4.0),), "kwargs": {}}
    yield {"name": "perfect_squares", "args": (g.tensor([[0.0, 1.0, 4.0, 9.0, 16.0, 1e6, 0.0625]]),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[2.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(-3.25),), "kwargs": {}}
    yield {"name": "inplace_f32", "args": (g.randn(17, 33),), "kwargs": {"inplace": True}, "mutates": [0]}
    yield {"name": "inplace_bf16_special",
           "args": (g.tensor([-1.0, 2.0, -inf, inf, nan, -0.0, 0.0, 0.5], dtype=torch.bfloat16),),
           "kwargs": {"inplace": True}, "mutates": [0]}
    yield {"name": "out_given", "args": (g.randn(6, 11),), "kwargs": {"out": g.tensor([[0.0] * 11] * 6)}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 129),), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16),), "kwargs": {}}
    yield {"name": "randn_inplace_f16", "args": (g.randn(5, 1023, dtype=torch.float16),),
           "kwargs": {"inplace": True}, "mutates": [0]}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    return (x,), {"inplace": bool(params.get("inplace", False))}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write sqrt(relu(x)) (in place too); one compare/select and one sqrt per element
    return {"bytes": 2 * n * es, "flops": 2 * n}
