import torch

META = {
    "id": "Fusion/fused_pairwise_distance_normalize",
    "category": "Fusion",
    "stem": "fused_pairwise_distance_normalize",
    "entry": "fused_pairwise_distance_normalize",
    "signature": ("def fused_pairwise_distance_normalize(x1: torch.Tensor, x2: torch.Tensor, p_norm: float = 2.0, "
                  "eps_norm: float = 1e-12, eps_distance: float = 1e-6, keepdim: bool = False) -> torch.Tensor"),
    "description": (
        "Normalize, then measure. Both inputs are first L_p-normalized along their last dimension as "
        "torch.nn.functional.normalize(x, p=p_norm, dim=-1, eps=eps_norm), i.e. x / max(||x||_p, "
        "eps_norm); then the pairwise distance of the two normalized tensors is taken over the last "
        "dimension as torch.nn.functional.pairwise_distance with the same p: "
        "||x1n - x2n + eps_distance||_p (eps added to every difference before the norm). The inputs "
        "broadcast against each other (e.g. (N, D) with (1, D)); the last dimension is dropped unless "
        "keepdim=True, in which case it is kept with size 1. p_norm 1, 2 and 3 are tested. The result "
        "has the input dtype."
    ),
    "notes": (
        "The spec names no normalization dimension; the last dimension (the one the distance reduces) "
        "is used, which is dimension 1 for the (N, D) inputs the spec has in mind."
    ),
    "difficulty": 2,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 5e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle: distances of unit vectors lie in [0, 2] and are built from "
        "sums of positive terms, so float32 error stays ~1e-6 relative; rtol 1e-4 covers pow/log for "
        "p = 3; half precision allows about one rounding of the normalized inputs and of the output. float32 rtol 5e-4 (low-signal limit 5e-3): identical inputs leave only eps, ~3e-6, where GPU arithmetic was 3.5e-3 relative off the float64 value (measured on the H200)."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "65536x128", "params": {"shape": [65536, 128]}},
        {"name": "262144x256", "params": {"shape": [262144, 256]}},
        {"name": "262144x256_p1", "params": {"shape": [262144, 256], "p": 1.0}},
        {"name": "1048576x128_f16", "params": {"shape": [1048576, 128], "dtype": "float16"}},
        {"name": "262144x1024", "params": {"shape": [262144, 1024]}},
    ],
}


def reference(x1, x2, p_norm=2.0, eps_norm=1e-12, eps_distance=1e-6, keepdim=False):
    F = torch.nn.functional
    n1 = F.normalize(x1, p=p_norm, dim=-1, eps=eps_norm)
    n2 = F.normalize(x2, p=p_norm, dim=-1, eps=eps_norm)
    return F.pairwise_distance(n1, n2, p=p_norm, eps=eps_distance, keepdim=keepdim)


def edge_cases(g):
    yield {"name": "defaults_2d", "args": (g.randn(16, 32), g.randn(16, 32)), "kwargs": {}}
    t = g.randn(5, 8)
    yield {"name": "identical_inputs_eps_only", "args": (t, t.clone()), "kwargs": {}}
    # a power-of-two multiple normalizes to bit-identical rows in any precision, so the distance is
    # eps_distance alone (a non-power-of-two factor would leave rounding noise of the size of eps)
    yield {"name": "scaled_copy_same_direction", "args": (t, t * 8.0), "kwargs": {}}
    yield {"name": "opposite_directions", "args": (t, -t), "kwargs": {}}
    z = g.randn(4, 6)
    z[1] = 0.0
    yield {"name": "zero_row_eps_norm", "args": (z, g.randn(4, 6)), "kwargs": {}}
    yield {"name": "keepdim_2d", "args": (g.randn(10, 7), g.randn(10, 7)), "kwargs": {"keepdim": True}}
    yield {"name": "broadcast_row", "args": (g.randn(12, 9), g.randn(1, 9)), "kwargs": {}}
    yield {"name": "p1", "args": (g.randn(9, 20), g.randn(9, 20)), "kwargs": {"p_norm": 1.0}}
    yield {"name": "p3_keepdim", "args": (g.randn(9, 20), g.randn(9, 20)), "kwargs": {"p_norm": 3.0, "keepdim": True}}
    yield {"name": "d1_single_column", "args": (g.randn(6, 1), g.randn(6, 1)), "kwargs": {}}
    yield {"name": "custom_eps", "args": (g.randn(8, 16), g.randn(8, 16)),
           "kwargs": {"eps_norm": 1e-3, "eps_distance": 1e-3}}
    yield {"name": "3d_last_dim", "args": (g.randn(2, 7, 12), g.randn(2, 7, 12)), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_odd", "args": (g.randn(203, 65), g.randn(203, 65)), "kwargs": {}}
    yield {"name": "outlier", "args": (g.outlier(128, 96, p=1e-2), g.outlier(128, 96, p=1e-2)), "kwargs": {}}
    yield {"name": "randn_p1_outlier", "args": (g.outlier(64, 100), g.randn(64, 100)), "kwargs": {"p_norm": 1.0}}
    yield {"name": "randn_3d_keepdim", "args": (g.randn(4, 33, 40), g.randn(4, 33, 40)), "kwargs": {"keepdim": True}}
    yield {"name": "randn_f16", "args": (g.randn(96, 130, dtype=torch.float16),
                                         g.randn(96, 130, dtype=torch.float16)), "kwargs": {}}
    yield {"name": "outlier_bf16", "args": (g.outlier(50, 77, dtype=torch.bfloat16),
                                            g.randn(50, 77, dtype=torch.bfloat16)), "kwargs": {}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    shape = params["shape"]
    return (g.randn(*shape, dtype=dtype), g.randn(*shape, dtype=dtype)), {"p_norm": float(params.get("p", 2.0))}


def perf_cost(params):
    shape = params["shape"]
    n = 1
    for s in shape:
        n *= s
    rows = n // shape[-1]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x1 and x2 once, write one distance per row; per element pair: two norms (|x|^p and
    # accumulate: 2 each), two divisions, and the distance (sub, add eps, |.|^p, accumulate: 4)
    return {"bytes": 2 * n * es + rows * es, "flops": 10 * n}
