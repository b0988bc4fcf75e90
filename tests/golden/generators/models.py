"""models.json / models_x86.json: three small 3D CNNs through the eager flow."""

import numpy as np
import torch

from .common import SEED, arr


def model_cases():
    """Three small 3D CNNs through PyTorch's whole eager flow with the default
    x86 QConfig (HistogramObserver activations with reduce_range, per-channel
    symmetric qint8 weights): fuse_modules, prepare, calibration, convert, and
    the converted model on a test input.

    The weights, BatchNorm statistics and inputs are dyadic (multiples of
    powers of two, sparse weights, BatchNorms that fold to powers of two), so
    that every float32 value of the calibration forward is exact: any
    summation order gives the same bits, and the JavaScript flow can be
    compared bit for bit. generate.py checks that claim for every layer (the
    float32 forward equals the float64 one, on the values and on their
    absolute values, which bound every partial sum)."""
    from torch.ao.quantization import DeQuantStub, QuantStub, convert, fuse_modules, get_default_qconfig, prepare
    nn = torch.nn
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 11)

    def sparse_weight(shape, nonzero=2):
        w = np.zeros(shape, np.float32)
        flat = w.reshape(shape[0], -1)
        for o in range(shape[0]):
            idx = rng.choice(flat.shape[1], size=min(nonzero, flat.shape[1]), replace=False)
            flat[o, idx] = rng.choice([-1.0, -0.5, 0.5, 1.0], size=len(idx))
        return w

    def conv(cin, cout, k, **kw):
        c = nn.Conv3d(cin, cout, k, **kw)
        with torch.no_grad():
            c.weight.copy_(torch.from_numpy(sparse_weight(tuple(c.weight.shape))))
            if c.bias is not None:
                c.bias.copy_(torch.from_numpy(rng.integers(-4, 5, size=cout).astype(np.float32) / 4))
        return c

    def bn(n):
        b = nn.BatchNorm3d(n)
        var = np.float32(1) - np.float32(b.eps)
        assert var + np.float32(b.eps) == np.float32(1)  # folds with r = 1 exactly
        with torch.no_grad():
            b.running_var.fill_(float(var))
            b.running_mean.copy_(torch.from_numpy(rng.integers(-4, 5, size=n).astype(np.float32) / 4))
            b.weight.copy_(torch.from_numpy(rng.choice([0.5, 1.0, 2.0], size=n).astype(np.float32)))
            b.bias.copy_(torch.from_numpy(rng.integers(-4, 5, size=n).astype(np.float32) / 4))
        return b

    def linear(i, o):
        l = nn.Linear(i, o)
        with torch.no_grad():
            l.weight.copy_(torch.from_numpy(sparse_weight((o, i), nonzero=3)))
            l.bias.copy_(torch.from_numpy(rng.integers(-4, 5, size=o).astype(np.float32) / 4))
        return l

    class C3D(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.conv1, self.bn1, self.relu1 = conv(3, 8, 3, padding=1), bn(8), nn.ReLU()
            self.pool1 = nn.MaxPool3d((1, 2, 2))
            self.conv2, self.bn2, self.relu2 = conv(8, 16, 3, padding=1), bn(16), nn.ReLU()
            self.pool2 = nn.MaxPool3d(2)
            self.conv3, self.bn3, self.relu3 = conv(16, 16, 3, padding=1), bn(16), nn.ReLU()
            self.pool3 = nn.AvgPool3d(2)
            self.gap = nn.AdaptiveAvgPool3d(1)
            self.flatten = nn.Flatten()
            self.dropout = nn.Dropout(0.5)
            self.fc = linear(16, 5)
            self.dequant = DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            x = self.pool1(self.relu1(self.bn1(self.conv1(x))))
            x = self.pool2(self.relu2(self.bn2(self.conv2(x))))
            x = self.pool3(self.relu3(self.bn3(self.conv3(x))))
            x = self.dropout(self.flatten(self.gap(x)))
            return self.dequant(self.fc(x))

    fuse_c3d = [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"], ["conv3", "bn3", "relu3"]]

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1, self.bn1, self.relu1 = conv(cin, cout, 3, stride=stride, padding=1, bias=False), bn(cout), nn.ReLU()
            self.conv2, self.bn2 = conv(cout, cout, 3, padding=1, bias=False), bn(cout)
            self.downsample = (nn.Sequential(conv(cin, cout, 1, stride=stride, bias=False), bn(cout))
                               if stride != 1 or cin != cout else None)
            self.skip = torch.ao.nn.quantized.FloatFunctional()

        def forward(self, x):
            y = self.relu1(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            identity = self.downsample(x) if self.downsample is not None else x
            return self.skip.add_relu(y, identity)

    class ResNet3d(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.stem, self.stem_bn, self.stem_relu = conv(3, 8, 3, padding=1, bias=False), bn(8), nn.ReLU()
            self.layer1 = Block(8, 8, 1)
            self.layer2 = Block(8, 16, 2)
            self.gap = nn.AdaptiveAvgPool3d(1)
            self.flatten = nn.Flatten()
            self.fc = linear(16, 5)
            self.dequant = DeQuantStub()

        def forward(self, x):
            x = self.stem_relu(self.stem_bn(self.stem(self.quant(x))))
            x = self.layer2(self.layer1(x))
            return self.dequant(self.fc(self.flatten(self.gap(x))))

    fuse_resnet = [["stem", "stem_bn", "stem_relu"], ["layer1.conv1", "layer1.bn1", "layer1.relu1"], ["layer1.conv2", "layer1.bn2"],
                   ["layer2.conv1", "layer2.bn1", "layer2.relu1"], ["layer2.conv2", "layer2.bn2"], ["layer2.downsample.0", "layer2.downsample.1"]]

    class R2Plus1D(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.s1, self.s1_bn, self.s1_relu = conv(3, 8, (1, 3, 3), padding=(0, 1, 1), bias=False), bn(8), nn.ReLU()
            self.t1, self.t1_bn, self.t1_relu = conv(8, 8, (3, 1, 1), padding=(1, 0, 0), bias=False), bn(8), nn.ReLU()
            self.s2, self.s2_bn, self.s2_relu = conv(8, 16, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), bias=False), bn(16), nn.ReLU()
            self.t2, self.t2_bn, self.t2_relu = conv(16, 16, (3, 1, 1), stride=(2, 1, 1), padding=(1, 0, 0), bias=False), bn(16), nn.ReLU()
            self.pool = nn.MaxPool3d(2)
            self.gap = nn.AdaptiveAvgPool3d(1)
            self.flatten = nn.Flatten()
            self.fc = linear(16, 5)
            self.dequant = DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            x = self.t1_relu(self.t1_bn(self.t1(self.s1_relu(self.s1_bn(self.s1(x))))))
            x = self.t2_relu(self.t2_bn(self.t2(self.s2_relu(self.s2_bn(self.s2(x))))))
            x = self.gap(self.pool(x))
            return self.dequant(self.fc(self.flatten(x)))

    fuse_r21d = [[f"{n}", f"{n}_bn", f"{n}_relu"] for n in ("s1", "t1", "s2", "t2")]

    def dyadic_input(shape):
        return torch.from_numpy(rng.integers(-8, 9, size=shape).astype(np.float32) / 4)

    def certify(model, xs):
        """Every leaf's float32 output equals the float64 one, on x and on |x| with |weights|."""
        m64 = copy.deepcopy(model).double()
        ab64 = copy.deepcopy(model).double()
        with torch.no_grad():
            for p in ab64.parameters():
                p.abs_()
        outs = {}
        def hook(name):
            def h(mod, inp, out):
                outs.setdefault(name, []).append(out.detach())
            return h
        for tag, mm in (("f32", model), ("f64", m64), ("abs", ab64)):
            handles = [mod.register_forward_hook(hook((tag, n))) for n, mod in mm.named_modules() if not list(mod.children())]
            with torch.no_grad():
                for x in xs:
                    mm(x.double().abs() if tag == "abs" else (x.double() if tag == "f64" else x))
            for hd in handles:
                hd.remove()
        for (tag, name), vals in outs.items():
            if tag != "f32":
                continue
            for a, b, c in zip(vals, outs[("f64", name)], outs[("abs", name)]):
                if not torch.equal(a.double(), b):
                    d = (a.double() - b).abs().max().item()
                    raise SystemExit(f"model golden: {name} is not exact in float32 (max |f32 - f64| {d}, max |x| {b.abs().max().item()})")
                if not torch.equal(c.float().double(), c):
                    raise SystemExit(f"model golden: {name}'s absolute sums are not exact in float32")

    import copy
    cases = []
    for name, Net, groups, shape in [("C3D-style", C3D, fuse_c3d, (2, 3, 8, 16, 16)),
                                     ("3D ResNet basic blocks", ResNet3d, fuse_resnet, (2, 3, 8, 8, 8)),
                                     ("R(2+1)D", R2Plus1D, fuse_r21d, (2, 3, 8, 16, 16))]:
        model = Net().eval()
        calib = [dyadic_input(shape) for _ in range(2)]
        test_x = dyadic_input(shape)
        state = {k: arr(v.detach().numpy()) for k, v in model.state_dict().items() if v.dtype == torch.float32}
        fused = fuse_modules(copy.deepcopy(model), groups)
        certify(fused, calib + [test_x])  # the calibration forward runs the folded model
        fused.qconfig = get_default_qconfig("x86")
        prepared = prepare(fused)
        with torch.no_grad():
            for x in calib:
                prepared(x)
        q = convert(prepared)
        with torch.no_grad():
            y = q(test_x)
        modules = {}
        for n, mod in q.named_modules():
            if hasattr(mod, "scale") and hasattr(mod, "zero_point") and n:
                entry = {"type": type(mod).__name__, "scale": float(mod.scale), "zero_point": int(mod.zero_point)}
                if hasattr(mod, "weight") and callable(mod.weight):
                    w = mod.weight()
                    entry["weight_ints"] = arr(w.int_repr().numpy())
                    entry["weight_scales"] = arr(w.q_per_channel_scales().numpy())
                modules[n] = entry
        # PyTorch's numeric suite on the fused float model and the converted one, on the test input.
        from .numeric_suite import numeric_suite_of
        cases.append({"name": name, "state": state, "fuse": groups, "calibration": [arr(x.numpy()) for x in calib],
                      "x": arr(test_x.numpy()), "y": arr(y.numpy()), "modules": modules,
                      "numeric_suite": numeric_suite_of(fused, q, test_x)})
    return cases
