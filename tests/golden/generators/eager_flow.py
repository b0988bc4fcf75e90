"""eager_flow.json / eager_flow_x86.json: prepare, calibrate, convert on single fused modules."""

import numpy as np
import torch

from .common import SEED, arr, conv_backend


def eager_flow_cases():
    """PyTorch's eager post-training flow end to end: QuantStub -> float module
    -> DeQuantStub, prepare with MinMaxObserver activations and the default
    per-channel weight observer, calibrate, convert, run. qwasm repeats it with
    its own observers and fromFloat and must produce the same integers. The
    float outputs seen in calibration are recorded: float convolutions sum in a
    different order, so qwasm's observer is fed PyTorch's float outputs."""
    import torch.ao.quantization as tq
    from torch.ao.quantization import observer as obs
    gen = torch.Generator().manual_seed(SEED + 3)
    cases = []

    def run(name, kind, make, x_shape):
        torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        fmod = make()
        model = torch.nn.Sequential(tq.QuantStub(), fmod, tq.DeQuantStub()).eval()
        model.qconfig = tq.QConfig(activation=obs.MinMaxObserver.with_args(dtype=torch.quint8),
                                   weight=obs.default_per_channel_weight_observer)
        prepared = tq.prepare(model)
        calib = torch.randn(x_shape, generator=gen) * 1.5 + 0.2
        with torch.no_grad():
            prepared(calib)
            calib_out = fmod(calib)  # the float outputs the activation observer saw
            fused = fmod  # the same float module object, before convert
            w = fused[0].weight.detach().clone() if hasattr(fused, "__getitem__") else fused.weight.detach().clone()
            b = (fused[0] if hasattr(fused, "__getitem__") else fused).bias.detach().clone()
        converted = tq.convert(prepared)
        qstub, qmod = converted[0], converted[1]
        x = torch.randn(x_shape, generator=gen) * 1.5 + 0.2
        qx = torch.quantize_per_tensor(x, float(qstub.scale), int(qstub.zero_point), torch.quint8)
        qy = qmod(qx)
        conv = fmod[0] if hasattr(fmod, "__getitem__") else fmod
        geometry = {}
        if kind != "LinearReLU":
            geometry = {"kernel": list(conv.kernel_size), "stride": list(conv.stride),
                        "padding": conv.padding if isinstance(conv.padding, str) else list(conv.padding),
                        "dilation": list(conv.dilation), "groups": conv.groups}
        cases.append({
            "name": name, "kind": kind, "in_channels": conv.in_features if kind == "LinearReLU" else conv.in_channels,
            "out_channels": conv.out_features if kind == "LinearReLU" else conv.out_channels, **geometry,
            "w": arr(w.numpy()), "bias": arr(b.numpy()), "calibration": arr(calib.numpy()),
            "calibration_output": arr(calib_out.numpy()), "x": arr(x.numpy()),
            "in_scale": float(qstub.scale), "in_zero_point": int(qstub.zero_point),
            "out_scale": float(qmod.scale), "out_zero_point": int(qmod.zero_point),
            "w_int": arr(qmod.weight().int_repr().numpy()),
            "w_scales": arr(qmod.weight().q_per_channel_scales().numpy().astype(np.float64)),
            "y_int": arr(qy.int_repr().numpy()),
            "backend": "fbgemm" if kind == "LinearReLU" else conv_backend(qmod, int(kind[-2])),
        })

    import torch.ao.nn.intrinsic as nni
    run("ConvReLU3d 4->10 k3 pad1 from_float", "ConvReLU3d",
        lambda: nni.ConvReLU3d(torch.nn.Conv3d(4, 10, 3, padding=1), torch.nn.ReLU()), (2, 4, 5, 6, 7))
    run("ConvReLU3d depthwise 6 stride2 from_float", "ConvReLU3d",
        lambda: nni.ConvReLU3d(torch.nn.Conv3d(6, 6, 3, stride=2, padding=1, groups=6), torch.nn.ReLU()), (1, 6, 7, 8, 9))
    run("ConvReLU2d 3->8 k(3,5) pad(1,2) from_float", "ConvReLU2d",
        lambda: nni.ConvReLU2d(torch.nn.Conv2d(3, 8, (3, 5), padding=(1, 2)), torch.nn.ReLU()), (2, 3, 9, 11))
    run("ConvReLU2d groups2 stride2 dilation2 from_float", "ConvReLU2d",
        lambda: nni.ConvReLU2d(torch.nn.Conv2d(4, 6, 3, stride=2, dilation=2, padding=2, groups=2), torch.nn.ReLU()), (1, 4, 13, 12))
    run("ConvReLU1d 5->7 k5 pad2 from_float", "ConvReLU1d",
        lambda: nni.ConvReLU1d(torch.nn.Conv1d(5, 7, 5, padding=2), torch.nn.ReLU()), (3, 5, 17))
    run("ConvReLU1d dilation3 k4 pad5 from_float", "ConvReLU1d",
        lambda: nni.ConvReLU1d(torch.nn.Conv1d(2, 9, 4, padding=5, dilation=3), torch.nn.ReLU()), (2, 2, 19))
    run("LinearReLU 24->13 from_float", "LinearReLU",
        lambda: nni.LinearReLU(torch.nn.Linear(24, 13), torch.nn.ReLU()), (5, 24))
    run("LinearReLU 7->33 batch dims from_float", "LinearReLU",
        lambda: nni.LinearReLU(torch.nn.Linear(7, 33), torch.nn.ReLU()), (2, 3, 7))
    return cases
