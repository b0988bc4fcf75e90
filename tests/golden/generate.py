#!/usr/bin/env python3
"""Writes the golden vectors that the tests compare against, from real PyTorch.

    pip install -r tests/golden/requirements.txt
    python3 tests/golden/generate.py

Arrays are stored as {"dtype": ..., "shape": [...], "b64": <little-endian bytes>}
so floats survive bit for bit (NaN and -0.0 included). The PyTorch version is
pinned in requirements.txt and written into every file.
"""
import base64
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
PINNED_TORCH = "2.15.0"
SEED = 20261129

torch.backends.quantized.engine = "fbgemm"

QDTYPES = {"quint8": torch.quint8, "qint8": torch.qint8, "qint32": torch.qint32, "quint4x2": torch.quint4x2}
QSCHEMES = {
    torch.per_tensor_affine: "per_tensor_affine",
    torch.per_channel_affine: "per_channel_affine",
    torch.per_channel_affine_float_qparams: "per_channel_affine_float_qparams",
    torch.per_tensor_symmetric: "per_tensor_symmetric",
    torch.per_channel_symmetric: "per_channel_symmetric",
}
QSCHEME_OF_NAME = {v: k for k, v in QSCHEMES.items()}


def with_engine(engine, fn):
    """fn() with torch.backends.quantized.engine = engine (the golden file written
    after it names that engine), then the generator's default again."""
    torch.backends.quantized.engine = engine
    try:
        return fn()
    finally:
        torch.backends.quantized.engine = "fbgemm"


def conv_backend(m, dims):
    """'onednn' or 'fbgemm': the backend PyTorch packed a quantized conv for."""
    python_dir = os.path.join(HERE, "..", "..", "python")
    if python_dir not in sys.path:
        sys.path.insert(0, python_dir)
    from qwasm_export import _packed_backend
    return _packed_backend("golden", m, dims)


def arr(a):
    a = np.ascontiguousarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "b64": base64.b64encode(a.tobytes()).decode()}


def int_repr_bytes(q):
    return arr(q.int_repr().contiguous().numpy().reshape(-1))


def write(name, cases, extra=None):
    if not torch.__version__.startswith(PINNED_TORCH):
        sys.exit(f"generate.py is pinned to torch {PINNED_TORCH}, found {torch.__version__}")
    doc = {"torch": torch.__version__, "numpy": np.__version__, "engine": torch.backends.quantized.engine,
           "seed": SEED, "cases": cases, **(extra or {})}
    path = os.path.join(HERE, name)
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print(f"wrote tests/golden/{name}: {len(cases)} cases")


def sample(shape, gen, spread=4.0):
    """Normal values with per-position spread, plus zeros and large magnitudes."""
    x = torch.randn(shape, generator=gen) * spread
    flat = x.view(-1)
    n = flat.numel()
    idx = torch.randperm(n, generator=gen)
    flat[idx[: n // 20]] = 0.0
    flat[idx[n // 20: n // 10]] *= 1000.0
    return x


def quantize_cases():
    gen = torch.Generator().manual_seed(SEED)
    cases = []

    def add(name, x, q, **params):
        # PyTorch 2.15 dies with SIGILL dequantizing qint32 with float qparams
        # (on AVX2 and AVX-512 alike): that case keeps its integers only.
        broken_dequantize = q.dtype == torch.qint32 and q.qscheme() == torch.per_channel_affine_float_qparams
        case = {"name": name, "x": arr(x.numpy()), "qscheme": QSCHEMES[q.qscheme()],
                "dtype": [k for k, v in QDTYPES.items() if v == q.dtype][0],
                "int_repr": int_repr_bytes(q),
                "dequantized": None if broken_dequantize else arr(q.dequantize().numpy())}
        if q.qscheme() == torch.per_tensor_affine:
            case.update(scale=q.q_scale(), zero_point=q.q_zero_point())
        else:
            case.update(axis=q.q_per_channel_axis(), scales=arr(q.q_per_channel_scales().numpy()),
                        zero_points=arr(q.q_per_channel_zero_points().numpy()))
        case.update(params)
        cases.append(case)

    shape = (3, 4, 5, 6)
    # Per tensor, every dtype, several scales and zero points.
    for dname, dt in QDTYPES.items():
        lo, hi = {"quint8": (0, 255), "qint8": (-128, 127), "qint32": (-1000, 1000), "quint4x2": (0, 15)}[dname]
        for scale, zp in [(0.05, (lo + hi) // 2), (0.3, lo), (1e-3, hi), (1.0, 0 if lo <= 0 else lo)]:
            x = sample(shape, gen)
            add(f"per_tensor {dname} scale={scale} zp={zp}", x, torch.quantize_per_tensor(x, scale, zp, dt))
    # Per channel, integer zero points, every axis of a 4-D tensor.
    for dname in ["quint8", "qint8", "qint32"]:
        dt = QDTYPES[dname]
        lo, hi = {"quint8": (0, 255), "qint8": (-128, 127), "qint32": (-5000, 5000)}[dname]
        for axis in range(4):
            x = sample(shape, gen)
            n = shape[axis]
            scales = (torch.rand(n, generator=gen, dtype=torch.float64) * 0.2 + 1e-3)
            zps = torch.randint(lo, hi + 1, (n,), generator=gen)
            add(f"per_channel {dname} axis={axis}", x, torch.quantize_per_channel(x, scales, zps, axis, dt))
    # Float qparams (float zero points), every dtype PyTorch takes, every axis.
    for dname, dt in QDTYPES.items():
        for axis in range(4):
            x = sample(shape, gen)
            n = shape[axis]
            scales = torch.rand(n, generator=gen) * 0.2 + 1e-3
            zps = torch.randn(n, generator=gen) * 3 + (7.3 if dname in ("quint8", "quint4x2") else 0)
            add(f"float_qparams {dname} axis={axis}", x,
                torch.quantize_per_channel(x, scales, zps, axis, dt))
    # Exact ties: x * (1 / scale) = k + 0.5 with a power-of-two scale.
    k = torch.arange(-20, 20, dtype=torch.float32)
    for dname in ["quint8", "qint8", "qint32"]:
        x = (k + 0.5) * 0.25
        zp = 10 if dname == "quint8" else 3
        add(f"ties {dname}", x, torch.quantize_per_tensor(x, 0.25, zp, QDTYPES[dname]))
    x = ((k + 0.5) * 0.125).reshape(2, 20)
    add("ties per_channel qint8", x,
        torch.quantize_per_channel(x, torch.tensor([0.125, 0.25], dtype=torch.float64), torch.tensor([0, -3]), 0, torch.qint8))
    # FBGEMM's discriminating vector: x / scale gives 127, x * (1 / scale) gives 128.
    x = torch.tensor([0.273939937], dtype=torch.float32)
    add("fbgemm discriminating vector", x, torch.quantize_per_tensor(x, 0.00214854861, 0, torch.quint8))
    # Far outside the quantized range, and odd-length quint4x2 packing. |x / scale|
    # stays below 2^31: beyond it PyTorch's vectorized quint8 per-tensor path
    # overflows int32 and returns qmin (1e10 -> 0), which qwasm does not copy
    # (README, known differences).
    x = torch.tensor([1e5, -1e5, 2.1e7, -2.1e7, 65504.0, -65504.0, -1e-30, 1e-30, 0.0, -0.0] * 3,
                     dtype=torch.float32)
    for dname, dt in QDTYPES.items():
        add(f"far outside range {dname}", x, torch.quantize_per_tensor(x, 0.01, 0 if dname != "quint8" else 128 // 1, dt))
    x = torch.randn(3, 5, generator=gen)
    add("quint4x2 odd numel per_tensor", x, torch.quantize_per_tensor(x, 0.2, 7, torch.quint4x2))
    add("quint4x2 odd numel float_qparams axis=1", x,
        torch.quantize_per_channel(x, torch.rand(5, generator=gen) + 0.05, torch.rand(5, generator=gen) * 8, 1, torch.quint4x2))
    return cases


def observer_cases():
    from torch.ao.quantization import observer as obs
    gen = torch.Generator().manual_seed(SEED + 1)
    cases = []
    shape = (3, 4, 5, 6)
    batches = [sample(shape, gen, spread=s) + off for s, off in [(1.0, 0.5), (2.5, -1.0), (0.5, 3.0)]]
    # Non-negative data too: min_val > 0 exercises min_val_neg = 0.
    pos_batches = [b.abs() + 0.25 for b in batches]
    small_batches = [b * 1e-3 for b in batches]
    const_batches = [b.clone() for b in batches]
    for b in const_batches:
        b[1] = 2.0  # a constant channel: float qparams fall back to scale 1

    shared = {}  # input batches, stored once and named by the cases

    def run(cls, kwargs, data, name):
        key = f"inputs{len(shared)}"
        for k, v in shared.items():
            if v is data:
                key = k
        shared[key] = data
        o = cls(**{k: v for k, v in kwargs.items()})
        steps = []
        for b in data:
            o(b)
            scale, zp = o.calculate_qparams()
            steps.append({"min_val": arr(o.min_val.numpy().astype(np.float32).reshape(-1)),
                          "max_val": arr(o.max_val.numpy().astype(np.float32).reshape(-1)),
                          "scale": arr(scale.numpy().astype(np.float32).reshape(-1)),
                          "zero_point": arr(zp.numpy().reshape(-1).astype(np.float64))})
        js_kwargs = {}
        for k, v in kwargs.items():
            if k == "dtype":
                v = [n for n, d in QDTYPES.items() if d == v][0]
            elif k == "qscheme":
                v = QSCHEMES[v]
            js_kwargs[{"reduce_range": "reduceRange", "quant_min": "quantMin", "quant_max": "quantMax",
                       "ch_axis": "chAxis", "averaging_constant": "averagingConstant"}.get(k, k)] = v
        cases.append({"name": name, "observer": cls.__name__, "options": js_kwargs,
                      "inputs": key, "steps": steps})

    # Empty observers return the defaults.
    for cls in [obs.MinMaxObserver, obs.PerChannelMinMaxObserver]:
        o = cls()
        scale, zp = o.calculate_qparams()
        cases.append({"name": f"{cls.__name__} before observe", "observer": cls.__name__, "options": {},
                      "inputs": None, "steps": [],
                      "initial": {"scale": arr(scale.numpy().astype(np.float32).reshape(-1)),
                                  "zero_point": arr(zp.numpy().reshape(-1).astype(np.float64))}})

    for cls in [obs.MinMaxObserver, obs.MovingAverageMinMaxObserver]:
        for dt in ["quint8", "qint8"]:
            for qs in [torch.per_tensor_affine, torch.per_tensor_symmetric]:
                for rr in [False, True]:
                    if qs == torch.per_tensor_symmetric and rr and dt == "quint8":
                        continue  # PyTorch refuses this combination
                    kw = {"dtype": QDTYPES[dt], "qscheme": qs, "reduce_range": rr}
                    run(cls, kw, batches, f"{cls.__name__} {dt} {QSCHEMES[qs]} reduce_range={rr}")
                    run(cls, kw, pos_batches, f"{cls.__name__} {dt} {QSCHEMES[qs]} reduce_range={rr} positive")
        run(cls, {"dtype": torch.quint8, "quant_min": 0, "quant_max": 100}, batches, f"{cls.__name__} custom range")
        run(cls, {"dtype": torch.quint8, "qscheme": torch.per_tensor_symmetric, "quant_min": 0, "quant_max": 100},
            batches, f"{cls.__name__} symmetric custom range")
        run(cls, {"dtype": torch.qint8, "quant_min": -100, "quant_max": 27, "reduce_range": True}, batches,
            f"{cls.__name__} custom range reduce_range")
        run(cls, {"dtype": torch.qint32}, batches, f"{cls.__name__} qint32")
        run(cls, {"eps": 0.5}, small_batches, f"{cls.__name__} large eps")
    run(obs.MovingAverageMinMaxObserver, {"averaging_constant": 0.3}, batches, "MovingAverageMinMaxObserver c=0.3")

    for cls in [obs.PerChannelMinMaxObserver, obs.MovingAveragePerChannelMinMaxObserver]:
        for dt in ["quint8", "qint8"]:
            for qs in [torch.per_channel_affine, torch.per_channel_symmetric, torch.per_channel_affine_float_qparams]:
                for rr in [False, True]:
                    if qs == torch.per_channel_symmetric and rr and dt == "quint8":
                        continue
                    for axis in range(4):
                        kw = {"dtype": QDTYPES[dt], "qscheme": qs, "reduce_range": rr, "ch_axis": axis}
                        run(cls, kw, batches, f"{cls.__name__} {dt} {QSCHEMES[qs]} reduce_range={rr} ch_axis={axis}")
        run(cls, {"dtype": torch.quint4x2, "qscheme": torch.per_channel_affine_float_qparams}, batches,
            f"{cls.__name__} quint4x2 float_qparams")
        run(cls, {"qscheme": torch.per_channel_affine_float_qparams}, const_batches, f"{cls.__name__} constant channel float_qparams")
        run(cls, {"dtype": torch.qint8, "qscheme": torch.per_channel_symmetric, "ch_axis": 0}, pos_batches,
            f"{cls.__name__} qint8 symmetric positive")
    return cases, {k: [arr(b.numpy()) for b in v] for k, v in shared.items()}


def histogram_cases():
    """HistogramObserver, PyTorch's default activation observer: the running
    histogram, min and max after every batch, and calculate_qparams after
    every batch, over sequences that take each path of forward() (first batch,
    same range, growing range with re-binning, a constant batch, infinities)."""
    from torch.ao.quantization import observer as obs
    # Its float arithmetic follows ATen's kernels, whose reduction order and
    # linspace depend on the SIMD width and the thread count: pin them.
    if torch.backends.cpu.get_cpu_capability() != "AVX512":
        sys.exit("the HistogramObserver goldens are generated on an AVX512 build (qwasm emulates its float order)")
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 7)

    def f32(a):
        return np.asarray(a, dtype=np.float32)

    n = 1500
    sequences = {
        "normal": [f32(rng.normal(0.5, 1.0, n)) for _ in range(3)],
        "heavy tailed": [f32(rng.standard_t(2, n) * 2) for _ in range(3)],
        "one-sided": [f32(np.abs(rng.normal(0, 3, n)) + 0.1) for _ in range(3)],
        "negative": [f32(-np.abs(rng.normal(0, 2, n)) - 0.5) for _ in range(2)],
        "constant first": [f32(np.full(200, 2.0)), f32(rng.normal(0, 1, n)), f32(np.full(50, 2.0))],
        "constant only": [f32(np.full(100, -3.0)), f32(np.full(100, -3.0))],
        "tiny range": [f32(rng.normal(0, 1e-6, n)) for _ in range(2)],
        "growing range": [f32(rng.normal(0, 10.0 ** k, n)) for k in range(4)],
        "narrower later": [f32(rng.uniform(-8, 8, n)), f32(rng.uniform(-2, 3, n)), f32(rng.uniform(-8, 8, 300))],
        "infinities": [f32(np.concatenate([rng.normal(0, 1, n), [np.inf, -np.inf]])), f32([np.inf, -np.inf]),
                       f32(np.concatenate([rng.normal(1, 2, n), [np.inf]]))],
        "single values": [f32([0.25]), f32([-1.5]), f32([4.0])],
    }
    options = [
        ("default", {}),
        ("fbgemm activation (reduce_range)", {"reduce_range": True}),
        ("qint8 symmetric", {"dtype": torch.qint8, "qscheme": torch.per_tensor_symmetric}),
        ("qint8 affine", {"dtype": torch.qint8}),
        ("quint8 symmetric", {"qscheme": torch.per_tensor_symmetric}),
        ("custom range", {"quant_min": 0, "quant_max": 100}),
        ("qint32", {"dtype": torch.qint32}),
        ("bins 256", {"bins": 256}),
        ("bins 37", {"bins": 37}),
        ("bins 1", {"bins": 1}),
        ("large eps", {"eps": 0.5}),
    ]
    every = {"normal", "growing range", "heavy tailed"}  # every option on these; the default on the rest
    cases = []
    for seq_name, batches in sequences.items():
        for opt_name, kw in options:
            if seq_name not in every and opt_name not in ("default", "fbgemm activation (reduce_range)", "bins 37"):
                continue
            if seq_name == "growing range" and opt_name == "qint32":
                continue  # its zero point hits PyTorch's int32 wrap (README: known differences), not the histogram
            o = obs.HistogramObserver(**kw)
            steps = []
            for b in batches:
                o(torch.from_numpy(b.copy()))
                scale, zp = o.calculate_qparams()
                steps.append({"min_val": float(o.min_val), "max_val": float(o.max_val),
                              "histogram": arr(o.histogram.numpy().astype(np.float32)),
                              "scale": arr(scale.numpy().astype(np.float32).reshape(-1)),
                              "zero_point": arr(zp.numpy().reshape(-1).astype(np.float64))})
            js = {}
            for k, v in kw.items():
                if k == "dtype":
                    v = [name for name, d in QDTYPES.items() if d == v][0]
                elif k == "qscheme":
                    v = QSCHEMES[v]
                js[{"reduce_range": "reduceRange", "quant_min": "quantMin", "quant_max": "quantMax"}.get(k, k)] = v
            cases.append({"name": f"{seq_name}, {opt_name}", "options": js, "inputs": seq_name, "steps": steps})
    o = obs.HistogramObserver()
    scale, zp = o.calculate_qparams()
    cases.append({"name": "before observe", "options": {}, "inputs": None, "steps": [],
                  "initial": {"scale": arr(scale.numpy().astype(np.float32).reshape(-1)),
                              "zero_point": arr(zp.numpy().reshape(-1).astype(np.float64))}})
    return cases, {k: [arr(b) for b in v] for k, v in sequences.items()}


def fusion_cases():
    """fuse_modules on Conv1d/2d/3d + BatchNorm (+ ReLU) and Linear + BatchNorm1d
    in eval mode: the folded weights and biases, which qwasm must equal bit for bit."""
    from torch.ao.quantization import fuse_modules
    gen = torch.Generator().manual_seed(SEED + 8)
    cases = []

    def bn_like(bn, n, affine):
        with torch.no_grad():
            bn.running_mean.copy_(torch.randn(n, generator=gen) * 2)
            bn.running_var.copy_(torch.rand(n, generator=gen) * 10.0 ** float(torch.randint(-4, 3, (1,), generator=gen)) + 1e-6)
            if affine:
                bn.weight.copy_(torch.randn(n, generator=gen))
                bn.bias.copy_(torch.randn(n, generator=gen))

    variants = [(dims, out, bias, affine, eps, relu)
                for dims in (1, 2, 3)
                for out, bias, affine, eps, relu in [(4, True, True, 1e-5, False), (17, False, True, 1e-3, True),
                                                     (16, True, False, 0.1, False), (5, False, False, 1e-12, True),
                                                     (3, True, True, 2 ** -24 + 1e-15, True)]]
    for dims, out, bias, affine, eps, relu in variants:
        conv_cls = {1: torch.nn.Conv1d, 2: torch.nn.Conv2d, 3: torch.nn.Conv3d}[dims]
        bn_cls = {1: torch.nn.BatchNorm1d, 2: torch.nn.BatchNorm2d, 3: torch.nn.BatchNorm3d}[dims]
        layers = [conv_cls(3, out, 3, bias=bias, padding=1), bn_cls(out, eps=eps, affine=affine)]
        if relu:
            layers.append(torch.nn.ReLU())
        m = torch.nn.Sequential(*layers).eval()
        bn_like(m[1], out, affine)
        w = m[0].weight.detach().numpy().copy()
        b = None if m[0].bias is None else m[0].bias.detach().numpy().copy()
        fused = fuse_modules(m, [[str(i) for i in range(len(layers))]])
        conv = fused[0][0] if relu else fused[0]
        cases.append({"name": f"Conv{dims}d out {out} bias={bias} affine={affine} eps={eps:g} relu={relu}",
                      "kind": f"conv{dims}d", "relu": relu, "in": 3, "out": out, "kernel": 3, "padding": 1, "eps": eps,
                      "affine": affine, "weight": arr(w), "bias": None if b is None else arr(b),
                      "running_mean": arr(m[1].running_mean.numpy()), "running_var": arr(m[1].running_var.numpy()),
                      "bn_weight": arr(m[1].weight.detach().numpy()) if affine else None,
                      "bn_bias": arr(m[1].bias.detach().numpy()) if affine else None,
                      "fused_weight": arr(conv.weight.detach().numpy()), "fused_bias": arr(conv.bias.detach().numpy())})
    for out, feats, bias in [(6, 6, True), (7, 7, False), (5, 1, True)]:
        m = torch.nn.Sequential(torch.nn.Linear(9, out, bias=bias), torch.nn.BatchNorm1d(feats)).eval()
        bn_like(m[1], feats, True)
        w = m[0].weight.detach().numpy().copy()
        b = None if m[0].bias is None else m[0].bias.detach().numpy().copy()
        fused = fuse_modules(m, [["0", "1"]])
        cases.append({"name": f"Linear out {out} + BatchNorm1d({feats}) bias={bias}", "kind": "linear", "relu": False,
                      "in": 9, "out": out, "bn_features": feats, "eps": 1e-5, "affine": True,
                      "weight": arr(w), "bias": None if b is None else arr(b),
                      "running_mean": arr(m[1].running_mean.numpy()), "running_var": arr(m[1].running_var.numpy()),
                      "bn_weight": arr(m[1].weight.detach().numpy()), "bn_bias": arr(m[1].bias.detach().numpy()),
                      "fused_weight": arr(fused[0].weight.detach().numpy()), "fused_bias": arr(fused[0].bias.detach().numpy())})
    return cases


def qops_cases():
    """The quantized element-wise ops on quint8 per-tensor tensors: add,
    add_relu, mul, mul_relu (with broadcasting), add_scalar, mul_scalar, cat
    (generic and channels-last paths), relu, relu6, hardtanh, clamp. Sizes
    cover the 64-element vector steps and their scalar tails; scales are
    tie-prone (sums and multiples of the inputs')."""
    torch.set_num_threads(1)  # the vector/scalar split of these loops depends on it
    rng = np.random.default_rng(SEED + 9)
    cases = []

    def qt(shape, scale=None, zp=None):
        scale = float(np.float32(scale if scale is not None else rng.choice([0.1, 0.05, 1 / 3, 2 / 255, 0.02, 0.0078125, 0.37])))
        zp = int(zp if zp is not None else rng.integers(0, 256))
        ints = rng.integers(0, 256, size=shape, dtype=np.uint8)
        return torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints.copy()), scale, zp)

    def enc(q):
        return {"ints": int_repr_bytes(q), "shape": list(q.shape), "scale": q.q_scale(), "zero_point": q.q_zero_point()}

    sizes = [(1,), (7,), (63,), (64,), (65,), (130,), (3, 70), (2, 3, 4, 5), (1, 16, 3, 3, 3), (2, 64, 2, 2, 2)]
    broadcasts = [((4, 70), (70,)), ((4, 70), (4, 1)), ((4, 1), (4, 70)), ((2, 8, 3, 3), (1, 8, 1, 1)), ((3, 5, 70), (3, 1, 70))]
    ops = [("add", torch.ops.quantized.add), ("add_relu", torch.ops.quantized.add_relu),
           ("mul", torch.ops.quantized.mul), ("mul_relu", torch.ops.quantized.mul_relu)]
    for name, op in ops:
        for shape in sizes:
            a, b = qt(shape), qt(shape)
            sum_scale = float(np.float32(a.q_scale() + b.q_scale())) if name.startswith("add") else float(np.float32(a.q_scale() * b.q_scale() * 4))
            for scale, zp in [(sum_scale, int(rng.integers(0, 256))), (float(np.float32(rng.uniform(0.01, 0.5))), 128)]:
                y = op(a, b, scale, zp)
                cases.append({"name": f"{name} {list(shape)} scale {scale:.6g} zp {zp}", "op": name, "a": enc(a), "b": enc(b),
                              "scale": scale, "zero_point": zp, "y": enc(y)})
        for sa, sb in broadcasts:
            a, b = qt(sa), qt(sb)
            scale = float(np.float32(a.q_scale() + b.q_scale()))
            y = op(a, b, scale, 64)
            cases.append({"name": f"{name} broadcast {list(sa)} with {list(sb)}", "op": name, "a": enc(a), "b": enc(b),
                          "scale": scale, "zero_point": 64, "y": enc(y)})
    for c in [0.0, 0.5, -0.5, 3.3, -40.0, 100.0, -1000.0, 1e-3]:
        x = qt((3, 70))
        for name, op in [("add_scalar", torch.ops.quantized.add_scalar), ("mul_scalar", torch.ops.quantized.mul_scalar)]:
            y = op(x, c)
            cases.append({"name": f"{name} {c}", "op": name, "a": enc(x), "c": c, "y": enc(y)})
    cat_shapes = [([(2, 3, 4, 5), (2, 1, 4, 5)], 1), ([(2, 40, 1, 1), (2, 9, 1, 1)], 1), ([(2, 40, 1, 1), (2, 9, 1, 1)], -3),
                  ([(3, 1, 4, 4), (3, 1, 4, 4)], 1), ([(4, 70), (4, 6)], 1), ([(5, 3), (2, 3)], 0), ([(2, 33, 1, 1), (2, 64, 1, 1)], 1)]
    for shapes, dim in cat_shapes:
        xs = [qt(sh) for sh in shapes]
        for scale, zp in [(xs[0].q_scale(), xs[0].q_zero_point()), (float(np.float32(rng.uniform(0.01, 0.3))), int(rng.integers(0, 256)))]:
            y = torch.ops.quantized.cat(xs, dim=dim, scale=scale, zero_point=zp)
            cases.append({"name": f"cat {[list(sh) for sh in shapes]} dim {dim} scale {scale:.6g}", "op": "cat",
                          "xs": [enc(x) for x in xs], "dim": dim, "scale": scale, "zero_point": zp, "y": enc(y)})
    for shape in [(3, 70), (2, 16, 3, 3)]:
        x = qt(shape)
        for name, fn in [("relu", lambda q: torch.nn.functional.relu(q)), ("relu6", lambda q: torch.nn.functional.relu6(q)),
                         ("hardtanh", lambda q: torch.nn.functional.hardtanh(q, -0.7, 2.5)),
                         ("clamp", lambda q: torch.clamp(q, -1.3, 0.9))]:
            y = fn(x)
            cases.append({"name": f"{name} {list(shape)}", "op": name, "a": enc(x), "y": enc(y)})
    return cases


def pool_cases():
    """MaxPool, AvgPool and AdaptiveAvgPool 1d/2d/3d on quint8 tensors (PyTorch's
    quantized kernels, whose formula depends on the shape) and on float tensors.
    Shapes where PyTorch's channels-last kernels scramble an NCHW output
    (C > 1, one input position, several output positions) are left out: qwasm
    computes the intended result there (README: known differences)."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 10)
    cases = []

    def qt(shape, zp=None):
        scale = float(np.float32(rng.choice([0.1, 0.05, 1 / 3, 0.02, 1.0, 0.37])))
        zp = int(zp if zp is not None else rng.integers(0, 256))
        ints = rng.integers(0, 256, size=shape, dtype=np.uint8)
        if rng.random() < 0.3:  # small integers near the zero point: ties for the averages
            ints = np.clip(zp + rng.integers(-3, 4, size=shape), 0, 255).astype(np.uint8)
        return torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints.copy()), scale, zp)

    def add(name, module, opts, shape, zp=None):
        q = qt(shape, zp)
        x = torch.from_numpy(rng.normal(0, 2, size=shape).astype(np.float32))
        y = module(q)
        yf = module(x)
        cases.append({"name": name, "module": module.__class__.__name__, "options": opts, "shape": list(shape),
                      "ints": int_repr_bytes(q), "scale": q.q_scale(), "zero_point": q.q_zero_point(),
                      "y_ints": int_repr_bytes(y), "y_shape": list(y.shape), "y_scale": y.q_scale(), "y_zero_point": y.q_zero_point(),
                      "x": arr(x.numpy()), "y_float": arr(yf.numpy())})

    nn = torch.nn
    for dims, shapes in [(1, [(2, 3, 11), (1, 1, 9), (4, 7)]), (2, [(2, 3, 7, 9), (1, 1, 6, 8), (3, 5, 6)]),
                         (3, [(1, 3, 5, 6, 7), (2, 2, 4, 5, 6), (1, 1, 6, 6, 6)])]:
        Max = getattr(nn, f"MaxPool{dims}d"); Avg = getattr(nn, f"AvgPool{dims}d")
        for shape in shapes:
            if dims == 3 and len(shape) != 5:
                continue
            add(f"MaxPool{dims}d k3 s2 p1 {list(shape)}", Max(3, stride=2, padding=1),
                {"kernelSize": 3, "stride": 2, "padding": 1}, shape)
            add(f"MaxPool{dims}d k2 d2 ceil {list(shape)}", Max(2, stride=1, dilation=2, ceil_mode=True),
                {"kernelSize": 2, "stride": 1, "dilation": 2, "ceilMode": True}, shape)
            add(f"AvgPool{dims}d k3 s2 p1 {list(shape)}", Avg(3, stride=2, padding=1),
                {"kernelSize": 3, "stride": 2, "padding": 1}, shape)
            add(f"AvgPool{dims}d k2 ceil, pad not counted {list(shape)}", Avg(2, stride=2, ceil_mode=True, count_include_pad=False),
                {"kernelSize": 2, "stride": 2, "ceilMode": True, "countIncludePad": False}, shape, zp=1)
            if dims > 1:
                add(f"AvgPool{dims}d k2 divisor 3 {list(shape)}", Avg(2, divisor_override=3),
                    {"kernelSize": 2, "divisorOverride": 3}, shape)
        Adapt = getattr(nn, f"AdaptiveAvgPool{dims}d")
        for shape in shapes:
            for out in ([1] * dims, [3] * dims, [2] * dims):
                add(f"AdaptiveAvgPool{dims}d {out} of {list(shape)}", Adapt(tuple(out) if dims > 1 else out[0]),
                    {"outputSize": out}, shape)
    # The channels-last formulas on batched inputs with one channel or one position (no scrambling: 1 output position).
    add("AvgPool2d k1 on [2, 5, 1, 1]", nn.AvgPool2d(1), {"kernelSize": 1}, (2, 5, 1, 1))
    add("AdaptiveAvgPool2d 1 of [2, 5, 1, 1]", nn.AdaptiveAvgPool2d(1), {"outputSize": [1, 1]}, (2, 5, 1, 1))
    add("AdaptiveAvgPool3d [2, 1, 1] of 4-D [1, 1, 4, 4]", nn.AdaptiveAvgPool3d((2, 1, 1)), {"outputSize": [2, 1, 1]}, (1, 1, 4, 4))
    return cases


def memory_format_cases():
    """Ops on channels-last inputs (and the [N, C, L] layout a quantized conv1d
    returns): PyTorch's kernels pick their formula by layout, and their
    outputs' strides carry the layout on. Each case records the input's
    strides, the op, and the output's integers, qparams and strides."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 12)
    cases = []
    nn = torch.nn
    F = torch.nn.functional

    def qt(shape, near_zero_point=False):
        scale = float(np.float32(rng.choice([0.1, 0.05, 1 / 3, 0.02, 0.37, 2 / 255])))
        zp = int(rng.integers(0, 256))
        ints = rng.integers(0, 256, size=shape, dtype=np.uint8)
        if near_zero_point:  # small integers around the zero point: ties for the averages
            ints = np.clip(zp + rng.integers(-3, 4, size=shape), 0, 255).astype(np.uint8)
        return torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints.copy()), scale, zp)

    def layout(q, name):
        if name == "channels_last":
            return q.contiguous(memory_format=torch.channels_last if q.dim() == 4 else torch.channels_last_3d)
        if name == "conv1d":  # what a quantized conv1d returns: strides [C * L, 1, C]
            return q.unsqueeze(2).contiguous(memory_format=torch.channels_last).squeeze(2)
        return q

    def enc(q, name=None):
        e = {"ints": int_repr_bytes(q), "shape": list(q.shape), "scale": q.q_scale(), "zero_point": q.q_zero_point(),
             "strides": list(q.stride())}
        if name is not None:
            e["layout"] = name
        return e

    def add(name, op, inputs, y, **args):
        cases.append({"name": name, "op": op, "inputs": [enc(q, lay) for q, lay in inputs], "args": args, "y": enc(y)})

    # Pooling: the channels-last formulas, and the float mean of a channels-last 3d input.
    for shape, lay, dims in [((2, 6, 11), "conv1d", 1), ((2, 6, 11), "contiguous", 1), ((2, 5, 7, 9), "channels_last", 2),
                             ((1, 16, 6, 5), "channels_last", 2), ((2, 4, 5, 6, 7), "channels_last", 3)]:
        for near in (False, True):
            x = layout(qt(shape, near), lay)
            Max, Avg, Adapt = (getattr(nn, f"{k}{dims}d") for k in ("MaxPool", "AvgPool", "AdaptiveAvgPool"))
            tag = f"{list(shape)} {lay}{' near zp' if near else ''}"
            add(f"MaxPool{dims}d k3 s2 p1 {tag}", f"MaxPool{dims}d", [(x, lay)], Max(3, stride=2, padding=1)(x),
                options={"kernelSize": 3, "stride": 2, "padding": 1})
            add(f"AvgPool{dims}d k3 s2 p1 {tag}", f"AvgPool{dims}d", [(x, lay)], Avg(3, stride=2, padding=1)(x),
                options={"kernelSize": 3, "stride": 2, "padding": 1})
            add(f"AvgPool{dims}d k2 pad not counted {tag}", f"AvgPool{dims}d", [(x, lay)],
                Avg(2, stride=2, ceil_mode=True, count_include_pad=False)(x),
                options={"kernelSize": 2, "stride": 2, "ceilMode": True, "countIncludePad": False})
            for out in ([3] * dims, [2] * dims, [1] * dims):
                y = Adapt(tuple(out) if dims > 1 else out[0])(x)
                add(f"AdaptiveAvgPool{dims}d {out} {tag}", f"AdaptiveAvgPool{dims}d", [(x, lay)], y, outputSize=out)
    # AdaptiveAvgPool3d(1) on channels-last 3d: dequantize, cascade sum per channel, divide, quantize.
    for channels in (2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 37, 64, 70):
        for spatial in [(3, 5, 6), (8, 8, 8), (2, 2, 2), (1, 17, 19)]:
            if channels * int(np.prod(spatial)) > 40000:
                continue
            x = layout(qt((2, channels) + spatial, near_zero_point=channels % 2 == 1), "channels_last")
            add(f"AdaptiveAvgPool3d 1 of {[2, channels, *spatial]} channels_last", "AdaptiveAvgPool3d",
                [(x, "channels_last")], nn.AdaptiveAvgPool3d(1)(x), outputSize=[1, 1, 1])
    # Element-wise ops on mixed layouts and broadcasts: which elements take the vector steps.
    pairs = [((2, 40, 3, 3), (2, 40, 3, 3)), ((1, 70, 2, 5), (1, 70, 2, 5)), ((2, 3, 4, 5, 6), (2, 3, 4, 5, 6)),
             ((2, 70, 3, 3), (1, 70, 1, 1)), ((1, 70, 1, 1), (2, 70, 3, 3)), ((2, 9, 4, 8), (2, 9, 1, 8)),
             ((2, 33, 2, 2, 2), (1, 33, 1, 1, 1))]
    for sa, sb in pairs:
        for la in ("contiguous", "channels_last"):
            for lb in ("contiguous", "channels_last"):
                if la == lb == "contiguous":
                    continue
                a, b = layout(qt(sa), la), layout(qt(sb), lb)
                for op, fn in [("add", torch.ops.quantized.add), ("addRelu", torch.ops.quantized.add_relu),
                               ("mul", torch.ops.quantized.mul)]:
                    scale = float(np.float32(a.q_scale() + b.q_scale() if op != "mul" else a.q_scale() * b.q_scale() * 4))
                    add(f"{op} {list(sa)} {la} with {list(sb)} {lb}", op, [(a, la), (b, lb)], fn(a, b, scale, 100),
                        scale=scale, zeroPoint=100)
    for shape in [(2, 40, 3, 3), (2, 3, 4, 5, 6)]:
        x = layout(qt(shape), "channels_last")
        add(f"relu {list(shape)} channels_last", "relu", [(x, "channels_last")], F.relu(x))
        add(f"hardtanh {list(shape)} channels_last", "hardtanh", [(x, "channels_last")], F.hardtanh(x, -0.7, 2.5),
            min=-0.7, max=2.5)
        for c in (0.5, -40.0, -0.5, 0.0):
            add(f"addScalar {c} {list(shape)} channels_last", "addScalar", [(x, "channels_last")],
                torch.ops.quantized.add_scalar(x, c), c=c)
            add(f"mulScalar {c} {list(shape)} channels_last", "mulScalar", [(x, "channels_last")],
                torch.ops.quantized.mul_scalar(x, c), c=c)
    x = layout(qt((2, 6, 70)), "conv1d")
    add("relu [2, 6, 70] conv1d", "relu", [(x, "conv1d")], F.relu(x))
    # cat: the channels-last kernel for channels-last 4-D inputs along dim 1; the generic one otherwise.
    for shapes, lays, dim in [([(2, 40, 3, 3), (2, 9, 3, 3)], ("channels_last", "channels_last"), 1),
                              ([(2, 33, 2, 3), (2, 64, 2, 3)], ("channels_last", "channels_last"), 1),
                              ([(2, 40, 3, 3), (2, 9, 3, 3)], ("channels_last", "contiguous"), 1),
                              ([(2, 8, 3, 3), (2, 8, 5, 3)], ("channels_last", "channels_last"), 2),
                              ([(2, 8, 2, 3, 3), (2, 9, 2, 3, 3)], ("channels_last", "channels_last"), 1)]:
        xs = [layout(qt(sh), lay) for sh, lay in zip(shapes, lays)]
        for scale, zp in [(xs[0].q_scale(), xs[0].q_zero_point()), (float(np.float32(rng.uniform(0.01, 0.3))), 77)]:
            y = torch.ops.quantized.cat(xs, dim=dim, scale=scale, zero_point=zp)
            add(f"cat {[list(sh) for sh in shapes]} {'/'.join(lays)} dim {dim} scale {scale:.6g}", "cat",
                list(zip(xs, lays)), y, dim=dim, scale=scale, zeroPoint=zp)
    # Reshapes: PyTorch's view strides where the view exists, a contiguous copy's otherwise.
    for shape, lay, new in [((2, 16, 1, 1, 1), "channels_last", [2, 16]), ((2, 3, 4, 5), "channels_last", [2, 60]),
                            ((2, 3, 4, 5), "channels_last", [2, 3, 20]), ((1, 3, 1, 5), "channels_last", [3, 5])]:
        x = layout(qt(shape), lay)
        add(f"reshape {list(shape)} {lay} to {new}", "reshape", [(x, lay)], x.reshape(new), shape=new)
    # Large operands of one shape (qwasm reads these from a table of all byte
    # pairs, then redoes each row's scalar tail): the integers come from a
    # seeded generator both sides run (lcg_bytes), so only the output is stored.
    # Scales are tie-prone (the output's is the sum or product of the inputs';
    # for these qparams a tenth of all byte pairs add differently in the vector
    # and scalar arithmetic), and the tails long, so that the split shows.
    for shape, la, lb, op in [((1, 5, 163, 167), "contiguous", "contiguous", "add"),
                              ((1, 5, 163, 167), "channels_last", "channels_last", "add"),
                              ((1, 3, 10, 70, 67), "channels_last", "channels_last", "addRelu"),
                              ((1, 5, 163, 167), "contiguous", "contiguous", "mul"),
                              ((1, 4, 181, 183), "channels_last", "contiguous", "mul"),
                              ((2, 67, 33, 31), "contiguous", "channels_last", "add")]:
        seeds = [len(cases) * 2 + 1, len(cases) * 2 + 2]
        a, b = (layout(torch._make_per_tensor_quantized_tensor(
            torch.from_numpy(lcg_bytes(seed, int(np.prod(shape))).reshape(shape)), scale, zp), lay)
            for seed, lay, scale, zp in [(seeds[0], la, float(np.float32(2 / 255)), 236),
                                         (seeds[1], lb, float(np.float32(2 / 255)), 41)])
        fn = {"add": torch.ops.quantized.add, "addRelu": torch.ops.quantized.add_relu, "mul": torch.ops.quantized.mul}[op]
        scale = float(np.float32(a.q_scale() + b.q_scale()) if op != "mul" else np.float32(a.q_scale() * b.q_scale() * 4))
        inputs = []
        for q, lay, seed in [(a, la, seeds[0]), (b, lb, seeds[1])]:
            e = enc(q, lay)
            e["ints"] = {"lcg": seed, "count": int(np.prod(shape))}
            inputs.append(e)
        cases.append({"name": f"{op} {list(shape)} {la} with {lb} (large)", "op": op, "inputs": inputs,
                      "args": {"scale": scale, "zeroPoint": 100}, "y": enc(fn(a, b, scale, 100))})
    return cases


def lcg_bytes(seed, count):
    """count bytes from the LCG x = (1103515245 x + 12345) mod 2^31, byte = x >> 16
    (tests/js/util.mjs lcgBytes is the same generator)."""
    out = np.empty(count, np.uint8)
    x = seed
    for i in range(count):
        x = (1103515245 * x + 12345) & 0x7FFFFFFF
        out[i] = (x >> 16) & 0xFF
    return out


def model_cases():
    """Three small 3D CNNs through PyTorch's whole eager flow with the default
    x86 QConfig (HistogramObserver activations with reduce_range, per-channel
    symmetric qint8 weights): fuse_modules, prepare, calibration, convert, and
    the converted model on a test input.

    The weights, BatchNorm statistics and inputs are dyadic (multiples of
    powers of two, sparse weights, BatchNorms that fold to powers of two), so
    that every float32 value of the calibration forward is exact: any
    summation order gives the same bits, and the JavaScript flow can be
    compared bit for bit. generate.py checks that claim for every layer (the
    float32 forward equals the float64 one, on the values and on their
    absolute values, which bound every partial sum)."""
    from torch.ao.quantization import DeQuantStub, QuantStub, convert, fuse_modules, get_default_qconfig, prepare
    nn = torch.nn
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 11)

    def sparse_weight(shape, nonzero=2):
        w = np.zeros(shape, np.float32)
        flat = w.reshape(shape[0], -1)
        for o in range(shape[0]):
            idx = rng.choice(flat.shape[1], size=min(nonzero, flat.shape[1]), replace=False)
            flat[o, idx] = rng.choice([-1.0, -0.5, 0.5, 1.0], size=len(idx))
        return w

    def conv(cin, cout, k, **kw):
        c = nn.Conv3d(cin, cout, k, **kw)
        with torch.no_grad():
            c.weight.copy_(torch.from_numpy(sparse_weight(tuple(c.weight.shape))))
            if c.bias is not None:
                c.bias.copy_(torch.from_numpy(rng.integers(-4, 5, size=cout).astype(np.float32) / 4))
        return c

    def bn(n):
        b = nn.BatchNorm3d(n)
        var = np.float32(1) - np.float32(b.eps)
        assert var + np.float32(b.eps) == np.float32(1)  # folds with r = 1 exactly
        with torch.no_grad():
            b.running_var.fill_(float(var))
            b.running_mean.copy_(torch.from_numpy(rng.integers(-4, 5, size=n).astype(np.float32) / 4))
            b.weight.copy_(torch.from_numpy(rng.choice([0.5, 1.0, 2.0], size=n).astype(np.float32)))
            b.bias.copy_(torch.from_numpy(rng.integers(-4, 5, size=n).astype(np.float32) / 4))
        return b

    def linear(i, o):
        l = nn.Linear(i, o)
        with torch.no_grad():
            l.weight.copy_(torch.from_numpy(sparse_weight((o, i), nonzero=3)))
            l.bias.copy_(torch.from_numpy(rng.integers(-4, 5, size=o).astype(np.float32) / 4))
        return l

    class C3D(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.conv1, self.bn1, self.relu1 = conv(3, 8, 3, padding=1), bn(8), nn.ReLU()
            self.pool1 = nn.MaxPool3d((1, 2, 2))
            self.conv2, self.bn2, self.relu2 = conv(8, 16, 3, padding=1), bn(16), nn.ReLU()
            self.pool2 = nn.MaxPool3d(2)
            self.conv3, self.bn3, self.relu3 = conv(16, 16, 3, padding=1), bn(16), nn.ReLU()
            self.pool3 = nn.AvgPool3d(2)
            self.gap = nn.AdaptiveAvgPool3d(1)
            self.flatten = nn.Flatten()
            self.dropout = nn.Dropout(0.5)
            self.fc = linear(16, 5)
            self.dequant = DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            x = self.pool1(self.relu1(self.bn1(self.conv1(x))))
            x = self.pool2(self.relu2(self.bn2(self.conv2(x))))
            x = self.pool3(self.relu3(self.bn3(self.conv3(x))))
            x = self.dropout(self.flatten(self.gap(x)))
            return self.dequant(self.fc(x))

    fuse_c3d = [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"], ["conv3", "bn3", "relu3"]]

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1, self.bn1, self.relu1 = conv(cin, cout, 3, stride=stride, padding=1, bias=False), bn(cout), nn.ReLU()
            self.conv2, self.bn2 = conv(cout, cout, 3, padding=1, bias=False), bn(cout)
            self.downsample = (nn.Sequential(conv(cin, cout, 1, stride=stride, bias=False), bn(cout))
                               if stride != 1 or cin != cout else None)
            self.skip = torch.ao.nn.quantized.FloatFunctional()

        def forward(self, x):
            y = self.relu1(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            identity = self.downsample(x) if self.downsample is not None else x
            return self.skip.add_relu(y, identity)

    class ResNet3d(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.stem, self.stem_bn, self.stem_relu = conv(3, 8, 3, padding=1, bias=False), bn(8), nn.ReLU()
            self.layer1 = Block(8, 8, 1)
            self.layer2 = Block(8, 16, 2)
            self.gap = nn.AdaptiveAvgPool3d(1)
            self.flatten = nn.Flatten()
            self.fc = linear(16, 5)
            self.dequant = DeQuantStub()

        def forward(self, x):
            x = self.stem_relu(self.stem_bn(self.stem(self.quant(x))))
            x = self.layer2(self.layer1(x))
            return self.dequant(self.fc(self.flatten(self.gap(x))))

    fuse_resnet = [["stem", "stem_bn", "stem_relu"], ["layer1.conv1", "layer1.bn1", "layer1.relu1"], ["layer1.conv2", "layer1.bn2"],
                   ["layer2.conv1", "layer2.bn1", "layer2.relu1"], ["layer2.conv2", "layer2.bn2"], ["layer2.downsample.0", "layer2.downsample.1"]]

    class R2Plus1D(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.s1, self.s1_bn, self.s1_relu = conv(3, 8, (1, 3, 3), padding=(0, 1, 1), bias=False), bn(8), nn.ReLU()
            self.t1, self.t1_bn, self.t1_relu = conv(8, 8, (3, 1, 1), padding=(1, 0, 0), bias=False), bn(8), nn.ReLU()
            self.s2, self.s2_bn, self.s2_relu = conv(8, 16, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), bias=False), bn(16), nn.ReLU()
            self.t2, self.t2_bn, self.t2_relu = conv(16, 16, (3, 1, 1), stride=(2, 1, 1), padding=(1, 0, 0), bias=False), bn(16), nn.ReLU()
            self.pool = nn.MaxPool3d(2)
            self.gap = nn.AdaptiveAvgPool3d(1)
            self.flatten = nn.Flatten()
            self.fc = linear(16, 5)
            self.dequant = DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            x = self.t1_relu(self.t1_bn(self.t1(self.s1_relu(self.s1_bn(self.s1(x))))))
            x = self.t2_relu(self.t2_bn(self.t2(self.s2_relu(self.s2_bn(self.s2(x))))))
            x = self.gap(self.pool(x))
            return self.dequant(self.fc(self.flatten(x)))

    fuse_r21d = [[f"{n}", f"{n}_bn", f"{n}_relu"] for n in ("s1", "t1", "s2", "t2")]

    def dyadic_input(shape):
        return torch.from_numpy(rng.integers(-8, 9, size=shape).astype(np.float32) / 4)

    def certify(model, xs):
        """Every leaf's float32 output equals the float64 one, on x and on |x| with |weights|."""
        m64 = copy.deepcopy(model).double()
        ab64 = copy.deepcopy(model).double()
        with torch.no_grad():
            for p in ab64.parameters():
                p.abs_()
        outs = {}
        def hook(name):
            def h(mod, inp, out):
                outs.setdefault(name, []).append(out.detach())
            return h
        for tag, mm in (("f32", model), ("f64", m64), ("abs", ab64)):
            handles = [mod.register_forward_hook(hook((tag, n))) for n, mod in mm.named_modules() if not list(mod.children())]
            with torch.no_grad():
                for x in xs:
                    mm(x.double().abs() if tag == "abs" else (x.double() if tag == "f64" else x))
            for hd in handles:
                hd.remove()
        for (tag, name), vals in outs.items():
            if tag != "f32":
                continue
            for a, b, c in zip(vals, outs[("f64", name)], outs[("abs", name)]):
                if not torch.equal(a.double(), b):
                    d = (a.double() - b).abs().max().item()
                    raise SystemExit(f"model golden: {name} is not exact in float32 (max |f32 - f64| {d}, max |x| {b.abs().max().item()})")
                if not torch.equal(c.float().double(), c):
                    raise SystemExit(f"model golden: {name}'s absolute sums are not exact in float32")

    import copy
    cases = []
    for name, Net, groups, shape in [("C3D-style", C3D, fuse_c3d, (2, 3, 8, 16, 16)),
                                     ("3D ResNet basic blocks", ResNet3d, fuse_resnet, (2, 3, 8, 8, 8)),
                                     ("R(2+1)D", R2Plus1D, fuse_r21d, (2, 3, 8, 16, 16))]:
        model = Net().eval()
        calib = [dyadic_input(shape) for _ in range(2)]
        test_x = dyadic_input(shape)
        state = {k: arr(v.detach().numpy()) for k, v in model.state_dict().items() if v.dtype == torch.float32}
        fused = fuse_modules(copy.deepcopy(model), groups)
        certify(fused, calib + [test_x])  # the calibration forward runs the folded model
        fused.qconfig = get_default_qconfig("x86")
        prepared = prepare(fused)
        with torch.no_grad():
            for x in calib:
                prepared(x)
        q = convert(prepared)
        with torch.no_grad():
            y = q(test_x)
        modules = {}
        for n, mod in q.named_modules():
            if hasattr(mod, "scale") and hasattr(mod, "zero_point") and n:
                entry = {"type": type(mod).__name__, "scale": float(mod.scale), "zero_point": int(mod.zero_point)}
                if hasattr(mod, "weight") and callable(mod.weight):
                    w = mod.weight()
                    entry["weight_ints"] = arr(w.int_repr().numpy())
                    entry["weight_scales"] = arr(w.q_per_channel_scales().numpy())
                modules[n] = entry
        cases.append({"name": name, "state": state, "fuse": groups, "calibration": [arr(x.numpy()) for x in calib],
                      "x": arr(test_x.numpy()), "y": arr(y.numpy()), "modules": modules})
    return cases


def same_padding(kernel, dilation):
    """PyTorch's padding='same': total d*(k-1), the extra one at the end."""
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return [t // 2 for t in total], [t - t // 2 for t in total]


def triple(v):
    return list(v) if isinstance(v, (list, tuple)) else [v, v, v]


def conv_cases():
    """Quantized Conv3d / ConvReLU3d through torch.ao.nn.(intrinsic.)quantized
    with the fbgemm engine, plus the float ConvReLU3d they come from."""
    import torch.ao.nn.quantized as nnq
    import torch.ao.nn.intrinsic.quantized as nniq
    from torch.ao.quantization import observer as obs
    gen = torch.Generator().manual_seed(SEED + 2)
    cases = []

    def add(name, n, cin, cout, spatial, kernel, stride=1, padding=0, dilation=1, groups=1, bias=True,
            per_channel=True, relu=True, out_scale_factor=1.0, act_range=(-2.0, 3.0), out_zp_override=None):
        kernel, stride, dilation, spatial = triple(kernel), triple(stride), triple(dilation), triple(spatial)
        if padding == "same":
            pad_begin, pad_end = same_padding(kernel, dilation)
        else:
            pad_begin = pad_end = triple(padding)
        torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        fconv = torch.nn.Conv3d(cin, cout, kernel, stride=stride, padding=0, dilation=dilation, groups=groups,
                                bias=bias)
        x = torch.rand((n, cin, *spatial), generator=gen) * (act_range[1] - act_range[0]) + act_range[0]
        # Activation qparams as PyTorch's calibration would pick them.
        aobs = obs.MinMaxObserver(dtype=torch.quint8)
        aobs(x)
        a_scale, a_zp = [t.item() for t in aobs.calculate_qparams()]
        qx = torch.quantize_per_tensor(x, a_scale, int(a_zp), torch.quint8)
        wobs = (obs.PerChannelMinMaxObserver(dtype=torch.qint8, qscheme=torch.per_channel_symmetric) if per_channel
                else obs.MinMaxObserver(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric))
        wobs(fconv.weight.detach())
        ws, wz = wobs.calculate_qparams()
        if per_channel:
            qw = torch.quantize_per_channel(fconv.weight.detach(), ws.double(), wz.long(), 0, torch.qint8)
        else:
            qw = torch.quantize_per_tensor(fconv.weight.detach(), float(ws), int(wz), torch.qint8)
        # Zero padding pads with the zero point: pad the quantized input by hand so that
        # asymmetric ('same' with an even extent) padding is covered too.
        xq_padded = torch.nn.functional.pad(qx.int_repr().float(), [pad_begin[2], pad_end[2], pad_begin[1], pad_end[1],
                                                                    pad_begin[0], pad_end[0]], value=float(a_zp))
        qx_padded = torch._make_per_tensor_quantized_tensor(xq_padded.to(torch.uint8), a_scale, int(a_zp))
        # Output qparams from the float result (a calibration pass), shrunk to force saturation.
        with torch.no_grad():
            fx = torch.nn.functional.pad(x, [pad_begin[2], pad_end[2], pad_begin[1], pad_end[1], pad_begin[0], pad_end[0]])
            fy = fconv(fx)
            if relu:
                fy = torch.relu(fy)
        oobs = obs.MinMaxObserver(dtype=torch.quint8)
        oobs(fy)
        o_scale, o_zp = [t.item() for t in oobs.calculate_qparams()]
        o_scale *= out_scale_factor
        if out_zp_override is not None:
            o_zp = out_zp_override
        cls = nniq.ConvReLU3d if relu else nnq.Conv3d
        qconv = cls(cin, cout, kernel, stride=stride, padding=0, dilation=dilation, groups=groups, bias=bias)
        qconv.set_weight_bias(qw, fconv.bias.detach() if bias else None)
        qconv.scale = o_scale
        qconv.zero_point = int(o_zp)
        qy = qconv(qx_padded)
        out = qy.int_repr().numpy()
        backend = conv_backend(qconv, 3)
        cases.append({
            "name": name, "module": "ConvReLU3d" if relu else "Conv3d", "relu": relu,
            "in_channels": cin, "out_channels": cout, "kernel": kernel, "stride": stride, "dilation": dilation,
            "groups": groups, "padding": padding if isinstance(padding, str) else triple(padding),
            "pad_begin": pad_begin, "pad_end": pad_end,
            "x": arr(x.numpy()), "x_int": arr(qx.int_repr().numpy()), "a_scale": a_scale, "a_zero_point": int(a_zp),
            "w": arr(fconv.weight.detach().numpy()), "w_int": arr(qw.int_repr().numpy()),
            "per_channel": per_channel,
            "w_scales": arr((qw.q_per_channel_scales() if per_channel else torch.tensor([qw.q_scale()])).numpy().astype(np.float64)),
            "w_zero_points": arr((qw.q_per_channel_zero_points() if per_channel else torch.tensor([qw.q_zero_point()])).numpy().astype(np.float64)),
            "bias": arr(fconv.bias.detach().numpy()) if bias else None,
            "out_scale": o_scale, "out_zero_point": int(o_zp),
            "y_int": arr(out), "y_float": arr(fy.numpy()),
            "saturated": {"zero": int((out == 0).sum()), "max": int((out == 255).sum())},
            "backend": backend,
        })

    add("k333 pad1 Cin3 Cout5 per-channel relu", 1, 3, 5, (5, 7, 9), 3, padding=1)
    add("k333 pad1 Cin3 Cout5 per-tensor no-relu", 1, 3, 5, (5, 7, 9), 3, padding=1, per_channel=False, relu=False)
    add("k111 Cin16 Cout13", 1, 16, 13, (3, 5, 7), 1)
    add("k111 stride2 Cin8 Cout9 no-bias", 1, 8, 9, (5, 6, 7), 1, stride=2, bias=False)
    add("k133 pad(0,1,1) Cin4 Cout10", 1, 4, 10, (4, 7, 7), (1, 3, 3), padding=(0, 1, 1))
    add("k311 pad(1,0,0) Cin6 Cout7", 1, 6, 7, (7, 5, 5), (3, 1, 1), padding=(1, 0, 0))
    add("k555 pad2 Cin2 Cout3", 1, 2, 3, (7, 9, 8), 5, padding=2)
    add("k555 pad0 Cin1 Cout4", 1, 1, 4, (7, 9, 8), 5, padding=0)
    add("Cin1 k333 pad1 Cout17", 1, 1, 17, (6, 9, 11), 3, padding=1)
    add("stride2 k333 pad1 Cin5 Cout12", 1, 5, 12, (9, 11, 10), 3, stride=2, padding=1)
    add("dilation2 k333 pad2 Cin4 Cout6", 1, 4, 6, (8, 9, 10), 3, padding=2, dilation=2)
    add("dilation2 same Cin3 Cout5", 1, 3, 5, (7, 8, 9), 3, padding="same", dilation=2)
    add("same k(2,4,3) Cin3 Cout4", 1, 3, 4, (5, 6, 7), (2, 4, 3), padding="same")
    add("groups2 Cin6 Cout4 k333 pad1", 1, 6, 4, (5, 6, 7), 3, padding=1, groups=2)
    add("groups3 Cin9 Cout12 per-tensor", 1, 9, 12, (4, 5, 6), 3, padding=1, groups=3, per_channel=False)
    add("depthwise 8 k333 pad1", 1, 8, 8, (5, 7, 6), 3, padding=1, groups=8)
    add("depthwise 13 k333 stride2 pad1 no-bias", 1, 13, 13, (7, 9, 8), 3, stride=2, padding=1, groups=13, bias=False)
    add("depthwise multiplier2 Cin4 Cout8", 1, 4, 8, (5, 6, 7), 3, padding=1, groups=4)
    add("batch2 k333 pad1 Cin3 Cout9", 2, 3, 9, (5, 6, 7), 3, padding=1)
    add("batch2 depthwise 6", 2, 6, 6, (4, 5, 6), 3, padding=1, groups=6)
    add("saturating relu k333 pad1", 1, 4, 11, (5, 6, 7), 3, padding=1, out_scale_factor=0.25)
    add("saturating no-relu k333 pad1", 1, 4, 11, (5, 6, 7), 3, padding=1, relu=False, out_scale_factor=0.25)
    add("saturating depthwise", 1, 16, 16, (4, 5, 6), 3, padding=1, groups=16, out_scale_factor=0.2, relu=False)
    add("odd everything k(3,2,5) stride(2,1,3) dil(1,2,1) pad(1,0,2)", 1, 5, 19, (9, 7, 13), (3, 2, 5),
        stride=(2, 1, 3), dilation=(1, 2, 1), padding=(1, 0, 2))
    add("relu with output zero point 64", 1, 4, 9, (5, 6, 7), 3, padding=1, out_zp_override=64)
    add("no-relu with output zero point 200", 1, 4, 9, (5, 6, 7), 3, padding=1, relu=False, out_zp_override=200)
    return cases


def requant_engine_cases():
    """The requantization each engine gives, side by side: quantized Conv1d /
    Conv2d / Conv3d (and ReLU) on random integers, run under 'x86' (oneDNN for
    these symmetric weights) and under 'fbgemm', both outputs kept. Half the
    cases use scales and biases that are short binary fractions, which put
    many results exactly on .5 (the zero point added before or after
    rounding, the two scale products, the bias scaled or not: each shows
    there); the rest are random. Per-channel and per-tensor weights, with and
    without bias, depthwise and grouped."""
    import torch.ao.nn.quantized as nnq
    import torch.ao.nn.intrinsic.quantized as nniq
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 41)
    cases = []
    for i in range(48):
        dims = 1 + i % 3
        relu = (i // 3) % 2 == 1
        ties = (i // 6) % 2 == 0
        per_channel = (i // 12) % 2 == 0
        has_bias = i % 5 != 4
        groups = [1, 1, 2, 4][(i // 24) % 2 * 2 + i % 2]
        cin_g, cout_g = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        cin, cout = cin_g * groups, cout_g * groups
        k = int(rng.choice([1, 2, 3]))
        spatial = {1: (int(rng.integers(20, 60)),), 2: (int(rng.integers(6, 14)),) * 2, 3: (int(rng.integers(4, 7)),) * 3}[dims]
        n = int(rng.integers(1, 3))
        a_zp, out_zp = int(rng.integers(0, 256)), int(rng.integers(0, 256))
        x = rng.integers(0, 256, size=(n, cin) + spatial).astype(np.uint8)
        w = rng.integers(-128, 128, size=(cout, cin_g) + (k,) * dims).astype(np.int8)
        if ties:
            # Powers of two throughout: every step is exact and the output
            # multiplier is 1/2, so about half the results sit on .5, where
            # adding an odd zero point before rounding (oneDNN) or after
            # (FBGEMM) differs. Small values keep them inside 0..255.
            out_zp = int(rng.integers(40, 100)) * 2 + 1
            a_zp = int(rng.integers(8, 248))
            x = (a_zp + rng.integers(-4, 5, size=(n, cin) + spatial)).astype(np.uint8)
            w = rng.integers(-3, 4, size=(cout, cin_g) + (k,) * dims).astype(np.int8)
            a_scale = float(2.0 ** -int(rng.integers(3, 6)))
            w_exp = int(rng.integers(4, 8))
            w_scales = np.full(cout if per_channel else 1, 2.0 ** -w_exp)
            out_scale = a_scale * 2.0 ** -w_exp * 2
            bias = (rng.integers(-32, 32, size=cout) * a_scale * 2.0 ** -w_exp / 2).astype(np.float32)
        else:
            a_scale = float(np.float32(np.exp(rng.uniform(np.log(1e-3), np.log(0.1)))))
            w_scales = np.exp(rng.uniform(np.log(1e-3), np.log(0.02), size=cout if per_channel else 1))
            out_scale = float(np.float32(np.exp(rng.uniform(np.log(0.01), np.log(0.5)))))
            bias = rng.normal(0, 2, size=cout).astype(np.float32)
        wq = torch.from_numpy(w)
        qw = (torch._make_per_channel_quantized_tensor(wq, torch.from_numpy(w_scales), torch.zeros(cout, dtype=torch.long), 0)
              if per_channel else torch._make_per_tensor_quantized_tensor(wq, float(w_scales[0]), 0))
        qx = torch._make_per_tensor_quantized_tensor(torch.from_numpy(x), a_scale, a_zp)
        outputs, backends = {}, {}
        for engine in ("x86", "fbgemm"):
            torch.backends.quantized.engine = engine
            cls = getattr(nniq, f"ConvReLU{dims}d") if relu else getattr(nnq, f"Conv{dims}d")
            m = cls(cin, cout, k, padding=k // 2, groups=groups, bias=has_bias)
            m.set_weight_bias(qw, torch.from_numpy(bias) if has_bias else None)
            m.scale, m.zero_point = out_scale, out_zp
            outputs[engine] = m(qx).int_repr().contiguous().numpy()
            backends[engine] = conv_backend(m, dims)
        torch.backends.quantized.engine = "fbgemm"
        cases.append({
            "name": f"{i} conv{dims}d{' relu' if relu else ''} {'ties' if ties else 'random'} "
                    f"{'per-channel' if per_channel else 'per-tensor'}{'' if has_bias else ' no-bias'} groups {groups}",
            "dims": dims, "relu": relu, "in_channels": cin, "out_channels": cout, "kernel": k, "padding": k // 2,
            "groups": groups, "x_int": arr(x), "a_scale": a_scale, "a_zero_point": a_zp, "w_int": arr(w),
            "w_scales": arr(w_scales.astype(np.float64)), "per_channel": per_channel,
            "bias": arr(bias) if has_bias else None, "out_scale": out_scale, "out_zero_point": out_zp,
            "y_x86": arr(outputs["x86"]), "y_fbgemm": arr(outputs["fbgemm"]), "backends": backends,
        })
    return cases


def eager_flow_cases():
    """PyTorch's eager post-training flow end to end: QuantStub -> float module
    -> DeQuantStub, prepare with MinMaxObserver activations and the default
    per-channel weight observer, calibrate, convert, run. qwasm repeats it with
    its own observers and fromFloat and must produce the same integers. The
    float outputs seen in calibration are recorded: float convolutions sum in a
    different order, so qwasm's observer is fed PyTorch's float outputs."""
    import torch.ao.quantization as tq
    from torch.ao.quantization import observer as obs
    gen = torch.Generator().manual_seed(SEED + 3)
    cases = []

    def run(name, kind, make, x_shape):
        torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        fmod = make()
        model = torch.nn.Sequential(tq.QuantStub(), fmod, tq.DeQuantStub()).eval()
        model.qconfig = tq.QConfig(activation=obs.MinMaxObserver.with_args(dtype=torch.quint8),
                                   weight=obs.default_per_channel_weight_observer)
        prepared = tq.prepare(model)
        calib = torch.randn(x_shape, generator=gen) * 1.5 + 0.2
        with torch.no_grad():
            prepared(calib)
            calib_out = fmod(calib)  # the float outputs the activation observer saw
            fused = fmod  # the same float module object, before convert
            w = fused[0].weight.detach().clone() if hasattr(fused, "__getitem__") else fused.weight.detach().clone()
            b = (fused[0] if hasattr(fused, "__getitem__") else fused).bias.detach().clone()
        converted = tq.convert(prepared)
        qstub, qmod = converted[0], converted[1]
        x = torch.randn(x_shape, generator=gen) * 1.5 + 0.2
        qx = torch.quantize_per_tensor(x, float(qstub.scale), int(qstub.zero_point), torch.quint8)
        qy = qmod(qx)
        conv = fmod[0] if hasattr(fmod, "__getitem__") else fmod
        geometry = {}
        if kind != "LinearReLU":
            geometry = {"kernel": list(conv.kernel_size), "stride": list(conv.stride),
                        "padding": conv.padding if isinstance(conv.padding, str) else list(conv.padding),
                        "dilation": list(conv.dilation), "groups": conv.groups}
        cases.append({
            "name": name, "kind": kind, "in_channels": conv.in_features if kind == "LinearReLU" else conv.in_channels,
            "out_channels": conv.out_features if kind == "LinearReLU" else conv.out_channels, **geometry,
            "w": arr(w.numpy()), "bias": arr(b.numpy()), "calibration": arr(calib.numpy()),
            "calibration_output": arr(calib_out.numpy()), "x": arr(x.numpy()),
            "in_scale": float(qstub.scale), "in_zero_point": int(qstub.zero_point),
            "out_scale": float(qmod.scale), "out_zero_point": int(qmod.zero_point),
            "w_int": arr(qmod.weight().int_repr().numpy()),
            "w_scales": arr(qmod.weight().q_per_channel_scales().numpy().astype(np.float64)),
            "y_int": arr(qy.int_repr().numpy()),
            "backend": "fbgemm" if kind == "LinearReLU" else conv_backend(qmod, int(kind[-2])),
        })

    import torch.ao.nn.intrinsic as nni
    run("ConvReLU3d 4->10 k3 pad1 from_float", "ConvReLU3d",
        lambda: nni.ConvReLU3d(torch.nn.Conv3d(4, 10, 3, padding=1), torch.nn.ReLU()), (2, 4, 5, 6, 7))
    run("ConvReLU3d depthwise 6 stride2 from_float", "ConvReLU3d",
        lambda: nni.ConvReLU3d(torch.nn.Conv3d(6, 6, 3, stride=2, padding=1, groups=6), torch.nn.ReLU()), (1, 6, 7, 8, 9))
    run("ConvReLU2d 3->8 k(3,5) pad(1,2) from_float", "ConvReLU2d",
        lambda: nni.ConvReLU2d(torch.nn.Conv2d(3, 8, (3, 5), padding=(1, 2)), torch.nn.ReLU()), (2, 3, 9, 11))
    run("ConvReLU2d groups2 stride2 dilation2 from_float", "ConvReLU2d",
        lambda: nni.ConvReLU2d(torch.nn.Conv2d(4, 6, 3, stride=2, dilation=2, padding=2, groups=2), torch.nn.ReLU()), (1, 4, 13, 12))
    run("ConvReLU1d 5->7 k5 pad2 from_float", "ConvReLU1d",
        lambda: nni.ConvReLU1d(torch.nn.Conv1d(5, 7, 5, padding=2), torch.nn.ReLU()), (3, 5, 17))
    run("ConvReLU1d dilation3 k4 pad5 from_float", "ConvReLU1d",
        lambda: nni.ConvReLU1d(torch.nn.Conv1d(2, 9, 4, padding=5, dilation=3), torch.nn.ReLU()), (2, 2, 19))
    run("LinearReLU 24->13 from_float", "LinearReLU",
        lambda: nni.LinearReLU(torch.nn.Linear(24, 13), torch.nn.ReLU()), (5, 24))
    run("LinearReLU 7->33 batch dims from_float", "LinearReLU",
        lambda: nni.LinearReLU(torch.nn.Linear(7, 33), torch.nn.ReLU()), (2, 3, 7))
    return cases


def io_fixtures():
    """Files written by real numpy and safetensors for the io.loadNpy /
    io.loadSafetensors tests, with the values they hold."""
    from safetensors.numpy import save_file
    out = os.path.join(HERE, "fixtures")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    expected = {}

    def npy(name, a):
        np.save(os.path.join(out, name), a)
        expected[name] = {"shape": list(a.shape), "values": arr(np.ascontiguousarray(a).astype(np.float32).reshape(-1))}

    npy("weight_f32.npy", rng.standard_normal((8, 3, 3, 3, 3)).astype(np.float32))
    npy("activation_f64.npy", rng.standard_normal((2, 4, 5, 3)))
    npy("half_f16.npy", rng.standard_normal((6, 7)).astype(np.float16))
    npy("big_endian_f4.npy", rng.standard_normal((5, 4)).astype(">f4"))
    npy("scalar_f32.npy", np.float32(3.25).reshape(()))
    np.save(os.path.join(out, "fortran_f32.npy"), np.asfortranarray(rng.standard_normal((3, 4)).astype(np.float32)))
    np.save(os.path.join(out, "int32.npy"), np.arange(12, dtype=np.int32).reshape(3, 4))
    tensors = {
        "conv1.weight": rng.standard_normal((16, 3, 3, 3, 3)).astype(np.float32),
        "conv1.bias": rng.standard_normal((16,)).astype(np.float32),
        "fc.weight": rng.standard_normal((10, 32)).astype(np.float64),
        "emb.half": rng.standard_normal((4, 6)).astype(np.float16),
        "steps": np.arange(5, dtype=np.int64),
    }
    save_file(tensors, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    for k, v in tensors.items():
        expected[f"model.safetensors:{k}"] = {"shape": list(v.shape), "values": arr(v.astype(np.float32).reshape(-1))}
    write("fixtures/expected.json", [{"file": k, **v} for k, v in expected.items()])


def video_resnet_cases(engine="fbgemm"):
    """torchvision's r3d_18, mc3_18 and r2plus1d_18 at an eighth of their widths
    (tests/models/video_resnets.py: QuantStub / DeQuantStub, FloatFunctional
    residual adds, Conv + BN + ReLU fused), calibrated on two clips and
    converted with get_default_qconfig(engine) under that engine, exported with
    python/qwasm_export.py to tests/golden/exported/<arch>[_x86].qwasm.safetensors,
    then run on clips of batch 1 and 2, 8 and 16 frames, 112x112. Clips come
    from the LCG both sides run (values (byte - 128) / 64); each case keeps
    the logits' integers (the fc's quantized output) and the dequantized
    floats."""
    sys.path.insert(0, os.path.join(HERE, "..", "models"))
    sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
    from qwasm_export import export
    from video_resnets import ARCHS, lcg_clip, quantized_model
    torch.set_num_threads(1)
    os.makedirs(os.path.join(HERE, "exported"), exist_ok=True)
    cases = []
    for a, arch in enumerate(ARCHS):
        calibration = [lcg_clip(100 + 10 * a + k, (1, 3, 16, 112, 112)) for k in range(2)]
        m = quantized_model(arch, width_div=8, num_classes=400, seed=SEED % 1000 + a, calibration=calibration,
                            engine=engine)
        fname = f"exported/{arch}{'' if engine == 'fbgemm' else '_' + engine}.qwasm.safetensors"
        export(m, calibration[0], os.path.join(HERE, fname))
        logits = {}
        m.fc.register_forward_hook(lambda mod, inp, out: logits.__setitem__("q", out))
        for batch in (1, 2):
            for frames in (8, 16):
                seed = 1000 + 100 * a + 10 * batch + frames
                shape = (batch, 3, frames, 112, 112)
                with torch.no_grad():
                    y = m(lcg_clip(seed, shape))
                q = logits["q"]
                cases.append({"name": f"{arch} batch {batch} frames {frames}", "arch": arch, "file": fname,
                              "input": {"lcg": seed, "shape": list(shape)}, "y": arr(y.numpy()),
                              "logits": {"ints": int_repr_bytes(q), "shape": list(q.shape), "scale": q.q_scale(),
                                         "zero_point": q.q_zero_point()}})
    return cases


def export_zoo_cases():
    """A small model that uses every node kind python/qwasm_export.py writes:
    Conv3d / ConvReLU3d, max / average / adaptive pools, FloatFunctional add,
    add_relu, mul, cat, add_scalar, mul_scalar, flatten (function and method),
    reshape, ReLU, Linear / LinearReLU, stubs. Exported twice: quantized by
    the eager flow (exported/zoo.qwasm.safetensors) and in float
    (exported/zoo_float.qwasm.safetensors: Conv, BatchNorm, ReLU, pools,
    operator add, flatten, Linear). The quantized file is also the loader
    fuzzer's seed."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
    from qwasm_export import export
    from torch.ao.quantization import DeQuantStub, QuantStub, convert, fuse_modules, get_default_qconfig, prepare
    nn = torch.nn
    torch.set_num_threads(1)
    torch.manual_seed(SEED % 1000 + 50)

    class Zoo(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.conv1 = nn.Sequential(nn.Conv3d(3, 6, 3, padding=1), nn.BatchNorm3d(6), nn.ReLU())
            self.conv2 = nn.Conv3d(6, 6, 1)
            self.ff = nn.ModuleList([nn.quantized.FloatFunctional() for _ in range(6)])
            self.pool = nn.MaxPool3d(2)
            self.avg = nn.AvgPool3d(2, stride=1, ceil_mode=True, count_include_pad=False)
            self.adapt = nn.AdaptiveAvgPool3d((1, 2, 2))
            self.relu = nn.ReLU()
            self.fc1 = nn.Sequential(nn.Linear(48, 16), nn.ReLU())
            self.fc2 = nn.Linear(16, 5)
            self.dequant = DeQuantStub()

        def forward(self, x):
            a = self.conv1(self.quant(x))
            b = self.ff[0].add_relu(a, self.conv2(a))
            c = self.ff[1].cat([b, a], 1)
            d = self.avg(self.pool(c))
            e = self.ff[2].mul(d, d)
            f = self.ff[3].add(self.ff[4].add_scalar(e, 0.25), self.ff[5].mul_scalar(d, -0.5))
            g = self.relu(self.adapt(f))
            h = torch.flatten(g, 1)
            h = self.fc2(self.fc1(h.reshape(-1, 48)))
            return self.dequant(h)

    class FloatZoo(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv3d(3, 6, 3, padding=1)
            self.bn = nn.BatchNorm3d(6)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv3d(6, 6, 1)
            self.pool = nn.MaxPool3d(2)
            self.adapt = nn.AdaptiveAvgPool3d(1)
            self.fc = nn.Linear(6, 5)

        def forward(self, x):
            a = self.relu(self.bn(self.conv1(x)))
            b = self.conv2(a) + a
            return self.fc(self.adapt(self.pool(b)).flatten(1))

    x = torch.from_numpy(np.random.default_rng(SEED + 50).uniform(-2, 2, (2, 3, 6, 8, 8)).astype(np.float32))
    cases = []
    m = Zoo().eval()
    with torch.no_grad():
        m.conv1[1].running_mean.uniform_(-0.2, 0.2)
        m.conv1[1].running_var.uniform_(0.5, 2)
    fuse_modules(m, [["conv1.0", "conv1.1", "conv1.2"], ["fc1.0", "fc1.1"]], inplace=True)
    m.qconfig = get_default_qconfig("fbgemm")
    prepare(m, inplace=True)
    m(x)
    convert(m, inplace=True)
    export(m, x, os.path.join(HERE, "exported/zoo.qwasm.safetensors"))
    cases.append({"name": "zoo (quantized)", "file": "exported/zoo.qwasm.safetensors", "x": arr(x.numpy()),
                  "y": arr(m(x).numpy())})
    f = FloatZoo().eval()
    with torch.no_grad():
        f.bn.running_mean.uniform_(-0.2, 0.2)
        f.bn.running_var.uniform_(0.5, 2)
        f.bn.weight.uniform_(0.5, 1.5)
    export(f, x, os.path.join(HERE, "exported/zoo_float.qwasm.safetensors"))
    with torch.no_grad():
        cases.append({"name": "zoo (float)", "file": "exported/zoo_float.qwasm.safetensors", "x": arr(x.numpy()),
                      "y": arr(f(x).numpy())})
    return cases


def stride_cases():
    """Output strides at size-1 dimensions: batch 1, one channel, spatial
    sizes of 1. A quantized conv returns a channels-last tensor (squeezed for
    conv1d); PyTorch's pools and element-wise ops pick their formula from the
    layout, so a stride that differs where a size is 1 can change integers
    downstream. Each case runs a quantized conv (or takes a contiguous input)
    then one op, and records PyTorch's stride() after each step beside the
    integers."""
    import torch.ao.nn.quantized as nnq
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 31)
    cases = []

    def qin(shape):
        scale = float(np.float32(rng.choice([0.05, 1 / 3, 0.02, 2 / 255])))
        zp = int(rng.integers(0, 256))
        ints = rng.integers(0, 256, size=shape, dtype=np.uint8)
        return torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints.copy()), scale, zp)

    def enc(q):
        return {"ints": int_repr_bytes(q), "shape": list(q.shape), "scale": q.q_scale(), "zero_point": q.q_zero_point(),
                "strides": list(q.stride())}

    def qconv(dims, cin, cout, kernel):
        w = torch.from_numpy(rng.integers(-127, 128, size=(cout, cin) + (kernel,) * dims).astype(np.int8))
        scales = torch.from_numpy(rng.uniform(0.002, 0.02, size=cout)).double()
        qw = torch._make_per_channel_quantized_tensor(w, scales, torch.zeros(cout, dtype=torch.long), 0)
        bias = torch.from_numpy(rng.normal(0, 1, size=cout).astype(np.float32))
        m = getattr(nnq, f"Conv{dims}d")(cin, cout, kernel)
        m.set_weight_bias(qw, bias)
        m.scale = float(np.float32(rng.uniform(0.05, 0.3)))
        m.zero_point = int(rng.integers(20, 200))
        spec = {"dims": dims, "in_channels": cin, "out_channels": cout, "kernel": kernel,
                "w_int": arr(w.numpy()), "w_scales": arr(scales.numpy()), "bias": arr(bias.numpy()),
                "scale": m.scale, "zero_point": m.zero_point}
        return m, spec

    def follow_ups(dims, shape):
        spatial = shape[2:]
        k = [min(2, s) for s in spatial]
        P = {1: "1d", 2: "2d", 3: "3d"}[dims]
        ops = [
            (f"MaxPool{P}", {"kernelSize": k}, lambda y: getattr(torch.nn, f"MaxPool{P}")(k)(y)),
            (f"AvgPool{P}", {"kernelSize": k}, lambda y: getattr(torch.nn, f"AvgPool{P}")(k)(y)),
            (f"AdaptiveAvgPool{P}", {"outputSize": [1] * dims},
             lambda y: getattr(torch.nn, f"AdaptiveAvgPool{P}")(1 if dims == 1 else (1,) * dims)(y)),
            (f"AdaptiveAvgPool{P}", {"outputSize": [2] * dims},
             lambda y: getattr(torch.nn, f"AdaptiveAvgPool{P}")(2 if dims == 1 else (2,) * dims)(y)),
            ("relu", {}, torch.nn.functional.relu),
            ("add", {"scale": 0.3, "zeroPoint": 90}, lambda y: torch.ops.quantized.add(y, y, 0.3, 90)),
            ("mul", {"scale": 0.7, "zeroPoint": 10}, lambda y: torch.ops.quantized.mul(y, y, 0.7, 10)),
            ("addScalar", {"c": 0.5}, lambda y: torch.ops.quantized.add_scalar(y, 0.5)),
            ("cat", {"dim": 1, "scale": 0.2, "zeroPoint": 60},
             lambda y: torch.ops.quantized.cat([y, y], dim=1, scale=0.2, zero_point=60)),
            ("flatten", {}, lambda y: torch.flatten(y, 1)),
        ]
        return ops

    for dims in (1, 2, 3):
        for n, cin, cout, spatial in [(1, 3, 4, (5,) * dims), (1, 1, 1, (4,) * dims), (1, 3, 1, (1,) * dims),
                                      (2, 3, 4, (1,) * (dims - 1) + (6,)), (1, 2, 5, (6,) + (1,) * (dims - 1)),
                                      (2, 1, 3, (3,) * dims)]:
            for source in ("conv", "contiguous"):
                if source == "conv":
                    conv, spec = qconv(dims, cin, cout, 1)
                    x = qin((n, cin) + spatial)
                    y0 = conv(x)
                else:
                    spec, x = None, qin((n, cout) + spatial)
                    y0 = x
                for op, args, fn in follow_ups(dims, list(y0.shape)):
                    y = fn(y0)
                    cases.append({"name": f"{source} {dims}d {[n, cin, *spatial]} then {op} {json.dumps(args)}",
                                  "conv": spec, "x": enc(x), "mid": enc(y0), "op": op, "args": args, "y": enc(y)})
    # A quantized Linear at batch 1 and on 3-D input.
    for shape in [(1, 6), (1, 1, 6), (3, 1, 6), (1, 2, 6)]:
        w = torch.from_numpy(rng.integers(-127, 128, size=(4, 6)).astype(np.int8))
        scales = torch.from_numpy(rng.uniform(0.002, 0.02, size=4)).double()
        qw = torch._make_per_channel_quantized_tensor(w, scales, torch.zeros(4, dtype=torch.long), 0)
        bias = torch.from_numpy(rng.normal(0, 1, size=4).astype(np.float32))
        lin = nnq.Linear(6, 4)
        lin.set_weight_bias(qw, bias)
        lin.scale, lin.zero_point = 0.125, 77
        x = qin(shape)
        y = lin(x)
        cases.append({"name": f"Linear {list(shape)}", "conv": None, "x": enc(x), "mid": enc(x), "op": "Linear",
                      "args": {"w_int": arr(w.numpy()), "w_scales": arr(scales.numpy()), "bias": arr(bias.numpy()),
                               "scale": 0.125, "zeroPoint": 77},
                      "y": enc(y)})
    return cases


if __name__ == "__main__":
    # `generate.py histogram conv3d ...` writes only those files; no argument writes all.
    wanted = set(sys.argv[1:])
    want = lambda name: not wanted or name in wanted  # noqa: E731
    if want("quantize"):
        write("quantize.json", quantize_cases())
    if want("observers"):
        observer_list, inputs = observer_cases()
        write("observers.json", observer_list, {"inputs": inputs})
    if want("histogram"):
        histogram_list, histogram_inputs = histogram_cases()
        write("histogram_observer.json", histogram_list, {"inputs": histogram_inputs})
    if want("fusion"):
        write("fusion.json", fusion_cases())
    if want("qops"):
        write("qops.json", qops_cases())
    if want("pools"):
        write("pools.json", pool_cases())
    if want("memory_formats"):
        write("memory_formats.json", memory_format_cases())
    if want("models"):
        write("models.json", model_cases())
    if want("models_x86"):  # the same flow under PyTorch's default engine: the convs on oneDNN
        with_engine("x86", lambda: write("models_x86.json", model_cases()))
    if want("conv3d"):
        write("conv3d.json", conv_cases())
    if want("conv3d_x86"):  # PyTorch's default engine: oneDNN's requantization for these convs
        with_engine("x86", lambda: write("conv3d_x86.json", conv_cases()))
    if want("requant_engines"):
        write("requant_engines.json", requant_engine_cases())
    if want("eager_flow"):
        write("eager_flow.json", eager_flow_cases())
    if want("eager_flow_x86"):
        with_engine("x86", lambda: write("eager_flow_x86.json", eager_flow_cases()))
    if want("video_resnets"):
        write("video_resnets.json", video_resnet_cases())
    if want("video_resnets_x86"):
        with_engine("x86", lambda: write("video_resnets_x86.json", video_resnet_cases("x86")))
    if want("export_zoo"):
        write("export_zoo.json", export_zoo_cases())
    if want("strides"):
        write("strides.json", stride_cases())
    if want("io"):
        io_fixtures()
