"""qops.json: the quantized element-wise ops and cat."""

import numpy as np
import torch

from .common import SEED, int_repr_bytes


def qops_cases():
    """The quantized element-wise ops on quint8 per-tensor tensors: add,
    add_relu, mul, mul_relu (with broadcasting), add_scalar, mul_scalar, cat
    (generic and channels-last paths), relu, relu6, hardtanh, clamp. Sizes
    cover the 64-element vector steps and their scalar tails; scales are
    tie-prone (sums and multiples of the inputs')."""
    torch.set_num_threads(1)  # the vector/scalar split of these loops depends on it
    rng = np.random.default_rng(SEED + 9)
    cases = []

    def qt(shape, scale=None, zp=None):
        scale = float(np.float32(scale if scale is not None else rng.choice([0.1, 0.05, 1 / 3, 2 / 255, 0.02, 0.0078125, 0.37])))
        zp = int(zp if zp is not None else rng.integers(0, 256))
        ints = rng.integers(0, 256, size=shape, dtype=np.uint8)
        return torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints.copy()), scale, zp)

    def enc(q):
        return {"ints": int_repr_bytes(q), "shape": list(q.shape), "scale": q.q_scale(), "zero_point": q.q_zero_point()}

    sizes = [(1,), (7,), (63,), (64,), (65,), (130,), (3, 70), (2, 3, 4, 5), (1, 16, 3, 3, 3), (2, 64, 2, 2, 2)]
    broadcasts = [((4, 70), (70,)), ((4, 70), (4, 1)), ((4, 1), (4, 70)), ((2, 8, 3, 3), (1, 8, 1, 1)), ((3, 5, 70), (3, 1, 70))]
    ops = [("add", torch.ops.quantized.add), ("add_relu", torch.ops.quantized.add_relu),
           ("mul", torch.ops.quantized.mul), ("mul_relu", torch.ops.quantized.mul_relu)]
    for name, op in ops:
        for shape in sizes:
            a, b = qt(shape), qt(shape)
            sum_scale = float(np.float32(a.q_scale() + b.q_scale())) if name.startswith("add") else float(np.float32(a.q_scale() * b.q_scale() * 4))
            for scale, zp in [(sum_scale, int(rng.integers(0, 256))), (float(np.float32(rng.uniform(0.01, 0.5))), 128)]:
                y = op(a, b, scale, zp)
                cases.append({"name": f"{name} {list(shape)} scale {scale:.6g} zp {zp}", "op": name, "a": enc(a), "b": enc(b),
                              "scale": scale, "zero_point": zp, "y": enc(y)})
        for sa, sb in broadcasts:
            a, b = qt(sa), qt(sb)
            scale = float(np.float32(a.q_scale() + b.q_scale()))
            y = op(a, b, scale, 64)
            cases.append({"name": f"{name} broadcast {list(sa)} with {list(sb)}", "op": name, "a": enc(a), "b": enc(b),
                          "scale": scale, "zero_point": 64, "y": enc(y)})
    # Broadcasts of 2^14 elements or more: squeeze-excitation's x * s (a value per channel; rows of 720, vector
    # steps and a 16-element tail), where qwasm reads the arithmetic from a table, and an inner-dimension broadcast
    # whose 130 distinct bytes of b would cost more than its elements, computed directly.
    big = np.random.default_rng(SEED + 19)
    for sa, sb in [((1, 24, 4, 10, 18), (1, 24, 1, 1, 1)), ((130, 130), (130, 1))]:
        for name, op in ops:
            ints_a, ints_b = big.integers(0, 256, size=sa, dtype=np.uint8), big.integers(0, 256, size=sb, dtype=np.uint8)
            a = torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints_a), 0.05, int(big.integers(0, 256)))
            b = torch._make_per_tensor_quantized_tensor(torch.from_numpy(ints_b), 1 / 3, int(big.integers(0, 256)))
            scale = float(np.float32(0.05 + 1 / 3)) if name.startswith("add") else float(np.float32(0.05 / 3 * 4))
            y = op(a, b, scale, 64)
            cases.append({"name": f"{name} broadcast {list(sa)} with {list(sb)} (large)", "op": name, "a": enc(a),
                          "b": enc(b), "scale": scale, "zero_point": 64, "y": enc(y)})
    for c in [0.0, 0.5, -0.5, 3.3, -40.0, 100.0, -1000.0, 1e-3]:
        x = qt((3, 70))
        for name, op in [("add_scalar", torch.ops.quantized.add_scalar), ("mul_scalar", torch.ops.quantized.mul_scalar)]:
            y = op(x, c)
            cases.append({"name": f"{name} {c}", "op": name, "a": enc(x), "c": c, "y": enc(y)})
    cat_shapes = [([(2, 3, 4, 5), (2, 1, 4, 5)], 1), ([(2, 40, 1, 1), (2, 9, 1, 1)], 1), ([(2, 40, 1, 1), (2, 9, 1, 1)], -3),
                  ([(3, 1, 4, 4), (3, 1, 4, 4)], 1), ([(4, 70), (4, 6)], 1), ([(5, 3), (2, 3)], 0), ([(2, 33, 1, 1), (2, 64, 1, 1)], 1)]
    for shapes, dim in cat_shapes:
        xs = [qt(sh) for sh in shapes]
        for scale, zp in [(xs[0].q_scale(), xs[0].q_zero_point()), (float(np.float32(rng.uniform(0.01, 0.3))), int(rng.integers(0, 256)))]:
            y = torch.ops.quantized.cat(xs, dim=dim, scale=scale, zero_point=zp)
            cases.append({"name": f"cat {[list(sh) for sh in shapes]} dim {dim} scale {scale:.6g}", "op": "cat",
                          "xs": [enc(x) for x in xs], "dim": dim, "scale": scale, "zero_point": zp, "y": enc(y)})
    for shape in [(3, 70), (2, 16, 3, 3)]:
        x = qt(shape)
        for name, fn in [("relu", lambda q: torch.nn.functional.relu(q)), ("relu6", lambda q: torch.nn.functional.relu6(q)),
                         ("hardtanh", lambda q: torch.nn.functional.hardtanh(q, -0.7, 2.5)),
                         ("clamp", lambda q: torch.clamp(q, -1.3, 0.9))]:
            y = fn(x)
            cases.append({"name": f"{name} {list(shape)}", "op": name, "a": enc(x), "y": enc(y)})
    return cases
