"""video_resnets.json / video_resnets_x86.json: reduced-width torchvision video ResNets, exported."""
import torch

from .common import SEED, add_to_path, arr, int_repr_bytes, output_path


def video_resnet_cases(engine="fbgemm"):
    """torchvision's r3d_18, mc3_18 and r2plus1d_18 at an eighth of their widths
    (tests/models/video_resnets.py: QuantStub / DeQuantStub, FloatFunctional
    residual adds, Conv + BN + ReLU fused), calibrated on two clips and
    converted with get_default_qconfig(engine) under that engine, exported with
    python/qwasm_export.py to tests/golden/exported/<arch>[_x86].qwasm.safetensors
    (with torchvision's Kinetics-400 preprocessing and class names),
    then run on clips of batch 1 and 2, 8 and 16 frames, 112x112. Clips come
    from the LCG both sides run (values (byte - 128) / 64); each case keeps
    the logits' integers (the fc's quantized output) and the dequantized
    floats."""
    add_to_path("..", "models")
    add_to_path("..", "..", "python")
    from qwasm_export import export
    from qwasm_video import kinetics400
    from video_resnets import ARCHS, lcg_clip, quantized_model
    torch.set_num_threads(1)
    cases = []
    for a, arch in enumerate(ARCHS):
        calibration = [lcg_clip(100 + 10 * a + k, (1, 3, 16, 112, 112)) for k in range(2)]
        m = quantized_model(arch, width_div=8, num_classes=400, seed=SEED % 1000 + a, calibration=calibration,
                            engine=engine)
        fname = f"exported/{arch}{'' if engine == 'fbgemm' else '_' + engine}.qwasm.safetensors"
        export(m, calibration[0], output_path(fname), **kinetics400(arch))
        logits = {}
        m.fc.register_forward_hook(lambda mod, inp, out: logits.__setitem__("q", out))
        for batch in (1, 2):
            for frames in (8, 16):
                seed = 1000 + 100 * a + 10 * batch + frames
                shape = (batch, 3, frames, 112, 112)
                with torch.no_grad():
                    y = m(lcg_clip(seed, shape))
                q = logits["q"]
                cases.append({"name": f"{arch} batch {batch} frames {frames}", "arch": arch, "file": fname,
                              "input": {"lcg": seed, "shape": list(shape)}, "y": arr(y.numpy()),
                              "logits": {"ints": int_repr_bytes(q), "shape": list(q.shape), "scale": q.q_scale(),
                                         "zero_point": q.q_zero_point()}})
    return cases
