"""reductions.json: reductions and binary arithmetic, from PyTorch 2.15 on one thread.

- `ops`: each op on raw float32 tensors (the graph functions' own run, no model): torch.sum / mean / amax /
  amin / argmax over dims (inner, outer, split and whole reductions, lengths that exercise SumKernel.cpp's
  vector, tail and cascade paths, values of mixed magnitude so that another order would show), softmax /
  log_softmax over each dim, and mul / sub / div of broadcast tensors and numbers (0, -0, NaN, +-Inf
  included). sum / mean / amax / amin / argmax and the binary ops are bit for bit; softmax within a bound.
- `models`: exported models (exported/reductions_*.qwasm.safetensors) that use them: a squeeze-excitation
  block (mean over T, H, W with keepdim -> conv -> relu -> conv -> relu6 stand-in for sigmoid -> mul of the
  broadcast scale) and a segmentation head (conv -> softmax over channels -> argmax), as a float model (the
  torch.fx flow) and through PT2E with QwasmQuantizer.
"""
import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path

nn = torch.nn

REDUCTION_SHAPES = [
    # shape, dims, keepdim
    ((2, 3, 4, 5, 6), [2, 3, 4], True),       # X3D's pool: an inner reduction of 120 (vectors, cascade)
    ((1, 8, 2, 3, 3), [2, 3, 4], True),       # 18: one vector, a scalar tail
    ((2, 5, 7), [2], False),                  # 7: scalar inner sum
    ((3, 1000), [1], True),                   # long row: cascade levels
    ((40, 37), [0], False),                   # outer reduction: 4-vector blocks, one vector, scalar columns
    ((300, 9), [0], True),                    # outer, 9 columns
    ((7, 5), [0], False),                     # scalar outer sum
    ((2, 6, 3, 4), [1, 3], True),             # split reduced dims: partial sums added into the output
    ((2, 6, 3, 4), [0, 2], False),
    ((4, 50, 3), [1], False),                 # strided inner reduction
    ((2, 3, 4), None, False),                 # every dimension
    ((5, 4, 3), [-1, -3], True),              # negative dims
    ((2, 1, 3), [1], True),                   # a size-1 dimension: not a reduction (0 + x)
    ((6, 2000), [0, 1], False),               # 12000 values: cascade over a long vector row
    ((2, 3, 4, 5), [1], True),                # outer sum over 20 columns (two vectors, 4 scalars), per batch
    ((3, 20, 40), [1], False),                # outer sum: a 4-vector block, one vector, per batch
    ((2, 70, 3, 3), [0, 2], True),            # split reduced dims around a kept one, a kept inner one
]


def _mixed(rng, shape):
    """Values of mixed sign and magnitude (1e-3 .. 1e3), where a different summation order shows."""
    v = rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, shape)
    return v.astype(np.float32)


def op_cases():
    """(cases, inputs): each case names its input tensor by its index in inputs (stored once for its ops)."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 320)
    cases = []
    inputs = []
    index = {}
    kept = []  # the arrays stay alive, so that no two share an id()

    def _case(op, x, args, y):
        if id(x) not in index:
            index[id(x)] = len(inputs)
            inputs.append(arr(x))
            kept.append(x)
        # arr() stores a 0-d result as [1]: the shape is kept beside it.
        return {"op": op, "input": index[id(x)], "args": args, "y": arr(y), "shape": list(y.shape)}

    for shape, dims, keepdim in REDUCTION_SHAPES:
        x = _mixed(rng, shape)
        t = torch.from_numpy(x)
        for op in ("sum", "mean", "amax", "amin"):
            f = getattr(torch, op)
            y = f(t, dim=dims, keepdim=keepdim) if dims is not None else (
                f(t) if op in ("sum", "mean") else f(t, dim=[], keepdim=keepdim))
            if dims is None and keepdim:
                raise AssertionError("a whole reduction without dims has no keepdim")
            cases.append(_case(op, x, [dims if dims is not None else None, keepdim], y.numpy()))
    # argmax: along each dim (ties: integers with repeats; NaN counts as the largest), and flattened.
    ties = rng.integers(0, 4, (3, 4, 5)).astype(np.float32)
    for dim, keepdim in ((0, False), (1, True), (2, False), (-1, True), (None, False), (None, True)):
        y = torch.argmax(torch.from_numpy(ties), dim=dim, keepdim=keepdim)
        cases.append(_case("argmax", ties, [dim, keepdim], y.numpy().astype(np.float32)))
    with_nan = _mixed(rng, (4, 6))
    with_nan[1, 3] = np.nan
    with_nan[2, 0] = np.nan
    with_nan[2, 4] = np.nan
    for dim in (0, 1):
        y = torch.argmax(torch.from_numpy(with_nan), dim=dim)
        cases.append(_case("argmax", with_nan, [dim, False], y.numpy().astype(np.float32)))
    amax_nan = torch.amax(torch.from_numpy(with_nan), dim=1)
    cases.append(_case("amax", with_nan, [[1], False], amax_nan.numpy()))
    # softmax / log_softmax over each dim (the last: _vec_softmax_lastdim; another: _vec_softmax).
    for shape in ((2, 5, 3, 4), (3, 40), (2, 19, 7), (2, 21, 6, 6), (40, 100)):
        x = (rng.standard_normal(shape) * 4).astype(np.float32)
        for dim in range(-1, len(shape)):
            for op in ("softmax", "log_softmax"):
                y = getattr(torch, op)(torch.from_numpy(x), dim)
                cases.append(_case(op, x, [dim], y.numpy()))
    # Binary ops: broadcast tensors, numbers on either side, special values.
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -3e38, 3e38], np.float32)
    for a_shape, b_shape in (((2, 3, 4, 5), (1, 3, 1, 1)), ((3, 1, 5), (4, 1)), ((6,), (6,)), ((2, 8), ())):
        a = _mixed(rng, a_shape)
        b = _mixed(rng, b_shape) if b_shape else np.array(rng.standard_normal(), np.float32)
        a.reshape(-1)[:len(special)] = special[:a.size]
        for op in ("mul", "sub", "div"):
            y = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(np.asarray(b)))
            cases.append({"op": op, "x": arr(a), "other": arr(np.asarray(b)), "args": [], "y": arr(y.numpy()),
                          "shape": list(y.shape)})
            y = getattr(torch, op)(torch.from_numpy(np.asarray(b)), torch.from_numpy(a))
            cases.append({"op": op, "x": arr(np.asarray(b)), "other": arr(a), "args": [], "y": arr(y.numpy()),
                          "shape": list(y.shape)})
    for number in (0.1, 3.0, -0.0, 1e-40):
        a = _mixed(rng, (3, 7))
        a.reshape(-1)[:len(special)] = special
        for op in ("mul", "sub", "div"):
            y = getattr(torch, op)(torch.from_numpy(a), number)
            cases.append({"op": op, "x": arr(a), "number": number, "args": [], "y": arr(y.numpy()),
                          "shape": list(y.shape)})
    return cases, inputs


class SqueezeExcitation(nn.Module):
    """X3D's squeeze-excitation (pytorchvideo / fvcore SqueezeExcitation): the mean over T, H, W kept as
    [N, C, 1, 1, 1] (plus the channel's maximum here), two 1x1x1 convs, and the scale multiplied into the input. PyTorch's block ends in a
    sigmoid, which is not this family's op: a ReLU divided by 6 stands in. Then the input less half its
    channel maximum (amax, mul by a number, sub), and a 1x1x1 conv to 5 classes."""

    def __init__(self, channels, squeezed, relu_after_mul=False):
        super().__init__()
        self.relu_after_mul = relu_after_mul
        self.conv = nn.Conv3d(3, channels, 3, padding=1)
        self.fc1 = nn.Conv3d(channels, squeezed, 1)
        self.fc2 = nn.Conv3d(squeezed, channels, 1)
        self.head = nn.Conv3d(channels, 5, 1)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        # The mean and the peak of each channel (PT2E: amax on the integers, then a quantized add).
        s = x.mean((2, 3, 4), keepdim=True) + torch.amax(x, dim=(2, 3, 4), keepdim=True)
        s = torch.relu(self.fc1(s))
        s = torch.relu(self.fc2(s)) / 6.0
        x = torch.relu(x * s) if self.relu_after_mul else x * s  # PT2E: quantized.mul_relu / quantized.mul
        x = x - torch.amax(x, dim=1, keepdim=True) * 0.5
        return self.head(x)


class SegmentationHead(nn.Module):
    """A segmentation output: conv -> softmax over channels -> argmax over channels (the labels)."""

    def __init__(self):
        super().__init__()
        self.body = SqueezeExcitation(8, 4)

    def forward(self, x):
        logits = self.body(x)
        return torch.argmax(torch.softmax(logits, dim=1), dim=1, keepdim=True)


class SegmentationProbabilities(nn.Module):
    """The head's log-probabilities (log_softmax over channels); its block's mul is followed by a ReLU."""

    def __init__(self):
        super().__init__()
        self.body = SqueezeExcitation(8, 4, relu_after_mul=True)

    def forward(self, x):
        return torch.log_softmax(self.body(x), dim=1)


def model_cases():
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from .pt2e import _quantizer, pt2e_convert
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 321)
    shape = (1, 3, 4, 6, 6)
    cases = []
    for k, (name, cls) in enumerate((("se_labels", SegmentationHead), ("se_log_probabilities",
                                                                         SegmentationProbabilities))):
        torch.manual_seed(SEED % 1000 + 320 + k)
        model = cls().eval()
        x = torch.from_numpy(rng.uniform(-1, 1, shape).astype(np.float32))
        fname = f"exported/reductions_{name}_float.qwasm.safetensors"
        export(model, x, output_path(fname))
        with torch.no_grad():
            y = model(x)
        cases.append({"name": f"float {name} (torch.fx)", "file": fname, "flow": "fx", "x": arr(x.numpy()),
                      "y": arr(y.numpy().astype(np.float32))})
        calibration = [torch.from_numpy(rng.uniform(-1, 1, shape).astype(np.float32)) for _ in range(2)]
        m = pt2e_convert(model, _quantizer("qwasm"), calibration)
        targets = sorted({str(n.target) for n in m.graph.nodes if n.op == "call_function"})
        print(f"reductions {name} PT2E ops: {targets}")
        fname = f"exported/reductions_{name}_pt2e.qwasm.safetensors"
        export(m, x, output_path(fname))
        with torch.no_grad():
            y = m(x)
        cases.append({"name": f"PT2E {name} (QwasmQuantizer)", "file": fname, "flow": "pt2e",
                      "x": arr(x.numpy()), "y": arr(y.numpy().astype(np.float32)), "aten": targets})
    return cases


def quantized_mul_agreement():
    """Whether quantized::mul / mul_relu compute the integers of PT2E's reference representation
    (quantized_decomposed dequantize, float mul [, relu], quantize), on random integers and qparams with
    broadcasting: qwasm_ops writes dq -> mul [-> relu] -> q as quantized.mul(_relu) only because none
    differs. {op: {elements, differ}}; generation fails if any differs."""
    import torchao.quantization.pt2e  # noqa: F401  (registers quantized_decomposed)
    qd = torch.ops.quantized_decomposed
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 322)
    shapes = [((4, 8, 3, 3), (4, 8, 1, 1)), ((64,), (64,)), ((2, 1, 5), (3, 1)), ((1, 16, 2, 2, 2), (1, 16, 1, 1, 1))]
    out = {}
    for name, relu in (("mul", False), ("mul_relu", True)):
        elements = differ = 0
        for t in range(1500):
            sa, sb, s = (float(np.float32(10 ** rng.uniform(-4, 0.5))) for _ in range(3))
            za, zb, z = (int(rng.integers(0, 256)) for _ in range(3))
            shape_a, shape_b = shapes[t % len(shapes)]
            ia = torch.from_numpy(rng.integers(0, 256, shape_a).astype(np.uint8))
            ib = torch.from_numpy(rng.integers(0, 256, shape_b).astype(np.uint8))
            a = torch._make_per_tensor_quantized_tensor(ia, sa, za)
            b = torch._make_per_tensor_quantized_tensor(ib, sb, zb)
            got = getattr(torch.ops.quantized, name)(a, b, s, z).int_repr().int()
            v = (qd.dequantize_per_tensor(ia, sa, za, 0, 255, torch.uint8)
                 * qd.dequantize_per_tensor(ib, sb, zb, 0, 255, torch.uint8))
            want = qd.quantize_per_tensor(torch.relu(v) if relu else v, s, z, 0, 255, torch.uint8).int()
            elements += got.numel()
            differ += int((got != want).sum())
        if differ:
            raise AssertionError(f"quantized::{name} differs from the reference on {differ} of {elements} elements")
        out[name] = {"elements": elements, "differ": differ}
    return out


def golden():
    """(cases, extra) of reductions.json: the op cases, and {inputs, models, quantized_mul}."""
    cases, inputs = op_cases()
    return cases, {"inputs": inputs, "models": model_cases(), "quantized_mul": quantized_mul_agreement()}
