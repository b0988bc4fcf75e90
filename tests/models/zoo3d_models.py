"""The 3D CNNs users bring, as the model zoo builds them: from their libraries' code (MONAI,
torchvision, pytorchvideo) or their papers (MeshNet, a 3D U-Net after Cicek et al., C3D), with
random weights (callers seed torch). Each has two sizes:

- `small`: the goldens' (tests/golden/generators/zoo3d.py), reduced widths where the library
  allows it so each exported file stays small; torchvision's S3D has fixed widths (8 M
  parameters), so its first blocks (through Mixed_4b) with S3D's own head stand for it there;
- `full`: the benchmark's (bench/zoo_prep.py), the sizes the libraries or papers document.
"""
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import numpy as np
import torch
from torch import nn


class MeshNet(nn.Module):
    """brainchop's MeshNet (Fedorov et al. 2017): dilated 3x3x3 Conv3d + BatchNorm + ReLU at full
    resolution, dilations 1,1,1,2,4,8,1, then a 1x1x1 conv to the classes."""

    def __init__(self, channels=8, classes=3, dilations=(1, 1, 1, 2, 4, 8, 1)):
        super().__init__()
        layers, cin = [], 1
        for d in dilations:
            layers += [nn.Conv3d(cin, channels, 3, padding=d, dilation=d), nn.BatchNorm3d(channels), nn.ReLU()]
            cin = channels
        self.body = nn.Sequential(*layers)
        self.classifier = nn.Conv3d(channels, classes, 1)

    def forward(self, x):
        return self.classifier(self.body(x))


class UNet3D(nn.Module):
    """A 3D U-Net after Cicek et al. 2016: two 3x3x3 conv + BatchNorm + ReLU per level, max pool
    down, a 2x2x2 stride-2 transposed conv up, skip connections by concatenation."""

    def __init__(self, cin=1, classes=3, widths=(8, 16, 32)):
        super().__init__()

        def block(a, b):
            return nn.Sequential(nn.Conv3d(a, b, 3, padding=1), nn.BatchNorm3d(b), nn.ReLU(),
                                 nn.Conv3d(b, b, 3, padding=1), nn.BatchNorm3d(b), nn.ReLU())

        self.down = nn.ModuleList()
        a = cin
        for w in widths:
            self.down.append(block(a, w))
            a = w
        self.pool = nn.MaxPool3d(2)
        self.up = nn.ModuleList()
        self.merge = nn.ModuleList()
        for w in reversed(widths[:-1]):
            self.up.append(nn.ConvTranspose3d(a, w, 2, stride=2))
            self.merge.append(block(2 * w, w))
            a = w
        self.head = nn.Conv3d(a, classes, 1)

    def forward(self, x):
        skips = []
        for i, block in enumerate(self.down):
            x = block(x)
            if i < len(self.down) - 1:
                skips.append(x)
                x = self.pool(x)
        for up, merge in zip(self.up, self.merge):
            x = merge(torch.cat([up(x), skips.pop()], 1))
        return self.head(x)


class C3D(nn.Module):
    """C3D (Tran et al. 2015): 3x3x3 convs + ReLU, max pools (the first 1x2x2, the last padded in H
    and W), two fully connected layers with ReLU and dropout, then the classifier. `widths` are the
    five stages' channels; `flat` the last pool's output size per channel."""

    def __init__(self, classes=10, widths=(16, 32, 64, 64, 128), hidden=128, flat=4):
        super().__init__()
        w = widths

        def conv(a, b):
            return [nn.Conv3d(a, b, 3, padding=1), nn.ReLU()]

        self.features = nn.Sequential(
            *conv(3, w[0]), nn.MaxPool3d((1, 2, 2)),
            *conv(w[0], w[1]), nn.MaxPool3d(2),
            *conv(w[1], w[2]), *conv(w[2], w[2]), nn.MaxPool3d(2),
            *conv(w[2], w[3]), *conv(w[3], w[3]), nn.MaxPool3d(2),
            *conv(w[3], w[4]), *conv(w[4], w[4]), nn.MaxPool3d(2, padding=(0, 1, 1)))
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(w[4] * flat, hidden), nn.ReLU(), nn.Dropout(0.5),
                                nn.Linear(hidden, classes))

    def forward(self, x):
        return self.fc(self.features(x))


def s3d_front(classes):
    """torchvision's S3D through Mixed_4b, with S3D's own head (AvgPool3d, Dropout, 1x1x1 conv, mean)."""
    from torchvision.models.video import s3d
    full = s3d(num_classes=classes)

    class Front(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = full.features[:9]  # through Mixed_4b (480 -> 512 channels)
            self.avgpool = nn.AvgPool3d((2, 4, 4), stride=1)
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Conv3d(512, classes, 1, bias=True))

        def forward(self, x):
            x = self.avgpool(self.features(x))
            return torch.mean(self.classifier(x), dim=(2, 3, 4))  # as torchvision's S3D.forward

    return Front()


@dataclass(frozen=True)
class Size:
    build: Callable[[], nn.Module]
    shape: Tuple[int, ...]
    layer_shape: Optional[Tuple[int, ...]] = None  # the goldens' per-layer input (None: the input's)


@dataclass(frozen=True)
class ZooModel:
    name: str
    task: str  # "segmentation" ([N, classes, D, H, W] scores) or "classification" ([N, classes])
    about: str
    small: Size
    full: Size


def _monai(name):
    import monai.networks.nets as nets
    return getattr(nets, name)


def _ptv(name):
    from pytorchvideo.models import csn, x3d
    return {"x3d": x3d.create_x3d, "csn": csn.create_csn}[name]


SEG, VIDEO = "segmentation", "classification"
ZOO = [
    ZooModel("monai_unet", SEG, "MONAI UNet (residual units, instance norm, PReLU, transposed convs)",
             Size(lambda: _monai("UNet")(3, 1, 3, (8, 16, 32), (2, 2), num_res_units=1), (1, 1, 24, 24, 24),
                  (1, 1, 16, 16, 16)),
             Size(lambda: _monai("UNet")(3, 1, 2, (16, 32, 64, 128, 256), (2, 2, 2, 2), num_res_units=2),
                  (1, 1, 96, 96, 96))),
    ZooModel("monai_basicunet", SEG, "MONAI BasicUNet (instance norm, LeakyReLU, transposed convs, pad)",
             # 32: four halvings of 16 leave one voxel, which an instance norm refuses (as PyTorch does)
             Size(lambda: _monai("BasicUNet")(3, 1, 3, features=(8, 8, 16, 16, 32, 8)), (1, 1, 32, 32, 32)),
             Size(lambda: _monai("BasicUNet")(3, 1, 2), (1, 1, 96, 96, 96))),
    ZooModel("monai_dynunet", SEG, "MONAI DynUNet, nnU-Net's architecture (instance norm, LeakyReLU)",
             Size(lambda: _monai("DynUNet")(3, 1, 3, [3, 3, 3], [1, 2, 2], [2, 2], filters=[8, 16, 32]),
                  (1, 1, 16, 16, 16)),
             Size(lambda: _monai("DynUNet")(3, 1, 2, [3] * 5, [1, 2, 2, 2, 2], [2, 2, 2, 2]), (1, 1, 96, 96, 96))),
    ZooModel("monai_segresnet", SEG, "MONAI SegResNet (group norm, trilinear upsampling)",
             Size(lambda: _monai("SegResNet")(3, init_filters=8, in_channels=1, out_channels=3), (1, 1, 16, 16, 16)),
             Size(lambda: _monai("SegResNet")(3, init_filters=16, in_channels=4, out_channels=3),
                  (1, 4, 96, 96, 96))),
    ZooModel("meshnet", SEG, "MeshNet, brainchop's dilated 3D CNN",
             Size(lambda: MeshNet(), (1, 1, 24, 24, 24), (1, 1, 12, 12, 12)),
             Size(lambda: MeshNet(channels=21), (1, 1, 128, 128, 128))),
    ZooModel("unet3d", SEG, "3D U-Net after Cicek et al. (transposed convs)",
             Size(lambda: UNet3D(), (1, 1, 16, 16, 16)),
             Size(lambda: UNet3D(widths=(32, 64, 128, 256)), (1, 1, 96, 96, 96))),
    ZooModel("c3d", VIDEO, "C3D",
             Size(lambda: C3D(), (1, 3, 16, 32, 32)),
             Size(lambda: C3D(classes=487, widths=(64, 128, 256, 512, 512), hidden=4096, flat=16),
                  (1, 3, 16, 112, 112))),
    ZooModel("s3d", VIDEO, "torchvision S3D (separable 3D convs, inception blocks)",
             Size(lambda: s3d_front(10), (1, 3, 8, 64, 64)),
             Size(lambda: __import__("torchvision").models.video.s3d(num_classes=400), (1, 3, 16, 224, 224))),
    ZooModel("x3d_xs", VIDEO, "pytorchvideo X3D-XS (depthwise convs, squeeze-excitation, swish)",
             Size(lambda: _ptv("x3d")(input_clip_length=4, input_crop_size=64, depth_factor=2.2, model_num_class=10,
                                      head_activation=None), (1, 3, 4, 64, 64)),
             Size(lambda: _ptv("x3d")(input_clip_length=4, input_crop_size=160, depth_factor=2.2,
                                      model_num_class=400, head_activation=None), (1, 3, 4, 160, 160))),
    ZooModel("csn", VIDEO, "pytorchvideo CSN (channel-separated convs)",
             Size(lambda: _ptv("csn")(model_depth=50, stem_dim_out=16, model_num_class=10,
                                      head_pool_kernel_size=(1, 2, 2)), (1, 3, 8, 64, 64)),
             Size(lambda: _ptv("csn")(model_depth=50, model_num_class=400), (1, 3, 8, 224, 224))),
]


def norm_statistics(model, inputs):
    """Sets each BatchNorm's running statistics to the inputs' (a cumulative average over them), as
    training would have: with a fresh module's (mean 0, variance 1) a random-weight network's
    activations grow layer by layer and one class wins every voxel."""
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    model.eval()  # only the BatchNorms train: dropout stays off, and instance norms see no 1-voxel batch
    for m in norms:
        m.reset_running_stats()
        m.momentum = None
        m.train()
    with torch.no_grad():
        for x in inputs:
            model(x)
    return model.eval()


def smooth_volume(seed, shape):
    """A volume of a few Gaussian blobs of different intensities plus a little noise: segmentation
    networks see structure, not only noise. The goldens store it (float32), so both sides read the same."""
    rng = np.random.default_rng(seed)
    n, c, *spatial = shape
    grids = np.meshgrid(*[np.linspace(-1, 1, s) for s in spatial], indexing="ij")
    vol = np.zeros((n, c, *spatial), np.float32)
    for b in range(n):
        for ch in range(c):
            for _ in range(5):
                centre = rng.uniform(-0.6, 0.6, len(spatial))
                width = rng.uniform(0.15, 0.45)
                r2 = sum((g - m) ** 2 for g, m in zip(grids, centre))
                vol[b, ch] += rng.uniform(-1.5, 2.5) * np.exp(-r2 / (2 * width**2))
            vol[b, ch] += rng.normal(0, 0.05, spatial)
    return torch.from_numpy(vol.astype(np.float32))
