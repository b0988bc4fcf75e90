"""The ops of the qwasm-model format: one descriptor per op, for both exporters.

Each module type, graph function and graph method is one descriptor below,
holding everything the Python side knows about it (the pattern of torch.ao's
quantization_mappings.py, with the op, not the flow, as the unit):

- what the file holds: a module type's fields, or a function's / method's
  most positional arguments and allowed keyword arguments;
- the eager flow (qwasm_export.py, torch.fx): the module classes it writes as
  this type and how (`eager`, `from_module`), or the traced functions /
  method names recorded as this target (`traced`), with their argument
  handling;
- the PT2E flow (qwasm_pt2e.py, torch.export): the ATen ops lowered to this
  op in float (`pt2e`: a `Lowering`, or a `ValueLowering` for an op on one
  value, which may also run on a quantized value's integers where that is
  exact), and the `dequantize -> op [-> relu] -> quantize` pattern computed
  by its integer form (`int8`: an `Int8Pattern`);
- what the loader's builder would refuse (`check`), applied before a file
  is written.

The flat tables (MODULE_FIELDS, GRAPH_FUNCTIONS, GRAPH_METHODS, and the
lookups by traced target or ATen op) are views of the descriptors, never
kept by hand. web/src/model/vocabulary.json states the vocabulary for both
languages; tests/js/model/vocabulary.test.mjs checks that these views equal it.

To add an op: write its descriptor (a `_module(...)`, `_function(...)` or
`_method(...)` call, with its writers above it), add it to vocabulary.json,
and give it a use in the goldens (docs/adding-an-op.md).

The descriptors refer to torch through zero-argument functions (`lambda:`),
called only when a model is exported: this module imports without torch.
"""

import functools
import math
import operator
from dataclasses import dataclass, field
from typing import Callable, Optional, Union

from qwasm_format import OPS_DOC, ExportError, check_finite, check_scale, check_zero_point, float32_scalar, ints

try:
    import torch
except ModuleNotFoundError as e:
    if e.name != "torch":
        raise
    torch = None
else:
    nn, F = torch.nn, torch.nn.functional
    nnq, nniq, nni = torch.ao.nn.quantized, torch.ao.nn.intrinsic.quantized, torch.ao.nn.intrinsic
    aten = torch.ops.aten


# -- the kinds of descriptor ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Lowering:
    """How qwasm_pt2e writes ATen ops as this op, in float. `write(lowering, node, where, variant)`
    writes the node and records its value; `lowering` is qwasm_pt2e's pass (its helpers: bind,
    module_name, constant, float_ref, emit, add_module, ...)."""
    ops: Callable  # () -> {ATen op: variant passed to write (e.g. dims)}
    write: Callable
    inplace: Optional[Callable] = None  # () -> the in-place ops among ops (refused when other nodes read the input)


@dataclass(frozen=True)
class ValueLowering:
    """An op on one value (its first argument) that runs the same on a float value or on a quantized
    one's integers. `write(lowering, node, where, x, variant)`, x the reference to the input value.
    on_integers: with the input's qparams, the op on the integers gives exactly what dequantize -> op ->
    quantize gives (it only moves or selects values), so `dq -> op -> q` with equal qparams runs on them."""
    ops: Callable
    write: Callable
    on_integers: bool
    inplace: Optional[Callable] = None


@dataclass(frozen=True)
class Int8Pattern:
    """dequantize -> op [-> relu] -> quantize in a converted PT2E graph, which this op's integer form
    computes: `inputs(lowering, core)` says whether the op's arguments are what the integer op needs;
    `write(lowering, q, core, relu, scale, zero_point, where, variant)` writes it and returns the name
    of the node whose value the quantize holds."""
    ops: Callable  # () -> {ATen op: variant}
    relu: tuple  # whether a ReLU between the op and the quantize is fused: (False,), (True,) or both
    inputs: Callable
    write: Callable


@dataclass(frozen=True)
class ModuleOp:
    """A module type: the fields its entry holds besides "type", in the file's order."""
    type: str
    fields: tuple
    eager: Optional[Callable] = None  # () -> {module class: variant passed to from_module}
    from_module: Optional[Callable] = None  # (path, module, writer, variant) -> entry; None: {"type": type}
    pt2e: Union[Lowering, ValueLowering, None] = None
    int8: Optional[Int8Pattern] = None
    check: Optional[Callable] = None  # (where, entry, tensors): what the loader's builder refuses
    numerics: Optional[dict] = field(default=None, compare=False)  # see NUMERICS_KINDS


@dataclass(frozen=True)
class GraphOp:
    """A function or method the graph may call: its most positional arguments and keyword arguments
    (anything else, e.g. add's alpha, is an ExportError: dropping it would change the result)."""
    name: str
    args: int
    kwargs: tuple = ()
    # Functions: () -> the call_function targets torch.fx records; methods: the method names.
    traced: Union[Callable, tuple, None] = None
    eager_args: Optional[Callable] = None  # (fx node, kwargs, where) -> args to write; may take kwargs out
    in_place: Optional[Callable] = None  # (fx node, kwargs) -> whether the call writes its first argument
    pt2e: Union[Lowering, ValueLowering, None] = None
    int8: Optional[Int8Pattern] = None
    check: Optional[Callable] = None  # (where, node): what the loader refuses in the node's constants
    numerics: Optional[dict] = field(default=None, compare=False)  # see NUMERICS_KINDS


# `numerics` of a descriptor: {kind: how qwasm computes the op on values of that kind}, for the kinds it
# runs on: "int8" (on a quantized value's integers, or producing them) and "float" (on float32 values).
# docs/ops.md (scripts/ops_doc.py) is generated from it; each text starts with one of NUMERICS_TERMS.
NUMERICS_KINDS = ("int8", "float")
NUMERICS_TERMS = (
    "exact",  # the integers PyTorch computes, always (integer arithmetic, or values only moved or selected)
    "bit for bit",  # PyTorch's float32 steps in PyTorch's order: the same bits
    "exact by table",  # a 256-entry table PyTorch's own kernel filled at export
    "to float rounding",  # another order of float32 operations than PyTorch's: a stated bound
    "within",  # a stated bound ("within N ulp"), tested
)

# The numerics most ops share.
_MOVES = {"int8": "exact: moves the integers, qparams kept", "float": "bit for bit: moves the values"}
_CLAMP = {"int8": "exact: a clamp of the integers at the bounds quantized with the input's qparams",
          "float": "bit for bit (clamp_stub: -0 and NaN kept)"}
_QUANTIZED_LAYER = {"int8": "exact: int32 sums, then FBGEMM's or oneDNN's requantization steps (docs/numerics.md)"}
_FLOAT_LAYER = {"float": "to float rounding: products summed in (kd, kh, kw, c) order, PyTorch's order differs "
                         "(tested to 1e-5 relative)"}
_QUANTIZED_ELEMENTWISE = {"int8": "exact: PyTorch's quantized kernel's float steps per element (docs/numerics.md)"}

MODULE_OPS = {}  # type -> ModuleOp, as declared below
FUNCTION_OPS = {}  # name -> GraphOp
METHOD_OPS = {}


def _declare(table, key, op):
    if key in table:
        raise AssertionError(f"two descriptors for {key}")
    table[key] = op
    return op


def _module(type, fields, **parts):
    return _declare(MODULE_OPS, type, ModuleOp(type, tuple(fields), **parts))


def _function(name, args, kwargs=(), **parts):
    return _declare(FUNCTION_OPS, name, GraphOp(name, args, tuple(kwargs), **parts))


def _method(name, args, kwargs=(), **parts):
    return _declare(METHOD_OPS, name, GraphOp(name, args, tuple(kwargs), **parts))


# -- checks and writers several ops share ----------------------------------------------------------------------------

_NON_FINITE_WEIGHTS = ("qwasm's convolution and linear kernels need finite weights and biases (PyTorch runs them, "
                       "and the NaN or infinity spreads through the output; a diverged training run?)")


def _check_quantized_layer(where, m, tensors):
    """A quantized conv or linear: its output and weight qparams, its float bias."""
    check_scale(m["scale"], f"{where}: the output scale")
    check_zero_point(m["zero_point"], 0, 255, f"{where}: the output zero point")
    weight = m["weight"]
    if weight["qscheme"] == "per_tensor_affine":
        check_scale(weight["scale"], f"{where}: the weight's scale")
        check_zero_point(weight["zero_point"], -128, 127, f"{where}: the weight's zero point")
    else:
        if weight["axis"] != 0:
            raise ExportError(f"{where}: per-channel weight qparams on axis {weight['axis']}; qwasm's are on "
                              "axis 0 (the output channels)")
        for i, v in enumerate(tensors[weight["scales"]].tolist()):
            check_scale(v, f"{where}: the weight's scale {i}")
        for i, v in enumerate(tensors[weight["zero_points"]].tolist()):
            check_zero_point(v, -128, 127, f"{where}: the weight's zero point {i}")
    if m["bias"] is not None:
        check_finite(tensors[m["bias"]], f"{where}: bias", _NON_FINITE_WEIGHTS)


def _check_float_layer(where, m, tensors):
    """A float conv or linear: qwasm's kernels refuse NaN and +-Inf weights and biases."""
    check_finite(tensors[m["weight"]], f"{where}: weight", _NON_FINITE_WEIGHTS)
    if m["bias"] is not None:
        check_finite(tensors[m["bias"]], f"{where}: bias", _NON_FINITE_WEIGHTS)


def _check_output_qparams(where, node):
    """A quantized.* function's output scale and zero point (arguments 2 and 3, or keywords)."""
    args, kwargs = node["args"], node["kwargs"]
    scale = args[2] if len(args) > 2 else kwargs.get("scale")
    zp = args[3] if len(args) > 3 else kwargs.get("zero_point")
    check_scale(scale, f"{where}: the output scale of {node['target']}")
    check_zero_point(zp, 0, 255, f"{where}: the output zero point of {node['target']}")


def _quantized_layer_inputs(lowering, core):
    """conv / linear(dq(activation), dq(constant weight), constant bias or none)."""
    x, w = core.args[0], core.args[1]
    bias = core.args[2] if len(core.args) > 2 else None
    return (lowering.is_dequantize(x) and lowering.is_weight_dequantize(w)
            and (bias is None or getattr(bias, "op", None) == "get_attr"))


def _quantized_layer_parts(lowering, core, where):
    """What a quantized conv and linear read from a PT2E pattern: (module path, input, bound
    arguments, weight entry, bias tensor name, weight shape)."""
    path = lowering.module_name(core)
    x = lowering.q_input(core.args[0], where)
    b = lowering.bind(core)
    bias = b.get("bias")
    weight = lowering.weight(b["weight"], path)
    bias_name = None if bias is None else lowering.w.add(f"{path}.bias", lowering.constant(bias, where).float())
    shape = list(lowering.constant(b["weight"].args[0], where).shape)
    return path, x, b, weight, bias_name, shape


def _write_quantized_layer(lowering, q, core, path, entry, x):
    lowering.emit(core.name, "call_module", lowering.add_module(path, entry), [x])
    lowering.layers.append((path, core.args[0].args[0], q))
    return core.name


def _float_layer_parts(lowering, n, where):
    """What a float conv and linear read from a PT2E graph: (bound arguments, module path, float
    weight, its tensor name, bias tensor name)."""
    b = lowering.bind(n)
    path = lowering.module_name(n)
    weight = lowering.float_weight(b["weight"], where)
    bias = b.get("bias")
    bias_name = None if bias is None else lowering.w.add(f"{path}.bias", lowering.float_weight(bias, where))
    return b, path, weight, lowering.w.add(f"{path}.weight", weight), bias_name


def _write_float_layer(lowering, n, where, b, path, entry):
    lowering.values[n] = ("float", n.name)
    lowering.emit(n.name, "call_module", lowering.add_module(path, entry), [lowering.float_ref(b["input"], where)])


def _write_module(lowering, n, entry, x):
    """A module on one value, named by its PyTorch module path."""
    lowering.emit(n.name, "call_module", lowering.add_module(lowering.module_name(n), entry), [x])


def _aten_convs():
    return {aten.conv1d.default: 1, aten.conv2d.default: 2, aten.conv3d.default: 3}


_CONV_FIELDS = ["in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups"]


# -- module types ----------------------------------------------------------------------------------------------------

def packed_backend(path, m, dims):
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


def _quantized_conv_from_module(path, m, w, variant):
    dims, relu = variant
    if m.padding_mode != "zeros":
        raise ExportError(f"{path}: {type(m).__name__} with padding_mode '{m.padding_mode}' is not supported")
    return {"type": "QuantizedConv", "dims": dims, "relu": relu, "in_channels": m.in_channels,
            "out_channels": m.out_channels, "kernel_size": ints(m.kernel_size), "stride": ints(m.stride),
            "padding": ints(m.padding), "dilation": ints(m.dilation), "groups": int(m.groups),
            "scale": float(m.scale), "zero_point": int(m.zero_point), "weight": w.qweight(path, m.weight()),
            "bias": w.bias(path, m.bias()), "backend": packed_backend(path, m, dims)}


def _quantized_conv_from_pattern(lowering, q, core, relu, scale, zp, where, dims):
    path, x, b, weight, bias_name, shape = _quantized_layer_parts(lowering, core, where)
    groups = int(b["groups"])
    symmetric = weight["qscheme"] == "per_channel_affine" and not bool(
        lowering.constant(b["weight"].args[2], where).ne(0).any()) or (
        weight["qscheme"] == "per_tensor_affine" and weight["zero_point"] == 0)
    entry = {"type": "QuantizedConv", "dims": dims, "relu": relu is not None,
             "in_channels": shape[1] * groups, "out_channels": shape[0], "kernel_size": shape[2:],
             "stride": ints(b["stride"], dims), "padding": ints(b["padding"], dims),
             "dilation": ints(b["dilation"], dims), "groups": groups, "scale": scale,
             "zero_point": zp, "weight": weight, "bias": bias_name,
             # oneDNN's requantization (PyTorch's x86 engine) is the reference
             # representation's float steps; qwasm routes a conv there as
             # PyTorch does, with symmetric weights and groups <= 100.
             "backend": "onednn" if symmetric and groups <= 100 else "fbgemm"}
    return _write_quantized_layer(lowering, q, core, path, entry, x)


QUANTIZED_CONV = _module(
    "QuantizedConv", ["dims", "relu", *_CONV_FIELDS, "scale", "zero_point", "weight", "bias", "backend"],
    eager=lambda: {nnq.Conv1d: (1, False), nnq.Conv2d: (2, False), nnq.Conv3d: (3, False),
                   nniq.ConvReLU1d: (1, True), nniq.ConvReLU2d: (2, True), nniq.ConvReLU3d: (3, True)},
    from_module=_quantized_conv_from_module,
    int8=Int8Pattern(ops=_aten_convs, relu=(False, True), inputs=_quantized_layer_inputs,
                     write=_quantized_conv_from_pattern),
    check=_check_quantized_layer, numerics=_QUANTIZED_LAYER)


def _quantized_linear_from_module(path, m, w, relu):
    return {"type": "QuantizedLinear", "relu": relu, "in_features": m.in_features,
            "out_features": m.out_features, "scale": float(m.scale), "zero_point": int(m.zero_point),
            "weight": w.qweight(path, m.weight()), "bias": w.bias(path, m.bias())}


def _quantized_linear_from_pattern(lowering, q, core, relu, scale, zp, where, _):
    path, x, b, weight, bias_name, shape = _quantized_layer_parts(lowering, core, where)
    entry = {"type": "QuantizedLinear", "relu": relu is not None, "in_features": shape[1],
             "out_features": shape[0], "scale": scale, "zero_point": zp, "weight": weight, "bias": bias_name}
    return _write_quantized_layer(lowering, q, core, path, entry, x)


_module(
    "QuantizedLinear", ["relu", "in_features", "out_features", "scale", "zero_point", "weight", "bias"],
    eager=lambda: {nnq.Linear: False, nniq.LinearReLU: True},
    from_module=_quantized_linear_from_module,
    int8=Int8Pattern(ops=lambda: {aten.linear.default: None}, relu=(False, True), inputs=_quantized_layer_inputs,
                     write=_quantized_linear_from_pattern),
    check=_check_quantized_layer, numerics=_QUANTIZED_LAYER)


def _quantize_from_module(path, m, w, _):
    if m.dtype != torch.quint8:
        raise ExportError(f"{path}: Quantize to {m.dtype} is not supported (quint8 activations only)")
    return {"type": "Quantize", "scale": float(m.scale), "zero_point": int(m.zero_point), "dtype": "quint8"}


def _check_quantize(where, m, tensors):
    check_scale(m["scale"], f"{where}: the scale")
    check_zero_point(m["zero_point"], 0, 255, f"{where}: the zero point")


# PT2E: qwasm_pt2e writes a quantize of a float value as this module (the
# reference representation's own quantize op, not an op of the model).
_module("Quantize", ["scale", "zero_point", "dtype"], eager=lambda: {nnq.Quantize: None},
        from_module=_quantize_from_module, check=_check_quantize,
        numerics={"int8": "exact: float to quint8 as quantize_per_tensor rounds (docs/numerics.md)"})
_module("DeQuantize", [], eager=lambda: {nnq.DeQuantize: None},
        numerics={"int8": "bit for bit: (q - zero point) * scale in float32, as dequantize"})
# A float model's stubs (the identity until convert): kept by name, so that
# a float model and its quantized twin line up layer by layer (numeric suite).
_module("QuantStub", [], eager=lambda: {torch.ao.quantization.QuantStub: None},
        numerics={"float": "bit for bit: the identity"})
_module("DeQuantStub", [], eager=lambda: {torch.ao.quantization.DeQuantStub: None},
        numerics={"float": "bit for bit: the identity"})
# PT2E: dropout (in eval mode) and copies are no node at all (qwasm_pt2e's _PASS_THROUGH).
_module("Identity", [], eager=lambda: {nn.Identity: None, nn.Dropout: None, nn.Dropout1d: None, nn.Dropout2d: None,
                                       nn.Dropout3d: None}, numerics=_MOVES)
# PT2E: a ReLU is the relu function (below).
_module("ReLU", [], eager=lambda: {nn.ReLU: None}, numerics=_CLAMP)
_module("ReLU6", [], eager=lambda: {nnq.ReLU6: None, nn.ReLU6: None}, numerics=_CLAMP)
def _hardtanh_from_module(path, m, w, _):
    return {"type": "Hardtanh", "min_val": float(m.min_val), "max_val": float(m.max_val)}


def _check_hardtanh(where, m, tensors):
    lo, hi = m["min_val"], m["max_val"]
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ExportError(f"{where}: Hardtanh bounds {lo}, {hi}: qwasm needs finite bounds with min_val < max_val")


# Float or on a quantized input (quantized::hardtanh: the bounds quantized with
# the input's qparams, which stay). nn.ReLU6 is its own type (above).
_module("Hardtanh", ["min_val", "max_val"], eager=lambda: {nn.Hardtanh: None},
        from_module=_hardtanh_from_module, check=_check_hardtanh, numerics=_CLAMP)
_module("Flatten", ["start_dim", "end_dim"], eager=lambda: {nn.Flatten: None},
        from_module=lambda path, m, w, _: {"type": "Flatten", "start_dim": int(m.start_dim),
                                           "end_dim": int(m.end_dim)}, numerics=_MOVES)


def _max_pool_from_module(path, m, w, dims):
    if m.return_indices:
        raise ExportError(f"{path}: MaxPool{dims}d with return_indices is not supported")
    return {"type": "MaxPool", "dims": dims, "kernel_size": ints(m.kernel_size, dims),
            "stride": ints(m.stride if m.stride is not None else m.kernel_size, dims),
            "padding": ints(m.padding, dims), "dilation": ints(m.dilation, dims), "ceil_mode": bool(m.ceil_mode)}


def _max_pool_from_aten(lowering, n, where, x, dims):
    b = lowering.bind(n)
    kernel = ints(b["kernel_size"], dims)
    _write_module(lowering, n, {"type": "MaxPool", "dims": dims, "kernel_size": kernel,
                                "stride": ints(b["stride"] or kernel, dims), "padding": ints(b["padding"], dims),
                                "dilation": ints(b["dilation"], dims), "ceil_mode": bool(b["ceil_mode"])}, x)


_module(
    "MaxPool", ["dims", "kernel_size", "stride", "padding", "dilation", "ceil_mode"],
    eager=lambda: {nn.MaxPool1d: 1, nn.MaxPool2d: 2, nn.MaxPool3d: 3},
    from_module=_max_pool_from_module,
    pt2e=ValueLowering(ops=lambda: {aten.max_pool1d.default: 1, aten.max_pool2d.default: 2,
                                    aten.max_pool3d.default: 3},
                       write=_max_pool_from_aten, on_integers=True),
    numerics={"int8": "exact: the integer maximum", "float": "bit for bit: the maximum, -Inf padding"})


def _avg_pool_from_module(path, m, w, dims):
    return {"type": "AvgPool", "dims": dims, "kernel_size": ints(m.kernel_size, dims),
            "stride": ints(m.stride if m.stride is not None else m.kernel_size, dims),
            "padding": ints(m.padding, dims), "ceil_mode": bool(m.ceil_mode),
            "count_include_pad": bool(m.count_include_pad),
            "divisor_override": None if getattr(m, "divisor_override", None) is None else int(m.divisor_override)}


def _avg_pool_from_aten(lowering, n, where, x, dims):
    b = lowering.bind(n)
    kernel = ints(b["kernel_size"], dims)
    divisor = b.get("divisor_override")
    _write_module(lowering, n, {"type": "AvgPool", "dims": dims, "kernel_size": kernel,
                                "stride": ints(b["stride"] or kernel, dims), "padding": ints(b["padding"], dims),
                                "ceil_mode": bool(b["ceil_mode"]), "count_include_pad": bool(b["count_include_pad"]),
                                "divisor_override": None if divisor is None else int(divisor)}, x)


# Not on the integers in PT2E: the reference rounds a float mean, whose ties (a
# 2x2 mean ends in .5 on a quarter of the outputs) its float steps decide, where
# an integer pool rounds them half to even. It runs as the graph has it
# (dequantize, float pool, quantize), which is PyTorch's arithmetic.
_module(
    "AvgPool", ["dims", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"],
    eager=lambda: {nn.AvgPool1d: 1, nn.AvgPool2d: 2, nn.AvgPool3d: 3},
    from_module=_avg_pool_from_module,
    pt2e=ValueLowering(ops=lambda: {aten.avg_pool1d.default: 1, aten.avg_pool2d.default: 2,
                                    aten.avg_pool3d.default: 3},
                       write=_avg_pool_from_aten, on_integers=False),
    numerics={"int8": "exact: integer sums, PyTorch's division and rounding (docs/numerics.md)",
              "float": "to float rounding: the sum's order may differ from PyTorch's"})


def _adaptive_avg_pool_from_module(path, m, w, dims):
    size = m.output_size
    size = [size] * dims if isinstance(size, int) else list(size)
    if any(s is None for s in size):
        raise ExportError(f"{path}: AdaptiveAvgPool{dims}d with a None output size is not supported")
    return {"type": "AdaptiveAvgPool", "dims": dims, "output_size": [int(s) for s in size]}


def _adaptive_avg_pool_from_aten(lowering, n, where, x, dims):
    b = lowering.bind(n)
    _write_module(lowering, n, {"type": "AdaptiveAvgPool", "dims": dims,
                                "output_size": ints(b["output_size"], dims)}, x)


_module(
    "AdaptiveAvgPool", ["dims", "output_size"],
    eager=lambda: {nn.AdaptiveAvgPool1d: 1, nn.AdaptiveAvgPool2d: 2, nn.AdaptiveAvgPool3d: 3},
    from_module=_adaptive_avg_pool_from_module,
    pt2e=ValueLowering(ops=lambda: {aten.adaptive_avg_pool1d.default: 1, aten.adaptive_avg_pool2d.default: 2,
                                    aten.adaptive_avg_pool3d.default: 3},
                       write=_adaptive_avg_pool_from_aten, on_integers=False),
    numerics={"int8": "exact: integer sums, PyTorch's division and rounding (docs/numerics.md)",
              "float": "to float rounding: the sum's order may differ from PyTorch's"})


def _conv_from_module(path, m, w, _):
    t = type(m)
    conv, relu = (m[0], True) if isinstance(m, nn.Sequential) else (m, False)
    dims = {nn.Conv1d: 1, nn.Conv2d: 2, nn.Conv3d: 3}.get(type(conv))
    if dims is None:
        raise ExportError(f"{path}: {type(conv).__name__} inside {t.__name__} is not supported")
    if conv.padding_mode != "zeros" or isinstance(conv.padding, str):
        raise ExportError(f"{path}: {t.__name__} with padding {conv.padding!r} / padding_mode "
                          f"'{conv.padding_mode}' is not supported")
    return {"type": "Conv", "dims": dims, "relu": relu, "in_channels": conv.in_channels,
            "out_channels": conv.out_channels, "kernel_size": ints(conv.kernel_size),
            "stride": ints(conv.stride), "padding": ints(conv.padding), "dilation": ints(conv.dilation),
            "groups": int(conv.groups), "weight": w.add(f"{path}.weight", conv.weight.to(torch.float32)),
            "bias": w.bias(path, conv.bias)}


_PADDING_AS_TEXT = "padding as text"  # the variant of conv1d.padding etc. (padding='same' / 'valid')


def _conv_from_aten(lowering, n, where, dims):
    if dims == _PADDING_AS_TEXT:
        raise ExportError(f"{where}: a convolution with padding '{n.args[4] if len(n.args) > 4 else ''}' is not "
                          "supported; give the padding as numbers")
    b, path, weight, w_name, bias_name = _float_layer_parts(lowering, n, where)
    groups = int(b["groups"])
    entry = {"type": "Conv", "dims": dims, "relu": False, "in_channels": weight.shape[1] * groups,
             "out_channels": weight.shape[0], "kernel_size": list(weight.shape[2:]),
             "stride": ints(b["stride"], dims), "padding": ints(b["padding"], dims),
             "dilation": ints(b["dilation"], dims), "groups": groups, "weight": w_name, "bias": bias_name}
    _write_float_layer(lowering, n, where, b, path, entry)


_module(
    "Conv", ["dims", "relu", *_CONV_FIELDS, "weight", "bias"],
    eager=lambda: dict.fromkeys((nn.Conv1d, nn.Conv2d, nn.Conv3d, nni.ConvReLU1d, nni.ConvReLU2d, nni.ConvReLU3d)),
    from_module=_conv_from_module,
    pt2e=Lowering(ops=lambda: {**_aten_convs(), aten.conv1d.padding: _PADDING_AS_TEXT,
                               aten.conv2d.padding: _PADDING_AS_TEXT, aten.conv3d.padding: _PADDING_AS_TEXT},
                  write=_conv_from_aten),
    check=_check_float_layer, numerics=_FLOAT_LAYER)


def _linear_from_module(path, m, w, _):
    lin, relu = (m[0], True) if isinstance(m, nn.Sequential) else (m, False)
    return {"type": "Linear", "relu": relu, "in_features": lin.in_features, "out_features": lin.out_features,
            "weight": w.add(f"{path}.weight", lin.weight.to(torch.float32)), "bias": w.bias(path, lin.bias)}


def _linear_from_aten(lowering, n, where, _):
    b, path, weight, w_name, bias_name = _float_layer_parts(lowering, n, where)
    entry = {"type": "Linear", "relu": False, "in_features": weight.shape[1],
             "out_features": weight.shape[0], "weight": w_name, "bias": bias_name}
    _write_float_layer(lowering, n, where, b, path, entry)


_module(
    "Linear", ["relu", "in_features", "out_features", "weight", "bias"],
    eager=lambda: {nn.Linear: None, nni.LinearReLU: None},
    from_module=_linear_from_module,
    pt2e=Lowering(ops=lambda: {aten.linear.default: None}, write=_linear_from_aten),
    check=_check_float_layer, numerics=_FLOAT_LAYER)


def _batch_norm_from_module(path, m, w, dims):
    if m.training or not m.track_running_stats or m.running_mean is None:
        raise ExportError(f"{path}: {type(m).__name__} must be in eval mode with running statistics")
    return {"type": "BatchNorm", "dims": dims, "num_features": m.num_features, "eps": float(m.eps),
            "weight": None if m.weight is None else w.add(f"{path}.weight", m.weight.to(torch.float32)),
            "bias": None if m.bias is None else w.add(f"{path}.bias", m.bias.to(torch.float32)),
            "running_mean": w.add(f"{path}.running_mean", m.running_mean.to(torch.float32)),
            "running_var": w.add(f"{path}.running_var", m.running_var.to(torch.float32))}


def _batch_norm_from_aten(lowering, n, where, _):
    b = lowering.bind(n)
    if b.get("training"):
        raise ExportError(f"{where}: batch_norm in training mode; export the model in eval mode")
    path = lowering.module_name(n)
    w = lowering.w
    mean = lowering.constant(b["running_mean"], where)
    value = lowering.recorded_value(n)
    if value is None:
        raise ExportError(f"{where}: batch_norm of an input whose rank torch.export did not record")
    entry = {"type": "BatchNorm", "dims": value.dim() - 2, "num_features": mean.numel(), "eps": float(b["eps"]),
             "weight": None if b["weight"] is None else w.add(f"{path}.weight",
                                                             lowering.constant(b["weight"], where).float()),
             "bias": None if b["bias"] is None else w.add(f"{path}.bias", lowering.constant(b["bias"], where).float()),
             "running_mean": w.add(f"{path}.running_mean", mean.float()),
             "running_var": w.add(f"{path}.running_var", lowering.constant(b["running_var"], where).float())}
    if entry["dims"] not in (1, 2, 3):
        raise ExportError(f"{where}: batch_norm of a rank-{entry['dims'] + 2} tensor is not supported")
    lowering.values[n] = ("float", n.name)
    lowering.emit(n.name, "call_module", lowering.add_module(path, entry), [lowering.float_ref(b["input"], where)])


def _check_eps(where, m, tensors):
    eps = m["eps"]
    if not (math.isfinite(eps) and eps >= 0):
        raise ExportError(f"{where}: eps is {eps}: qwasm's BatchNorm needs a finite eps >= 0")


_module(
    "BatchNorm", ["dims", "num_features", "eps", "weight", "bias", "running_mean", "running_var"],
    eager=lambda: {nn.BatchNorm1d: 1, nn.BatchNorm2d: 2, nn.BatchNorm3d: 3},
    from_module=_batch_norm_from_module,
    pt2e=Lowering(ops=lambda: {aten._native_batch_norm_legit_no_training.default: None,
                               aten.batch_norm.default: None},
                  write=_batch_norm_from_aten),
    check=_check_eps, numerics={"float": "bit for bit (batch_norm_kernel.cpp's eval-mode steps, fma)"})


# -- graph functions -------------------------------------------------------------------------------------------------

_QPARAMS = ("scale", "zero_point")


def _two_dequantized_inputs(lowering, core):
    """add(dq(a), dq(b)) with alpha 1."""
    return (len(core.args) == 2 and all(lowering.is_dequantize(a) for a in core.args)
            and core.kwargs.get("alpha", 1) == 1)


def _quantized_add_writer(target):
    def write(lowering, q, core, relu, scale, zp, where, _):
        a, b = (lowering.q_input(d, where) for d in core.args)
        lowering.emit(core.name, "call_function", target, [a, b, scale, zp])
        return core.name
    return write


def _aten_adds():
    return {aten.add.Tensor: None, aten.add_.Tensor: None}


_function("quantized.add", 4, _QPARAMS, traced=lambda: (torch.ops.quantized.add,),
          int8=Int8Pattern(ops=_aten_adds, relu=(False,), inputs=_two_dequantized_inputs,
                           write=_quantized_add_writer("quantized.add")),
          check=_check_output_qparams, numerics=_QUANTIZED_ELEMENTWISE)
_function("quantized.add_relu", 4, _QPARAMS, traced=lambda: (torch.ops.quantized.add_relu,),
          int8=Int8Pattern(ops=_aten_adds, relu=(True,), inputs=_two_dequantized_inputs,
                           write=_quantized_add_writer("quantized.add_relu")),
          check=_check_output_qparams, numerics=_QUANTIZED_ELEMENTWISE)
_function("quantized.mul", 4, _QPARAMS, traced=lambda: (torch.ops.quantized.mul,), check=_check_output_qparams,
          numerics=_QUANTIZED_ELEMENTWISE)
_function("quantized.mul_relu", 4, _QPARAMS, traced=lambda: (torch.ops.quantized.mul_relu,),
          check=_check_output_qparams, numerics=_QUANTIZED_ELEMENTWISE)
_function("quantized.add_scalar", 2, traced=lambda: (torch.ops.quantized.add_scalar,),
          numerics=_QUANTIZED_ELEMENTWISE)
_function("quantized.mul_scalar", 2, traced=lambda: (torch.ops.quantized.mul_scalar,),
          numerics=_QUANTIZED_ELEMENTWISE)


def _quantized_cat_from_pattern(lowering, q, core, relu, scale, zp, where, _):
    dim = lowering.bind(core).get("dim", 0)
    xs = [lowering.q_input(d, where) for d in core.args[0]]
    lowering.emit(core.name, "call_function", "quantized.cat", [xs, int(dim), scale, zp])
    return core.name


_function("quantized.cat", 4, [*_QPARAMS, "dim"], traced=lambda: (torch.ops.quantized.cat,),
          int8=Int8Pattern(ops=lambda: {aten.cat.default: None}, relu=(False,),
                           inputs=lambda lowering, core: all(lowering.is_dequantize(a) for a in core.args[0]),
                           write=_quantized_cat_from_pattern),
          check=_check_output_qparams,
          numerics={"int8": "exact: each input requantized to the output's qparams as PyTorch's quantized cat"})


def _cat_from_aten(lowering, n, where, _):
    b = lowering.bind(n)
    lowering.values[n] = ("float", n.name)
    lowering.emit(n.name, "call_function", "cat", [[lowering.float_ref(x, where) for x in b["tensors"]],
                                                   int(b["dim"])])


_function("cat", 2, ["dim"], pt2e=Lowering(ops=lambda: {aten.cat.default: None}, write=_cat_from_aten),
          numerics={"float": "bit for bit: moves the values"})


def _flatten_from_aten(lowering, n, where, x, _):
    b = lowering.bind(n)
    lowering.emit(n.name, "call_function", "flatten", [x, int(b["start_dim"]), int(b["end_dim"])])


_function("flatten", 3, ["start_dim", "end_dim"], traced=lambda: (torch.flatten,),
          pt2e=ValueLowering(ops=lambda: {aten.flatten.using_ints: None}, write=_flatten_from_aten,
                             on_integers=True),
          numerics=_MOVES)


def _relu_from_aten(lowering, n, where, x, _):
    lowering.emit(n.name, "call_function", "relu", [x])


# PT2E: also the ReLU fused into a quantized conv, linear or add (their patterns' relu).
RELU = _function(
    "relu", 1, traced=lambda: (torch.relu, F.relu),
    in_place=lambda node, kwargs: kwargs.pop("inplace", False),
    pt2e=ValueLowering(ops=lambda: {aten.relu.default: None, aten.relu_.default: None}, write=_relu_from_aten,
                       on_integers=True, inplace=lambda: {aten.relu_.default}),
    numerics=_CLAMP)


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


def _add_from_aten(lowering, n, where, _):
    # Two float tensors (broadcast as PyTorch does) or a tensor and a number (x + 1.0).
    b = lowering.bind(n)
    if b.get("alpha", 1) != 1:
        raise ExportError(f"{where}: add with alpha={b['alpha']!r} is not supported: PyTorch rounds "
                          "input + alpha * other once on its vector path and twice on its scalar path; "
                          "write the multiply as its own op")
    operands = [lowering.float_ref(x, where) if isinstance(x, torch.fx.Node) else float32_scalar(x, where)
                for x in (b["self"], b["other"])]
    lowering.values[n] = ("float", n.name)
    lowering.emit(n.name, "call_function", "add", operands)


_function("add", 2, traced=lambda: (operator.add, operator.iadd, torch.add), eager_args=_float_add_args,
          in_place=lambda node, kwargs: node.target is operator.iadd,
          pt2e=Lowering(ops=lambda: {aten.add.Tensor: None, aten.add_.Tensor: None, aten.add.Scalar: None,
                                     aten.add_.Scalar: None},
                        write=_add_from_aten, inplace=lambda: {aten.add_.Tensor, aten.add_.Scalar}),
          numerics={"float": "bit for bit: one float32 addition per element (a number operand rounded to float32)"})


# -- graph methods ---------------------------------------------------------------------------------------------------

def _reshape_from_aten(lowering, n, where, x, _):
    b = lowering.bind(n)
    size = b["size"] if "size" in b else b["shape"]
    if not all(isinstance(s, int) for s in size):
        raise ExportError(f"{where}: a reshape to a size known only at run time ({size}) is not supported; "
                          "flatten instead, or export with a static shape")
    lowering.emit(n.name, "call_method", "reshape", [x, *[int(s) for s in size]])


_method("flatten", 3, ["start_dim", "end_dim"], traced=("flatten",), numerics=_MOVES)
_method("reshape", 65, traced=("view", "reshape"),  # x and at most 64 sizes (qwasm's tensor rank)
        pt2e=ValueLowering(ops=lambda: {aten.view.default: None, aten.reshape.default: None,
                                        aten._unsafe_view.default: None},
                           write=_reshape_from_aten, on_integers=True),
        numerics=_MOVES)
_method("relu", 1, traced=("relu",), numerics=_CLAMP)
# PT2E: qwasm_pt2e writes it for a dequantize (the reference representation's
# own op) that feeds a float op.
_method("dequantize", 1, traced=("dequantize",),
        numerics={"int8": "bit for bit: (q - zero point) * scale in float32, as dequantize"})
_method("contiguous", 1, traced=("contiguous",), numerics=_MOVES)


# -- layout: permute, transpose, pad ---------------------------------------------------------------------------------
# Each moves values (or fills new places with a constant): on a quantized value the integers move and the qparams
# stay, which is dequantize -> op -> quantize with the input's qparams (a constant pad's fill is the value quantized).

from qwasm_ops_layout import (  # noqa: E402 - this section's writers
    check_pad,
    flip_from_aten,
    int_list_method,
    pad_eager_args,
    pad_from_aten,
    pad_from_module,
    pad_modules,
    permute_from_aten,
    select_from_aten,
    slice_from_aten,
    squeeze_from_aten,
    stack_from_aten,
    transpose_from_aten,
    unsqueeze_from_aten,
)


_function("permute", 2, ["dims"], traced=lambda: (torch.permute,),
          pt2e=ValueLowering(ops=lambda: {aten.permute.default: None}, write=permute_from_aten, on_integers=True),
          numerics=_MOVES)
_method("permute", 65, traced=("permute",), numerics=_MOVES)  # x and at most 64 dims (qwasm's tensor rank)


_function("transpose", 3, ["dim0", "dim1"], traced=lambda: (torch.transpose,),
          pt2e=ValueLowering(ops=lambda: {aten.transpose.int: None}, write=transpose_from_aten, on_integers=True),
          numerics=_MOVES)
_method("transpose", 3, ["dim0", "dim1"], traced=("transpose",), numerics=_MOVES)


# The eager flow's nn.*Pad modules (in PT2E they are aten.pad, the pad function below).
_module("Pad", ["padding", "mode", "value"], eager=pad_modules, from_module=pad_from_module,
        numerics={"int8": "exact: moves the integers, qparams kept; a constant fill is the value quantized",
                  "float": "bit for bit: moves the values; a constant fill is the value as float32"})


# PT2E: the pad on the integers needs QwasmQuantizer's shared qparams; a fill value then takes the integer
# PyTorch's quantize gives it (qwasm's Quantize arithmetic), so the result is exactly the reference's.
_function("pad", 4, ["pad", "mode", "value"], traced=lambda: (F.pad,), eager_args=pad_eager_args,
          pt2e=ValueLowering(ops=lambda: {aten.pad.default: None, aten.constant_pad_nd.default: "constant_pad_nd",
                                          aten.reflection_pad1d.default: "reflect",
                                          aten.reflection_pad2d.default: "reflect",
                                          aten.reflection_pad3d.default: "reflect",
                                          aten.replication_pad1d.default: "replicate",
                                          aten.replication_pad2d.default: "replicate",
                                          aten.replication_pad3d.default: "replicate"},
                             write=pad_from_aten, on_integers=True),
          check=check_pad,
          numerics={"int8": "exact: moves the integers, qparams kept; a constant fill is the value quantized",
                    "float": "bit for bit: moves the values; a constant fill is the value as float32"})


# Squeeze and unsqueeze change the shape only; slice / select / narrow, expand, repeat and flip copy selected
# values; split / chunk are written as one slice per item read (their getitem nodes); stack of float values (or
# of quantized values, in the eager flow).
_function("squeeze", 2, ["dim"], traced=lambda: (torch.squeeze,),
          pt2e=ValueLowering(ops=lambda: {aten.squeeze.default: "all", aten.squeeze.dim: "dim",
                                          aten.squeeze.dims: "dims"},
                             write=squeeze_from_aten, on_integers=True),
          numerics=_MOVES)
_method("squeeze", 2, ["dim"], traced=("squeeze",), numerics=_MOVES)


_function("unsqueeze", 2, ["dim"], traced=lambda: (torch.unsqueeze,),
          pt2e=ValueLowering(ops=lambda: {aten.unsqueeze.default: None}, write=unsqueeze_from_aten,
                             on_integers=True),
          numerics=_MOVES)
_method("unsqueeze", 2, ["dim"], traced=("unsqueeze",), numerics=_MOVES)


_function("slice", 5, pt2e=ValueLowering(
    ops=lambda: {aten.slice.Tensor: "slice", aten.narrow.default: "narrow", aten.split.Tensor: "split",
                 aten.split_with_sizes.default: "split", aten.chunk.default: "split"},
    write=slice_from_aten, on_integers=True), numerics=_MOVES)


_function("select", 3, pt2e=ValueLowering(ops=lambda: {aten.select.int: None}, write=select_from_aten,
                                          on_integers=True), numerics=_MOVES)
_method("narrow", 4, traced=("narrow",), numerics=_MOVES)
_method("expand", 65, traced=("expand",),
        pt2e=ValueLowering(ops=lambda: {aten.expand.default: None}, write=int_list_method("expand", "size"),
                           on_integers=True), numerics=_MOVES)
_method("repeat", 65, traced=("repeat",),
        pt2e=ValueLowering(ops=lambda: {aten.repeat.default: None}, write=int_list_method("repeat", "repeats"),
                           on_integers=True), numerics=_MOVES)


_function("flip", 2, ["dims"], traced=lambda: (torch.flip,),
          pt2e=ValueLowering(ops=lambda: {aten.flip.default: None}, write=flip_from_aten, on_integers=True),
          numerics=_MOVES)
_method("flip", 65, traced=("flip",), numerics=_MOVES)


# PT2E: of float values (a stack of dequantized values, quantized after, is what the reference computes).
_function("stack", 2, ["dim"], traced=lambda: (torch.stack,),
          pt2e=Lowering(ops=lambda: {aten.stack.default: None}, write=stack_from_aten),
          numerics={"int8": "exact: moves the integers (inputs in other qparams than the first's requantized as "
                            "PyTorch's quantized cat)",
                    "float": "bit for bit: moves the values"})


# -- views: the vocabulary's tables, and lookups by what each flow meets --------------------------------------------

MODULE_FIELDS = {t: list(op.fields) for t, op in MODULE_OPS.items()}
GRAPH_FUNCTIONS = {name: {"args": op.args, "kwargs": list(op.kwargs)} for name, op in FUNCTION_OPS.items()}
GRAPH_METHODS = {name: {"args": op.args, "kwargs": list(op.kwargs)} for name, op in METHOD_OPS.items()}
# The functions and methods the flows write: those with traced targets or a PT2E lowering or pattern.
RECORDED_FUNCTIONS = tuple(n for n, op in FUNCTION_OPS.items() if op.traced or op.pt2e or op.int8)
RECORDED_METHODS = tuple(n for n, op in METHOD_OPS.items() if op.traced or op.pt2e or op.int8)


def _resolved(parts):
    """A descriptor's torch objects: a tuple or dict as written, or what its `lambda:` returns."""
    return parts() if callable(parts) else parts


def _one_owner(pairs, what):
    """{key: value}, refusing a key two descriptors claim."""
    table = {}
    for key, value in pairs:
        if key in table:
            raise AssertionError(f"{what} {key} is claimed by two descriptors")
        table[key] = value
    return table


@functools.cache
def eager_modules():
    """{module class: (ModuleOp, variant)}: what the eager exporter writes for a leaf module."""
    return _one_owner(((cls, (op, variant)) for op in MODULE_OPS.values() if op.eager
                       for cls, variant in _resolved(op.eager).items()), "module class")


@functools.cache
def traced_functions():
    """{call_function target: GraphOp}."""
    return _one_owner(((target, op) for op in FUNCTION_OPS.values() if op.traced
                       for target in _resolved(op.traced)), "traced function")


@functools.cache
def traced_methods():
    """{call_method name: GraphOp}."""
    return _one_owner(((name, op) for op in METHOD_OPS.values() if op.traced
                       for name in _resolved(op.traced)), "traced method")


def _all_ops():
    return (*MODULE_OPS.values(), *FUNCTION_OPS.values(), *METHOD_OPS.values())


@functools.cache
def pt2e_lowerings():
    """{ATen op: (Lowering or ValueLowering, variant)}: how qwasm_pt2e writes an op in float."""
    return _one_owner(((aten_op, (op.pt2e, variant)) for op in _all_ops() if op.pt2e
                       for aten_op, variant in op.pt2e.ops().items()), "ATen op")


@functools.cache
def int8_patterns():
    """{ATen op: [(Int8Pattern, variant)]}: the integer ops a quantize may end (several for one ATen
    op where a fused ReLU makes another op: quantized.add and quantized.add_relu)."""
    table = {}
    for op in _all_ops():
        if op.int8:
            for aten_op, variant in op.int8.ops().items():
                table.setdefault(aten_op, []).append((op.int8, variant))
    return table


@functools.cache
def fused_relus():
    """The ATen ops of a ReLU an Int8Pattern may fuse (the relu function's)."""
    return frozenset(RELU.pt2e.ops())


def checked_fields(entry):
    """The entry, once its fields are its type's descriptor's (a new field must be
    declared there and in vocabulary.json, or the loader would refuse the file)."""
    fields = MODULE_FIELDS[entry["type"]]
    if sorted(entry) != sorted(["type", *fields]):
        raise AssertionError(f"qwasm writes {sorted(entry)} for {entry['type']}, "
                             f"its vocabulary says {sorted(['type', *fields])}")
    return entry


def module_entry(path, m, w):
    """The entry of one leaf module of a traced model (its tensors go to the writer w)."""
    found = eager_modules().get(type(m))
    if found is None:
        t = type(m)
        raise ExportError(f"unsupported module {t.__module__}.{t.__qualname__} at '{path}'; {OPS_DOC}")
    op, variant = found
    return checked_fields(op.from_module(path, m, w, variant) if op.from_module else {"type": op.type})


def check_module(where, entry, tensors):
    """What the loader's builder of the entry's type refuses (qwasm_format.check_loadable)."""
    check = MODULE_OPS[entry["type"]].check
    if check:
        check(where, entry, tensors)


def check_node(where, node):
    """What the loader refuses in a function's or method's constants (qwasm_format.check_loadable)."""
    table = {"call_function": FUNCTION_OPS, "call_method": METHOD_OPS}.get(node["op"], {})
    op = table.get(node.get("target"))
    if op is not None and op.check:
        op.check(where, node)
