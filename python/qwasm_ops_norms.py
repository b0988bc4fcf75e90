"""The writers of the normalisation ops' descriptors (python/qwasm_ops.py, "normalisation"):
InstanceNorm1d/2d/3d, GroupNorm and LayerNorm in float, from eager modules and from the
ATen ops torch.export leaves (aten.instance_norm, group_norm, native_group_norm, layer_norm,
native_layer_norm). qwasm computes them with PyTorch's float32 arithmetic (docs/numerics.md,
"Normalisation"). Imports without torch, as qwasm_ops does."""

import math

from qwasm_format import ExportError

try:
    import torch
except ModuleNotFoundError as e:
    if e.name != "torch":
        raise
    torch = None

_MAX_LAYER_NORM_DIMS = 8  # web/src/ops/normalization.mjs: normalized_shape has 1 to 8 sizes


def _float_tensor(w, name, t):
    return None if t is None else w.add(name, t.detach().to(torch.float32))


def _input_shape(lowering, n, where):
    value = lowering.recorded_value(n.args[0])
    if value is None:
        raise ExportError(f"{where}: {n.target} of an input whose shape torch.export did not record")
    return list(value.shape)


def _constant_or_none(lowering, v, where):
    return None if v is None else lowering.constant(v, where)


def _write(lowering, n, entry, x):
    lowering.emit(n.name, "call_module", lowering.add_module(lowering.module_name(n), entry), [x])


def check_eps(where, m, tensors):
    eps = m["eps"]
    if not (math.isfinite(eps) and eps >= 0):
        raise ExportError(f"{where}: eps is {eps}: qwasm's {m['type']} needs a finite eps >= 0")


# -- InstanceNorm --------------------------------------------------------------------------------

def _instance_norm_entry(w, path, dims, num_features, eps, weight, bias, running_mean, running_var):
    return {"type": "InstanceNorm", "dims": dims, "num_features": int(num_features), "eps": float(eps),
            "weight": _float_tensor(w, f"{path}.weight", weight), "bias": _float_tensor(w, f"{path}.bias", bias),
            "running_mean": _float_tensor(w, f"{path}.running_mean", running_mean),
            "running_var": _float_tensor(w, f"{path}.running_var", running_var)}


def instance_norm_from_module(path, m, w, dims):
    # _InstanceNorm.forward: the input's own statistics in training mode or without running
    # statistics; else (eval with track_running_stats) the running ones.
    use_input_stats = m.training or not m.track_running_stats
    return _instance_norm_entry(w, path, dims, m.num_features, m.eps, m.weight, m.bias,
                                None if use_input_stats else m.running_mean,
                                None if use_input_stats else m.running_var)


def instance_norm_from_aten(lowering, n, where, x, _):
    _write(lowering, n, instance_norm_entry_from_aten(lowering, n, where), x)


def instance_norm_entry_from_aten(lowering, n, where):
    b = lowering.bind(n)
    shape = _input_shape(lowering, n, where)
    if len(shape) not in (3, 4, 5):
        raise ExportError(f"{where}: instance_norm of a rank-{len(shape)} tensor is not supported (InstanceNorm1d, "
                          "2d and 3d: rank 3 to 5)")
    use_input_stats = bool(b["use_input_stats"])
    running_mean = None if use_input_stats else _constant_or_none(lowering, b["running_mean"], where)
    running_var = None if use_input_stats else _constant_or_none(lowering, b["running_var"], where)
    if not use_input_stats and (running_mean is None or running_var is None):
        raise ExportError(f"{where}: instance_norm with use_input_stats=False needs running_mean and running_var")
    return _instance_norm_entry(
        lowering.w, lowering.module_name(n), len(shape) - 2, shape[1], b["eps"],
        _constant_or_none(lowering, b["weight"], where), _constant_or_none(lowering, b["bias"], where),
        running_mean, running_var)


# -- GroupNorm -----------------------------------------------------------------------------------

def _group_norm_entry(w, path, num_groups, num_channels, eps, weight, bias):
    if num_groups < 1 or num_channels % num_groups != 0:
        raise ExportError(f"{path}: GroupNorm of {num_channels} channels in {num_groups} groups: the channels must "
                          "divide into the groups")
    return {"type": "GroupNorm", "num_groups": int(num_groups), "num_channels": int(num_channels),
            "eps": float(eps), "weight": _float_tensor(w, f"{path}.weight", weight),
            "bias": _float_tensor(w, f"{path}.bias", bias)}


def group_norm_from_module(path, m, w, _):
    return _group_norm_entry(w, path, m.num_groups, m.num_channels, m.eps, m.weight, m.bias)


def group_norm_from_aten(lowering, n, where, x, _):
    _write(lowering, n, group_norm_entry_from_aten(lowering, n, where), x)


def group_norm_entry_from_aten(lowering, n, where):
    # group_norm(input, num_groups, weight, bias, eps) or native_group_norm(input, weight, bias, N, C, HxW,
    # group, eps) (its mean and rstd outputs unread: qwasm_pt2e lowers only item 0 of a tuple).
    b = lowering.bind(n)
    shape = _input_shape(lowering, n, where)
    if len(shape) < 2:
        raise ExportError(f"{where}: group_norm of a rank-{len(shape)} tensor")
    groups = b["num_groups"] if "num_groups" in b else b["group"]
    return _group_norm_entry(
        lowering.w, lowering.module_name(n), int(groups), shape[1], b["eps"],
        _constant_or_none(lowering, b["weight"], where), _constant_or_none(lowering, b["bias"], where))


# -- LayerNorm -----------------------------------------------------------------------------------

def _layer_norm_entry(w, path, normalized_shape, eps, weight, bias):
    k = [int(s) for s in normalized_shape]
    if not 1 <= len(k) <= _MAX_LAYER_NORM_DIMS or any(s < 1 for s in k):
        raise ExportError(f"{path}: LayerNorm over {k}: qwasm normalises over 1 to {_MAX_LAYER_NORM_DIMS} "
                          "dimensions of size >= 1")
    return {"type": "LayerNorm", "normalized_shape": k, "eps": float(eps),
            "weight": _float_tensor(w, f"{path}.weight", weight), "bias": _float_tensor(w, f"{path}.bias", bias)}


def layer_norm_from_module(path, m, w, _):
    return _layer_norm_entry(w, path, m.normalized_shape, m.eps, m.weight, m.bias)


def layer_norm_from_aten(lowering, n, where, x, _):
    _write(lowering, n, layer_norm_entry_from_aten(lowering, n, where), x)


def layer_norm_entry_from_aten(lowering, n, where):
    b = lowering.bind(n)
    return _layer_norm_entry(
        lowering.w, lowering.module_name(n), b["normalized_shape"], b["eps"],
        _constant_or_none(lowering, b["weight"], where), _constant_or_none(lowering, b["bias"], where))


# -- a PT2E graph's region dequantize -> norm -> [relu] -> quantize ---------------------------------------------

_REGION_ENTRIES = {"instance": instance_norm_entry_from_aten, "group": group_norm_entry_from_aten,
                   "layer": layer_norm_entry_from_aten}


def region_inputs(lowering, core):
    """norm(dq(activation), constants...): every other tensor argument is a constant of the graph."""
    x, others = core.args[0], [*core.args[1:], *core.kwargs.values()]
    return lowering.is_dequantize(x) and all(not isinstance(a, torch.fx.Node) or a.op == "get_attr" for a in others)


def region_from_pattern(lowering, q, core, relu, scale, zp, where, kind):
    """QuantizedNormRegion: the float norm's entry, its ReLU, the dequantize's and the quantize's qparams. qwasm
    runs the graph's dequantize, norm, relu and quantize in one call, with the same arithmetic."""
    path = lowering.module_name(core)
    norm = _REGION_ENTRIES[kind](lowering, core, where)
    input_scale, input_zp = lowering.act_qparams(core.args[0])
    entry = {"type": "QuantizedNormRegion", "norm": norm, "relu": relu is not None,
             "input_scale": input_scale, "input_zero_point": input_zp, "scale": scale, "zero_point": zp}
    x = lowering.q_input(core.args[0], where)
    lowering.emit(core.name, "call_module", lowering.add_module(path, entry), [x])
    return core.name


def check_region(check_scale, check_zero_point):
    def check(where, m, tensors):
        check_eps(where, m["norm"], tensors)
        check_scale(m["input_scale"], f"{where}: the input scale")
        check_zero_point(m["input_zero_point"], 0, 255, f"{where}: the input zero point")
        check_scale(m["scale"], f"{where}: the output scale")
        check_zero_point(m["zero_point"], 0, 255, f"{where}: the output zero point")
    return check


# -- the quantized twins (nnq.InstanceNorm1d/2d/3d, nnq.GroupNorm, nnq.LayerNorm) ---------------------------------

def _quantized(entry, m):
    entry["type"] = "Quantized" + entry["type"]
    entry["scale"] = float(m.scale)
    entry["zero_point"] = int(m.zero_point)
    return entry


def quantized_instance_norm_from_module(path, m, w, dims):
    # quantized::instance_norm always takes the input's own statistics.
    entry = _instance_norm_entry(w, path, dims, m.num_features, m.eps, m.weight, m.bias, None, None)
    del entry["running_mean"], entry["running_var"]
    return _quantized(entry, m)


def quantized_group_norm_from_module(path, m, w, _):
    return _quantized(group_norm_from_module(path, m, w, None), m)


def quantized_layer_norm_from_module(path, m, w, _):
    return _quantized(layer_norm_from_module(path, m, w, None), m)


def check_quantized_norm(check_scale, check_zero_point):
    def check(where, m, tensors):
        check_eps(where, m, tensors)
        check_scale(m["scale"], f"{where}: the output scale")
        check_zero_point(m["zero_point"], 0, 255, f"{where}: the output zero point")
    return check
