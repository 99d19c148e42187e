import torch

META = {
    "id": "SpatialOps/grid_sample_with_affine",
    "category": "SpatialOps",
    "stem": "grid_sample_with_affine",
    "entry": "grid_sample_with_affine",
    "signature": ("def grid_sample_with_affine(input: torch.Tensor, theta: torch.Tensor, size: torch.Size, "
                  "mode: str = 'bilinear', padding_mode: str = 'zeros', align_corners: bool = False) -> torch.Tensor:"),
    "description": (
        "Spatial-transformer sampling: torch.nn.functional.affine_grid(theta, size, align_corners) "
        "followed by torch.nn.functional.grid_sample(input, grid, mode, padding_mode, align_corners). "
        "input is (N, C, H_in, W_in), theta (N, 2, 3) of the input dtype, size the output size "
        "(N, C, H_out, W_out) as a torch.Size. Output pixel (h, w) has normalized position "
        "(x_w, y_h): with align_corners=False x_w = (2w + 1) / W_out - 1, otherwise "
        "x_w = -1 + 2w / (W_out - 1) (0 when W_out = 1), y_h likewise; the sampling location is "
        "theta[n] @ (x_w, y_h, 1), then input is sampled there as in grid_sample: 'bilinear', "
        "'nearest' (round half to even) or 'bicubic' (A = -0.75), padding 'zeros', 'border' or "
        "'reflection'. The grid itself is not an output: it may be computed on the fly."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-4, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle: a float32 grid and float32 source coordinates carry "
        "~1e-7 * size of error, which moves interpolated values by that times the local slope "
        "(bicubic ~1.5x), inside atol 1e-4; the random nearest-mode case draws theta so that every source coordinate is "
        ">= 1e-4 px from a rounding tie (10x the float32 grid's error); "
        "half precision allows one rounding of the output."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "bilinear_8x64x64x64", "params": {"x": [8, 64, 64, 64], "out": [64, 64]}},
        {"name": "bilinear_16x128x128x128_to_96",
         "params": {"x": [16, 128, 128, 128], "out": [96, 96], "align_corners": True}},
        {"name": "nearest_16x128x128x128", "params": {"x": [16, 128, 128, 128], "out": [128, 128], "mode": "nearest"}},
        {"name": "bicubic_8x64x128x128_reflect",
         "params": {"x": [8, 64, 128, 128], "out": [128, 128], "mode": "bicubic", "padding_mode": "reflection"}},
    ],
}


def reference(input, theta, size, mode='bilinear', padding_mode='zeros', align_corners=False):
    F = torch.nn.functional
    dtype = input.dtype
    if dtype in (torch.float16, torch.bfloat16):
        # Half inputs: grid and interpolation in float32 (the CUDA kernels' accumulate type), one
        # rounding at the end; PyTorch's CPU half kernels compute coordinates in half (~5% off).
        input, theta = input.float(), theta.float()
    grid = F.affine_grid(theta, size, align_corners=align_corners)
    out = F.grid_sample(input, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    return out.to(dtype)


def _theta(g, n, dtype=torch.float32, scale=1.0, shift=0.3, rot=0.6):
    # rotation * anisotropic scale + shift, plus a little shear
    ang = g.rand(n, low=-rot, high=rot, dtype=torch.float64)
    sx = g.rand(n, low=0.6, high=1.4, dtype=torch.float64) * scale
    sy = g.rand(n, low=0.6, high=1.4, dtype=torch.float64) * scale
    sh = g.rand(n, low=-0.2, high=0.2, dtype=torch.float64)
    tx = g.rand(n, low=-shift, high=shift, dtype=torch.float64)
    ty = g.rand(n, low=-shift, high=shift, dtype=torch.float64)
    c, s = torch.cos(ang), torch.sin(ang)
    th = torch.stack([torch.stack([c * sx, -s * sy + sh, tx], -1), torch.stack([s * sx, c * sy, ty], -1)], 1)
    return th.to(dtype)


def _theta_off_ties(g, n, in_hw, out_hw, margin=1e-4, **kw):
    # Nearest mode (align_corners=True): each theta is drawn again until no source coordinate of the
    # output grid lies within `margin` px of a rounding tie (x.5; reflection about the integer
    # borders keeps that distance). The float32 grid is ~1e-5 px off the float64 oracle's, so a
    # coordinate nearer a tie picked another pixel than the oracle (an outlier-sized difference,
    # ~0.2 % of seeds, scripts/oracle_sweep.py).
    out = []
    for _ in range(n):
        for _attempt in range(200):
            th = _theta(g, 1, **kw)
            grid = torch.nn.functional.affine_grid(th.cpu().double(), [1, 1, out_hw[0], out_hw[1]], align_corners=True)
            src = torch.stack([(grid[..., 0] + 1) / 2 * (in_hw[1] - 1), (grid[..., 1] + 1) / 2 * (in_hw[0] - 1)])
            if float(((src.abs() % 1.0) - 0.5).abs().min()) > margin:
                break
        out.append(th)
    return torch.cat(out)


def _c(name, x, theta, out_hw, **kw):
    size = torch.Size([x.shape[0], x.shape[1], out_hw[0], out_hw[1]])
    return {"name": name, "args": (x, theta, size), "kwargs": kw}


def edge_cases(g):
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for al in (False, True):
                yield _c(f"{mode}_{pad}_{'ac' if al else 'noac'}", g.randn(2, 3, 7, 9), _theta(g, 2, scale=1.3),
                         (6, 5), mode=mode, padding_mode=pad, align_corners=al)
    yield _c("identity_theta_bilinear", g.randn(1, 2, 6, 8),
             g.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (6, 8))
    yield _c("identity_theta_bilinear_ac_resize", g.randn(1, 2, 6, 8),
             g.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (11, 5), align_corners=True)
    yield _c("zoom_out_reflection", g.randn(1, 2, 5, 6), _theta(g, 1, scale=4.0), (7, 7),
             padding_mode="reflection")
    yield _c("translate_outside_zeros", g.randn(1, 2, 5, 5),
             g.tensor([[[1.0, 0.0, 2.5], [0.0, 1.0, 0.0]]]), (4, 4))
    yield _c("output_1x1", g.randn(2, 3, 4, 4), _theta(g, 2), (1, 1))
    yield _c("output_1x1_ac", g.randn(2, 3, 4, 4), _theta(g, 2), (1, 3), align_corners=True)
    yield _c("non_contiguous_theta", g.randn(2, 2, 5, 5), _theta(g, 2).transpose(1, 2).contiguous().transpose(1, 2),
             (5, 5))


def random_cases(g):
    yield _c("randn_bilinear_4x8x32x32", g.randn(4, 8, 32, 32), _theta(g, 4), (24, 24))
    yield _c("randn_odd_bicubic_border", g.randn(2, 5, 37, 29), _theta(g, 2), (17, 23), mode="bicubic",
             padding_mode="border")
    yield _c("outlier_nearest_reflection_ac", g.outlier(3, 4, 33, 33),
             _theta_off_ties(g, 3, (33, 33), (20, 20), scale=1.5), (20, 20),
             mode="nearest", padding_mode="reflection", align_corners=True)
    yield _c("randn_f16_bilinear", g.randn(2, 8, 20, 20, dtype=torch.float16), _theta(g, 2, torch.float16), (16, 16))
    yield _c("outlier_bf16_bicubic_ac", g.outlier(1, 4, 19, 23, dtype=torch.bfloat16),
             _theta(g, 1, torch.bfloat16), (13, 13), mode="bicubic", align_corners=True)


def perf_inputs(g, params):
    x = g.randn(*params["x"])
    N, C = params["x"][0], params["x"][1]
    size = torch.Size([N, C, params["out"][0], params["out"][1]])
    kw = {k: params[k] for k in ("mode", "padding_mode", "align_corners") if k in params}
    return (x, _theta(g, N), size), kw


def perf_cost(params):
    N, C, H, W = params["x"]
    HO, WO = params["out"]
    taps = {"nearest": 1, "bilinear": 4, "bicubic": 16}[params.get("mode", "bilinear")]
    nout = N * C * HO * WO
    return {"bytes": 4 * (min(N * C * H * W, nout * taps) + N * 6 + nout),
            "flops": nout * 2 * taps + N * HO * WO * 30}
