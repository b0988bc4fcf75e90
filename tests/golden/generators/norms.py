"""norms.json: InstanceNorm1d/2d/3d, GroupNorm and LayerNorm in exported models
(exported/norms_*.qwasm.safetensors), from PyTorch 2.15.

- float models of norms only (the eager exporter), so that every output is the
  norms' own arithmetic: with and without affine, InstanceNorm's running
  statistics (eval, track_running_stats), LayerNorm over one to three
  dimensions and without bias, rows longer than a cascade of Welford chunks,
  a constant row (variance 0: eps alone), -0, NaN and +-Inf, and an unbatched
  input;
- PT2E graphs (QwasmQuantizer): the convs int8, each norm in a float region
  between a dequantize and a quantize. A U-Net-like encoder (Conv3d ->
  InstanceNorm3d -> ReLU, as MONAI's UNet, BasicUNet and DynUNet build theirs
  with monai.networks.blocks.Convolution), MONAI's SegResNet encoder
  (GroupNorm -> ReLU -> Conv3d residual blocks; its decoder needs trilinear
  upsampling, another family), a LayerNorm over the last dimension,
  instance_norm on running statistics, and MONAI's whole UNet (with ReLU for
  its PReLU, another family; its decoder's ConvTranspose3d from main);
- eager-quantized models (prepare / convert under fbgemm): PyTorch's
  quantized modules nnq.InstanceNorm1d/2d/3d, nnq.GroupNorm, nnq.LayerNorm on
  quint8, and a GroupNorm whose biases sit on ties of its output scale.

Each output is PyTorch's to the bit (a NaN matches any NaN)."""
import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path

nn = torch.nn


def _rand(rng, shape, lo=-3.0, hi=3.0):
    return torch.from_numpy(rng.uniform(lo, hi, shape).astype(np.float32))


def _exported_case(export, model, x, fname, name):
    """The case of `model` exported to `fname` and run on x (its output PyTorch's, without autograd)."""
    export(model, x, output_path(fname))
    with torch.no_grad():
        y = model(x)
    return {"name": name, "file": fname, "x": arr(x.numpy()), "y": arr(y.numpy())}


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
        cases.append(_exported_case(export, model, x, f"exported/norms_float_{i}.qwasm.safetensors", f"float: {name}"))
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


class _RunningStats(nn.Module):
    """PT2E with aten.instance_norm on running statistics (use_input_stats=False), a GroupNorm without
    affine and a LayerNorm without bias."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.inorm = nn.InstanceNorm2d(6, affine=True, track_running_stats=True)
        self.gnorm = nn.GroupNorm(3, 6, affine=False)
        self.lnorm = nn.LayerNorm(9, bias=False)

    def forward(self, x):
        return self.lnorm(self.gnorm(torch.relu(self.inorm(self.conv(x)))))


class _MonaiUNet(nn.Module):
    """MONAI's UNet (Conv3d -> InstanceNorm3d -> ReLU down, ConvTranspose3d up, skip connections by cat)
    with ReLU for its default PReLU, which another family adds."""

    def __init__(self):
        super().__init__()
        from monai.networks.nets import UNet
        self.net = UNet(3, 1, 2, (8, 16, 32), (2, 2), act="RELU")

    def forward(self, x):
        return self.net(x)


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
        ("InstanceNorm2d on running statistics, GroupNorm without affine, LayerNorm without bias",
         _RunningStats, (1, 3, 7, 9)),
        ("MONAI UNet (ReLU; InstanceNorm3d, ConvTranspose3d, cat)", _MonaiUNet, (1, 1, 16, 16, 16)),
    ]
    cases = []
    for i, (name, build, shape) in enumerate(specs):
        torch.manual_seed(SEED % 1000 + 90 + i)
        model = build().eval()
        for m in model.modules():
            if isinstance(m, (nn.GroupNorm, nn.InstanceNorm2d, nn.InstanceNorm3d, nn.LayerNorm)):
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
        cases.append(_exported_case(export, gm, x, f"exported/norms_pt2e_{i}.qwasm.safetensors", f"pt2e: {name}"))
    return cases


class _Eager3d(nn.Module):
    """Convs with each norm after one, for the eager flow: InstanceNorm3d, GroupNorm and LayerNorm over the
    last dimension (70: one 64-element vector and a scalar tail in PyTorch's kernel) and the last two."""

    def __init__(self):
        super().__init__()
        from torch.ao.quantization import DeQuantStub, QuantStub
        self.quant = QuantStub()
        self.conv1 = nn.Conv3d(2, 8, 3, padding=1)
        self.inorm = nn.InstanceNorm3d(8, affine=True)
        self.conv2 = nn.Conv3d(8, 8, 3, padding=1)
        self.gnorm = nn.GroupNorm(4, 8)
        self.lnorm = nn.LayerNorm(70)
        self.lnorm2 = nn.LayerNorm([6, 70])
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = torch.relu(self.inorm(self.conv1(self.quant(x))))
        x = torch.relu(self.gnorm(self.conv2(x)))
        return self.dequant(self.lnorm2(self.lnorm(x)))


class _Eager2d(nn.Module):
    """InstanceNorm2d and InstanceNorm1d without affine, GroupNorm of one group (a whole sample)."""

    def __init__(self):
        super().__init__()
        from torch.ao.quantization import DeQuantStub, QuantStub
        self.quant = QuantStub()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.inorm = nn.InstanceNorm2d(6)
        self.gnorm = nn.GroupNorm(1, 6)
        self.inorm1 = nn.InstanceNorm1d(6)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.gnorm(self.inorm(self.conv(self.quant(x))))
        return self.dequant(self.inorm1(x.flatten(2)))


def _eager_cases(export, rng):
    from torch.ao.quantization import convert, get_default_qconfig, prepare
    cases = []
    for i, (name, build, shape) in enumerate([
            ("Conv3d, InstanceNorm3d, GroupNorm, LayerNorm over 1 and 2 dims", _Eager3d, (2, 2, 4, 6, 70)),
            ("InstanceNorm2d / 1d without affine, GroupNorm of one group", _Eager2d, (2, 3, 9, 11))]):
        torch.manual_seed(SEED % 1000 + 100 + i)
        model = build().eval()
        for m in model.modules():
            if isinstance(m, (nn.GroupNorm, nn.InstanceNorm3d, nn.LayerNorm)) and m.weight is not None:
                _randomize_affine(m, rng)
        model.qconfig = get_default_qconfig("fbgemm")
        prepare(model, inplace=True)
        with torch.no_grad():
            for _ in range(3):
                model(_rand(rng, shape))
        convert(model, inplace=True)
        x = _rand(rng, shape)
        cases.append(_exported_case(export, model, x, f"exported/norms_eager_{i}.qwasm.safetensors", f"eager: {name}"))
    return cases


class _Ties(nn.Module):
    """A quantized GroupNorm (one group per channel) whose even channels have weight 0 and a bias on a
    half step of the output scale: y is the bias, and only multiplying by the float32 reciprocal of the
    scale (not dividing) rounds each tie as PyTorch does."""

    def __init__(self):
        super().__init__()
        from torch.ao.quantization import DeQuantStub, QuantStub
        self.quant = QuantStub()
        self.gnorm = nn.GroupNorm(64, 64)
        self.dequant = DeQuantStub()

    def forward(self, x):
        return self.dequant(self.gnorm(self.quant(x)))


def _ties_case(export, rng):
    from torch.ao.quantization import convert, get_default_qconfig, prepare
    model = _Ties().eval()
    model.qconfig = get_default_qconfig("fbgemm")
    prepare(model, inplace=True)
    shape = (2, 64, 5, 5)
    with torch.no_grad():
        model(_rand(rng, shape))
    convert(model, inplace=True)
    g = model.gnorm
    # A scale (searched, seeded) for which multiplying by its float32 reciprocal and dividing by it round
    # at least 3 of the 32 ties differently: the case can fail.
    steps = rng.integers(-100, 100, 32) + 0.5
    for _ in range(10000):
        scale = np.float32(rng.uniform(0.005, 0.02))
        b = (steps * float(scale)).astype(np.float32)
        by_reciprocal = np.rint(b * (np.float32(1) / scale))
        by_division = np.rint(b / scale)
        if (by_reciprocal != by_division).sum() >= 3:
            break
    else:
        raise AssertionError("no scale tells the reciprocal from the division")
    g.scale = torch.tensor(float(scale))
    g.zero_point = torch.tensor(128)
    with torch.no_grad():
        g.weight.copy_(_rand(rng, (64,), 0.5, 2.0))
        g.weight[::2] = 0.0
        g.bias.copy_(_rand(rng, (64,), -1.0, 1.0))
        g.bias[::2] = torch.from_numpy(b)
    x = _rand(rng, shape)
    return [_exported_case(export, model, x, "exported/norms_eager_ties.qwasm.safetensors",
                           "eager: quantized GroupNorm on ties of the output scale")]


def _unbatched_case(export, rng):
    """nn.InstanceNorm2d takes an unbatched [C, H, W] too (as [1, C, H, W]): the file's module on one."""
    model = _Chain(_randomize_affine(nn.InstanceNorm2d(3, affine=True), rng)).eval()
    fname = "exported/norms_float_unbatched.qwasm.safetensors"
    export(model, _rand(rng, (2, 3, 6, 5)), output_path(fname))
    x = _rand(rng, (3, 6, 5))
    with torch.no_grad():
        y = model(x)
    return [{"name": "float: InstanceNorm2d on an unbatched input", "file": fname, "x": arr(x.numpy()),
             "y": arr(y.numpy())}]


def norms_cases():
    add_to_path("..", "..", "python")
    from qwasm_export import export
    torch.set_num_threads(1)
    torch.manual_seed(SEED % 1000 + 80)
    rng = np.random.default_rng(SEED + 80)
    return (_float_cases(export, rng) + _pt2e_cases(export, rng) + _eager_cases(export, rng) + _ties_case(export, rng)
            + _unbatched_case(export, rng))
