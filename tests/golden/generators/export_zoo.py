"""export_zoo.json: a model using every node kind the exporter writes, quantized and float,
-0, NaN and +-Inf through every float op a model file can hold, and the float add's
broadcasting and numbers."""
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


def non_finite_cases():
    """-0, +0, NaN, +Inf and -Inf through every float op a model file can
    hold, one small float model each (exported/nonfinite_*.qwasm.safetensors):
    BatchNorm (affine, with a negative and a zero gamma, and not), the ReLU and
    ReLU6 modules, relu as a function and a method, the float pools, flatten
    (module, function, method) with view / reshape, Identity / Dropout and the
    float add. Each output is PyTorch's to the bit (a NaN matches any NaN)."""
    add_to_path("..", "..", "python")
    from qwasm_export import export
    nn = torch.nn
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 51)
    x = rng.uniform(-8, 8, (2, 3, 4, 4)).astype(np.float32)
    flat = x.reshape(-1)
    corners = [-0.0, 0.0, np.nan, np.inf, -np.inf, 6.0, -6.0, 1e-45, -1e-45, 3e38, -3e38]
    # Every corner at least twice, in each channel and in different pool windows.
    for i, v in enumerate(corners * 3):
        flat[(i * 7 + 3) % flat.size] = v
    x = torch.from_numpy(x)

    class Relus(nn.Module):
        def forward(self, x):
            return torch.relu(x) + x.relu()  # function and method; -0 + -0 is -0

    class Shapes(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.keep = nn.Identity()
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            y = self.drop(self.keep(self.flatten(x)))  # [2, 48]
            y = y.view(2, 3, 16).reshape(6, -1)
            return torch.flatten(y.view(6, 4, 4), 1).flatten()

    class Add(nn.Module):
        def forward(self, x):
            return x + x.flatten(1).reshape(2, 3, 4, 4)

    def batchnorm(affine):
        bn = nn.BatchNorm2d(3, affine=affine).eval()
        with torch.no_grad():
            bn.running_mean.copy_(torch.tensor([0.5, -0.25, 0.0]))
            bn.running_var.copy_(torch.tensor([2.0, 0.3, 1.0]))
            if affine:
                bn.weight.copy_(torch.tensor([1.5, -0.75, 0.0]))  # a negative gamma flips -Inf; 0 * Inf is NaN
                bn.bias.copy_(torch.tensor([-0.25, 0.0, 0.125]))
        return bn

    models = [
        ("BatchNorm2d", batchnorm(True)),
        ("BatchNorm2d without affine", batchnorm(False)),
        ("ReLU", nn.ReLU()),
        ("ReLU6", nn.ReLU6()),
        ("relu function and method", Relus()),
        ("MaxPool2d", nn.MaxPool2d(2)),
        ("AvgPool2d", nn.AvgPool2d(2)),
        ("AdaptiveAvgPool2d", nn.AdaptiveAvgPool2d(2)),
        ("Flatten, Identity, Dropout, view, reshape, flatten", Shapes()),
        ("add", Add()),
    ]
    cases = []
    for name, m in models:
        m = nn.Sequential(m).eval()  # torch.fx traces the root's forward: a leaf module must be a child
        slug = "".join(c if c.isalnum() else "_" for c in name.split(",")[0].lower()).strip("_")
        file = f"exported/nonfinite_{slug}.qwasm.safetensors"
        export(m, x, output_path(file))
        with torch.no_grad():
            cases.append({"name": f"non-finite: {name}", "file": file, "x": arr(x.numpy()), "y": arr(m(x).numpy())})
    return cases


def float_add_cases():
    """The float add of a model file as PyTorch computes it: shapes that
    broadcast (each operand stretched) and a tensor plus
    a number (a float, 1.0 + x, an int, +=), on an input holding -0, NaN,
    +-Inf, subnormals and float32's extremes
    (exported/float_add_*.qwasm.safetensors). Each add is one float32
    addition: the outputs are PyTorch's to the bit (a NaN matches any NaN)."""
    add_to_path("..", "..", "python")
    from qwasm_export import export
    nn = torch.nn
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 52)
    x = rng.uniform(-8, 8, (2, 3, 4, 5)).astype(np.float32)
    flat = x.reshape(-1)
    corners = [-0.0, 0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 3e38, -3e38, 16777216.0]
    for i, v in enumerate(corners * 2):
        flat[(i * 11 + 5) % flat.size] = v
    x = torch.from_numpy(x)

    class Broadcast(nn.Module):
        def __init__(self):
            super().__init__()
            # Max pools: exact, and NaN propagates.
            self.rows = nn.MaxPool2d((1, 5))  # [N, 3, 4, 1]
            self.cols = nn.MaxPool2d((4, 1))  # [N, 3, 1, 5]
            self.all = nn.MaxPool2d((4, 5))  # [N, 3, 1, 1]

        def forward(self, x):
            # Each side stretched ([N, 3, 4, 1] + [N, 3, 1, 5]), the smaller one first, and no
            # constant shape in the graph, so the file runs on any batch, 0 included.
            # (Ranks that differ: graph-nodes.test.mjs and export-loadable.test.mjs.)
            return (self.rows(x) + self.cols(x)) + (self.all(x) + x)

    class Scalars(nn.Module):
        def forward(self, x):
            y = torch.add(1.0 + x, 0.1)  # 0.1 is added as float32(0.1)
            y += 3
            return y + 16777217  # an int PyTorch converts to float32 (16777216)

    cases = []
    for name, slug, m in (("broadcasting", "broadcast", Broadcast()), ("a number", "scalar", Scalars())):
        m = m.eval()
        file = f"exported/float_add_{slug}.qwasm.safetensors"
        export(m, x, output_path(file))
        with torch.no_grad():
            cases.append({"name": f"float add: {name}", "file": file, "x": arr(x.numpy()), "y": arr(m(x).numpy())})
    return cases
