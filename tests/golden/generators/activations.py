"""activations.json: the element-wise activations (docs/numerics.md, "Element-wise activations") in exported
models (exported/activations_*.qwasm.safetensors).

- float: one float graph (torch.export, no quantization) applying every float activation to one input of
  2 x 4 x 288 values: -0, NaN, +-Inf, large magnitudes, subnormals, the kinks (-3, 3, 0), and values drawn
  over the ranges where each function bends; the outputs concatenated along dim 0. Every row is a
  multiple of 32 long, so PyTorch computes every element on its vectorized (AVX512: 16 floats, two per
  step) path. PReLU has one slope per channel (dim 1).
- pt2e: convs with each activation between them, quantized with QwasmQuantizer (every activation is a
  QuantizedLookup); each activation's input has 4 x 8 x 8 = 256 elements (a multiple of 32: PyTorch's
  vectorized path everywhere), so qwasm's output is PyTorch's to the bit.
- pt2e_tail: the same ops on 4 x 5 x 5 = 100 elements, whose last 100 mod 32 = 4 PyTorch computes on its
  scalar path (std::exp instead of Sleef): where that rounds across a quantization boundary, qwasm's table
  (the vectorized path's integers) is one step away.
- pt2e_int8: the pt2e chain with qint8 activations (as XNNPACKQuantizer's), written as quint8 with the zero
  point + 128: each table is indexed by the shifted integer.
- se: a squeeze-excitation block in 3D (conv3d, global average pool, conv, relu, conv, sigmoid) with a SiLU
  (swish) after the first conv, as X3D has them, quantized with QwasmQuantizer.
- eager: an eager-quantized model (torch.ao.quantization prepare / convert, fbgemm) with nnq.Hardswish,
  nnq.ELU, nnq.LeakyReLU, nnq.PReLU (4 slopes) and nn.Sigmoid, nn.Tanh, nn.Hardsigmoid, which convert leaves
  float and PyTorch runs with its quantized kernels; the exporter writes each as the module's own output on
  a QTensor of all 256 integers (QuantizedLookup). The activations' inputs have 4 x 8 x 8 elements.
- monai: MONAI's own blocks, as its networks build them (UNet's ResidualUnit with PReLU, BasicUNet's TwoConv
  and Down with LeakyReLU(inplace=True), DynUNet's UnetResBlock with an in-place residual add and
  leaky_relu_), with BatchNorm where those networks default to InstanceNorm (which prepare_pt2e folds),
  through the PT2E recipe (QwasmQuantizer).
- fx: a float model per traced function (torch.sigmoid, torch.tanh, x.sigmoid(), x.tanh(), F.silu,
  F.hardswish, F.hardsigmoid, F.mish), exported through the eager (torch.fx) flow,
  on the float case's input.
- tail_measurements: for each activation and 16 random input / output qparams, how many of the 256 input
  integers get another output integer on PyTorch's scalar path than on its vectorized path (the table),
  and the largest difference in steps; eager_tail_measurements: the same for the eager model's quantized
  kernels (each module on the 256 integers at once, and on each alone).
"""
import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path

FLOAT_ORDER = ["LeakyReLU", "PReLU", "Hardsigmoid", "Hardswish", "Sigmoid", "Tanh", "SiLU", "ELU", "GELU",
               "Softplus", "Mish", "LeakyReLU_neg", "ELU_alpha", "Softplus_beta"]


def _float_modules(nn):
    torch.manual_seed(SEED % 1000 + 90)
    prelu = nn.PReLU(4)
    with torch.no_grad():
        prelu.weight.copy_(torch.tensor([0.25, -0.5, 0.0, 1.75]))
    return {"LeakyReLU": nn.LeakyReLU(0.01), "PReLU": prelu, "Hardsigmoid": nn.Hardsigmoid(),
            "Hardswish": nn.Hardswish(), "Sigmoid": nn.Sigmoid(), "Tanh": nn.Tanh(), "SiLU": nn.SiLU(),
            "ELU": nn.ELU(), "GELU": nn.GELU(approximate="tanh"), "Softplus": nn.Softplus(), "Mish": nn.Mish(),
            "LeakyReLU_neg": nn.LeakyReLU(-0.3), "ELU_alpha": nn.ELU(alpha=0.7),
            "Softplus_beta": nn.Softplus(beta=2.5, threshold=7.0)}


def _float_input(rng):
    specials = [-0.0, 0.0, np.nan, np.inf, -np.inf, -3.0, 3.0, 1e30, -1e30, 3.4e38, -3.4e38, 1e-45, -1e-45,
                1e-40, -1e-40, 88.7, -88.7, 89.0, -89.0, 104.0, -104.0, 20.0, 20.000002, 7.0 / 2.5, 2.9999998,
                -2.9999998, 3.0000002, -3.0000002, 1e-8, -1e-8, 1e-20, -1e-20]
    n = 2 * 4 * 288
    parts = [np.array(specials, np.float32),
             rng.uniform(-10, 10, 1500).astype(np.float32),
             (rng.standard_normal(600) * 3).astype(np.float32),
             (np.sign(rng.standard_normal(n)) * np.exp(rng.uniform(np.log(1e-9), np.log(120.0), n))).astype(
                 np.float32)]
    x = np.concatenate(parts)[:n]
    return torch.from_numpy(x.reshape(2, 4, 288).copy())


def _float_case(nn):
    from qwasm_export import export
    mods = _float_modules(nn)

    class AllFloat(nn.Module):
        def __init__(self):
            super().__init__()
            for k in FLOAT_ORDER:
                setattr(self, k.lower(), mods[k])

        def forward(self, x):
            return torch.cat([getattr(self, k.lower())(x) for k in FLOAT_ORDER], 0)

    rng = np.random.default_rng(SEED + 90)
    x = _float_input(rng)
    m = AllFloat().eval()
    with torch.no_grad():
        y = m(x)
        # Each function alone on the input, as a check that the concatenated graph is the functions' own values.
        for i, k in enumerate(FLOAT_ORDER):
            assert torch.equal(torch.nan_to_num(y[2 * i:2 * i + 2], 7.0), torch.nan_to_num(mods[k](x), 7.0)), k
    gm = torch.export.export(m, (x,))
    path = "exported/activations_float.qwasm.safetensors"
    export(gm.module(), x, output_path(path))
    return {"name": "float: every activation on -0, NaN, +-Inf, kinks and ranges", "file": path,
            "functions": FLOAT_ORDER, "x": arr(x.numpy()), "y": arr(y.numpy())}


class _Chain(torch.nn.Module):
    """conv -> activation -> conv -> ... with every activation of the format (inplace where PyTorch has it)."""

    def __init__(self, nn):
        super().__init__()
        acts = [nn.PReLU(4), nn.LeakyReLU(0.1, inplace=True), nn.Hardswish(), nn.Hardsigmoid(), nn.Sigmoid(),
                nn.Tanh(), nn.SiLU(), nn.ELU(), nn.GELU(), nn.GELU(approximate="tanh"), nn.Softplus(), nn.Mish(),
                nn.PReLU()]
        self.convs = nn.ModuleList([nn.Conv2d(3, 4, 3, padding=1)] + [nn.Conv2d(4, 4, 1) for _ in acts])
        self.acts = nn.ModuleList(acts)

    def forward(self, x):
        for conv, act in zip(self.convs, self.acts):
            x = act(conv(x))
        return self.convs[-1](x) if len(self.convs) > len(self.acts) else x


def _pt2e(model, calibration, x, activation=None):
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from qwasm_quantizer import QwasmQuantizer
    gm = torch.export.export(model.eval(), (x,)).module()
    gm = prepare_pt2e(gm, QwasmQuantizer(activation=activation))
    for c in calibration:
        gm(c)
    return convert_pt2e(gm)


def _lookups(path):
    import json

    from safetensors import safe_open
    with safe_open(path, "pt") as f:
        modules = json.loads(f.metadata()["graph"])["modules"]
    return sum(1 for m in modules.values() if m["type"] == "QuantizedLookup")


def _pt2e_cases(nn, rng):
    from qwasm_export import export
    cases = []
    torch.manual_seed(SEED % 1000 + 91)
    chain = _Chain(nn)
    from torchao.quantization.pt2e import HistogramObserver
    from torchao.quantization.pt2e.quantizer import QuantizationSpec
    int8 = QuantizationSpec(dtype=torch.int8, quant_min=-128, quant_max=127, qscheme=torch.per_tensor_affine,
                            is_dynamic=False, observer_or_fake_quant_ctr=HistogramObserver.with_args(eps=2**-12))
    for name, hw, what, activation in (
            ("pt2e", 8, "every activation as a table, each on 256 elements (vectorized path)", None),
            ("pt2e_tail", 5, "every activation as a table, each on 100 elements (4 on PyTorch's scalar path)", None),
            ("pt2e_int8", 8, "every activation as a table, qint8 activations", int8)):
        calib = [torch.from_numpy(rng.uniform(-3, 3, (1, 3, hw, hw)).astype(np.float32)) for _ in range(4)]
        x = torch.from_numpy(rng.uniform(-3, 3, (1, 3, hw, hw)).astype(np.float32))
        gm = _pt2e(chain, calib, x, activation)
        path = f"exported/activations_{name}.qwasm.safetensors"
        export(gm, x, output_path(path))
        assert _lookups(output_path(path)) == 13, "every activation must be a QuantizedLookup"
        with torch.no_grad():
            y = gm(x)
        cases.append({"name": f"{name}: {what}", "file": path, "x": arr(x.numpy()), "y": arr(y.numpy()),
                      "out_scale": float(gm.graph.find_nodes(op="output")[0].args[0][0].args[1])})

    class SqueezeExcite(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv3d(3, 8, 3, padding=1)
            self.swish = nn.SiLU()
            self.pool = nn.AdaptiveAvgPool3d(1)
            self.fc1 = nn.Conv3d(8, 4, 1)
            self.relu = nn.ReLU()
            self.fc2 = nn.Conv3d(4, 8, 1)
            self.gate = nn.Sigmoid()

        def forward(self, x):
            return self.gate(self.fc2(self.relu(self.fc1(self.pool(self.swish(self.stem(x)))))))

    torch.manual_seed(SEED % 1000 + 92)
    se = SqueezeExcite()
    calib = [torch.from_numpy(rng.uniform(-2, 2, (1, 3, 4, 8, 8)).astype(np.float32)) for _ in range(4)]
    x = torch.from_numpy(rng.uniform(-2, 2, (1, 3, 4, 8, 8)).astype(np.float32))
    gm = _pt2e(se, calib, x)
    path = "exported/activations_se.qwasm.safetensors"
    export(gm, x, output_path(path))
    assert _lookups(output_path(path)) == 2
    with torch.no_grad():
        y = gm(x)
    cases.append({"name": "se: squeeze-excitation (conv3d, SiLU, pool, conv, relu, conv, sigmoid)", "file": path,
                  "x": arr(x.numpy()), "y": arr(y.numpy()), "out_scale": 1.0 / 256.0})
    return cases


def _se_inline_case(nn):
    """Squeeze-excitation written as MONAI's MBConvBlock writes it: the block has its convs as
    submodules and calls torch.sigmoid and the multiply in its own forward, inside a Sequential.
    The exporter names such an op below the block's path (blocks.0.sigmoid): a file's module
    paths may not nest (MONAI's EfficientNetBN did not load before)."""
    from qwasm_export import export

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv3d(8, 8, 3, padding=1)
            self.pool = nn.AdaptiveAvgPool3d(1)
            self.reduce = nn.Conv3d(8, 4, 1)
            self.expand = nn.Conv3d(4, 8, 1)

        def forward(self, x):
            x = torch.relu(self.conv(x))
            s = self.expand(torch.relu(self.reduce(self.pool(x))))
            return x * torch.sigmoid(s)

    torch.manual_seed(SEED % 1000 + 95)
    rng = np.random.default_rng(SEED + 95)
    m = nn.Sequential(nn.Conv3d(3, 8, 3, padding=1), nn.Sequential(Block(), Block()))
    calib = [torch.from_numpy(rng.uniform(-2, 2, (1, 3, 4, 8, 8)).astype(np.float32)) for _ in range(4)]
    x = torch.from_numpy(rng.uniform(-2, 2, (1, 3, 4, 8, 8)).astype(np.float32))
    gm = _pt2e(m, calib, x)
    path = "exported/activations_se_inline.qwasm.safetensors"
    export(gm, x, output_path(path))
    assert _lookups(output_path(path)) == 2
    with torch.no_grad():
        y = gm(x)
    out_scale = float(gm.graph.find_nodes(op="output")[0].args[0][0].args[1])
    return {"name": "se_inline: squeeze-excitation in a block's own forward (torch.sigmoid, x * s), nested "
                    "Sequentials, PT2E", "file": path, "x": arr(x.numpy()), "y": arr(y.numpy()),
            "out_scale": out_scale}


def _tail_measurements(rng):
    """Per function: over 16 random qparams, the 256 input integers' outputs on PyTorch's vectorized path
    (a tensor of 256) and on its scalar path (each value alone: a tensor of 1 element)."""
    F = torch.nn.functional
    fns = {"leaky_relu": lambda v: F.leaky_relu(v, 0.1), "prelu": lambda v: F.prelu(v, torch.tensor([0.25])),
           "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
           "silu": F.silu, "elu": F.elu, "gelu": F.gelu, "gelu_tanh": lambda v: F.gelu(v, approximate="tanh"),
           "softplus": F.softplus, "mish": F.mish}
    out = {}
    ints = torch.arange(256, dtype=torch.uint8)
    for name, fn in fns.items():
        differ, largest = 0, 0
        for _ in range(16):
            s_in, z_in = float(np.float32(rng.uniform(0.002, 0.08))), int(rng.integers(0, 256))
            s_out, z_out = float(np.float32(rng.uniform(0.002, 0.05))), int(rng.integers(0, 256))
            x = (ints.to(torch.float32) - z_in) * s_in
            with torch.no_grad():
                vec = torch.quantize_per_tensor(fn(x), s_out, z_out, torch.quint8).int_repr().to(torch.int32)
                sca = torch.stack([torch.quantize_per_tensor(fn(x[i:i + 1]), s_out, z_out, torch.quint8)
                                   .int_repr()[0].to(torch.int32) for i in range(256)])
            d = (vec - sca).abs()
            differ += int((d > 0).sum())
            largest = max(largest, int(d.max()))
        out[name] = {"entries": 16 * 256, "differ": differ, "largest_steps": largest}
    return out


class _EagerChain(torch.nn.Module):
    def __init__(self, nn):
        super().__init__()
        from torch.ao.quantization import DeQuantStub, QuantStub
        self.quant, self.dequant = QuantStub(), DeQuantStub()
        self.acts = nn.ModuleList([nn.Hardswish(), nn.ELU(0.5), nn.LeakyReLU(0.2), nn.PReLU(4), nn.Sigmoid(),
                                   nn.Tanh(), nn.Hardsigmoid()])
        self.convs = nn.ModuleList([nn.Conv2d(3, 4, 3, padding=1)] + [nn.Conv2d(4, 4, 1) for _ in self.acts])

    def forward(self, x):
        x = self.quant(x)
        for conv, act in zip(self.convs, self.acts):
            x = act(conv(x))
        return self.dequant(self.convs[-1](x))


def _eager(nn, rng):
    from torch.ao.quantization import convert, default_qconfig, get_default_qconfig, prepare

    from qwasm_export import export
    torch.manual_seed(SEED % 1000 + 93)
    m = _EagerChain(nn).eval()
    m.qconfig = get_default_qconfig("fbgemm")
    # nnq.PReLU.from_float cannot take the default per-channel weight observer (a 1-D weight): per tensor.
    m.acts[3].qconfig = default_qconfig
    prepare(m, inplace=True)
    for _ in range(4):
        m(torch.from_numpy(rng.uniform(-3, 3, (1, 3, 8, 8)).astype(np.float32)))
    convert(m, inplace=True)
    x = torch.from_numpy(rng.uniform(-3, 3, (1, 3, 8, 8)).astype(np.float32))
    path = "exported/activations_eager.qwasm.safetensors"
    export(m, x, output_path(path))
    assert _lookups(output_path(path)) == 7, "every activation must be a QuantizedLookup"
    with torch.no_grad():
        y = m(x)
    case = {"name": "eager: nnq.Hardswish, ELU, LeakyReLU, PReLU and Sigmoid, Tanh, Hardsigmoid on QTensors",
            "file": path, "x": arr(x.numpy()), "y": arr(y.numpy())}

    measured = {}
    for act in m.acts:
        differ, largest, entries = 0, 0, 0
        for _ in range(16):
            s_in, z_in = float(np.float32(rng.uniform(0.002, 0.08))), int(rng.integers(0, 256))
            ints = torch.arange(256, dtype=torch.int32).to(torch.uint8).reshape(1, 1, 256).expand(1, 4, 256)
            q = torch._make_per_tensor_quantized_tensor(ints.contiguous(), s_in, z_in)
            with torch.no_grad():
                vec = act(q).int_repr().to(torch.int32).reshape(4, 256)
                # Each integer alone (with one element per channel: 4, under any vector width).
                sca = torch.cat([act(q[:, :, i:i + 1].contiguous()).int_repr().reshape(4, 1).to(torch.int32)
                                 for i in range(256)], 1)
            d = (vec - sca).abs()
            differ += int((d > 0).sum())
            largest = max(largest, int(d.max()))
            entries += d.numel()
        measured[type(act).__name__] = {"entries": entries, "differ": differ, "largest_steps": largest}
    return case, measured


def _monai_case(nn, rng):
    from monai.networks.blocks import ResidualUnit, UnetResBlock
    from monai.networks.nets.basic_unet import Down, TwoConv

    from qwasm_export import export
    leaky = ("LeakyReLU", {"negative_slope": 0.1, "inplace": True})
    batch = ("batch", {"affine": True})

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.unet_unit = ResidualUnit(spatial_dims=3, in_channels=1, out_channels=8, strides=2, kernel_size=3,
                                          subunits=2, act="PRELU", norm="BATCH", dropout=0.0)
            self.basic_conv = TwoConv(3, 8, 8, act=leaky, norm=batch, bias=True, dropout=0.0)
            self.basic_down = Down(3, 8, 16, act=leaky, norm=batch, bias=True, dropout=0.0)
            self.dyn_block = UnetResBlock(3, 16, 16, kernel_size=3, stride=1, norm_name="batch",
                                          act_name=("leakyrelu", {"inplace": True, "negative_slope": 0.01}))

        def forward(self, x):
            return self.dyn_block(self.basic_down(self.basic_conv(self.unet_unit(x))))

    torch.manual_seed(SEED % 1000 + 94)
    m = Encoder().eval()
    calib = [torch.from_numpy(rng.standard_normal((1, 1, 16, 16, 16)).astype(np.float32)) for _ in range(4)]
    x = torch.from_numpy(rng.standard_normal((1, 1, 16, 16, 16)).astype(np.float32))
    gm = _pt2e(m, calib, x)
    path = "exported/activations_monai.qwasm.safetensors"
    export(gm, x, output_path(path))
    assert _lookups(output_path(path)) == 8, "every PReLU and LeakyReLU must be a QuantizedLookup"
    with torch.no_grad():
        y = gm(x)
    out_scale = float(gm.graph.find_nodes(op="output")[0].args[0][0].args[1])
    return {"name": "monai: ResidualUnit (PReLU), TwoConv and Down (LeakyReLU inplace), UnetResBlock (add_, "
                    "leaky_relu_), PT2E", "file": path, "x": arr(x.numpy()), "y": arr(y.numpy()),
            "out_scale": out_scale}


class _Call(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _fx_cases(rng):
    from qwasm_export import export
    F = torch.nn.functional
    calls = {"sigmoid": ("Sigmoid", torch.sigmoid), "tanh": ("Tanh", torch.tanh),
             "sigmoid_method": ("Sigmoid", lambda v: v.sigmoid()), "tanh_method": ("Tanh", lambda v: v.tanh()),
             "silu": ("SiLU", F.silu), "hardswish": ("Hardswish", F.hardswish),
             "hardsigmoid": ("Hardsigmoid", F.hardsigmoid), "mish": ("Mish", F.mish)}
    x = _float_input(rng)
    cases = []
    for name, (kind, fn) in calls.items():
        m = _Call(fn).eval()
        path = f"exported/activations_fx_{name}.qwasm.safetensors"
        export(m, x, output_path(path))
        with torch.no_grad():
            y = m(x)
        cases.append({"name": f"fx: {name}", "file": path, "bound": kind, "x": arr(x.numpy()), "y": arr(y.numpy())})
    return cases


def activations_cases():
    add_to_path("..", "..", "python")
    nn = torch.nn
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 91)
    cases = [_float_case(nn)] + _pt2e_cases(nn, rng) + [_se_inline_case(nn)]
    eager, eager_measured = _eager(nn, rng)
    cases += [eager, _monai_case(nn, rng)] + _fx_cases(rng)
    return cases, {"tail_measurements": _tail_measurements(rng), "eager_tail_measurements": eager_measured}
