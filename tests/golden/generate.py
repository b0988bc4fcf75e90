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
    if want("conv3d"):
        write("conv3d.json", conv_cases())
    if want("eager_flow"):
        write("eager_flow.json", eager_flow_cases())
    if want("io"):
        io_fixtures()
