"""quantize.json: quantize_per_tensor / quantize_per_channel over every dtype and qscheme."""

import torch

from .common import SEED, QDTYPES, QSCHEMES, arr, int_repr_bytes, sample


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
    # A scale below ~2.94e-39 has no float32 reciprocal (1 / scale is +Inf), so
    # a zero scales to 0 * Inf = NaN, which PyTorch's per-tensor quint8 / qint8
    # path clips like +Inf: qmax. (Zero points below 128, so that the int32 sum
    # does not wrap; PyTorch's per-channel and qint32 paths give other values:
    # README, known differences.) 2.95e-39 still has one: zeros give the zero point.
    x = torch.tensor([0.0, -0.0, 1e-30, -1e-30, 1e-38, -1e-38, 0.0, 0.0, 0.0] * 3, dtype=torch.float32)
    for dname, zps in [("quint8", (0, 100)), ("qint8", (0, 5))]:
        for scale in (1e-39, 2.9e-39, 2.95e-39):
            for zp in zps:
                add(f"scale without a float reciprocal {dname} scale={scale} zp={zp}", x,
                    torch.quantize_per_tensor(x, scale, zp, QDTYPES[dname]))
    x = torch.randn(3, 5, generator=gen)
    add("quint4x2 odd numel per_tensor", x, torch.quantize_per_tensor(x, 0.2, 7, torch.quint4x2))
    add("quint4x2 odd numel float_qparams axis=1", x,
        torch.quantize_per_channel(x, torch.rand(5, generator=gen) + 0.05, torch.rand(5, generator=gen) * 8, 1, torch.quint4x2))
    return cases
