"""brainchop's MeshNet (Fedorov et al. 2017), as issue 33 specifies it: eight dilated 3x3x3 Conv3d +
BatchNorm3d + ReLU at full resolution (padding = dilation, so every layer keeps the volume's size),
dilations 1,1,1,2,4,8,1,1, then a 1x1x1 conv to the classes. Also the eager flow's wrapping (fusion,
QuantStub / DeQuantStub), as tests/golden/generators/zoo3d.py does it for the zoo's MeshNet."""
import torch
from torch import nn

DILATIONS = (1, 1, 1, 2, 4, 8, 1, 1)
CHANNELS = 21
CLASSES = ("background", "grey matter", "white matter")
# How far (in voxels, along each axis) an output voxel sees: the sum of the dilations (3x3x3 kernels).
HALO = sum(DILATIONS)


class MeshNet(nn.Module):
    def __init__(self, channels=CHANNELS, classes=len(CLASSES), dilations=DILATIONS):
        super().__init__()
        layers, cin = [], 1
        for d in dilations:
            layers += [nn.Conv3d(cin, channels, 3, padding=d, dilation=d), nn.BatchNorm3d(channels), nn.ReLU()]
            cin = channels
        self.body = nn.Sequential(*layers)
        self.classifier = nn.Conv3d(channels, classes, 1)

    def forward(self, x):
        return self.classifier(self.body(x))


class Stubbed(nn.Module):
    """The eager flow's model: QuantStub, the fused MeshNet, DeQuantStub."""

    def __init__(self, model):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.model = model
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        return self.dequant(self.model(self.quant(x)))


def fuse(model):
    """Conv3d + BatchNorm3d + ReLU -> ConvReLU3d (BatchNorm folded), in place; the model in eval mode."""
    body = model.eval().body
    groups = [[str(i), str(i + 1), str(i + 2)] for i in range(0, len(body), 3)]
    torch.ao.quantization.fuse_modules(body, groups, inplace=True)
    return model
