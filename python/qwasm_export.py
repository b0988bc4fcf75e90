"""Export a PyTorch model to one .safetensors file that qwasm's io.loadModel runs.

    from qwasm_export import export
    export(model, example_input, "model.qwasm.safetensors")

`model` is a model converted by PyTorch's eager flow
(torch.ao.quantization.convert), or a float model made of the modules qwasm_ops.py describes,
traced with torch.fx (symbolic tracing; PyTorch's quantized modules are
leaves); or a torch.export graph, converted by torchao's PT2E flow
(convert_pt2e, ideally with qwasm_quantizer.QwasmQuantizer) or float, which
python/qwasm_pt2e.py lowers to the same format. Every node is written down:
quantized weights as I8 tensors with their per-channel scales (F64) and zero
points (I64) or their per-tensor qparams, float biases and weights as F32,
and the graph, each module's attributes and the format version as JSON in
the file's metadata (with, when given, the input's preprocessing and the
class names). An unsupported module, function or method raises ExportError naming it and the
module path; nothing is dropped silently.

A file this writes is a file io.loadModel loads: before writing, the exporter
applies the loader's own rules (web/src/model/*.mjs) and raises ExportError
naming the module or node instead of writing a file qwasm would refuse:
module paths are dotted names of ASCII letters, digits and underscores, no
part one of the loaded model's own names (`forward`, `dispose`,
`constructor`... RESERVED_NAMES), every name at most 1000 characters; the
example input has no empty dimension (an empty example would check
nothing: export() compares the traced graph with the model on it, the loader
plans the model's memory and work on its shape); qparams are finite (scales > 0 and
still > 0 and finite as float32); a BatchNorm's eps is finite and >= 0;
the JSON holds no NaN or Infinity. Float weights and biases of Conv and
Linear, and the float biases of quantized ones, must be finite: qwasm's
convolution kernels refuse NaN and +-Inf weights (PyTorch runs them, and a
NaN spreads through the output; README, "Known differences"), so such a
model is an ExportError naming the parameter and its first non-finite
element, which in practice points at a diverged training run.

qwasm computes in float32. A model with float16, bfloat16 or float64
parameters or buffers, or an example input that is not float32, is refused
(ExportError naming the first such tensor) rather than converted silently:
its outputs in PyTorch are those of its own precision, which float32 does
not reproduce. Convert it first (`model.float()`, `example_input.float()`)
and export that float32 model.

The numbers of an eager model follow the quantized engine it was converted under
(torch.backends.quantized.engine, 'x86' by default on x86 CPUs, or
'fbgemm'): the file records it, and for each quantized convolution the
backend PyTorch packed its weights for ('onednn' or 'fbgemm', read from the
packed weights), which qwasm reproduces.

Command line, for a float model saved whole with torch.save(model) (the
`qwasm-export` script when installed with pip, see pyproject.toml; PyTorch
cannot torch.load a whole converted model, so export that one from Python):

    python qwasm_export.py model.pt out.qwasm.safetensors --input-shape 1,3,16,112,112

Depends only on torch and safetensors. This module is the entry point and the
eager flow; the format (writer, the loader's checks) is qwasm_format.py, what
each op writes is its descriptor in qwasm_ops.py, and python/qwasm_pt2e.py
lowers torch.export graphs.
"""


import argparse
import os

import qwasm_ops as ops
from qwasm_format import (OPS_DOC, ExportError, SegmentationClassNames, Writer, check_class_count, class_names,
                          header_entries, is_volume_segmentation, save)

# `qwasm-export --help` works without torch, and the CLI and export() then
# say how to install it, instead of a traceback from this import.
INSTALL_TORCH = ("PyTorch is not installed; the CPU-only wheels are enough: "
                 "pip install torch --index-url https://download.pytorch.org/whl/cpu")
try:
    import torch
    import torch.fx
except ModuleNotFoundError as e:
    if e.name != "torch":
        raise
    torch = None


def export(model, example_input, path, metadata=None, *, preprocessing=None, classes=None):
    """Traces `model` (or lowers a torch.export / PT2E graph) and writes `path`
    (.safetensors). `example_input` runs the model once (the traced graph
    against it), so an error shows here and not in the browser. Returns the
    graph description that was written.

    `preprocessing`: how an input is made, written for io.loadModel's
    `model.transforms()`: from video frames, torchvision's
    VideoClassification preset (e.g. `R3D_18_Weights.KINETICS400_V1.transforms()`)
    or a dict of its crop_size, resize_size, mean and std (its crop must be the
    example input's height and width); from a NIfTI volume, a
    VolumeSegmentation record (`qwasm_volume.RECORD`: orientation 'RAS',
    spacing, quantile intensity; the example input is [N, 1, X, Y, Z]).
    `classes`: the output's class names (e.g. the weights'
    `meta["categories"]`), one per output, or for a VolumeSegmentation one per
    output channel ([N, C, X, Y, Z]). `metadata`: other string
    entries for the file's header.

    Raises ExportError, naming the module or node, for anything io.loadModel
    would refuse or qwasm would not run as PyTorch does (see the module
    docstring): a float16 / bfloat16 / float64 model or example input (export
    `model.float()` with a float32 example: nothing is converted silently),
    NaN or infinite Conv / Linear weights and biases, qparams or BatchNorm eps
    qwasm cannot hold, module names outside the loader's, an empty dimension
    in the example input, a float add with alpha other than 1."""
    if torch is None:
        raise ModuleNotFoundError(INSTALL_TORCH, name="torch")
    # The PT2E flow, imported here only to send it the graphs that are its own.
    from qwasm_pt2e import is_pt2e_graph, lower_exported

    _check_float32(model, example_input)
    classes = class_names(classes)
    metadata = header_entries(metadata, preprocessing, classes, example_input)
    if classes is not None and is_volume_segmentation(preprocessing):
        classes = SegmentationClassNames(classes)  # named per output channel
    if isinstance(model, torch.export.ExportedProgram):
        model = model.module()  # torch.export's result: its graph as a module
    w = Writer()
    write = lower_exported if is_pt2e_graph(model) else _trace
    modules, nodes, engine = write(model, example_input, w, classes)
    return save(w, modules, nodes, engine, example_input, path, metadata,
                check_module=ops.check_module, check_node=ops.check_node)


def _trace(model, example_input, w, classes):
    """The eager flow: (modules, nodes, engine) of a model converted by
    torch.ao.quantization.convert, or a float one, traced with torch.fx and
    checked against the model on example_input."""
    engine = torch.backends.quantized.engine
    if engine not in ("x86", "fbgemm"):
        raise ExportError(f"the quantized engine is '{engine}': qwasm reproduces 'x86' (PyTorch's default on x86 "
                          "CPUs) and 'fbgemm'; convert the model under one of them "
                          "(torch.backends.quantized.engine = 'x86')")
    model = model.eval()
    try:
        gm = torch.fx.GraphModule(model, _Tracer().trace(model))
    except Exception as e:  # noqa: BLE001 - the user needs the tracer's reason
        raise ExportError(f"torch.fx could not trace the model: {e}") from e
    # The activations' tables are written from the input qparams each module receives here.
    with torch.no_grad(), ops.recording_inputs(model):
        want, got = model(example_input), gm(example_input)
    if not (isinstance(want, torch.Tensor) and isinstance(got, torch.Tensor)):
        raise ExportError("the model must return one tensor")
    check_class_count(classes, want)

    def equal(a, b):
        if a.is_quantized:
            return torch.equal(a.int_repr(), b.int_repr())
        # NaN equals NaN here: a float model's output may hold NaN (from NaN or +-Inf inputs).
        return a.shape == b.shape and bool(torch.isclose(a, b, rtol=0, atol=0, equal_nan=True).all())

    if not equal(want, got):
        with torch.no_grad():
            again = model(example_input)
        if not equal(want, again):
            raise ExportError(
                f"the model gives different outputs on two identical runs under the {torch.backends.quantized.engine} "
                "engine (PyTorch's oneDNN path reads uninitialized memory for a few conv shapes); no one can reproduce "
                "those numbers: convert the model with "
                "torch.backends.quantized.engine = 'fbgemm', or change the layer")
        raise ExportError("the traced graph does not reproduce the model's output on example_input")

    _check_onednn_shapes(model, example_input)
    modules = {}
    nodes = []
    placeholders = 0
    for node in gm.graph.nodes:
        where = f"node '{node.name}'"
        entry = {"name": node.name, "op": node.op}
        node_args = list(node.args)
        if node.op == "placeholder":
            placeholders += 1
            if placeholders > 1:
                raise ExportError("models with more than one input are not supported")
        elif node.op == "call_module":
            target = str(node.target)
            module = gm.get_submodule(target)
            if target not in modules:
                modules[target] = ops.module_entry(target, module, w)
            if getattr(module, "inplace", False) and node.args:
                _check_inplace(node, node.args[0], where)
            entry["target"] = target
        elif node.op == "call_function":
            op = ops.traced_functions().get(node.target)
            if op is None:
                raise ExportError(f"unsupported function {getattr(node.target, '__name__', node.target)} at {where} "
                                  f"(from: {node.format_node()}); {OPS_DOC}")
            entry["target"] = op.name
            kwargs = dict(node.kwargs)
            if op.eager_args:
                node_args = op.eager_args(node, kwargs, where)
            if op.in_place and op.in_place(node, kwargs):
                _check_inplace(node, node.args[0] if node.args else None, where)
        elif node.op == "call_method":
            op = ops.traced_methods().get(node.target)
            if op is None:
                raise ExportError(f"unsupported method .{node.target}() at {where} (from: {node.format_node()}); "
                                  f"{OPS_DOC}")
            entry["target"] = op.name
            kwargs = dict(node.kwargs)
        elif node.op == "output":
            if not isinstance(node.args[0], torch.fx.Node):
                raise ExportError("the model must return one tensor")
        else:
            raise ExportError(f"unsupported graph node {node.op} '{node.target}' at {where}; {OPS_DOC}")
        if node.op not in ("call_function", "call_method"):
            kwargs = dict(node.kwargs)
        elif set(kwargs) - set(op.kwargs):
            raise ExportError(f"{where}: keyword argument(s) {sorted(set(kwargs) - set(op.kwargs))} "
                              f"of {entry['target']} are not supported (from: {node.format_node()})")
        elif len(node.args) > op.args:
            raise ExportError(f"{where}: {len(node.args)} positional arguments, {entry['target']} takes at most "
                              f"{op.args} (from: {node.format_node()})")
        entry["args"] = _encode_arg(node_args, where)
        entry["kwargs"] = {k: _encode_arg(v, where) for k, v in kwargs.items()}
        nodes.append(entry)
    return modules, nodes, engine


class _Tracer(torch.fx.Tracer if torch is not None else object):
    """torch.fx's tracer, with a float model's QuantStub / DeQuantStub and fused
    modules (nn.intrinsic's ConvReLU3d etc.) kept as modules: the default
    traces through them (the stubs are not torch.nn's, the fused modules are
    Sequentials), so that a float model lines up with its quantized twin
    module by module, as PyTorch's numeric suite pairs them."""

    def is_leaf_module(self, m, qualname):
        if isinstance(m, (torch.ao.quantization.QuantStub, torch.ao.quantization.DeQuantStub,
                          torch.ao.nn.intrinsic._FusedModule)):
            return True
        # A subclass of a supported module that computes as it does (torchvision's Conv3DSimple): kept whole.
        if ops.supported_class(m) is not None:
            return True
        return super().is_leaf_module(m, qualname)


def _check_inplace(node, mutated, where):
    """An in-place op writes its input: PyTorch's later readers of that input see
    the new values, qwasm's would not. Refuse it unless the op is the input's
    only reader."""
    if isinstance(mutated, torch.fx.Node) and len(mutated.users) > 1:
        raise ExportError(f"{where}: an in-place op on '{mutated.name}', which other nodes also read "
                          f"({', '.join(u.name for u in mutated.users)}); use the out-of-place form")


def _encode_arg(a, where):
    if isinstance(a, torch.fx.Node):
        return {"node": a.name}
    if a is None or isinstance(a, (bool, int, float, str)):
        return a
    if isinstance(a, (tuple, list)):
        return [_encode_arg(x, where) for x in a]
    raise ExportError(f"{where}: argument {a!r} of type {type(a).__name__} is not supported")


def _check_onednn_shapes(model, example_input):
    """PyTorch's oneDNN path (x86 engine) returns wrong integers, different
    from run to run, for a conv with one input channel per group (depthwise
    with a channel multiplier, or a single input channel) whose output has a
    spatial extent of 1 (measured on torch 2.15). No one can match those
    numbers; refuse rather than export a model whose PyTorch output is not
    reproducible. (export() also refuses any model whose two identical runs
    differ.)"""
    if torch.backends.quantized.engine != "x86":
        return
    qconvs = ops.QUANTIZED_CONV.eager()  # {quantized conv class: (dims, relu)}
    shapes = {}
    hooks = [m.register_forward_hook(lambda mod, inp, out, path=path: shapes.__setitem__(path, tuple(out.shape)))
             for path, m in model.named_modules() if type(m) in qconvs]
    try:
        with torch.no_grad():
            model(example_input)
    finally:
        for h in hooks:
            h.remove()
    for path, shape in shapes.items():
        m = model.get_submodule(path)
        dims = qconvs[type(m)][0]
        icg, ocg = m.in_channels // m.groups, m.out_channels // m.groups
        one_per_group = icg == 1 and (ocg > 1 or m.in_channels == 1) and min(shape[2:]) == 1
        if one_per_group and ops.packed_backend(path, m, dims) == "onednn":
            raise ExportError(
                f"{path}: under the x86 engine PyTorch runs this conv ({m.in_channels} -> {m.out_channels} channels, "
                f"groups {m.groups}, output {list(shape)}) on oneDNN, which gives wrong, run-to-run different "
                "integers for one input channel per group and an output extent of 1; convert the model with "
                "torch.backends.quantized.engine = 'fbgemm' to export it")


def _check_float32(model, example_input):
    """qwasm computes in float32: a float16 / bfloat16 / float64 parameter, buffer
    or example input is refused, not converted silently (module docstring)."""
    if isinstance(model, torch.export.ExportedProgram):
        tensors = list(model.state_dict.items()) + list(model.constants.items())
    elif isinstance(model, torch.nn.Module):
        tensors = list(model.named_parameters()) + list(model.named_buffers())
        if isinstance(model, torch.fx.GraphModule):  # torch.export's constants, held as plain attributes
            for n in model.graph.nodes:
                t = getattr(model, str(n.target), None) if n.op == "get_attr" and "." not in str(n.target) else None
                if isinstance(t, torch.Tensor):
                    tensors.append((str(n.target), t))
    else:
        tensors = []
    for name, t in tensors:
        if isinstance(t, torch.Tensor) and t.is_floating_point() and t.dtype != torch.float32:
            raise ExportError(f"'{name}' is {t.dtype}: qwasm computes in float32 and would not give this model's "
                              f"{t.dtype} outputs; convert the model with model.float() (and the example input "
                              "with .float()) and export that")
    if not isinstance(example_input, torch.Tensor):
        raise ExportError(f"example_input must be a tensor, got {type(example_input).__name__}")
    if example_input.dtype != torch.float32:
        raise ExportError(f"the example input is {example_input.dtype}: qwasm's models take float32 input and "
                          "compute in float32; export a float32 model with a float32 example "
                          "(model.float(), example_input.float())")


def main(argv=None):
    p = argparse.ArgumentParser(description="Export a float PyTorch model saved whole (torch.save) for qwasm's "
                                "io.loadModel. A converted (quantized) model: call export() after convert().")
    p.add_argument("model", help="a file written by torch.save(model) of a float model")
    p.add_argument("out", help="the .safetensors file to write")
    p.add_argument("--input-shape", required=True, help="the example input's shape, e.g. 1,3,16,112,112")
    p.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                   help="a module that defines the model's classes, imported before loading (repeatable); "
                   "modules in the current folder are found without it, as with python -m")
    p.add_argument("--traceback", action="store_true", help="on an error, print Python's traceback too")
    a = p.parse_args(argv)
    try:
        shape = [int(s) for s in a.input_shape.split(",")]
    except ValueError:
        p.error(f"--input-shape must be integers separated by commas, e.g. 1,3,16,112,112; got {a.input_shape!r}")
    if torch is None:
        p.exit(1, f"{p.prog}: {INSTALL_TORCH}\n")
    try:
        graph = _export_file(p, a, shape)
    except Exception as e:  # noqa: BLE001 - one line per error, not a traceback (unless asked)
        if a.traceback:
            raise
        what = "" if isinstance(e, ExportError) else f"{type(e).__name__}: "
        p.exit(1, f"{p.prog}: error: {what}{_one_line(e)}\n")
    print(f"wrote {a.out}: {len(graph['modules'])} modules, {len(graph['nodes'])} nodes")


def _one_line(e):
    return " ".join(str(e).split()) or type(e).__name__


def _export_file(p, a, shape):
    """main()'s work: load the model file (its classes found as python -m would), export it; returns the graph."""
    import importlib
    import sys

    # As `python -m` does: the current folder first, so a class in the user's own file unpickles.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    for name in a.imports:
        try:
            importlib.import_module(name)
        except ImportError as e:
            p.exit(1, f"{p.prog}: error: --import {name}: {_one_line(e)}\n")
    torch.backends.quantized.engine = "fbgemm"
    try:
        model = torch.load(a.model, weights_only=False)
    except FileNotFoundError:
        p.exit(1, f"{p.prog}: error: no file {a.model}\n")
    except (ModuleNotFoundError, AttributeError) as e:
        # The pickle names a class by its module: that module must be importable here.
        missing = getattr(e, "name", None) or _one_line(e)
        p.exit(1, f"{p.prog}: error: {a.model} holds a class that cannot be found ({_one_line(e)}): run "
                  f"{p.prog} from the folder that holds its module ({missing}), or name it with --import MODULE\n")
    if not isinstance(model, torch.nn.Module):
        p.exit(1, f"{p.prog}: error: {a.model} holds a {type(model).__name__}, not a model saved with "
                  "torch.save(model)\n")
    try:
        model.eval()
    except AttributeError:
        # PyTorch's quantized modules do not survive torch.load of a whole model:
        # their __setstate__ skips nn.Module's (pytorch/pytorch#61881).
        p.exit(1, f"{p.prog}: error: {a.model} is a converted (quantized) model, which torch.load cannot restore "
                  "whole (pytorch/pytorch#61881); call qwasm_export.export(model, example_input, path) after "
                  "convert()\n")
    return export(model, torch.zeros(shape), a.out)


if __name__ == "__main__":
    main()
