"""Export a PyTorch model to one .safetensors file that qwasm's io.loadModel runs.

    from qwasm_export import export
    export(model, example_input, "model.qwasm.safetensors")

`model` is a model converted by PyTorch's eager flow
(torch.ao.quantization.convert), or a float model made of the modules below,
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

Depends only on torch and safetensors.
"""

import argparse
import json
import math
import operator
import re

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
else:
    nn = torch.nn
    nnq = torch.ao.nn.quantized
    nniq = torch.ao.nn.intrinsic.quantized
    nni = torch.ao.nn.intrinsic

FORMAT = "qwasm-model"
FORMAT_VERSION = 2  # 2: the engine and each quantized conv's backend


class ExportError(Exception):
    """A model qwasm cannot run: the message names the op and where it is."""


def _qconv_types():
    return {
        nnq.Conv1d: ("QuantizedConv", 1, False), nnq.Conv2d: ("QuantizedConv", 2, False),
        nnq.Conv3d: ("QuantizedConv", 3, False), nniq.ConvReLU1d: ("QuantizedConv", 1, True),
        nniq.ConvReLU2d: ("QuantizedConv", 2, True), nniq.ConvReLU3d: ("QuantizedConv", 3, True),
    }


def _packed_backend(path, m, dims):
    """'onednn' or 'fbgemm': whose kernel runs this quantized conv. The packed
    weights do not say it in Python, but each backend's kernel refuses a qint8
    activation with an error naming itself (qconv.cpp: "(ONEDNN)" for
    PackedConvWeightsOnednn, "(FBGEMM)" for PackedConvWeight)."""
    op = getattr(torch.ops.quantized, f"conv{dims}d")
    x = torch.quantize_per_tensor(torch.zeros((1, m.in_channels) + (8,) * dims), 1.0, 0, torch.qint8)
    try:
        op(x, m._packed_params, 1.0, 0)
    except RuntimeError as e:
        text = str(e)
        if "ONEDNN" in text:
            return "onednn"
        if "FBGEMM" in text:
            return "fbgemm"
    raise ExportError(f"{path}: cannot tell which backend ({torch.backends.quantized.engine} engine) packed "
                      f"this {type(m).__name__}; qwasm reproduces 'fbgemm' and 'x86'")


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
    shapes = {}
    hooks = [m.register_forward_hook(lambda mod, inp, out, path=path: shapes.__setitem__(path, tuple(out.shape)))
             for path, m in model.named_modules() if type(m) in _qconv_types()]
    try:
        with torch.no_grad():
            model(example_input)
    finally:
        for h in hooks:
            h.remove()
    for path, shape in shapes.items():
        m = model.get_submodule(path)
        dims = _qconv_types()[type(m)][1]
        icg, ocg = m.in_channels // m.groups, m.out_channels // m.groups
        one_per_group = icg == 1 and (ocg > 1 or m.in_channels == 1) and min(shape[2:]) == 1
        if one_per_group and _packed_backend(path, m, dims) == "onednn":
            raise ExportError(
                f"{path}: under the x86 engine PyTorch runs this conv ({m.in_channels} -> {m.out_channels} channels, "
                f"groups {m.groups}, output {list(shape)}) on oneDNN, which gives wrong, run-to-run different "
                "integers for one input channel per group and an output extent of 1; convert the model with "
                "torch.backends.quantized.engine = 'fbgemm' to export it")


def _fconv_types():
    return {nn.Conv1d: 1, nn.Conv2d: 2, nn.Conv3d: 3}


def _ints(v, dims=None):
    """A list of ints; a single int, or a list of one, repeated `dims` times
    (PyTorch's _triple / _pair, and ATen's expand_param_if_needed)."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1 and dims:
            return [int(v[0])] * dims
        return [int(x) for x in v]
    return [int(v)] * (dims or 1)


class _Writer:
    def __init__(self):
        self.tensors = {}

    def add(self, name, tensor):
        if name in self.tensors:
            raise ExportError(f"two tensors named '{name}'")
        # A copy: safetensors refuses tensors that share memory, as the same
        # weight written for two modules would (a module called twice, tied weights).
        self.tensors[name] = tensor.detach().cpu().contiguous().clone()
        return name

    def qweight(self, path, w):
        """A quantized weight: its integers, and its qparams (tensors for per channel)."""
        if w.dtype != torch.qint8:
            raise ExportError(f"{path}: weight dtype {w.dtype} is not supported (qint8 only)")
        entry = {"ints": self.add(f"{path}.weight", w.int_repr())}
        if w.qscheme() in (torch.per_channel_affine, torch.per_channel_symmetric):
            entry["qscheme"] = "per_channel_affine"
            entry["axis"] = int(w.q_per_channel_axis())
            entry["scales"] = self.add(f"{path}.weight.scales", w.q_per_channel_scales().to(torch.float64))
            entry["zero_points"] = self.add(f"{path}.weight.zero_points", w.q_per_channel_zero_points().to(torch.int64))
        elif w.qscheme() in (torch.per_tensor_affine, torch.per_tensor_symmetric):
            entry["qscheme"] = "per_tensor_affine"
            entry["scale"] = float(w.q_scale())
            entry["zero_point"] = int(w.q_zero_point())
        else:
            raise ExportError(f"{path}: weight qscheme {w.qscheme()} is not supported")
        return entry

    def bias(self, path, b):
        return None if b is None else self.add(f"{path}.bias", b.detach().to(torch.float32))


def _module_entry(path, m, w):
    """The JSON description of one leaf module (tensors go to the writer)."""
    t = type(m)
    if t in _qconv_types():
        _, dims, relu = _qconv_types()[t]
        if m.padding_mode != "zeros":
            raise ExportError(f"{path}: {t.__name__} with padding_mode '{m.padding_mode}' is not supported")
        return {"type": "QuantizedConv", "dims": dims, "relu": relu, "in_channels": m.in_channels,
                "out_channels": m.out_channels, "kernel_size": _ints(m.kernel_size), "stride": _ints(m.stride),
                "padding": _ints(m.padding), "dilation": _ints(m.dilation), "groups": int(m.groups),
                "scale": float(m.scale), "zero_point": int(m.zero_point), "weight": w.qweight(path, m.weight()),
                "bias": w.bias(path, m.bias()), "backend": _packed_backend(path, m, dims)}
    if t in (nnq.Linear, nniq.LinearReLU):
        return {"type": "QuantizedLinear", "relu": t is nniq.LinearReLU, "in_features": m.in_features,
                "out_features": m.out_features, "scale": float(m.scale), "zero_point": int(m.zero_point),
                "weight": w.qweight(path, m.weight()), "bias": w.bias(path, m.bias())}
    if t is nnq.Quantize:
        if m.dtype != torch.quint8:
            raise ExportError(f"{path}: Quantize to {m.dtype} is not supported (quint8 activations only)")
        return {"type": "Quantize", "scale": float(m.scale), "zero_point": int(m.zero_point), "dtype": "quint8"}
    if t is nnq.DeQuantize:
        return {"type": "DeQuantize"}
    # A float model's stubs (the identity until convert): kept by name, so that
    # a float model and its quantized twin line up layer by layer (numeric suite).
    if t is torch.ao.quantization.QuantStub:
        return {"type": "QuantStub"}
    if t is torch.ao.quantization.DeQuantStub:
        return {"type": "DeQuantStub"}
    if t in (nn.Identity, nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d):
        return {"type": "Identity"}
    if t in (nn.ReLU, nnq.ReLU6, nn.ReLU6):
        return {"type": "ReLU6" if t is not nn.ReLU else "ReLU"}
    if t is nn.Flatten:
        return {"type": "Flatten", "start_dim": int(m.start_dim), "end_dim": int(m.end_dim)}
    for dims, (mx, avg, adaptive) in {1: (nn.MaxPool1d, nn.AvgPool1d, nn.AdaptiveAvgPool1d),
                                      2: (nn.MaxPool2d, nn.AvgPool2d, nn.AdaptiveAvgPool2d),
                                      3: (nn.MaxPool3d, nn.AvgPool3d, nn.AdaptiveAvgPool3d)}.items():
        if t is mx:
            if m.return_indices:
                raise ExportError(f"{path}: MaxPool{dims}d with return_indices is not supported")
            return {"type": "MaxPool", "dims": dims, "kernel_size": _ints(m.kernel_size, dims),
                    "stride": _ints(m.stride if m.stride is not None else m.kernel_size, dims), "padding": _ints(m.padding, dims),
                    "dilation": _ints(m.dilation, dims), "ceil_mode": bool(m.ceil_mode)}
        if t is avg:
            return {"type": "AvgPool", "dims": dims, "kernel_size": _ints(m.kernel_size, dims),
                    "stride": _ints(m.stride if m.stride is not None else m.kernel_size, dims), "padding": _ints(m.padding, dims),
                    "ceil_mode": bool(m.ceil_mode), "count_include_pad": bool(m.count_include_pad),
                    "divisor_override": None if getattr(m, "divisor_override", None) is None else int(m.divisor_override)}
        if t is adaptive:
            size = m.output_size
            size = [size] * dims if isinstance(size, int) else list(size)
            if any(s is None for s in size):
                raise ExportError(f"{path}: AdaptiveAvgPool{dims}d with a None output size is not supported")
            return {"type": "AdaptiveAvgPool", "dims": dims, "output_size": [int(s) for s in size]}
    if t in _fconv_types() or t in (nni.ConvReLU1d, nni.ConvReLU2d, nni.ConvReLU3d):
        conv, relu = (m[0], True) if isinstance(m, nn.Sequential) else (m, False)
        if type(conv) not in _fconv_types():
            raise ExportError(f"{path}: {type(conv).__name__} inside {t.__name__} is not supported")
        if conv.padding_mode != "zeros" or isinstance(conv.padding, str):
            raise ExportError(f"{path}: {t.__name__} with padding {conv.padding!r} / padding_mode "
                              f"'{conv.padding_mode}' is not supported")
        return {"type": "Conv", "dims": _fconv_types()[type(conv)], "relu": relu, "in_channels": conv.in_channels,
                "out_channels": conv.out_channels, "kernel_size": _ints(conv.kernel_size),
                "stride": _ints(conv.stride), "padding": _ints(conv.padding), "dilation": _ints(conv.dilation),
                "groups": int(conv.groups), "weight": w.add(f"{path}.weight", conv.weight.to(torch.float32)),
                "bias": w.bias(path, conv.bias)}
    if t in (nn.Linear, nni.LinearReLU):
        lin, relu = (m[0], True) if isinstance(m, nn.Sequential) else (m, False)
        return {"type": "Linear", "relu": relu, "in_features": lin.in_features, "out_features": lin.out_features,
                "weight": w.add(f"{path}.weight", lin.weight.to(torch.float32)), "bias": w.bias(path, lin.bias)}
    if t in (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d):
        if m.training or not m.track_running_stats or m.running_mean is None:
            raise ExportError(f"{path}: {t.__name__} must be in eval mode with running statistics")
        return {"type": "BatchNorm", "dims": {nn.BatchNorm1d: 1, nn.BatchNorm2d: 2, nn.BatchNorm3d: 3}[t],
                "num_features": m.num_features, "eps": float(m.eps),
                "weight": None if m.weight is None else w.add(f"{path}.weight", m.weight.to(torch.float32)),
                "bias": None if m.bias is None else w.add(f"{path}.bias", m.bias.to(torch.float32)),
                "running_mean": w.add(f"{path}.running_mean", m.running_mean.to(torch.float32)),
                "running_var": w.add(f"{path}.running_var", m.running_var.to(torch.float32))}
    raise ExportError(f"unsupported module {t.__module__}.{t.__qualname__} at '{path}'")


# The model format's vocabulary, as web/src/model/vocabulary.json states it
# for both languages (tests/js/model/vocabulary.test.mjs checks that these tables,
# and the loader's, equal it): the fields of each module type _module_entry
# writes (besides "type"), and for each function and method the graph may
# record, its most positional arguments and the keyword arguments it may
# carry (anything else, e.g. add's alpha or contiguous's memory_format, is an
# ExportError: dropping it would change the result).
_CONV_FIELDS = ["in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups"]
MODULE_FIELDS = {
    "QuantizedConv": ["dims", "relu", *_CONV_FIELDS, "scale", "zero_point", "weight", "bias", "backend"],
    "QuantizedLinear": ["relu", "in_features", "out_features", "scale", "zero_point", "weight", "bias"],
    "Quantize": ["scale", "zero_point", "dtype"],
    "DeQuantize": [], "QuantStub": [], "DeQuantStub": [], "Identity": [], "ReLU": [], "ReLU6": [],
    "Flatten": ["start_dim", "end_dim"],
    "MaxPool": ["dims", "kernel_size", "stride", "padding", "dilation", "ceil_mode"],
    "AvgPool": ["dims", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"],
    "AdaptiveAvgPool": ["dims", "output_size"],
    "Conv": ["dims", "relu", *_CONV_FIELDS, "weight", "bias"],
    "Linear": ["relu", "in_features", "out_features", "weight", "bias"],
    "BatchNorm": ["dims", "num_features", "eps", "weight", "bias", "running_mean", "running_var"],
}
_QPARAMS = ["scale", "zero_point"]
GRAPH_FUNCTIONS = {
    "quantized.add": {"args": 4, "kwargs": _QPARAMS}, "quantized.add_relu": {"args": 4, "kwargs": _QPARAMS},
    "quantized.mul": {"args": 4, "kwargs": _QPARAMS}, "quantized.mul_relu": {"args": 4, "kwargs": _QPARAMS},
    "quantized.add_scalar": {"args": 2, "kwargs": []}, "quantized.mul_scalar": {"args": 2, "kwargs": []},
    "quantized.cat": {"args": 4, "kwargs": [*_QPARAMS, "dim"]}, "cat": {"args": 2, "kwargs": ["dim"]},
    "flatten": {"args": 3, "kwargs": ["start_dim", "end_dim"]},
    "relu": {"args": 1, "kwargs": []}, "add": {"args": 2, "kwargs": []},
}
GRAPH_METHODS = {
    "flatten": {"args": 3, "kwargs": ["start_dim", "end_dim"]},
    "reshape": {"args": 65, "kwargs": []},  # x and at most 64 sizes (qwasm's tensor rank)
    "relu": {"args": 1, "kwargs": []}, "dequantize": {"args": 1, "kwargs": []},
    "contiguous": {"args": 1, "kwargs": []},
}

# call_function targets and call_method names, and the name the graph
# records for each (no functions without torch: export() refuses first).
_FUNCTIONS = {} if torch is None else {
    torch.ops.quantized.add: "quantized.add", torch.ops.quantized.add_relu: "quantized.add_relu",
    torch.ops.quantized.mul: "quantized.mul", torch.ops.quantized.mul_relu: "quantized.mul_relu",
    torch.ops.quantized.add_scalar: "quantized.add_scalar", torch.ops.quantized.mul_scalar: "quantized.mul_scalar",
    torch.ops.quantized.cat: "quantized.cat", torch.flatten: "flatten", torch.relu: "relu",
    torch.nn.functional.relu: "relu", operator.add: "add", operator.iadd: "add", torch.add: "add",
}
_METHODS = {"flatten": "flatten", "view": "reshape", "reshape": "reshape", "relu": "relu",
            "dequantize": "dequantize", "contiguous": "contiguous"}
_INPLACE_FUNCTIONS = {operator.iadd}


class _Tracer(torch.fx.Tracer if torch is not None else object):
    """torch.fx's tracer, with a float model's QuantStub / DeQuantStub and fused
    modules (nn.intrinsic's ConvReLU3d etc.) kept as modules: the default
    traces through them (the stubs are not torch.nn's, the fused modules are
    Sequentials), so that a float model lines up with its quantized twin
    module by module, as PyTorch's numeric suite pairs them."""

    def is_leaf_module(self, m, qualname):
        if isinstance(m, (torch.ao.quantization.QuantStub, torch.ao.quantization.DeQuantStub, nni._FusedModule)):
            return True
        return super().is_leaf_module(m, qualname)


def _checked_fields(entry):
    """The entry, once its fields are the vocabulary's for its type (a new
    field must be declared in MODULE_FIELDS and vocabulary.json, or the
    loader would refuse the file)."""
    fields = MODULE_FIELDS[entry["type"]]
    if sorted(entry) != sorted(["type", *fields]):
        raise AssertionError(f"qwasm_export writes {sorted(entry)} for {entry['type']}, "
                             f"its vocabulary says {sorted(['type', *fields])}")
    return entry


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


def export(model, example_input, path, metadata=None, *, preprocessing=None, classes=None):
    """Traces `model` (or lowers a torch.export / PT2E graph) and writes `path`
    (.safetensors). `example_input` runs the model once (the traced graph
    against it), so an error shows here and not in the browser. Returns the
    graph description that was written.

    `preprocessing`: how an input is made from video frames, written for
    io.loadModel's `model.transforms()`: torchvision's VideoClassification
    preset (e.g. `R3D_18_Weights.KINETICS400_V1.transforms()`) or a dict of
    its crop_size, resize_size, mean and std. Its crop must be the example
    input's height and width. `classes`: the output's class names (e.g. the
    weights' `meta["categories"]`), one per output. `metadata`: other string
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
    from qwasm_pt2e import is_pt2e_graph, lower

    _check_float32(model, example_input)
    classes = _class_names(classes)
    metadata = _header_entries(metadata, preprocessing, classes, example_input)

    if isinstance(model, torch.export.ExportedProgram):
        model = model.module()  # torch.export's result: its graph as a module
    if is_pt2e_graph(model):
        # A torch.export graph (torchao's PT2E flow): no tracing, and no
        # model.eval(), which torchao forbids on exported models.
        with torch.no_grad():
            out = model(example_input)
        if not isinstance(out, torch.Tensor):
            raise ExportError("the model must return one tensor")
        _check_class_count(classes, out)
        w = _Writer()
        modules, nodes = lower(model, w)
        # PT2E's reference arithmetic is the x86 recipe's: its quantized convs run on oneDNN's steps.
        return _save(w, modules, nodes, "x86", example_input, path, metadata)
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
    with torch.no_grad():
        want, got = model(example_input), gm(example_input)
    if not (isinstance(want, torch.Tensor) and isinstance(got, torch.Tensor)):
        raise ExportError("the model must return one tensor")
    _check_class_count(classes, want)
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
    w = _Writer()
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
                modules[target] = _checked_fields(_module_entry(target, module, w))
            if getattr(module, "inplace", False) and node.args:
                _check_inplace(node, node.args[0], where)
            entry["target"] = target
        elif node.op == "call_function":
            name = _FUNCTIONS.get(node.target)
            if name is None:
                raise ExportError(f"unsupported function {getattr(node.target, '__name__', node.target)} at {where} "
                                  f"(from: {node.format_node()})")
            entry["target"] = name
            signature = GRAPH_FUNCTIONS[name]
            kwargs = dict(node.kwargs)
            if name == "add":
                node_args = _float_add_args(node, kwargs, where)
            if name == "relu" and kwargs.pop("inplace", False) or node.target in _INPLACE_FUNCTIONS:
                _check_inplace(node, node.args[0] if node.args else None, where)
        elif node.op == "call_method":
            name = _METHODS.get(node.target)
            if name is None:
                raise ExportError(f"unsupported method .{node.target}() at {where} (from: {node.format_node()})")
            entry["target"] = name
            signature = GRAPH_METHODS[name]
            kwargs = dict(node.kwargs)
        elif node.op == "output":
            if not isinstance(node.args[0], torch.fx.Node):
                raise ExportError("the model must return one tensor")
        else:
            raise ExportError(f"unsupported graph node {node.op} '{node.target}' at {where}")
        if node.op not in ("call_function", "call_method"):
            kwargs = dict(node.kwargs)
        elif set(kwargs) - set(signature["kwargs"]):
            raise ExportError(f"{where}: keyword argument(s) {sorted(set(kwargs) - set(signature['kwargs']))} "
                              f"of {entry['target']} are not supported (from: {node.format_node()})")
        elif len(node.args) > signature["args"]:
            raise ExportError(f"{where}: {len(node.args)} positional arguments, {entry['target']} takes at most "
                              f"{signature['args']} (from: {node.format_node()})")
        entry["args"] = _encode_arg(node_args, where)
        entry["kwargs"] = {k: _encode_arg(v, where) for k, v in kwargs.items()}
        nodes.append(entry)
    return _save(w, modules, nodes, engine, example_input, path, metadata)


def float32_scalar(value, where):
    """A Python number as the float32 PyTorch adds to a float32 tensor (a
    wrapped number takes the tensor's dtype), refused where JSON cannot hold
    it (NaN, +-Inf, or a value float32 rounds to +-Inf)."""
    if not isinstance(value, (bool, int, float)):
        raise ExportError(f"{where}: a float add of {value!r} ({type(value).__name__}); qwasm adds tensors and numbers")
    f = float(torch.tensor(value).to(torch.float32))
    if not math.isfinite(f):
        raise ExportError(f"{where}: adds the constant {value!r}, which is {f} as float32: the model file's JSON "
                          "cannot hold a non-finite number")
    return f


def _float_add_args(node, kwargs, where):
    """The arguments of a float add (operator.add, torch.add, +=): two tensors
    (broadcast as PyTorch does) or a tensor and a number (written as the
    float32 PyTorch uses). alpha other than 1 is refused: PyTorch computes
    `input + alpha * other` with one rounding (a fused multiply-add) on its
    vectorized path and two on its scalar path, which of the two depends on
    the shapes and strides (measured on torch 2.15), so no formula gives its
    bits."""
    alpha = kwargs.pop("alpha", 1)
    if alpha != 1:
        raise ExportError(f"{where}: add with alpha={alpha!r} is not supported: PyTorch rounds input + alpha * other "
                          "once on its vector path and twice on its scalar path; write the multiply as its own op "
                          f"(from: {node.format_node()})")
    args = list(node.args)
    if not any(isinstance(a, torch.fx.Node) for a in args):
        raise ExportError(f"{where}: an add of two constants ({node.format_node()})")
    return [a if isinstance(a, torch.fx.Node) else float32_scalar(a, where) for a in args]


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


# The loader's own rules (web/src/model/*.mjs), applied before a file is written.
MAX_NAME = 1000  # format-readers.mjs MAX_NAME: node, module and tensor names
_MODULE_PATH = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*")  # load.mjs: a module path is a dotted name
# graph-module.mjs RESERVED_NAMES: no part of a module path may be a name the
# loaded GraphModule, its modules or any JS object already has
# (tests/js/model/vocabulary.test.mjs checks that the lists agree).
RESERVED_NAMES = (
    "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "__proto__", "apply", "children",
    "classes", "constructor", "dispose", "engine", "eval", "forward", "forwardQuantized", "getSubmodule",
    "hasOwnProperty", "inputShape", "isPrototypeOf", "modules", "namedChildren", "namedModules", "nodes",
    "preprocessing", "profile", "propertyIsEnumerable", "toLocaleString", "toString", "train", "training",
    "transforms", "valueOf", "weightBytes",
)
_MAX_INPUT_SIZE = 2 ** 31 - 1  # load.mjs: each dimension of input_shape
_MAX_INPUT_RANK = 16


def _name_length(name):
    """A name's length as JavaScript counts it (UTF-16 code units)."""
    return len(name.encode("utf-16-le")) // 2


def _quoted(name):
    """'name' for a message, cut short (as the loader's quote())."""
    return f"'{name}'" if len(name) <= 60 else f"'{name[:40]}...' ({len(name)} characters)"


def _check_module_path(path):
    if _name_length(path) > MAX_NAME:
        raise ExportError(f"module {_quoted(path)}: its path is over {MAX_NAME} characters, qwasm's limit for "
                          "names in a model file; give the module a shorter name")
    if not _MODULE_PATH.fullmatch(path):
        raise ExportError(f"module {_quoted(path)}: qwasm's model files name modules with ASCII letters, digits and "
                          "underscores between dots; rename the module (e.g. to a Python identifier in ASCII)")
    for part in path.split("."):
        if part in RESERVED_NAMES:
            raise ExportError(f"module {_quoted(path)}: '{part}' is a name qwasm's loaded model already has "
                              f"(the module would be its property); rename the module")


def _check_scale(scale, what):
    """A scale as qwasm's core checks it (qtensor.cpp validate_scale): finite > 0, and so as float32."""
    f = float(torch.tensor(scale, dtype=torch.float64).to(torch.float32))
    if not (math.isfinite(scale) and scale > 0):
        raise ExportError(f"{what} is {scale}: qwasm needs a finite scale > 0")
    if not (math.isfinite(f) and f > 0):
        raise ExportError(f"{what} is {scale}, which is {f} as float32: qwasm's kernels compute with float32 "
                          "scales and need one that is finite and > 0")


def _check_zero_point(zp, lo, hi, what):
    if isinstance(zp, bool) or not isinstance(zp, int) or not lo <= zp <= hi:
        raise ExportError(f"{what} is {zp!r}: qwasm needs an integer in {lo}..{hi}")


def _check_finite(tensor, what, why):
    """Every element finite (tensor: a float tensor of the writer)."""
    bad = (~torch.isfinite(tensor)).nonzero()
    if len(bad):
        index = bad[0].tolist()
        raise ExportError(f"{what}[{', '.join(map(str, index))}] is {float(tensor[tuple(index)])}: {why}")


_NON_FINITE_WEIGHTS = ("qwasm's convolution and linear kernels need finite weights and biases (PyTorch runs them, "
                       "and the NaN or infinity spreads through the output; a diverged training run?)")


def _check_module(path, m, tensors):
    """One module entry as the loader's builder and qwasm's constructors check it (module-builders.mjs)."""
    where = f"module '{path}'"
    t = m["type"]
    if t in ("QuantizedConv", "QuantizedLinear"):
        _check_scale(m["scale"], f"{where}: the output scale")
        _check_zero_point(m["zero_point"], 0, 255, f"{where}: the output zero point")
        weight = m["weight"]
        if weight["qscheme"] == "per_tensor_affine":
            _check_scale(weight["scale"], f"{where}: the weight's scale")
            _check_zero_point(weight["zero_point"], -128, 127, f"{where}: the weight's zero point")
        else:
            if weight["axis"] != 0:
                raise ExportError(f"{where}: per-channel weight qparams on axis {weight['axis']}; qwasm's are on "
                                  "axis 0 (the output channels)")
            for i, v in enumerate(tensors[weight["scales"]].tolist()):
                _check_scale(v, f"{where}: the weight's scale {i}")
            for i, v in enumerate(tensors[weight["zero_points"]].tolist()):
                _check_zero_point(v, -128, 127, f"{where}: the weight's zero point {i}")
        if m["bias"] is not None:
            _check_finite(tensors[m["bias"]], f"{where}: bias", _NON_FINITE_WEIGHTS)
    elif t == "Quantize":
        _check_scale(m["scale"], f"{where}: the scale")
        _check_zero_point(m["zero_point"], 0, 255, f"{where}: the zero point")
    elif t in ("Conv", "Linear"):
        _check_finite(tensors[m["weight"]], f"{where}: weight", _NON_FINITE_WEIGHTS)
        if m["bias"] is not None:
            _check_finite(tensors[m["bias"]], f"{where}: bias", _NON_FINITE_WEIGHTS)
    elif t == "BatchNorm":
        eps = m["eps"]
        if not (math.isfinite(eps) and eps >= 0):
            raise ExportError(f"{where}: eps is {eps}: qwasm's BatchNorm needs a finite eps >= 0")


_NODE_QPARAMS = ("quantized.add", "quantized.add_relu", "quantized.mul", "quantized.mul_relu", "quantized.cat")


def _check_node(node):
    """A node's names and constants as the loader reads them (load.mjs checkGraph, the ops' own checks)."""
    where = f"node {_quoted(node['name'])}"
    if not node["name"] or _name_length(node["name"]) > MAX_NAME:
        raise ExportError(f"{where}: its name is over {MAX_NAME} characters, qwasm's limit for names in a model "
                          "file; give the module or value it comes from a shorter name")

    def constants(a):
        if isinstance(a, (list, tuple)):
            for x in a:
                yield from constants(x)
        elif isinstance(a, float):
            yield a

    for v in constants([node["args"], list(node["kwargs"].values())]):
        if not math.isfinite(v):
            raise ExportError(f"{where}: the constant {v} ({node['target']}): the model file's JSON cannot hold a "
                              "non-finite number")
    if node["op"] == "call_function" and node["target"] in _NODE_QPARAMS:
        args, kwargs = node["args"], node["kwargs"]
        scale = args[2] if len(args) > 2 else kwargs.get("scale")
        zp = args[3] if len(args) > 3 else kwargs.get("zero_point")
        _check_scale(scale, f"{where}: the output scale of {node['target']}")
        _check_zero_point(zp, 0, 255, f"{where}: the output zero point of {node['target']}")


def _check_loadable(modules, nodes, tensors, input_shape):
    """ExportError naming the module or node where io.loadModel would refuse the file."""
    shape = list(input_shape)
    placeholder = f"the example input (node '{nodes[0]['name']}')" if nodes else "the example input"
    if 0 in shape:
        # The loader would read it, but an empty example checks nothing: export() compares the traced graph
        # with the model on it, and io.loadModel plans each node's memory and work on the recorded shape.
        raise ExportError(f"{placeholder} has shape {shape}, with an empty dimension: export() checks the traced "
                          "graph against the model on the example and io.loadModel plans the model on its shape, "
                          "and an empty tensor tests neither; export with an example of at least one element along "
                          "every dimension (the loaded model still takes other batch sizes)")
    if len(shape) > _MAX_INPUT_RANK or not all(1 <= d <= _MAX_INPUT_SIZE for d in shape):
        raise ExportError(f"{placeholder} has shape {shape}: qwasm's model files record an input of at most "
                          f"{_MAX_INPUT_RANK} dimensions, each at most {_MAX_INPUT_SIZE}")
    for path, m in modules.items():
        _check_module_path(path)
        _check_module(path, m, tensors)
    for node in nodes:
        _check_node(node)
    for name in tensors:
        if _name_length(name) > MAX_NAME:
            raise ExportError(f"tensor {_quoted(name)} (a module's weight): its name is over {MAX_NAME} characters, "
                              "qwasm's limit for names in a model file; give the module a shorter name")


_RESERVED = ("format", "format_version", "graph", "preprocessing", "classes")
_MAX_SIDE = 16384  # the loader's bounds (web/src/transforms/video-classification.mjs, format-readers.mjs)
_MAX_NAME = 1000


def _header_entries(metadata, preprocessing, classes, example_input):
    """The user's metadata plus the preprocessing and class names as JSON, checked
    as io.loadModel checks them (web/src/model/description.mjs), so a file this
    writes is a file qwasm loads."""
    entries = dict(metadata or {})
    for key, value in entries.items():
        if key in _RESERVED:
            raise ExportError(f"metadata key '{key}' is the exporter's: pass preprocessing= or classes= instead"
                              if key in ("preprocessing", "classes") else f"metadata key '{key}' is the exporter's")
        if not isinstance(key, str) or not isinstance(value, str):
            raise ExportError(f"metadata entries must be strings, got {key!r}: {type(value).__name__}")
    if preprocessing is not None:
        entries["preprocessing"] = json.dumps(_preprocessing_entry(preprocessing, example_input), allow_nan=False)
    if classes is not None:
        entries["classes"] = json.dumps(classes)
    return entries


def _class_names(classes):
    """classes as a list of names (read once: a generator is fine), or None."""
    if classes is None:
        return None
    if isinstance(classes, (str, bytes)):
        raise ExportError("classes must be a list of names, not one string")
    try:
        names = list(classes)
    except TypeError as e:
        raise ExportError(f"classes must be a list of names, got {type(classes).__name__}") from e
    if not names or not all(isinstance(n, str) and len(n) <= _MAX_NAME for n in names):
        raise ExportError(f"classes must be a non-empty list of strings of at most {_MAX_NAME} characters "
                          "(the output's class names)")
    return names


def _check_class_count(classes, out):
    if classes is not None and (out.dim() == 0 or len(classes) != out.shape[-1]):
        raise ExportError(f"{len(classes)} class names for an output of shape {list(out.shape)}: "
                          "give one name per output")


def _sizes(value, what, lengths):
    """A list of 1..16384 integers of one of `lengths` (the loader's bounds)."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(values) not in lengths or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= _MAX_SIDE for v in values):
        raise ExportError(f"preprocessing {what} must be {' or '.join(map(str, lengths))} integers from 1 to "
                          f"{_MAX_SIDE}, got {value!r}")
    return values


def _channel_values(value, what, nonzero):
    """One value for all three RGB channels or one each, finite (and nonzero): torchvision's broadcasting."""
    try:
        values = [float(v) for v in value]
    except (TypeError, ValueError) as e:
        raise ExportError(f"preprocessing {what} must be a list of numbers, got {value!r}") from e
    if len(values) not in (1, 3) or not all(math.isfinite(v) and (v != 0 or not nonzero) for v in values):
        raise ExportError(f"preprocessing {what} must be 1 or 3 finite{', nonzero' if nonzero else ''} values "
                          f"(RGB), got {values}")
    return values


def _preprocessing_entry(p, example_input):
    """torchvision's VideoClassification (or a dict of its fields) as the file records it."""
    fields = ("crop_size", "resize_size", "mean", "std")
    if isinstance(p, dict):
        unknown = set(p) - set(fields) - {"interpolation"}
        if unknown or not set(fields) <= set(p):
            raise ExportError(f"preprocessing takes exactly {', '.join(fields)} (and interpolation), "
                              f"got {sorted(p)}")
        get = p.get
    elif type(p).__name__ == "VideoClassification":
        get = lambda k, default=None: getattr(p, k, default)  # noqa: E731
    else:
        raise ExportError(f"preprocessing must be torchvision's VideoClassification (weights.transforms() of a "
                          f"video model) or a dict of {', '.join(fields)}, got {type(p).__name__}")
    interpolation = get("interpolation", "bilinear")
    interpolation = getattr(interpolation, "value", interpolation)
    if interpolation != "bilinear":
        raise ExportError(f"preprocessing interpolation must be bilinear (what qwasm implements), got {interpolation}")
    crop = _sizes(get("crop_size"), "crop_size", (1, 2))
    entry = {"transform": "VideoClassification", "crop_size": crop * 2 if len(crop) == 1 else crop,
             "resize_size": _sizes(get("resize_size"), "resize_size", (1, 2)),
             "mean": _channel_values(get("mean"), "mean", False), "std": _channel_values(get("std"), "std", True),
             "interpolation": "bilinear"}
    shape = list(example_input.shape)
    if len(shape) != 5 or shape[1] != 3 or entry["crop_size"] != shape[3:]:
        raise ExportError(f"preprocessing makes [N, 3, T, {', '.join(map(str, entry['crop_size']))}] (RGB frames "
                          f"cropped), but the example input is {shape} (N, C, T, H, W)")
    return entry


def _save(w, modules, nodes, engine, example_input, path, metadata):
    from safetensors.torch import save_file

    _check_loadable(modules, nodes, w.tensors, example_input.shape)
    graph = {"format": FORMAT, "version": FORMAT_VERSION, "torch": torch.__version__, "engine": engine,
             "input_shape": list(example_input.shape), "modules": modules, "nodes": nodes}
    try:
        # JSON has no NaN or Infinity (JSON.parse refuses Python's NaN); the checks above name where one is.
        text = json.dumps(graph, allow_nan=False)
    except ValueError as e:
        raise ExportError(f"the graph holds a value JSON cannot represent: {e}") from e
    meta = {"format": FORMAT, "format_version": str(FORMAT_VERSION), "graph": text}
    meta.update(metadata or {})
    save_file(w.tensors, path, metadata=meta)
    return graph


def main():
    p = argparse.ArgumentParser(description="Export a float PyTorch model saved whole (torch.save) for qwasm's "
                                "io.loadModel. A converted (quantized) model: call export() after convert().")
    p.add_argument("model", help="a file written by torch.save(model) of a float model")
    p.add_argument("out", help="the .safetensors file to write")
    p.add_argument("--input-shape", required=True, help="the example input's shape, e.g. 1,3,16,112,112")
    a = p.parse_args()
    if torch is None:
        p.exit(1, f"{p.prog}: {INSTALL_TORCH}\n")
    torch.backends.quantized.engine = "fbgemm"
    model = torch.load(a.model, weights_only=False)
    if not isinstance(model, torch.nn.Module):
        p.exit(1, f"{p.prog}: {a.model} holds a {type(model).__name__}, not a model saved with torch.save(model)\n")
    try:
        model.eval()
    except AttributeError:
        # PyTorch's quantized modules do not survive torch.load of a whole model:
        # their __setstate__ skips nn.Module's (pytorch/pytorch#61881).
        p.exit(1, f"{p.prog}: {a.model} is a converted (quantized) model, which torch.load cannot restore whole "
                  "(pytorch/pytorch#61881); call qwasm_export.export(model, example_input, path) after convert()\n")
    shape = [int(s) for s in a.input_shape.split(",")]
    graph = export(model, torch.zeros(shape), a.out)
    print(f"wrote {a.out}: {len(graph['modules'])} modules, {len(graph['nodes'])} nodes")


if __name__ == "__main__":
    main()
