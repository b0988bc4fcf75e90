"""norms.json: InstanceNorm1d/2d/3d, GroupNorm and LayerNorm in exported models
(exported/norms_*.qwasm.safetensors), from PyTorch 2.15.

- float models of norms only (the eager exporter), so that every output is the
  norms' own arithmetic: with and without affine, InstanceNorm's running
  statistics (eval, track_running_stats), LayerNorm over one to three
  dimensions and without bias, rows longer than a cascade of Welford chunks,
  a constant row (variance 0: eps alone), and -0, NaN and +-Inf;
- PT2E graphs (QwasmQuantizer): the convs int8, each norm in a float region
  between a dequantize and a quantize. A U-Net-like encoder (Conv3d ->
  InstanceNorm3d -> ReLU, as MONAI's UNet, BasicUNet and DynUNet build theirs
  with monai.networks.blocks.Convolution), MONAI's SegResNet encoder
  (GroupNorm -> ReLU -> Conv3d residual blocks; its decoder needs trilinear
  upsampling, another family), and a LayerNorm over the last dimension.

Each output is PyTorch's to the bit (a NaN matches any NaN)."""
import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path

nn = torch.nn


def _rand(rng, shape, lo=-3.0, hi=3.0):
    return torch.from_numpy(rng.uniform(lo, hi, shape).astype(np.float32))


def _randomize_affine(m, rng):
    with torch.no_grad():
        for name in ("weight", "bias", "running_mean"):
            t = getattr(m, name, None)
            if t is not None:
                t.copy_(_rand(rng, t.shape, -1.5, 1.5))
        if getattr(m, "running_var", None) is not None:
            m.running_var.copy_(_rand(rng, m.running_var.shape, 0.05, 3.0))
    return m


class _Chain(nn.Module):
    """Float norms one after another (and a ReLU between), each on the last one's output."""

    def __init__(self, *layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def _float_specs(rng):
    r = lambda m: _randomize_affine(m, rng)  # noqa: E731
    running = r(nn.InstanceNorm2d(3, affine=True, track_running_stats=True)).eval()
    return [
        ("InstanceNorm3d affine, GroupNorm, LayerNorm over 3 dims", _Chain(
            r(nn.InstanceNorm3d(4, affine=True)), nn.ReLU(), r(nn.GroupNorm(2, 4)),
            r(nn.LayerNorm([3, 5, 6]))), (2, 4, 3, 5, 6)),
        ("InstanceNorm1d / 2d without affine, GroupNorm without affine", _Chain(
            nn.InstanceNorm2d(3), nn.GroupNorm(3, 3, affine=False)), (2, 3, 7, 9)),
        ("InstanceNorm1d, LayerNorm without bias", _Chain(
            r(nn.InstanceNorm1d(5, affine=True)), r(nn.LayerNorm(37, bias=False))), (3, 5, 37)),
        ("InstanceNorm2d with running statistics (eval)", _Chain(running), (2, 3, 6, 5)),
        # rows of 8 * 16 * 5 + 3 elements: five Welford chunks merged as a cascade, then a scalar tail
        ("long rows: GroupNorm and LayerNorm", _Chain(
            r(nn.GroupNorm(1, 2)), r(nn.LayerNorm(643))), (2, 2, 643)),
    ]


def _float_cases(export, rng):
    cases = []
    for i, (name, model, shape) in enumerate(_float_specs(rng)):
        model = model.eval()
        x = _rand(rng, shape)
        if i == 0:
            x[0, 1] = 0.75  # a constant instance: variance 0, eps alone
        if i == 1:
            flat = x.view(-1)
            for j, v in enumerate([-0.0, 0.0, float("nan"), float("inf"), -float("inf"), 1e-45, -3e38]):
                flat[j * 60 + 1] = v  # NaN / Inf spread through their own instances (1, 2, 3) only
        fname = f"exported/norms_float_{i}.qwasm.safetensors"
        export(model, x, output_path(fname))
        with torch.no_grad():
            y = model(x)
        cases.append({"name": f"float: {name}", "file": fname, "x": arr(x.numpy()), "y": arr(y.numpy())})
    return cases


class _UNetEncoder(nn.Module):
    """A 3D U-Net's encoder as MONAI builds it: Convolution blocks (Conv3d -> InstanceNorm3d -> ReLU)."""

    def __init__(self):
        super().__init__()
        from monai.networks.blocks import Convolution
        block = lambda i, o, s: Convolution(3, i, o, strides=s, kernel_size=3, act="RELU",  # noqa: E731
                                            norm=("INSTANCE", {"affine": True}))
        self.down1 = block(1, 8, 2)
        self.down2 = block(8, 16, 2)
        self.bottom = block(16, 16, 1)
        self.head = nn.Conv3d(16, 2, 1)

    def forward(self, x):
        return self.head(self.bottom(self.down2(self.down1(x))))


class _SegResNetEncoder(nn.Module):
    """MONAI's SegResNet, its encoder (convInit, then GroupNorm -> ReLU -> Conv3d residual blocks)."""

    def __init__(self):
        super().__init__()
        from monai.networks.nets import SegResNet
        self.net = SegResNet(spatial_dims=3, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 2),
                             blocks_up=(1,), num_groups=4)

    def forward(self, x):
        return self.net.encode(x)[0]


class _TokenMixer(nn.Module):
    """A LayerNorm over the last dimension between two linears (a transformer block's shape)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(24, 32)
        self.norm = nn.LayerNorm(32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.norm(self.fc1(x))))


def _pt2e_cases(export, rng):
    from qwasm_quantizer import QwasmQuantizer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    specs = [
        ("U-Net encoder (MONAI Convolution blocks: Conv3d, InstanceNorm3d, ReLU)", _UNetEncoder, (1, 1, 16, 16, 16)),
        ("SegResNet encoder (MONAI: GroupNorm, ReLU, Conv3d residual blocks)", _SegResNetEncoder, (1, 1, 16, 16, 16)),
        ("LayerNorm between linears", _TokenMixer, (4, 24)),
    ]
    cases = []
    for i, (name, build, shape) in enumerate(specs):
        torch.manual_seed(SEED % 1000 + 90 + i)
        model = build().eval()
        for m in model.modules():
            if isinstance(m, (nn.GroupNorm, nn.InstanceNorm3d, nn.LayerNorm)) and m.weight is not None:
                _randomize_affine(m, rng)
        calibration = [_rand(rng, shape) for _ in range(3)]
        example = (torch.cat([calibration[0], calibration[0]]),)
        gm = torch.export.export(model, example).module()
        gm = prepare_pt2e(gm, QwasmQuantizer())
        with torch.no_grad():
            for c in calibration:
                gm(torch.cat([c, c]))
        gm = convert_pt2e(gm)
        x = torch.cat([_rand(rng, shape), _rand(rng, shape)])
        fname = f"exported/norms_pt2e_{i}.qwasm.safetensors"
        export(gm, x, output_path(fname))
        with torch.no_grad():
            y = gm(x)
        cases.append({"name": f"pt2e: {name}", "file": fname, "x": arr(x.numpy()), "y": arr(y.numpy())})
    return cases


def norms_cases():
    add_to_path("..", "..", "python")
    from qwasm_export import export
    torch.set_num_threads(1)
    torch.manual_seed(SEED % 1000 + 80)
    rng = np.random.default_rng(SEED + 80)
    return _float_cases(export, rng) + _pt2e_cases(export, rng)
