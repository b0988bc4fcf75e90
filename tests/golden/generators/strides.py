"""strides.json: output strides at size-1 dimensions."""
import json

import numpy as np
import torch

from .common import SEED, arr, int_repr_bytes


def stride_cases():
    """Output strides at size-1 dimensions: batch 1, one channel, spatial
    sizes of 1. A quantized conv returns a channels-last tensor (squeezed for
    conv1d); PyTorch's pools and element-wise ops pick their formula from the
    layout, so a stride that differs where a size is 1 can change integers
    downstream. Each case runs a quantized conv (or takes a contiguous input)
    then one op, and records PyTorch's stride() after each step beside the
    integers."""
    import torch.ao.nn.quantized as nnq
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 31)
    cases = []

    def qin(shape):
        scale = float(np.float32(rng.choice([0.05, 1 / 3, 0.02, 2 / 255])))
        zp = int(rng.integers(0, 256))
        ints = rng.integers(0, 256, size=shape, dtype=np.uint8)
        return torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints.copy()), scale, zp)

    def enc(q):
        return {"ints": int_repr_bytes(q), "shape": list(q.shape), "scale": q.q_scale(), "zero_point": q.q_zero_point(),
                "strides": list(q.stride())}

    def qconv(dims, cin, cout, kernel):
        w = torch.from_numpy(rng.integers(-127, 128, size=(cout, cin) + (kernel,) * dims).astype(np.int8))
        scales = torch.from_numpy(rng.uniform(0.002, 0.02, size=cout)).double()
        qw = torch._make_per_channel_quantized_tensor(w, scales, torch.zeros(cout, dtype=torch.long), 0)
        bias = torch.from_numpy(rng.normal(0, 1, size=cout).astype(np.float32))
        m = getattr(nnq, f"Conv{dims}d")(cin, cout, kernel)
        m.set_weight_bias(qw, bias)
        m.scale = float(np.float32(rng.uniform(0.05, 0.3)))
        m.zero_point = int(rng.integers(20, 200))
        spec = {"dims": dims, "in_channels": cin, "out_channels": cout, "kernel": kernel,
                "w_int": arr(w.numpy()), "w_scales": arr(scales.numpy()), "bias": arr(bias.numpy()),
                "scale": m.scale, "zero_point": m.zero_point}
        return m, spec

    def follow_ups(dims, shape):
        spatial = shape[2:]
        k = [min(2, s) for s in spatial]
        P = {1: "1d", 2: "2d", 3: "3d"}[dims]
        ops = [
            (f"MaxPool{P}", {"kernelSize": k}, lambda y: getattr(torch.nn, f"MaxPool{P}")(k)(y)),
            (f"AvgPool{P}", {"kernelSize": k}, lambda y: getattr(torch.nn, f"AvgPool{P}")(k)(y)),
            (f"AdaptiveAvgPool{P}", {"outputSize": [1] * dims},
             lambda y: getattr(torch.nn, f"AdaptiveAvgPool{P}")(1 if dims == 1 else (1,) * dims)(y)),
            (f"AdaptiveAvgPool{P}", {"outputSize": [2] * dims},
             lambda y: getattr(torch.nn, f"AdaptiveAvgPool{P}")(2 if dims == 1 else (2,) * dims)(y)),
            ("relu", {}, torch.nn.functional.relu),
            ("add", {"scale": 0.3, "zeroPoint": 90}, lambda y: torch.ops.quantized.add(y, y, 0.3, 90)),
            ("mul", {"scale": 0.7, "zeroPoint": 10}, lambda y: torch.ops.quantized.mul(y, y, 0.7, 10)),
            ("addScalar", {"c": 0.5}, lambda y: torch.ops.quantized.add_scalar(y, 0.5)),
            ("cat", {"dim": 1, "scale": 0.2, "zeroPoint": 60},
             lambda y: torch.ops.quantized.cat([y, y], dim=1, scale=0.2, zero_point=60)),
            ("flatten", {}, lambda y: torch.flatten(y, 1)),
        ]
        return ops

    for dims in (1, 2, 3):
        for n, cin, cout, spatial in [(1, 3, 4, (5,) * dims), (1, 1, 1, (4,) * dims), (1, 3, 1, (1,) * dims),
                                      (2, 3, 4, (1,) * (dims - 1) + (6,)), (1, 2, 5, (6,) + (1,) * (dims - 1)),
                                      (2, 1, 3, (3,) * dims)]:
            for source in ("conv", "contiguous"):
                if source == "conv":
                    conv, spec = qconv(dims, cin, cout, 1)
                    x = qin((n, cin) + spatial)
                    y0 = conv(x)
                else:
                    spec, x = None, qin((n, cout) + spatial)
                    y0 = x
                for op, args, fn in follow_ups(dims, list(y0.shape)):
                    y = fn(y0)
                    cases.append({"name": f"{source} {dims}d {[n, cin, *spatial]} then {op} {json.dumps(args)}",
                                  "conv": spec, "x": enc(x), "mid": enc(y0), "op": op, "args": args, "y": enc(y)})
    # A quantized Linear at batch 1 and on 3-D input.
    for shape in [(1, 6), (1, 1, 6), (3, 1, 6), (1, 2, 6)]:
        w = torch.from_numpy(rng.integers(-127, 128, size=(4, 6)).astype(np.int8))
        scales = torch.from_numpy(rng.uniform(0.002, 0.02, size=4)).double()
        qw = torch._make_per_channel_quantized_tensor(w, scales, torch.zeros(4, dtype=torch.long), 0)
        bias = torch.from_numpy(rng.normal(0, 1, size=4).astype(np.float32))
        lin = nnq.Linear(6, 4)
        lin.set_weight_bias(qw, bias)
        lin.scale, lin.zero_point = 0.125, 77
        x = qin(shape)
        y = lin(x)
        cases.append({"name": f"Linear {list(shape)}", "conv": None, "x": enc(x), "mid": enc(x), "op": "Linear",
                      "args": {"w_int": arr(w.numpy()), "w_scales": arr(scales.numpy()), "bias": arr(bias.numpy()),
                               "scale": 0.125, "zeroPoint": 77},
                      "y": enc(y)})
    return cases
