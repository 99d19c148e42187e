import torch

META = {
    "id": "Index/permute_copy",
    "category": "Index",
    "stem": "permute_copy",
    "entry": "permute_copy",
    "signature": "torch.permute_copy(input, dims) -> Tensor",
    "description": (
        "Returns input with its dimensions reordered as torch.permute(input, dims) would, but as a "
        "freshly allocated tensor that does not alias the input (the result's values are those of the "
        "permuted view; the result itself may be laid out contiguously). dims is a permutation of the "
        "dimension indices and may use negative indices. Any dtype (float, integer, bool) is supported "
        "and the values are copied exactly."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "A permutation only moves values, so every dtype is compared exactly (NaN positions included).",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "transpose_4Kx4K_f32", "params": {"shape": [4096, 4096], "dims": [1, 0]}},
        {"name": "bhsd_to_bshd_f16", "params": {"shape": [16, 32, 2048, 128], "dims": [0, 2, 1, 3], "dtype": "float16"}},
        {"name": "nchw_to_nhwc_f32", "params": {"shape": [64, 256, 56, 56], "dims": [0, 2, 3, 1]}},
        {"name": "reverse_3d_bf16", "params": {"shape": [512, 512, 256], "dims": [2, 1, 0], "dtype": "bfloat16"}},
        {"name": "transpose_16Kx16K_f32", "params": {"shape": [16384, 16384], "dims": [1, 0]}},
    ],
}


def reference(input, dims):
    return torch.permute_copy(input, dims)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    yield {"name": "transpose_2d_special", "args": (g.tensor([[0.0, -0.0, inf], [-inf, nan, 1e-45]]), [1, 0]), "kwargs": {}}
    yield {"name": "identity_perm", "args": (g.randn(3, 4, 5), [0, 1, 2]), "kwargs": {}}
    yield {"name": "negative_dims", "args": (g.randn(3, 4, 5), [-1, 0, -2]), "kwargs": {}}
    yield {"name": "size1_dims", "args": (g.randn(1, 7, 1, 9), (3, 2, 1, 0)), "kwargs": {}}
    yield {"name": "1d", "args": (g.randn(33), [0]), "kwargs": {}}
    yield {"name": "0d", "args": (g.tensor(2.5), []), "kwargs": {}}
    yield {"name": "5d_rotate", "args": (g.randn(2, 3, 4, 5, 6), [4, 0, 3, 1, 2]), "kwargs": {}}
    yield {"name": "6d", "args": (g.randn(2, 3, 2, 3, 2, 5), [5, 3, 1, 4, 2, 0]), "kwargs": {}}
    yield {"name": "int64", "args": (g.randint(-2 ** 62, 2 ** 62, 6, 10, 3), [2, 0, 1]), "kwargs": {}}
    yield {"name": "int8", "args": (g.randint(-128, 128, 9, 17, dtype=torch.int16).to(torch.int8), [1, 0]), "kwargs": {}}
    yield {"name": "bool", "args": (g.bernoulli(5, 6, 7), [1, 2, 0]), "kwargs": {}}
    yield {"name": "non_contiguous_input", "args": (g.randn(20, 30)[::2, 1::3], [1, 0]), "kwargs": {}}
    yield {"name": "transposed_input_back", "args": (g.randn(24, 40).t(), [1, 0]), "kwargs": {}}


def random_cases(g):
    yield {"name": "transpose_odd", "args": (g.randn(37, 129), [1, 0]), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65), [2, 0, 1]), "kwargs": {}}
    yield {"name": "nchw_to_nhwc", "args": (g.randn(2, 16, 9, 13), [0, 2, 3, 1]), "kwargs": {}}
    yield {"name": "f16_bhsd", "args": (g.randn(2, 3, 40, 32, dtype=torch.float16), [0, 2, 1, 3]), "kwargs": {}}
    yield {"name": "bf16_reverse", "args": (g.outlier(7, 11, 13, dtype=torch.bfloat16), [2, 1, 0]), "kwargs": {}}
    yield {"name": "int32_perm", "args": (g.randint(-1000, 1000, 5, 6, 7, 8, dtype=torch.int32), [3, 1, 0, 2]), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype), list(params["dims"])), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = 4 if params.get("dtype", "float32") == "float32" else 2
    return {"bytes": 2 * n * es, "flops": 0}
