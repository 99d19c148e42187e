import torch

META = {
    "id": "Fusion/fused_index_select_eq",
    "category": "Fusion",
    "stem": "fused_index_select_eq",
    "entry": "fused_index_select_eq",
    "signature": "fused_index_select_eq(input, dim, index, other, *, out=None) -> Tensor",
    "description": (
        "Selects slices of input along dim with a 1-D integer index (int64 or int32, repeats allowed, "
        "as torch.index_select) and compares the selection element-wise with other for equality. other "
        "is a Python number or a tensor broadcastable to the selection's shape. The result is a bool "
        "tensor with the selection's shape (input.shape with size len(index) at dim); NaN never equals "
        "anything. If out is given the result is also written there."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "The output is bool and compared exactly; values are drawn from a small integer set so that equality is frequent.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_cost_note": "Only the selected slices of input are read (len(index) of input.shape[dim] along dim), so bytes follow the selection, not the whole input.",
    "perf_shapes": [
        {"name": "4096x1024_sel2048_f32", "params": {"shape": [4096, 1024], "dim": 0, "n_index": 2048, "dtype": "float32"}},
        {"name": "8192x4096_sel8192_f32", "params": {"shape": [8192, 4096], "dim": 0, "n_index": 8192, "dtype": "float32"}},
        {"name": "8192x4096_dim1_sel2048_f16", "params": {"shape": [8192, 4096], "dim": 1, "n_index": 2048, "dtype": "float16"}},
        {"name": "64x1024x1024_sel64_bf16", "params": {"shape": [64, 1024, 1024], "dim": 0, "n_index": 64, "dtype": "bfloat16"}},
    ],
}


def reference(input, dim, index, other, *, out=None):
    r = torch.eq(torch.index_select(input, dim, index), other)
    if out is not None:
        out.copy_(r)
        return out
    return r


def _small(g, *shape, dtype=torch.float32):
    # values in {-2, ..., 2}: equality with another such tensor happens ~1/5 of the time
    return g.randint(-2, 3, *shape).to(dtype)


def edge_cases(g):
    nan, inf = float("nan"), float("inf")
    x = g.tensor([[nan, 1.0, inf], [-inf, 0.0, -0.0], [2.0, nan, 1.0]])
    yield {"name": "special_values_scalar_nan", "args": (x, 0, g.tensor([2, 0, 0], dtype=torch.int64), nan), "kwargs": {}}
    yield {"name": "special_values_tensor", "args": (x, 1, g.tensor([2, 1], dtype=torch.int64),
                                                     g.tensor([[inf, nan], [-0.0, 0.0], [1.0, nan]])), "kwargs": {}}
    yield {"name": "zero_equals_negzero", "args": (x, 0, g.tensor([1], dtype=torch.int64), 0.0), "kwargs": {}}
    yield {"name": "dim1_repeated_index", "args": (_small(g, 7, 9), 1, g.tensor([8, 0, 8, 3, 3], dtype=torch.int64),
                                                   _small(g, 7, 5)), "kwargs": {}}
    yield {"name": "int32_index_dim_minus1", "args": (_small(g, 4, 5, 6), -1, g.tensor([5, 1, 0], dtype=torch.int32),
                                                      _small(g, 4, 5, 3)), "kwargs": {}}
    yield {"name": "other_broadcast_row", "args": (_small(g, 10, 12), 0, g.randint(0, 10, 6), _small(g, 12)), "kwargs": {}}
    yield {"name": "other_broadcast_col_3d", "args": (_small(g, 3, 8, 5), 1, g.randint(0, 8, 11), _small(g, 3, 11, 1)),
           "kwargs": {}}
    yield {"name": "other_0d_tensor", "args": (_small(g, 6, 7), 0, g.randint(0, 6, 4), g.tensor(1.0)), "kwargs": {}}
    yield {"name": "int64_input_int_other", "args": (g.randint(0, 3, 5, 9), 1, g.randint(0, 9, 4), 1), "kwargs": {}}
    yield {"name": "empty_index", "args": (_small(g, 5, 4), 0, g.tensor([], dtype=torch.int64), 0.0), "kwargs": {}}
    yield {"name": "input_1d", "args": (_small(g, 13), 0, g.tensor([12, 0, 6, 6], dtype=torch.int64), -1.0),
           "kwargs": {}}
    yield {"name": "non_contiguous_input", "args": (_small(g, 9, 14).t(), 0, g.randint(0, 14, 7), _small(g, 7, 9)),
           "kwargs": {}}
    yield {"name": "out_kwarg", "args": (_small(g, 6, 7), 0, g.randint(0, 6, 4), 2.0),
           "kwargs": {"out": torch.empty(4, 7, dtype=torch.bool, device=g.device)}}


def random_cases(g):
    yield {"name": "dim0_odd", "args": (_small(g, 300, 37), 0, g.randint(0, 300, 251), _small(g, 251, 37)), "kwargs": {}}
    yield {"name": "dim1_scalar", "args": (_small(g, 64, 200), 1, g.randint(0, 200, 129), 1.0), "kwargs": {}}
    yield {"name": "outlier_rounded_dim2", "args": (g.outlier(4, 33, 65).round(), 2, g.randint(0, 65, 70),
                                                    g.outlier(4, 33, 70).round()), "kwargs": {}}
    yield {"name": "perm_index_f16", "args": (_small(g, 128, 100, dtype=torch.float16), 0, g.perm(128),
                                              _small(g, 128, 100, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "bf16_broadcast", "args": (_small(g, 3, 50, 77, dtype=torch.bfloat16), 1, g.randint(0, 50, 31),
                                              _small(g, 77, dtype=torch.bfloat16)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape, dim, k = list(params["shape"]), params["dim"], params["n_index"]
    sel = list(shape)
    sel[dim] = k
    return (_small(g, *shape, dtype=dtype), dim, g.randint(0, shape[dim], k), _small(g, *sel, dtype=dtype)), {}


def perf_cost(params):
    shape, dim, k = list(params["shape"]), params["dim"], params["n_index"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    nsel = k
    for i, s in enumerate(shape):
        if i != dim:
            nsel *= s
    # read the selected input elements, the index (k int64) and other (same shape as the selection),
    # write one bool per element; one comparison per element
    return {"bytes": nsel * es * 2 + k * 8 + nsel, "flops": nsel}
