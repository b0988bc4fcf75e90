"""zero_size.json: what PyTorch does with empty tensors, for every public call
qwasm has: the output's shape where PyTorch computes one (an empty batch, a
linear layer over zero rows, an empty tensor to quantize), or that it raises
(a convolution or pool over an empty spatial dimension). Observers that saw
only empty tensors: their qparams. tests/js/nn/zero-size.test.mjs runs each case
through qwasm's API."""

import warnings

import torch
import torch.ao.nn.intrinsic.quantized as nniq
import torch.ao.nn.quantized as nnq
import torch.nn as nn
from torch.ao.quantization.observer import (HistogramObserver, MinMaxObserver, MovingAverageMinMaxObserver,
                                            MovingAveragePerChannelMinMaxObserver, PerChannelMinMaxObserver)

from .common import SEED

warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", category=UserWarning)

SCALE, ZERO_POINT = 0.1, 3  # every quantized input: zeros with these qparams


def _q(shape):
    return torch.quantize_per_tensor(torch.zeros(shape), SCALE, ZERO_POINT, torch.quint8)


def _case(name, op, shape, run, **params):
    """Runs run(input) and records its output's shape, or that PyTorch raised."""
    c = {"name": name, "op": op, "input_shape": list(shape), "params": params}
    try:
        y = run()
        c["output_shape"] = list(y.shape)
    except (RuntimeError, ValueError, IndexError, NotImplementedError) as e:
        c["error"] = str(e).split("\n")[0][:200]
    return c


def _linear_cases():
    cases = []
    torch.manual_seed(SEED)
    modules = {"linear": nn.Linear(4, 3), "quantized_linear": nnq.Linear(4, 3),
               "quantized_linear_relu": nniq.LinearReLU(4, 3)}
    for op, m in modules.items():
        for shape in [(0, 4), (2, 0, 4), (0, 0, 4), (0, 2, 3, 4)]:
            x = (lambda s=shape: torch.zeros(s)) if op == "linear" else (lambda s=shape: _q(s))
            cases.append(_case(f"{op} {list(shape)}", op, shape, lambda m=m, x=x: m(x()), in_features=4,
                               out_features=3))
    return cases


def _conv_cases():
    cases = []
    for d in (1, 2, 3):
        for groups, cout in [(1, 4), (2, 2)]:
            float_conv = [nn.Conv1d, nn.Conv2d, nn.Conv3d][d - 1](2, cout, 3, groups=groups)
            qconv = [nnq.Conv1d, nnq.Conv2d, nnq.Conv3d][d - 1](2, cout, 3, groups=groups)
            qconv_relu = [nniq.ConvReLU1d, nniq.ConvReLU2d, nniq.ConvReLU3d][d - 1](2, cout, 3, groups=groups)
            for shape in [(0, 2) + (5,) * d, (1, 2) + (0,) * d]:
                for op, m, x in [("conv", float_conv, lambda s=shape: torch.zeros(s)),
                                 ("quantized_conv", qconv, lambda s=shape: _q(s)),
                                 ("quantized_conv_relu", qconv_relu, lambda s=shape: _q(s))]:
                    cases.append(_case(f"{op}{d}d groups {groups} {list(shape)}", op, shape,
                                       lambda m=m, x=x: m(x()), dims=d, in_channels=2, out_channels=cout,
                                       kernel_size=3, groups=groups))
    return cases


def _quantize_cases():
    cases = []
    for shape in [(0,), (0, 3), (3, 0), (2, 0, 5)]:
        cases.append(_case(f"quantize_per_tensor {list(shape)}", "quantize_per_tensor", shape,
                           lambda s=shape: torch.quantize_per_tensor(torch.zeros(s), 0.1, 3, torch.quint8)))
        cases.append(_case(f"dequantize {list(shape)}", "dequantize", shape, lambda s=shape: _q(s).dequantize()))
        for axis in range(len(shape)):
            n = shape[axis]
            cases.append(_case(
                f"quantize_per_channel {list(shape)} axis {axis}", "quantize_per_channel", shape,
                lambda s=shape, a=axis, n=n: torch.quantize_per_channel(
                    torch.zeros(s), torch.full((n,), 0.1, dtype=torch.double), torch.zeros(n, dtype=torch.long), a,
                    torch.quint8), axis=axis))
    return cases


def _pool_cases():
    cases = []
    for d in (1, 2, 3):
        kinds = [("max_pool", getattr(nn, f"MaxPool{d}d")(2), True),
                 ("avg_pool", getattr(nn, f"AvgPool{d}d")(2), True),
                 ("adaptive_avg_pool", getattr(nn, f"AdaptiveAvgPool{d}d")(1), True),
                 ("adaptive_max_pool", getattr(nn, f"AdaptiveMaxPool{d}d")(1), False)]
        # An empty batch (PyTorch computes an empty output), and an empty
        # spatial dimension of a max pool (PyTorch raises, float and quantized).
        shapes = [(0, 2) + (4,) * d]
        for op, m, quantized in kinds:
            for shape in shapes + ([(1, 2) + (0,) * d] if op == "max_pool" else []):
                cases.append(_case(f"{op}{d}d {list(shape)}", op, shape, lambda m=m, s=shape: m(torch.zeros(s)),
                                   dims=d))
                if quantized:
                    cases.append(_case(f"quantized_{op}{d}d {list(shape)}", f"quantized_{op}", shape,
                                       lambda m=m, s=shape: m(_q(s)), dims=d))
    return cases


def _elementwise_cases():
    cases = []
    shape = (0, 3)
    for op, run in [
        ("quantized.add", lambda: torch.ops.quantized.add(_q(shape), _q(shape), 0.2, 1)),
        ("quantized.add_relu", lambda: torch.ops.quantized.add_relu(_q(shape), _q(shape), 0.2, 1)),
        ("quantized.mul", lambda: torch.ops.quantized.mul(_q(shape), _q(shape), 0.2, 1)),
        ("quantized.mul_relu", lambda: torch.ops.quantized.mul_relu(_q(shape), _q(shape), 0.2, 1)),
        ("quantized.add_scalar", lambda: torch.ops.quantized.add_scalar(_q(shape), 1.5)),
        ("quantized.mul_scalar", lambda: torch.ops.quantized.mul_scalar(_q(shape), 2.0)),
        ("quantized.cat", lambda: torch.ops.quantized.cat([_q(shape), _q(shape)], dim=0, scale=0.2, zero_point=1)),
        ("quantized.relu", lambda: torch.relu(_q(shape))),
        ("quantized.relu6", lambda: torch.nn.functional.relu6(_q(shape))),
        ("quantized.hardtanh", lambda: torch.nn.functional.hardtanh(_q(shape))),
        ("quantized.clamp", lambda: torch.clamp(_q(shape), 0.0, 1.0)),
        ("relu", lambda: nn.ReLU()(torch.zeros(shape))),
        ("relu6", lambda: nn.ReLU6()(torch.zeros(shape))),
        ("hardtanh", lambda: nn.Hardtanh()(torch.zeros(shape))),
        ("flatten", lambda: nn.Flatten()(torch.zeros((0, 3, 4)))),
        ("quantized.flatten", lambda: nn.Flatten()(_q((0, 3, 4)))),
    ]:
        s = (0, 3, 4) if op.endswith("flatten") else shape
        cases.append(_case(op, op, s, run))
    for d in (1, 2, 3):
        shape = (0, 2) + (3,) * d if d > 1 else (0, 2, 3)
        bn = getattr(nn, f"BatchNorm{d}d")(2).eval()
        cases.append(_case(f"batch_norm{d}d {list(shape)}", "batch_norm", shape, lambda m=bn, s=shape: m(torch.zeros(s)),
                           dims=d))
    return cases


def _observer_cases():
    cases = []
    for cls in [MinMaxObserver, PerChannelMinMaxObserver, HistogramObserver, MovingAverageMinMaxObserver,
                MovingAveragePerChannelMinMaxObserver]:
        for shape in [(0, 3), (3, 0)]:
            o = cls()
            o(torch.zeros(shape))
            scale, zp = o.calculate_qparams()
            cases.append({"name": f"{cls.__name__} {list(shape)}", "op": "observer", "input_shape": list(shape),
                          "params": {"observer": cls.__name__}, "scale": scale.tolist(), "zero_point": zp.tolist()})
    return cases


def zero_size_cases():
    return (_linear_cases() + _conv_cases() + _quantize_cases() + _pool_cases() + _elementwise_cases() +
            _observer_cases())
