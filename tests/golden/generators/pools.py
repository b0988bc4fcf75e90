"""pools.json: quantized and float pools."""

import numpy as np
import torch

from .common import SEED, arr, int_repr_bytes


def pool_cases():
    """MaxPool, AvgPool and AdaptiveAvgPool 1d/2d/3d on quint8 tensors (PyTorch's
    quantized kernels, whose formula depends on the shape) and on float tensors.
    Shapes where PyTorch's channels-last kernels scramble an NCHW output
    (C > 1, one input position, several output positions) are left out: qwasm
    computes the intended result there (README: known differences)."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 10)
    cases = []

    def qt(shape, zp=None):
        scale = float(np.float32(rng.choice([0.1, 0.05, 1 / 3, 0.02, 1.0, 0.37])))
        zp = int(zp if zp is not None else rng.integers(0, 256))
        ints = rng.integers(0, 256, size=shape, dtype=np.uint8)
        if rng.random() < 0.3:  # small integers near the zero point: ties for the averages
            ints = np.clip(zp + rng.integers(-3, 4, size=shape), 0, 255).astype(np.uint8)
        return torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints.copy()), scale, zp)

    def add(name, module, opts, shape, zp=None):
        q = qt(shape, zp)
        x = torch.from_numpy(rng.normal(0, 2, size=shape).astype(np.float32))
        y = module(q)
        yf = module(x)
        cases.append({"name": name, "module": module.__class__.__name__, "options": opts, "shape": list(shape),
                      "ints": int_repr_bytes(q), "scale": q.q_scale(), "zero_point": q.q_zero_point(),
                      "y_ints": int_repr_bytes(y), "y_shape": list(y.shape), "y_scale": y.q_scale(), "y_zero_point": y.q_zero_point(),
                      "x": arr(x.numpy()), "y_float": arr(yf.numpy())})

    nn = torch.nn
    for dims, shapes in [(1, [(2, 3, 11), (1, 1, 9), (4, 7)]), (2, [(2, 3, 7, 9), (1, 1, 6, 8), (3, 5, 6)]),
                         (3, [(1, 3, 5, 6, 7), (2, 2, 4, 5, 6), (1, 1, 6, 6, 6)])]:
        Max = getattr(nn, f"MaxPool{dims}d"); Avg = getattr(nn, f"AvgPool{dims}d")
        for shape in shapes:
            if dims == 3 and len(shape) != 5:
                continue
            add(f"MaxPool{dims}d k3 s2 p1 {list(shape)}", Max(3, stride=2, padding=1),
                {"kernelSize": 3, "stride": 2, "padding": 1}, shape)
            add(f"MaxPool{dims}d k2 d2 ceil {list(shape)}", Max(2, stride=1, dilation=2, ceil_mode=True),
                {"kernelSize": 2, "stride": 1, "dilation": 2, "ceilMode": True}, shape)
            add(f"AvgPool{dims}d k3 s2 p1 {list(shape)}", Avg(3, stride=2, padding=1),
                {"kernelSize": 3, "stride": 2, "padding": 1}, shape)
            add(f"AvgPool{dims}d k2 ceil, pad not counted {list(shape)}", Avg(2, stride=2, ceil_mode=True, count_include_pad=False),
                {"kernelSize": 2, "stride": 2, "ceilMode": True, "countIncludePad": False}, shape, zp=1)
            if dims > 1:
                add(f"AvgPool{dims}d k2 divisor 3 {list(shape)}", Avg(2, divisor_override=3),
                    {"kernelSize": 2, "divisorOverride": 3}, shape)
        Adapt = getattr(nn, f"AdaptiveAvgPool{dims}d")
        for shape in shapes:
            for out in ([1] * dims, [3] * dims, [2] * dims):
                add(f"AdaptiveAvgPool{dims}d {out} of {list(shape)}", Adapt(tuple(out) if dims > 1 else out[0]),
                    {"outputSize": out}, shape)
    # The channels-last formulas on batched inputs with one channel or one position (no scrambling: 1 output position).
    add("AvgPool2d k1 on [2, 5, 1, 1]", nn.AvgPool2d(1), {"kernelSize": 1}, (2, 5, 1, 1))
    add("AdaptiveAvgPool2d 1 of [2, 5, 1, 1]", nn.AdaptiveAvgPool2d(1), {"outputSize": [1, 1]}, (2, 5, 1, 1))
    add("AdaptiveAvgPool3d [2, 1, 1] of 4-D [1, 1, 4, 4]", nn.AdaptiveAvgPool3d((2, 1, 1)), {"outputSize": [2, 1, 1]}, (1, 1, 4, 4))
    return cases
