"""The writers of the layout ops' descriptors (qwasm_ops.py, section "layout"): permute, transpose, pad, squeeze /
unsqueeze, slice / select / narrow / split / chunk, expand, repeat, flip, stack. Each moves values, so it runs
the same on a float value and on a quantized value's integers (qparams kept).

Like qwasm_ops, this module imports without torch: torch is used only when a model is exported.
"""

import math

from qwasm_format import ExportError

try:
    import torch
except ModuleNotFoundError as e:
    if e.name != "torch":
        raise
    torch = None
else:
    nn = torch.nn


def layout_ints(values, where, what):
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, int) for v in values):
        raise ExportError(f"{where}: {what} known only at run time ({values}) is not supported; export with a "
                          "static shape")
    return [int(v) for v in values]


def permute_from_aten(lowering, n, where, x, _):
    dims = layout_ints(lowering.bind(n)["dims"], where, "a permutation")
    lowering.emit(n.name, "call_function", "permute", [x, dims])


def transpose_from_aten(lowering, n, where, x, _):
    b = lowering.bind(n)
    lowering.emit(n.name, "call_function", "transpose", [x, int(b["dim0"]), int(b["dim1"])])


PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad_value(value, where):
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ExportError(f"{where}: a pad value {value!r} is not supported (a number)")
    f = float(torch.tensor(float(value), dtype=torch.float64).to(torch.float32))
    if not math.isfinite(f):
        raise ExportError(f"{where}: pads with {value!r}, which is {f} as float32: the model file's JSON cannot "
                          "hold a non-finite number")
    return f


def pad_from_aten(lowering, n, where, x, variant):
    b = lowering.bind(n)
    if variant == "constant_pad_nd":
        mode, value = "constant", b.get("value", 0)
    elif variant is None:
        mode, value = b.get("mode", "constant"), b.get("value")
    else:
        mode, value = variant, None
    pad = layout_ints(b["pad"] if "pad" in b else b["padding"], where, "a padding")
    if mode not in PAD_MODES:
        raise ExportError(f"{where}: pad mode {mode!r} is not supported ({', '.join(PAD_MODES)})")
    lowering.emit(n.name, "call_function", "pad", [x, pad, mode, pad_value(value, where)])


def check_pad(where, node):
    args, kwargs = node["args"], node["kwargs"]
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    if mode not in PAD_MODES:
        raise ExportError(f"{where}: pad mode {mode!r} is not supported ({', '.join(PAD_MODES)})")


def pad_from_module(path, m, w, mode):
    value = pad_value(getattr(m, "value", 0.0), path)
    return {"type": "Pad", "padding": [int(p) for p in m.padding], "mode": mode,
            "value": 0.0 if value is None else value}


def pad_modules():
    table = {}
    for dims in (1, 2, 3):
        for name, mode in (("ConstantPad", "constant"), ("ZeroPad", "constant"), ("ReflectionPad", "reflect"),
                           ("ReplicationPad", "replicate"), ("CircularPad", "circular")):
            table[getattr(nn, f"{name}{dims}d")] = mode
    return table


def pad_eager_args(node, kwargs, where):
    args = list(node.args)
    if len(args) > 3 or "value" in kwargs:
        value = args.pop(3) if len(args) > 3 else kwargs.pop("value")
        kwargs["value"] = pad_value(value, where)
    return args


def squeeze_from_aten(lowering, n, where, x, variant):
    b = lowering.bind(n)
    dims = [] if variant == "all" else [int(b["dim"])] if variant == "dim" else [[int(d) for d in b["dim"]]]
    lowering.emit(n.name, "call_function", "squeeze", [x, *dims])


def unsqueeze_from_aten(lowering, n, where, x, _):
    lowering.emit(n.name, "call_function", "unsqueeze", [x, int(lowering.bind(n)["dim"])])


SAFE = 2**53 - 1  # JSON numbers past this lose digits; a slice bound clamps to the size anyway


def slice_bound(v, where):
    if v is None:
        return None
    if not isinstance(v, int):
        raise ExportError(f"{where}: a slice bound known only at run time ({v}) is not supported")
    return max(-SAFE, min(SAFE, int(v)))


def dim_size(lowering, n, dim, where):
    value = lowering.recorded_value(n.args[0])
    if value is None or not isinstance(value.shape[dim], int):
        raise ExportError(f"{where}: the size of dimension {dim}, which torch.export did not record as a number")
    return int(value.shape[dim])


def slice_from_aten(lowering, n, where, x, variant):
    b = lowering.bind(n)
    dim = int(b.get("dim", 0))
    if variant == "narrow":
        start, length = int(b["start"]), int(b["length"])
        start = start + dim_size(lowering, n, dim, where) if start < 0 else start
        args = [x, dim, start, start + length, 1]
    elif variant == "slice":
        args = [x, dim, slice_bound(b.get("start"), where), slice_bound(b.get("end"), where), int(b.get("step", 1))]
    else:  # split / chunk: each item read (operator.getitem) becomes a slice of x
        items = n.meta.get("val")
        if not isinstance(items, (list, tuple)) or not all(isinstance(t, torch.Tensor) for t in items):
            raise ExportError(f"{where}: a split whose pieces torch.export did not record")
        sizes = [t.shape[dim] for t in items]
        if not all(isinstance(v, int) for v in sizes):
            raise ExportError(f"{where}: a split into pieces of sizes known only at run time ({sizes})")
        ends = [sum(sizes[:i + 1]) for i in range(len(sizes))]
        lowering.values[n] = ("split", x, dim, [(e - v, e) for v, e in zip(sizes, ends)])
        return
    lowering.emit(n.name, "call_function", "slice", args)


def select_from_aten(lowering, n, where, x, _):
    b = lowering.bind(n)
    lowering.emit(n.name, "call_function", "select", [x, int(b["dim"]), int(b["index"])])


def int_list_method(name, key):
    def write(lowering, n, where, x, _):
        values = layout_ints(lowering.bind(n)[key], where, f"a {name} size")
        lowering.emit(n.name, "call_method", name, [x, values])
    return write


def flip_from_aten(lowering, n, where, x, _):
    lowering.emit(n.name, "call_function", "flip", [x, layout_ints(lowering.bind(n)["dims"], where, "flip dims")])


def stack_from_aten(lowering, n, where, _):
    b = lowering.bind(n)
    lowering.values[n] = ("float", n.name)
    lowering.emit(n.name, "call_function", "stack", [[lowering.float_ref(x, where) for x in b["tensors"]],
                                                     int(b.get("dim", 0))])
