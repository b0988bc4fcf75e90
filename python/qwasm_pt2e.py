"""Lowers a PT2E-quantized graph (torchao's convert_pt2e) to qwasm's model format.

qwasm_export.export calls this for a torch.export graph; it is not meant to
be called on its own. The converted graph is PyTorch's reference
representation: every quantized op is written as dequantize -> float op ->
quantize. This pass finds those patterns and maps each to the int8 op that
computes it exactly (int32 accumulation, one requantization):

    dq(A) -> conv(dq(W), b) [-> relu] -> q(s, z)    QuantizedConv (module)
    dq(A) -> linear(dq(W), b) [-> relu] -> q(s, z)  QuantizedLinear (module)
    dq(A), dq(B) -> add [-> relu] -> q(s, z)        quantized.add(_relu)
    dq(A), dq(B)... -> cat -> q(s, z)               quantized.cat
    dq(A) -> max pool / flatten / view / dropout / relu -> q(A's qparams)
                                                     the op on A's integers
(Average pools stay dequantize -> float pool -> quantize: see _EXACT_ON_INTEGERS.)

Everything else runs as written: a quantize of a float value is a Quantize
module, a dequantize that feeds a float op is `dequantize`, and float ops
(those X86InductorQuantizer leaves between quantize/dequantize pairs, or a
conv whose output the graph never quantizes) run in float32, a quantized
weight dequantized as the graph does. What torch.export adds (guard and
assertion nodes, dropout in eval mode, clones) is dropped. Anything else is
an ExportError naming the node and its source line.

int8 activations (XNNPACKQuantizer's) are written as quint8 with the zero
point + 128: the same real values (s * (q - z) = s * ((q + 128) - (z + 128))),
so the same kernels compute them exactly.
"""

import operator

import torch

from qwasm_export import GRAPH_FUNCTIONS, GRAPH_METHODS, ExportError, _checked_fields, _ints, float32_scalar

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed

# The graph functions and methods this pass writes (each in the model
# vocabulary: tests/js/model/vocabulary.test.mjs checks, and emit() asserts it).
RECORDED_FUNCTIONS = ("quantized.add", "quantized.add_relu", "quantized.cat", "cat", "add", "relu", "flatten")
RECORDED_METHODS = ("dequantize", "reshape")



def _decomposed(name):
    """torch.ops.quantized_decomposed.<name>.default, or None before anything registered
    those ops (torchao or torch.ao's PT2E code does on import; a graph using them has)."""
    try:
        return getattr(qd, name).default
    except (AttributeError, RuntimeError):
        return None


# Filled by _find_decomposed_ops() when a graph is lowered (the ops may be
# registered after this module is imported).
_Q, _DQ, _DQ_WEIGHT = set(), set(), set()


def _find_decomposed_ops():
    q, dq, dq_channel = (_decomposed(n) for n in ("quantize_per_tensor", "dequantize_per_tensor",
                                                   "dequantize_per_channel"))
    _Q.update({q} - {None})
    _DQ.update({dq} - {None})
    _DQ_WEIGHT.update({dq, dq_channel} - {None})
_CONVS = {aten.conv1d.default: 1, aten.conv2d.default: 2, aten.conv3d.default: 3}
_CONVS_PADDING_STR = {aten.conv1d.padding, aten.conv2d.padding, aten.conv3d.padding}  # padding='same' / 'valid'
_RELUS = {aten.relu.default, aten.relu_.default}
_ADDS = {aten.add.Tensor, aten.add_.Tensor}
_SCALAR_ADDS = {aten.add.Scalar, aten.add_.Scalar}
# In-place forms: their first argument is written (see _check_inplace).
_INPLACE = {aten.relu_.default, aten.add_.Tensor, aten.add_.Scalar}
_MAX_POOLS = {aten.max_pool1d.default: 1, aten.max_pool2d.default: 2, aten.max_pool3d.default: 3}
_AVG_POOLS = {aten.avg_pool1d.default: 1, aten.avg_pool2d.default: 2, aten.avg_pool3d.default: 3}
_ADAPTIVE_POOLS = {aten.adaptive_avg_pool1d.default: 1, aten.adaptive_avg_pool2d.default: 2,
                   aten.adaptive_avg_pool3d.default: 3}
_RESHAPES = {aten.view.default, aten.reshape.default, aten._unsafe_view.default}
# Ops that return their input's values (in eval mode for dropout; the
# copy-or-not of clone / contiguous does not show in qwasm's values).
_PASS_THROUGH = {aten.dropout.default, aten.clone.default, aten.contiguous.default, aten.alias.default,
                 aten.detach.default, aten.feature_dropout.default}
# Ops that run the same on a float or a quantized value (lower_op).
_SHARED = {*_MAX_POOLS, *_AVG_POOLS, *_ADAPTIVE_POOLS, aten.flatten.using_ints, *_RESHAPES, *_PASS_THROUGH,
           *_RELUS}
# Of those, the ones that only move or select values: on the integers, with the
# input's qparams, they give exactly what dequantize -> op -> quantize gives.
# Average pools are not among them: the reference rounds a float mean, whose
# ties (a 2x2 mean ends in .5 on a quarter of the outputs) its float steps
# decide, where an integer pool rounds them half to even. They run as the
# graph has them (dequantize, float pool, quantize), which is PyTorch's arithmetic.
_EXACT_ON_INTEGERS = {*_MAX_POOLS, aten.flatten.using_ints, *_RESHAPES, *_PASS_THROUGH, *_RELUS}
# What torch.export leaves that computes nothing (shape guards and asserts).
_CHECKS = {aten._assert_tensor_metadata.default, aten._assert_scalar.default, aten.sym_size.int,
           aten.sym_constrain_range.default, aten.sym_constrain_range_for_size.default,
           aten._assert_async.msg, aten.ge.int, aten.le.int, aten.eq.int, operator.ge, operator.le, operator.eq}


def is_pt2e_graph(model):
    """True for a torch.export graph (ATen ops), converted by convert_pt2e or float."""
    if not isinstance(model, torch.fx.GraphModule):
        return False
    return any(n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
               and n.target.namespace in ("aten", "quantized_decomposed") for n in model.graph.nodes)


def _source(n):
    """`file, line N: code` of the user's source that made node n, or ''."""
    lines = [s.strip() for s in n.meta.get("stack_trace", "").strip().splitlines()]
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("File "):
            code = lines[i + 1] if i + 1 < len(lines) else ""
            return f" ({lines[i]}: {code})"
    return ""


def _where(n):
    return f"node '{n.name}' ({getattr(n.target, '__name__', n.target)}){_source(n)}"


def _module_path(n):
    """The PyTorch module path that made node n (torch.export's nn_module_stack), or ''."""
    stack = n.meta.get("nn_module_stack")
    if not stack:
        return ""
    path = list(stack.values())[-1][0]
    return path if isinstance(path, str) else ""


def _val(n):
    """The tensor torch.export recorded for n (meta['val']; the first of a
    tuple), looking through the quantize / dequantize nodes convert_pt2e
    inserted without one; None when unknown."""
    while isinstance(n, torch.fx.Node):
        v = n.meta.get("val")
        if isinstance(v, (tuple, list)) and v:
            v = v[0]
        if isinstance(v, torch.Tensor):
            return v
        if n.op != "call_function" or not n.args:
            return None
        n = n.args[0]
    return None


def _bind(n):
    """n's arguments by name, defaults filled in from the ATen schema."""
    schema = n.target._schema
    out = {}
    for i, a in enumerate(schema.arguments):
        if i < len(n.args):
            out[a.name] = n.args[i]
        elif a.name in n.kwargs:
            out[a.name] = n.kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default_value
    return out


def _is(n, targets):
    return isinstance(n, torch.fx.Node) and n.op == "call_function" and n.target in targets


class _Lowering:
    def __init__(self, gm, writer):
        _find_decomposed_ops()
        self.gm = gm
        self.w = writer
        self.modules = {}
        self.nodes = []
        self.values = {}  # fx node -> ('float', name) or ('q', name, scale, zero_point)
        self.fused = {}  # terminal quantize node -> (kind, core node, relu node or None)
        self.inside = set()  # nodes a fused pattern computes (skipped where they stand)
        # Each quantized layer as (module path, the quantize node of its input, that of its output):
        # what a per-layer comparison with PyTorch needs.
        self.layers = []

    # -- constants ---------------------------------------------------------
    def constant(self, n, what):
        if not (isinstance(n, torch.fx.Node) and n.op == "get_attr"):
            raise ExportError(f"{what} must be a constant tensor of the graph, got {n}")
        t = self.gm
        for part in str(n.target).split("."):
            t = getattr(t, part)
        return t.detach()

    def act_qparams(self, n):
        """(scale, zero point as quint8) of a quantize / dequantize node; refuses what qwasm cannot hold."""
        b = dict(zip(("input", "scale", "zero_point", "quant_min", "quant_max", "dtype"), n.args))
        b.update(n.kwargs)
        scale, zp, lo, hi, dtype = b["scale"], b["zero_point"], b["quant_min"], b["quant_max"], b["dtype"]
        if not isinstance(scale, float) or not isinstance(zp, int):
            raise ExportError(f"{_where(n)}: qparams computed at run time are not supported (static quantization only)")
        full = {torch.uint8: (0, 255), torch.int8: (-128, 127)}.get(dtype)
        if full is None:
            raise ExportError(f"{_where(n)}: activations of dtype {dtype} are not supported (quint8 or qint8)")
        if (lo, hi) != full:
            raise ExportError(
                f"{_where(n)}: quant range [{lo}, {hi}] of {dtype}: qwasm's quantized ops clamp to the dtype's "
                f"full range {list(full)}; quantize with the full range (reduce_range=False, as QwasmQuantizer "
                "and X86InductorQuantizer's default config do)")
        return float(scale), int(zp) + (128 if dtype == torch.int8 else 0)

    def weight(self, dq, path):
        """A quantized weight entry from dequantize_per_channel / per_tensor of int8 constants."""
        if not _is(dq, _DQ_WEIGHT):
            return None
        ints = self.constant(dq.args[0], f"{_where(dq)}: the weight")
        if ints.dtype != torch.int8:
            raise ExportError(f"{_where(dq)}: weight dtype {ints.dtype} is not supported (int8 only)")
        entry = {"ints": self.w.add(f"{path}.weight", ints)}
        if dq.target == _decomposed("dequantize_per_channel"):
            scales = self.constant(dq.args[1], f"{_where(dq)}: the scales")
            zps = self.constant(dq.args[2], f"{_where(dq)}: the zero points")
            entry.update(qscheme="per_channel_affine", axis=int(dq.args[3]),
                         scales=self.w.add(f"{path}.weight.scales", scales.to(torch.float64)),
                         zero_points=self.w.add(f"{path}.weight.zero_points", zps.to(torch.int64)))
        else:
            scale, zp = dq.args[1], dq.args[2]
            if not isinstance(scale, float) or not isinstance(zp, int):
                raise ExportError(f"{_where(dq)}: a weight's qparams must be constants")
            entry.update(qscheme="per_tensor_affine", scale=scale, zero_point=zp)
        return entry

    def float_weight(self, n, what):
        """A float weight: a constant, or a quantized constant the graph dequantizes."""
        if _is(n, _DQ_WEIGHT):
            args = [self.constant(a, what) if isinstance(a, torch.fx.Node) else a for a in n.args]
            return n.target(*args)
        return self.constant(n, what).to(torch.float32)

    def module_name(self, n):
        """The PyTorch module path of n when it is free, else the node's name."""
        path = _module_path(n)
        return path if path and path not in self.modules else n.name

    # -- pattern matching --------------------------------------------------
    def match(self, q):
        """The fused int8 op that quantize node q ends, or None."""
        core = q.args[0]
        if not isinstance(core, torch.fx.Node) or core.op != "call_function" or len(core.users) != 1:
            return None
        relu = None
        if core.target in _RELUS and not _is(core.args[0], _DQ):
            relu, core = core, core.args[0]
            if not isinstance(core, torch.fx.Node) or len(core.users) != 1:
                return None
        if core.target in _CONVS or core.target == aten.linear.default:
            x, w = core.args[0], core.args[1]
            bias = core.args[2] if len(core.args) > 2 else None
            if _is(x, _DQ) and _is(w, _DQ_WEIGHT) and (bias is None or getattr(bias, "op", None) == "get_attr"):
                return ("conv" if core.target in _CONVS else "linear", core, relu)
            return None
        if core.target in _ADDS:
            if len(core.args) == 2 and all(_is(a, _DQ) for a in core.args) and core.kwargs.get("alpha", 1) == 1:
                return ("add", core, relu)
            return None
        if relu is not None:
            return None
        if core.target == aten.cat.default:
            if all(_is(a, _DQ) for a in core.args[0]):
                return ("cat", core, None)
            return None
        if core.target in _EXACT_ON_INTEGERS and _is(core.args[0], _DQ):
            # Exact on the integers only when the output keeps the input's qparams.
            if self.act_qparams(core.args[0]) == self.act_qparams(q):
                return ("shared", core, None)
        return None

    # -- emission ----------------------------------------------------------
    def ref(self, n, where):
        quantized_constant = _is(n, _DQ_WEIGHT) and getattr(n.args[0], "op", None) == "get_attr"
        if n not in self.values and (n.op == "get_attr" or quantized_constant):
            raise ExportError(f"{where}: reads the constant tensor '{n.args[0].target if quantized_constant else n.target}' as an activation; qwasm's graphs "
                              "hold constants only as module weights (an nn.Parameter or buffer used in forward "
                              "is not supported)")
        if n not in self.values:
            raise ExportError(f"{where}: reads '{n.name}' ({getattr(n.target, '__name__', n.target)}), "
                              "which qwasm does not compute (a shape or value only known at run time?)")
        return {"node": self.values[n][1]}

    def float_ref(self, n, where):
        if self.values.get(n, ("float",))[0] != "float":
            raise ExportError(f"{where}: a float op reads the quantized value '{n.name}' without a dequantize")
        return self.ref(n, where)

    def q_input(self, dq, where):
        """The quantized value a dequantize node reads (checked to have the dequantize's qparams)."""
        src = dq.args[0]
        v = self.values.get(src)
        if v is None and getattr(src, "op", None) == "get_attr":
            raise ExportError(f"{where}: dequantizes the constant tensor '{src.target}' as an activation; qwasm's "
                              "graphs hold constants only as module weights (an nn.Parameter or buffer used in "
                              "forward is not supported)")
        if v is None or v[0] != "q":
            raise ExportError(f"{where}: dequantizes '{src.name}', which is not a quantized value qwasm computes")
        if (v[2], v[3]) != self.act_qparams(dq):
            raise ExportError(f"{_where(dq)}: dequantizes with qparams {self.act_qparams(dq)} a value quantized "
                              f"with {(v[2], v[3])}")
        return {"node": v[1]}

    def emit(self, name, op, target, args, kwargs=None, value=None):
        for kind, recorded, table in (("call_function", RECORDED_FUNCTIONS, GRAPH_FUNCTIONS),
                                      ("call_method", RECORDED_METHODS, GRAPH_METHODS)):
            if op == kind and (target not in recorded or len(args) > table[target]["args"]):
                raise AssertionError(f"qwasm_pt2e writes {target} with {len(args)} arguments, outside its vocabulary")
        self.nodes.append({"name": name, "op": op, "target": target, "args": args, "kwargs": kwargs or {}})
        return value

    def add_module(self, name, entry):
        self.modules[name] = _checked_fields(entry)
        return name

    def run(self):
        graph = self.gm.graph
        for n in graph.nodes:
            if _is(n, _Q):
                m = self.match(n)
                if m is not None:
                    self.fused[n] = m
                    kind, core, relu = m
                    self.inside.update(x for x in (core, relu) if x is not None)
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        if len(placeholders) != 1:
            raise ExportError(f"models with {len(placeholders)} inputs are not supported (one tensor input)")
        for n in graph.nodes:
            self.lower(n)
        return self.modules, self.nodes

    def consumed(self, n):
        """A dequantize or constant that only fused patterns read."""
        return all(u in self.inside or u in self.fused for u in n.users) and len(n.users) > 0

    def lower(self, n):
        where = _where(n)
        if n.op == "placeholder":
            self.values[n] = ("float", n.name)
            self.emit(n.name, "placeholder", n.target, [])
            return
        if n.op == "get_attr" or n in self.inside:
            return
        if n.op == "call_module":
            if str(n.target).startswith("_guards_fn"):
                return  # torch.export's input guards: checked by PyTorch, nothing to compute
            if str(n.target).startswith("activation_post_process"):
                raise ExportError(f"{where}: an observer: the model is prepared but not converted "
                                  "(call convert_pt2e after calibrating)")
            raise ExportError(f"{where}: calls module '{n.target}'; a torch.export graph holds ATen ops only")
        if n.op == "output":
            outs = n.args[0]
            outs = outs if isinstance(outs, (tuple, list)) else [outs]
            if len(outs) != 1 or not isinstance(outs[0], torch.fx.Node):
                raise ExportError("the model must return one tensor")
            self.emit(n.name, "output", n.target, [self.ref(outs[0], where)])
            return
        if n.op != "call_function":
            raise ExportError(f"unsupported graph node {n.op} '{n.target}' at {where}")
        if n.target in _CHECKS:
            return
        if n in self.fused:
            self.lower_fused(n)
        elif n.target in _Q:
            scale, zp = self.act_qparams(n)
            # Named by the node: torch.export gives a quantize the module path of its producer.
            name = self.add_module(n.name, {"type": "Quantize", "scale": scale, "zero_point": zp,
                                                         "dtype": "quint8"})
            self.values[n] = ("q", n.name, scale, zp)
            self.emit(n.name, "call_module", name, [self.float_ref(n.args[0], where)])
        elif n.target in _DQ_WEIGHT and getattr(n.args[0], "op", None) == "get_attr":
            return  # a quantized weight: read by the conv or linear that uses it
        elif n.target in _DQ:
            if self.consumed(n):
                return
            self.values[n] = ("float", n.name)
            self.emit(n.name, "call_method", "dequantize", [self.q_input(n, where)])
        else:
            self.lower_float(n, where)

    def lower_fused(self, q):
        kind, core, relu = self.fused[q]
        where = _where(core)
        scale, zp = self.act_qparams(q)
        name = core.name
        if kind in ("conv", "linear"):
            path = self.module_name(core)
            x = self.q_input(core.args[0], where)
            b = _bind(core)
            bias = b.get("bias")
            weight = self.weight(b["weight"], path)
            bias_name = None if bias is None else self.w.add(f"{path}.bias", self.constant(bias, where).float())
            shape = list(self.constant(b["weight"].args[0], where).shape)
            if kind == "conv":
                dims = _CONVS[core.target]
                groups = int(b["groups"])
                symmetric = weight["qscheme"] == "per_channel_affine" and not bool(
                    self.constant(b["weight"].args[2], where).ne(0).any()) or (
                    weight["qscheme"] == "per_tensor_affine" and weight["zero_point"] == 0)
                entry = {"type": "QuantizedConv", "dims": dims, "relu": relu is not None,
                         "in_channels": shape[1] * groups, "out_channels": shape[0], "kernel_size": shape[2:],
                         "stride": _ints(b["stride"], dims), "padding": _ints(b["padding"], dims),
                         "dilation": _ints(b["dilation"], dims), "groups": groups, "scale": scale,
                         "zero_point": zp, "weight": weight, "bias": bias_name,
                         # oneDNN's requantization (PyTorch's x86 engine) is the reference
                         # representation's float steps; qwasm routes a conv there as
                         # PyTorch does, with symmetric weights and groups <= 100.
                         "backend": "onednn" if symmetric and groups <= 100 else "fbgemm"}
            else:
                entry = {"type": "QuantizedLinear", "relu": relu is not None, "in_features": shape[1],
                         "out_features": shape[0], "scale": scale, "zero_point": zp, "weight": weight,
                         "bias": bias_name}
            self.emit(name, "call_module", self.add_module(path, entry), [x])
            self.layers.append((path, core.args[0].args[0], q))
        elif kind == "add":
            a, b = (self.q_input(d, where) for d in core.args)
            target = "quantized.add_relu" if relu is not None else "quantized.add"
            self.emit(name, "call_function", target, [a, b, scale, zp])
        elif kind == "cat":
            dim = _bind(core).get("dim", 0)
            xs = [self.q_input(d, where) for d in core.args[0]]
            self.emit(name, "call_function", "quantized.cat", [xs, int(dim), scale, zp])
        elif core.target in _PASS_THROUGH:
            name = self.q_input(core.args[0], where)["node"]  # the same integers: no node
        else:
            self.lower_op(core, where, self.q_input(core.args[0], where))
        self.values[q] = ("q", name, scale, zp)
        if relu is not None:
            self.inside.add(relu)

    def lower_float(self, n, where):
        if n.target in _CONVS_PADDING_STR:
            raise ExportError(f"{where}: a convolution with padding '{n.args[4] if len(n.args) > 4 else ''}' is not "
                              "supported; give the padding as numbers")
        if n.target in _INPLACE and isinstance(n.args[0], torch.fx.Node) and len(n.args[0].users) > 1:
            # PyTorch's later readers of the input would see the new values, qwasm's would not.
            raise ExportError(f"{where}: an in-place op on '{n.args[0].name}', which other nodes also read "
                              f"({', '.join(u.name for u in n.args[0].users)}); use the out-of-place form")
        if n.target in _CONVS or n.target == aten.linear.default:
            b = _bind(n)
            path = self.module_name(n)
            weight = self.float_weight(b["weight"], where)
            bias = b.get("bias")
            bias_name = None if bias is None else self.w.add(f"{path}.bias", self.float_weight(bias, where))
            w_name = self.w.add(f"{path}.weight", weight)
            if n.target in _CONVS:
                dims = _CONVS[n.target]
                groups = int(b["groups"])
                entry = {"type": "Conv", "dims": dims, "relu": False, "in_channels": weight.shape[1] * groups,
                         "out_channels": weight.shape[0], "kernel_size": list(weight.shape[2:]),
                         "stride": _ints(b["stride"], dims), "padding": _ints(b["padding"], dims),
                         "dilation": _ints(b["dilation"], dims), "groups": groups, "weight": w_name,
                         "bias": bias_name}
            else:
                entry = {"type": "Linear", "relu": False, "in_features": weight.shape[1],
                         "out_features": weight.shape[0], "weight": w_name, "bias": bias_name}
            self.values[n] = ("float", n.name)
            self.emit(n.name, "call_module", self.add_module(path, entry), [self.float_ref(b["input"], where)])
            return
        if n.target in (aten._native_batch_norm_legit_no_training.default, aten.batch_norm.default):
            self.lower_batch_norm(n, where)
            return
        if n.target == operator.getitem:
            src = n.args[0]
            if src not in self.values or n.args[1] != 0:
                raise ExportError(f"{where}: item {n.args[1]} of '{src.name}' is not supported")
            self.values[n] = self.values[src]
            return
        if n.target in _ADDS or n.target in _SCALAR_ADDS:
            # Two float tensors (broadcast as PyTorch does) or a tensor and a number (x + 1.0).
            b = _bind(n)
            if b.get("alpha", 1) != 1:
                raise ExportError(f"{where}: add with alpha={b['alpha']!r} is not supported: PyTorch rounds "
                                  "input + alpha * other once on its vector path and twice on its scalar path; "
                                  "write the multiply as its own op")
            operands = [self.float_ref(x, where) if isinstance(x, torch.fx.Node) else float32_scalar(x, where)
                        for x in (b["self"], b["other"])]
            self.values[n] = ("float", n.name)
            self.emit(n.name, "call_function", "add", operands)
            return
        if n.target == aten.cat.default:
            b = _bind(n)
            self.values[n] = ("float", n.name)
            self.emit(n.name, "call_function", "cat", [[self.float_ref(x, where) for x in b["tensors"]],
                                                       int(b["dim"])])
            return
        if n.target in _SHARED:
            x = n.args[0]
            self.lower_op(n, where, self.float_ref(x, where))
            return
        raise ExportError(f"unsupported op {n.target} at {where} (from: {n.format_node()})")

    def lower_op(self, n, where, x):
        """An op that runs the same on a quantized or a float value (x is its input reference)."""
        b = _bind(n)
        if n.target in _PASS_THROUGH:
            if n.target in (aten.dropout.default, aten.feature_dropout.default) and b.get("train"):
                raise ExportError(f"{where}: dropout in training mode; export the model in eval mode "
                                  "(torchao.quantization.pt2e.move_exported_model_to_eval)")
            self.alias(n, x)
            return
        path = self.module_name(n)
        if n.target in _MAX_POOLS:
            dims = _MAX_POOLS[n.target]
            kernel = _ints(b["kernel_size"], dims)
            entry = {"type": "MaxPool", "dims": dims, "kernel_size": kernel,
                     "stride": _ints(b["stride"] or kernel, dims), "padding": _ints(b["padding"], dims),
                     "dilation": _ints(b["dilation"], dims), "ceil_mode": bool(b["ceil_mode"])}
            self.emit(n.name, "call_module", self.add_module(path, entry), [x])
        elif n.target in _AVG_POOLS:
            dims = _AVG_POOLS[n.target]
            kernel = _ints(b["kernel_size"], dims)
            divisor = b.get("divisor_override")
            entry = {"type": "AvgPool", "dims": dims, "kernel_size": kernel,
                     "stride": _ints(b["stride"] or kernel, dims), "padding": _ints(b["padding"], dims),
                     "ceil_mode": bool(b["ceil_mode"]), "count_include_pad": bool(b["count_include_pad"]),
                     "divisor_override": None if divisor is None else int(divisor)}
            self.emit(n.name, "call_module", self.add_module(path, entry), [x])
        elif n.target in _ADAPTIVE_POOLS:
            dims = _ADAPTIVE_POOLS[n.target]
            entry = {"type": "AdaptiveAvgPool", "dims": dims, "output_size": _ints(b["output_size"], dims)}
            self.emit(n.name, "call_module", self.add_module(path, entry), [x])
        elif n.target == aten.flatten.using_ints:
            self.emit(n.name, "call_function", "flatten", [x, int(b["start_dim"]), int(b["end_dim"])])
        elif n.target in _RESHAPES:
            size = b["size"] if "size" in b else b["shape"]
            if not all(isinstance(s, int) for s in size):
                raise ExportError(f"{where}: a reshape to a size known only at run time ({size}) is not supported; "
                                  "flatten instead, or export with a static shape")
            self.emit(n.name, "call_method", "reshape", [x, *[int(s) for s in size]])
        elif n.target in _RELUS:
            self.emit(n.name, "call_function", "relu", [x])
        else:
            raise ExportError(f"unsupported op {n.target} at {where}")
        self.values[n] = ("float", n.name)

    def alias(self, n, x):
        self.values[n] = ("float", x["node"])

    def lower_batch_norm(self, n, where):
        b = _bind(n)
        if b.get("training"):
            raise ExportError(f"{where}: batch_norm in training mode; export the model in eval mode")
        path = self.module_name(n)
        mean = self.constant(b["running_mean"], where)
        value = _val(n)
        if value is None:
            raise ExportError(f"{where}: batch_norm of an input whose rank torch.export did not record")
        entry = {"type": "BatchNorm", "dims": value.dim() - 2, "num_features": mean.numel(),
                 "eps": float(b["eps"]),
                 "weight": None if b["weight"] is None else self.w.add(f"{path}.weight",
                                                                      self.constant(b["weight"], where).float()),
                 "bias": None if b["bias"] is None else self.w.add(f"{path}.bias",
                                                                  self.constant(b["bias"], where).float()),
                 "running_mean": self.w.add(f"{path}.running_mean", mean.float()),
                 "running_var": self.w.add(f"{path}.running_var", self.constant(b["running_var"], where).float())}
        if entry["dims"] not in (1, 2, 3):
            raise ExportError(f"{where}: batch_norm of a rank-{entry['dims'] + 2} tensor is not supported")
        self.values[n] = ("float", n.name)
        self.emit(n.name, "call_module", self.add_module(path, entry), [self.float_ref(b["input"], where)])


def lower(gm, writer):
    """(modules, nodes) of qwasm's graph format for the torch.export graph gm."""
    return _Lowering(gm, writer).run()


def quantized_layers(gm):
    """[(module path, input quantize node, output quantize node)] for each
    quantized conv and linear of a converted graph, as export() names them."""
    from qwasm_export import _Writer

    lowering = _Lowering(gm, _Writer())
    lowering.run()
    return lowering.layers
