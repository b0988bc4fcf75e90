# Prints the expected values of tests/native/norm_float_test.cpp and
# interpolate_float_test.cpp: FNV-1a hashes of torch 2.15 outputs (one thread, CPU)
# on inputs both sides compute in float32. Run: python3 tests/native/expected_from_torch.py
import numpy as np, torch
torch.set_num_threads(1)
def inputs(n, salt):
    i = np.arange(n, dtype=np.int64)
    return (((i * 7919 + salt) % 1000) - 500).astype(np.float32) / np.float32(37)
def fnv(a):
    h = 0xcbf29ce484222325
    for u in a.astype(np.float32).reshape(-1).view(np.uint32).tolist():
        h ^= u; h = (h * 0x100000001b3) & 0xffffffffffffffff
    return h
def params(c, salt):
    w = (inputs(c, salt) / np.float32(5)).astype(np.float32); b = (inputs(c, salt + 3) / np.float32(7)).astype(np.float32)
    return w, b
cases = []
# GroupNorm [2, 6, 5, 7] in 3 groups (row of 70: 8 vectors + tail 6), affine and not
x = inputs(2*6*35, 1).reshape(2, 6, 5, 7)
w, b = params(6, 11)
y = torch.nn.functional.group_norm(torch.from_numpy(x), 3, torch.from_numpy(w), torch.from_numpy(b), 1e-5).numpy()
print('group_affine', hex(fnv(y)), y.flatten()[:3].tolist())
y = torch.nn.functional.group_norm(torch.from_numpy(x), 3, None, None, 1e-5).numpy()
print('group_plain', hex(fnv(y)))
# GroupNorm with a long row: [1, 4, 1000] in 2 groups (2000 per row: 250 vectors, 16 chunks, cascade of depth 4)
x = inputs(4000, 5).reshape(1, 4, 1000)
w, b = params(4, 2)
y = torch.nn.functional.group_norm(torch.from_numpy(x), 2, torch.from_numpy(w), torch.from_numpy(b), 1e-3).numpy()
print('group_long', hex(fnv(y)))
# LayerNorm [3, 517] (65 vectors = 5 chunks, tail 5)
x = inputs(3*517, 9).reshape(3, 517)
w, b = params(517, 4)
y = torch.nn.functional.layer_norm(torch.from_numpy(x), [517], torch.from_numpy(w), torch.from_numpy(b), 1e-5).numpy()
print('layer_affine', hex(fnv(y)))
y = torch.nn.functional.layer_norm(torch.from_numpy(x), [517], None, None, 1e-5).numpy()
print('layer_plain', hex(fnv(y)))
# InstanceNorm [2, 3, 9, 11] batch stats, affine
x = inputs(2*3*99, 13).reshape(2, 3, 9, 11)
w, b = params(3, 6)
y = torch.nn.functional.instance_norm(torch.from_numpy(x), None, None, torch.from_numpy(w), torch.from_numpy(b), True, 0.1, 1e-5).numpy()
print('instance_affine', hex(fnv(y)))
rm = (inputs(3, 20) / np.float32(10)).astype(np.float32); rv = np.abs(inputs(3, 21)).astype(np.float32) + np.float32(0.5)
y = torch.nn.functional.instance_norm(torch.from_numpy(x), torch.from_numpy(rm.copy()), torch.from_numpy(rv.copy()), torch.from_numpy(w), torch.from_numpy(b), False, 0.1, 1e-5).numpy()
print('instance_running', hex(fnv(y)))
# corners: a row with inf, one with NaN, a constant row, huge values
x = np.array([1, 2, np.inf, 4, 5, 6, 7, 8, 9, 10,   1, 2, 3, np.nan, 5, 6, 7, 8, 9, 10,   3, 3, 3, 3, 3, 3, 3, 3, 3, 3,   3e38, -3e38, 3e38, -3e38, 1e38, 2e38, -1e38, 0, 0, 3e38], dtype=np.float32).reshape(1, 4, 10)
y = torch.nn.functional.group_norm(torch.from_numpy(x), 4, None, None, 1e-5).numpy()
print('group_corners', y.flatten().tolist())
y = torch.nn.functional.layer_norm(torch.from_numpy(x), [10], None, None, 1e-5).numpy()
print('layer_corners', y.flatten().tolist())
y = torch.nn.functional.instance_norm(torch.from_numpy(x), None, None, None, None, True, 0.1, 1e-5).numpy()
print('instance_corners', y.flatten().tolist())

# -- interpolation (C <= 3: the generic kernel) --
F = torch.nn.functional
def run(shape, mode, size=None, scale=None, ac=None, salt=3):
    x = torch.from_numpy(inputs(int(np.prod(shape)), salt).reshape(shape))
    y = F.interpolate(x, size=size, scale_factor=scale, mode=mode, align_corners=ac)
    print(shape, mode, size, scale, ac, hex(fnv(y.numpy())), y.shape)
run([1,2,3,4,5], 'trilinear', size=(6,8,9), ac=False)
run([2,3,4,4,4], 'trilinear', scale=2.0, ac=False)
run([1,3,5,7], 'bilinear', size=(9,4), ac=True)
run([2,2,10], 'linear', size=25, ac=False)

# -- one element per group (aten.group_norm; F.group_norm refuses it), groups == channels --
x = torch.tensor([5.0, -2.5, float('inf')]).reshape(1, 3, 1)
y = torch.ops.aten.group_norm(x, 3, torch.tensor([2., 3., 4.]), torch.tensor([0.5, -1., 0.]), 1e-5)
print('one_per_group', [v.hex() for v in y.flatten().tolist()])
c = torch.full((1, 2, 20), 1.25); c[0, 1] = torch.arange(20, 40, dtype=torch.float32)
for eps in (1e-5, 0.0):
    y = torch.ops.aten.group_norm(c, 2, None, None, eps).flatten().tolist()
    print('groups_eq_channels eps', eps, [v.hex() for v in y[:2] + y[19:22]])
