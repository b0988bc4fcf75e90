"""export_zoo.json: a model using every node kind the exporter writes, quantized and float."""
import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path


def export_zoo_cases():
    """A small model that uses every node kind python/qwasm_export.py writes:
    Conv3d / ConvReLU3d, max / average / adaptive pools, FloatFunctional add,
    add_relu, mul, cat, add_scalar, mul_scalar, flatten (function and method),
    reshape, ReLU, Linear / LinearReLU, stubs. Exported twice: quantized by
    the eager flow (exported/zoo.qwasm.safetensors) and in float
    (exported/zoo_float.qwasm.safetensors: Conv, BatchNorm, ReLU, pools,
    operator add, flatten, Linear). The quantized file is also the loader
    fuzzer's seed."""
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from torch.ao.quantization import DeQuantStub, QuantStub, convert, fuse_modules, get_default_qconfig, prepare
    nn = torch.nn
    torch.set_num_threads(1)
    torch.manual_seed(SEED % 1000 + 50)

    class Zoo(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.conv1 = nn.Sequential(nn.Conv3d(3, 6, 3, padding=1), nn.BatchNorm3d(6), nn.ReLU())
            self.conv2 = nn.Conv3d(6, 6, 1)
            self.ff = nn.ModuleList([nn.quantized.FloatFunctional() for _ in range(6)])
            self.pool = nn.MaxPool3d(2)
            self.avg = nn.AvgPool3d(2, stride=1, ceil_mode=True, count_include_pad=False)
            self.adapt = nn.AdaptiveAvgPool3d((1, 2, 2))
            self.relu = nn.ReLU()
            self.fc1 = nn.Sequential(nn.Linear(48, 16), nn.ReLU())
            self.fc2 = nn.Linear(16, 5)
            self.dequant = DeQuantStub()

        def forward(self, x):
            a = self.conv1(self.quant(x))
            b = self.ff[0].add_relu(a, self.conv2(a))
            c = self.ff[1].cat([b, a], 1)
            d = self.avg(self.pool(c))
            e = self.ff[2].mul(d, d)
            f = self.ff[3].add(self.ff[4].add_scalar(e, 0.25), self.ff[5].mul_scalar(d, -0.5))
            g = self.relu(self.adapt(f))
            h = torch.flatten(g, 1)
            h = self.fc2(self.fc1(h.reshape(-1, 48)))
            return self.dequant(h)

    class FloatZoo(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv3d(3, 6, 3, padding=1)
            self.bn = nn.BatchNorm3d(6)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv3d(6, 6, 1)
            self.pool = nn.MaxPool3d(2)
            self.adapt = nn.AdaptiveAvgPool3d(1)
            self.fc = nn.Linear(6, 5)

        def forward(self, x):
            a = self.relu(self.bn(self.conv1(x)))
            b = self.conv2(a) + a
            return self.fc(self.adapt(self.pool(b)).flatten(1))

    x = torch.from_numpy(np.random.default_rng(SEED + 50).uniform(-2, 2, (2, 3, 6, 8, 8)).astype(np.float32))
    cases = []
    m = Zoo().eval()
    with torch.no_grad():
        m.conv1[1].running_mean.uniform_(-0.2, 0.2)
        m.conv1[1].running_var.uniform_(0.5, 2)
    fuse_modules(m, [["conv1.0", "conv1.1", "conv1.2"], ["fc1.0", "fc1.1"]], inplace=True)
    m.qconfig = get_default_qconfig("fbgemm")
    prepare(m, inplace=True)
    m(x)
    convert(m, inplace=True)
    export(m, x, output_path("exported/zoo.qwasm.safetensors"))
    cases.append({"name": "zoo (quantized)", "file": "exported/zoo.qwasm.safetensors", "x": arr(x.numpy()),
                  "y": arr(m(x).numpy())})
    f = FloatZoo().eval()
    with torch.no_grad():
        f.bn.running_mean.uniform_(-0.2, 0.2)
        f.bn.running_var.uniform_(0.5, 2)
        f.bn.weight.uniform_(0.5, 1.5)
    export(f, x, output_path("exported/zoo_float.qwasm.safetensors"))
    with torch.no_grad():
        cases.append({"name": "zoo (float)", "file": "exported/zoo_float.qwasm.safetensors", "x": arr(x.numpy()),
                      "y": arr(f(x).numpy())})
    return cases
