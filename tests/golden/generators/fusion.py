"""fusion.json: fuse_modules folding BatchNorm into Conv and Linear."""

import torch

from .common import SEED, arr


def fusion_cases():
    """fuse_modules on Conv1d/2d/3d + BatchNorm (+ ReLU) and Linear + BatchNorm1d
    in eval mode: the folded weights and biases, which qwasm must equal bit for bit.
    Each module's default initialisation (torch's global generator) is seeded
    from gen, as conv3d.py does, so the file is the same on every run."""
    from torch.ao.quantization import fuse_modules
    gen = torch.Generator().manual_seed(SEED + 8)
    cases = []

    def bn_like(bn, n, affine):
        with torch.no_grad():
            bn.running_mean.copy_(torch.randn(n, generator=gen) * 2)
            bn.running_var.copy_(torch.rand(n, generator=gen) * 10.0 ** float(torch.randint(-4, 3, (1,), generator=gen)) + 1e-6)
            if affine:
                bn.weight.copy_(torch.randn(n, generator=gen))
                bn.bias.copy_(torch.randn(n, generator=gen))

    variants = [(dims, out, bias, affine, eps, relu)
                for dims in (1, 2, 3)
                for out, bias, affine, eps, relu in [(4, True, True, 1e-5, False), (17, False, True, 1e-3, True),
                                                     (16, True, False, 0.1, False), (5, False, False, 1e-12, True),
                                                     (3, True, True, 2 ** -24 + 1e-15, True)]]
    def seed_default_init():
        torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))

    for dims, out, bias, affine, eps, relu in variants:
        seed_default_init()
        conv_cls = {1: torch.nn.Conv1d, 2: torch.nn.Conv2d, 3: torch.nn.Conv3d}[dims]
        bn_cls = {1: torch.nn.BatchNorm1d, 2: torch.nn.BatchNorm2d, 3: torch.nn.BatchNorm3d}[dims]
        layers = [conv_cls(3, out, 3, bias=bias, padding=1), bn_cls(out, eps=eps, affine=affine)]
        if relu:
            layers.append(torch.nn.ReLU())
        m = torch.nn.Sequential(*layers).eval()
        bn_like(m[1], out, affine)
        w = m[0].weight.detach().numpy().copy()
        b = None if m[0].bias is None else m[0].bias.detach().numpy().copy()
        fused = fuse_modules(m, [[str(i) for i in range(len(layers))]])
        conv = fused[0][0] if relu else fused[0]
        cases.append({"name": f"Conv{dims}d out {out} bias={bias} affine={affine} eps={eps:g} relu={relu}",
                      "kind": f"conv{dims}d", "relu": relu, "in": 3, "out": out, "kernel": 3, "padding": 1, "eps": eps,
                      "affine": affine, "weight": arr(w), "bias": None if b is None else arr(b),
                      "running_mean": arr(m[1].running_mean.numpy()), "running_var": arr(m[1].running_var.numpy()),
                      "bn_weight": arr(m[1].weight.detach().numpy()) if affine else None,
                      "bn_bias": arr(m[1].bias.detach().numpy()) if affine else None,
                      "fused_weight": arr(conv.weight.detach().numpy()), "fused_bias": arr(conv.bias.detach().numpy())})
    for out, feats, bias in [(6, 6, True), (7, 7, False), (5, 1, True)]:
        seed_default_init()
        m = torch.nn.Sequential(torch.nn.Linear(9, out, bias=bias), torch.nn.BatchNorm1d(feats)).eval()
        bn_like(m[1], feats, True)
        w = m[0].weight.detach().numpy().copy()
        b = None if m[0].bias is None else m[0].bias.detach().numpy().copy()
        fused = fuse_modules(m, [["0", "1"]])
        cases.append({"name": f"Linear out {out} + BatchNorm1d({feats}) bias={bias}", "kind": "linear", "relu": False,
                      "in": 9, "out": out, "bn_features": feats, "eps": 1e-5, "affine": True,
                      "weight": arr(w), "bias": None if b is None else arr(b),
                      "running_mean": arr(m[1].running_mean.numpy()), "running_var": arr(m[1].running_var.numpy()),
                      "bn_weight": arr(m[1].weight.detach().numpy()), "bn_bias": arr(m[1].bias.detach().numpy()),
                      "fused_weight": arr(fused[0].weight.detach().numpy()), "fused_bias": arr(fused[0].bias.detach().numpy())})
    return cases
