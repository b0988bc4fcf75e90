"""zoo3d.json: the 3D CNNs users bring (tests/models/zoo3d_models.py: MONAI's, torchvision's and
pytorchvideo's, MeshNet, a 3D U-Net, C3D) with seeded random weights at their small sizes (BatchNorm
statistics from the calibration inputs), quantized by the README's PT2E recipe (QwasmQuantizer),
exported to tests/golden/exported/zoo3d_<name>.qwasm.safetensors, and run by PyTorch.

Models whose every op PyTorch's eager flow quantizes (MeshNet, C3D) also go through it (fused,
get_default_qconfig, prepare, calibrate, convert), compared bit for bit.

Per model: the input (segmentation: a smooth synthetic volume, stored; video: the seeded LCG clip
of tests/js/util.mjs), PyTorch's output (the converted graph's, PyTorch's reference
representation), the qparams of the quantize the output is (or is computed from by float ops: the
output step), and per quantized conv/linear layer
PyTorch's own quantized input and output (as pt2e.json). Per-layer data is kept to a byte budget
per model: every layer when they fit, else the layers with the smallest outputs first, in graph
order, and the test says how many of how many it checks.
"""
import torch

from .common import SEED, add_to_path, arr, output_path
from .pt2e import _layers, _quantizer, pt2e_convert

nn = torch.nn
LAYER_BYTES = 250_000  # per model (the file stays under 5 MB): the per-layer inputs and outputs kept (uint8 each)


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


def _output_step(m):
    """(qparams, on the grid): the quantize whose dequantized value the output is, or is computed
    from by float ops after the last quantized layer (S3D's mean over the clip, X3D's pools), by
    walking back from the output along first arguments. On the grid: the output is that dequantize
    itself, so both sides give whole steps."""
    from .pt2e import _qparams
    dq = torch.ops.quantized_decomposed.dequantize_per_tensor.default
    n = [n for n in m.graph.nodes if n.op == "output"][0].args[0][0]
    on_grid = True
    while isinstance(n, torch.fx.Node) and n.op == "call_function":
        if n.target == dq:
            return _qparams(n.args[0]), on_grid
        n, on_grid = n.args[0], False
    return None, False


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
    from zoo3d_models import ZOO, norm_statistics, smooth_volume
    torch.set_num_threads(1)
    cases = []
    for k, entry in enumerate(ZOO):
        name, task, build, shape, layer_shape = (entry.name, entry.task, entry.small.build, entry.small.shape,
                                                 entry.small.layer_shape)
        if names and name not in names:
            continue
        torch.manual_seed(SEED % 1000 + 300 + k)
        if task == "segmentation":
            x = smooth_volume(SEED + 300 + k, shape)
            calibration = [x, smooth_volume(SEED + 400 + k, shape)]
            given = {"x": arr(x.numpy())}
        else:
            seed = 5000 + 10 * k
            x = lcg_clip(seed, shape)
            calibration = [x, lcg_clip(seed + 1, shape)]
            given = {"input": {"lcg": seed, "shape": list(shape)}}
        model = norm_statistics(build(), calibration)
        m = pt2e_convert(model, _quantizer("qwasm"), calibration)
        fname = f"exported/zoo3d_{name}.qwasm.safetensors"
        export(m, x, output_path(fname))
        with torch.no_grad():
            y = m(x)
        # Fully convolutional models take a smaller volume per layer (the export's dimensions are dynamic).
        layer_x = x if layer_shape is None else smooth_volume(SEED + 500 + k, layer_shape)
        layers = _layers(m, layer_x)
        step, on_grid = _output_step(m)
        cases.append({"name": name, "flow": "pt2e", "task": task, "file": fname, **given, "y": arr(y.numpy()),
                      "output_qparams": step, "output_on_grid": on_grid, "layer_count": len(layers),
                      "layers": _budgeted(layers)})
        print(f"zoo3d {name}: {len(layers)} quantized layers, output {list(y.shape)}")
        if name in EAGER:
            torch.manual_seed(SEED % 1000 + 300 + k)  # the same float model
            eager = _eager_case(name, task, norm_statistics(build(), calibration), x, calibration,
                                f"exported/zoo3d_{name}_eager.qwasm.safetensors")
            cases.append({**eager, **given})
    return cases
