"""layout.json: the layout ops (permute, transpose, pad, and the no-op conversions
torch.export leaves) in exported models (exported/layout_*.qwasm.safetensors).

- "pt2e int8 ops": QwasmQuantizer quantizes a max pool's output; permute,
  transpose and pad in every mode (a constant fill of 0 and of 0.37, negative
  pads) then run on the integers with the input's qparams, as the converted
  graph's dequantize -> op -> quantize gives them; the output is dequantized.
  Quantize and dequantize are exact, so the output is PyTorch's to the bit.
- "pt2e int8 convs": Conv3d layers with those ops between them (and to / type_as
  no-ops): the convs agree within the bounds of the pt2e family, the ops move the
  integers exactly. Per layer and end to end.
- "pt2e float": the same ops in a float torch.export graph, on -0, NaN, +-Inf: bit for bit.
- "eager int8" / "eager float": torch.fx's x.permute / torch.permute /
  x.transpose / torch.transpose / F.pad and the nn.*Pad modules on QTensors of
  an eager-quantized model, and on floats: bit for bit.
- MONAI's HighResNet (pad of the channels, x.to(device)) through PT2E: the
  per-voxel argmax and the logits within 2 steps.
- "csn": pytorchvideo's CSN (create_csn, model_depth 50, stem width 8, 8x64x64
  clips) through PT2E with QwasmQuantizer: its head permutes the pooled
  features to channels-last, runs the linear, and permutes back.

The export also refuses a real dtype change (x.to(torch.float64)), checked here.
"""
import operator

import numpy as np
import torch

from .common import SEED, add_to_path, arr, eager_quantized, output_path, repository_relative
from .pt2e import _layers, _output_qparams

nn, F = torch.nn, torch.nn.functional


class _OpsOnly(nn.Module):
    """A max pool (which QwasmQuantizer quantizes even on a float input), then only layout ops."""

    def forward(self, x):
        y = F.max_pool3d(x, 1)
        y = y.permute(0, 3, 1, 4, 2)                       # N H C W T
        y = torch.transpose(y, 1, 2)                       # N C H W T
        y = F.pad(y, (1, 2, 0, 1, 2, 0))                   # constant 0 on the last three dims
        y = F.pad(y, (2, 1, 1, 3, 0, 1), mode="reflect")
        y = F.pad(y, (1, 1, 2, 0, 1, 1), mode="replicate")
        y = F.pad(y, (3, 1, 1, 2, 0, 2), mode="circular")
        y = F.pad(y, (-1, 2, 1, -2), value=0.37)           # a fill that is not the zero point; crops
        y = F.pad(y, (-2, 1, 1, -1, 0, 0), mode="reflect")
        y = F.pad(y, (1, -1, 0, -1, 1, 0), mode="replicate")
        y = F.pad(y, (-1, 2, 0, 0, 0, 0), mode="circular")
        return y.transpose(-1, 0).permute(4, 3, 2, 1, 0)


class _Convs(nn.Module):
    """Conv3d layers with layout ops between them, ending in a classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv3d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv3d(8, 8, 3)
        self.conv3 = nn.Conv3d(8, 12, (1, 3, 3))
        self.fc = nn.Linear(12, 10)

    def forward(self, x):
        y = F.relu(self.conv1(x))
        y = y.permute(0, 1, 3, 2, 4)                      # the time and height dims swapped
        y = F.pad(y, (1, 1, 0, 2, 1, 0))
        y = self.conv2(y).to(torch.float32).to("cpu")     # no-ops torch.export keeps
        y = torch.transpose(y, 3, 4)
        y = F.pad(y, (1, 1, 1, 1, 1, 1), mode="replicate")
        y = F.relu(self.conv3(y)).type_as(x)
        y = F.pad(y, (2, 1, 1, 2, 1, 1), mode="reflect")
        y = F.pad(y, (1, 1, 1, 1, 0, 0), mode="circular")
        y = F.pad(y, (1, -1, 0, 0), value=0.37)
        y = F.adaptive_avg_pool3d(y, 1).flatten(1)
        return self.fc(y)


class _FloatOps(nn.Module):
    def forward(self, x):
        y = x.permute(0, 2, 3, 1)
        y = torch.transpose(y, 1, 3).to(torch.float32)
        y = F.pad(y, (1, 2, -1, 1), value=-0.0)
        y = F.pad(y, (2, 1, 1, 2), mode="reflect")
        y = F.pad(y, (1, 0, 0, 3), mode="replicate")
        y = F.pad(y, (2, -1, 1, 1), mode="circular")
        y = F.pad(y, (1, 1, 1, 1, 1, 1, 1, 0), value=1e-45)   # a subnormal fill, every dim
        return y.transpose(0, 1).permute(1, 0, 3, 2)


class _EagerQuantized(nn.Module):
    def __init__(self):
        super().__init__()
        from torch.ao.quantization import DeQuantStub, QuantStub
        self.quant = QuantStub()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.pads = nn.Sequential(nn.ConstantPad2d((1, 0, 2, 1), 0.61), nn.ZeroPad2d((0, 1, 1, 0)),
                                  nn.ReflectionPad2d(1))  # (PyTorch has no quantized replication pad)
        self.dequant = DeQuantStub()

    def forward(self, x):
        y = self.conv(self.quant(x))
        y = y.permute(0, 2, 1, 3)
        y = torch.permute(y, (0, 2, 3, 1))
        y = y.transpose(1, 3)
        y = torch.transpose(y, 2, 3)
        y = F.pad(y, (1, 2, 2, 0))
        y = F.pad(y, (0, 1, 1, 1), value=0.37)
        y = F.pad(y, (-1, 1, 1, -1), mode="constant", value=0.0)
        return self.dequant(self.pads(y))


class _EagerFloat(nn.Module):
    def __init__(self):
        super().__init__()
        self.pads = nn.Sequential(nn.ConstantPad2d((1, 0, 2, 1), -0.0), nn.ReflectionPad2d(1),
                                  nn.ReplicationPad2d((1, 2, 0, 1)), nn.CircularPad2d(1), nn.ZeroPad2d((0, 1, 1, 0)),
                                  nn.ConstantPad3d((1, 0, 0, 1, 1, 0), 2.5))

    def forward(self, x):
        y = x.permute(0, 2, 1, 3)
        y = torch.permute(y, (0, 2, 3, 1)).transpose(1, 3)
        y = torch.transpose(y, 2, 3)
        y = F.pad(y, (1, 2, 2, 0))
        y = F.pad(y, (2, 1, 1, 1), mode="reflect")
        y = F.pad(y, (1, 1, 0, 2), mode="replicate")
        y = F.pad(y, (1, 3, 1, 1), mode="circular")
        return self.pads(F.pad(y, (0, 1, 1, 1), value=-2.5))


class _SelectOps(nn.Module):
    """A max pool (quantized by QwasmQuantizer), then squeeze / unsqueeze, slices, select, narrow, expand,
    repeat, flip, Dropout3d on the integers; then a split and a chunk (written as slices) and a stack."""

    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout3d(0.5)

    def forward(self, x):                                  # [1, 3, 4, 5, 6]
        y = self.drop(F.max_pool3d(x, 1))
        y = y.unsqueeze(2).squeeze(0)                      # [3, 1, 4, 5, 6]
        y = torch.squeeze(y, 1).unsqueeze(-1)              # [3, 4, 5, 6, 1]
        y = y[:, 1:, :, ::2].squeeze((4,))                 # [3, 3, 5, 3]
        y = y[:, :, -4:-1, 1]                              # select: [3, 3, 3]
        y = y.narrow(0, -2, 2).unsqueeze(1)                # [2, 1, 3, 3]
        y = y.expand(2, 3, 3, 3)
        y = y.repeat(1, 2, 1, 2)                           # [2, 6, 3, 6]
        y = torch.flip(y, (1, -1))
        a, b, c = torch.split(y, [1, 3, 2], dim=1)
        d, e = torch.chunk(y, 2, dim=1)
        return torch.stack([a.squeeze(1), c[:, 1], d[:, 0], e[:, 2]], dim=1) + 0.0


class _SelectFloat(nn.Module):
    """The same ops in float (torch.fx records them as methods and functions)."""

    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout3d(0.5)

    def forward(self, x):                                  # [2, 3, 4, 5]
        y = self.drop(x.unsqueeze(2)).squeeze(2)
        y = torch.unsqueeze(torch.squeeze(y.unsqueeze(0)), 1)  # [2, 1, 3, 4, 5]
        y = y.narrow(3, 1, 3).narrow(-1, -3, 2).squeeze(1)     # [2, 3, 3, 2]
        y = y.narrow(1, 0, 1).expand(4, 2, 3, 3, 2)
        y = y.repeat(1, 1, 2, 1, 3).flip(0, 3)
        y = torch.flip(y, [-1])
        return torch.stack([y, torch.relu(y)], 2)              # [4, 2, 2, 6, 3, 6]


class _SelectEagerQuantized(nn.Module):
    def __init__(self):
        super().__init__()
        from torch.ao.quantization import DeQuantStub, QuantStub
        self.quant = QuantStub()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(3, 4, 1)
        self.drop = nn.Dropout3d(0.5)
        self.dequant = DeQuantStub()

    def forward(self, x):                                  # [2, 3, 5, 6]
        q = self.quant(x)
        # two QTensors in other qparams: PyTorch requantizes the second to the first's
        y = torch.stack([self.conv(q), self.conv2(q)], 1).flatten(1, 2)  # [2, 8, 5, 6]
        y = self.drop(y.unsqueeze(2)).squeeze(2)
        y = torch.unsqueeze(torch.squeeze(y.unsqueeze(0)), 1)
        y = y.narrow(3, 1, 3).narrow(-1, -4, 3).squeeze(1)     # [2, 8, 3, 3]
        y = y.narrow(1, 5, 1).expand(3, 2, 2, 3, 3)
        y = y.repeat(1, 1, 2, 1, 2).flip(0, 3)
        y = torch.flip(y, [-1])
        return self.dequant(torch.stack([y, y], 2))


def _special_floats(x):
    flat = x.reshape(-1)
    for i, v in enumerate([-0.0, np.nan, np.inf, -np.inf, 1e-45, -3e38]):
        flat[i * 7 + 3] = v
    return x


def _pt2e(model, calibration, example):
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from qwasm_quantizer import QwasmQuantizer
    m = torch.export.export(model.eval(), (example,)).module()
    m = prepare_pt2e(m, QwasmQuantizer())
    with torch.no_grad():
        for x in calibration:
            m(x)
    return convert_pt2e(m)


def _on_integers(m, ops):
    """Each of `ops` reads a dequantize and feeds a quantize of the same qparams: the integer form runs."""
    dq = torch.ops.quantized_decomposed.dequantize_per_tensor.default
    q = torch.ops.quantized_decomposed.quantize_per_tensor.default
    # (an item of a split is a float value: what reads it stays float)
    found = [n for n in m.graph.nodes if n.op == "call_function" and n.target in ops
             and getattr(n.args[0], "target", None) is not operator.getitem]
    assert found, f"no {ops} in the graph"
    for n in found:
        users = list(n.users)
        assert n.args[0].target == dq and len(users) == 1 and users[0].target == q, n.format_node()
        assert tuple(n.args[0].args[1:3]) == tuple(users[0].args[1:3]), f"{n.name}: the qparams change"
    return len(found)


def _refuses_dtype_change():
    from qwasm_format import ExportError
    from qwasm_export import export

    class ToDouble(nn.Module):
        def forward(self, x):
            return x.to(torch.float64).relu().to(torch.float32)

    x = torch.zeros(1, 3)
    gm = torch.export.export(ToDouble(), (x,)).module()
    try:
        export(gm, x, output_path("exported/layout_refused.qwasm.safetensors"))
    except ExportError as e:
        assert "converts torch.float32 to torch.float64" in str(e), str(e)
        return repository_relative(str(e))
    raise AssertionError("x.to(torch.float64) must be refused")


def layout_cases():
    add_to_path("..", "models")
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from video_resnets import lcg_clip
    torch.set_num_threads(1)
    torch.manual_seed(SEED % 1000 + 90)
    rng = np.random.default_rng(SEED + 90)
    aten = torch.ops.aten
    cases = []

    # PT2E, only layout ops on the integers: bit for bit.
    shape = (1, 3, 4, 5, 6)
    calibration = [lcg_clip(9000 + i, shape) for i in range(2)]
    m = _pt2e(_OpsOnly(), calibration, calibration[0])
    counted = _on_integers(m, {aten.permute.default, aten.transpose.int, aten.pad.default})
    assert counted == 12, counted
    fname = "exported/layout_pt2e_ops.qwasm.safetensors"
    export(m, calibration[0], output_path(fname))
    clips = []
    for seed in (9100, 9101):
        with torch.no_grad():
            clips.append({"input": {"lcg": seed, "shape": list(shape)}, "y": arr(m(lcg_clip(seed, shape)).numpy())})
    cases.append({"name": "pt2e int8 ops: permute, transpose, pad on the integers", "kind": "exact", "file": fname,
                  "clips": clips})

    # PT2E, the selection ops on the integers (split / chunk / stack in float): bit for bit.
    shape = (1, 3, 4, 5, 6)
    calibration = [lcg_clip(9800 + i, shape) for i in range(2)]
    m = _pt2e(_SelectOps(), calibration, calibration[0])
    counted = _on_integers(m, {aten.squeeze.dim, aten.squeeze.dims, aten.unsqueeze.default, aten.slice.Tensor,
                               aten.select.int, aten.narrow.default, aten.expand.default, aten.repeat.default,
                               aten.flip.default})
    assert counted >= 12, counted
    fname = "exported/layout_pt2e_select.qwasm.safetensors"
    export(m, calibration[0], output_path(fname))
    clips = []
    for seed in (9900, 9901):
        with torch.no_grad():
            clips.append({"input": {"lcg": seed, "shape": list(shape)}, "y": arr(m(lcg_clip(seed, shape)).numpy())})
    cases.append({"name": "pt2e int8 selection: squeeze, unsqueeze, slice, select, narrow, expand, repeat, flip, "
                          "Dropout3d; split, chunk, stack", "kind": "exact", "file": fname, "clips": clips})

    # PT2E, convs with the ops between them: the pt2e family's bounds; the ops exact.
    shape = (1, 3, 4, 8, 8)
    calibration = [lcg_clip(9200 + i, shape) for i in range(3)]
    m = _pt2e(_Convs(), calibration, calibration[0])
    _on_integers(m, {aten.permute.default, aten.transpose.int, aten.pad.default})
    fname = "exported/layout_pt2e_convs.qwasm.safetensors"
    export(m, calibration[0], output_path(fname))
    clips = []
    for seed in (9300, 9301):
        with torch.no_grad():
            clips.append({"input": {"lcg": seed, "shape": list(shape)}, "y": arr(m(lcg_clip(seed, shape)).numpy())})
    cases.append({"name": "pt2e int8 convs with permute, transpose, pad, to, type_as between them",
                  "kind": "quantized model", "file": fname, "clips": clips, "output_qparams": _output_qparams(m),
                  "layers": _layers(m, lcg_clip(9350, shape))})

    # PT2E float graph, and the eager flow, float and quantized: bit for bit.
    xf = _special_floats(torch.from_numpy(rng.uniform(-3, 3, (2, 3, 4, 5)).astype(np.float32)))
    gm = torch.export.export(_FloatOps(), (xf,)).module()
    fname = "exported/layout_pt2e_float.qwasm.safetensors"
    export(gm, xf, output_path(fname))
    with torch.no_grad():
        cases.append({"name": "pt2e float: permute, transpose, pad on -0, NaN and +-Inf", "kind": "exact",
                      "file": fname, "x": arr(xf.numpy()), "y": arr(gm(xf).numpy())})

    fname = "exported/layout_eager_float.qwasm.safetensors"
    export(_EagerFloat().eval(), xf, output_path(fname))
    with torch.no_grad():
        cases.append({"name": "eager float: x.permute, torch.permute, transpose, F.pad", "kind": "exact",
                      "file": fname, "x": arr(xf.numpy()), "y": arr(_EagerFloat()(xf).numpy())})

    xs = _special_floats(torch.from_numpy(rng.uniform(-3, 3, (2, 3, 4, 5)).astype(np.float32)))
    gm = torch.export.export(_SelectFloat().eval(), (xs,)).module()
    fname = "exported/layout_pt2e_select_float.qwasm.safetensors"
    export(gm, xs, output_path(fname))
    with torch.no_grad():
        cases.append({"name": "pt2e float selection: squeeze, unsqueeze, narrow, expand, repeat, flip, stack",
                      "kind": "exact", "file": fname, "x": arr(xs.numpy()), "y": arr(gm(xs).numpy())})
    fname = "exported/layout_eager_select_float.qwasm.safetensors"
    export(_SelectFloat().eval(), xs, output_path(fname))
    with torch.no_grad():
        cases.append({"name": "eager float selection: squeeze, unsqueeze, narrow, expand, repeat, flip, stack",
                      "kind": "exact", "file": fname, "x": arr(xs.numpy()), "y": arr(_SelectFloat().eval()(xs).numpy())})

    q = eager_quantized(_SelectEagerQuantized().eval(), rng, (2, 3, 5, 6))
    xq = torch.from_numpy(rng.uniform(-2, 2, (2, 3, 5, 6)).astype(np.float32))
    fname = "exported/layout_eager_select_quantized.qwasm.safetensors"
    export(q, xq, output_path(fname))
    with torch.no_grad():
        cases.append({"name": "eager int8 selection: squeeze, unsqueeze, narrow, expand, repeat, flip, stack on "
                              "QTensors", "kind": "exact", "file": fname, "x": arr(xq.numpy()), "y": arr(q(xq).numpy())})

    q = eager_quantized(_EagerQuantized().eval(), rng, (2, 3, 5, 6))
    xq = torch.from_numpy(rng.uniform(-2, 2, (2, 3, 5, 6)).astype(np.float32))
    fname = "exported/layout_eager_quantized.qwasm.safetensors"
    export(q, xq, output_path(fname))
    with torch.no_grad():
        cases.append({"name": "eager int8: permute, transpose, F.pad on QTensors", "kind": "exact", "file": fname,
                      "x": arr(xq.numpy()), "y": arr(q(xq).numpy())})

    # pytorchvideo's CSN, small, through PT2E.
    from pytorchvideo.models.csn import create_csn
    torch.manual_seed(SEED % 1000 + 91)
    csn = create_csn(model_depth=50, model_num_class=10, stem_dim_out=8, head_pool_kernel_size=(1, 4, 4)).eval()
    shape = (1, 3, 8, 64, 64)
    calibration = [lcg_clip(9400 + i, shape) for i in range(2)]
    m = _pt2e(csn, calibration, calibration[0])
    assert _on_integers(m, {aten.permute.default}) == 2
    fname = "exported/layout_csn.qwasm.safetensors"
    export(m, calibration[0], output_path(fname))
    clips = []
    for seed in (9500, 9501):
        with torch.no_grad():
            clips.append({"input": {"lcg": seed, "shape": list(shape)}, "y": arr(m(lcg_clip(seed, shape)).numpy())})
    cases.append({"name": "pytorchvideo CSN (depth 50, stem width 8) through PT2E", "kind": "quantized model",
                  "file": fname, "clips": clips, "output_qparams": _output_qparams(m), "layers": []})

    # MONAI's HighResNet (at half its default widths), through PT2E: its ChannelPad pads the channels
    # (aten.pad), and each block converts with x.to(device) (aten.to.device, a no-op).
    from monai.networks.nets import HighResNet
    torch.manual_seed(SEED % 1000 + 92)
    layers = ({"name": "conv_0", "n_features": 8, "kernel_size": 3},
              {"name": "res_1", "n_features": 8, "kernels": (3, 3), "repeat": 3},
              {"name": "res_2", "n_features": 16, "kernels": (3, 3), "repeat": 3},
              {"name": "res_3", "n_features": 32, "kernels": (3, 3), "repeat": 3},
              {"name": "conv_1", "n_features": 40, "kernel_size": 1},
              {"name": "conv_2", "kernel_size": 1})
    net = HighResNet(3, 1, 2, layer_params=layers).eval()
    shape = (1, 1, 16, 16, 16)
    calibration = [lcg_clip(9600 + i, shape) for i in range(2)]
    m = _pt2e(net, calibration, calibration[0])
    assert _on_integers(m, {aten.pad.default}) == 2
    fname = "exported/layout_highresnet.qwasm.safetensors"
    export(m, calibration[0], output_path(fname))
    clips = []
    for seed in (9700, 9701):
        with torch.no_grad():
            clips.append({"input": {"lcg": seed, "shape": list(shape)}, "y": arr(m(lcg_clip(seed, shape)).numpy())})
    cases.append({"name": "MONAI HighResNet (half widths) through PT2E", "kind": "segmentation", "file": fname,
                  "clips": clips, "output_qparams": _output_qparams(m), "layers": []})

    return cases, {"refused_dtype_change": _refuses_dtype_change()}
