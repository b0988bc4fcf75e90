"""conv_transpose.json: float transposed convolutions in exported models
(exported/conv_transpose_*.qwasm.safetensors), from PyTorch 2.15.

- "layer: ..." cases: one nn.ConvTranspose1d / 2d / 3d each, exported by the
  eager (torch.fx) flow, across strides, paddings, output paddings, groups,
  dilations, with and without bias, batched and unbatched. Each holds
  PyTorch's float32 output `y`, the same layer in float64 (`y64`: the exact
  sum to about 1e-16) and `yabs`, the float64 layer on |x|, |W| and |b| (the
  sum of the terms' magnitudes: what a float sum's error scales with), and
  `terms`, the most terms one output sums (bias included).
- "decoder: ..." cases: a U-Net decoder block built from MONAI's blocks
  (monai.networks.blocks.Convolution with is_transposed=True, kernel 3,
  stride 2, padding 1, output padding 1, then BatchNorm and ReLU; a skip
  connection concatenated; a conv), in float through the eager flow and
  through torch.export (aten.conv_transpose3d.input); and a PT2E graph
  quantized with QwasmQuantizer (`y` PyTorch's).
- "pt2e: ..." cases: one transposed conv [+ ReLU] quantized by PT2E
  (QwasmQuantizer: int8, weights per output channel; XNNPACKQuantizer's
  per-input-channel weights: float), `scale` the output's.
- "monai: ..." cases: MONAI's UNet and DynUNet (BatchNorm and ReLU), small,
  in float (torch.export) and int8 (PT2E with QwasmQuantizer).
"""
import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path

nn = torch.nn

# (name, module, input shape): each a single layer.
def _layers():
    CT1, CT2, CT3 = nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d
    return [
        ("1d k3 s2 p1 op1", CT1(3, 4, 3, stride=2, padding=1, output_padding=1), (2, 3, 7)),
        ("1d k4 s3 p2 d2 op2 groups 2 no bias",
         CT1(4, 6, 4, stride=3, padding=2, dilation=2, output_padding=2, groups=2, bias=False), (1, 4, 5)),
        ("2d k2 s2 (U-Net upsampling)", CT2(4, 5, 2, stride=2), (1, 4, 5, 6)),
        ("2d k(3,2) s(2,3) p(1,0) op(1,2) groups 2",
         CT2(6, 4, (3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2), (2, 6, 4, 5)),
        ("2d k5 s1 p2 d(1,2) no bias", CT2(3, 2, 5, padding=2, dilation=(1, 2), bias=False), (1, 3, 6, 7)),
        ("2d unbatched k3 s2", CT2(3, 4, 3, stride=2), (3, 5, 4)),
        ("2d depthwise k3 s2 p1 op1 groups 4", CT2(4, 4, 3, stride=2, padding=1, output_padding=1, groups=4),
         (1, 4, 5, 5)),
        ("3d k2 s2 (U-Net upsampling)", CT3(4, 3, 2, stride=2), (1, 4, 3, 4, 5)),
        ("3d k3 s2 p1 op1 (MONAI's transposed Convolution)",
         CT3(4, 4, 3, stride=2, padding=1, output_padding=1), (1, 4, 3, 4, 3)),
        ("3d k(3,1,2) s(1,2,3) p(1,0,1) d(2,1,1) op(1,1,2) groups 3",
         CT3(6, 9, (3, 1, 2), stride=(1, 2, 3), padding=(1, 0, 1), dilation=(2, 1, 1), output_padding=(1, 1, 2),
             groups=3), (2, 6, 3, 4, 3)),
        ("3d 32 channels k3 s2 p1 op1 (long sums)", CT3(32, 2, 3, stride=2, padding=1, output_padding=1),
         (1, 32, 4, 4, 4)),
        ("3d padding past the kernel: output smaller than the input", CT3(2, 3, 2, stride=1, padding=1),
         (1, 2, 4, 3, 5)),
    ]


def _abs_layer(m):
    """The layer in float64 on |W| and |b|."""
    a = type(m)(m.in_channels, m.out_channels, m.kernel_size, stride=m.stride, padding=m.padding,
                output_padding=m.output_padding, groups=m.groups, bias=m.bias is not None,
                dilation=m.dilation).double()
    with torch.no_grad():
        a.weight.copy_(m.weight.double().abs())
        if m.bias is not None:
            a.bias.copy_(m.bias.double().abs())
    return a


def _layer_cases(export, rng):
    cases = []
    for i, (name, m, shape) in enumerate(_layers()):
        m = m.eval()
        with torch.no_grad():  # weights of varied magnitudes, so sums cancel and rounding shows
            m.weight.copy_(torch.from_numpy(rng.standard_normal(m.weight.shape).astype(np.float32)))
            if m.bias is not None:
                m.bias.copy_(torch.from_numpy(rng.standard_normal(m.bias.shape).astype(np.float32)))
        x = torch.from_numpy(rng.uniform(-3, 3, shape).astype(np.float32))
        file = f"exported/conv_transpose_{i}.qwasm.safetensors"
        export(nn.Sequential(m), x, output_path(file))  # (the root module is traced through: a leaf inside)
        with torch.no_grad():
            y = m(x)
            y64 = m.double()(x.double())
            yabs = _abs_layer(m)(x.double().abs())
            m.float()
        k = int(np.prod(m.kernel_size))
        cases.append({"name": f"layer: {name}", "file": file, "x": arr(x.numpy()), "y": arr(y.numpy()),
                      "y64": arr(y64.numpy()), "yabs": arr(yabs.numpy()),
                      "terms": (m.in_channels // m.groups) * k + 1})
    return cases


class _Decoder(nn.Module):
    """A U-Net decoder block of MONAI's blocks: upsample by a transposed conv (+ BatchNorm, ReLU),
    add the skip connection, convolve."""

    def __init__(self):
        super().__init__()
        from monai.networks.blocks import Convolution
        self.enc = Convolution(3, 2, 4, kernel_size=3, act="relu", norm="batch")
        self.down = Convolution(3, 4, 4, strides=2, kernel_size=3, act="relu", norm="batch")
        self.up = Convolution(3, 4, 4, strides=2, kernel_size=3, act="relu", norm="batch", is_transposed=True)
        self.up2 = nn.ConvTranspose3d(4, 2, 2, stride=2)  # UNet's kernel 2 stride 2 flavour
        self.merge = Convolution(3, 4, 2, kernel_size=3, act="relu", norm="batch")
        self.head = nn.Conv3d(2, 2, 1)

    def forward(self, x):
        skip = self.enc(x)
        low = self.down(skip)  # half the size
        y = self.merge(self.up(low) + skip)  # (the eager flow has no float cat: the skip is added)
        return self.head(y + self.up2(low))


def _decoder(rng):
    torch.manual_seed(SEED % 1000 + 90)
    m = _Decoder().eval()
    with torch.no_grad():  # BatchNorm statistics that are not the identity
        for bn in (mod for mod in m.modules() if isinstance(mod, nn.BatchNorm3d)):
            bn.running_mean.copy_(torch.from_numpy(rng.uniform(-0.2, 0.2, bn.num_features).astype(np.float32)))
            bn.running_var.copy_(torch.from_numpy(rng.uniform(0.5, 2, bn.num_features).astype(np.float32)))
    return m


def _decoder_cases(export, rng):
    add_to_path("..", "..", "python")
    from .pt2e import _quantizer, pt2e_convert
    cases = []
    shape = (1, 2, 6, 8, 4)
    x = torch.from_numpy(rng.uniform(-2, 2, shape).astype(np.float32))

    m = _decoder(rng)
    file = "exported/conv_transpose_decoder.qwasm.safetensors"
    export(m, x, output_path(file))
    with torch.no_grad():
        cases.append({"name": "decoder: MONAI blocks, float, eager flow", "file": file, "x": arr(x.numpy()),
                      "y": arr(m(x).numpy()), "y64": arr(m.double()(x.double()).numpy())})
        m.float()

    ep = torch.export.export(m, (x,))
    file = "exported/conv_transpose_decoder_export.qwasm.safetensors"
    export(ep, x, output_path(file))
    with torch.no_grad():
        cases.append({"name": "decoder: MONAI blocks, float, torch.export", "file": file, "x": arr(x.numpy()),
                      "y": arr(ep.module()(x).numpy()), "y64": arr(m.double()(x.double()).numpy())})
        m.float()

    calibration = [torch.from_numpy(rng.uniform(-2, 2, shape).astype(np.float32)) for _ in range(4)]
    q = pt2e_convert(m, _quantizer("qwasm"), calibration)
    file = "exported/conv_transpose_decoder_pt2e.qwasm.safetensors"
    export(q, x, output_path(file))
    with torch.no_grad():
        cases.append({"name": "decoder: MONAI blocks, PT2E with QwasmQuantizer",
                      "file": file, "x": arr(x.numpy()), "y": arr(q(x).numpy())})
    return cases


def _pt2e_layer_cases(export, rng):
    """One transposed conv [+ ReLU] quantized by PT2E: its output is the layer's own integers."""
    add_to_path("..", "..", "python")
    from .pt2e import _quantizer, pt2e_convert
    CT2, CT3 = nn.ConvTranspose2d, nn.ConvTranspose3d
    layers = [
        ("QwasmQuantizer, 3d k2 s2", "qwasm", nn.Sequential(CT3(4, 6, 2, stride=2)), (1, 4, 3, 4, 3)),
        ("QwasmQuantizer, 3d k3 s2 p1 op1 groups 2 + ReLU", "qwasm",
         nn.Sequential(CT3(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2), nn.ReLU()), (1, 4, 3, 3, 4)),
        ("QwasmQuantizer, 2d k(3,2) s(2,3) p(1,0) op(1,2) d(1,2)", "qwasm",
         nn.Sequential(CT2(3, 5, (3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2), dilation=(1, 2))),
         (1, 3, 5, 4)),
        # XNNPACKQuantizer quantizes a transposed conv + ReLU with weights per input channel (its ch_axis 0):
        # no one requantization computes that, so qwasm runs the layer in float between quantize nodes.
        ("XNNPACKQuantizer, 2d k3 s2 + ReLU (per input channel: float)", "xnnpack",
         nn.Sequential(CT2(4, 4, 3, stride=2), nn.ReLU()), (1, 4, 5, 5)),
    ]
    cases = []
    for i, (name, quantizer, m, shape) in enumerate(layers):
        m = m.eval()
        calibration = [torch.from_numpy(rng.uniform(-2, 2, shape).astype(np.float32)) for _ in range(4)]
        q = pt2e_convert(m, _quantizer(quantizer), calibration)
        x = torch.from_numpy(rng.uniform(-2, 2, shape).astype(np.float32))
        file = f"exported/conv_transpose_pt2e_{i}.qwasm.safetensors"
        export(q, x, output_path(file))
        with torch.no_grad():
            cases.append({"name": f"pt2e: {name}", "file": file, "x": arr(x.numpy()), "y": arr(q(x).numpy()),
                          "scale": _output_scale(q)})
    return cases


def _output_scale(q):
    """The scale of a converted PT2E graph's last quantize node (its output's)."""
    return float([n for n in q.graph.nodes if n.op == "call_function" and "quantize_per_tensor" in str(n.target)
                  and "dequantize" not in str(n.target)][-1].args[1])


def _monai_cases(export, rng):
    """MONAI's UNet and DynUNet (BatchNorm and ReLU: qwasm has no InstanceNorm / PReLU yet), small, their
    decoders' transposed convs int8 through PT2E with QwasmQuantizer, and float through torch.export."""
    add_to_path("..", "..", "python")
    from monai.networks.nets import DynUNet, UNet
    from .pt2e import _quantizer, pt2e_convert
    torch.manual_seed(SEED % 1000 + 95)
    nets = [("UNet (8, 16, 32), strides 2", UNet(3, 1, 2, (8, 16, 32), (2, 2), act="relu", norm="batch")),
            ("DynUNet [3, 3, 3], strides [1, 2, 2]",
             DynUNet(3, 1, 2, [3, 3, 3], [1, 2, 2], [2, 2], filters=[8, 16, 32], norm_name="batch",
                     act_name="relu"))]
    shape = (1, 1, 16, 16, 16)
    cases = []
    for i, (name, m) in enumerate(nets):
        m = m.eval()
        with torch.no_grad():
            for bn in (mod for mod in m.modules() if isinstance(mod, nn.BatchNorm3d)):
                bn.running_mean.copy_(torch.from_numpy(rng.uniform(-0.2, 0.2, bn.num_features).astype(np.float32)))
                bn.running_var.copy_(torch.from_numpy(rng.uniform(0.5, 2, bn.num_features).astype(np.float32)))
        x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
        ep = torch.export.export(m, (x,))
        file = f"exported/conv_transpose_monai_{i}_float.qwasm.safetensors"
        export(ep, x, output_path(file))
        with torch.no_grad():
            cases.append({"name": f"monai: {name}, float, torch.export", "file": file, "x": arr(x.numpy()),
                          "y": arr(m(x).numpy())})
        calibration = [torch.from_numpy(rng.standard_normal(shape).astype(np.float32)) for _ in range(4)]
        q = pt2e_convert(m, _quantizer("qwasm"), calibration)
        file = f"exported/conv_transpose_monai_{i}_pt2e.qwasm.safetensors"
        export(q, x, output_path(file))
        with torch.no_grad():
            cases.append({"name": f"monai: {name}, PT2E with QwasmQuantizer", "file": file, "x": arr(x.numpy()),
                          "y": arr(q(x).numpy()), "scale": _output_scale(q)})
    return cases


def conv_transpose_cases():
    add_to_path("..", "..", "python")
    from qwasm_export import export
    torch.set_num_threads(1)
    torch.manual_seed(SEED % 1000 + 80)
    rng = np.random.default_rng(SEED + 80)
    return (_layer_cases(export, rng) + _decoder_cases(export, rng) + _pt2e_layer_cases(export, rng)
            + _monai_cases(export, rng))
