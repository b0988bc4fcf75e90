"""QwasmQuantizer: a torchao PT2E Quantizer that annotates what qwasm runs in int8.

    import torch
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e, convert_pt2e
    from qwasm_quantizer import QwasmQuantizer

    m = torch.export.export(model.eval(), (x,)).module()
    m = prepare_pt2e(m, QwasmQuantizer())
    for clip in calibration: m(clip)
    m = convert_pt2e(m)
    # then qwasm_export.export(m, x, "model.qwasm.safetensors")

What it annotates (every backend's Quantizer does the same job for its own
kernels; torchao's X86InductorQuantizer and XNNPACKQuantizer annotate no
conv3d, so a video model quantized with them keeps its Conv3d layers in float):
- conv1d / conv2d / conv3d, with a following ReLU fused (prepare_pt2e has
  already folded a following BatchNorm into the conv's weight and bias);
- conv_transpose1d / 2d / 3d, with a following ReLU fused, its weight
  [in, out / groups, *kernel] per channel on axis 1 (the output channels)
  when the weight spec is per channel;
- linear, with a following ReLU fused;
- add and mul of two tensors (broadcast), with a following ReLU fused (mul:
  squeeze-excitation's scale);
- cat (every input shares the first one's qparams, as PyTorch's quantized cat
  needs for an exact result);
- max / avg / adaptive-avg pools, flatten, view / reshape, permute /
  transpose, pad, squeeze / unsqueeze, slice / select / narrow, expand,
  repeat, flip, dropout, amax / amin, a lone ReLU and nearest upsampling
  (2-D, 3-D): the output shares the
  input's qparams, as PyTorch's quantized versions of those ops have it (the
  exporter runs each on the integers where that is exact, and average pools
  as dequantize, float pool, quantize);
- the element-wise activations (leaky_relu, prelu with constant slopes,
  hardsigmoid, hardswish, sigmoid, tanh, silu, elu, gelu, softplus, mish):
  observed input and output, except sigmoid, hardsigmoid and tanh, whose
  output takes PyTorch's fixed qparams (1/256 from 0; 2/256 around 128); the
  exporter writes each as a 256-entry table PyTorch fills.

Its qconfig is PyTorch's x86 default, as X86InductorQuantizer copies it:
quint8 activations over 0..255, per tensor affine, observed with
HistogramObserver; qint8 weights over -128..127, per output channel,
symmetric, observed with PerChannelMinMaxObserver; biases stay float.
(The eager flow's get_default_qconfig('x86') also sets reduce_range, a
workaround for 16-bit saturation in older x86 kernels; qwasm accumulates in
exact int32 and PT2E's quantize clamps to the declared range, so the full
range is both correct and more precise.)

Depends on torch and torchao (pip install torchao).
"""

import dataclasses

import torch
from torch.fx import Node

try:
    from torchao.quantization.pt2e import HistogramObserver, PerChannelMinMaxObserver
    from torchao.quantization.pt2e.quantizer import (
        FixedQParamsQuantizationSpec,
        QuantizationAnnotation,
        QuantizationSpec,
        Quantizer,
        SharedQuantizationSpec,
    )
except ModuleNotFoundError as e:
    if e.name != "torchao":
        raise
    raise ModuleNotFoundError("QwasmQuantizer is a torchao Quantizer: pip install torchao "
                              "(PyTorch's PT2E quantization lives there)", name="torchao") from e

__all__ = ["QwasmQuantizer", "activation_qspec", "weight_qspec"]

aten = torch.ops.aten

# eps as torchao's x86 and XNNPACK configs set it: the smallest scale an observer returns.
_EPS = 2**-12


def activation_qspec():
    """quint8 over 0..255, per tensor affine, HistogramObserver (PyTorch's x86 activation recipe)."""
    return QuantizationSpec(dtype=torch.uint8, quant_min=0, quant_max=255, qscheme=torch.per_tensor_affine,
                            is_dynamic=False, observer_or_fake_quant_ctr=HistogramObserver.with_args(eps=_EPS))


def weight_qspec():
    """qint8 over -128..127, per output channel (axis 0), symmetric (PyTorch's x86 weight recipe)."""
    return QuantizationSpec(dtype=torch.int8, quant_min=-128, quant_max=127, qscheme=torch.per_channel_symmetric,
                            ch_axis=0, is_dynamic=False,
                            observer_or_fake_quant_ctr=PerChannelMinMaxObserver.with_args(eps=_EPS))


_CONVS = {aten.conv1d.default, aten.conv2d.default, aten.conv3d.default}
_CONV_TRANSPOSES = {aten.conv_transpose1d.default, aten.conv_transpose2d.input, aten.conv_transpose3d.input}
_LINEARS = {aten.linear.default}
_RELUS = {aten.relu.default, aten.relu_.default}
_ADDS = {aten.add.Tensor, aten.add_.Tensor}
_MULS = {aten.mul.Tensor, aten.mul_.Tensor}
_CATS = {aten.cat.default}
# Ops whose output takes the input's qparams: they move or select values
# (or average them, as PyTorch's quantized pools do in the input's qparams).
_SHARED = {
    aten.max_pool1d.default, aten.max_pool2d.default, aten.max_pool3d.default,
    aten.avg_pool1d.default, aten.avg_pool2d.default, aten.avg_pool3d.default,
    aten.adaptive_avg_pool1d.default, aten.adaptive_avg_pool2d.default, aten.adaptive_avg_pool3d.default,
    aten.flatten.using_ints, aten.view.default, aten.reshape.default, aten.dropout.default,
    aten.feature_dropout.default,
    aten.relu.default, aten.relu_.default, aten.clone.default, aten.contiguous.default,
    aten.amax.default, aten.amin.default,
    # nearest upsampling of 4-D / 5-D values (qwasm runs it on the integers; linear modes stay float)
    aten.upsample_nearest2d.vec, aten.upsample_nearest3d.vec,
    aten._upsample_nearest_exact2d.vec, aten._upsample_nearest_exact3d.vec,
    aten.permute.default, aten.transpose.int, aten.pad.default, aten.squeeze.default, aten.squeeze.dim,
    aten.squeeze.dims, aten.unsqueeze.default, aten.slice.Tensor, aten.select.int, aten.narrow.default,
    aten.expand.default, aten.repeat.default, aten.flip.default,
    # the conversions torch.export keeps that change nothing (qwasm_pt2e refuses any other)
    aten.to.device, aten.to.dtype, aten.to.dtype_layout, aten._to_copy.default, aten.type_as.default,
}


# Element-wise activations (qwasm_ops_activations.py): int8 by a 256-entry table, any qparams exact.
# The output of sigmoid / hardsigmoid (0..1) and tanh (-1..1) gets PyTorch's fixed qparams for them
# (torch.ao.quantization's _FIXED_QPARAMS_OP_TO_OBSERVER: 1/256 and 2/256); the others are observed.
_FIXED_QPARAMS = {"sigmoid": (1.0 / 256.0, 0), "sigmoid_": (1.0 / 256.0, 0), "hardsigmoid": (1.0 / 256.0, 0),
                  "hardsigmoid_": (1.0 / 256.0, 0), "tanh": (2.0 / 256.0, 128), "tanh_": (2.0 / 256.0, 128)}
_ACTIVATIONS = {getattr(getattr(aten, name), "default") for name in (
    "leaky_relu", "leaky_relu_", "prelu", "hardsigmoid", "hardsigmoid_", "hardswish", "hardswish_", "sigmoid",
    "sigmoid_", "tanh", "tanh_", "silu", "silu_", "elu", "elu_", "gelu", "gelu_", "softplus", "mish", "mish_")}


def _annotated(n):
    a = n.meta.get("quantization_annotation")
    return a is not None and a._annotated


def _annotate(n, inputs=None, output=None):
    n.meta["quantization_annotation"] = QuantizationAnnotation(
        input_qspec_map=inputs or {}, output_qspec=output, _annotated=True)


def _is_float_tensor(n):
    v = n.meta.get("val") if isinstance(n, Node) else None
    return isinstance(v, torch.Tensor) and v.dtype == torch.float32


def _fused_relu(n):
    """The ReLU that follows `n` and is its only reader, or None."""
    if len(n.users) != 1:
        return None
    user = next(iter(n.users))
    return user if user.op == "call_function" and user.target in _RELUS and not _annotated(user) else None


class QwasmQuantizer(Quantizer):
    """Annotates a torch.export graph for qwasm's int8 kernels (see the module docstring).

    `activation` and `weight` are the QuantizationSpecs to use; the defaults
    are activation_qspec() and weight_qspec(). qwasm runs quint8 (or qint8)
    activations over their full range and qint8 weights."""

    def __init__(self, activation=None, weight=None):
        super().__init__()
        self.activation = activation or activation_qspec()
        self.weight = weight or weight_qspec()

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        # One pass in graph order: a node's producers are annotated before it,
        # so an op that shares its input's qparams knows whether it has any.
        for n in model.graph.nodes:
            if n.op != "call_function" or _annotated(n):
                continue
            if n.target in _CONVS or n.target in _LINEARS:
                self._weighted(n)
            elif n.target in _CONV_TRANSPOSES:
                self._weighted(n, self._transposed_weight())
            elif n.target in _ADDS or n.target in _MULS:
                self._add(n)
            elif n.target in _CATS:
                self._cat(n)
            elif n.target in _SHARED:
                self._shared(n)
            elif n.target in _ACTIVATIONS:
                self._activation(n)
        return model

    def validate(self, model: torch.fx.GraphModule) -> None:
        pass

    def _transposed_weight(self):
        """The weight spec for a transposed conv's [in, out / groups, *kernel] weight: per channel on the
        output channels' axis, 1 (as torch.ao's own recipes for ConvTranspose; qwasm requantizes per output
        channel, and a scale per input channel could not be one requantization)."""
        if self.weight.qscheme in (torch.per_channel_symmetric, torch.per_channel_affine):
            return dataclasses.replace(self.weight, ch_axis=1)
        return self.weight

    def _weighted(self, n, weight=None):
        x, w = n.args[0], n.args[1]
        bias = n.args[2] if len(n.args) > 2 else None
        if not (isinstance(x, Node) and isinstance(w, Node) and _is_float_tensor(x)):
            return
        inputs = {x: self.activation, w: weight or self.weight}
        if isinstance(bias, Node):
            inputs[bias] = None  # the bias stays float32, as in PyTorch's quantized conv and linear
        relu = _fused_relu(n)
        _annotate(n, inputs, None if relu else self.activation)
        if relu is not None:
            _annotate(relu, {}, self.activation)

    def _add(self, n):
        a, b = n.args[0], n.args[1]
        if n.kwargs.get("alpha", 1) != 1 or not all(isinstance(v, Node) and _is_float_tensor(v) for v in (a, b)):
            return
        relu = _fused_relu(n)
        _annotate(n, {a: self.activation, b: self.activation}, None if relu else self.activation)
        if relu is not None:
            _annotate(relu, {}, self.activation)

    def _cat(self, n):
        xs = n.args[0]
        if not xs or not all(isinstance(v, Node) and _is_float_tensor(v) for v in xs):
            return
        shared = SharedQuantizationSpec((xs[0], n))
        inputs = {xs[0]: self.activation}
        for v in xs[1:]:
            inputs.setdefault(v, shared)
        _annotate(n, inputs, shared)

    def _shared(self, n):
        x = n.args[0]
        if not (isinstance(x, Node) and _is_float_tensor(x)):
            return
        producer = x.meta.get("quantization_annotation")
        quantized_input = producer is not None and producer.output_qspec is not None
        if not quantized_input and n.target not in {
                aten.max_pool1d.default, aten.max_pool2d.default, aten.max_pool3d.default,
                aten.avg_pool1d.default, aten.avg_pool2d.default, aten.avg_pool3d.default,
                aten.adaptive_avg_pool1d.default, aten.adaptive_avg_pool2d.default,
                aten.adaptive_avg_pool3d.default}:
            return  # a reshape or ReLU of a float value stays float
        _annotate(n, {x: SharedQuantizationSpec(x) if quantized_input else self.activation},
                  SharedQuantizationSpec((x, n)))

    def _activation(self, n):
        x = n.args[0]
        if not (isinstance(x, Node) and _is_float_tensor(x)):
            return
        if n.target == aten.prelu.default and not (isinstance(n.args[1], Node) and n.args[1].op == "get_attr"):
            return  # slopes computed at run time: the op stays float
        fixed = _FIXED_QPARAMS.get(n.target._schema.name.split("::")[1])
        output = self.activation if fixed is None else FixedQParamsQuantizationSpec(
            dtype=torch.uint8, scale=fixed[0], zero_point=fixed[1], quant_min=0, quant_max=255,
            qscheme=torch.per_tensor_affine)
        _annotate(n, {x: self.activation}, output)
