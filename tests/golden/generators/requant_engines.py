"""requant_engines.json: the same convolutions under 'x86' and 'fbgemm'."""

import numpy as np
import torch

from .common import SEED, arr, conv_backend


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
