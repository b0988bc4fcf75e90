"""depthwise_saturation.json: depthwise convolutions on FBGEMM's depthwise fast
path, whose int16 tap-pair sums saturate (docs/numerics.md, "int16 pair
saturation"), under both of PyTorch's x86 engines, with controls off the path.

FBGEMM's depthwise kernel (src/GenerateI8Depthwise.cc) multiplies the raw
uint8 activations (padding = the input zero point) by the raw int8 weights,
adds the taps in pairs in (kd, kh, kw) order (vpmaddubsw: each pair's sum
saturated to int16; an odd last tap alone), sums the pairs in int32, then
subtracts a_zp * sum(w - w_zp) and, for asymmetric weights, w_zp times the
activations' row sum (accumulated with saturating int16 adds). Each case
records how many of PyTorch's integers that model and the exact convolution
miss; the generator asserts that the model misses none and that, on the fast
path, the exact convolution misses a twentieth or more (so the golden can fail),
and that it misses none off the path.
"""
import itertools

import numpy as np
import torch

from .common import SEED, arr, conv_backend, fma32

F32 = np.float32


def _accumulators(x, w, a_zp, w_zp, stride, pad, multiplier, saturate, row_clamp=True):
    """int64 accumulators [Cout, *out] of a depthwise conv on x [1, C, *sp]
    (uint8) and w [Cout, 1, *k] (int8): FBGEMM's pair model (row_clamp False:
    without the row sum's int16 saturation), or exact."""
    dims = x.ndim - 2
    k = w.shape[2:]
    xp = np.pad(x.astype(np.int64), [(0, 0), (0, 0)] + [(p, p) for p in pad], constant_values=a_zp)
    cout = w.shape[0]
    out = [(x.shape[2 + d] + 2 * pad[d] - k[d]) // stride[d] + 1 for d in range(dims)]
    shape = [cout] + [1] * dims
    acc = np.zeros([cout] + out, np.int64)
    row_sum = np.zeros([cout] + out, np.int64)
    wz = np.asarray(w_zp, np.int64).reshape(shape)
    pending = None
    for t, tap in enumerate(itertools.product(*[range(kk) for kk in k])):
        window = tuple(slice(tap[d], tap[d] + stride[d] * (out[d] - 1) + 1, stride[d]) for d in range(dims))
        a = np.repeat(xp[0][(slice(None),) + window], multiplier, axis=0)
        wv = w[(slice(None), 0) + tap].astype(np.int64).reshape(shape)
        if not saturate:
            acc += (a - a_zp) * (wv - wz)
            continue
        row_sum += a
        if t % 2 == 0:
            pending = a * wv
        else:
            acc += np.clip(pending + a * wv, -32768, 32767)
            pending = None
    if not saturate:
        return acc
    if pending is not None:
        acc += pending
    col = (w.reshape(cout, -1).astype(np.int64) - wz.reshape(cout, 1)).sum(1).reshape(shape)
    return acc - (np.minimum(row_sum, 32767) if row_clamp else row_sum) * wz - a_zp * col




def _requantize(acc, bias, atws, multiplier, out_zp, relu, per_channel, fast_path):
    """FBGEMM's requantization (docs/numerics.md), the bias term as the path adds it."""
    shape = [acc.shape[0]] + [1] * (acc.ndim - 1)
    accf = acc.astype(F32)
    if bias is None:
        f = accf
    elif per_channel:
        f = accf + (bias / atws).astype(F32).reshape(shape)
    else:
        rcp = (1.0 / atws.astype(np.float64)).astype(F32)
        f = (accf + (bias * rcp).astype(F32).reshape(shape) if fast_path
             else fma32(bias.reshape(shape), rcp.reshape(shape), accf))
    y = np.rint((f * multiplier.reshape(shape)).astype(F32)).astype(np.int64) + out_zp
    return np.clip(y, out_zp if relu else 0, 255)


CASES = [
    # (engine, name, dims, channels, multiplier, kernel, stride, spatial, per_channel, asymmetric weights,
    #  bias, relu, activations' low end, FBGEMM's depthwise fast path)
    ("fbgemm", "Conv2d depthwise 16 k3", 2, 16, 1, (3, 3), 1, (9, 10), True, False, True, False, 0, True),
    ("fbgemm", "Conv2d depthwise 32 k5 stride 2 per-tensor", 2, 32, 1, (5, 5), 2, (11, 12), False, False, True, True, 0,
     True),
    ("fbgemm", "Conv2d depthwise 16 k7 no-bias", 2, 16, 1, (7, 7), 1, (9, 9), True, False, False, False, 0, True),
    ("fbgemm", "Conv2d 8 -> 16 (multiplier 2) k3", 2, 8, 2, (3, 3), 1, (8, 9), True, False, True, False, 0, True),
    ("fbgemm", "Conv2d depthwise 16 k3 asymmetric weights", 2, 16, 1, (3, 3), 1, (8, 9), True, True, True, False, 0,
     True),
    ("fbgemm", "Conv3d depthwise 16 k3", 3, 16, 1, (3, 3, 3), 1, (4, 6, 7), True, False, True, True, 0, True),
    ("fbgemm", "Conv3d depthwise 8 k5x3x3 stride 2 per-tensor", 3, 8, 1, (5, 3, 3), 2, (6, 7, 8), False, False, True,
     False, 0, True),
    ("fbgemm", "Conv3d 16 -> 32 (multiplier 2) k3x5x5", 3, 16, 2, (3, 5, 5), 1, (3, 6, 7), True, False, True, False, 0,
     True),
    ("fbgemm", "Conv3d depthwise 8 k3x7x7 asymmetric weights, row sums past 32767", 3, 8, 1, (3, 7, 7), 1, (3, 7, 8),
     True, True, True, False, 230, True),
    # Off the fast path: exact sums (12 % 8 != 0; a Conv1d is never depthwise to FBGEMM)
    ("fbgemm", "Conv2d depthwise 12 k3 (not a multiple of 8)", 2, 12, 1, (3, 3), 1, (8, 9), True, False, True, False, 0,
     False),
    ("fbgemm", "Conv1d depthwise 16 k3", 1, 16, 1, (3,), 1, (40,), True, False, True, False, 0, False),
    # The x86 engine: FBGEMM for more than 100 groups or asymmetric weights (oneDNN otherwise)
    ("x86", "Conv2d depthwise 128 k3", 2, 128, 1, (3, 3), 1, (6, 7), True, False, True, False, 0, True),
    ("x86", "Conv3d depthwise 104 k3 stride 2 per-tensor", 3, 104, 1, (3, 3, 3), 2, (4, 5, 6), False, False, True,
     True, 0, True),
    ("x86", "Conv2d depthwise 64 k3 asymmetric weights", 2, 64, 1, (3, 3), 1, (6, 7), True, True, True, False, 0, True),
    ("x86", "Conv2d 104 -> 208 (multiplier 2) k5", 2, 104, 2, (5, 5), 1, (5, 6), True, False, True, False, 0, True),
]


def depthwise_saturation_cases():
    import torch.ao.nn.intrinsic.quantized as nniq
    import torch.ao.nn.quantized as nnq
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 71)
    cases = []
    try:
        for (engine, name, dims, c, mult, k, stride, spatial, per_channel, asym, has_bias, relu, a_lo,
             fast_path) in CASES:
            torch.backends.quantized.engine = engine
            cout = c * mult
            x = rng.integers(a_lo, 256, size=(1, c) + spatial).astype(np.uint8)
            w = rng.integers(-128, 128, size=(cout, 1) + k).astype(np.int8)
            a_scale = float(F32(np.exp(rng.uniform(np.log(5e-3), np.log(0.05)))))
            a_zp = int(rng.integers(max(a_lo, 100), 256))
            nq = cout if per_channel else 1
            w_scales = np.exp(rng.uniform(np.log(1e-3), np.log(0.02), size=nq))
            w_zps = rng.integers(-12, 13, size=nq) if asym else np.zeros(nq, np.int64)
            bias = rng.normal(0, 0.5, size=cout).astype(F32) if has_bias else None
            pad = tuple(kk // 2 for kk in k)
            # An output scale that spreads the typical accumulator over the range.
            typical = np.sqrt(np.prod(k)) * 128 * 70
            out_scale = float(F32(a_scale * float(np.median(w_scales)) * typical / 120))
            out_zp = int(rng.integers(60, 200))
            qw = (torch._make_per_channel_quantized_tensor(torch.from_numpy(w), torch.from_numpy(w_scales),
                                                            torch.from_numpy(w_zps.astype(np.int64)), 0)
                  if per_channel else
                  torch._make_per_tensor_quantized_tensor(torch.from_numpy(w), float(w_scales[0]), int(w_zps[0])))
            qx = torch._make_per_tensor_quantized_tensor(torch.from_numpy(x), a_scale, a_zp)
            cls = getattr(nniq, f"ConvReLU{dims}d") if relu else getattr(nnq, f"Conv{dims}d")
            m = cls(c, cout, k, stride=stride, padding=pad, groups=c, bias=has_bias)
            m.set_weight_bias(qw, torch.from_numpy(bias) if has_bias else None)
            m.scale, m.zero_point = out_scale, out_zp
            backend = conv_backend(m, dims)
            assert backend == "fbgemm", (name, backend)
            y = m(qx).int_repr().contiguous().numpy()
            y_ch = y[0].astype(np.int64)  # [Cout, *out]
            atws = (F32(a_scale) * np.broadcast_to(w_scales.astype(F32), (cout,))).astype(F32)
            multiplier = (atws / F32(out_scale)).astype(F32)
            wz = np.broadcast_to(w_zps, (cout,)).astype(np.int64)
            misses = {}
            for way, saturate, row_clamp in (("pairs", True, True), ("exact", False, True),
                                             ("pairs_unclamped_row_sum", True, False)):
                acc = _accumulators(x, w, a_zp, wz, (stride,) * dims, pad, mult, saturate, row_clamp)
                misses[way] = int((_requantize(acc, bias, atws, multiplier, out_zp, relu, per_channel, fast_path)
                                   != y_ch).sum())
            total = int(y.size)
            model = "pairs" if fast_path else "exact"
            assert misses[model] == 0, (name, misses)
            if fast_path:
                assert misses["exact"] * 20 >= total, (name, misses, total)
            else:
                assert misses["exact"] == 0 and misses["pairs"] > 0, (name, misses)
            if "row sums past 32767" in name:  # the row sum's saturation decides outputs too
                assert misses["pairs_unclamped_row_sum"] > 0, (name, misses)
            cases.append({
                "name": f"{engine}: {name}{' relu' if relu else ''}", "engine": engine, "dims": dims,
                "in_channels": c, "out_channels": cout, "kernel": list(k), "stride": stride, "padding": list(pad),
                "groups": c, "relu": relu, "fbgemm_depthwise": fast_path, "x_int": arr(x), "a_scale": a_scale,
                "a_zero_point": a_zp, "w_int": arr(w), "per_channel": per_channel,
                "w_scales": arr(w_scales.astype(np.float64)), "w_zero_points": [int(v) for v in w_zps],
                "bias": arr(bias) if has_bias else None, "out_scale": out_scale, "out_zero_point": out_zp,
                "y": arr(y), "outputs": total, "misses": misses,
            })
            print(f"  {cases[-1]['name']}: {total} outputs, exact sums miss {misses['exact']}, "
                  f"pair model misses {misses['pairs']}")
    finally:
        torch.backends.quantized.engine = "fbgemm"
    return cases
