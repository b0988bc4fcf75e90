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
import warnings
from dataclasses import dataclass, field
from typing import Callable, Optional, Union

import qwasm_ops_activations as _activations
import qwasm_ops_norms as _norms
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
    through: bool = False  # whether nodes that compute nothing (eval-mode dropout) may sit after the op


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

def _probe_backend(path, m, dims, op_name, reproduces):
    """'onednn' or 'fbgemm': whose kernel runs quantized op `op_name` with m's packed weights. The packed
    weights do not say it in Python, but each backend's kernel refuses a qint8 activation with an error
    naming itself (qconv.cpp: "(ONEDNN)" for PackedConvWeightsOnednn, "(FBGEMM)" for PackedConvWeight).
    `reproduces` names, for the error, the backends qwasm can take."""
    op = getattr(torch.ops.quantized, op_name)
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
                      f"this {type(m).__name__}; qwasm reproduces {reproduces}")


def packed_backend(path, m, dims):
    """'onednn' or 'fbgemm': whose kernel runs this quantized conv (_probe_backend)."""
    return _probe_backend(path, m, dims, f"conv{dims}d", "'fbgemm' and 'x86'")


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
             # PyTorch does, with symmetric weights and groups <= 100, else to
             # FBGEMM's requantization of exact sums: the reference never
             # saturates FBGEMM's depthwise int16 tap pairs.
             "backend": "onednn" if symmetric and groups <= 100 else "fbgemm_exact"}
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
# nnq.Dropout: what the eager flow's convert makes of an nn.Dropout (the identity in eval mode).
_module("Identity", [], eager=lambda: {nn.Identity: None, nn.Dropout: None, nn.Dropout1d: None, nn.Dropout2d: None,
                                       nn.Dropout3d: None, nnq.Dropout: None}, numerics=_MOVES)
# PT2E: a ReLU is the relu function (below).
_module("ReLU", [], eager=lambda: {nn.ReLU: None}, numerics=_CLAMP)
_module("ReLU6", [], eager=lambda: {nnq.ReLU6: None, nn.ReLU6: None}, numerics=_CLAMP)
def _hardtanh_from_module(path, m, w, _):
    return {"type": "Hardtanh", "min_val": float(m.min_val), "max_val": float(m.max_val)}


def _check_hardtanh(where, m, tensors):
    lo, hi = m["min_val"], m["max_val"]
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ExportError(f"{where}: Hardtanh bounds {lo}, {hi}: qwasm needs finite bounds with min_val < max_val")


def _hardtanh_from_aten(lowering, n, where, x, _):
    b = lowering.bind(n)
    entry = {"type": "Hardtanh", "min_val": float(b["min_val"]), "max_val": float(b["max_val"])}
    _check_hardtanh(where, entry, {})
    _write_module(lowering, n, entry, x)


# Float or on a quantized input (quantized::hardtanh: the bounds quantized with
# the input's qparams, which stay). nn.ReLU6 is its own type (above).
# PT2E (F.relu6 and F.hardtanh are aten.hardtanh): in float only. On the
# integers the bounds would be quantized as quantized::hardtanh does, and the
# reference's quantize rounds a bound's x * (1 / scale) where that rounds
# x / scale; the float clamp between dequantize and quantize is the reference.
_module("Hardtanh", ["min_val", "max_val"], eager=lambda: {nn.Hardtanh: None},
        from_module=_hardtanh_from_module,
        pt2e=ValueLowering(ops=lambda: {aten.hardtanh.default: None, aten.hardtanh_.default: None},
                           write=_hardtanh_from_aten, on_integers=False, inplace=lambda: {aten.hardtanh_.default}),
        check=_check_hardtanh, numerics=_CLAMP)
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
    dims = {nn.Conv1d: 1, nn.Conv2d: 2, nn.Conv3d: 3}.get(supported_class(conv))
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
# PT2E: dq(a), dq(b) -> mul [-> relu] -> q computes quantized::mul's (mul_relu's) integers (measured on torch 2.15,
# random integers and qparams, broadcast: none differ; tests/golden/generators/reductions.py checks it each run).
_function("quantized.mul", 4, _QPARAMS, traced=lambda: (torch.ops.quantized.mul,), check=_check_output_qparams,
          int8=Int8Pattern(ops=lambda: {aten.mul.Tensor: None, aten.mul_.Tensor: None}, relu=(False,),
                           inputs=_two_dequantized_inputs, write=_quantized_add_writer("quantized.mul")),
          numerics=_QUANTIZED_ELEMENTWISE)
_function("quantized.mul_relu", 4, _QPARAMS, traced=lambda: (torch.ops.quantized.mul_relu,),
          int8=Int8Pattern(ops=lambda: {aten.mul.Tensor: None, aten.mul_.Tensor: None}, relu=(True,),
                           inputs=_two_dequantized_inputs, write=_quantized_add_writer("quantized.mul_relu")),
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

def _same_dim(lowering, size, value, i):
    """Whether a run-time size (a node torch.export recorded a SymInt for) is dimension i of `value`
    (the reshaped tensor, as recorded), e.g. x.view(x.shape[0], -1) under a dynamic batch."""
    v = lowering.recorded_value(value)
    recorded = size.meta.get("val") if hasattr(size, "meta") else None
    return (v is not None and recorded is not None and i < v.dim()
            and str(v.shape[i]) == str(recorded) and not isinstance(v.shape[i], int))


def _reshape_from_aten(lowering, n, where, x, _):
    b = lowering.bind(n)
    size = list(b["size"] if "size" in b else b["shape"])
    dynamic = [i for i, s in enumerate(size) if not isinstance(s, int)]
    # A run-time size that keeps the input's own dimension (pytorchvideo's heads: x.view(x.shape[0], -1)
    # under a dynamic batch) is known from the element count: -1 when no other size is, and
    # [batch, -1] is flatten(x, 1).
    if len(dynamic) == 1 and _same_dim(lowering, size[dynamic[0]], n.args[0], dynamic[0]):
        i = dynamic[0]
        if -1 not in size:
            size[i] = -1
        elif i == 0 and len(size) == 2:
            lowering.emit(n.name, "call_function", "flatten", [x, 1, -1])
            return
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


# -- conv_transpose ----------------------------------------------------------------------------------------------------
# nn.ConvTranspose1d/2d/3d and aten.conv_transpose{1,2,3}d.input in float (the decoders of MONAI's UNet, BasicUNet
# and DynUNet). The weight is PyTorch's, [in_channels, out_channels / groups, *kernel_size].

_CONV_TRANSPOSE_FIELDS = ["dims", "in_channels", "out_channels", "kernel_size", "stride", "padding",
                          "output_padding", "groups", "dilation", "weight", "bias"]


def _aten_conv_transposes():
    return {aten.conv_transpose1d.default: 1, aten.conv_transpose2d.input: 2, aten.conv_transpose3d.input: 3}


def _conv_transpose_from_module(path, m, w, dims):
    if m.padding_mode != "zeros":
        raise ExportError(f"{path}: {type(m).__name__} with padding_mode '{m.padding_mode}' is not supported")
    return {"type": "ConvTranspose", "dims": dims, "in_channels": m.in_channels, "out_channels": m.out_channels,
            "kernel_size": ints(m.kernel_size), "stride": ints(m.stride), "padding": ints(m.padding),
            "output_padding": ints(m.output_padding), "groups": int(m.groups), "dilation": ints(m.dilation),
            "weight": w.add(f"{path}.weight", m.weight.to(torch.float32)), "bias": w.bias(path, m.bias)}


def _conv_transpose_from_aten(lowering, n, where, dims):
    b, path, weight, w_name, bias_name = _float_layer_parts(lowering, n, where)
    groups = int(b["groups"])
    entry = {"type": "ConvTranspose", "dims": dims, "in_channels": weight.shape[0],
             "out_channels": weight.shape[1] * groups, "kernel_size": list(weight.shape[2:]),
             "stride": ints(b["stride"], dims), "padding": ints(b["padding"], dims),
             "output_padding": ints(b["output_padding"], dims), "groups": groups,
             "dilation": ints(b["dilation"], dims), "weight": w_name, "bias": bias_name}
    _write_float_layer(lowering, n, where, b, path, entry)


def _check_conv_transpose(where, m, tensors):
    """PyTorch's own refusal (ConvUtils.h): each output padding below its stride or its dilation."""
    for i, (op, s, d) in enumerate(zip(m["output_padding"], m["stride"], m["dilation"])):
        if not 0 <= op < max(s, d):
            raise ExportError(f"{where}: output_padding {op} (dimension {i}) must be smaller than the stride {s} "
                              f"or the dilation {d}")
    _check_float_layer(where, m, tensors)


_module(
    "ConvTranspose", _CONV_TRANSPOSE_FIELDS,
    eager=lambda: {nn.ConvTranspose1d: 1, nn.ConvTranspose2d: 2, nn.ConvTranspose3d: 3},
    from_module=_conv_transpose_from_module,
    pt2e=Lowering(ops=_aten_conv_transposes, write=_conv_transpose_from_aten),
    check=_check_conv_transpose,
    numerics={"float": "within 1 ulp of the exact sum: float32 products summed in float64, rounded once "
                       "(PyTorch's float32 order differs; docs/numerics.md)"})


def packed_transpose_backend(path, m, dims):
    """'onednn' or 'fbgemm': whose kernel runs this quantized transposed conv (_probe_backend)."""
    return _probe_backend(path, m, dims, f"conv_transpose{dims}d", "'fbgemm'")


def _quantized_conv_transpose_from_module(path, m, w, dims):
    if m.padding_mode != "zeros":
        raise ExportError(f"{path}: {type(m).__name__} with padding_mode '{m.padding_mode}' is not supported")
    backend = packed_transpose_backend(path, m, dims)
    if backend != "fbgemm":
        raise ExportError(f"{path}: PyTorch's x86 engine runs this {type(m).__name__} on oneDNN (symmetric "
                          "weights and no output padding), whose integers qwasm does not reproduce yet; convert "
                          "the model with torch.backends.quantized.engine = 'fbgemm' to export it")
    return {"type": "QuantizedConvTranspose", "dims": dims, "relu": False, "in_channels": m.in_channels,
            "out_channels": m.out_channels, "kernel_size": ints(m.kernel_size), "stride": ints(m.stride),
            "padding": ints(m.padding), "output_padding": ints(m.output_padding), "groups": int(m.groups),
            "dilation": ints(m.dilation), "scale": float(m.scale), "zero_point": int(m.zero_point),
            "weight": w.qweight(path, m.weight()), "bias": w.bias(path, m.bias()), "backend": backend}


def _check_quantized_conv_transpose(where, m, tensors):
    """Per-tensor weights (FBGEMM's, the eager flow's), or per channel on axis 1 (the output channels of a
    group: a PT2E graph's)."""
    for i, (op, s, d) in enumerate(zip(m["output_padding"], m["stride"], m["dilation"])):
        if not 0 <= op < max(s, d):
            raise ExportError(f"{where}: output_padding {op} (dimension {i}) must be smaller than the stride {s} "
                              f"or the dilation {d}")
    weight = m["weight"]
    if weight["qscheme"] == "per_channel_affine":
        if weight["axis"] != 1:
            raise ExportError(f"{where}: a transposed conv's weight quantized per channel on axis {weight['axis']}; "
                              "qwasm's are per tensor or on axis 1 (the output channels)")
        per_tensor = {**m, "weight": {"qscheme": "per_tensor_affine", "scale": 1.0, "zero_point": 0}}
        _check_quantized_layer(where, per_tensor, tensors)
        for i, v in enumerate(tensors[weight["scales"]].tolist()):
            check_scale(v, f"{where}: the weight's scale {i}")
        for i, v in enumerate(tensors[weight["zero_points"]].tolist()):
            check_zero_point(v, -128, 127, f"{where}: the weight's zero point {i}")
    else:
        _check_quantized_layer(where, m, tensors)


def _conv_transpose_int8_inputs(lowering, core):
    """As a quantized conv's, with per-tensor weights or per channel on axis 1 (per input channel, as
    XNNPACKQuantizer's ch_axis 0 gives, cannot be one requantization: it stays float)."""
    if not _quantized_layer_inputs(lowering, core):
        return False
    w = core.args[1]
    return w.target != _per_channel_dequantize() or int(w.args[3]) == 1


def _per_channel_dequantize():
    return torch.ops.quantized_decomposed.dequantize_per_channel.default


def _quantized_conv_transpose_from_pattern(lowering, q, core, relu, scale, zp, where, dims):
    path, x, b, weight, bias_name, shape = _quantized_layer_parts(lowering, core, where)
    groups = int(b["groups"])
    entry = {"type": "QuantizedConvTranspose", "dims": dims, "relu": relu is not None, "in_channels": shape[0],
             "out_channels": shape[1] * groups, "kernel_size": shape[2:], "stride": ints(b["stride"], dims),
             "padding": ints(b["padding"], dims), "output_padding": ints(b["output_padding"], dims),
             "groups": groups, "dilation": ints(b["dilation"], dims), "scale": scale, "zero_point": zp,
             "weight": weight, "bias": bias_name,
             # PT2E's reference computes in float; FBGEMM's requantization of the exact sums is within a step.
             "backend": "fbgemm"}
    return _write_quantized_layer(lowering, q, core, path, entry, x)


# nnq.ConvTranspose1d/2d/3d packed by FBGEMM: exact (a stride-1 conv of the input with the zero point inserted
# between its values, as docs/numerics.md shows); in PT2E graphs, dq -> conv_transpose [-> relu] -> q.
_module(
    "QuantizedConvTranspose", ["dims", "relu", *_CONV_TRANSPOSE_FIELDS[1:-2], "scale", "zero_point", "weight", "bias",
                               "backend"],
    eager=lambda: {nnq.ConvTranspose1d: 1, nnq.ConvTranspose2d: 2, nnq.ConvTranspose3d: 3},
    from_module=_quantized_conv_transpose_from_module,
    int8=Int8Pattern(ops=_aten_conv_transposes, relu=(False, True), inputs=_conv_transpose_int8_inputs,
                     write=_quantized_conv_transpose_from_pattern),
    check=_check_quantized_conv_transpose,
    numerics={"int8": "exact: int32 sums, then FBGEMM's requantization (docs/numerics.md); PT2E: within one step "
                      "of its float reference"})
# -- activations ----------------------------------------------------------------------------------------------------
# The element-wise activations (qwasm_ops_activations.py: their table and the lookup's): each a float module
# type, and in a PT2E graph's `dequantize -> f -> quantize` region the module type QuantizedLookup.

def _activation_entry(act, fields):
    return {"type": act.type, **fields}


def _activation_from_module(path, m, w, act):
    recorded = _activations.recorded_input(path, m)
    if recorded is not None and recorded[0] == "q":
        # convert leaves nn.Sigmoid, nn.Tanh, nn.Hardsigmoid float; PyTorch runs them on QTensors.
        return _activations.lookup_from_module(torch, path, m, w, recorded)
    entry = _activation_entry(act, act.from_module(path, m))
    if act.type == "PReLU":
        entry["weight"] = w.add(f"{path}.weight", m.weight.detach().to(torch.float32).reshape(-1))
    return entry


def _activation_from_aten(lowering, n, where, x, act):
    b = lowering.bind(n)
    path = lowering.module_name(n)
    entry = _activation_entry(act, act.from_aten(where, b))
    if act.type == "PReLU":
        weight = lowering.float_weight(b["weight"], where).reshape(-1)
        value = lowering.recorded_value(n)
        if weight.numel() > 1 and (value is None or value.dim() < 2):
            raise ExportError(f"{where}: prelu with {weight.numel()} slopes on an input without a channel dimension")
        entry["weight"] = lowering.w.add(f"{path}.weight", weight)
    lowering.emit(n.name, "call_module", lowering.add_module(path, entry), [x])


def _check_prelu(where, m, tensors):
    if m["type"] == "PReLU":
        check_finite(tensors[m["weight"]], f"{where}: weight", "qwasm's PReLU needs finite slopes")


for _act in _activations.ACTIVATIONS:
    _module(_act.type, list(_act.fields), eager=(lambda a: lambda: dict.fromkeys(a.modules(nn), a))(_act),
            from_module=_activation_from_module,
            pt2e=ValueLowering(ops=(lambda a: lambda: dict.fromkeys(_activations.aten_ops(torch, a.aten), a))(_act),
                               write=_activation_from_aten, on_integers=False,
                               inplace=(lambda a: lambda: set(_activations.aten_ops(torch, a.inplace)))(_act)),
            check=_check_prelu if _act.type == "PReLU" else None, numerics={"float": _act.numerics})


# The same functions called in a traced float model (torch.sigmoid(x), F.silu(x), x.tanh(), ...), those without
# parameters. On a QTensor (an eager-quantized model calling torch.sigmoid) the loader's run refuses them: there
# is no module to hold a table; nn.Sigmoid etc. as modules are exported by table.
_TRACED_ACTIVATIONS = {"sigmoid": ("Sigmoid", lambda: (torch.sigmoid,), ("sigmoid",)),
                       "tanh": ("Tanh", lambda: (torch.tanh,), ("tanh",)),
                       "silu": ("SiLU", lambda: (F.silu,), ()),
                       "hardswish": ("Hardswish", lambda: (F.hardswish,), ()),
                       "hardsigmoid": ("Hardsigmoid", lambda: (F.hardsigmoid,), ()),
                       "mish": ("Mish", lambda: (F.mish,), ())}
_ACTIVATION_NUMERICS = {a.type: a.numerics for a in _activations.ACTIVATIONS}
for _name, (_type, _traced, _methods) in _TRACED_ACTIVATIONS.items():
    _function(_name, 1, traced=_traced, in_place=lambda node, kwargs: kwargs.pop("inplace", False),
              numerics={"float": _ACTIVATION_NUMERICS[_type]})
    if _methods:
        _method(_name, 1, traced=_methods, numerics={"float": _ACTIVATION_NUMERICS[_type]})


def _lookup_inputs(lowering, core):
    """f(dq(activation), constants...): the other arguments (prelu's slopes) are constants of the graph."""
    x, others = core.args[0], [*core.args[1:], *core.kwargs.values()]
    return lowering.is_dequantize(x) and all(not isinstance(a, torch.fx.Node) or a.op == "get_attr"
                                             for a in others)


def _lookup_from_pattern(lowering, q, core, relu, scale, zp, where, _):
    table, channels = _activations.lookup_table(torch, lowering, q, core, where)
    path = lowering.module_name(core)
    input_scale, input_zp = lowering.act_qparams(core.args[0])
    if channels > 1:
        value = lowering.recorded_value(core)
        if value is None or value.dim() < 2 or value.shape[1] != channels:
            raise ExportError(f"{where}: prelu with {channels} slopes on an input whose dimension 1 is not "
                              f"{channels} channels")
    entry = {"type": "QuantizedLookup", "input_scale": input_scale, "input_zero_point": input_zp, "scale": scale,
             "zero_point": zp, "table": lowering.w.add(f"{path}.table", table)}
    x = lowering.q_input(core.args[0], where)
    lowering.emit(core.name, "call_module", lowering.add_module(path, entry), [x])
    return core.name


def _lookup_from_module(path, m, w, _):
    recorded = _activations.recorded_input(path, m)
    if recorded is None or recorded[0] != "q":
        raise ExportError(f"{path}: {type(m).__name__} did not run on a QTensor when the example input ran; qwasm "
                          "writes its table from the input qparams it saw")
    return _activations.lookup_from_module(torch, path, m, w, recorded)


def recording_inputs(model):
    """qwasm_export runs the example input under this: each activation module's input qparams (its table's)."""
    classes = [cls for op in MODULE_OPS.values() if op.from_module in (_activation_from_module, _lookup_from_module)
               for cls in _resolved(op.eager)]
    return _activations.recording_inputs(torch, model, classes)


# PT2E: every activation above between a dequantize and a quantize (QwasmQuantizer annotates them).
# Eager: PyTorch's quantized activations, and nn.Sigmoid / nn.Tanh / nn.Hardsigmoid run on a QTensor.
_module("QuantizedLookup", list(_activations.LOOKUP_FIELDS),
        eager=lambda: {nnq.Hardswish: None, nnq.ELU: None, nnq.LeakyReLU: None, nnq.PReLU: None,
                       nnq.Sigmoid: None},
        from_module=_lookup_from_module,
        int8=Int8Pattern(ops=lambda: dict.fromkeys(_activations.aten_ops(torch, [
            name for a in _activations.ACTIVATIONS for name in a.aten])), relu=(False,),
            inputs=_lookup_inputs, write=_lookup_from_pattern),
        check=_activations.check_lookup,
        numerics={"int8": "exact by table: the output integer of each of the 256 input integers, one table per "
                          "channel for prelu (docs/numerics.md, Element-wise activations)"})
# -- reductions and binary arithmetic -------------------------------------------------------------------------------
# torch.sum / mean / amax / amin / argmax over dims, softmax / log_softmax over a dim, and the float mul, sub and
# div (docs/numerics.md, "Reductions and binary arithmetic"). A graph writes a reduction as (input, dim, keepdim)
# and a softmax as (input, dim); the writers are in qwasm_ops_reductions.py.

import qwasm_ops_reductions as _reductions  # noqa: E402  (needs the kinds of descriptor above)

_REDUCE_KWARGS = ("dim", "keepdim")
_SUM_NUMERICS = {"float": "bit for bit (a contiguous input, PyTorch on one thread): SumKernel.cpp's cascade sum in "
                          "TensorIterator's order; mean divides it by the count in float32"}
_EXTREMUM_NUMERICS = {"int8": "exact: the integers' maximum or minimum, qparams kept",
                      "float": "bit for bit: the maximum or minimum (NaN propagates)"}
_SOFTMAX_NUMERICS = {
    "softmax": {"float": "within 6 ulp: PyTorch's steps and order, Math.exp for Sleef's exp (tested)"},
    "log_softmax": {"float": "within 2^-21 x max(|y|, 1): PyTorch's steps and order, Math.exp / Math.log for "
                             "Sleef's (tested)"}}


def _reduction(name, aten_ops, numerics, on_integers=False):
    traced = lambda: (getattr(torch, name),)  # noqa: E731
    pt2e = ValueLowering(ops=aten_ops, write=_reductions.reduce_from_aten(name), on_integers=on_integers)
    _function(name, 3, _REDUCE_KWARGS, traced=traced, eager_args=_reductions.reduce_eager_args(name), pt2e=pt2e,
              numerics=numerics)
    _method(name, 3, _REDUCE_KWARGS, traced=(name,), numerics=numerics)


_reduction("sum", lambda: {aten.sum.dim_IntList: None}, _SUM_NUMERICS)
_reduction("mean", lambda: {aten.mean.dim: None, aten.mean.default: None}, _SUM_NUMERICS)
_reduction("amax", lambda: {aten.amax.default: None}, _EXTREMUM_NUMERICS, on_integers=True)
_reduction("amin", lambda: {aten.amin.default: None}, _EXTREMUM_NUMERICS, on_integers=True)
_reduction("argmax", lambda: {aten.argmax.default: None},
           {"float": "exact: the index of the first maximum (NaN the largest), held as float32 (exact below 2^24)"})


def _softmax(name, aten_ops):
    traced = lambda: (getattr(torch, name), getattr(F, name))  # noqa: E731
    _function(name, 2, ("dim",), traced=traced, eager_args=_reductions.softmax_eager_args,
              pt2e=ValueLowering(ops=aten_ops, write=_reductions.softmax_from_aten(name), on_integers=False),
              numerics=_SOFTMAX_NUMERICS[name])
    _method(name, 2, ("dim",), traced=(name,), numerics=_SOFTMAX_NUMERICS[name])


_softmax("softmax", lambda: {aten.softmax.int: None, aten._softmax.default: None})
_softmax("log_softmax", lambda: {aten.log_softmax.int: None, aten._log_softmax.default: None})


def _binary(name, traced, aten_ops, inplace, numerics):
    _function(name, 2, traced=traced, eager_args=_reductions.binary_eager_args(name),
              in_place=lambda node, kwargs: node.target in _reductions.in_place_operators(),
              pt2e=Lowering(ops=aten_ops, write=_reductions.binary_from_aten(name), inplace=inplace),
              numerics={"float": numerics})


_binary("mul", lambda: (operator.mul, operator.imul, torch.mul),
        lambda: {aten.mul.Tensor: None, aten.mul_.Tensor: None, aten.mul.Scalar: None, aten.mul_.Scalar: None},
        lambda: {aten.mul_.Tensor, aten.mul_.Scalar},
        "bit for bit: one float32 multiplication per element (a number operand rounded to float32)")
_binary("sub", lambda: (operator.sub, operator.isub, torch.sub),
        lambda: {aten.sub.Tensor: None, aten.sub_.Tensor: None, aten.sub.Scalar: None, aten.sub_.Scalar: None},
        lambda: {aten.sub_.Tensor, aten.sub_.Scalar},
        "bit for bit: one float32 subtraction per element (alpha 1 only)")
_binary("div", lambda: (operator.truediv, operator.itruediv, torch.div),
        lambda: {aten.div.Tensor: None, aten.div_.Tensor: None, aten.div.Scalar: None, aten.div_.Scalar: None,
                 aten.div.Tensor_mode: None, aten.div.Scalar_mode: None},
        lambda: {aten.div_.Tensor, aten.div_.Scalar},
        "bit for bit: one float32 division per element (rounding_mode None only)")


# -- resample --------------------------------------------------------------------------------------------------------
# F.interpolate (a graph function with its signature) and nn.Upsample (a module type with its options as
# fields), nearest / nearest-exact / linear / bilinear / trilinear; web/src/nn/interpolate.mjs computes them.

_INTERPOLATE_OPTIONS = ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor")
_RESAMPLE_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear")


def _resample_value(v, where, what, integer):
    """size / scale_factor as the file holds them: None, a number, or a list of 1 to 3."""
    if v is None:
        return None
    if isinstance(v, torch.fx.Node):
        raise ExportError(f"{where}: an interpolate {what} computed at run time ({v.name}) is not supported; "
                          "give it as numbers (e.g. the size of a fixed input)")
    one = (lambda x: int(x)) if integer else (lambda x: float(x))
    items = list(v) if isinstance(v, (list, tuple)) else None
    if items is not None and not 1 <= len(items) <= 3:
        raise ExportError(f"{where}: interpolate {what} {v!r} must hold 1 to 3 values")
    values = [one(x) for x in items] if items is not None else [one(v)]
    if any((x < 1 if integer else not (math.isfinite(x) and x > 0)) for x in values):
        raise ExportError(f"{where}: interpolate {what} {v!r} must be {'>= 1' if integer else 'finite and > 0'}")
    return values if items is not None else values[0]


def _check_resample_options(where, mode, align_corners, recompute):
    if mode not in _RESAMPLE_MODES:
        raise ExportError(f"{where}: interpolate mode {mode!r} is not supported (qwasm runs {', '.join(_RESAMPLE_MODES)})")
    for name, v in (("align_corners", align_corners), ("recompute_scale_factor", recompute)):
        if v is not None and not isinstance(v, bool):
            raise ExportError(f"{where}: interpolate {name} {v!r} must be True, False or None")


def _interpolate_args(node, kwargs, where):
    """F.interpolate's arguments as constants; antialias=True (a different filter) is refused."""
    if kwargs.pop("antialias", False):
        raise ExportError(f"{where}: interpolate with antialias=True is not supported (from: {node.format_node()})")
    args = list(node.args)
    names = ("input", *_INTERPOLATE_OPTIONS)
    for i, name in enumerate(names[1:], start=1):
        if i < len(args):
            v = args[i]
        elif name in kwargs:
            v = kwargs[name]
        else:
            continue
        if name in ("size", "scale_factor"):
            v = _resample_value(v, where, name, name == "size")
        if i < len(args):
            args[i] = v
        else:
            kwargs[name] = v
    b = dict(zip(names, args)) | kwargs
    _check_resample_options(where, b.get("mode", "nearest"), b.get("align_corners"), b.get("recompute_scale_factor"))
    return args


def _upsample_from_module(path, m, w, _):
    _check_resample_options(path, m.mode, m.align_corners, m.recompute_scale_factor)
    return {"type": "Upsample", "size": _resample_value(m.size, path, "size", True),
            "scale_factor": _resample_value(m.scale_factor, path, "scale_factor", False), "mode": m.mode,
            "align_corners": None if m.mode.startswith("nearest") else m.align_corners,
            "recompute_scale_factor": m.recompute_scale_factor}


def _aten_resample_options(lowering, n, where, mode):
    """An ATen upsample node as F.interpolate's options: (size, scale_factor, align_corners)."""
    b = lowering.bind(n)
    size = b.get("output_size")
    if "scale_factors" in b:  # .vec: a size or scales
        scales = b["scale_factors"]
    else:  # .default: a size, and the scales the kernel uses where given
        scales = [b[k] for k in ("scales_d", "scales_h", "scales_w", "scales") if k in b]
        if all(s is None for s in scales):
            scales = None
        else:
            value = lowering.recorded_value(n.args[0])
            spatial = None if value is None else list(value.shape[2:])
            if any(s is None for s in scales) or spatial is None or [
                    int(i * s) for i, s in zip(spatial, scales)] != [int(x) for x in size]:
                raise ExportError(f"{where}: an upsample with both an output size {size} and scales {scales} that "
                                  "F.interpolate cannot express; call F.interpolate with size or scale_factor")
            size = None
    if (size is None) == (scales is None):
        raise ExportError(f"{where}: an upsample needs exactly one of output_size and scale_factors")
    size = None if size is None else _resample_value(list(size), where, "size", True)
    scales = None if scales is None else _resample_value(list(scales), where, "scale_factor", False)
    align = b.get("align_corners") if mode in ("linear", "bilinear", "trilinear") else None
    return size, scales, None if align is None else bool(align)


def _check_nearest_on_integers(lowering, n, where, size, scales, mode):
    """PT2E runs nearest on a quantized value's integers with the quantized kernels' index rule; PyTorch's
    graph ran the float kernel, whose rule differs in corner cases (scales given where the size does not
    change or doubles; nearest-exact's rounding). Both are computed here with PyTorch, on indices."""
    value = lowering.recorded_value(n.args[0])
    if value is None or value.dim() == 3:
        raise ExportError(f"{where}: a {mode} upsample of a quantized {'3-D ' if value is not None else ''}value: "
                          "qwasm runs nearest on the integers of 4-D and 5-D values (PyTorch's quantized kernels)")
    shape = list(value.shape)
    index = torch.arange(math.prod(shape[2:]), dtype=torch.float32).reshape([1, 1, *shape[2:]])
    index = index.expand([1, shape[1], *shape[2:]]).contiguous()
    kwargs = {"size": size, "scale_factor": scales, "mode": mode,
              "recompute_scale_factor": None if scales is None else False}
    float_rule = F.interpolate(index, **kwargs)
    with warnings.catch_warnings():  # torch 2.15 marks quantize_per_tensor deprecated
        warnings.simplefilter("ignore")
        quantized = torch.quantize_per_tensor(index, 1.0, 0, torch.qint32)
    quantized_rule = F.interpolate(quantized, **kwargs).int_repr()
    if not torch.equal(float_rule.to(torch.int64), quantized_rule.to(torch.int64)):
        raise ExportError(f"{where}: this {mode} upsample of a quantized value (scales {scales}, input "
                          f"{shape}) picks other source pixels in PyTorch's float kernel than in its quantized "
                          "kernel, which qwasm runs on the integers; give the size instead of the scale factor")


def _interpolate_from_aten(lowering, n, where, x, mode):
    size, scales, align = _aten_resample_options(lowering, n, where, mode)
    if lowering.values.get(n.args[0]) != ("float", x["node"]):  # x: the integers of the dequantize's input
        _check_nearest_on_integers(lowering, n, where, size, scales, mode)
    kwargs = {"size": size, "scale_factor": scales, "mode": mode}
    if scales is not None:
        kwargs["recompute_scale_factor"] = False
    lowering.emit(n.name, "call_function", "interpolate", [x], kwargs)


def _upsample_from_aten(lowering, n, where, x, mode):
    size, scales, align = _aten_resample_options(lowering, n, where, mode)
    _write_module(lowering, n, {"type": "Upsample", "size": size, "scale_factor": scales, "mode": mode,
                                "align_corners": align,
                                "recompute_scale_factor": None if scales is None else False}, x)


def _aten_nearest():
    return {op: mode for mode, name in (("nearest", "upsample_nearest"), ("nearest-exact", "_upsample_nearest_exact"))
            for d in (1, 2, 3) for op in (getattr(aten, f"{name}{d}d").vec, getattr(aten, f"{name}{d}d").default)}


def _aten_linear():
    return {op: mode for mode, name in (("linear", "upsample_linear1d"), ("bilinear", "upsample_bilinear2d"),
                                        ("trilinear", "upsample_trilinear3d"))
            for op in (getattr(aten, name).vec, getattr(aten, name).default)}


# PT2E: nearest moves values, so `dq -> upsample -> q` with equal qparams runs on the integers (the
# function); the linear modes compute new values, in float (an Upsample module entry, named by its module).
_RESAMPLE_NUMERICS = {
    "int8": "exact: nearest / nearest-exact move the integers, bilinear rounds PyTorch's quantized kernels' "
            "float32 steps; qparams kept (docs/numerics.md, \"Resampling\")",
    "float": "bit for bit: PyTorch's CPU kernels (generic or channels-last, as PyTorch picks) and their fma "
             "contractions (docs/numerics.md, \"Resampling\")"}
_module("Upsample", _INTERPOLATE_OPTIONS,
        eager=lambda: {nn.Upsample: None, nn.UpsamplingNearest2d: None, nn.UpsamplingBilinear2d: None},
        from_module=_upsample_from_module,
        pt2e=ValueLowering(ops=_aten_linear, write=_upsample_from_aten, on_integers=False),
        numerics=_RESAMPLE_NUMERICS)
_function("interpolate", 6, _INTERPOLATE_OPTIONS, traced=lambda: (F.interpolate,), eager_args=_interpolate_args,
          pt2e=ValueLowering(ops=_aten_nearest, write=_interpolate_from_aten, on_integers=True),
          numerics=_RESAMPLE_NUMERICS)


# -- normalisation ----------------------------------------------------------------------------------------------------
# Float only (qwasm_ops_norms.py writes them): in a PT2E graph each runs in a float region
# (dequantize -> norm -> quantize), with PyTorch's float32 arithmetic.
_NORM_FLOAT = {"float": "bit for bit: PyTorch's float32 steps in its CPU kernel's order (Welford's cascade, "
                        "fused multiply-adds; docs/numerics.md)"}
_NORM_INT8 = {"int8": "exact: PyTorch's quantized kernel (integer sums, its float32 steps, the output's "
                      "quantize; docs/numerics.md)"}

_module("InstanceNorm", ["dims", "num_features", "eps", "weight", "bias", "running_mean", "running_var"],
        eager=lambda: {nn.InstanceNorm1d: 1, nn.InstanceNorm2d: 2, nn.InstanceNorm3d: 3},
        from_module=_norms.instance_norm_from_module,
        pt2e=ValueLowering(ops=lambda: {aten.instance_norm.default: None},
                           write=_norms.instance_norm_from_aten, on_integers=False),
        check=_norms.check_eps, numerics=_NORM_FLOAT)
_module("GroupNorm", ["num_groups", "num_channels", "eps", "weight", "bias"],
        eager=lambda: {nn.GroupNorm: None}, from_module=_norms.group_norm_from_module,
        pt2e=ValueLowering(ops=lambda: {aten.group_norm.default: None, aten.native_group_norm.default: None},
                           write=_norms.group_norm_from_aten, on_integers=False),
        check=_norms.check_eps, numerics=_NORM_FLOAT)
_module("LayerNorm", ["normalized_shape", "eps", "weight", "bias"],
        eager=lambda: {nn.LayerNorm: None}, from_module=_norms.layer_norm_from_module,
        pt2e=ValueLowering(ops=lambda: {aten.layer_norm.default: None, aten.native_layer_norm.default: None},
                           write=_norms.layer_norm_from_aten, on_integers=False),
        check=_norms.check_eps, numerics=_NORM_FLOAT)


# PT2E: dequantize -> norm -> [relu] -> quantize, the float region between two int8 layers (MONAI's SegResNet, UNet,
# DynUNet), one module: qwasm runs the four nodes' arithmetic in one call, without floats leaving wasm memory.
_module("QuantizedNormRegion", ["norm", "relu", "input_scale", "input_zero_point", "scale", "zero_point"],
        int8=Int8Pattern(ops=lambda: {aten.instance_norm.default: "instance", aten.group_norm.default: "group",
                                      aten.layer_norm.default: "layer"},
                         relu=(False, True), inputs=_norms.region_inputs, write=_norms.region_from_pattern,
                         through=True),
        check=_norms.check_region(check_scale, check_zero_point),
        numerics={"int8": "bit for bit: the graph's dequantize, its float norm (PyTorch's float32 steps), relu and "
                          "quantize, in one call (docs/numerics.md, Normalisation)"})

# The eager flow's quantized modules (quantized::instance_norm, group_norm, layer_norm on quint8).
_check_quantized_norm = _norms.check_quantized_norm(check_scale, check_zero_point)
_module("QuantizedInstanceNorm", ["dims", "num_features", "eps", "weight", "bias", "scale", "zero_point"],
        eager=lambda: {nnq.InstanceNorm1d: 1, nnq.InstanceNorm2d: 2, nnq.InstanceNorm3d: 3},
        from_module=_norms.quantized_instance_norm_from_module, check=_check_quantized_norm,
        numerics=_NORM_INT8)
_module("QuantizedGroupNorm", ["num_groups", "num_channels", "eps", "weight", "bias", "scale", "zero_point"],
        eager=lambda: {nnq.GroupNorm: None}, from_module=_norms.quantized_group_norm_from_module,
        check=_check_quantized_norm, numerics=_NORM_INT8)
_module("QuantizedLayerNorm", ["normalized_shape", "eps", "weight", "bias", "scale", "zero_point"],
        eager=lambda: {nnq.LayerNorm: None}, from_module=_norms.quantized_layer_norm_from_module,
        check=_check_quantized_norm, numerics=_NORM_INT8)
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


def supported_class(m):
    """The supported module class m is an instance of: its own, or the one it
    subclasses without changing what it computes (torchvision's video models'
    Conv3DSimple is an nn.Conv3d with its own __init__ only); else None."""
    table = eager_modules()
    t = type(m)
    if t in table:
        return t
    for base in t.__mro__[1:]:
        if base in table:
            between = t.__mro__[:t.__mro__.index(base)]
            # Any method of its own (but __init__ and static or class methods) could compute something else.
            own = [name for c in between for name, v in vars(c).items()
                   if callable(v) and not isinstance(v, (staticmethod, classmethod)) and name != "__init__"]
            return None if own else base
    return None


def module_entry(path, m, w):
    """The entry of one leaf module of a traced model (its tensors go to the writer w)."""
    found = eager_modules().get(supported_class(m))
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
