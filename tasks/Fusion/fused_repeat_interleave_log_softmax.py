import torch

META = {
    "id": "Fusion/fused_repeat_interleave_log_softmax",
    "category": "Fusion",
    "stem": "fused_repeat_interleave_log_softmax",
    "entry": "fused_repeat_interleave_log_softmax",
    "signature": "fused_repeat_interleave_log_softmax(input, repeats, dim=None, *, output_size=None, dtype=None, out=None) -> Tensor",
    "description": (
        "Repeats each element (slice) of input along dim (torch.repeat_interleave: repeats is an int or a "
        "1-D int64 tensor with one count per slice, zeros allowed, or a single count), then takes the "
        "log-softmax along the same dim. With dim=None the input is flattened first and the log-softmax "
        "runs over the resulting 1-D tensor. output_size, if given, is the total length along dim (a hint). "
        "If dtype is given the repeated tensor is cast to dtype before the log-softmax and the result has "
        "that dtype, otherwise the input dtype. Must be stable for large values. If out is given the "
        "result is also written there."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [2e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "A log-sum-exp in float32: exp/log differ by an ulp or two and the summation order differs "
        "(a fused kernel may weight each source element by its repeat count), ~1e-6 on O(10) outputs; "
        "half precision allows one output ulp and the rounding of the log-sum-exp."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "4096x512_r2_f32", "params": {"shape": [4096, 512], "repeats": 2, "dim": 1, "dtype": "float32"}},
        {"name": "8192x1024_r4_f32", "params": {"shape": [8192, 1024], "repeats": 4, "dim": 1, "dtype": "float32"}},
        {"name": "8192x1024_r4_f16", "params": {"shape": [8192, 1024], "repeats": 4, "dim": 1, "dtype": "float16"}},
        {"name": "16384x2048_r2_bf16", "params": {"shape": [16384, 2048], "repeats": 2, "dim": 1, "dtype": "bfloat16"}},
    ],
}


def reference(input, repeats, dim=None, *, output_size=None, dtype=None, out=None):
    y = torch.repeat_interleave(input, repeats, dim=dim, output_size=output_size)
    z = torch.log_softmax(y, dim=0 if dim is None else dim, dtype=dtype)
    if out is not None:
        out.copy_(z)
        return out
    return z


def edge_cases(g):
    inf = float("inf")
    yield {"name": "dim_none_int_repeats", "args": (g.randn(3, 5), 2), "kwargs": {}}
    yield {"name": "dim_none_tensor_repeats", "args": (g.randn(2, 3), g.tensor([1, 0, 3, 2, 1, 4], dtype=torch.int64)),
           "kwargs": {}}
    yield {"name": "dim1_tensor_repeats_with_zeros", "args": (g.randn(4, 6), g.tensor([0, 2, 1, 0, 3, 1], dtype=torch.int64)),
           "kwargs": {"dim": 1}}
    yield {"name": "dim0_single_count_tensor", "args": (g.randn(5, 7), g.tensor([3], dtype=torch.int64)),
           "kwargs": {"dim": 0}}
    yield {"name": "dim_minus1_output_size", "args": (g.randn(3, 4, 5), g.tensor([2, 1, 1, 3, 2], dtype=torch.int64)),
           "kwargs": {"dim": -1, "output_size": 9}}
    yield {"name": "middle_dim_int", "args": (g.randn(2, 6, 3), 3), "kwargs": {"dim": 1}}
    yield {"name": "repeats_one_is_log_softmax", "args": (g.randn(9, 13), 1), "kwargs": {"dim": 1}}
    yield {"name": "large_values_stable", "args": (g.tensor([[1000.0, -1000.0, 999.0], [-5e3, 5e3, 0.0]]),
                                                   g.tensor([2, 1, 3], dtype=torch.int64)), "kwargs": {"dim": 1}}
    yield {"name": "neg_inf_entries", "args": (g.tensor([[-inf, 0.0, 1.0], [2.0, -inf, -inf]]), 2), "kwargs": {"dim": 1}}
    yield {"name": "single_element", "args": (g.tensor([[0.5]]), 4), "kwargs": {"dim": 0}}
    yield {"name": "dtype_f32_from_f16", "args": (g.randn(6, 10, dtype=torch.float16), 2),
           "kwargs": {"dim": 1, "dtype": torch.float32}}
    yield {"name": "non_contiguous", "args": (g.randn(12, 8).t(), g.randint(0, 4, 12)), "kwargs": {"dim": 1}}
    yield {"name": "out_kwarg", "args": (g.randn(4, 5), 2), "kwargs": {"dim": 1, "out": torch.empty(4, 10, device=g.device)}}


def random_cases(g):
    yield {"name": "randn_dim1_tensor_repeats", "args": (g.randn(37, 129), g.randint(0, 4, 129)), "kwargs": {"dim": 1}}
    yield {"name": "randn_dim0_int", "args": (g.randn(100, 33), 3), "kwargs": {"dim": 0}}
    yield {"name": "outlier_dim_none", "args": (g.outlier(20, 65), g.randint(1, 3, 1300)), "kwargs": {}}
    yield {"name": "outlier_3d_middle", "args": (g.outlier(4, 33, 17), g.randint(0, 5, 33)), "kwargs": {"dim": 1}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16), 2), "kwargs": {"dim": -1}}
    yield {"name": "randn_bf16_odd", "args": (g.randn(33, 77, dtype=torch.bfloat16), g.randint(1, 4, 77)),
           "kwargs": {"dim": 1}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype), params["repeats"]), {"dim": params["dim"]}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    r = params["repeats"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read the input once, write the repeated output (r * n); log-softmax statistics need only the
    # n distinct values (max, exp, weighted sum ~4 each), then one subtraction per output element
    return {"bytes": n * es + r * n * es, "flops": 4 * n + r * n}
