import torch

META = {
    "id": "Fusion/fused_masked_select_add_gelu",
    "category": "Fusion",
    "stem": "fused_masked_select_add_gelu",
    "entry": "fused_masked_select_add_gelu",
    "signature": "fused_masked_select_add_gelu(input, mask, other, *, alpha=1, approximate='none', out=None) -> Tensor",
    "description": (
        "Selects the elements of input where the bool mask is True (torch.masked_select: input and mask "
        "broadcast against each other, the result is 1-D in row-major order), adds alpha * other (a Python "
        "number or a tensor broadcastable to the 1-D selection: shape (k,), (1,) or 0-d) and applies GELU: "
        "x * Phi(x) for approximate='none', the tanh formula for approximate='tanh'. The output is 1-D with "
        "one element per True mask position, in the input dtype. If out is given the result is also "
        "written there."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "erf/tanh implementations differ by a few ulp (rtol 1e-4 in float32); for half precision the "
        "reference rounds the sum before GELU while a fused kernel need not, about one extra rounding."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16_tanh", "params": {"shape": [4096, 4096], "dtype": "float16", "approximate": "tanh"}},
        {"name": "64M_bf16", "params": {"shape": [8192, 8192], "dtype": "bfloat16"}},
    ],
}


def reference(input, mask, other, *, alpha=1, approximate="none", out=None):
    z = torch.masked_select(input, mask)
    y = torch.nn.functional.gelu(torch.add(z, other, alpha=alpha), approximate=approximate)
    if out is not None:
        out.resize_(y.shape)
        out.copy_(y)
        return out
    return y


def _selected(g, x, m, dtype=None):
    """An `other` tensor with one value per selected element (the count is known when drawing)."""
    k = int(torch.broadcast_to(m, torch.broadcast_shapes(x.shape, m.shape)).sum())
    return g.randn(k, dtype=dtype or x.dtype)


def edge_cases(g):
    nan, inf = float("nan"), float("inf")
    x = g.tensor([0.0, -0.0, nan, 1.0, -1.0, 3.0, -3.0, 10.0, -10.0, 1e4, -1e4, inf, -inf, 0.5])
    m = g.tensor([True] * 13 + [False], dtype=torch.bool)
    yield {"name": "special_values_scalar", "args": (x, m, 0.0), "kwargs": {}}
    yield {"name": "special_values_tanh_alpha", "args": (x, m, 0.25), "kwargs": {"alpha": -2, "approximate": "tanh"}}
    xa = g.randn(6, 9)
    ma = g.bernoulli(6, 9)
    yield {"name": "tensor_other", "args": (xa, ma, _selected(g, xa, ma)), "kwargs": {"alpha": 0.5}}
    yield {"name": "mask_row_broadcast", "args": (g.randn(5, 8), g.bernoulli(8), 1.0), "kwargs": {}}
    yield {"name": "input_broadcast_to_mask", "args": (g.randn(7), g.bernoulli(4, 7), g.tensor([0.3])), "kwargs": {}}
    yield {"name": "other_0d_tanh", "args": (g.randn(3, 4, 5), g.bernoulli(3, 4, 5), g.tensor(-0.75)),
           "kwargs": {"approximate": "tanh"}}
    yield {"name": "mask_all_false", "args": (g.randn(4, 6), g.tensor([[False] * 6] * 4, dtype=torch.bool), 1.0), "kwargs": {}}
    yield {"name": "mask_all_true", "args": (g.randn(9, 11), g.tensor([[True] * 11] * 9, dtype=torch.bool), -0.5), "kwargs": {}}
    yield {"name": "alpha_zero", "args": (g.randn(10, 10), g.bernoulli(10, 10), 100.0), "kwargs": {"alpha": 0}}
    yield {"name": "non_contiguous", "args": (g.randn(20, 30).t(), g.bernoulli(20, 30).t(), 0.1), "kwargs": {}}
    xo, mo = g.randn(8, 8), g.bernoulli(8, 8)
    yield {"name": "out_kwarg", "args": (xo, mo, 0.2),
           "kwargs": {"out": torch.empty(int(mo.sum()), device=g.device)}}


def random_cases(g):
    x = g.randn(37, 129)
    m = g.bernoulli(37, 129, p=0.3)
    yield {"name": "randn_odd_tensor_other", "args": (x, m, _selected(g, x, m)), "kwargs": {}}
    yield {"name": "randn_dense_mask_tanh", "args": (g.randn(64, 200), g.bernoulli(64, 200, p=0.9), 0.5),
           "kwargs": {"approximate": "tanh", "alpha": 2}}
    x = g.outlier(4, 33, 65)
    m = g.bernoulli(4, 33, 65)
    yield {"name": "outlier_3d", "args": (x, m, _selected(g, x, m)), "kwargs": {"alpha": -1}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16), g.bernoulli(64, 100), 0.25), "kwargs": {}}
    x = g.outlier(3, 7, 311, dtype=torch.bfloat16)
    m = g.bernoulli(311, p=0.6)
    yield {"name": "outlier_bf16_broadcast_tanh", "args": (x, m, _selected(g, x, m)), "kwargs": {"approximate": "tanh"}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape = list(params["shape"])
    return (g.randn(*shape, dtype=dtype), g.bernoulli(*shape, p=0.5), 0.5), \
        {"alpha": 1, "approximate": params.get("approximate", "none")}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    k = n // 2  # perf masks are Bernoulli(1/2)
    # read input and mask (1 byte) once, write the k selected outputs; per output: add 1, GELU 5
    # ('none') or 9 ('tanh'); the stream compaction itself (prefix sum) ~1 per element
    per = 1 + (9 if params.get("approximate", "none") == "tanh" else 5)
    return {"bytes": n * es + n + k * es, "flops": per * k + n}
