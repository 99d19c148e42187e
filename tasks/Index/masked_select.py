import torch

META = {
    "id": "Index/masked_select",
    "category": "Index",
    "stem": "masked_select",
    "entry": "masked_select",
    "signature": "masked_select(input, mask) -> Tensor",
    "description": (
        "Stream compaction: returns a new 1-D tensor with the elements of input at the positions "
        "where the boolean mask is True, in row-major order. input and mask broadcast against each "
        "other (either may be the smaller one) and the order is that of the broadcast shape. The "
        "output length is data dependent (0 when the mask is all False); values are copied exactly "
        "and keep input's dtype."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "Pure data movement: every selected value must be copied exactly and in order.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_cost_note": 'Stream compaction: besides the mask only the selected input elements need be read, which with a sparse mask is far less than the whole input.',
    "perf_shapes": [
        {"name": "1M_half_true", "params": {"shape": [1024, 1024], "p": 0.5}},
        {"name": "16M_half_true", "params": {"shape": [4096, 4096], "p": 0.5}},
        {"name": "16M_sparse_1pct", "params": {"shape": [4096, 4096], "p": 0.01}},
        {"name": "16M_row_mask_bcast", "params": {"shape": [4096, 4096], "mask_shape": [1, 4096], "p": 0.5}},
        {"name": "64M_half_true", "params": {"shape": [8192, 8192], "p": 0.5}},
    ],
}


def reference(input, mask):
    return torch.masked_select(input, mask)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    x = g.tensor([0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 3.0e38])
    yield {"name": "special_values_alternating",
           "args": (x, g.tensor([True, True, False, True, True, False, True, True], dtype=torch.bool)),
           "kwargs": {}}
    yield {"name": "all_false_empty", "args": (g.randn(7, 9), g.bernoulli(7, 9, p=0.0)), "kwargs": {}}
    yield {"name": "all_true", "args": (g.randn(5, 13), g.bernoulli(5, 13, p=1.0)), "kwargs": {}}
    yield {"name": "single_true_last", "args": (g.randn(3, 11),
                                                g.tensor([[False] * 11, [False] * 11, [False] * 10 + [True]],
                                                         dtype=torch.bool)), "kwargs": {}}
    yield {"name": "mask_broadcast_row", "args": (g.randn(6, 10), g.bernoulli(1, 10)), "kwargs": {}}
    yield {"name": "mask_broadcast_col", "args": (g.randn(6, 10), g.bernoulli(6, 1)), "kwargs": {}}
    yield {"name": "input_broadcast_smaller", "args": (g.randn(10), g.bernoulli(4, 10)), "kwargs": {}}
    yield {"name": "both_broadcast", "args": (g.randn(3, 1, 5), g.bernoulli(1, 4, 5)), "kwargs": {}}
    yield {"name": "int64_values", "args": (g.randint(-2**40, 2**40, 9, 7), g.bernoulli(9, 7)), "kwargs": {}}
    yield {"name": "single_element_true", "args": (g.tensor([[2.5]]), g.tensor([[True]], dtype=torch.bool)),
           "kwargs": {}}
    yield {"name": "non_contiguous_input", "args": (g.randn(12, 10).t(), g.bernoulli(10, 12)), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000), g.bernoulli(1000)), "kwargs": {}}
    yield {"name": "randn_2d_odd_sparse", "args": (g.randn(37, 129), g.bernoulli(37, 129, p=0.05)), "kwargs": {}}
    yield {"name": "outlier_3d_dense", "args": (g.outlier(4, 33, 65), g.bernoulli(4, 33, 65, p=0.9)), "kwargs": {}}
    yield {"name": "randn_f16_large", "args": (g.randn(130, 257, dtype=torch.float16), g.bernoulli(130, 257)),
           "kwargs": {}}
    yield {"name": "bf16_row_mask_bcast", "args": (g.randn(3, 7, 311, dtype=torch.bfloat16), g.bernoulli(1, 1, 311)),
           "kwargs": {}}
    yield {"name": "int32_values", "args": (g.randint(-100, 100, 50, 61, dtype=torch.int32), g.bernoulli(50, 61, p=0.3)),
           "kwargs": {}}


def perf_inputs(g, params):
    x = g.randn(*params["shape"])
    mask = g.bernoulli(*params.get("mask_shape", params["shape"]), p=params["p"])
    return (x, mask), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    nm = 1
    for s in params.get("mask_shape", params["shape"]):
        nm *= s
    sel = int(round(params["p"] * n))  # expected number of selected elements (also with a broadcast mask)
    # the bool mask (1 byte) read once, only the selected float32 inputs read, the output written;
    # compaction is integer work (prefix sum), no FLOPs
    return {"bytes": nm + sel * 4 + sel * 4, "flops": 0}
