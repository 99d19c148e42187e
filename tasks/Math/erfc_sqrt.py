import torch

META = {
    "id": "Math/erfc_sqrt",
    "category": "Math",
    "stem": "erfc_sqrt",
    "entry": "erfc_sqrt",
    "signature": 'def erfc_sqrt(input: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]',
    "description": (
        'Returns a pair of element-wise results for one input: (erfc(x), sqrt(x)), where erfc(x) '
        '= 1 - erf(x) is the complementary error function (in [0, 2]; erfc(-inf) = 2, erfc(+inf) '
        '= 0, tiny but accurate for large x) and sqrt(x) is NaN for negative x, +inf for +inf. '
        "NaN propagates in both. Both outputs have the input's shape and dtype."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 2e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        'erfc needs a rational/exponential approximation (relative error ~1e-7, growing to a few '
        '1e-6 through exp(-x*x) for large x where the value is below atol anyway), hence rtol '
        '2e-5; sqrt is correctly rounded. Halves are rounded once.'
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    # what the seed's own test does to its drawn values before the call (contract.py: seed_values)
    "seed_values": {"input": ["abs"]},
    "perf_shapes": [
        {"name": "1M_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "16M_f32", "params": {"shape": [4096, 4096], "dtype": "float32"}},
        {"name": "16M_f16", "params": {"shape": [4096, 4096], "dtype": "float16"}},
        {"name": "64M_f32", "params": {"shape": [8192, 8192], "dtype": "float32"}},
    ],
}


def reference(input):
    return torch.special.erfc(input), torch.sqrt(input)


def edge_cases(g):
    inf, nan = float("inf"), float("nan")
    special = [0.0, -0.0, 1e-30, 1e-7, -1e-7, 0.5, -0.5, 0.4769363, 1.0, -1.0, 2.0, -2.0, 3.0, 4.0, 5.0,
               9.0, 10.0, 10.06, 12.0, 27.0, -6.0, 1e4, -1e4, inf, -inf, nan]
    yield {"name": "special_values_f32", "args": (g.tensor(special),), "kwargs": {}}
    yield {"name": "special_values_f16",
           "args": (g.tensor([0.0, 6.0e-8, 0.5, -0.5, 1.0, 2.0, 3.5, 4.0, -4.0, 65504.0, inf, -inf, nan],
                             dtype=torch.float16),), "kwargs": {}}
    yield {"name": "special_values_bf16",
           "args": (g.tensor([0.0, 1e-20, 0.5, -0.5, 2.0, 9.0, -9.0, 1e30, inf, -inf, nan], dtype=torch.bfloat16),),
           "kwargs": {}}
    yield {"name": "tail_region", "args": (g.rand(500, low=1.0, high=9.0),), "kwargs": {}}
    yield {"name": "single_element", "args": (g.tensor([[[0.25]]]),), "kwargs": {}}
    yield {"name": "scalar_0d", "args": (g.tensor(0.75),), "kwargs": {}}
    yield {"name": "empty", "args": (g.randn(0, 5),), "kwargs": {}}
    yield {"name": "non_contiguous_transposed", "args": (g.randn(24, 40).t(),), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_1d_odd", "args": (g.randn(1000),), "kwargs": {}}
    yield {"name": "abs_randn_2d_odd", "args": (g.randn(37, 129).abs() * 2,), "kwargs": {}}
    yield {"name": "outlier_3d", "args": (g.outlier(4, 33, 65, p=1e-2, scale=5.0),), "kwargs": {}}
    yield {"name": "randn_f16", "args": (g.randn(64, 100, dtype=torch.float16),), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(3, 7, 311, dtype=torch.bfloat16, scale=4.0),), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    return (g.randn(*params["shape"], dtype=dtype),), {}


def perf_cost(params):
    n = 1
    for s in params["shape"]:
        n *= s
    esize = {"float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x, write erfc(x) and sqrt(x); erfc ~20 FLOPs (rational in t, one exp) + 1 sqrt
    return {"bytes": 3 * n * esize, "flops": 21 * n}
