import torch

META = {
    "id": "Fusion/fused_gather_masked_fill",
    "category": "Fusion",
    "stem": "fused_gather_masked_fill",
    "entry": "fused_gather_masked_fill",
    "signature": "fused_gather_masked_fill(input, dim, index, mask, value, *, sparse_grad=False, out=None) -> Tensor",
    "description": (
        "Gathers values of input along dim with an int64 index tensor of the same number of dimensions "
        "(torch.gather: out[i][j][k] = input[index[i][j][k]][j][k] for dim 0, index no larger than input "
        "in the other dimensions), then writes value wherever the bool mask (broadcastable to index's "
        "shape) is True (masked_fill). The output has index's shape and input's dtype. sparse_grad only "
        "concerns gradients. If out is given the result is also written there."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "Pure data movement: every output element is a copied input value or the fill value, so the comparison is exact.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_cost_note": "A gather reads only the input elements that index points to (one per output element), not the whole input.",
    "perf_shapes": [
        {"name": "4096x1024_f32", "params": {"shape": [4096, 1024], "dim": 1, "dtype": "float32"}},
        {"name": "8192x4096_f32", "params": {"shape": [8192, 4096], "dim": 1, "dtype": "float32"}},
        {"name": "8192x4096_dim0_f16", "params": {"shape": [8192, 4096], "dim": 0, "dtype": "float16"}},
        {"name": "64x1024x1024_bf16", "params": {"shape": [64, 1024, 1024], "dim": 2, "dtype": "bfloat16"}},
    ],
}


def reference(input, dim, index, mask, value, *, sparse_grad=False, out=None):
    y = torch.gather(input, dim, index, sparse_grad=sparse_grad).masked_fill(mask, value)
    if out is not None:
        out.copy_(y)
        return out
    return y


def edge_cases(g):
    nan, inf = float("nan"), float("inf")
    x = g.tensor([[nan, 1.0, inf], [-inf, 0.0, -0.0], [2.0, 3.5, -1.0]])
    yield {"name": "special_values_fill_nan", "args": (x, 1, g.tensor([[0, 0, 2], [1, 2, 2], [0, 1, 1]], dtype=torch.int64),
                                                       g.bernoulli(3, 3), nan), "kwargs": {}}
    yield {"name": "fill_neg_inf_dim0", "args": (x, 0, g.tensor([[2, 0, 1], [1, 1, 0]], dtype=torch.int64),
                                                 g.tensor([[True, False, False], [False, True, False]], dtype=torch.bool),
                                                 -inf), "kwargs": {}}
    yield {"name": "index_smaller_than_input", "args": (g.randn(9, 12), 1, g.randint(0, 12, 5, 20),
                                                        g.bernoulli(5, 20), 0.5), "kwargs": {}}
    yield {"name": "mask_broadcast_row", "args": (g.randn(8, 10), 0, g.randint(0, 8, 6, 10), g.bernoulli(10), -2.0),
           "kwargs": {}}
    yield {"name": "mask_broadcast_col_3d", "args": (g.randn(4, 6, 7), 2, g.randint(0, 7, 4, 6, 9),
                                                     g.bernoulli(4, 6, 1), 3.0), "kwargs": {}}
    yield {"name": "mask_0d_true", "args": (g.randn(5, 6), 1, g.randint(0, 6, 5, 4), g.tensor(True, dtype=torch.bool), 7.0),
           "kwargs": {}}
    yield {"name": "mask_all_false_dim_minus1", "args": (g.randn(3, 4, 5), -1, g.randint(0, 5, 3, 4, 8),
                                                         g.tensor([False] * 8, dtype=torch.bool), 1.0), "kwargs": {}}
    yield {"name": "int64_input_int_value", "args": (g.randint(-100, 100, 6, 9), 1, g.randint(0, 9, 6, 9),
                                                     g.bernoulli(6, 9), -1), "kwargs": {}}
    yield {"name": "input_1d", "args": (g.randn(17), 0, g.randint(0, 17, 30), g.bernoulli(30), 0.0), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[4.0]]), 0, g.tensor([[0]], dtype=torch.int64),
                                              g.tensor([[False]], dtype=torch.bool), 1.0), "kwargs": {}}
    yield {"name": "empty_index", "args": (g.randn(4, 5), 0, g.randint(0, 4, 0, 5), g.bernoulli(5), 1.0), "kwargs": {}}
    yield {"name": "non_contiguous", "args": (g.randn(12, 9).t(), 0, g.randint(0, 9, 12, 7).t(),
                                              g.bernoulli(7, 12), 2.5), "kwargs": {}}
    yield {"name": "sparse_grad_out", "args": (g.randn(6, 7), 1, g.randint(0, 7, 6, 3), g.bernoulli(6, 3), -0.5),
           "kwargs": {"sparse_grad": True, "out": torch.empty(6, 3, device=g.device)}}


def random_cases(g):
    yield {"name": "randn_dim1_odd", "args": (g.randn(37, 129), 1, g.randint(0, 129, 37, 100), g.bernoulli(37, 100, p=0.3),
                                              0.0), "kwargs": {}}
    yield {"name": "outlier_dim0", "args": (g.outlier(200, 65), 0, g.randint(0, 200, 150, 65), g.bernoulli(65), -1.0),
           "kwargs": {}}
    yield {"name": "randn_3d_dim1", "args": (g.randn(4, 33, 65), 1, g.randint(0, 33, 4, 50, 65), g.bernoulli(4, 50, 65),
                                             3.25), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16), 1, g.randint(0, 100, 64, 100),
                                         g.bernoulli(64, 100), -65504.0), "kwargs": {}}
    yield {"name": "outlier_bf16_odd", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16), 2, g.randint(0, 311, 3, 7, 200),
                                                g.bernoulli(7, 200, p=0.1), 0.5), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape, dim = list(params["shape"]), params["dim"]
    return (g.randn(*shape, dtype=dtype), dim, g.randint(0, shape[dim], *shape), g.bernoulli(*shape, p=0.1),
            0.0), {}


def perf_cost(params):
    shape = list(params["shape"])
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    n = 1
    for s in shape:
        n *= s
    # per output element: read the index (8 bytes), the mask (1 byte) and one gathered input value,
    # write the output; one select per element
    return {"bytes": n * (8 + 1 + 2 * es), "flops": n}
