import torch

META = {
    "id": "SpatialOps/grid_sample",
    "category": "SpatialOps",
    "stem": "grid_sample",
    "entry": "grid_sample",
    "signature": "def grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=False) -> Tensor",
    "description": (
        "Samples input at the locations given by grid, torch.nn.functional.grid_sample semantics. "
        "4-D: input (N, C, H, W), grid (N, H_out, W_out, 2) holding (x, y); 5-D: input (N, C, D, H, W), "
        "grid (N, D_out, H_out, W_out, 3) holding (x, y, z); output (N, C, H_out, W_out) or "
        "(N, C, D_out, H_out, W_out), dtype of input (grid has the same dtype). Grid values in "
        "[-1, 1] span the input: a coordinate c maps to ((c + 1) / 2) * (size - 1) with "
        "align_corners=True and to ((c + 1) * size - 1) / 2 otherwise. mode: 'bilinear' (trilinear "
        "for 5-D), 'nearest' (round half to even) or 'bicubic' (4-D only, cubic convolution with "
        "A = -0.75 over a 4x4 neighbourhood). padding_mode: 'zeros' (out-of-range taps read 0), "
        "'border' (coordinates clamped to the edge) or 'reflection' (coordinates reflected at the "
        "borders: at pixel centres -0.5 / size - 0.5 without align_corners, at 0 / size - 1 with "
        "it, then clamped); for bicubic the padding rule is applied to each integer tap. Grids "
        "contain no NaN here."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [1e-4, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [1e-2, 2e-2],
    },
    "tolerance_note": (
        "Judged against a float64 oracle: float32 source coordinates carry ~6e-8 * size of error, "
        "which moves an interpolated value by that times the local slope of N(0,1) data (bicubic "
        "weights amplify it by ~1.5), well inside atol 1e-4. Next to outliers (|x| up to ~200) it "
        "would not be, so the outlier cases draw grids on a 2^-12 lattice (bilinear: float32 "
        "coordinates exact) or >= 0.05 px off nearest-rounding ties (the hand-written tie case uses "
        "dyadic, exact coordinates); half precision allows one rounding of the output (half inputs "
        "are interpolated in float32, see reference()."
    ),
    "tf32": False,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "bilinear_8x64x64x64", "params": {"x": [8, 64, 64, 64], "out": [64, 64]}},
        {"name": "bilinear_16x128x128x128_reflect",
         "params": {"x": [16, 128, 128, 128], "out": [128, 128], "padding_mode": "reflection"}},
        {"name": "nearest_16x128x128x128", "params": {"x": [16, 128, 128, 128], "out": [128, 128], "mode": "nearest"}},
        {"name": "bicubic_8x64x128x128", "params": {"x": [8, 64, 128, 128], "out": [128, 128], "mode": "bicubic"}},
        {"name": "trilinear_2x32x32x64x64", "params": {"x": [2, 32, 32, 64, 64], "out": [32, 64, 64]}},
    ],
}


def reference(input, grid, mode='bilinear', padding_mode='zeros', align_corners=False):
    if input.dtype in (torch.float16, torch.bfloat16):
        # Half inputs are interpolated in float32 (the accumulate type of the CUDA kernel) and
        # rounded once; PyTorch's CPU half kernel computes coordinates in half and is off by ~2%.
        out = torch.nn.functional.grid_sample(input.float(), grid.float(), mode=mode,
                                              padding_mode=padding_mode, align_corners=align_corners)
        return out.to(input.dtype)
    return torch.nn.functional.grid_sample(input, grid, mode=mode, padding_mode=padding_mode,
                                           align_corners=align_corners)


def _grid(g, n, *out, span=1.2, dtype=torch.float32):
    k = 3 if len(out) == 3 else 2
    return g.rand(n, *out, k, low=-span, high=span, dtype=dtype)


def _dyadic(grid, bits=12):
    # Grid values on a 2^-bits lattice: unnormalizing and reflecting them is exact in float32
    # (few significant bits, no division), so outlier-sized value slopes (|x| up to ~200) cannot
    # turn a float32 coordinate rounding (~1e-6 px) into an output error beyond atol.
    return torch.round(grid * 2.0 ** bits) / 2.0 ** bits


def _off_ties(grid, half_extent, margin=0.05):
    # Nearest mode: keep source coordinates (grid + 1) * half_extent (align_corners=True, half_extent
    # = (size - 1) / 2) at least `margin` px away from the x.5 rounding ties, where float32 and the
    # float64 oracle could pick different pixels (an outlier-sized difference no tolerance covers).
    s = (grid + 1) * half_extent
    r = torch.round(s)
    return (r + (s - r).clamp(-0.5 + margin, 0.5 - margin)) / half_extent - 1


def _c(name, x, grid, **kw):
    return {"name": name, "args": (x, grid), "kwargs": kw}


def edge_cases(g):
    # every mode x padding x align_corners combination, 4-D, grid reaching beyond [-1, 1]
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for al in (False, True):
                yield _c(f"{mode}_{pad}_{'ac' if al else 'noac'}", g.randn(2, 3, 7, 9), _grid(g, 2, 5, 6, span=1.6),
                         mode=mode, padding_mode=pad, align_corners=al)
    yield _c("reflection_far_outside_multiple_flips", g.randn(1, 2, 5, 6), _grid(g, 1, 6, 6, span=5.0),
             padding_mode="reflection")
    yield _c("reflection_far_outside_bicubic_ac", g.randn(1, 2, 5, 6), _grid(g, 1, 6, 6, span=5.0),
             mode="bicubic", padding_mode="reflection", align_corners=True)
    yield _c("corners_exact_ac", g.randn(1, 2, 4, 5),
             g.tensor([[[[-1.0, -1.0], [1.0, -1.0]], [[-1.0, 1.0], [1.0, 1.0]]]]),
             align_corners=True)
    yield _c("nearest_ties_round_half_even", g.randn(1, 2, 5, 5),
             g.tensor([[[[0.25, 0.25], [-0.25, -0.75], [0.75, 0.25], [-0.75, 0.75]]]]),
             mode="nearest", align_corners=True)
    yield _c("size1_input", g.randn(2, 3, 1, 1), _grid(g, 2, 3, 4), padding_mode="border")
    yield _c("size1_input_reflection_ac", g.randn(1, 2, 1, 4), _grid(g, 1, 3, 3), padding_mode="reflection",
             align_corners=True)
    yield _c("5d_trilinear", g.randn(2, 3, 4, 5, 6), _grid(g, 2, 3, 4, 5, span=1.3))
    yield _c("5d_nearest_border_ac", g.randn(1, 2, 5, 4, 3), _grid(g, 1, 4, 3, 5, span=1.3), mode="nearest",
             padding_mode="border", align_corners=True)
    yield _c("5d_trilinear_reflection", g.randn(1, 2, 4, 4, 4), _grid(g, 1, 3, 3, 3, span=2.5),
             padding_mode="reflection")
    yield _c("non_contiguous_input", g.randn(2, 8, 9, 3).permute(0, 3, 1, 2), _grid(g, 2, 4, 5))


def random_cases(g):
    yield _c("randn_bilinear_4x8x32x32", g.randn(4, 8, 32, 32), _grid(g, 4, 24, 24))
    yield _c("randn_odd_bicubic_border", g.randn(2, 5, 37, 29), _grid(g, 2, 17, 23), mode="bicubic",
             padding_mode="border")
    yield _c("outlier_nearest_reflection_ac", g.outlier(3, 4, 33, 33),
             _off_ties(_grid(g, 3, 20, 20, span=1.5), 16), mode="nearest", padding_mode="reflection",
             align_corners=True)
    yield _c("outlier_bilinear_reflection", g.outlier(2, 6, 31, 17), _dyadic(_grid(g, 2, 15, 15, span=1.5)),
             padding_mode="reflection")
    yield _c("randn_5d_trilinear_border", g.randn(2, 3, 9, 10, 11), _grid(g, 2, 7, 8, 9), padding_mode="border")
    yield _c("randn_f16_bilinear", g.randn(2, 8, 20, 20, dtype=torch.float16),
             _grid(g, 2, 16, 16, dtype=torch.float16))
    yield _c("outlier_bf16_bicubic_ac", g.outlier(1, 4, 19, 23, dtype=torch.bfloat16),
             _grid(g, 1, 13, 13, dtype=torch.bfloat16), mode="bicubic", align_corners=True)


def perf_inputs(g, params):
    x = g.randn(*params["x"])
    grid = _grid(g, params["x"][0], *params["out"], span=1.0)
    kw = {k: params[k] for k in ("mode", "padding_mode", "align_corners") if k in params}
    return (x, grid), kw


def perf_cost(params):
    x, out = params["x"], params["out"]
    N, C = x[0], x[1]
    nin = 1
    for v in x:
        nin *= v
    nout = 1
    for v in out:
        nout *= v
    taps = {"nearest": 1, "bilinear": 4 if len(out) == 2 else 8, "bicubic": 16}[params.get("mode", "bilinear")]
    return {"bytes": 4 * (min(nin, N * C * nout * taps) + N * nout * len(out) + N * C * nout),
            "flops": N * C * nout * 2 * taps + N * nout * 20}
