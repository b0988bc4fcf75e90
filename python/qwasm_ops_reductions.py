"""The writers of qwasm_ops' reductions and binary arithmetic section: torch.sum / mean / amax / amin / argmax
over dims, softmax / log_softmax over a dim, and the float mul, sub and div, in both flows (the descriptors
themselves are in qwasm_ops.py). Imports without torch, as qwasm_ops does."""

import operator

from qwasm_format import ExportError, float32_scalar

try:
    import torch
except ModuleNotFoundError as e:
    if e.name != "torch":
        raise
    torch = None


def _dims(dim, where):
    """A reduction's dims as the file holds them: null (every dimension), an integer or a list of integers."""
    if dim is None or isinstance(dim, int):
        return dim
    if isinstance(dim, (list, tuple)) and all(isinstance(d, int) for d in dim):
        return [int(d) for d in dim]
    raise ExportError(f"{where}: dim {dim!r} is not known when exporting (integers only)")


def _float32_only(dtype, where, name):
    if dtype is not None and dtype != torch.float32:
        raise ExportError(f"{where}: {name} with dtype={dtype} is not supported (float32 results only)")


def _float_input(lowering, n, where, name):
    v = lowering.recorded_value(n.args[0])
    if v is not None and v.dtype != torch.float32 and not v.is_quantized:
        raise ExportError(f"{where}: {name} of a {v.dtype} tensor is not supported (float32 only)")


def reduce_from_aten(name):
    """PT2E: sum.dim_IntList / mean.dim / mean.default / amax / amin / argmax as (x, dim, keepdim)."""
    def write(lowering, n, where, x, _):
        b = lowering.bind(n)
        _float32_only(b.get("dtype"), where, name)
        _float_input(lowering, n, where, name)
        lowering.emit(n.name, "call_function", name, [x, _dims(b.get("dim"), where), bool(b.get("keepdim", False))])
    return write


def softmax_from_aten(name):
    """PT2E: softmax.int / _softmax.default (and the log_ forms) as (x, dim)."""
    def write(lowering, n, where, x, _):
        b = lowering.bind(n)
        _float32_only(b.get("dtype"), where, name)
        if b.get("half_to_float"):
            raise ExportError(f"{where}: {name} with half_to_float is not supported (float32 only)")
        _float_input(lowering, n, where, name)
        lowering.emit(n.name, "call_function", name, [x, int(b["dim"])])
    return write


def _refuse_options(name, options, where, source):
    alpha = options.get("alpha", 1)
    if alpha != 1:
        raise ExportError(f"{where}: {name} with alpha={alpha!r} is not supported: write the multiply as its own op "
                          f"(from: {source})")
    mode = options.get("rounding_mode")
    if mode is not None:
        raise ExportError(f"{where}: div with rounding_mode={mode!r} is not supported: qwasm divides as true division "
                          f"only (from: {source})")


def _operands(name, values, is_node, where, source):
    if not any(is_node(a) for a in values):
        raise ExportError(f"{where}: a {name} of two constants ({source})")
    return values


def binary_from_aten(name):
    """PT2E: mul / sub / div of two float values, or a value and a number (float32 as PyTorch casts it)."""
    def write(lowering, n, where, _):
        b = lowering.bind(n)
        _refuse_options(name, b, where, n.format_node())
        operands = [lowering.float_ref(v, where) if isinstance(v, torch.fx.Node) else float32_scalar(v, where)
                    for v in _operands(name, [b["self"], b["other"]], lambda v: isinstance(v, torch.fx.Node), where,
                                       n.format_node())]
        lowering.values[n] = ("float", n.name)
        lowering.emit(n.name, "call_function", name, operands)
    return write


def binary_eager_args(name):
    """The traced form: operator.mul / sub / truediv (and in place), torch.mul / sub / div."""
    def args(node, kwargs, where):
        options = {k: kwargs.pop(k) for k in ("alpha", "rounding_mode") if k in kwargs}
        _refuse_options(name, options, where, node.format_node())
        values = _operands(name, list(node.args), lambda v: isinstance(v, torch.fx.Node), where, node.format_node())
        return [a if isinstance(a, torch.fx.Node) else float32_scalar(a, where) for a in values]
    return args


def in_place_operators():
    return {operator.imul, operator.isub, operator.itruediv}


def reduce_eager_args(name):
    """torch.sum / mean / amax / amin / argmax(input, dim, keepdim): a dtype other than float32 is refused."""
    def args(node, kwargs, where):
        _float32_only(kwargs.pop("dtype", None), where, name)
        if "dim" in kwargs:
            kwargs["dim"] = _dims(kwargs["dim"], where)
        return [_dims(a, where) if i == 1 else a for i, a in enumerate(node.args)]
    return args


def softmax_eager_args(node, kwargs, where):
    """torch.softmax / F.softmax (and log_softmax): F's _stacklevel dropped, a dtype refused, dim required."""
    kwargs.pop("_stacklevel", None)
    _float32_only(kwargs.pop("dtype", None), where, getattr(node.target, "__name__", "softmax"))
    dim = node.args[1] if len(node.args) > 1 else kwargs.get("dim")
    if not isinstance(dim, int):
        raise ExportError(f"{where}: softmax needs its dim as an integer, got {dim!r} (from: {node.format_node()})")
    return list(node.args)
