"""pt2e.json: models quantized by torchao's PT2E flow, exported, per layer and end to end.

torch.export -> prepare_pt2e(quantizer) -> calibrate -> convert_pt2e, then
python/qwasm_export.py writes tests/golden/exported/pt2e_<name>.qwasm.safetensors.
- QwasmQuantizer (python/qwasm_quantizer.py): r3d_18 and r2plus1d_18 at an
  eighth of their widths, and the small 2D CNN (tests/models/small_cnn.py);
- X86InductorQuantizer (its default config): the 2D CNN, a mixed float/int8 graph;
- XNNPACKQuantizer (per channel): the 2D CNN, int8 activations.

The converted graph is PyTorch's reference representation (dequantize,
float op, quantize); qwasm computes each quantized op exactly in integers,
so the numbers are compared within the bounds docs/numerics.md states, not
bit for bit. Per layer: each quantized conv and linear, by its module path,
gets PyTorch's own quantized input (as PyTorch's dtype, uint8 or int8) and
PyTorch's quantized output is kept. End to end: the model's output on clips.
"""
import torch

from .common import SEED, add_to_path, arr

VIDEO_SHAPE = (1, 3, 16, 112, 112)
# Per layer, the video models run a smaller clip: every layer's input and output are stored.
VIDEO_LAYER_SHAPE = (1, 3, 16, 32, 32)
CNN_SHAPE = (1, 3, 32, 32)


def _quantizer(name):
    if name == "qwasm":
        from qwasm_quantizer import QwasmQuantizer
        return QwasmQuantizer()
    if name == "x86_inductor":
        from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
            X86InductorQuantizer, get_default_x86_inductor_quantization_config)
        return X86InductorQuantizer().set_global(get_default_x86_inductor_quantization_config())
    from torchao.testing.pt2e._xnnpack_quantizer import XNNPACKQuantizer, get_symmetric_quantization_config
    return XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))


def pt2e_convert(model, quantizer, calibration):
    """PyTorch's PT2E recipe: export, prepare with `quantizer`, calibrate, convert.
    Every dimension but the channels is dynamic (batch, frames, height, width),
    so the layers can run a smaller clip than the model was exported with."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    auto = torch.export.Dim.AUTO
    dynamic = {d: auto for d in range(calibration[0].dim()) if d != 1}
    # An example batch of 2: torch.export specializes a dimension its example holds as 1.
    example = torch.cat([calibration[0], calibration[0]])
    m = torch.export.export(model, (example,), dynamic_shapes=(dynamic,)).module()
    m = prepare_pt2e(m, quantizer)
    with torch.no_grad():
        for x in calibration:
            m(x)
    return convert_pt2e(m)


class _Capture(torch.fx.Interpreter):
    """Runs the graph and keeps every node's output."""

    def __init__(self, gm):
        super().__init__(gm)
        self.outputs = {}

    def run_node(self, n):
        out = super().run_node(n)
        self.outputs[n] = out
        return out


def _qparams(q):
    """PyTorch's (scale, zero point, dtype) of a quantize node."""
    return {"scale": float(q.args[1]), "zero_point": int(q.args[2]),
            "dtype": {torch.uint8: "uint8", torch.int8: "int8"}[q.args[5]]}


def _layers(m, x):
    from qwasm_pt2e import quantized_layers
    cap = _Capture(m)
    with torch.no_grad():
        cap.run(x)
    out = []
    for path, qin, qout in quantized_layers(m):
        a, y = cap.outputs[qin], cap.outputs[qout]
        out.append({"path": path, "input": {**_qparams(qin), "ints": arr(a.numpy())},
                    "output": {**_qparams(qout), "ints": arr(y.numpy().reshape(-1)), "shape": list(y.shape)}})
    return out


def _output_qparams(m):
    """The final quantize's qparams when the graph returns a dequantized value, else None."""
    out = [n for n in m.graph.nodes if n.op == "output"][0].args[0][0]
    if out.op == "call_function" and out.target == torch.ops.quantized_decomposed.dequantize_per_tensor.default:
        return _qparams(out.args[0])
    return None


def _float_layers(m):
    """The module paths of the convs and linears the quantizer left in float (qwasm_export's names)."""
    from qwasm_pt2e import _module_path
    quantized = {id(n) for n in m.graph.nodes if n.op == "call_function" and n.target in (
        torch.ops.aten.conv1d.default, torch.ops.aten.conv2d.default, torch.ops.aten.conv3d.default,
        torch.ops.aten.linear.default) and n.args[0].op == "call_function" and n.args[0].target ==
        torch.ops.quantized_decomposed.dequantize_per_tensor.default and len(n.users) == 1 and any(
            u.target == torch.ops.quantized_decomposed.quantize_per_tensor.default or
            (u.target in (torch.ops.aten.relu.default, torch.ops.aten.relu_.default) and len(u.users) == 1 and
             next(iter(u.users)).target == torch.ops.quantized_decomposed.quantize_per_tensor.default)
            for u in n.users)}
    return [_module_path(n) or n.name for n in m.graph.nodes if n.op == "call_function" and n.target in (
        torch.ops.aten.conv1d.default, torch.ops.aten.conv2d.default, torch.ops.aten.conv3d.default,
        torch.ops.aten.linear.default) and id(n) not in quantized]


def pt2e_cases():
    add_to_path("..", "models")
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from small_cnn import float_model as cnn
    from video_resnets import float_model as video, lcg_clip
    torch.set_num_threads(1)
    specs = [
        ("r3d_18", "qwasm", lambda: video("r3d_18", 8, 400, SEED % 1000 + 20), VIDEO_SHAPE, VIDEO_LAYER_SHAPE),
        ("r2plus1d_18", "qwasm", lambda: video("r2plus1d_18", 8, 400, SEED % 1000 + 22), VIDEO_SHAPE,
         VIDEO_LAYER_SHAPE),
        ("small_cnn", "qwasm", lambda: cnn(SEED % 1000 + 30), CNN_SHAPE, CNN_SHAPE),
        ("small_cnn", "x86_inductor", lambda: cnn(SEED % 1000 + 30), CNN_SHAPE, CNN_SHAPE),
        ("small_cnn", "xnnpack", lambda: cnn(SEED % 1000 + 30), CNN_SHAPE, CNN_SHAPE),
    ]
    cases = []
    for k, (arch, quantizer, build, shape, layer_shape) in enumerate(specs):
        calibration = [lcg_clip(200 + 10 * k + i, shape) for i in range(2)]
        m = pt2e_convert(build(), _quantizer(quantizer), calibration)
        fname = f"exported/pt2e_{arch}_{quantizer}.qwasm.safetensors"
        from .common import output_path
        export(m, calibration[0], output_path(fname))
        clips = []
        # Two clips of the exported shape, and one of batch 2 (the export's batch is dynamic).
        for i, batch in enumerate((1, 1, 2)):
            seed = 3000 + 100 * k + i
            clip_shape = (batch, *shape[1:])
            with torch.no_grad():
                y = m(lcg_clip(seed, clip_shape))
            clips.append({"input": {"lcg": seed, "shape": list(clip_shape)}, "y": arr(y.numpy())})
        layer_seed = 3000 + 100 * k + 50
        cases.append({"name": f"{arch} ({quantizer})", "arch": arch, "quantizer": quantizer, "file": fname,
                      "output_qparams": _output_qparams(m), "clips": clips,
                      "float_layers": _float_layers(m),
                      "layers_input": {"lcg": layer_seed, "shape": list(layer_shape)},
                      "layers": _layers(m, lcg_clip(layer_seed, layer_shape))})
    return cases
