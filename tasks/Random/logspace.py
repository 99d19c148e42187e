import math

import torch

META = {
    "id": "Random/logspace",
    "category": "Random",
    "stem": "logspace",
    "entry": "logspace",
    "signature": ("logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=torch.strided, device=None, "
                  "requires_grad=False) -> Tensor"),
    "description": (
        "Creates a 1-D tensor of `steps` values base^e, the exponents e evenly spaced from start to "
        "end inclusive (torch.logspace): e_i = start + i * (end - start) / (steps - 1); steps = 1 "
        "gives [base^start] and steps = 0 an empty tensor. start and end are Python numbers or 0-d "
        "tensors; base is a positive float (10 by default; 2, e and bases below 1 are tested). dtype "
        "defaults to float32 (float64, float16 and bfloat16 are tested); the harness always passes "
        "device, which must be honoured. The op is deterministic despite its category: values are "
        "compared element by element. Overflow gives inf as in torch."
    ),
    "difficulty": 1,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-10],
        "float32": [1e-30, 2e-5],
        "float16": [1e-7, 1e-2],
        "bfloat16": [1e-7, 2e-2],
    },
    "tolerance_note": (
        "Purely relative: values span many decades, so atol is negligible; computing the exponent and "
        "the power in float32 (as torch's CUDA kernel does) costs ~|e * ln(base)| * 6e-8 relative, "
        "<= 5e-6 for the tested exponents (|e * log2(base)| <= 60), within rtol 2e-5; half "
        "precision allows one rounding of the result, float64 a few hundred ulp of pow."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "1M_f32", "params": {"steps": 1048576, "start": -10.0, "end": 10.0}},
        {"name": "16M_f32", "params": {"steps": 16777216, "start": -10.0, "end": 10.0}},
        {"name": "16M_base2_f16", "params": {"steps": 16777216, "start": -8.0, "end": 8.0, "base": 2.0,
                                             "dtype": "float16"}},
        {"name": "64M_f32", "params": {"steps": 67108864, "start": -5.0, "end": 5.0}},
    ],
}


def reference(start, end, steps, base=10.0, *, out=None, dtype=None, layout=torch.strided, device=None,
              requires_grad=False):
    return torch.logspace(start, end, steps, base=base, out=out, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def _case(name, g, start, end, steps, **kw):
    kw["device"] = g.device
    return {"name": name, "args": (start, end, steps), "kwargs": kw}


def edge_cases(g):
    yield _case("defaults_0_to_2_steps5", g, 0.0, 2.0, 5)
    yield _case("steps1", g, 3.0, 7.0, 1)
    yield _case("steps0_empty", g, 0.0, 1.0, 0)
    yield _case("steps2_endpoints", g, -3.0, 3.0, 2)
    yield _case("decreasing_exponents", g, 5.0, -5.0, 11)
    yield _case("base2_integers_exact", g, 0.0, 20.0, 21, base=2.0)
    yield _case("base_e", g, -4.0, 4.0, 33, base=math.e)
    yield _case("base_below_one", g, -3.0, 6.0, 19, base=0.5)
    yield _case("base_one_all_ones", g, -5.0, 5.0, 9, base=1.0)
    yield _case("int_start_end", g, -2, 3, 6)
    yield _case("tensor_start_end", g, g.tensor(-1.5), g.tensor(2.5), 17)
    yield _case("overflow_to_inf_f32", g, 30.0, 45.0, 4)
    yield _case("underflow_to_zero_f32", g, -60.0, -46.0, 3)  # all below the smallest subnormal: exact zeros
    yield _case("float64", g, -10.0, 10.0, 101, dtype=torch.float64)
    yield _case("float16_range", g, -4.0, 4.0, 65, dtype=torch.float16)
    yield _case("bfloat16_base2", g, -10.0, 10.0, 41, base=2.0, dtype=torch.bfloat16)
    yield _case("equal_start_end", g, 1.25, 1.25, 7)


def random_cases(g):
    # random endpoints keep |e * log2(base)| <= 60
    s, e = (g.rand(2, low=-10.0, high=10.0) * 1.0).tolist()
    yield _case("random_endpoints_odd_1000", g, s, e, 1000)
    s, e = (g.rand(2, low=-30.0, high=30.0)).tolist()
    yield _case("random_base2_4097", g, s, e, 4097, base=2.0)
    b = float(g.rand(1, low=1.1, high=7.0).item())
    yield _case("random_base_777", g, -5.0, 5.0, 777, base=b)
    s, e = (g.rand(2, low=-4.0, high=4.0)).tolist()
    yield _case("random_f16_300", g, s, e, 300, dtype=torch.float16)
    s, e = (g.rand(2, low=-20.0, high=20.0)).tolist()
    yield _case("random_f64_2000", g, s, e, 2000, dtype=torch.float64)


def perf_inputs(g, params):
    kw = {"base": float(params.get("base", 10.0)), "device": g.device}
    if "dtype" in params:
        kw["dtype"] = getattr(torch, params["dtype"])
    return (float(params["start"]), float(params["end"]), int(params["steps"])), kw


def perf_cost(params):
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    n = int(params["steps"])
    return {"bytes": es * n, "flops": 3 * n}
