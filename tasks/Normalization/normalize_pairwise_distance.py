import torch

META = {
    "id": "Normalization/normalize_pairwise_distance",
    "category": "Normalization",
    "stem": "normalize_pairwise_distance",
    "entry": "normalize_pairwise_distance",
    "signature": ("normalize_pairwise_distance(x1, x2, p_distance=2.0, eps_distance=1e-6, keepdim=False, p_norm=2, "
                  "dim_norm=1, eps_norm=1e-12) -> Tensor"),
    "description": (
        "Two steps. First the pairwise distance of x1 and x2 (same shape) over their last dimension, "
        "as torch.nn.functional.pairwise_distance: d = ||x1 - x2 + eps_distance||_{p_distance} "
        "(eps is added to every difference before the norm), the last dimension dropped unless "
        "keepdim. Then d is L_p-normalized along dim_norm as torch.nn.functional.normalize: "
        "d / max(||d||_{p_norm}, eps_norm) over dim_norm. dim_norm refers to the distance tensor, so "
        "2-D inputs with keepdim=False need dim_norm = 0 (or -1); the default dim_norm = 1 suits "
        "3-D inputs (B, N, D). p_distance 1, 2, 3 and inf, p_norm 1, 2 and inf are tested. The "
        "result has the input dtype."
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
        "Judged against a float64 oracle: the outputs are non-negative ratios in [0, 1] built from "
        "sums of positive terms, so float32 error stays ~1e-6 relative; rtol 1e-4 covers pow/log "
        "for p = 3; half precision allows about one rounding of the output."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "16x1024x128", "params": {"shape": [16, 1024, 128]}},
        {"name": "32x4096x256", "params": {"shape": [32, 4096, 256]}},
        {"name": "64x4096x512", "params": {"shape": [64, 4096, 512]}},
        {"name": "64x4096x512_bf16", "params": {"shape": [64, 4096, 512], "dtype": "bfloat16"}},
    ],
}


def reference(x1, x2, p_distance=2.0, eps_distance=1e-6, keepdim=False, p_norm=2, dim_norm=1, eps_norm=1e-12):
    F = torch.nn.functional
    d = F.pairwise_distance(x1, x2, p=p_distance, eps=eps_distance, keepdim=keepdim)
    return F.normalize(d, p=p_norm, dim=dim_norm, eps=eps_norm)


def edge_cases(g):
    inf = float("inf")
    yield {"name": "defaults_3d", "args": (g.randn(2, 9, 16), g.randn(2, 9, 16)), "kwargs": {}}
    yield {"name": "identical_inputs_eps_only", "args": (lambda t: (t, t.clone()))(g.randn(3, 5, 8)), "kwargs": {}}
    yield {"name": "identical_inputs_eps0_zero_norm", "args": (lambda t: (t, t.clone()))(g.randn(3, 5, 8)),
           "kwargs": {"eps_distance": 0.0}}
    yield {"name": "2d_dim_norm0", "args": (g.randn(40, 12), g.randn(40, 12)), "kwargs": {"dim_norm": 0}}
    yield {"name": "2d_keepdim_trivial", "args": (g.randn(10, 7), g.randn(10, 7)), "kwargs": {"keepdim": True}}
    yield {"name": "3d_keepdim_dim1", "args": (g.randn(2, 13, 6), g.randn(2, 13, 6)), "kwargs": {"keepdim": True}}
    yield {"name": "4d_dim_norm_neg1", "args": (g.randn(2, 3, 7, 10), g.randn(2, 3, 7, 10)),
           "kwargs": {"dim_norm": -1}}
    yield {"name": "p_distance_1", "args": (g.randn(2, 9, 16), g.randn(2, 9, 16)), "kwargs": {"p_distance": 1.0}}
    yield {"name": "p_distance_3", "args": (g.randn(2, 9, 16), g.randn(2, 9, 16)), "kwargs": {"p_distance": 3.0}}
    yield {"name": "p_distance_inf", "args": (g.randn(2, 9, 16), g.randn(2, 9, 16)), "kwargs": {"p_distance": inf}}
    yield {"name": "p_norm_1", "args": (g.randn(2, 9, 16), g.randn(2, 9, 16)), "kwargs": {"p_norm": 1}}
    yield {"name": "p_norm_inf", "args": (g.randn(2, 9, 16), g.randn(2, 9, 16)), "kwargs": {"p_norm": inf}}
    yield {"name": "large_eps_norm", "args": (g.randn(2, 4, 3) * 0.01, g.randn(2, 4, 3) * 0.01),
           "kwargs": {"eps_norm": 5.0, "eps_distance": 0.1}}
    yield {"name": "feature_dim_1", "args": (g.randn(3, 11, 1), g.randn(3, 11, 1)), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_8x64x128", "args": (g.randn(8, 64, 128), g.randn(8, 64, 128)), "kwargs": {}}
    yield {"name": "randn_odd_5x37x65", "args": (g.randn(5, 37, 65), g.randn(5, 37, 65)), "kwargs": {}}
    yield {"name": "outlier_4x50x100", "args": (g.outlier(4, 50, 100), g.outlier(4, 50, 100)),
           "kwargs": {"p_distance": 1.0}}
    yield {"name": "outlier_2d_dim0_pinf", "args": (g.outlier(300, 33), g.randn(300, 33)),
           "kwargs": {"dim_norm": 0, "p_norm": float("inf")}}
    yield {"name": "randn_f16",
           "args": (g.randn(4, 64, 96, dtype=torch.float16), g.randn(4, 64, 96, dtype=torch.float16)),
           "kwargs": {}}
    yield {"name": "outlier_bf16_odd", "args": (g.outlier(3, 45, 77, dtype=torch.bfloat16),
                                                g.randn(3, 45, 77, dtype=torch.bfloat16)), "kwargs": {}}


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    s = params["shape"]
    return (g.randn(*s, dtype=dt), g.randn(*s, dtype=dt)), {}


def perf_cost(params):
    s = params["shape"]
    n = 1
    for v in s:
        n *= v
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    r = n // s[-1]
    return {"bytes": es * (2 * n + r), "flops": 4 * n + 4 * r}
