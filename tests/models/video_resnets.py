"""torchvision's video ResNets (r3d_18, mc3_18, r2plus1d_18) at reduced widths,
made quantizable by python/qwasm_video.py. `width_div` divides every channel
count (torchvision's widths for 1), for goldens small enough to commit.

Used by tests/golden/generate.py (the committed reduced-width goldens),
scripts/verify-torch.py (the full-size check) and bench/model.bench.mjs's
export step. Random initialisation with a fixed seed: nothing is downloaded.
"""
import os
import sys

import torch
from torch import nn
from torch.ao.quantization import convert, get_default_qconfig, prepare
from torchvision.models.video import resnet as tv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from qwasm_video import quantizable_video_resnet  # noqa: E402

ARCHS = ("r3d_18", "mc3_18", "r2plus1d_18")


def _conv_makers(arch):
    return {"r3d_18": [tv.Conv3DSimple] * 4, "mc3_18": [tv.Conv3DSimple] + [tv.Conv3DNoTemporal] * 3,
            "r2plus1d_18": [tv.Conv2Plus1D] * 4}[arch]


class _ScaledVideoResNet(tv.VideoResNet):
    """tv.VideoResNet with every width divided by width_div (same blocks, strides, init)."""

    def __init__(self, arch, width_div, num_classes):
        nn.Module.__init__(self)
        widths = [64 // width_div, 128 // width_div, 256 // width_div, 512 // width_div]
        if arch == "r2plus1d_18":
            self.stem = nn.Sequential(
                nn.Conv3d(3, 45 // width_div, (1, 7, 7), (1, 2, 2), (0, 3, 3), bias=False),
                nn.BatchNorm3d(45 // width_div), nn.ReLU(inplace=True),
                nn.Conv3d(45 // width_div, widths[0], (3, 1, 1), (1, 1, 1), (1, 0, 0), bias=False),
                nn.BatchNorm3d(widths[0]), nn.ReLU(inplace=True))
        else:
            self.stem = nn.Sequential(
                nn.Conv3d(3, widths[0], (3, 7, 7), (1, 2, 2), (1, 3, 3), bias=False),
                nn.BatchNorm3d(widths[0]), nn.ReLU(inplace=True))
        self.inplanes = widths[0]
        makers = _conv_makers(arch)
        self.layer1 = self._make_layer(tv.BasicBlock, makers[0], widths[0], 2, stride=1)
        self.layer2 = self._make_layer(tv.BasicBlock, makers[1], widths[1], 2, stride=2)
        self.layer3 = self._make_layer(tv.BasicBlock, makers[2], widths[2], 2, stride=2)
        self.layer4 = self._make_layer(tv.BasicBlock, makers[3], widths[3], 2, stride=2)
        self.avgpool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(widths[3], num_classes)
        for m in self.modules():  # torchvision's init
            if isinstance(m, nn.Conv3d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm3d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.constant_(m.bias, 0)


def float_model(arch, width_div=1, num_classes=400, seed=0):
    """torchvision's float model (eval mode) at 1 / width_div of its widths."""
    torch.manual_seed(seed)
    return _ScaledVideoResNet(arch, width_div, num_classes).eval()


def lcg_clip(seed, shape):
    """A clip of values (byte - 128) / 64 from the LCG of tests/js/util.mjs
    (lcgBytes): exact in float32, so both sides build the same input."""
    count = 1
    for d in shape:
        count *= d
    out = torch.empty(count, dtype=torch.uint8)
    x = seed
    buf = bytearray(count)
    for i in range(count):
        x = (1103515245 * x + 12345) & 0x7FFFFFFF
        buf[i] = (x >> 16) & 0xFF
    out = torch.frombuffer(buf, dtype=torch.uint8).to(torch.float32)
    return ((out - 128) / 64).reshape(shape)


def eager_quantize(m, calibration, engine="fbgemm"):
    """PyTorch's eager flow on the fused model `m`, in place:
    get_default_qconfig(engine), prepare, calibration on `calibration` (a list
    of clips), convert. Run it under that quantized engine."""
    m.qconfig = get_default_qconfig(engine)
    prepare(m, inplace=True)
    with torch.no_grad():
        for clip in calibration:
            m(clip)
    convert(m, inplace=True)
    return m


def quantized_model(arch, width_div=1, num_classes=400, seed=0, calibration=None, engine="fbgemm"):
    """Fused, prepared with get_default_qconfig(engine) under that quantized
    engine, calibrated on `calibration` (a list of clips), converted."""
    torch.backends.quantized.engine = engine
    return eager_quantize(quantizable_video_resnet(float_model(arch, width_div, num_classes, seed)), calibration, engine)


def differing_weight(model, committed):
    """(count, path): how many of the converted `model`'s quantized weights a
    committed exported file holds, and the first whose integers differ there
    (None when all are equal): the file came from the same float model and
    calibration, or it did not."""
    checked = 0
    for path, m in model.named_modules():
        if hasattr(m, "weight") and callable(m.weight) and f"{path}.weight" in committed:
            if not torch.equal(m.weight().int_repr(), committed[f"{path}.weight"]):
                return checked, path
            checked += 1
    return checked, None
