"""hardtanh.json: nn.Hardtanh in exported models (exported/hardtanh*.qwasm.safetensors),
the op that shows adding one to the model format (docs/adding-an-op.md): in an
eager-quantized model, on quantized tensors (quantized::hardtanh: the bounds
quantized with the input's qparams), beside a ReLU6 (its own module type); and
in a float model, on an input holding -0, NaN and +-Inf. Each output is
PyTorch's to the bit (a NaN matches any NaN)."""
import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path


def hardtanh_cases():
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from torch.ao.quantization import DeQuantStub, QuantStub, convert, get_default_qconfig, prepare
    nn = torch.nn
    torch.set_num_threads(1)
    torch.manual_seed(SEED % 1000 + 70)
    rng = np.random.default_rng(SEED + 70)

    class Quantized(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = QuantStub()
            self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
            self.clamp1 = nn.Hardtanh(-0.5, 1.25)  # inside the conv's range: clamps on both sides
            self.conv2 = nn.Conv2d(8, 4, 1)
            self.relu6 = nn.ReLU6()
            self.clamp2 = nn.Hardtanh(0.75, 40.0)  # the upper bound past the qparams' range
            self.dequant = DeQuantStub()

        def forward(self, x):
            a = self.clamp1(self.conv1(self.quant(x)))
            return self.dequant(self.clamp2(self.relu6(self.conv2(a))))

    class Float(nn.Module):
        def __init__(self):
            super().__init__()
            self.clamp = nn.Hardtanh(-2.5, 0.5)
            self.wide = nn.Hardtanh(-1e30, 1e30)  # lets finite values through, clamps +-Inf

        def forward(self, x):
            return self.clamp(x) + self.wide(x)  # (a float conv would agree only to float rounding)

    cases = []
    x = torch.from_numpy(rng.uniform(-2, 2, (2, 3, 6, 6)).astype(np.float32))
    m = Quantized().eval()
    m.qconfig = get_default_qconfig("fbgemm")
    prepare(m, inplace=True)
    for _ in range(3):
        m(torch.from_numpy(rng.uniform(-2, 2, (2, 3, 6, 6)).astype(np.float32)))
    convert(m, inplace=True)
    export(m, x, output_path("exported/hardtanh.qwasm.safetensors"))
    y = m(x)
    inner = m.clamp1(m.conv1(m.quant(x)))
    clamped = inner.int_repr()
    # The case can fail: the first Hardtanh clamps values on both sides.
    lo, hi = (round(v / inner.q_scale()) + inner.q_zero_point() for v in (-0.5, 1.25))
    assert (clamped == lo).sum() >= 5 and (clamped == hi).sum() >= 5, "the quantized Hardtanh must clamp"
    cases.append({"name": "quantized: Hardtanh and ReLU6 on QTensors", "file": "exported/hardtanh.qwasm.safetensors",
                  "x": arr(x.numpy()), "y": arr(y.numpy())})

    f = Float().eval()
    xf = rng.uniform(-4, 4, (1, 3, 4, 4)).astype(np.float32)
    flat = xf.reshape(-1)
    for i, v in enumerate([-0.0, 0.0, np.nan, np.inf, -np.inf, -2.5, 0.5, 1e-45, -3e38]):
        flat[i * 5 + 1] = v
    xf = torch.from_numpy(xf)
    export(f, xf, output_path("exported/hardtanh_float.qwasm.safetensors"))
    with torch.no_grad():
        cases.append({"name": "float: Hardtanh on -0, NaN and +-Inf",
                      "file": "exported/hardtanh_float.qwasm.safetensors", "x": arr(xf.numpy()),
                      "y": arr(f(xf).numpy())})
    return cases
