import torch

META = {
    "id": "Math/fftn",
    "category": "Math",
    "stem": "fftn",
    "entry": "fftn",
    "signature": "fftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor",
    "description": (
        "N-dimensional discrete Fourier transform, as torch.fft.fftn: X[k] = sum_n x[n] * "
        "exp(-2*pi*i * sum_d k_d n_d / s_d) over the transformed dimensions. input is float32 "
        "(treated as complex with zero imaginary part) or complex64; the output is complex64 with "
        "every positive and negative frequency. dim (a tuple of dimensions, negative allowed) "
        "defaults to all dimensions, or the last len(s) ones when s is given; s gives the signal "
        "length per transformed dimension: each is zero-padded or trimmed to s[i] first (-1 keeps "
        "the size). norm: 'backward' or None (no scaling), 'forward' (scale 1/n), 'ortho' "
        "(1/sqrt(n)), n = prod(s). With out= the result is written into out and out is returned. "
        "Any O(n log n) or direct-sum method is accepted within the tolerance."
    ),
    "difficulty": 5,
    "comparison": "allclose",
    "tolerance": {
        "float64": [1e-9, 1e-9],
        "float32": [2e-3, 1e-4],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Complex outputs are compared as (real, imag) pairs under the float32 tolerance. Outputs "
        "reach |X| ~ sqrt(n) (n <= 4096 points, so ~64); a float32 direct-sum DFT (twiddles from "
        "exact integer phase indices) was measured within 0.2 of atol 2e-3 + rtol 1e-4 against "
        "torch's pocketfft on these cases, and an FFT is more accurate still."
    ),
    "tf32": False,
    "oracle": None,
    "quantization": None,
    "uniform": None,
    "perf_shapes": [
        {"name": "2d_1024x1024_f32", "params": {"shape": [1024, 1024], "dtype": "float32"}},
        {"name": "2d_4096x4096_c64", "params": {"shape": [4096, 4096], "dtype": "complex64"}},
        {"name": "3d_256_c64", "params": {"shape": [256, 256, 256], "dtype": "complex64"}},
        {"name": "batched_64x512x512_last2", "params": {"shape": [64, 512, 512], "dtype": "complex64",
                                                        "dim": [-2, -1]}},
    ],
}


def reference(input, s=None, dim=None, norm=None, *, out=None):
    if out is not None:
        return torch.fft.fftn(input, s=s, dim=dim, norm=norm, out=out)
    return torch.fft.fftn(input, s=s, dim=dim, norm=norm)


def _c(g, *shape, outlier=0.0):
    re = g.outlier(*shape, scale=outlier) if outlier else g.randn(*shape)
    im = g.randn(*shape)
    return torch.complex(re, im)


def edge_cases(g):
    yield {"name": "impulse_2d", "args": (g.tensor([[1.0, 0.0, 0.0, 0.0]] + [[0.0] * 4] * 3),), "kwargs": {}}
    yield {"name": "constant_3d", "args": (g.tensor([[[2.0] * 5] * 3] * 2),), "kwargs": {}}
    yield {"name": "length1_dims", "args": (g.randn(1, 7, 1),), "kwargs": {}}
    yield {"name": "zero_pad_s", "args": (g.randn(6, 10),), "kwargs": {"s": (8, 16)}}
    yield {"name": "trim_s_minus1", "args": (g.randn(12, 20),), "kwargs": {"s": (-1, 9)}}
    yield {"name": "s_last_dims_only", "args": (_c(g, 3, 10, 12),), "kwargs": {"s": (16, 5)}}
    yield {"name": "dim_subset_negative", "args": (_c(g, 4, 9, 6),), "kwargs": {"dim": (-1, 0)}}
    yield {"name": "norm_forward", "args": (g.randn(16, 16),), "kwargs": {"norm": "forward"}}
    yield {"name": "norm_ortho_complex", "args": (_c(g, 5, 7, 3),), "kwargs": {"norm": "ortho"}}
    yield {"name": "norm_backward_explicit_1d", "args": (g.randn(100),), "kwargs": {"norm": "backward"}}
    yield {"name": "out_kwarg", "args": (g.randn(8, 6),),
           "kwargs": {"out": torch.empty(8, 6, dtype=torch.complex64, device=g.device)}}
    yield {"name": "non_contiguous", "args": (g.randn(12, 18).t(),), "kwargs": {}}


def random_cases(g):
    yield {"name": "real_64x64", "args": (g.randn(64, 64),), "kwargs": {}}
    yield {"name": "complex_odd_3d", "args": (_c(g, 5, 13, 17),), "kwargs": {}}
    yield {"name": "outlier_complex_batched_last2", "args": (_c(g, 4, 32, 24, outlier=20.0),),
           "kwargs": {"dim": (-2, -1)}}
    yield {"name": "real_odd_pad_ortho", "args": (g.randn(30, 45),), "kwargs": {"s": (32, 50), "norm": "ortho"}}
    yield {"name": "complex_1d_4096", "args": (_c(g, 4096),), "kwargs": {}}


def perf_inputs(g, params):
    shape = params["shape"]
    x = _c(g, *shape) if params["dtype"] == "complex64" else g.randn(*shape)
    kw = {"dim": tuple(params["dim"])} if "dim" in params else {}
    return (x,), kw


def perf_cost(params):
    import math
    shape = params["shape"]
    n = 1
    for s in shape:
        n *= s
    dims = [d % len(shape) for d in params.get("dim", range(len(shape)))]
    ein = 8 if params["dtype"] == "complex64" else 4
    # read the input, write complex64 output; 5 n log2(prod of transformed lengths) FLOPs
    # (the usual FFT count)
    m = 1
    for d in dims:
        m *= shape[d]
    return {"bytes": n * (ein + 8), "flops": int(5 * n * math.log2(m))}
