import torch

META = {
    "id": "Fusion/fused_cosine_embedding_loss_with_normalization",
    "category": "Fusion",
    "stem": "fused_cosine_embedding_loss_with_normalization",
    "entry": "fused_cosine_embedding_loss_with_normalization",
    "signature": ("def fused_cosine_embedding_loss_with_normalization(input1: torch.Tensor, input2: torch.Tensor, "
                  "target: torch.Tensor, margin: float = 0, reduction: str = 'mean') -> torch.Tensor"),
    "description": (
        "Cosine embedding loss of L2-normalized embeddings. input1 and input2 have shape (N, D); each "
        "row is first normalized as torch.nn.functional.normalize(x, p=2, dim=1) (x / max(||x||_2, "
        "1e-12)). Then, as torch.nn.functional.cosine_embedding_loss, with cos_i the cosine similarity "
        "of row i of the two normalized tensors (sum(a*b) / sqrt((sum(a^2) + 1e-12) * (sum(b^2) + "
        "1e-12))): loss_i = 1 - cos_i where target_i = 1 and max(0, cos_i - margin) where target_i = "
        "-1. target has shape (N,) with values +1/-1 (float32 or int64). reduction 'none' returns the "
        "(N,) losses, 'mean' their mean and 'sum' their sum (0-d tensors), in the input dtype."
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
        "Judged against a float64 oracle: cosines of unit vectors are dot products of length D <= 256 "
        "with float32 error ~1e-7 absolute, so atol 1e-5 on losses in [0, 2] is ample; half precision "
        "allows roughly one rounding of the normalized rows and of the result."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "16384x256_mean", "params": {"shape": [16384, 256]}},
        {"name": "65536x512_mean", "params": {"shape": [65536, 512]}},
        {"name": "65536x512_none", "params": {"shape": [65536, 512], "reduction": "none"}},
        {"name": "262144x256_f16", "params": {"shape": [262144, 256], "dtype": "float16"}},
        {"name": "262144x1024_sum", "params": {"shape": [262144, 1024], "reduction": "sum"}},
    ],
}


def reference(input1, input2, target, margin=0, reduction="mean"):
    F = torch.nn.functional
    a = F.normalize(input1, p=2, dim=1)
    b = F.normalize(input2, p=2, dim=1)
    return F.cosine_embedding_loss(a, b, target, margin=margin, reduction=reduction)


def _target(g, n, dtype=torch.float32):
    return (g.randint(0, 2, n) * 2 - 1).to(dtype)


def edge_cases(g):
    yield {"name": "defaults_mean", "args": (g.randn(16, 32), g.randn(16, 32), _target(g, 16)), "kwargs": {}}
    yield {"name": "none_margin", "args": (g.randn(12, 20), g.randn(12, 20), _target(g, 12)),
           "kwargs": {"reduction": "none", "margin": 0.2}}
    yield {"name": "sum_negative_margin", "args": (g.randn(12, 20), g.randn(12, 20), _target(g, 12)),
           "kwargs": {"reduction": "sum", "margin": -0.3}}
    t = g.randn(6, 10)
    # rows 0-2 identical (cos 1), rows 3-5 opposite (cos -1); targets mixed
    other = torch.cat([t[:3], -t[3:]])
    yield {"name": "parallel_and_antiparallel_none", "args": (t, other, g.tensor([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])),
           "kwargs": {"reduction": "none", "margin": 0.5}}
    z = g.randn(5, 8)
    z[2] = 0.0
    yield {"name": "zero_row", "args": (z, g.randn(5, 8), g.tensor([1.0, 1.0, 1.0, -1.0, -1.0])),
           "kwargs": {"reduction": "none"}}
    yield {"name": "all_positive_targets", "args": (g.randn(9, 15), g.randn(9, 15), g.tensor([1.0] * 9)),
           "kwargs": {}}
    yield {"name": "all_negative_targets", "args": (g.randn(9, 15), g.randn(9, 15), g.tensor([-1.0] * 9)),
           "kwargs": {"reduction": "sum"}}
    yield {"name": "int64_target", "args": (g.randn(10, 16), g.randn(10, 16), _target(g, 10, torch.int64)),
           "kwargs": {"reduction": "none"}}
    yield {"name": "batch1_d1", "args": (g.randn(1, 1), g.randn(1, 1), g.tensor([-1.0])),
           "kwargs": {"reduction": "none", "margin": -0.5}}
    yield {"name": "large_scale_rows", "args": (g.randn(8, 12) * 1e4, g.randn(8, 12) * 1e-4, _target(g, 8)),
           "kwargs": {"reduction": "none"}}


def random_cases(g):
    yield {"name": "randn_odd_mean", "args": (g.randn(203, 65), g.randn(203, 65), _target(g, 203)), "kwargs": {}}
    yield {"name": "outlier_none", "args": (g.outlier(128, 96, p=1e-2), g.outlier(128, 96, p=1e-2), _target(g, 128)),
           "kwargs": {"reduction": "none", "margin": 0.1}}
    yield {"name": "randn_sum", "args": (g.randn(64, 256), g.randn(64, 256), _target(g, 64)),
           "kwargs": {"reduction": "sum"}}
    yield {"name": "randn_f16_none", "args": (g.randn(96, 130, dtype=torch.float16),
                                              g.randn(96, 130, dtype=torch.float16), _target(g, 96, torch.float16)),
           "kwargs": {"reduction": "none"}}
    yield {"name": "outlier_bf16_mean", "args": (g.outlier(50, 77, dtype=torch.bfloat16),
                                                 g.randn(50, 77, dtype=torch.bfloat16), _target(g, 50, torch.bfloat16)),
           "kwargs": {"margin": 0.25}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    n, d = params["shape"]
    return ((g.randn(n, d, dtype=dtype), g.randn(n, d, dtype=dtype), _target(g, n, dtype)),
            {"reduction": params.get("reduction", "mean")})


def perf_cost(params):
    n, d = params["shape"]
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    out = n if params.get("reduction", "mean") == "none" else 1
    # read both inputs and the target, write the losses (or one scalar); per element pair: two
    # squares-and-accumulate and one multiply-accumulate (6); the normalization folds into per-row
    # scalars (~15 FLOPs per row for norms, cosine and the hinge)
    return {"bytes": (2 * n * d + n + out) * es, "flops": 6 * n * d + 15 * n}
