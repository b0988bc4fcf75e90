"""onednn_scale.json: quantized convolutions under the 'x86' engine (oneDNN,
symmetric per-channel weights) whose outputs sit where the way oneDNN applies
the source and weight scales decides the integer (docs/numerics.md,
"Quantized convolution under the x86 engine"). PyTorch's integers here depend
on the CPU: oneDNN's AVX-512 VNNI kernels multiply the int32 accumulator by
the source scale, then by the weight scale; its AMX kernels by
src_scale * wei_scale[oc], precomputed as one float (cpu/scale_utils.cpp
precompute_scales). The two differ where the product lands on a rounding
halfway point. Each case is run by PyTorch twice, in child processes capped
at each ISA (ONEDNN_MAX_CPU_ISA), and records both outputs."""

import json
import os
import subprocess
import sys

import numpy as np
import torch

from .common import SEED, arr

F32 = np.float32


def _requantize(acc, src, w_scale, bias, dst, zp, relu, combined):
    """oneDNN's epilogue in float32, the scale as one product (combined) or as two in a row."""
    f = acc.astype(F32)
    f = (f * (src * w_scale).astype(F32)).astype(F32) if combined else ((f * src).astype(F32) * w_scale).astype(F32)
    f = (f + bias).astype(F32)
    if relu:
        f = np.where(f < 0, F32(0), f)
    f = ((f * dst).astype(F32) + F32(zp)).astype(F32)
    return np.rint(np.clip(f, 0, 255)).astype(np.int64)


def _halfway_scale(acc, src, bias, dst, zp, relu, rng, tries=4000, rounds=25):
    """A weight scale for one channel (acc: its accumulators) where the two ways disagree on some
    output, found by brute force among random scales near 3e-4 (the most disagreements; the last
    candidate drawn when none disagrees)."""
    for _ in range(rounds):
        cands = np.exp(rng.uniform(np.log(2e-4), np.log(5e-4), size=tries)).astype(F32)
        a = _requantize(acc[None, :], src, cands[:, None], bias, dst, zp, relu, True)
        b = _requantize(acc[None, :], src, cands[:, None], bias, dst, zp, relu, False)
        score = (a != b).sum(axis=1)
        if score.max() > 0:
            break
    return cands[int(np.argmax(score))]


ISAS = ("AVX512_CORE_VNNI", "AVX512_CORE_AMX")


def _cpu_has_amx():
    try:
        with open("/proc/cpuinfo") as f:
            return "amx_int8" in f.read().split()
    except OSError:
        return False


def _run_capped(isa, layer):
    """PyTorch's output integers of `layer` (the arrays of one case) in a child process whose oneDNN is
    capped at `isa`: the cap is read once, when oneDNN starts."""
    golden = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = ("import json, sys; sys.path.insert(0, %r); from generators.onednn_scale import _conv_output; "
            "print(json.dumps(_conv_output(json.loads(sys.stdin.read()))))") % golden
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA=isa)
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(layer), capture_output=True, text=True,
                         env=env, check=True)
    return np.array(json.loads(out.stdout.strip().splitlines()[-1]), np.int64)


def _conv_output(layer):
    """The case's Conv3d / ConvReLU3d under 'x86' on its input: the output integers (a flat list)."""
    import torch.ao.nn.intrinsic.quantized as nniq
    import torch.ao.nn.quantized as nnq
    torch.backends.quantized.engine = "x86"
    torch.set_num_threads(1)
    w = np.array(layer["w"], np.int8).reshape(layer["w_shape"])
    x = np.array(layer["x"], np.uint8).reshape(layer["x_shape"])
    cout = w.shape[0]
    qw = torch._make_per_channel_quantized_tensor(torch.from_numpy(w), torch.tensor(layer["w_scales"], dtype=torch.float64),
                                                  torch.zeros(cout, dtype=torch.long), 0)
    qx = torch._make_per_tensor_quantized_tensor(torch.from_numpy(x), layer["a_scale"], layer["a_zp"])
    m = (nniq.ConvReLU3d if layer["relu"] else nnq.Conv3d)(w.shape[1], cout, w.shape[2], padding=1,
                                                            bias=layer["bias"] is not None)
    m.set_weight_bias(qw, torch.tensor(layer["bias"], dtype=torch.float32) if layer["bias"] is not None else None)
    m.scale, m.zero_point = layer["out_scale"], layer["out_zp"]
    return m(qx).int_repr().contiguous().numpy().reshape(-1).tolist()


def onednn_scale_cases():
    """Conv3d / ConvReLU3d 21 -> 8 channels, 3x3x3, padding 1, on [1, 21, 6, 8, 8] (MeshNet's layer
    shape, where an independent check found the difference: docs/numerics.md), with and without a
    bias. Random integers, input and output scales; each channel's weight scale searched (fixed seed)
    so that the layer holds outputs where the two ways of applying the scales give different integers.
    Each case holds PyTorch's output under each ISA (`y_by_isa`) and, per ISA, `misses`: for each way
    ("separate": the accumulator times the source scale, then the weight scale, qwasm's; "combined":
    times their product as one float), the outputs where it differs from PyTorch's integer.
    `cpu_has_amx` says whether this machine could run the AMX kernels (else the AMX cap runs VNNI's)."""
    assert torch.backends.quantized.engine == "x86", "write this family under the x86 engine (generate.py)"
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 67)
    cin, cout, k, spatial = 21, 8, 3, (6, 8, 8)
    cases = []
    for i, (relu, has_bias) in enumerate([(True, True), (False, True), (True, False), (False, False)]):
        a_scale = float(F32(np.exp(rng.uniform(np.log(5e-3), np.log(2e-2)))))
        out_scale = float(F32(np.exp(rng.uniform(np.log(2e-3), np.log(1e-2)))))
        a_zp = int(rng.integers(0, 32))
        out_zp = 0 if relu else int(rng.integers(0, 128))
        x = rng.integers(0, 256, size=(1, cin) + spatial).astype(np.uint8)
        w = rng.integers(-128, 128, size=(cout, cin, k, k, k)).astype(np.int8)
        bias = rng.normal(0, 0.05, size=cout).astype(F32) if has_bias else np.zeros(cout, F32)
        acc = torch.nn.functional.conv3d(torch.from_numpy(x.astype(np.float64) - a_zp),
                                         torch.from_numpy(w.astype(np.float64)), padding=1).numpy().astype(np.int64)
        acc = np.moveaxis(acc, 1, -1).reshape(-1, cout)
        # PyTorch hands oneDNN 1 / scale (double, then float); oneDNN inverts it in float.
        src = F32(1.0) / F32(1.0 / a_scale)
        dst = F32(1.0) / (F32(1.0) / F32(1.0 / out_scale))
        w_scales = np.array([_halfway_scale(acc[:, c], src, bias[c], dst, out_zp, relu, rng) for c in range(cout)],
                            F32)
        layer = {"w": w.reshape(-1).tolist(), "w_shape": list(w.shape), "x": x.reshape(-1).tolist(),
                 "x_shape": list(x.shape), "w_scales": w_scales.astype(np.float64).tolist(), "a_scale": a_scale,
                 "a_zp": a_zp, "bias": bias.tolist() if has_bias else None, "out_scale": out_scale,
                 "out_zp": out_zp, "relu": relu}
        y_by_isa, misses = {}, {}
        for isa in ISAS:
            y = _run_capped(isa, layer).reshape((1, cout) + spatial)
            y_last = np.moveaxis(y, 1, -1).reshape(-1, cout)
            y_by_isa[isa] = arr(y.astype(np.uint8))
            misses[isa] = {way: int((_requantize(acc, src, w_scales[None, :], bias[None, :], dst, out_zp, relu,
                                                 way == "combined") != y_last).sum())
                           for way in ("separate", "combined")}
        cases.append({
            "name": f"{i} Conv3d{' + ReLU' if relu else ''} 21->8 k3 pad1{'' if has_bias else ' no-bias'}",
            "dims": 3, "relu": relu, "in_channels": cin, "out_channels": cout, "kernel": k, "padding": 1,
            "groups": 1, "x_int": arr(x), "a_scale": a_scale, "a_zero_point": a_zp, "w_int": arr(w),
            "w_scales": arr(w_scales.astype(np.float64)), "per_channel": True,
            "bias": arr(bias) if has_bias else None, "out_scale": out_scale, "out_zero_point": out_zp,
            "y_by_isa": y_by_isa, "misses": misses, "cpu_has_amx": _cpu_has_amx(),
        })
    return cases
