import torch

META = {
    "id": "Random/rand",
    "category": "Random",
    "stem": "rand",
    "entry": "rand",
    "signature": ("rand(*size, *, generator=None, out=None, dtype=None, layout=torch.strided, device=None, "
                  "requires_grad=False, pin_memory=False) -> Tensor"),
    "description": (
        "Returns a new tensor of the given shape filled with independent samples from the uniform "
        "distribution on the half-open interval [0, 1). The shape is given either as separate ints "
        "(rand(3, 4)) or as one tuple/list (rand((3, 4))). dtype defaults to float32 (the default "
        "dtype); float16 and bfloat16 outputs must also stay strictly below 1, so converting a float32 "
        "sample that rounds up to 1.0 is not allowed. device selects where the tensor is created. "
        "Each case calls rand twice with the same arguments: the two samples must differ (a fixed "
        "seed returning the same tensor on every call fails). Values are not compared one by one: the "
        "check is distributional (range [0, 1) exactly, mean, variance, a Kolmogorov-Smirnov test "
        "against U[0, 1), enough distinct values for the dtype, and independence of neighbouring "
        "elements: autocorrelations at several lags and a runs up-and-down test, so a sorted ramp or "
        "a block that repeats fails), so any good generator passes without matching torch's random "
        "stream."
    ),
    "difficulty": 2,
    "comparison": "uniform",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": "Not used: random outputs are judged by the distributional check against U[0, 1).",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    # calls: drive() calls the op twice per case and stacks both samples (compare.cpp checks they differ)
    "uniform": {"low": 0.0, "high": 1.0, "calls": 2},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"size": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"size": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_bf16", "params": {"size": [4096, 4096], "dtype": "bfloat16"}},
        {"name": "64M_f32", "params": {"size": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(*size, generator=None, out=None, dtype=None, layout=torch.strided, device=None,
              requires_grad=False, pin_memory=False):
    if out is not None:
        return torch.rand(*size, generator=generator, out=out, requires_grad=requires_grad)
    return torch.rand(*size, generator=generator, dtype=dtype, layout=layout, device=device,
                      requires_grad=requires_grad, pin_memory=pin_memory)


def drive(fn, args, kwargs):
    """Calls the op twice with the same arguments and stacks both samples (META uniform.calls): a
    generator must not return the same sample on every call."""
    a = fn(*args, **kwargs)
    b = fn(*args, **kwargs)
    for t in (a, b):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"rand must return a tensor, not {type(t).__name__}")
    if a.shape != b.shape or a.dtype != b.dtype:
        raise ValueError(f"two calls with the same arguments returned {a.dtype} {tuple(a.shape)} and "
                         f"{b.dtype} {tuple(b.shape)}")
    return torch.stack([a, b])


def edge_cases(g):
    d = g.device
    yield {"name": "ints_2d_f32", "args": (64, 100), "kwargs": {"dtype": torch.float32, "device": d}}
    yield {"name": "tuple_size", "args": ((48, 97),), "kwargs": {"dtype": torch.float32, "device": d}}
    yield {"name": "list_size", "args": ([4, 33, 65],), "kwargs": {"dtype": torch.float32, "device": d}}
    yield {"name": "default_dtype", "args": (8192,), "kwargs": {"device": d}}
    yield {"name": "size1_dims", "args": (1, 8192, 1), "kwargs": {"dtype": torch.float32, "device": d}}
    yield {"name": "small_odd", "args": (7, 3), "kwargs": {"dtype": torch.float32, "device": d}}
    # a float32 sample cast to half rounds up to 1.0 with probability 2^-12 (f16) / 2^-9 (bf16):
    # about 16 expected hits per call in each case below (drive() makes two calls). (bf16 stays at 8192 samples: its 2^-8 grid alone
    # puts the KS distance near 0.004, which a 2^16-sample test would start to flag.)
    yield {"name": "f16_never_one", "args": (256, 256), "kwargs": {"dtype": torch.float16, "device": d}}
    yield {"name": "bf16_never_one", "args": (8192,), "kwargs": {"dtype": torch.bfloat16, "device": d}}


def random_cases(g):
    d = g.device
    n = int(g.randint(4097, 16001, 1).item()) | 1        # odd length, varies with the seed
    yield {"name": "odd_1d_f32", "args": (n,), "kwargs": {"dtype": torch.float32, "device": d}}
    rows = int(g.randint(17, 64, 1).item())
    yield {"name": "odd_rows_2d_f32", "args": (rows, 257), "kwargs": {"dtype": torch.float32, "device": d}}
    yield {"name": "3d_f16", "args": (3, 37, 129), "kwargs": {"dtype": torch.float16, "device": d}}
    yield {"name": "2d_bf16", "args": (61, 203), "kwargs": {"dtype": torch.bfloat16, "device": d}}
    yield {"name": "large_f32", "args": (40000,), "kwargs": {"dtype": torch.float32, "device": d}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return tuple(params["size"]), {"dtype": dtype, "device": g.device}


def perf_cost(params):
    n = 1
    for s in params["size"]:
        n *= s
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # nothing is read, the output is written once; the generator itself is integer work, counted as
    # 1 FLOP per element for turning the random bits into a float in [0, 1) (convert and scale)
    return {"bytes": n * es, "flops": n}
