import torch

META = {
    "id": "Activation/gelu_int8",
    "category": "Activation",
    "stem": "gelu_int8",
    "entry": "gelu_int8",
    "signature": "gelu_int8(input: Tensor, approximate: str='none') -> Tensor",
    "description": (
        "GELU on a torch.int8 tensor with an int8 result of the same shape: each integer is converted "
        "to float32, GELU is applied (approximate='none': x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))); "
        "approximate='tanh': 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))) and the value is "
        "converted back to int8 by truncation toward zero (the behaviour of Tensor.to(torch.int8)), so "
        "every negative input gives 0, 1 gives 0, 2 gives 1, 3 gives 2 and large inputs map to themselves. "
        "The input value 5 is not used in the tests: its float32 GELU lies within one or two ulp below 5.0, "
        "so its truncation depends on the erf/tanh implementation."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [0.0, 0.0],
        "float32": [0.0, 0.0],
        "float16": [0.0, 0.0],
        "bfloat16": [0.0, 0.0],
    },
    "tolerance_note": "The output is int8 and compared exactly; inputs whose float32 GELU is within a few ulp of an integer boundary (only 5) are excluded.",
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M", "params": {"shape": [1024, 1024]}},
        {"name": "16M", "params": {"shape": [4096, 4096]}},
        {"name": "16M_tanh", "params": {"shape": [4096, 4096], "approximate": "tanh"}},
        {"name": "64M", "params": {"shape": [8192, 8192]}},
        {"name": "256M", "params": {"shape": [16384, 16384]}},
    ],
}


def reference(input, approximate='none'):
    return torch.nn.functional.gelu(input.float(), approximate=approximate).to(torch.int8)


def _no5(t):
    return torch.where(t == 5, torch.full_like(t, 4), t)


def _ints(g, lo, hi, *shape):
    return _no5(g.randint(lo, hi, *shape, dtype=torch.int16).to(torch.int8))


def edge_cases(g):
    every = _no5(g.tensor(list(range(-128, 128)), dtype=torch.int8))
    yield {"name": "every_int8_value_none", "args": (every,), "kwargs": {}}
    yield {"name": "every_int8_value_tanh", "args": (every,), "kwargs": {"approximate": "tanh"}}
    yield {"name": "boundaries", "args": (g.tensor([-128, -127, -1, 0, 1, 2, 3, 4, 6, 126, 127], dtype=torch.int8),),
           "kwargs": {}}
    yield {"name": "fixed_2d", "args": (g.tensor([[-10, -4, 0], [4, 10, 20]], dtype=torch.int8),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[3]], dtype=torch.int8),), "kwargs": {}}
    yield {"name": "scalar_0d_tanh", "args": (g.tensor(2, dtype=torch.int8),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "non_contiguous_transposed", "args": (_ints(g, -128, 128, 24, 40).t(),), "kwargs": {}}


def random_cases(g):
    # standard: small magnitudes around the curved part of GELU; outlier: the whole int8 range
    yield {"name": "standard_1d_odd", "args": (_ints(g, -20, 20, 4099),), "kwargs": {}}
    yield {"name": "standard_2d_tanh", "args": (_ints(g, -20, 20, 37, 129),), "kwargs": {"approximate": "tanh"}}
    yield {"name": "randn_scaled_3d", "args": (_no5((g.randn(4, 33, 65) * 8).round().clamp(-128, 127)
                                                    .to(torch.int8)),), "kwargs": {}}
    yield {"name": "outlier_full_range", "args": (_ints(g, -128, 128, 64, 100),), "kwargs": {}}
    yield {"name": "outlier_full_range_tanh", "args": (_ints(g, -128, 128, 3, 7, 311),),
           "kwargs": {"approximate": "tanh"}}


def perf_inputs(g, params):
    x = g.randint(-128, 128, *params["shape"], dtype=torch.int16).to(torch.int8)
    return (x,), {"approximate": params.get("approximate", "none")}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    return {"bytes": 2 * n, "flops": (14 if params.get("approximate", "none") == "tanh" else 10) * n}
