"""resample.json: F.interpolate / nn.Upsample (nearest, nearest-exact, linear,
bilinear, trilinear) from PyTorch 2.15's CPU kernels, and models that use them.

- functional: F.interpolate on float tensors over odd sizes, integer and
  fractional scale factors (recompute_scale_factor None / False / True),
  sizes, align_corners both ways, 1-D / 2-D / 3-D, on both of PyTorch's
  float kernels (the generic one, and the channels-last one that bilinear /
  nearest 2-D take for outputs of height + width <= 128), with few channels
  (the channels-last kernel's scalar tail) and many (its 8-lane vector path);
- quantized: F.interpolate nearest / nearest-exact on 4-D and 5-D QTensors
  and bilinear on 4-D ones (PyTorch's quantized kernels, which keep the
  input's qparams);
- models: an eager-quantized CNN with F.interpolate and nn.Upsample on
  QTensors, a float model of every mode (torch.fx flow), and a SegResNet-like
  3-D decoder block (conv, trilinear upsample, add; nearest on the integers)
  through PT2E with QwasmQuantizer, with the trilinear node's PyTorch input
  and output recorded.
Each float output is PyTorch's to the bit; the threads are PyTorch's default
(bilinear 2-D takes the channels-last kernel on one thread for 3 channels).
"""
import os
import tempfile

import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path


def _kernel(shape, out, mode):
    """Which float kernel PyTorch's upsample_*_kernel_impl runs for a contiguous input (UpSampleKernel.cpp)."""
    dims = len(out)
    if dims == 1 or mode == "linear":
        return "generic"
    channels_last = shape[1] > 3 and int(np.prod(shape[2:])) == 1
    if dims == 2:
        return "channelsLast" if channels_last or out[0] + out[1] <= 128 else "generic"
    return "channelsLast" if channels_last else "generic"


def _options(rng, spatial, mode):
    """Random F.interpolate options for an input of these spatial sizes."""
    dims = len(spatial)
    kind = rng.integers(0, 4)
    if kind == 0:
        return {"size": [int(rng.integers(1, 3 * s + 3)) for s in spatial]}
    if kind == 1 and dims > 1:
        return {"size": int(rng.integers(1, 3 * min(spatial) + 3))}
    factors = [2.0, 3.0, 0.5, 1.5, 1.7, 2.3, 1.1, 0.7, 4.0, 2.5, 1.0, 1.3333, 0.9]
    scale = [max(float(rng.choice(factors)), 1.0 / s + 0.01) for s in spatial]
    recompute = [None, False, True][int(rng.integers(0, 3))]
    one = rng.integers(0, 3) == 0 and len(set(scale)) == 1
    return {"scale_factor": scale[0] if one else scale, "recompute_scale_factor": recompute}


def functional_cases():
    F = torch.nn.functional
    rng = np.random.default_rng(SEED + 320)
    gen = torch.Generator().manual_seed(SEED % 1000 + 320)
    cases = []
    plan = ([("linear", 1)] * 14 + [("bilinear", 2)] * 30 + [("trilinear", 3)] * 22
            + [("nearest", d) for d in (1, 2, 3) for _ in range(9)]
            + [("nearest-exact", d) for d in (1, 2, 3) for _ in range(7)])
    for i, (mode, dims) in enumerate(plan):
        channels = int(rng.choice([1, 2, 3, 4, 5, 8, 9, 17]))
        spatial = [int(rng.integers(1, 9 if dims < 3 else 6)) for _ in range(dims)]
        options = _options(rng, spatial, mode)
        if not mode.startswith("nearest"):
            options["align_corners"] = bool(rng.integers(0, 2))
        x = torch.randn([int(rng.integers(1, 3)), channels, *spatial], generator=gen)
        y = F.interpolate(x, mode=mode, **options)
        if y.numel() > 2500:
            continue
        cases.append({"name": f"{mode} {dims}-D #{i}", "mode": mode, "options": options, "x": arr(x.numpy()),
                      "y": arr(y.numpy()), "kernel": _kernel(list(x.shape), list(y.shape[2:]), mode)})
    # Named corners: the generic 2-D kernel (height + width > 128), the 8-lane vector path with a
    # tail, the channels-last kernel of a 1x1 (3-D) input with many channels, align_corners to one
    # output, the size unchanged with a scale (nearest's copy rule), twice the size with a scale.
    named = [
        ("bilinear generic 2-D: output 70 + 61", [1, 2, 3, 5], "bilinear", {"size": [70, 61], "align_corners": False}),
        ("bilinear generic 2-D, align_corners", [1, 1, 4, 3], "bilinear", {"size": [65, 66], "align_corners": True}),
        ("bilinear channels-last: 11 channels (8 lanes + 3)", [1, 11, 3, 4], "bilinear",
         {"scale_factor": 2.3, "align_corners": False}),
        ("bilinear channels-last: 19 channels, align_corners", [2, 19, 4, 3], "bilinear",
         {"size": [7, 9], "align_corners": True}),
        ("trilinear channels-last: a 1x1x1 input of 12 channels", [1, 12, 1, 1, 1], "trilinear",
         {"size": [2, 3, 2], "align_corners": False}),
        ("trilinear channels-last: 1x1x1, 9 channels, scale 2.5 x 4 x 2.5", [2, 9, 1, 1, 1], "trilinear",
         {"scale_factor": [2.5, 4.0, 2.5], "align_corners": False}),
        ("trilinear channels-last: 1x1x1, 19 channels, scale 3.3", [1, 19, 1, 1, 1], "trilinear",
         {"scale_factor": 3.3, "align_corners": False}),
        ("trilinear channels-last: 1x1x1, 4 channels (the scalar tail), size 3 x 5 x 5", [2, 4, 1, 1, 1],
         "trilinear", {"size": [3, 5, 5], "align_corners": False}),
        ("trilinear to one output, align_corners", [1, 2, 3, 4, 5], "trilinear",
         {"size": [1, 1, 1], "align_corners": True}),
        ("trilinear x2 (SegResNet's upsample)", [1, 3, 4, 4, 4], "trilinear",
         {"scale_factor": 2, "align_corners": False}),
        ("nearest 2-D: size kept with scale 1.1 (channels-last copy rule)", [1, 2, 6, 5], "nearest",
         {"scale_factor": 1.1}),
        ("nearest 3-D: size kept with scale 1.1 (generic: floor(o / 1.1))", [1, 2, 6, 5, 6], "nearest",
         {"scale_factor": 1.1}),
        ("nearest 2-D: twice the size with scale 2.1", [1, 3, 4, 3], "nearest", {"scale_factor": 2.1}),
        ("nearest 2-D generic: output 90 + 80", [1, 1, 3, 2], "nearest", {"size": [90, 80]}),
        ("nearest-exact 2-D generic: output 100 + 41", [1, 1, 7, 3], "nearest-exact", {"size": [100, 41]}),
        ("linear 1-D downsampling 0.3", [2, 3, 17], "linear", {"scale_factor": 0.3, "align_corners": False}),
    ]
    for name, shape, mode, options in named:
        x = torch.randn(shape, generator=gen)
        y = F.interpolate(x, mode=mode, **options)
        cases.append({"name": name, "mode": mode, "options": options, "x": arr(x.numpy()), "y": arr(y.numpy()),
                      "kernel": _kernel(shape, list(y.shape[2:]), mode)})
    return cases


def quantized_cases():
    F = torch.nn.functional
    rng = np.random.default_rng(SEED + 321)
    gen = torch.Generator().manual_seed(SEED % 1000 + 321)
    cases = []
    for i in range(24):
        dims = 2 + i % 2
        mode = "nearest" if i % 3 else "nearest-exact"
        spatial = [int(rng.integers(1, 8 if dims == 2 else 5)) for _ in range(dims)]
        options = _options(rng, spatial, mode)
        x = torch.randn([1, int(rng.integers(1, 5)), *spatial], generator=gen)
        scale, zp = float(rng.uniform(0.01, 0.1)), int(rng.integers(0, 256))
        q = torch.quantize_per_tensor(x, scale, zp, torch.quint8)
        y = F.interpolate(q, mode=mode, **options)
        assert y.q_scale() == scale and y.q_zero_point() == zp
        cases.append({"name": f"quantized {mode} {dims}-D #{i}", "mode": mode, "options": options,
                      "scale": scale, "zero_point": zp, "x": arr(q.int_repr().numpy()),
                      "y": arr(y.int_repr().numpy())})
    for i in range(24):
        # PyTorch's contiguous kernel (2+ channels), its NHWC kernel (one channel; one pixel, whose
        # output it writes in channels-last order), unchanged sizes with and without a scale.
        channels, spatial = [(3, [5, 7]), (1, [6, 4]), (5, [1, 1]), (2, [4, 4])][i % 4]
        options = _options(rng, spatial, "bilinear")
        if i % 8 == 3:
            options = {"scale_factor": 1.1} if i % 16 == 3 else {"size": spatial}
        options["align_corners"] = bool(i % 3 == 0)
        x = torch.randn([1 + i % 2, channels, *spatial], generator=gen)
        scale, zp = float(rng.uniform(0.01, 0.1)), int(rng.integers(0, 256))
        q = torch.quantize_per_tensor(x, scale, zp, torch.quint8)
        y = F.interpolate(q, mode="bilinear", **options)
        assert y.q_scale() == scale and y.q_zero_point() == zp and y.is_contiguous()
        cases.append({"name": f"quantized bilinear, {channels} channels, {spatial} #{i}", "mode": "bilinear",
                      "options": options, "scale": scale, "zero_point": zp, "x": arr(q.int_repr().numpy()),
                      "y": arr(y.int_repr().numpy())})
    for i, channels in enumerate([3, 8, 13, 20]):
        # A channels-last QTensor (as a quantized conv returns): PyTorch's NHWC bilinear kernel.
        x = torch.randn([1 + i % 2, channels, 5, 4], generator=gen)
        scale, zp = float(rng.uniform(0.01, 0.1)), int(rng.integers(0, 256))
        q = torch.quantize_per_tensor(x, scale, zp, torch.quint8).contiguous(memory_format=torch.channels_last)
        options = [{"size": [9, 7]}, {"scale_factor": 2.0}, {"scale_factor": [1.5, 2.3]}, {"size": [3, 11]}][i]
        options["align_corners"] = bool(i % 2)
        y = F.interpolate(q, mode="bilinear", **options)
        cases.append({"name": f"quantized bilinear, channels-last input of {channels} channels #{i}",
                      "mode": "bilinear", "options": options, "scale": scale, "zero_point": zp,
                      "channels_last": True, "x": arr(q.int_repr().contiguous().numpy()),
                      "y": arr(y.int_repr().contiguous().numpy())})
    # nearest keeps a channels-last input channels-last, so the bilinear after it takes PyTorch's NHWC kernel.
    x = torch.randn([1, 16, 8, 8], generator=gen)
    q = torch.quantize_per_tensor(x, 0.02, 120, torch.quint8).contiguous(memory_format=torch.channels_last)
    mid = F.interpolate(q, scale_factor=2.0, mode="nearest")
    y = F.interpolate(mid, scale_factor=1.5, mode="bilinear", align_corners=False)
    assert mid.is_contiguous(memory_format=torch.channels_last)
    cases.append({"name": "quantized nearest then bilinear on a channels-last input (the format kept)",
                  "mode": "nearest", "options": {"scale_factor": 2.0}, "then": {"scale_factor": 1.5, "mode": "bilinear"},
                  "scale": 0.02, "zero_point": 120, "channels_last": True,
                  "x": arr(q.int_repr().contiguous().numpy()), "y": arr(y.int_repr().contiguous().numpy())})
    x = torch.randn([1, 2, 6, 5, 6], generator=gen)
    q = torch.quantize_per_tensor(x, 0.05, 128, torch.quint8)
    y = F.interpolate(q, scale_factor=1.1, mode="nearest")
    cases.append({"name": "quantized nearest 3-D: sizes kept with scale 1.1 (a copy)", "mode": "nearest",
                  "options": {"scale_factor": 1.1}, "scale": 0.05, "zero_point": 128,
                  "x": arr(q.int_repr().numpy()), "y": arr(y.int_repr().numpy())})
    return cases


def model_cases():
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from torch.ao.quantization import DeQuantStub, QuantStub, convert, get_default_qconfig, prepare
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(SEED % 1000 + 322)
    rng = np.random.default_rng(SEED + 322)
    cases = []

    class Quantized(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.conv1 = nn.Conv2d(3, 10, 3, padding=1)
            self.up = nn.Upsample(size=(11, 13), mode="nearest-exact")
            self.conv2 = nn.Conv2d(10, 11, 3)  # its channels-last output: 8 vector lanes and 3 on the scalar loop
            self.dequant = DeQuantStub()

        def forward(self, x):
            # Each keeps its input's memory format (a quantized conv's output is channels-last), which
            # decides the kernel of the bilinear after it.
            a = F.interpolate(self.conv1(self.quant(x)), scale_factor=2, mode="nearest")
            a = F.interpolate(self.up(a), size=(12, 15), mode="bilinear", align_corners=True)
            b = F.interpolate(self.conv2(a), scale_factor=1.5, mode="bilinear", align_corners=False)
            return self.dequant(b)

    m = Quantized().eval()
    m.qconfig = get_default_qconfig("fbgemm")
    prepare(m, inplace=True)
    for _ in range(3):
        m(torch.from_numpy(rng.uniform(-2, 2, (1, 3, 5, 6)).astype(np.float32)))
    convert(m, inplace=True)
    x = torch.from_numpy(rng.uniform(-2, 2, (1, 3, 5, 6)).astype(np.float32))
    export(m, x, output_path("exported/resample_eager.qwasm.safetensors"))
    cases.append({"name": "eager quantized: F.interpolate nearest and bilinear, nn.Upsample nearest-exact on QTensors",
                  "file": "exported/resample_eager.qwasm.safetensors", "x": arr(x.numpy()),
                  "y": arr(m(x).numpy())})

    class FloatModes(nn.Module):
        """Every mode of the vocabulary, the results added (float adds are exact the same way)."""
        def __init__(self):
            super().__init__()
            self.bilinear = nn.Upsample(scale_factor=(1.5, 2.25), mode="bilinear", align_corners=True)
            self.nearest = nn.Upsample(size=(6, 9), mode="nearest")
            self.corners = nn.UpsamplingBilinear2d(size=(6, 9))  # align_corners=True

        def forward(self, x):
            a = self.bilinear(x) + F.interpolate(x, size=(6, 9), mode="bilinear")
            return a + self.nearest(x) + F.interpolate(x, size=(6, 9), mode="nearest-exact") + self.corners(x)

    f = FloatModes().eval()
    xf = torch.from_numpy(rng.uniform(-3, 3, (1, 3, 4, 4)).astype(np.float32))
    export(f, xf, output_path("exported/resample_float.qwasm.safetensors"))
    with torch.no_grad():
        cases.append({"name": "float: nn.Upsample, nn.UpsamplingBilinear2d and F.interpolate, bilinear "
                              "(align_corners both ways), nearest, nearest-exact", "file": "exported/resample_float.qwasm.safetensors",
                      "x": arr(xf.numpy()), "y": arr(f(xf).numpy())})

    class AtenDefaults(nn.Module):
        """The .default overloads (an output size, and the kernel's scales where given)."""
        def forward(self, x):
            aten = torch.ops.aten
            a = aten.upsample_bilinear2d.default(x, [8, 6], False, 2.0, 2.0)
            b = aten.upsample_nearest2d.default(x, [8, 6])
            return a + b + aten._upsample_nearest_exact2d.default(x, [8, 6], 2.1, 2.05)

    xd = torch.from_numpy(rng.uniform(-3, 3, (1, 2, 4, 3)).astype(np.float32))
    graph = torch.export.export(AtenDefaults(), (xd,)).module()
    export(graph, xd, output_path("exported/resample_aten_default.qwasm.safetensors"))
    with torch.no_grad():
        cases.append({"name": "float torch.export graph: upsample_bilinear2d / nearest2d / nearest_exact2d .default",
                      "file": "exported/resample_aten_default.qwasm.safetensors", "x": arr(xd.numpy()),
                      "y": arr(graph(xd).numpy())})
    return cases


class _Capture(torch.fx.Interpreter):
    def __init__(self, gm):
        super().__init__(gm)
        self.outputs = {}

    def run_node(self, n):
        out = super().run_node(n)
        self.outputs[n] = out
        return out


def pt2e_cases():
    """A SegResNet-like decoder block through PT2E with QwasmQuantizer: conv3d, trilinear x2
    (float, between dequantize and quantize), add of the skip, conv3d, and a nearest x2 on the
    integers. The trilinear node's PyTorch input and output are recorded."""
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from qwasm_pt2e import _module_path
    from qwasm_quantizer import QwasmQuantizer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(SEED % 1000 + 323)
    rng = np.random.default_rng(SEED + 323)

    class DecoderBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = nn.Conv3d(2, 8, 3, stride=2, padding=1)
            self.reduce = nn.Conv3d(8, 4, 1)
            self.up = nn.Upsample(scale_factor=2, mode="trilinear", align_corners=False)
            self.skip = nn.Conv3d(2, 4, 3, padding=1)
            self.head = nn.Conv3d(4, 3, 3, padding=1)

        def forward(self, x):
            deep = self.reduce(torch.relu(self.down(x)))
            y = self.up(deep) + self.skip(x)  # SegResNet: upsample, then add the encoder's feature
            y = F.interpolate(torch.relu(y), scale_factor=2, mode="nearest")
            return self.head(y)

    shape = (1, 2, 8, 8, 8)
    calibration = [torch.from_numpy(rng.uniform(-2, 2, shape).astype(np.float32)) for _ in range(4)]
    model = DecoderBlock().eval()
    m = torch.export.export(model, (calibration[0],)).module()
    m = prepare_pt2e(m, QwasmQuantizer())
    with torch.no_grad():
        for c in calibration:
            m(c)
    m = convert_pt2e(m)
    x = torch.from_numpy(rng.uniform(-2, 2, shape).astype(np.float32))
    name = "exported/resample_pt2e.qwasm.safetensors"
    export(m, x, output_path(name))
    cap = _Capture(m)
    with torch.no_grad():
        y = cap.run(x)
    up = [n for n in m.graph.nodes if n.op == "call_function" and n.target == torch.ops.aten.upsample_trilinear3d.vec]
    nearest = [n for n in m.graph.nodes if n.op == "call_function"
               and n.target == torch.ops.aten.upsample_nearest3d.vec]
    assert len(up) == 1 and len(nearest) == 1
    # The nearest node runs on the integers only between a dequantize and a quantize with one qparams.
    q_after = next(iter(nearest[0].users))
    dq_before = nearest[0].args[0]
    assert (q_after.args[1:3] == dq_before.args[1:3]), "QwasmQuantizer must share the nearest's qparams"
    out_q = [n for n in m.graph.nodes if n.op == "output"][0].args[0][0].args[0]
    return [{"name": "PT2E QwasmQuantizer: SegResNet-like decoder block (conv3d, trilinear, add, nearest)",
             "file": name, "x": arr(x.numpy()), "y": arr(y.numpy()),
             "output_scale": float(out_q.args[1]),
             "trilinear": {"path": _module_path(up[0]) or up[0].name,
                           "x": arr(cap.outputs[up[0].args[0]].numpy()), "y": arr(cap.outputs[up[0]].numpy())}}]


def export_error_cases():
    """What the exporter refuses, with its message (each must raise; the JS test checks the record)."""
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from qwasm_format import ExportError
    from qwasm_quantizer import QwasmQuantizer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(SEED % 1000 + 324)

    class Nearest(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Conv2d(2, 3, 1), nn.Conv2d(3, 2, 1)

        def forward(self, x):  # 4 x 3 -> 8 x 6: twice the size, with a scale of 2.1
            return self.b(F.interpolate(torch.relu(self.a(x)), scale_factor=2.1, mode="nearest"))

    class RunTimeSize(nn.Module):
        def forward(self, x):
            return F.interpolate(x, size=x.shape[2:], mode="bilinear")

    class Antialias(nn.Module):
        def forward(self, x):
            return F.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=True)

    x = torch.randn(1, 2, 4, 3)
    pt2e = prepare_pt2e(torch.export.export(Nearest().eval(), (x,)).module(), QwasmQuantizer())
    pt2e(x)
    cases = []
    for name, model in [("PT2E nearest on the integers where PyTorch's two index rules differ", convert_pt2e(pt2e)),
                        ("a size read from the input at run time", RunTimeSize().eval()),
                        ("bicubic", nn.Upsample(scale_factor=2, mode="bicubic").eval()),
                        ("antialias=True", Antialias().eval())]:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                export(model, x, os.path.join(tmp, "refused.qwasm.safetensors"))
            except ExportError as e:
                # The message names the source line; its path relative to the repository.
                cases.append({"name": name, "message": str(e).replace(os.path.dirname(__file__) + os.sep,
                                                                      "tests/golden/generators/")})
                continue
        raise AssertionError(f"the exporter must refuse {name}")
    return cases


def resample_cases():
    """(the functional cases, the other sections)."""
    return functional_cases(), {"quantized": quantized_cases(), "models": model_cases(), "pt2e": pt2e_cases(),
                                "export_errors": export_error_cases()}
