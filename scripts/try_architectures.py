"""Tries 3D CNNs beyond the test zoo as a new user would: built from their libraries' code
(MONAI, pytorchvideo) with seeded random weights, quantized by the README's PT2E recipe
(QwasmQuantizer), exported. Per model it writes <out>/<name>.qwasm.safetensors, the input and
PyTorch's output (<name>_x.npy, <name>_y.npy), each quantized layer's input and output as PyTorch
computed them (<name>_layers.json, as the PT2E goldens record them), and, in <out>/pytorch.json, how far PyTorch's own
int8 graph moves when the input moves by 1e-4 (N(0, 1e-4) noise): the yardstick for how
sensitive a random-weight network is. scripts/try-architectures.mjs then runs the files in qwasm.

    python3 scripts/try_architectures.py /tmp/tried [name ...]
    node scripts/try-architectures.mjs /tmp/tried

Generator-side only (torch, monai, pytorchvideo): nothing in npm test runs it.
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "python"), os.path.join(HERE, "..", "tests", "models"),
                os.path.join(HERE, "..", "tests", "golden")]
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e  # noqa: E402

from qwasm_export import export  # noqa: E402
from qwasm_quantizer import QwasmQuantizer  # noqa: E402
from generators.pt2e import _layers  # noqa: E402  (the goldens' per-layer record)
from zoo3d_models import norm_statistics, smooth_volume  # noqa: E402

VOLUME, BIG_VOLUME, CLIP = (1, 1, 32, 32, 32), (1, 1, 64, 64, 64), (1, 3, 4, 64, 64)


def architectures():
    """(name, task, build, input shape). Classifiers with global pools take 64^3 volumes, so that
    their BatchNorm statistics see more than one value per channel."""
    from monai.networks import nets as mn
    from pytorchvideo.models import r2plus1d, resnet, x3d
    return [
        ("monai_vnet", "segmentation", lambda: mn.VNet(spatial_dims=3, in_channels=1, out_channels=2), VOLUME),
        ("monai_attention_unet", "segmentation",
         lambda: mn.AttentionUnet(3, 1, 3, channels=(8, 16, 32), strides=(2, 2)), VOLUME),
        ("monai_segresnet_ds", "segmentation",
         lambda: mn.SegResNetDS(spatial_dims=3, init_filters=8, in_channels=1, out_channels=2), VOLUME),
        ("monai_unet_residual_units", "segmentation",
         lambda: mn.UNet(3, 1, 2, channels=(8, 16, 32), strides=(2, 2), num_res_units=2, norm="batch"), VOLUME),
        ("monai_resnet10", "classification",
         lambda: mn.resnet10(spatial_dims=3, n_input_channels=1, num_classes=4), BIG_VOLUME),
        ("monai_densenet121", "classification",
         lambda: mn.DenseNet121(spatial_dims=3, in_channels=1, out_channels=4), BIG_VOLUME),
        ("monai_efficientnet_b0", "classification",
         lambda: mn.EfficientNetBN("efficientnet-b0", pretrained=False, spatial_dims=3, in_channels=1,
                                   num_classes=4), BIG_VOLUME),
        ("monai_senet154", "classification",
         lambda: mn.SENet154(spatial_dims=3, in_channels=1, num_classes=4), BIG_VOLUME),
        ("pytorchvideo_x3d_s", "classification",
         lambda: x3d.create_x3d(input_clip_length=4, input_crop_size=64, model_num_class=10, depth_factor=2.2,
                                width_factor=2.0), CLIP),
        ("pytorchvideo_slow_r50", "classification",
         lambda: resnet.create_resnet(input_channel=3, model_depth=50, model_num_class=10,
                                      head_pool_kernel_size=(4, 2, 2)), CLIP),
        ("pytorchvideo_r2plus1d_r50", "classification",
         lambda: r2plus1d.create_r2plus1d(input_channel=3, model_num_class=10, head_pool_kernel_size=(1, 2, 2)),
         (1, 3, 8, 64, 64)),
    ]


def sample(task, shape, seed):
    if task == "segmentation":
        return smooth_volume(seed, shape)
    return torch.from_numpy(np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32))


def main(out, names):
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    report = {}
    for k, (name, task, build, shape) in enumerate(architectures()):
        if names and name not in names:
            continue
        try:
            torch.manual_seed(700 + k)
            x, calibration = sample(task, shape, 11 + k), [sample(task, shape, 11 + k), sample(task, shape, 51 + k)]
            net = norm_statistics(build(), calibration)
            m = prepare_pt2e(torch.export.export(net, (x,)).module(), QwasmQuantizer())
            for c in calibration:
                m(c)
            m = convert_pt2e(m)
            export(m, x, os.path.join(out, f"{name}.qwasm.safetensors"))
            with torch.no_grad():
                y = m(x)
                noisy = m(x + 1e-4 * torch.randn(x.shape, generator=torch.Generator().manual_seed(1)))
            np.save(os.path.join(out, f"{name}_x.npy"), x.numpy())
            np.save(os.path.join(out, f"{name}_y.npy"), y.numpy())
            with open(os.path.join(out, f"{name}_layers.json"), "w") as f:
                json.dump(_layers(m, x), f)
            report[name] = {"task": task, "shape": list(shape),
                            "noise_max_abs": float((y - noisy).abs().max()),
                            "noise_argmax_equal": float((y.argmax(1) == noisy.argmax(1)).float().mean())}
            print(f"exported {name}: output {list(y.shape)}", flush=True)
        except Exception as e:  # noqa: BLE001 - a refusal is a result here
            report[name] = {"task": task, "error": f"{type(e).__name__}: {str(e)[:300]}"}
            print(f"refused {name}: {report[name]['error']}", flush=True)
    with open(os.path.join(out, "pytorch.json"), "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
