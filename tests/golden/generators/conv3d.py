"""conv3d.json / conv3d_x86.json: quantized Conv3d and ConvReLU3d."""

import numpy as np
import torch

from .common import SEED, arr, conv_backend


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
        # Symmetric padding goes to the module, as a user writes it: FBGEMM's
        # depthwise fast path needs it (and saturates int16 tap pairs there,
        # docs/numerics.md); on every other path the integers are those of the
        # hand-padded input.
        symmetric = pad_begin == pad_end
        qconv = cls(cin, cout, kernel, stride=stride, padding=pad_begin if symmetric else 0, dilation=dilation,
                    groups=groups, bias=bias)
        qconv.set_weight_bias(qw, fconv.bias.detach() if bias else None)
        qconv.scale = o_scale
        qconv.zero_point = int(o_zp)
        qy = qconv(qx if symmetric else qx_padded)
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
