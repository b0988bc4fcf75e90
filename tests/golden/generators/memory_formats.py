"""memory_formats.json: ops on channels-last inputs, with the strides PyTorch gives."""

import numpy as np
import torch

from .common import SEED, int_repr_bytes


def memory_format_cases():
    """Ops on channels-last inputs (and the [N, C, L] layout a quantized conv1d
    returns): PyTorch's kernels pick their formula by layout, and their
    outputs' strides carry the layout on. Each case records the input's
    strides, the op, and the output's integers, qparams and strides."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 12)
    cases = []
    nn = torch.nn
    F = torch.nn.functional

    def qt(shape, near_zero_point=False):
        scale = float(np.float32(rng.choice([0.1, 0.05, 1 / 3, 0.02, 0.37, 2 / 255])))
        zp = int(rng.integers(0, 256))
        ints = rng.integers(0, 256, size=shape, dtype=np.uint8)
        if near_zero_point:  # small integers around the zero point: ties for the averages
            ints = np.clip(zp + rng.integers(-3, 4, size=shape), 0, 255).astype(np.uint8)
        return torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints.copy()), scale, zp)

    def layout(q, name):
        if name == "channels_last":
            return q.contiguous(memory_format=torch.channels_last if q.dim() == 4 else torch.channels_last_3d)
        if name == "conv1d":  # what a quantized conv1d returns: strides [C * L, 1, C]
            return q.unsqueeze(2).contiguous(memory_format=torch.channels_last).squeeze(2)
        return q

    def enc(q, name=None):
        e = {"ints": int_repr_bytes(q), "shape": list(q.shape), "scale": q.q_scale(), "zero_point": q.q_zero_point(),
             "strides": list(q.stride())}
        if name is not None:
            e["layout"] = name
        return e

    def add(name, op, inputs, y, **args):
        cases.append({"name": name, "op": op, "inputs": [enc(q, lay) for q, lay in inputs], "args": args, "y": enc(y)})

    # Pooling: the channels-last formulas, and the float mean of a channels-last 3d input.
    for shape, lay, dims in [((2, 6, 11), "conv1d", 1), ((2, 6, 11), "contiguous", 1), ((2, 5, 7, 9), "channels_last", 2),
                             ((1, 16, 6, 5), "channels_last", 2), ((2, 4, 5, 6, 7), "channels_last", 3)]:
        for near in (False, True):
            x = layout(qt(shape, near), lay)
            Max, Avg, Adapt = (getattr(nn, f"{k}{dims}d") for k in ("MaxPool", "AvgPool", "AdaptiveAvgPool"))
            tag = f"{list(shape)} {lay}{' near zp' if near else ''}"
            add(f"MaxPool{dims}d k3 s2 p1 {tag}", f"MaxPool{dims}d", [(x, lay)], Max(3, stride=2, padding=1)(x),
                options={"kernelSize": 3, "stride": 2, "padding": 1})
            add(f"AvgPool{dims}d k3 s2 p1 {tag}", f"AvgPool{dims}d", [(x, lay)], Avg(3, stride=2, padding=1)(x),
                options={"kernelSize": 3, "stride": 2, "padding": 1})
            add(f"AvgPool{dims}d k2 pad not counted {tag}", f"AvgPool{dims}d", [(x, lay)],
                Avg(2, stride=2, ceil_mode=True, count_include_pad=False)(x),
                options={"kernelSize": 2, "stride": 2, "ceilMode": True, "countIncludePad": False})
            for out in ([3] * dims, [2] * dims, [1] * dims):
                y = Adapt(tuple(out) if dims > 1 else out[0])(x)
                add(f"AdaptiveAvgPool{dims}d {out} {tag}", f"AdaptiveAvgPool{dims}d", [(x, lay)], y, outputSize=out)
    # AdaptiveAvgPool3d(1) on channels-last 3d: dequantize, cascade sum per channel, divide, quantize.
    for channels in (2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 37, 64, 70):
        for spatial in [(3, 5, 6), (8, 8, 8), (2, 2, 2), (1, 17, 19)]:
            if channels * int(np.prod(spatial)) > 40000:
                continue
            x = layout(qt((2, channels) + spatial, near_zero_point=channels % 2 == 1), "channels_last")
            add(f"AdaptiveAvgPool3d 1 of {[2, channels, *spatial]} channels_last", "AdaptiveAvgPool3d",
                [(x, "channels_last")], nn.AdaptiveAvgPool3d(1)(x), outputSize=[1, 1, 1])
    # Element-wise ops on mixed layouts and broadcasts: which elements take the vector steps.
    pairs = [((2, 40, 3, 3), (2, 40, 3, 3)), ((1, 70, 2, 5), (1, 70, 2, 5)), ((2, 3, 4, 5, 6), (2, 3, 4, 5, 6)),
             ((2, 70, 3, 3), (1, 70, 1, 1)), ((1, 70, 1, 1), (2, 70, 3, 3)), ((2, 9, 4, 8), (2, 9, 1, 8)),
             ((2, 33, 2, 2, 2), (1, 33, 1, 1, 1))]
    for sa, sb in pairs:
        for la in ("contiguous", "channels_last"):
            for lb in ("contiguous", "channels_last"):
                if la == lb == "contiguous":
                    continue
                a, b = layout(qt(sa), la), layout(qt(sb), lb)
                for op, fn in [("add", torch.ops.quantized.add), ("addRelu", torch.ops.quantized.add_relu),
                               ("mul", torch.ops.quantized.mul)]:
                    scale = float(np.float32(a.q_scale() + b.q_scale() if op != "mul" else a.q_scale() * b.q_scale() * 4))
                    add(f"{op} {list(sa)} {la} with {list(sb)} {lb}", op, [(a, la), (b, lb)], fn(a, b, scale, 100),
                        scale=scale, zeroPoint=100)
    for shape in [(2, 40, 3, 3), (2, 3, 4, 5, 6)]:
        x = layout(qt(shape), "channels_last")
        add(f"relu {list(shape)} channels_last", "relu", [(x, "channels_last")], F.relu(x))
        add(f"hardtanh {list(shape)} channels_last", "hardtanh", [(x, "channels_last")], F.hardtanh(x, -0.7, 2.5),
            min=-0.7, max=2.5)
        for c in (0.5, -40.0, -0.5, 0.0):
            add(f"addScalar {c} {list(shape)} channels_last", "addScalar", [(x, "channels_last")],
                torch.ops.quantized.add_scalar(x, c), c=c)
            add(f"mulScalar {c} {list(shape)} channels_last", "mulScalar", [(x, "channels_last")],
                torch.ops.quantized.mul_scalar(x, c), c=c)
    x = layout(qt((2, 6, 70)), "conv1d")
    add("relu [2, 6, 70] conv1d", "relu", [(x, "conv1d")], F.relu(x))
    # cat: the channels-last kernel for channels-last 4-D inputs along dim 1; the generic one otherwise.
    for shapes, lays, dim in [([(2, 40, 3, 3), (2, 9, 3, 3)], ("channels_last", "channels_last"), 1),
                              ([(2, 33, 2, 3), (2, 64, 2, 3)], ("channels_last", "channels_last"), 1),
                              ([(2, 40, 3, 3), (2, 9, 3, 3)], ("channels_last", "contiguous"), 1),
                              ([(2, 8, 3, 3), (2, 8, 5, 3)], ("channels_last", "channels_last"), 2),
                              ([(2, 8, 2, 3, 3), (2, 9, 2, 3, 3)], ("channels_last", "channels_last"), 1)]:
        xs = [layout(qt(sh), lay) for sh, lay in zip(shapes, lays)]
        for scale, zp in [(xs[0].q_scale(), xs[0].q_zero_point()), (float(np.float32(rng.uniform(0.01, 0.3))), 77)]:
            y = torch.ops.quantized.cat(xs, dim=dim, scale=scale, zero_point=zp)
            add(f"cat {[list(sh) for sh in shapes]} {'/'.join(lays)} dim {dim} scale {scale:.6g}", "cat",
                list(zip(xs, lays)), y, dim=dim, scale=scale, zeroPoint=zp)
    # Reshapes: PyTorch's view strides where the view exists, a contiguous copy's otherwise.
    for shape, lay, new in [((2, 16, 1, 1, 1), "channels_last", [2, 16]), ((2, 3, 4, 5), "channels_last", [2, 60]),
                            ((2, 3, 4, 5), "channels_last", [2, 3, 20]), ((1, 3, 1, 5), "channels_last", [3, 5])]:
        x = layout(qt(shape), lay)
        add(f"reshape {list(shape)} {lay} to {new}", "reshape", [(x, lay)], x.reshape(new), shape=new)
    # Large operands of one shape (qwasm reads these from a table of all byte
    # pairs, then redoes each row's scalar tail): the integers come from a
    # seeded generator both sides run (lcg_bytes), so only the output is stored.
    # Scales are tie-prone (the output's is the sum or product of the inputs';
    # for these qparams a tenth of all byte pairs add differently in the vector
    # and scalar arithmetic), and the tails long, so that the split shows.
    for shape, la, lb, op in [((1, 5, 163, 167), "contiguous", "contiguous", "add"),
                              ((1, 5, 163, 167), "channels_last", "channels_last", "add"),
                              ((1, 3, 10, 70, 67), "channels_last", "channels_last", "addRelu"),
                              ((1, 5, 163, 167), "contiguous", "contiguous", "mul"),
                              ((1, 4, 181, 183), "channels_last", "contiguous", "mul"),
                              ((2, 67, 33, 31), "contiguous", "channels_last", "add")]:
        seeds = [len(cases) * 2 + 1, len(cases) * 2 + 2]
        a, b = (layout(torch._make_per_tensor_quantized_tensor(
            torch.from_numpy(lcg_bytes(seed, int(np.prod(shape))).reshape(shape)), scale, zp), lay)
            for seed, lay, scale, zp in [(seeds[0], la, float(np.float32(2 / 255)), 236),
                                         (seeds[1], lb, float(np.float32(2 / 255)), 41)])
        fn = {"add": torch.ops.quantized.add, "addRelu": torch.ops.quantized.add_relu, "mul": torch.ops.quantized.mul}[op]
        scale = float(np.float32(a.q_scale() + b.q_scale()) if op != "mul" else np.float32(a.q_scale() * b.q_scale() * 4))
        inputs = []
        for q, lay, seed in [(a, la, seeds[0]), (b, lb, seeds[1])]:
            e = enc(q, lay)
            e["ints"] = {"lcg": seed, "count": int(np.prod(shape))}
            inputs.append(e)
        cases.append({"name": f"{op} {list(shape)} {la} with {lb} (large)", "op": op, "inputs": inputs,
                      "args": {"scale": scale, "zeroPoint": 100}, "y": enc(fn(a, b, scale, 100))})
    return cases


def lcg_bytes(seed, count):
    """count bytes from the LCG x = (1103515245 x + 12345) mod 2^31, byte = x >> 16
    (tests/js/util.mjs lcgBytes is the same generator)."""
    out = np.empty(count, np.uint8)
    x = seed
    for i in range(count):
        x = (1103515245 * x + 12345) & 0x7FFFFFFF
        out[i] = (x >> 16) & 0xFF
    return out
