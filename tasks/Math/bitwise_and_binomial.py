import torch

META = {
    "id": "Math/bitwise_and_binomial",
    "category": "Math",
    "stem": "bitwise_and_binomial",
    "entry": "bitwise_and_binomial",
    "signature": ("def bitwise_and_binomial(input: torch.Tensor, other: torch.Tensor, total_count: torch.Tensor, "
                  "probs: torch.Tensor = None, logits: torch.Tensor = None) -> torch.Tensor:"),
    "description": (
        "Bitwise AND of two integer (or bool) tensors, followed by one Binomial draw per element: "
        "the AND result gives each element's number of Bernoulli trials, and the success "
        "probability is probs, or sigmoid(logits) when logits is given instead (exactly one of the "
        "two is passed; both broadcast against the AND result). The output has the broadcast shape "
        "and the floating dtype of probs/logits (float32), as torch.distributions.Binomial.sample() "
        "returns, and holds whole numbers between 0 and the trial count. The spec also passes "
        "total_count (the 'number of trials'); its math and description make the AND result the "
        "trial count, and every case passes total_count equal to that AND result (same shape, as "
        "float32), so both readings give the same distribution. Samples are not compared one by "
        "one: each output is mapped through the randomized probability integral transform of its "
        "own Binomial(n, p) law, and the mapped values must be uniform on [0, 1) (moments and a "
        "Kolmogorov-Smirnov test), so any correct sampler passes without matching torch's stream."
    ),
    "difficulty": 2,
    "comparison": "uniform",
    "tolerance": {
        "float64": [1e-12, 1e-12],
        "float32": [1e-5, 1e-5],
        "float16": [5e-3, 1e-2],
        "bfloat16": [5e-3, 1e-2],
    },
    "tolerance_note": (
        "Not used: drive() validates each sample (shape, dtype, whole number in [0, n]) and maps it "
        "through the randomized PIT u = F(k-1) + V * P(k) of its Binomial(n, p) law, which is exactly "
        "U[0, 1) for a correct sampler; the uniform check then tests range, moments and KS."
    ),
    "notes": (
        "Spec quirk: total_count and the AND result both claim to be the number of trials; the cases "
        "make them equal (see description). Seed contract: none needed, the check is distributional."
    ),
    "tf32": False,
    "drive_checks": True,
    "oracle": None,
    "quantization": None,
    "uniform": {"low": 0.0, "high": 1.0},
    "perf_cost_note": "total_count equals the AND result in every case, so it need not be read.",
    "perf_shapes": [
        {"name": "1M_probs_n15", "params": {"shape": [1024, 1024], "bits": 4, "mode": "probs"}},
        {"name": "16M_probs_n15", "params": {"shape": [4096, 4096], "bits": 4, "mode": "probs"}},
        {"name": "16M_logits_n63", "params": {"shape": [4096, 4096], "bits": 6, "mode": "logits"}},
        {"name": "64M_probs_n3", "params": {"shape": [8192, 8192], "bits": 2, "mode": "probs"}},
    ],
}


def reference(input, other, total_count, probs=None, logits=None):
    trials = torch.bitwise_and(input, other)
    ref = probs if probs is not None else logits
    dist = torch.distributions.Binomial(total_count=trials.to(ref.dtype), probs=probs, logits=logits)
    return dist.sample()


def drive(fn, args, kwargs):
    """Calls the entry, checks the sample and returns its randomized PIT (float64, U[0,1) if correct)."""
    input, other, total_count = args[0], args[1], args[2]
    probs = kwargs.get("probs", args[3] if len(args) > 3 else None)
    logits = kwargs.get("logits", args[4] if len(args) > 4 else None)
    k = fn(*args, **kwargs)
    par = probs if probs is not None else logits
    n = torch.bitwise_and(input, other).to(torch.float64)
    shape = torch.broadcast_shapes(n.shape, par.shape)
    if not isinstance(k, torch.Tensor):
        raise TypeError("bitwise_and_binomial must return a tensor")
    if tuple(k.shape) != tuple(shape):
        raise ValueError(f"output shape {tuple(k.shape)}, expected {tuple(shape)}")
    if k.dtype != par.dtype:
        raise TypeError(f"output dtype {k.dtype}, expected {par.dtype} (the dtype of probs/logits)")
    k = k.detach().to("cpu", torch.float64)
    n = n.to("cpu").expand(shape).reshape(-1)
    par = par.detach().to("cpu", torch.float64).expand(shape).reshape(-1)
    k = k.reshape(-1)
    if not bool(((k == torch.round(k)) & (k >= 0) & (k <= n)).all()):
        raise ValueError("samples must be whole numbers between 0 and the trial count")
    if probs is not None:
        lp, lq = torch.log(par), torch.log1p(-par)
    else:
        lp, lq = torch.nn.functional.logsigmoid(par), torch.nn.functional.logsigmoid(-par)
    nmax = int(n.max().item()) if n.numel() else 0
    j = torch.arange(nmax + 1, dtype=torch.float64).unsqueeze(0)          # (1, nmax+1)
    nn_ = n.unsqueeze(1)
    valid = j <= nn_
    jj = torch.minimum(j, nn_)
    # log pmf with 0 * log 0 = 0 (p = 0 or 1 give point masses)
    logc = torch.lgamma(nn_ + 1) - torch.lgamma(jj + 1) - torch.lgamma(nn_ - jj + 1)
    t1 = torch.where(jj > 0, jj * lp.unsqueeze(1), torch.zeros_like(jj))
    t2 = torch.where(nn_ - jj > 0, (nn_ - jj) * lq.unsqueeze(1), torch.zeros_like(jj))
    pmf = torch.where(valid, torch.exp(logc + t1 + t2), torch.zeros_like(jj))
    cdf = torch.cumsum(pmf, dim=1)
    ki = k.long().unsqueeze(1)
    p_k = pmf.gather(1, ki).squeeze(1)
    f_below = torch.where(ki.squeeze(1) > 0, cdf.gather(1, (ki - 1).clamp(min=0)).squeeze(1), torch.zeros_like(k))
    gen = torch.Generator().manual_seed(20240611 + k.numel())
    v = torch.rand(k.shape, generator=gen, dtype=torch.float64)
    u = (f_below + v * p_k).clamp(0.0, 1.0 - 1e-12)
    return u.reshape(shape)


def _bits(g, bits, *shape, dtype=torch.int64):
    return g.randint(0, 2 ** bits, *shape, dtype=dtype)


def _case(name, a, b, probs=None, logits=None):
    tc = torch.bitwise_and(a, b).to(torch.float32)
    kw = {"probs": probs} if probs is not None else {"logits": logits}
    return {"name": name, "args": (a, b, tc), "kwargs": kw}


def edge_cases(g):
    a, b = _bits(g, 5, 40, 50), _bits(g, 5, 40, 50)
    yield _case("p_zero_and_one", a, b, probs=(g.rand(40, 50) < 0.5).float())
    yield _case("p_half_n63", g.tensor([63] * 4096, dtype=torch.int64), g.tensor([63] * 4096, dtype=torch.int64),
                probs=g.tensor([0.5] * 4096))
    yield _case("zero_trials_mixed", a & 0, b, probs=g.rand(40, 50))
    yield _case("bool_inputs", g.bernoulli(64, 64), g.bernoulli(64, 64), probs=g.rand(64, 64))
    yield _case("int32_broadcast_probs_row", _bits(g, 5, 30, 60, dtype=torch.int32),
                _bits(g, 5, 30, 60, dtype=torch.int32), probs=g.rand(60, low=0.05, high=0.95))
    yield _case("logits_extreme", a, b, logits=g.randn(40, 50) * 8.0)
    yield _case("small_p_large_n", g.tensor([127] * 1024, dtype=torch.int64), _bits(g, 7, 1024),
                probs=g.tensor([0.01] * 1024))


def random_cases(g):
    yield _case("probs_64x64_n15", _bits(g, 4, 64, 64), _bits(g, 4, 64, 64), probs=g.rand(64, 64))
    yield _case("logits_odd_37x129", _bits(g, 5, 37, 129), _bits(g, 5, 37, 129), logits=g.randn(37, 129))
    yield _case("probs_3d_odd", _bits(g, 3, 5, 33, 65), _bits(g, 3, 5, 33, 65), probs=g.rand(5, 33, 65))
    yield _case("logits_outlier", _bits(g, 5, 4000), _bits(g, 5, 4000), logits=g.outlier(4000, scale=20.0))


def perf_inputs(g, params):
    shape, bits = params["shape"], params["bits"]
    a, b = _bits(g, bits, *shape), _bits(g, bits, *shape)
    tc = torch.bitwise_and(a, b).to(torch.float32)
    if params["mode"] == "probs":
        return (a, b, tc), {"probs": g.rand(*shape)}
    return (a, b, tc), {"logits": g.randn(*shape)}


def perf_cost(params):
    numel = 1
    for s in params["shape"]:
        numel *= s
    nmean = (2 ** params["bits"] - 1) / 4.0      # mean of the AND of two uniform b-bit integers
    # read input, other (int64) and probs/logits (float32), write float32 samples (total_count
    # equals the AND result and need not be read); one compare per Bernoulli trial plus the AND
    return {"bytes": numel * (8 + 8 + 4 + 4), "flops": int(numel * (1 + nmean))}
