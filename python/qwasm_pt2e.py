"""Lowers a PT2E-quantized graph (torchao's convert_pt2e) to qwasm's model format.

qwasm_export.export calls this for a torch.export graph; it is not meant to
be called on its own. The converted graph is PyTorch's reference
representation: every quantized op is written as dequantize -> float op ->
quantize. This pass finds those patterns and maps each to the int8 op that
computes it exactly (int32 accumulation, one requantization):

    dq(A) -> conv(dq(W), b) [-> relu] -> q(s, z)    QuantizedConv (module)
    dq(A) -> linear(dq(W), b) [-> relu] -> q(s, z)  QuantizedLinear (module)
    dq(A), dq(B) -> add [-> relu] -> q(s, z)        quantized.add(_relu)
    dq(A), dq(B) -> mul [-> relu] -> q(s, z)        quantized.mul(_relu)
    dq(A), dq(B)... -> cat -> q(s, z)               quantized.cat
    dq(A) -> max pool / flatten / view / dropout / relu / amax / amin -> q(A's qparams)
                                                     the op on A's integers
(Average pools stay dequantize -> float pool -> quantize: see qwasm_ops, AvgPool.)

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

Which ATen ops become which qwasm op, and the pattern each integer op
computes, are the ops' own descriptors (qwasm_ops.py: `pt2e`, `int8`); this
module is the pass that walks the graph and applies them, and handles what
belongs to the reference representation itself (quantize and dequantize
nodes, copies, guards).
"""

import operator

import torch

import qwasm_ops as ops
from qwasm_format import OPS_DOC, ExportError, Writer, check_class_count

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed


def _decomposed(name):
    """torch.ops.quantized_decomposed.<name>.default, or None before anything registered
    those ops (torchao or torch.ao's PT2E code does on import; a graph using them has)."""
    try:
        return getattr(qd, name).default
    except (AttributeError, RuntimeError):
        return None


# The reference representation's own ops, filled by _find_decomposed_ops() when
# a graph is lowered (the ops may be registered after this module is imported).
_Q, _DQ, _DQ_WEIGHT = set(), set(), set()


def _find_decomposed_ops():
    q, dq, dq_channel = (_decomposed(n) for n in ("quantize_per_tensor", "dequantize_per_tensor",
                                                   "dequantize_per_channel"))
    _Q.update({q} - {None})
    _DQ.update({dq} - {None})
    _DQ_WEIGHT.update({dq, dq_channel} - {None})


# Ops that return their input's values (in eval mode for dropout; the
# copy-or-not of clone / contiguous does not show in qwasm's values): no node,
# on a float value or on a quantized value's integers.
_PASS_THROUGH = {aten.dropout.default, aten.clone.default, aten.contiguous.default, aten.alias.default,
                 aten.detach.default, aten.feature_dropout.default}
# x.to(...) and x.type_as(y): the same values where the dtype and device stay (checked: _check_same_value).
_SAME_VALUE = {aten.to.device, aten.to.dtype, aten.to.dtype_layout, aten._to_copy.default, aten.type_as.default}
_PASS_THROUGH |= _SAME_VALUE
# What torch.export leaves that computes nothing (shape guards and asserts).
_CHECKS = {aten._assert_tensor_metadata.default, aten._assert_scalar.default, aten.sym_size.int,
           aten.sym_constrain_range.default, aten.sym_constrain_range_for_size.default,
           aten._assert_async.msg, aten.ge.int, aten.le.int, aten.eq.int, operator.ge, operator.le, operator.eq}
# match(): an op on one value run on the integers, with its input's qparams.
_ON_INTEGERS = "on the integers"


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
    """The pass over one graph. The ops' writers (qwasm_ops: Lowering, ValueLowering,
    Int8Pattern) receive it and use its helpers: bind, module_name, constant, weight,
    float_weight, q_input, float_ref, recorded_value, is_dequantize, is_weight_dequantize,
    emit, add_module, and its writer w, values and layers."""

    def __init__(self, gm, writer):
        _find_decomposed_ops()
        self.gm = gm
        self.w = writer
        self.modules = {}
        self.nodes = []
        self.values = {}  # fx node -> ('float', name) or ('q', name, scale, zero_point)
        self.fused = {}  # terminal quantize node -> what match() returned for it
        self.inside = set()  # nodes a fused pattern computes (skipped where they stand)
        # Each quantized layer as (module path, the quantize node of its input, that of its output):
        # what a per-layer comparison with PyTorch needs.
        self.layers = []
        # Every module path that is a parent of another in the graph's module stacks.
        self._parents = {
            p[:i] for node in gm.graph.nodes for entry in (node.meta.get("nn_module_stack") or {}).values()
            if isinstance(p := entry[0], str) for i, ch in enumerate(p) if ch == "."
        }

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
        """The PyTorch module path of n when it is free, else the node's name. An op called in
        the forward of a module that has submodules (MONAI's MBConvBlock calls torch.sigmoid
        itself) is named below that module's path: a file's module paths may not nest."""
        path = _module_path(n)
        if path and path in self._parents:
            path = f"{path}.{n.name}"
        return path if path and path not in self.modules and path not in self._parents else n.name

    # -- what the ops' writers read --------------------------------------
    bind = staticmethod(_bind)
    recorded_value = staticmethod(_val)

    def is_dequantize(self, n):
        """n dequantizes an activation (per tensor)."""
        return _is(n, _DQ)

    def is_weight_dequantize(self, n):
        """n dequantizes a weight (per tensor or per channel)."""
        return _is(n, _DQ_WEIGHT)

    # -- pattern matching --------------------------------------------------
    def match(self, q):
        """The fused int8 op that quantize node q ends, as (pattern, variant, core
        node, relu node or None, the pass-through nodes between them), or None."""
        core = q.args[0]
        if not isinstance(core, torch.fx.Node) or core.op != "call_function" or len(core.users) != 1:
            return None
        relu = None
        if core.target in ops.fused_relus() and not _is(core.args[0], _DQ):
            relu, core = core, core.args[0]
            if not isinstance(core, torch.fx.Node) or len(core.users) != 1:
                return None
        # Nodes that compute nothing (MONAI's ADN puts an eval-mode Dropout between a norm and its
        # activation): patterns that say so look through them.
        through = []
        while (isinstance(core, torch.fx.Node) and core.op == "call_function" and core.target in _PASS_THROUGH
               and len(core.users) == 1 and isinstance(core.args[0], torch.fx.Node) and not _is(core.args[0], _DQ)):
            through.append(core)
            core = core.args[0]
        if through and (core.op != "call_function" or len(core.users) != 1):
            return None
        for pattern, variant in ops.int8_patterns().get(core.target, ()):
            if (relu is not None) in pattern.relu and (pattern.through or not through):
                return (pattern, variant, core, relu, through) if pattern.inputs(self, core) else None
        if through:
            return None
        if relu is None and self.on_integers(core.target) and _is(core.args[0], _DQ):
            # Exact on the integers only when the output keeps the input's qparams.
            if self.act_qparams(core.args[0]) == self.act_qparams(q):
                return (_ON_INTEGERS, None, core, None, [])
        return None

    @staticmethod
    def on_integers(target):
        """An op on one value that gives, on the integers with its input's qparams,
        exactly what dequantize -> op -> quantize gives."""
        if target in _PASS_THROUGH:
            return True
        lowering = ops.pt2e_lowerings().get(target, (None,))[0]
        return isinstance(lowering, ops.ValueLowering) and lowering.on_integers

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
        for kind, table in (("call_function", ops.GRAPH_FUNCTIONS), ("call_method", ops.GRAPH_METHODS)):
            if op == kind and (target not in table or len(args) > table[target]["args"]):
                raise AssertionError(f"qwasm_pt2e writes {target} with {len(args)} arguments, outside its vocabulary")
        self.nodes.append({"name": name, "op": op, "target": target, "args": args, "kwargs": kwargs or {}})
        return value

    def add_module(self, name, entry):
        self.modules[name] = ops.checked_fields(entry)
        return name

    def run(self):
        graph = self.gm.graph
        for n in graph.nodes:
            if _is(n, _Q):
                m = self.match(n)
                if m is not None:
                    self.fused[n] = m
                    _, _, core, relu, through = m
                    self.inside.update(x for x in (core, relu, *through) if x is not None)
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
            raise ExportError(f"unsupported graph node {n.op} '{n.target}' at {where}; {OPS_DOC}")
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
        pattern, variant, core, relu, through = self.fused[q]
        where = _where(core)
        for n in through:
            _check_pass_through(n, _where(n))
        scale, zp = self.act_qparams(q)
        if pattern is _ON_INTEGERS:
            x = self.q_input(core.args[0], where)
            if core.target in _PASS_THROUGH:
                _check_pass_through(core, where)
                name = x["node"]  # the same integers: no node
            else:
                self.lower_value(core, where, x)
                name = core.name
        else:
            name = pattern.write(self, q, core, relu, scale, zp, where, variant)
        self.values[q] = ("q", name, scale, zp)
        if relu is not None:
            self.inside.add(relu)

    def lower_float(self, n, where):
        if n.target == operator.getitem:
            src = n.args[0]
            split = self.values.get(src)
            if split is not None and split[0] == "split":
                # An item of a split / chunk (qwasm_ops: slice): that slice of the split's input.
                _, x, dim, bounds = split
                start, end = bounds[n.args[1]]
                self.values[n] = ("float", n.name)
                self.emit(n.name, "call_function", "slice", [x, dim, start, end, 1])
                return
            if src not in self.values or n.args[1] != 0:
                raise ExportError(f"{where}: item {n.args[1]} of '{src.name}' is not supported")
            self.values[n] = self.values[src]
            return
        if n.target in _PASS_THROUGH:
            self.lower_value(n, where, self.float_ref(n.args[0], where))
            return
        found = ops.pt2e_lowerings().get(n.target)
        if found is None:
            raise ExportError(f"unsupported op {n.target} at {where} (from: {n.format_node()}); {OPS_DOC}")
        lowering, variant = found
        inplace = lowering.inplace() if lowering.inplace else ()
        if n.target in inplace and isinstance(n.args[0], torch.fx.Node) and len(n.args[0].users) > 1:
            # PyTorch's later readers of the input would see the new values, qwasm's would not.
            raise ExportError(f"{where}: an in-place op on '{n.args[0].name}', which other nodes also read "
                              f"({', '.join(u.name for u in n.args[0].users)}); use the out-of-place form")
        if isinstance(lowering, ops.ValueLowering):
            self.lower_value(n, where, self.float_ref(n.args[0], where))
        else:
            lowering.write(self, n, where, variant)

    def lower_value(self, n, where, x):
        """An op on one value, quantized or float (x is its input reference)."""
        if n.target in _PASS_THROUGH:
            _check_pass_through(n, where)
            self.alias(n, x)
            return
        lowering, variant = ops.pt2e_lowerings()[n.target]
        lowering.write(self, n, where, x, variant)
        self.values.setdefault(n, ("float", n.name))  # (a split records its pieces instead)

    def alias(self, n, x):
        self.values[n] = ("float", x["node"])


def _check_pass_through(n, where):
    """What a pass-through op must be to return its input's values: dropout in eval mode; a
    `to` / `type_as` that keeps float32 on the same device."""
    if n.target in (aten.dropout.default, aten.feature_dropout.default) and _bind(n).get("train"):
        raise ExportError(f"{where}: dropout in training mode; export the model in eval mode "
                          "(torchao.quantization.pt2e.move_exported_model_to_eval)")
    if n.target in _SAME_VALUE:
        out, x = _val(n), _val(n.args[0])
        if out is None or x is None:
            raise ExportError(f"{where}: a conversion whose dtype torch.export did not record")
        if out.dtype != x.dtype or out.dtype != torch.float32:
            raise ExportError(f"{where}: converts {x.dtype} to {out.dtype}: qwasm computes in float32 and would not "
                              "give PyTorch's values; remove the conversion (or convert the model to float32)")
        if out.device != x.device:
            raise ExportError(f"{where}: moves a tensor from {x.device} to {out.device}; export the model on one "
                              "device")


def lower(gm, writer):
    """(modules, nodes) of qwasm's graph format for the torch.export graph gm."""
    return _Lowering(gm, writer).run()


def lower_exported(gm, example_input, writer, classes):
    """The PT2E flow: (modules, nodes, engine) of a torch.export graph, after
    running it once on example_input (no model.eval(), which torchao forbids
    on exported models)."""
    with torch.no_grad():
        out = gm(example_input)
    if not isinstance(out, torch.Tensor):
        raise ExportError("the model must return one tensor")
    check_class_count(classes, out)
    modules, nodes = lower(gm, writer)
    # PT2E's reference arithmetic is the x86 recipe's: its quantized convs run on oneDNN's steps.
    return modules, nodes, "x86"


def quantized_layers(gm):
    """[(module path, input quantize node, output quantize node)] for each
    quantized conv and linear of a converted graph, as export() names them."""
    lowering = _Lowering(gm, Writer())
    lowering.run()
    return lowering.layers
