import torch

META = {
    "id": "Convolution/conv_transpose2d",
    "category": "Convolution",
    "stem": "conv_transpose2d",
    "entry": "conv_transpose2d",
    "signature": "conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1) -> Tensor",
    "description": (
        "2-D transposed convolution with torch.nn.functional.conv_transpose2d semantics. input is "
        "(N, C_in, H, W) or unbatched (C_in, H, W); weight is (C_in, C_out / groups, kH, kW); bias is "
        "None or (C_out,). stride, padding, output_padding and dilation are ints or pairs. The output "
        "is (N, C_out, H_out, W_out) with H_out = (H - 1) * stride - 2 * padding + dilation * (kH - 1) "
        "+ output_padding + 1 (W likewise): each input pixel (h, w) of channel ci scatters "
        "input * weight[ci, co, i, j] to output (h * stride - padding + i * dilation, ...), "
        "channels connecting only within the same group. Output dtype = input dtype (float32, "
        "float16, bfloat16); float32 may use TF32 products."
    ),
    "difficulty": 4,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [5e-2, 1e-2],
        "float16": [1e-2, 1e-2],
        "bfloat16": [3e-2, 2e-2],
    },
    "tolerance_note": (
        "Same budget as Convolution/conv2d: judged against a float64 oracle; TF32 allowed for float32 "
        "(operands truncated to a 10-bit mantissa, a random error of about 1e-3*sqrt(K) for K <= 160 "
        "contributing products per output with N(0,1) data, float32 outliers limited to x10), so "
        "atol 5e-2 + rtol 1e-2; half-precision products are exact in float32 accumulation, only the "
        "output rounding counts."
    ),
    "tf32": True,
    "oracle": "float64",
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "dcgan_16x512x8x8_s2", "params": {"x": [16, 512, 8, 8], "w": [512, 256, 4, 4], "stride": 2,
                                                    "padding": 1}},
        {"name": "unet_8x256x32x32_k2s2", "params": {"x": [8, 256, 32, 32], "w": [256, 128, 2, 2], "stride": 2}},
        {"name": "8x128x64x64_k3s2_op1", "params": {"x": [8, 128, 64, 64], "w": [128, 64, 3, 3], "stride": 2,
                                                     "padding": 1, "output_padding": 1}},
        {"name": "8x128x64x64_k3s2_op1_bf16", "params": {"x": [8, 128, 64, 64], "w": [128, 64, 3, 3], "stride": 2,
                                                          "padding": 1, "output_padding": 1, "dtype": "bfloat16"}},
        {"name": "4x64x128x128_k4s2", "params": {"x": [4, 64, 128, 128], "w": [64, 32, 4, 4], "stride": 2,
                                                  "padding": 1}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return torch.nn.functional.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
                                                dilation)


def _c(name, x, w, b=None, **kw):
    return {"name": name, "args": (x, w, b), "kwargs": kw}


def edge_cases(g):
    yield _c("basic_k3_s1", g.randn(2, 4, 7, 7), g.randn(4, 3, 3, 3))
    yield _c("stride2_pad1_outpad1_bias", g.randn(2, 4, 6, 5), g.randn(4, 6, 3, 3), g.randn(6),
             stride=2, padding=1, output_padding=1)
    yield _c("groups2_bias", g.randn(1, 6, 5, 5), g.randn(6, 2, 3, 3), g.randn(4), stride=2, groups=2)
    yield _c("depthwise", g.randn(2, 5, 6, 6), g.randn(5, 1, 3, 3), None, stride=2, padding=1, groups=5)
    yield _c("dilation2", g.randn(1, 3, 6, 6), g.randn(3, 4, 3, 3), None, dilation=2, padding=1)
    yield _c("asymmetric_params", g.randn(2, 3, 5, 7), g.randn(3, 2, 2, 3), g.randn(2),
             stride=(2, 1), padding=(1, 0), output_padding=(1, 0), dilation=(1, 2))
    yield _c("k1_stride3_holes_are_bias", g.randn(1, 4, 4, 4), g.randn(4, 3, 1, 1), g.randn(3), stride=3)
    yield _c("outpad_with_dilation", g.randn(1, 2, 4, 4), g.randn(2, 3, 3, 3), None, stride=1, dilation=2,
             output_padding=1)
    yield _c("single_pixel_input", g.randn(3, 8, 1, 1), g.randn(8, 4, 4, 4), g.randn(4))
    yield _c("unbatched_3d", g.randn(4, 5, 6), g.randn(4, 2, 3, 3), g.randn(2), stride=2)
    yield _c("small_integers_exact", g.randint(-3, 4, 2, 4, 5, 5).float(), g.randint(-3, 4, 4, 3, 3, 3).float(),
             None, stride=2, padding=1)
    yield _c("large_padding_crops", g.randn(1, 2, 6, 6), g.randn(2, 2, 5, 5), None, padding=3)


def random_cases(g):
    yield _c("randn_s2_k4_p1", g.randn(2, 16, 8, 8), g.randn(16, 8, 4, 4), g.randn(8), stride=2, padding=1)
    yield _c("randn_odd_s1", g.randn(1, 7, 13, 11), g.randn(7, 5, 3, 3), g.randn(5), padding=1)
    yield _c("outlier_groups_s2", g.outlier(2, 8, 9, 9, scale=10.0), g.randn(8, 3, 3, 3), g.randn(6),
             stride=2, groups=2, output_padding=1)
    yield _c("randn_f16_s2", g.randn(2, 8, 8, 8, dtype=torch.float16), g.randn(8, 8, 3, 3, dtype=torch.float16),
             g.randn(8, dtype=torch.float16), stride=2, padding=1, output_padding=1)
    yield _c("outlier_bf16_odd", g.outlier(1, 6, 11, 7, dtype=torch.bfloat16),
             g.randn(6, 5, 2, 2, dtype=torch.bfloat16), None, stride=2)


def perf_inputs(g, params):
    dt = getattr(torch, params.get("dtype", "float32"))
    kw = {k: params[k] for k in ("stride", "padding", "output_padding", "groups", "dilation") if k in params}
    return (g.randn(*params["x"], dtype=dt), g.randn(*params["w"], dtype=dt) * 0.05, None), kw


def perf_cost(params):
    N, Ci, H, W = params["x"]
    _, Cog, KH, KW = params["w"]
    s = params.get("stride", 1)
    p = params.get("padding", 0)
    op = params.get("output_padding", 0)
    d = params.get("dilation", 1)
    gr = params.get("groups", 1)
    Co = Cog * gr
    OH = (H - 1) * s - 2 * p + d * (KH - 1) + op + 1
    OW = (W - 1) * s - 2 * p + d * (KW - 1) + op + 1
    es = 2 if params.get("dtype", "float32") in ("float16", "bfloat16") else 4
    return {"bytes": es * (N * Ci * H * W + Ci * Cog * KH * KW + N * Co * OH * OW),
            "flops": 2 * N * Ci * H * W * Cog * KH * KW}
