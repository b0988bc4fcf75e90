"""brainchop's MeshNet (Fedorov et al. 2017), as issue 33 specifies it: eight dilated 3x3x3 Conv3d +
BatchNorm3d + ReLU at full resolution (padding = dilation, so every layer keeps the volume's size),
dilations 1,1,1,2,4,8,1,1, then a 1x1x1 conv to the classes. Also the eager flow's wrapping (fusion,
QuantStub / DeQuantStub), as tests/golden/generators/zoo3d.py does it for the zoo's MeshNet."""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "tests", "models"))
from zoo3d_models import MeshNet as ZooMeshNet  # noqa: E402

DILATIONS = (1, 1, 1, 2, 4, 8, 1, 1)
CHANNELS = 21
CLASSES = ("background", "grey matter", "white matter")
# How far (in voxels, along each axis) an output voxel sees: the sum of the dilations (3x3x3 kernels).
HALO = sum(DILATIONS)


class MeshNet(ZooMeshNet):
    """The zoo's MeshNet (tests/models/zoo3d_models.py) at brainchop's size: 21 channels, the eighth
    dilated layer, 3 classes."""

    def __init__(self, channels=CHANNELS, classes=len(CLASSES), dilations=DILATIONS):
        super().__init__(channels, classes, dilations)


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
