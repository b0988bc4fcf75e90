"""zoo3d.json: the 3D CNNs users bring, built from their libraries' code (MONAI, torchvision,
pytorchvideo) or their papers (MeshNet, a 3D U-Net after Cicek et al., C3D) with seeded random
weights at small sizes, quantized by the README's PT2E recipe (QwasmQuantizer), exported to
tests/golden/exported/zoo3d_<name>.qwasm.safetensors, and run by PyTorch.

Models whose every op PyTorch's eager flow quantizes (MeshNet, C3D) also go through it (fused,
get_default_qconfig, prepare, calibrate, convert), compared bit for bit.

Per model: the input (segmentation: a smooth synthetic volume, stored; video: the seeded LCG clip
of tests/js/util.mjs), PyTorch's output (the converted graph's, PyTorch's reference
representation), the last quantize's qparams (the output step), and per quantized conv/linear layer
PyTorch's own quantized input and output (as pt2e.json). Per-layer data is kept to a byte budget
per model: every layer when they fit, else the layers with the smallest outputs first, in graph
order, and the test says how many of how many it checks.

The widths are reduced where a library allows it (MONAI's channels, pytorchvideo's stem width) so
each exported file stays small; torchvision's S3D has fixed widths (8 M parameters), so its first
blocks (through Mixed_4b) with S3D's own head stand for it.
"""
import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path
from .pt2e import _layers, _output_qparams, _quantizer, pt2e_convert

nn = torch.nn
LAYER_BYTES = 400_000  # per model: the per-layer inputs and outputs kept (uint8 each)


def _smooth_volume(seed, shape):
    """A volume of a few Gaussian blobs of different intensities plus a little noise: segmentation
    networks see structure, not only noise. Stored in the golden (float32), so both sides read it."""
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
    """C3D (Tran et al. 2015) at a quarter of its widths: 3x3x3 convs + ReLU, max pools (the first
    1x2x2), two fully connected layers."""

    def __init__(self, classes=10, w=(16, 32, 64, 64, 128)):
        super().__init__()

        def conv(a, b):
            return [nn.Conv3d(a, b, 3, padding=1), nn.ReLU()]

        self.features = nn.Sequential(
            *conv(3, w[0]), nn.MaxPool3d((1, 2, 2)),
            *conv(w[0], w[1]), nn.MaxPool3d(2),
            *conv(w[1], w[2]), *conv(w[2], w[2]), nn.MaxPool3d(2),
            *conv(w[2], w[3]), *conv(w[3], w[3]), nn.MaxPool3d(2),
            *conv(w[3], w[4]), *conv(w[4], w[4]), nn.MaxPool3d(2, padding=(0, 1, 1)))
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(w[4] * 2 * 2, 128), nn.ReLU(), nn.Dropout(0.5),
                                nn.Linear(128, classes))

    def forward(self, x):
        return self.fc(self.features(x))


def _s3d_front(classes):
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


def _models():
    """(name, task, build, input shape, per-layer input shape or None: the input's)."""
    from monai.networks.nets import BasicUNet, DynUNet, SegResNet, UNet
    from pytorchvideo.models import csn, x3d
    seg = "segmentation"
    video = "classification"
    return [
        ("monai_unet", seg, lambda: UNet(3, 1, 3, (8, 16, 32), (2, 2), num_res_units=1), (1, 1, 24, 24, 24),
         (1, 1, 16, 16, 16)),
        ("monai_basicunet", seg, lambda: BasicUNet(3, 1, 3, features=(8, 8, 16, 16, 32, 8)), (1, 1, 16, 16, 16),
         None),
        ("monai_dynunet", seg, lambda: DynUNet(3, 1, 3, [3, 3, 3], [1, 2, 2], [2, 2], filters=[8, 16, 32]),
         (1, 1, 16, 16, 16), None),
        ("monai_segresnet", seg, lambda: SegResNet(3, init_filters=8, in_channels=1, out_channels=3),
         (1, 1, 16, 16, 16), None),
        ("meshnet", seg, lambda: MeshNet(), (1, 1, 24, 24, 24), (1, 1, 12, 12, 12)),
        ("unet3d", seg, lambda: UNet3D(), (1, 1, 16, 16, 16), None),
        ("c3d", video, lambda: C3D(), (1, 3, 16, 32, 32), None),
        ("s3d", video, lambda: _s3d_front(10), (1, 3, 8, 64, 64), None),
        ("x3d_xs", video, lambda: x3d.create_x3d(input_clip_length=4, input_crop_size=64, depth_factor=2.2,
                                                  model_num_class=10, head_activation=None), (1, 3, 4, 64, 64),
         None),
        ("csn", video, lambda: csn.create_csn(model_depth=50, stem_dim_out=16, model_num_class=10,
                                              head_pool_kernel_size=(1, 2, 2)), (1, 3, 8, 64, 64), None),
    ]


def _norm_statistics(model, inputs):
    """Sets each BatchNorm's running statistics to the inputs' (a cumulative average over them), as
    training would have: with a fresh module's (mean 0, variance 1) a random-weight network's
    activations grow layer by layer and one class wins every voxel."""
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for m in norms:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    with torch.no_grad():
        for x in inputs:
            model(x)
    return model.eval()


class _Stubbed(nn.Module):
    """The eager flow's model: QuantStub, the model, DeQuantStub."""

    def __init__(self, model):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.model = model
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        return self.dequant(self.model(self.quant(x)))


def _fuse_meshnet(m):
    body = m.body
    groups = [[str(i), str(i + 1), str(i + 2)] for i in range(0, len(body), 3)]
    return torch.ao.quantization.fuse_modules(body, groups, inplace=True)


def _fuse_c3d(m):
    f = m.features
    convs = [[str(i), str(i + 1)] for i, layer in enumerate(f) if isinstance(layer, nn.Conv3d)]
    torch.ao.quantization.fuse_modules(f, convs, inplace=True)
    torch.ao.quantization.fuse_modules(m.fc, [["1", "2"]], inplace=True)


# The models whose every op PyTorch's eager flow quantizes, and how each is fused (conv + BatchNorm + ReLU).
EAGER = {"meshnet": _fuse_meshnet, "c3d": _fuse_c3d}


def _eager_case(name, task, model, x, calibration, fname):
    """PyTorch's eager flow (fuse, get_default_qconfig of the generator's engine, prepare,
    calibrate, convert), exported; compared bit for bit."""
    from qwasm_export import export
    from video_resnets import eager_quantize
    EAGER[name](model)
    m = eager_quantize(_Stubbed(model).eval(), calibration, torch.backends.quantized.engine)
    export(m, x, output_path(fname))
    with torch.no_grad():
        y = m(x)
    layers = sum(isinstance(v, (torch.ao.nn.quantized.Conv3d, torch.ao.nn.quantized.Linear))
                 for v in m.modules())
    return {"name": f"{name} (eager)", "flow": "eager", "task": task, "file": fname, "y": arr(y.numpy()),
            "layer_count": layers}


def _budgeted(layers):
    """The per-layer records that fit LAYER_BYTES (smallest outputs first), in graph order."""
    size = [len(l["input"]["ints"]["b64"]) + len(l["output"]["ints"]["b64"]) for l in layers]
    keep, used = set(), 0
    for i in sorted(range(len(layers)), key=lambda i: size[i]):
        if used + size[i] <= LAYER_BYTES * 4 // 3:  # base64
            keep.add(i)
            used += size[i]
    return [l for i, l in enumerate(layers) if i in keep]


def zoo3d_cases(names=None):
    add_to_path("..", "..", "python")
    add_to_path("..", "models")
    from qwasm_export import export
    from video_resnets import lcg_clip
    torch.set_num_threads(1)
    cases = []
    for k, (name, task, build, shape, layer_shape) in enumerate(_models()):
        if names and name not in names:
            continue
        torch.manual_seed(SEED % 1000 + 300 + k)
        if task == "segmentation":
            x = _smooth_volume(SEED + 300 + k, shape)
            calibration = [x, _smooth_volume(SEED + 400 + k, shape)]
            given = {"x": arr(x.numpy())}
        else:
            seed = 5000 + 10 * k
            x = lcg_clip(seed, shape)
            calibration = [x, lcg_clip(seed + 1, shape)]
            given = {"input": {"lcg": seed, "shape": list(shape)}}
        model = _norm_statistics(build(), calibration)
        m = pt2e_convert(model, _quantizer("qwasm"), calibration)
        fname = f"exported/zoo3d_{name}.qwasm.safetensors"
        export(m, x, output_path(fname))
        with torch.no_grad():
            y = m(x)
        # Fully convolutional models take a smaller volume per layer (the export's dimensions are dynamic).
        layer_x = x if layer_shape is None else _smooth_volume(SEED + 500 + k, layer_shape)
        layers = _layers(m, layer_x)
        cases.append({"name": name, "flow": "pt2e", "task": task, "file": fname, **given, "y": arr(y.numpy()),
                      "output_qparams": _output_qparams(m), "layer_count": len(layers),
                      "layers": _budgeted(layers)})
        print(f"zoo3d {name}: {len(layers)} quantized layers, output {list(y.shape)}")
        if name in EAGER:
            torch.manual_seed(SEED % 1000 + 300 + k)  # the same float model
            eager = _eager_case(name, task, _norm_statistics(build(), calibration), x, calibration,
                                f"exported/zoo3d_{name}_eager.qwasm.safetensors")
            cases.append({**eager, **given})
    return cases
