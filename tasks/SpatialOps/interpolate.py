import torch

META = {
    "id": "SpatialOps/interpolate",
    "category": "SpatialOps",
    "stem": "interpolate",
    "entry": "interpolate",
    "signature": "interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None) -> Tensor",
    "description": (
        "Resize the spatial dimensions of an (N, C, L), (N, C, H, W) or (N, C, D, H, W) tensor with "
        "torch.nn.functional.interpolate semantics (recompute_scale_factor and antialias off). The "
        "output size is `size` (an int for every spatial dim, or a tuple) or floor(in * scale_factor) "
        "(a float or a tuple). Tested modes: 'nearest' (src = min(floor(dst * s), in - 1)), "
        "'nearest-exact' (src = min(floor((dst + 0.5) * s), in - 1)), 'linear' (3-D), 'bilinear' "
        "(4-D), 'bicubic' (4-D, cubic convolution with A = -0.75 and border-clamped taps), "
        "'trilinear' (5-D) and 'area' (adaptive average pooling). Here s = 1 / scale_factor when "
        "scale_factor is given and in / out otherwise. For the linear family and bicubic, "
        "align_corners=True maps dst to dst * (in - 1) / (out - 1) (0 when out == 1); otherwise to "
        "(dst + 0.5) * s - 0.5, clamped at 0 for the linear modes but not for bicubic. The output "
        "keeps the input dtype."
    ),
    "difficulty": 3,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-10, 1e-10],
        "float32": [1e-4, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "float32 atol 1e-4: source coordinates may be computed in float32 (as torch's CUDA kernels do) "
        "or in double (torch's CPU kernels), which moves outputs by up to ~2e-5 x the local slope of "
        "the data, and bicubic's negative weights cancel large taps; outlier cases therefore use exact "
        "scale factors. nearest cases use coprime sizes or exact scales so that no source index sits "
        "on a rounding boundary. Half precision uses the defaults."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "bilinear_8x64x128x128_x2",
         "params": {"shape": [8, 64, 128, 128], "scale_factor": 2.0, "mode": "bilinear", "align_corners": False}},
        {"name": "nearest_16x128x128x128_x2",
         "params": {"shape": [16, 128, 128, 128], "scale_factor": 2.0, "mode": "nearest"}},
        {"name": "bicubic_8x32x256x256_to_512",
         "params": {"shape": [8, 32, 256, 256], "size": [512, 512], "mode": "bicubic", "align_corners": False}},
        {"name": "bilinear_f16_16x256x64x64_x4",
         "params": {"shape": [16, 256, 64, 64], "scale_factor": 4.0, "mode": "bilinear", "align_corners": True,
                    "dtype": "float16"}},
        {"name": "trilinear_2x32x32x64x64_x2",
         "params": {"shape": [2, 32, 32, 64, 64], "scale_factor": 2.0, "mode": "trilinear", "align_corners": False}},
    ],
}


def reference(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return torch.nn.functional.interpolate(input, size=size, scale_factor=scale_factor, mode=mode,
                                           align_corners=align_corners)


def edge_cases(g):
    x4 = g.randn(2, 3, 5, 7)
    yield {"name": "nearest_x2", "args": (x4,), "kwargs": {"scale_factor": 2.0}}
    yield {"name": "nearest_coprime_up", "args": (x4, (8, 9)), "kwargs": {"mode": "nearest"}}
    yield {"name": "nearest_coprime_down", "args": (g.randn(1, 2, 10, 9), (7, 4)), "kwargs": {}}
    yield {"name": "nearest_1d_int_size", "args": (g.randn(2, 3, 11), 17), "kwargs": {}}
    yield {"name": "nearest_3d_volume_x2", "args": (g.randn(1, 2, 3, 4, 5),), "kwargs": {"scale_factor": 2.0}}
    yield {"name": "nearest_tuple_scale", "args": (x4,), "kwargs": {"scale_factor": (2.0, 3.0)}}
    yield {"name": "nearest_exact_up", "args": (x4, (8, 9)), "kwargs": {"mode": "nearest-exact"}}
    yield {"name": "nearest_exact_down_half", "args": (g.randn(1, 2, 10, 12),),
           "kwargs": {"scale_factor": 0.5, "mode": "nearest-exact"}}
    yield {"name": "bilinear_x2", "args": (x4,), "kwargs": {"scale_factor": 2.0, "mode": "bilinear"}}
    yield {"name": "bilinear_align_corners_size", "args": (x4, (9, 13)),
           "kwargs": {"mode": "bilinear", "align_corners": True}}
    yield {"name": "bilinear_down_half", "args": (g.randn(1, 3, 12, 10),),
           "kwargs": {"scale_factor": 0.5, "mode": "bilinear", "align_corners": False}}
    # 7 * 1.5 -> 10 outputs, but source coordinates use 1 / 1.5, not 7 / 10
    yield {"name": "bilinear_fractional_scale", "args": (g.randn(1, 2, 7, 7),),
           "kwargs": {"scale_factor": 1.5, "mode": "bilinear"}}
    yield {"name": "bilinear_same_size_identity", "args": (x4, (5, 7)), "kwargs": {"mode": "bilinear"}}
    yield {"name": "bilinear_from_height1", "args": (g.randn(1, 2, 1, 6), (4, 9)), "kwargs": {"mode": "bilinear"}}
    yield {"name": "bilinear_align_to_size1", "args": (x4, (1, 3)),
           "kwargs": {"mode": "bilinear", "align_corners": True}}
    yield {"name": "linear_1d", "args": (g.randn(2, 3, 7), 20), "kwargs": {"mode": "linear"}}
    yield {"name": "linear_1d_align", "args": (g.randn(2, 3, 7), 20), "kwargs": {"mode": "linear", "align_corners": True}}
    yield {"name": "bicubic_x2", "args": (x4,), "kwargs": {"scale_factor": 2.0, "mode": "bicubic"}}
    yield {"name": "bicubic_align_size", "args": (x4, (11, 6)), "kwargs": {"mode": "bicubic", "align_corners": True}}
    yield {"name": "trilinear_x2", "args": (g.randn(1, 2, 3, 4, 5),), "kwargs": {"scale_factor": 2.0, "mode": "trilinear"}}
    yield {"name": "trilinear_align_size", "args": (g.randn(1, 2, 3, 4, 5), (5, 7, 4)),
           "kwargs": {"mode": "trilinear", "align_corners": True}}
    yield {"name": "area_down_uneven", "args": (g.randn(2, 3, 7, 9), (3, 4)), "kwargs": {"mode": "area"}}
    yield {"name": "area_up", "args": (g.randn(1, 2, 3, 4), (5, 6)), "kwargs": {"mode": "area"}}


def random_cases(g):
    yield {"name": "bilinear_randn_odd_x2", "args": (g.randn(2, 3, 17, 23),),
           "kwargs": {"scale_factor": 2.0, "mode": "bilinear", "align_corners": False}}
    yield {"name": "bicubic_randn_to_size", "args": (g.randn(1, 4, 19, 21), (31, 40)),
           "kwargs": {"mode": "bicubic"}}
    yield {"name": "bicubic_outlier_x2", "args": (g.outlier(1, 4, 19, 21, p=1e-2),),
           "kwargs": {"scale_factor": 2.0, "mode": "bicubic"}}
    yield {"name": "nearest_f16_coprime", "args": (g.randn(2, 8, 13, 11, dtype=torch.float16), (29, 24)),
           "kwargs": {"mode": "nearest"}}
    yield {"name": "bilinear_bf16_align", "args": (g.outlier(1, 6, 15, 20, dtype=torch.bfloat16), (33, 41)),
           "kwargs": {"mode": "bilinear", "align_corners": True}}
    yield {"name": "trilinear_outlier", "args": (g.outlier(1, 3, 5, 9, 7, p=1e-2),),
           "kwargs": {"scale_factor": (2.0, 1.5, 2.0), "mode": "trilinear"}}
    yield {"name": "linear_randn_odd", "args": (g.randn(4, 5, 129), 301), "kwargs": {"mode": "linear"}}
    yield {"name": "bicubic_f16_down", "args": (g.randn(2, 4, 33, 30, dtype=torch.float16), (17, 13)),
           "kwargs": {"mode": "bicubic", "align_corners": False}}


def perf_inputs(g, params):
    dtype = getattr(torch, params.get("dtype", "float32"))
    x = g.randn(*params["shape"], dtype=dtype)
    kw = {"mode": params["mode"]}
    if "size" in params:
        kw["size"] = tuple(params["size"])
    if "scale_factor" in params:
        kw["scale_factor"] = params["scale_factor"]
    if "align_corners" in params:
        kw["align_corners"] = params["align_corners"]
    return (x,), kw


def perf_cost(params):
    shape = params["shape"]
    spatial = shape[2:]
    if "size" in params:
        out_sp = list(params["size"])
    else:
        out_sp = [int(s * params["scale_factor"]) for s in spatial]  # floor, as torch does
    nc = shape[0] * shape[1]
    n_in, n_out = nc, nc
    for s in spatial:
        n_in *= s
    for s in out_sp:
        n_out *= s
    es = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[params.get("dtype", "float32")]
    # read x once, write the resized output once. FLOPs per output element: nearest copies (0);
    # (bi/tri)linear is 2^d - 1 one-dimensional lerps of 3 FLOPs (sub, mul, add); bicubic is 5 4-tap
    # cubic interpolations of 7 FLOPs (4 mul, 3 add); per-axis weight/index computation is ignored
    mode = params["mode"]
    per = {"nearest": 0, "linear": 3, "bilinear": 9, "trilinear": 21, "bicubic": 35}.get(mode, 0)
    return {"bytes": (n_in + n_out) * es, "flops": per * n_out}
