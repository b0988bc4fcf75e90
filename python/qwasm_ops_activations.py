"""The element-wise activations of the model format (qwasm_ops.py's "activations" section holds their
descriptors; this module holds what they share).

Each activation is a float module type (its fields are its PyTorch module's arguments) that qwasm runs
on float32 values, and, in a PT2E graph's `dequantize -> f -> quantize` region, the module type
QuantizedLookup: the input takes only 256 values, so the exporter runs the graph's own three nodes in
PyTorch on all 256 of them (one tensor of 256 elements, a multiple of every vector width, so each
element takes PyTorch's vectorized path) and writes the 256 output integers; qwasm looks them up,
equal by construction. PReLU with one slope per channel has one table per channel.

Like qwasm_ops, this module imports without torch; torch is imported when a model is exported.
"""

from dataclasses import dataclass
from typing import Callable

from qwasm_format import ExportError, check_scale, check_zero_point


@dataclass(frozen=True)
class Activation:
    """One float activation: its module type and fields, the PyTorch module classes written as it,
    the ATen ops (out of place and in place) a PT2E graph holds for it, and how to read its fields
    from a module and from an ATen node's bound arguments."""
    type: str
    fields: tuple
    modules: Callable  # () -> the nn module classes
    aten: tuple  # names of torch.ops.aten overloads ("sigmoid.default")
    inplace: tuple  # the in-place ones among aten
    from_module: Callable  # (path, m) -> {field: value}, except tensors
    from_aten: Callable  # (where, bound args) -> {field: value}, except tensors
    numerics: str


def _no_fields(*_):
    return {}


def _finite(v, what, where):
    import math
    v = float(v)
    if not math.isfinite(v):
        raise ExportError(f"{where}: {what} is {v}; qwasm needs a finite number")
    return v


def _elu(where, b):
    if float(b.get("scale", 1)) != 1.0 or float(b.get("input_scale", 1)) != 1.0:
        raise ExportError(f"{where}: elu with scale or input_scale other than 1 (selu, celu) is not supported")
    return {"alpha": _finite(b.get("alpha", 1.0), "alpha", where)}


def _gelu(where, b):
    approximate = b.get("approximate", "none")
    if approximate != "tanh":
        raise ExportError(f"{where}: float gelu with approximate='{approximate}' is not supported (qwasm has no "
                          "erf matching PyTorch's); approximate='tanh' runs in float, and either form runs in int8 "
                          "between quantize nodes (QwasmQuantizer)")
    return {"approximate": approximate}


def _gelu_module(path, m):
    return _gelu(path, {"approximate": m.approximate})


def _softplus(where, b):
    return {"beta": _finite(b.get("beta", 1.0), "beta", where),
            "threshold": _finite(b.get("threshold", 20.0), "threshold", where)}


_TRANSCENDENTAL = "within {n} ulp of PyTorch's vectorized float32 kernel (measured, docs/numerics.md)"

ACTIVATIONS = (
    Activation("LeakyReLU", ("negative_slope",), lambda nn: (nn.LeakyReLU,),
               ("leaky_relu.default", "leaky_relu_.default"), ("leaky_relu_.default",),
               lambda path, m: {"negative_slope": _finite(m.negative_slope, "negative_slope", path)},
               lambda where, b: {"negative_slope": _finite(b.get("negative_slope", 0.01), "negative_slope", where)},
               "bit for bit (x > 0 ? x : x * slope, the slope as float32)"),
    Activation("PReLU", ("weight",), lambda nn: (nn.PReLU,), ("prelu.default",), (),
               _no_fields, _no_fields, "bit for bit (x > 0 ? x : weight * x, one weight or one per channel)"),
    Activation("Hardsigmoid", (), lambda nn: (nn.Hardsigmoid,), ("hardsigmoid.default", "hardsigmoid_.default"),
               ("hardsigmoid_.default",), _no_fields, _no_fields, "bit for bit (min(max(x + 3, 0), 6) / 6)"),
    Activation("Hardswish", (), lambda nn: (nn.Hardswish,), ("hardswish.default", "hardswish_.default"),
               ("hardswish_.default",), _no_fields, _no_fields, "bit for bit (x * min(max(x + 3, 0), 6) / 6)"),
    Activation("Sigmoid", (), lambda nn: (nn.Sigmoid,), ("sigmoid.default", "sigmoid_.default"),
               ("sigmoid_.default",), _no_fields, _no_fields, _TRANSCENDENTAL.format(n=2)),
    Activation("Tanh", (), lambda nn: (nn.Tanh,), ("tanh.default", "tanh_.default"), ("tanh_.default",),
               _no_fields, _no_fields, _TRANSCENDENTAL.format(n=1)),
    Activation("SiLU", (), lambda nn: (nn.SiLU,), ("silu.default", "silu_.default"), ("silu_.default",),
               _no_fields, _no_fields, _TRANSCENDENTAL.format(n=2)),
    Activation("ELU", ("alpha",), lambda nn: (nn.ELU,), ("elu.default", "elu_.default"), ("elu_.default",),
               lambda path, m: {"alpha": _finite(m.alpha, "alpha", path)}, _elu, _TRANSCENDENTAL.format(n=1)),
    Activation("GELU", ("approximate",), lambda nn: (nn.GELU,), ("gelu.default", "gelu_.default"),
               ("gelu_.default",), _gelu_module, _gelu,
               _TRANSCENDENTAL.format(n=2) + ", or |x| * 2^-23 where 1 + tanh cancels; approximate='tanh' only"),
    Activation("Softplus", ("beta", "threshold"), lambda nn: (nn.Softplus,), ("softplus.default",), (),
               lambda path, m: _softplus(path, {"beta": m.beta, "threshold": m.threshold}), _softplus,
               _TRANSCENDENTAL.format(n=2)),
    Activation("Mish", (), lambda nn: (nn.Mish,), ("mish.default", "mish_.default"), ("mish_.default",),
               _no_fields, _no_fields, _TRANSCENDENTAL.format(n=2) + ", or |x| * 2^-146 where exp(x) is subnormal"),
)

LOOKUP_FIELDS = ("input_scale", "input_zero_point", "scale", "zero_point", "table")


def aten_ops(torch, names):
    """The ATen overloads named "op.overload" (those this torch has)."""
    out = []
    for name in names:
        op, overload = name.split(".")
        packet = getattr(torch.ops.aten, op, None)
        if packet is not None and hasattr(packet, overload):
            out.append(getattr(packet, overload))
    return out


def lookup_table(torch, lowering, q, core, where):
    """The [channels, 256] uint8 table of `dq -> core -> q`: the graph's own dequantize, op and quantize
    run by PyTorch on every integer the input can hold. For prelu with C slopes, C rows (the input laid
    out [1, C, 256], the slopes broadcast along dim 1 as in the model); one row otherwise."""
    dq = core.args[0]
    in_dtype = dq.args[5] if len(dq.args) > 5 else dq.kwargs["dtype"]
    lo, hi = {torch.uint8: (0, 255), torch.int8: (-128, 127)}[in_dtype]
    ints = torch.arange(lo, hi + 1, dtype=torch.int32).to(in_dtype)

    def constant(a):
        return lowering.constant(a, where) if isinstance(a, torch.fx.Node) else a

    others = [constant(a) for a in core.args[1:]]
    kwargs = {k: constant(v) for k, v in core.kwargs.items()}
    channels = 1
    if core.target == torch.ops.aten.prelu.default:
        channels = others[0].numel()
        if channels > 1:
            ints = ints.reshape(1, 1, 256).expand(1, channels, 256).contiguous()
    target = core.target
    inplace_to_out = {"leaky_relu_": "leaky_relu", "hardsigmoid_": "hardsigmoid", "hardswish_": "hardswish",
                      "sigmoid_": "sigmoid", "tanh_": "tanh", "silu_": "silu", "elu_": "elu", "gelu_": "gelu",
                      "mish_": "mish"}
    name = target._schema.name.split("::")[1]
    if name in inplace_to_out:  # the same values, written to a new tensor (the table's input stays)
        target = getattr(torch.ops.aten, inplace_to_out[name]).default
    with torch.no_grad():
        x = dq.target(ints, *dq.args[1:], **dq.kwargs)
        y = target(x, *others, **kwargs)
        out = q.target(y, *q.args[1:], **q.kwargs)
    out = out.to(torch.int32) + (128 if out.dtype == torch.int8 else 0)
    return out.reshape(channels, 256).to(torch.uint8), channels


def check_lookup(where, m, tensors):
    check_scale(m["input_scale"], f"{where}: the input scale")
    check_zero_point(m["input_zero_point"], 0, 255, f"{where}: the input zero point")
    check_scale(m["scale"], f"{where}: the output scale")
    check_zero_point(m["zero_point"], 0, 255, f"{where}: the output zero point")
    table = tensors[m["table"]]
    if table.dim() != 2 or table.shape[1] != 256 or table.shape[0] < 1:
        raise AssertionError(f"{where}: a lookup table of shape {list(table.shape)}")


# -- the eager flow: what each activation module received on the example input --------------------------------------
# An eager-quantized model's activation modules run on QTensors (PyTorch's nnq.Hardswish, nnq.ELU,
# nnq.LeakyReLU, nnq.PReLU, nnq.Sigmoid, and nn.Sigmoid / nn.Tanh / nn.Hardsigmoid, which convert leaves
# float and PyTorch runs with its quantized kernels). Their input qparams are fixed by the module before
# them, but a module does not hold them: the exporter records them while it runs the example input.

_RECORDED = {}  # module -> set of what it received: ("q", scale, zero_point, dtype, channels) or ("float",)


class recording_inputs:
    """While active, records what every module of `classes` in `model` receives (qwasm_export's run of the
    example input); the modules' entries are then written from it (lookup_from_module)."""

    def __init__(self, torch, model, classes):
        self.torch, self.model, self.classes, self.handles = torch, model, tuple(classes), []

    def __enter__(self):
        _RECORDED.clear()

        def hook(module, args):
            x = args[0] if args else None
            seen = _RECORDED.setdefault(module, set())
            if getattr(x, "is_quantized", False) and x.qscheme() == self.torch.per_tensor_affine:
                channels = int(x.shape[1]) if x.dim() >= 2 else 0
                seen.add(("q", float(x.q_scale()), int(x.q_zero_point()), str(x.dtype), channels))
            elif getattr(x, "is_quantized", False):
                seen.add(("q per channel",))
            else:
                seen.add(("float",))

        for m in self.model.modules():
            if isinstance(m, self.classes):
                self.handles.append(m.register_forward_pre_hook(hook))
        return self

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()
        return False


def recorded_input(path, m):
    """("q", scale, zero_point, dtype, channels), ("float",), or None for a module the example never ran."""
    seen = _RECORDED.get(m, set())
    if len(seen) > 1:
        raise ExportError(f"{path}: {type(m).__name__} ran on inputs of different kinds or qparams "
                          f"({sorted(seen)}); qwasm writes one table per module: give each use its own module")
    value = next(iter(seen), None)
    if value == ("q per channel",):
        raise ExportError(f"{path}: {type(m).__name__} on a per-channel quantized tensor is not supported")
    return value


def lookup_from_module(torch, path, m, w, recorded):
    """The QuantizedLookup entry of a module that ran on a quint8 QTensor: the module itself run on a
    QTensor of all 256 integers with the recorded qparams (per channel for PReLU: [1, C, 256])."""
    _, scale, zp, dtype, channels = recorded
    if dtype != "torch.quint8":
        raise ExportError(f"{path}: {type(m).__name__} on a {dtype} tensor is not supported (quint8 activations)")
    rows = int(m.num_parameters) if type(m).__name__ == "PReLU" else 1  # nn.PReLU and nnq.PReLU
    ints = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    if rows > 1:
        if channels != rows:
            raise ExportError(f"{path}: PReLU with {rows} slopes on an input with {channels} channels")
        ints = ints.reshape(1, 1, 256).expand(1, rows, 256).contiguous()
    with torch.no_grad():
        y = m(torch._make_per_tensor_quantized_tensor(ints, scale, zp))
    if not (getattr(y, "is_quantized", False) and y.dtype == torch.quint8):
        raise ExportError(f"{path}: {type(m).__name__} on a QTensor gave {getattr(y, 'dtype', type(y))}, "
                          "not a quint8 QTensor")
    table = y.int_repr().reshape(rows, 256)
    return {"type": "QuantizedLookup", "input_scale": scale, "input_zero_point": zp, "scale": float(y.q_scale()),
            "zero_point": int(y.q_zero_point()), "table": w.add(f"{path}.table", table.contiguous())}
