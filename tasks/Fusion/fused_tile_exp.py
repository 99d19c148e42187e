import torch

META = {
    "id": "Fusion/fused_tile_exp",
    "category": "Fusion",
    "stem": "fused_tile_exp",
    "entry": "fused_tile_exp",
    "signature": "fused_tile_exp(input, dims, *, out=None) -> Tensor",
    "description": (
        "exp(tile(input, dims)) in one pass: the input is repeated dims[k] times along each "
        "dimension (as torch.tile: if dims is shorter than input.dim(), ones are prepended to dims; "
        "if it is longer, the input is treated as having leading size-1 dimensions) and every "
        "element of the tiled tensor is exponentiated. A repeat count of 0 gives an empty result. "
        "The output has the tiled shape and the input's floating dtype; exp(-inf) = 0, +inf and "
        "NaN propagate. If out is given the result is also written there."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "exp() differs by a few ulp between libraries and a fast GPU exp (exp2 of x*log2(e)) loses "
        "about |x| ulp, so float32 uses rtol 1e-4; half precision is computed in float32 and rounded "
        "once."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1k_x_1k_tile_2x2", "params": {"shape": [1024, 1024], "dims": [2, 2]}},
        {"name": "4k_x_1k_tile_1x4", "params": {"shape": [4096, 1024], "dims": [1, 4]}},
        {"name": "row_4k_tile_4096x1", "params": {"shape": [1, 4096], "dims": [4096, 1]}},
        {"name": "16M_f16_tile_2x2", "params": {"shape": [2048, 2048], "dims": [2, 2], "dtype": "float16"}},
        {"name": "3d_batch_tile_16", "params": {"shape": [64, 512, 512], "dims": [4, 1, 1]}},
    ],
}


def reference(input, dims, *, out=None):
    y = torch.exp(torch.tile(input, dims))
    if out is not None:
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "special_values", "args": (g.tensor([0.0, -0.0, -inf, inf, nan, 1.0, -1.0, 88.0, -104.0, 1e-30]), (3,)),
           "kwargs": {}}
    yield {"name": "special_values_f16", "args": (g.tensor([[0.0, -inf, inf, nan, 11.0, -17.0]], dtype=torch.float16),
                                                  (2, 2)), "kwargs": {}}
    yield {"name": "dims_shorter_than_input", "args": (g.randn(3, 4, 5), (2,)), "kwargs": {}}
    yield {"name": "dims_longer_than_input", "args": (g.randn(7), (2, 3, 2)), "kwargs": {}}
    yield {"name": "all_ones_is_exp", "args": (g.randn(9, 13), (1, 1)), "kwargs": {}}
    yield {"name": "zero_repeat_empty", "args": (g.randn(4, 5), (0, 2)), "kwargs": {}}
    yield {"name": "size1_dims", "args": (g.randn(1, 6, 1), (5, 1, 7)), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.5), (4, 3)), "kwargs": {}}
    yield {"name": "dims_as_list", "args": (g.randn(3, 5), [3, 2]), "kwargs": {}}
    yield {"name": "out_given", "args": (g.randn(2, 3), (2, 2)), "kwargs": {"out": g.tensor([[0.0] * 6] * 4)}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(12, 20).t(), (2, 3)), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(333), (3,)), "kwargs": {}}
    yield {"name": "randn_2d_odd", "args": (g.randn(37, 29), (3, 5)), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, scale=10.0), (2, 1, 3)), "kwargs": {}}
    yield {"name": "randn_4d", "args": (g.randn(2, 3, 5, 7), (2, 2, 3, 2)), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(32, 50, dtype=torch.float16), (2, 3)), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 111, dtype=torch.bfloat16, scale=10.0), (1, 2, 4)),
           "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    return (x, tuple(params["dims"])), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    rep = 1
    for d in params["dims"]:
        rep *= d
    es = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read the input once, write the tiled output; one exp (counted 1 FLOP) per output element
    return {"bytes": es * (n + n * rep), "flops": n * rep}
