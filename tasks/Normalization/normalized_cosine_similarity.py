import torch

META = {
    "id": "Normalization/normalized_cosine_similarity",
    "category": "Normalization",
    "stem": "normalized_cosine_similarity",
    "entry": "normalized_cosine_similarity",
    "signature": ("def normalized_cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps_similarity: float = 1e-8, "
                  "p_norm: float = 2, eps_norm: float = 1e-12) -> Tensor"),
    "description": (
        "Each input is first L_p-normalized along dim on its own, v / max(||v||_p, eps_norm) "
        "(torch.nn.functional.normalize with p = p_norm), and then the cosine similarity of the two "
        "normalized tensors is taken along dim (torch.nn.functional.cosine_similarity with "
        "eps = eps_similarity: the dot product of the two vectors, each divided by max(its L2 norm, "
        "eps)). x2 broadcasts against x1 (same number of dimensions; a size-1 dim, including dim "
        "itself, is normalized before it is broadcast). The result has the broadcast shape without "
        "dim and the input dtype. A zero vector gives similarity 0. p_norm = 1, 2, 3 and inf are tested."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "Results lie in [-1, 1]; float32 norms and dot products over <= 1000 elements are accurate to "
        "a few 1e-7, so the float32 defaults apply; half precision rounds the result once (bf16 "
        "ulp at 1 is 7.8e-3, hence 1e-2/2e-2), the reference being a float64 oracle."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "4096x512", "params": {"shape": [4096, 512]}},
        {"name": "16384x1024", "params": {"shape": [16384, 1024]}},
        {"name": "8x4096x256_dim1", "params": {"shape": [8, 4096, 256], "dim": 1}},
        {"name": "65536x1024_bf16", "params": {"shape": [65536, 1024], "dtype": "bfloat16"}},
        {"name": "32768x4096", "params": {"shape": [32768, 4096]}},
    ],
}


def reference(x1, x2, dim=1, eps_similarity=1e-8, p_norm=2, eps_norm=1e-12):
    F = torch.nn.functional
    a = F.normalize(x1, p=p_norm, dim=dim, eps=eps_norm)
    b = F.normalize(x2, p=p_norm, dim=dim, eps=eps_norm)
    return F.cosine_similarity(a, b, dim=dim, eps=eps_similarity)


def edge_cases(g):
    inf = float("inf")
    yield {"name": "identical_rows_give_one", "args": (lambda t: (t, t.clone()))(g.randn(7, 33)), "kwargs": {}}
    yield {"name": "opposite_rows_give_minus_one", "args": (lambda t: (t, -2.0 * t))(g.randn(5, 20)), "kwargs": {}}
    yield {"name": "zero_vectors",
           "args": (g.tensor([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]),
                    g.tensor([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])), "kwargs": {}}
    yield {"name": "tiny_values_below_eps_norm", "args": (g.randn(4, 16) * 1e-14, g.randn(4, 16)), "kwargs": {}}
    yield {"name": "dim_last_3d", "args": (g.randn(3, 5, 40), g.randn(3, 5, 40)), "kwargs": {"dim": -1}}
    yield {"name": "dim0", "args": (g.randn(30, 6), g.randn(30, 6)), "kwargs": {"dim": 0}}
    yield {"name": "broadcast_x2_row", "args": (g.randn(9, 24), g.randn(1, 24)), "kwargs": {}}
    yield {"name": "broadcast_x2_along_dim", "args": (g.randn(6, 10, 4), g.randn(6, 1, 4)), "kwargs": {"dim": 1}}
    yield {"name": "p_norm_1", "args": (g.randn(8, 50), g.randn(8, 50)), "kwargs": {"p_norm": 1}}
    yield {"name": "p_norm_inf", "args": (g.randn(8, 50), g.randn(8, 50)), "kwargs": {"p_norm": inf}}
    yield {"name": "p_norm_3_custom_eps", "args": (g.randn(8, 50), g.randn(8, 50)),
           "kwargs": {"p_norm": 3.0, "eps_norm": 1e-3, "eps_similarity": 1e-4}}
    yield {"name": "large_eps_norm_dominates", "args": (g.randn(4, 12) * 0.01, g.randn(4, 12) * 0.01),
           "kwargs": {"eps_norm": 10.0, "eps_similarity": 0.5}}
    yield {"name": "single_element_dim", "args": (g.randn(12, 1), g.randn(12, 1)), "kwargs": {}}


def random_cases(g):
    yield {"name": "randn_128x256", "args": (g.randn(128, 256), g.randn(128, 256)), "kwargs": {}}
    yield {"name": "randn_odd_3d_dim1", "args": (g.randn(4, 37, 65), g.randn(4, 37, 65)), "kwargs": {"dim": 1}}
    yield {"name": "outlier_64x300", "args": (g.outlier(64, 300), g.outlier(64, 300)), "kwargs": {}}
    yield {"name": "outlier_p1_broadcast", "args": (g.outlier(50, 99), g.randn(1, 99)), "kwargs": {"p_norm": 1}}
    yield {"name": "randn_f16", "args": (g.randn(64, 128, dtype=torch.float16), g.randn(64, 128, dtype=torch.float16)),
           "kwargs": {}}
    yield {"name": "outlier_bf16_dim_last",
           "args": (g.outlier(3, 33, 77, dtype=torch.bfloat16), g.randn(3, 33, 77, dtype=torch.bfloat16)),
           "kwargs": {"dim": -1}}


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    s = params["shape"]
    return (g.randn(*s, dtype=dt), g.randn(*s, dtype=dt)), {"dim": params.get("dim", 1)}


def perf_cost(params):
    s = params["shape"]
    n = 1
    for v in s:
        n *= v
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    d = s[params.get("dim", 1)]
    return {"bytes": es * (2 * n + n // d), "flops": 10 * n}
