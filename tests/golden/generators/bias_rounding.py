"""bias_rounding.json: quantized layers whose outputs sit where FBGEMM's way of
adding the float bias decides the integer (docs/numerics.md, "Quantized
convolution and linear layers")."""

import numpy as np
import torch

from .common import SEED, arr, fma32

F32 = np.float32




def _bias_terms(bias, atws, accf):
    """acc + bias in float, the three ways FBGEMM's kernels may add it."""
    rcp = (1.0 / atws.astype(np.float64)).astype(F32)
    return {"divide": accf + (bias / atws).astype(F32), "multiply": accf + (bias * rcp).astype(F32),
            "fma": fma32(bias, rcp, accf)}


def _requantize(f, multiplier, zp, relu):
    y = np.rint((f * multiplier).astype(F32)).astype(np.int64) + zp
    return np.clip(y, zp if relu else 0, 255)


def _boundary_bias(acc, atws, multiplier, zp, relu, rng, tries=20000, rounds=4):
    """A bias for one channel (acc: its accumulators) where the three ways
    give different outputs for some element, found by brute force: rounds of
    random candidates, the one with the most disagreements (the last
    candidate drawn when none disagrees)."""
    for _ in range(rounds):
        cands = rng.normal(0, 1, size=tries).astype(F32)
        outs = [_requantize(f, multiplier, zp, relu) for f in
                _bias_terms(cands[:, None], np.full((tries, 1), atws, F32), acc.astype(F32)[None, :]).values()]
        score = sum((outs[i] != outs[j]).sum(axis=1) for i in range(3) for j in range(i + 1, 3))
        if score.max() > 0:
            break
    return cands[int(np.argmax(score))]


LAYERS = [
    # (name, dims (0: linear), in, out, groups, kernel, input spatial, FBGEMM's path)
    ("Conv1d 4->8 k5 pad2", 1, 4, 8, 1, 5, (40,), "gemm"),
    ("Conv2d 6->16 k3 pad1", 2, 6, 16, 1, 3, (7, 8), "gemm"),
    ("Conv2d 6->16 k1 (pointwise)", 2, 6, 16, 1, 1, (7, 8), "gemm"),
    ("Conv3d 5->12 k3 pad1", 3, 5, 12, 1, 3, (4, 5, 5), "gemm"),
    ("Conv2d groups 4 (groupwise kernel)", 2, 16, 16, 4, 3, (7, 8), "gemm"),
    ("Conv2d depthwise 16 k3 pad1", 2, 16, 16, 16, 3, (7, 8), "depthwise"),
    ("Conv3d depthwise 16 k3 pad1", 3, 16, 16, 16, 3, (4, 5, 5), "depthwise"),
    ("Conv2d depthwise 12 k3 (12 % 8 != 0)", 2, 12, 12, 12, 3, (7, 8), "gemm"),
    ("Conv1d depthwise 16 k3", 1, 16, 16, 16, 3, (40,), "gemm"),
    ("Linear 20->24", 0, 20, 24, 1, 1, (32,), "gemm"),
]


def bias_rounding_cases():
    """Each layer with per-tensor and per-channel weights, with and without a
    bias, ReLU on every other pair. Random integers and scales; the bias of each
    channel is searched (fixed seed) among random values for one where adding
    it as bias / atws, as acc + bias * rcp and as fma(bias, rcp, acc) give
    different outputs, so each case holds outputs that only the way the
    layer's FBGEMM path adds the bias gets right. The depthwise layers keep
    activations and zero points below 128: FBGEMM's depthwise kernel sums tap
    pairs in int16 and saturates above (docs/numerics.md; depthwise_saturation.py
    has those cases), which is not what these cases test. `misses` counts, for each way ("divide":
    qwasm's formula before, "multiply", "fma"), the outputs where it differs
    from PyTorch's integer."""
    import torch.ao.nn.quantized as nnq
    import torch.ao.nn.intrinsic.quantized as nniq
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 53)
    cases = []
    i = 0
    for name, dims, cin, cout, groups, k, spatial, path in LAYERS:
        for per_channel in (False, True):
            for has_bias in (True, False):
                relu = (i // 2) % 2 == 1
                i += 1
                depthwise = path == "depthwise"
                a_scale = float(F32(np.exp(rng.uniform(np.log(1e-3), np.log(0.1)))))
                w_scales = np.exp(rng.uniform(np.log(1e-3), np.log(0.02), size=cout if per_channel else 1))
                out_scale = float(F32(np.exp(rng.uniform(np.log(0.02), np.log(0.3)))))
                a_zp = int(rng.integers(60, 128)) if depthwise else int(rng.integers(0, 256))
                out_zp = int(rng.integers(0, 128))
                x_shape = (spatial[0], cin) if dims == 0 else (1, cin) + spatial
                x = rng.integers(0, 128 if depthwise else 256, size=x_shape).astype(np.uint8)
                w_shape = (cout, cin) if dims == 0 else (cout, cin // groups) + (k,) * dims
                w = rng.integers(-128, 128, size=w_shape).astype(np.int8)
                pad = 0 if dims == 0 else k // 2
                xd = torch.from_numpy(x.astype(np.float64) - a_zp)
                wd = torch.from_numpy(w.astype(np.float64))
                if dims == 0:
                    acc = (xd @ wd.T).numpy().astype(np.int64)
                else:
                    conv = getattr(torch.nn.functional, f"conv{dims}d")
                    acc = np.moveaxis(conv(xd, wd, padding=pad, groups=groups).numpy().astype(np.int64), 1, -1)
                atws = (F32(a_scale) * np.broadcast_to(w_scales.astype(F32), (cout,))).astype(F32)
                multiplier = (atws / F32(out_scale)).astype(F32)
                flat = acc.reshape(-1, cout)
                bias = (np.array([_boundary_bias(flat[:, c], atws[c], multiplier[c], out_zp, relu, rng)
                                  for c in range(cout)], F32) if has_bias else np.zeros(cout, F32))
                qw = (torch._make_per_channel_quantized_tensor(torch.from_numpy(w), torch.from_numpy(w_scales),
                                                                torch.zeros(cout, dtype=torch.long), 0)
                      if per_channel else torch._make_per_tensor_quantized_tensor(torch.from_numpy(w),
                                                                                  float(w_scales[0]), 0))
                qx = torch._make_per_tensor_quantized_tensor(torch.from_numpy(x), a_scale, a_zp)
                if dims == 0:
                    m = nniq.LinearReLU(cin, cout, bias=has_bias) if relu else nnq.Linear(cin, cout, bias_=has_bias)
                else:
                    cls = getattr(nniq, f"ConvReLU{dims}d") if relu else getattr(nnq, f"Conv{dims}d")
                    m = cls(cin, cout, k, padding=pad, groups=groups, bias=has_bias)
                m.set_weight_bias(qw, torch.from_numpy(bias) if has_bias else None)
                m.scale, m.zero_point = out_scale, out_zp
                y = m(qx).int_repr().contiguous().numpy()
                y_last = y.astype(np.int64) if dims == 0 else np.moveaxis(y.astype(np.int64), 1, -1)
                # How many of PyTorch's integers each way of adding the bias misses.
                misses = {way: int((_requantize(f if has_bias else acc.astype(F32), multiplier, out_zp, relu)
                                    != y_last).sum())
                          for way, f in _bias_terms(bias, atws, acc.astype(F32)).items()}
                cases.append({
                    "name": f"{i - 1} {name}{' relu' if relu else ''} {'per-channel' if per_channel else 'per-tensor'}"
                            f"{'' if has_bias else ' no-bias'} ({path})",
                    "dims": dims, "relu": relu, "in_channels": cin, "out_channels": cout, "kernel": k,
                    "padding": pad, "groups": groups, "fbgemm_path": path, "x_int": arr(x), "a_scale": a_scale,
                    "a_zero_point": a_zp, "w_int": arr(w), "w_scales": arr(w_scales.astype(np.float64)),
                    "per_channel": per_channel, "bias": arr(bias) if has_bias else None, "out_scale": out_scale,
                    "out_zero_point": out_zp, "y": arr(y), "misses": misses,
                })
    return cases


def eager_conv_bn_relu_cases():
    """The eager flow on Conv1d(4, 8, 5) + BatchNorm1d + ReLU under 'fbgemm'
    (fuse_modules, the default fbgemm qconfig: HistogramObserver with
    reduce_range, per-channel weights; prepare, calibrate, convert), 848
    outputs each. An independent run found one output of 848 a step off here:
    not the bias (per-channel weights divide, as qwasm does) but the
    calibration, whose float convolution sums in another order than qwasm's
    and moves the observed range, and the output scale with it, by an ulp
    (docs/numerics.md). So PyTorch's float outputs of the calibration are
    recorded, for qwasm's observer to see them as in eager_flow.json."""
    import torch.ao.quantization as tq
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(SEED + 59)
    cases = []
    for i in range(6):
        torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        m = torch.nn.Sequential(tq.QuantStub(), torch.nn.Conv1d(4, 8, 5), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                                tq.DeQuantStub())
        with torch.no_grad():
            bn = m[2]
            bn.running_mean.uniform_(-0.5, 0.5, generator=gen)
            bn.running_var.uniform_(0.5, 2.0, generator=gen)
            bn.weight.uniform_(0.5, 1.5, generator=gen)
            bn.bias.uniform_(-0.5, 0.5, generator=gen)
        m.eval()
        params = {k: arr(v.detach().numpy()) for k, v in m.state_dict().items() if v.dtype == torch.float32}
        fused = tq.fuse_modules(m, [["1", "2", "3"]])
        fused.qconfig = tq.get_default_qconfig("fbgemm")
        prepared = tq.prepare(fused)
        calibration = [torch.randn(1, 4, 110, generator=gen) for _ in range(3)]
        with torch.no_grad():
            for c in calibration:
                prepared(c)
            calibration_output = [prepared[1](c) for c in calibration]  # what the output observer saw
        converted = tq.convert(prepared)
        x = torch.randn(1, 4, 110, generator=gen)
        qx = converted[0](x)
        qmod = converted[1]
        y = qmod(qx)
        cases.append({
            "name": f"eager Conv1d 4->8 k5 + BatchNorm1d + ReLU, seed {i}", "params": params,
            "calibration": [arr(c.numpy()) for c in calibration],
            "calibration_output": [arr(c.numpy()) for c in calibration_output], "x": arr(x.numpy()),
            "in_scale": float(qx.q_scale()), "in_zero_point": int(qx.q_zero_point()),
            "out_scale": float(qmod.scale), "out_zero_point": int(qmod.zero_point),
            "w_int": arr(qmod.weight().int_repr().numpy()),
            "w_scales": arr(qmod.weight().q_per_channel_scales().numpy().astype(np.float64)),
            "y_int": arr(y.int_repr().numpy()),
        })
    return cases
