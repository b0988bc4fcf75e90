"""torchvision's video ResNets (r3d_18, mc3_18, r2plus1d_18) made quantizable
the way torchvision makes its 2D ResNets quantizable: QuantStub /
DeQuantStub around the network, FloatFunctional for the residual adds
(add_relu), Conv + BatchNorm (+ ReLU) fused. The result takes PyTorch's
eager flow (qconfig, prepare, calibration, convert) and then
qwasm_export.export.

    import torchvision
    from qwasm_video import quantizable_video_resnet
    model = quantizable_video_resnet(torchvision.models.video.r3d_18())

Depends only on torch (and torchvision for the models themselves).
"""
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub, fuse_modules


def _flat(seq):
    """A Sequential with nested Sequentials (Conv2Plus1D) inlined and conv subclasses made plain Conv3d."""
    out = []
    for m in seq:
        if isinstance(m, nn.Sequential):
            out.extend(_flat(m))
        elif isinstance(m, nn.Conv3d) and type(m) is not nn.Conv3d:
            c = nn.Conv3d(m.in_channels, m.out_channels, m.kernel_size, m.stride, m.padding, bias=m.bias is not None)
            c.weight = m.weight
            c.bias = m.bias
            out.append(c)
        else:
            out.append(m)
    return nn.Sequential(*out)


def _fuse_groups(seq):
    """[conv, bn, relu?] groups of a flat Sequential, as fuse_modules lists."""
    groups, i = [], 0
    while i < len(seq):
        if isinstance(seq[i], nn.Conv3d):
            n = 3 if i + 2 < len(seq) and isinstance(seq[i + 2], nn.ReLU) else 2
            groups.append([str(i + k) for k in range(n)])
            i += n
        else:
            i += 1
    return groups


class QuantizableBlock(nn.Module):
    def __init__(self, block):
        super().__init__()
        self.conv1 = _flat(block.conv1)
        self.conv2 = _flat(block.conv2)
        self.downsample = block.downsample
        self.skip_add = nn.quantized.FloatFunctional()

    def forward(self, x):
        residual = x if self.downsample is None else self.downsample(x)
        return self.skip_add.add_relu(self.conv2(self.conv1(x)), residual)

    def fuse(self):
        for seq in (self.conv1, self.conv2) + ((self.downsample,) if self.downsample is not None else ()):
            fuse_modules(seq, _fuse_groups(seq), inplace=True)


class QuantizableVideoResNet(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.quant = QuantStub()
        self.stem = _flat(net.stem)
        for name in ("layer1", "layer2", "layer3", "layer4"):
            setattr(self, name, nn.Sequential(*[QuantizableBlock(b) for b in getattr(net, name)]))
        self.avgpool = net.avgpool
        self.fc = net.fc
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.stem(self.quant(x))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.avgpool(x).flatten(1)
        return self.dequant(self.fc(x))

    def fuse(self):
        fuse_modules(self.stem, _fuse_groups(self.stem), inplace=True)
        for name in ("layer1", "layer2", "layer3", "layer4"):
            for b in getattr(self, name):
                b.fuse()


def quantizable_video_resnet(net):
    """A torchvision VideoResNet (BasicBlock) as a fused, quantizable model in
    eval mode: the same weights, ready for model.qconfig and prepare()."""
    model = QuantizableVideoResNet(net.eval()).eval()
    model.fuse()
    return model


def kinetics400(arch):
    """The preprocessing and class names of torchvision's Kinetics-400 weights
    for `arch` ('r3d_18', 'mc3_18' or 'r2plus1d_18'), as qwasm_export.export
    takes them: export(model, x, path, **kinetics400("r3d_18")). Read from
    torchvision's weight enums; nothing is downloaded."""
    from torchvision.models import video

    weights = {"r3d_18": video.R3D_18_Weights, "mc3_18": video.MC3_18_Weights,
               "r2plus1d_18": video.R2Plus1D_18_Weights}[arch].KINETICS400_V1
    return {"preprocessing": weights.transforms(), "classes": weights.meta["categories"]}
