"""conv_transpose_int8.json (and conv_transpose_int8_x86.json): quantized transposed convolutions
from PyTorch's eager flow (nnq.ConvTranspose1d / 2d / 3d, exported/conv_transpose_int8_*.qwasm.safetensors),
bit for bit.

Each case is a model QuantStub -> [Conv + ReLU ->] ConvTransposeNd [-> ConvTransposeNd] -> DeQuantStub
prepared with a per-tensor weight observer (PyTorch's FBGEMM refuses per-channel transposed convs),
calibrated and converted: strides 1 to 3, paddings, output paddings, groups (depthwise included, with
activations up to 255 and weights near 127, where FBGEMM's depthwise fast path would saturate int16 tap
pairs: it never takes transposed convs, and the sums are exact), dilations, no bias, weights with a zero
point. Under the x86 engine PyTorch packs a transposed conv for FBGEMM when its weights
are asymmetric or it has an output padding, and for oneDNN otherwise; the x86 file holds the first kind
and records that the exporter refuses the second (`refused`).
"""
import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path

nn = torch.nn


def _cases():
    CT1, CT2, CT3 = nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d
    # (name, layers, input shape, weight zero point wanted: affine weights)
    return [
        ("1d k3 s2 p1 op1", [CT1(3, 4, 3, stride=2, padding=1, output_padding=1)], (2, 3, 9), True),
        ("1d k4 s3 p2 d2 op2 groups 2 no bias",
         [CT1(4, 6, 4, stride=3, padding=2, dilation=2, output_padding=2, groups=2, bias=False)], (1, 4, 6), False),
        ("2d k2 s2 (U-Net upsampling)", [CT2(4, 5, 2, stride=2)], (1, 4, 5, 6), True),
        ("2d k(3,2) s(2,3) p(1,0) op(1,2) groups 2",
         [CT2(6, 4, (3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2)], (2, 6, 4, 5), False),
        ("2d k5 s1 p2 d(1,2) no bias", [CT2(3, 2, 5, padding=2, dilation=(1, 2), bias=False)], (1, 3, 6, 7), True),
        ("2d depthwise k3 s1 p1 (large values: no pair saturation)", [CT2(8, 8, 3, padding=1, groups=8)], (1, 8, 6, 6), False),
        ("2d depthwise k3 s2 p1 op1", [CT2(8, 8, 3, stride=2, padding=1, output_padding=1, groups=8)],
         (1, 8, 5, 5), True),
        ("3d k2 s2 (U-Net upsampling)", [CT3(4, 3, 2, stride=2)], (1, 4, 3, 4, 5), False),
        ("3d k3 s2 p1 op1 (MONAI's transposed Convolution)", [CT3(4, 4, 3, stride=2, padding=1, output_padding=1)],
         (1, 4, 3, 4, 3), True),
        ("3d k(3,1,2) s(1,2,3) p(1,0,1) d(2,1,1) op(1,1,2) groups 3",
         [CT3(6, 9, (3, 1, 2), stride=(1, 2, 3), padding=(1, 0, 1), dilation=(2, 1, 1), output_padding=(1, 1, 2),
              groups=3)], (2, 6, 3, 4, 3), False),
        ("3d depthwise k3 s1 p1 (large values: no pair saturation)", [CT3(8, 8, 3, padding=1, groups=8)], (1, 8, 4, 4, 4), False),
        ("3d 32 channels k3 s2 p1 op1", [CT3(32, 4, 3, stride=2, padding=1, output_padding=1)], (1, 32, 3, 3, 3),
         True),
        ("3d padding past the kernel", [CT3(2, 3, 2, stride=1, padding=1)], (1, 2, 4, 3, 5), True),
        ("3d decoder: k2 s2 then k3 s2 p1 op1",
         [CT3(4, 4, 2, stride=2), CT3(4, 2, 3, stride=2, padding=1, output_padding=1)], (1, 4, 2, 3, 2), False),
    ]


class _Model(nn.Module):
    def __init__(self, layers):
        super().__init__()
        from torch.ao.quantization import DeQuantStub, QuantStub
        self.quant = QuantStub()
        self.layers = nn.Sequential(*layers)
        self.dequant = DeQuantStub()

    def forward(self, x):
        return self.dequant(self.layers(self.quant(x)))


def _qconfig(affine):
    from torch.ao.quantization import HistogramObserver, MinMaxObserver, QConfig
    weight = MinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_tensor_affine if affine
                                      else torch.per_tensor_symmetric)
    return QConfig(activation=HistogramObserver.with_args(reduce_range=False), weight=weight)


def _saturating(m, rng):
    """Weights near +-127, mostly of one sign, for inputs up to 255: FBGEMM's depthwise kernel would saturate
    its int16 pair sums on a regular conv here; a transposed conv sums exactly."""
    with torch.no_grad():
        w = rng.uniform(0.8, 1.0, m.weight.shape) * np.where(rng.uniform(size=m.weight.shape) < 0.85, 1, -1)
        m.weight.copy_(torch.from_numpy(w.astype(np.float32)))


def conv_transpose_int8_cases(engine="fbgemm"):
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from qwasm_format import ExportError
    from torch.ao.quantization import convert, prepare
    torch.set_num_threads(1)
    torch.manual_seed(SEED % 1000 + 85)
    rng = np.random.default_rng(SEED + 85)
    cases, refused = [], []
    for i, (name, layers, shape, affine) in enumerate(_cases()):
        m = _Model(layers).eval()
        saturating = "saturating" in name
        if saturating:
            for layer in layers:
                _saturating(layer, rng)
        lo, hi = (0, 4) if saturating else (-3, 3)
        m.qconfig = _qconfig(affine)
        prepare(m, inplace=True)
        for _ in range(3):
            m(torch.from_numpy(rng.uniform(lo, hi, shape).astype(np.float32)))
        convert(m, inplace=True)
        x = torch.from_numpy(rng.uniform(lo, hi, shape).astype(np.float32))
        file = f"exported/conv_transpose_int8_{engine}_{i}.qwasm.safetensors"
        try:
            export(m, x, output_path(file))
        except ExportError as e:
            assert engine == "x86" and "oneDNN" in str(e), e
            refused.append(name)
            continue
        y = m(x)
        # The case can fail: outputs must not all be clamped.
        q = m.layers(m.quant(x)).int_repr()
        assert 0 < (q > 0).float().mean() and (q < 255).float().mean() > 0.5, name
        cases.append({"name": name, "file": file, "x": arr(x.numpy()), "y": arr(y.numpy())})
    if engine == "x86":
        assert refused, "the x86 engine packs a transposed conv with symmetric weights and no output padding for oneDNN"
        cases.append({"name": "refused: packed for oneDNN", "refused": refused})
    return cases
