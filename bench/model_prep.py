#!/usr/bin/env python3
"""Prepares bench/model.bench.mjs's inputs (needs torch, torchvision,
safetensors, onnx, onnxruntime; writes bench/output/models/, not committed):
for torchvision's r3d_18, mc3_18 and r2plus1d_18 (random init, fixed seed):

- <arch>.qwasm.safetensors: quantized by PyTorch's eager flow
  (python/qwasm_video.py, get_default_qconfig('fbgemm')) on the calibration
  clips, exported by python/qwasm_export.py;
- <arch>.float.onnx: the same float model, torch.onnx.export (opset 17);
- <arch>.int8.onnx: that ONNX model quantized by onnxruntime's own static
  quantization (QDQ, per-channel qint8 weights, quint8 activations) on the
  same calibration clips;
- clips.bin (float32 benchmark clips) and <arch>.json (PyTorch's float and
  int8 logits on them, and the float checkpoint's size);
- r3d_18.float.qwasm.safetensors: the float twin of r3d_18's int8 file (the
  same fused model before prepare, exported by python/qwasm_export.py, as
  tests/golden/generators/numeric_suite.py exports its float twins), for
  quantization.ns and the demo's Model view (bench/main-thread.bench.mjs).

`python3 bench/model_prep.py --float-twins` writes only the float twins (the
same files a full run writes), and checks that the int8 weights the same
float model converts to equal those of the <arch>.qwasm.safetensors already
there, so that the two files pair.

Clips are the tests' LCG clips ((byte - 128) / 64), 1x3x16x112x112.
"""
import copy
import json
import os
import sys
import time
import warnings

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "output", "models")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
warnings.filterwarnings("ignore")

ARCHS = ("r3d_18", "mc3_18", "r2plus1d_18")
SHAPE = (1, 3, 16, 112, 112)
CALIBRATION_SEEDS = (500, 501, 502, 503)
BENCH_SEEDS = (600, 601, 602, 603, 604, 605, 606, 607)
# The archs whose float twin is exported too (r3d_18's full-size float file is 133 MB).
FLOAT_TWINS = ("r3d_18",)


def float_net(a, arch):
    """torchvision's <arch> with random weights (seed a) and its fused, quantizable twin (same weights)."""
    from torchvision.models.video import resnet as tv

    from qwasm_video import quantizable_video_resnet
    torch.manual_seed(a)
    net = getattr(tv, arch)().eval()
    return net, quantizable_video_resnet(net)


def quantized(fused, calibration):
    """fused through PyTorch's eager flow (fbgemm qconfig, prepare, calibration, convert); fused is unchanged."""
    from video_resnets import eager_quantize
    return eager_quantize(copy.deepcopy(fused), calibration)


def export_float_twin(arch, fused, example):
    from qwasm_export import export
    export(fused, example, os.path.join(OUT, f"{arch}.float.qwasm.safetensors"))


def float_twins_only(calibration):
    """Exports FLOAT_TWINS' float twins alone, after checking that they convert to the int8 files already there."""
    from safetensors.torch import load_file
    from video_resnets import differing_weight
    for a, arch in enumerate(ARCHS):
        if arch not in FLOAT_TWINS:
            continue
        t0 = time.time()
        _, fused = float_net(a, arch)
        committed = load_file(os.path.join(OUT, f"{arch}.qwasm.safetensors"))
        checked, differing = differing_weight(quantized(fused, calibration), committed)
        if differing is not None:
            raise SystemExit(f"model_prep: {arch} {differing} differs from {arch}.qwasm.safetensors: rerun the "
                             "whole prep (python3 bench/model_prep.py)")
        export_float_twin(arch, fused, calibration[0])
        print(f"{arch}: float twin exported in {time.time() - t0:.0f} s ({checked} int8 weights checked equal)")


def main():
    from video_resnets import lcg_clip

    torch.backends.quantized.engine = "fbgemm"
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    calibration = [lcg_clip(s, SHAPE) for s in CALIBRATION_SEEDS]
    if "--float-twins" in sys.argv[1:]:
        float_twins_only(calibration)
        return
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from qwasm_export import export
    clips = [lcg_clip(s, SHAPE) for s in BENCH_SEEDS]
    np.concatenate([c.numpy().reshape(-1) for c in clips]).astype("<f4").tofile(os.path.join(OUT, "clips.bin"))

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter([{"x": c.numpy()} for c in calibration])

        def get_next(self):
            return next(self.it, None)

    for a, arch in enumerate(ARCHS):
        t0 = time.time()
        net, fused = float_net(a, arch)
        checkpoint = os.path.join(OUT, f"{arch}.pt")
        torch.save(net.state_dict(), checkpoint)
        with torch.no_grad():
            float_logits = [net(c).numpy().reshape(-1).tolist() for c in clips]
        fpath = os.path.join(OUT, f"{arch}.float.onnx")
        torch.onnx.export(net, (calibration[0],), fpath, dynamo=False, opset_version=17, input_names=["x"],
                          output_names=["y"])
        prepped = os.path.join(OUT, f"{arch}.prep.onnx")
        quant_pre_process(fpath, prepped)
        quantize_static(prepped, os.path.join(OUT, f"{arch}.int8.onnx"), Reader(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
        os.remove(prepped)
        if arch in FLOAT_TWINS:
            export_float_twin(arch, fused, calibration[0])
        model = quantized(fused, calibration)
        qpath = os.path.join(OUT, f"{arch}.qwasm.safetensors")
        export(model, calibration[0], qpath)
        with torch.no_grad():
            int8_logits = [model(c).numpy().reshape(-1).tolist() for c in clips]
        meta = {"arch": arch, "shape": list(SHAPE), "clips": len(clips), "float_logits": float_logits,
                "int8_logits": int8_logits, "checkpoint_bytes": os.path.getsize(checkpoint),
                "qwasm_bytes": os.path.getsize(qpath), "float_onnx_bytes": os.path.getsize(fpath),
                "int8_onnx_bytes": os.path.getsize(os.path.join(OUT, f"{arch}.int8.onnx")),
                "torch": torch.__version__}
        with open(os.path.join(OUT, f"{arch}.json"), "w") as f:
            json.dump(meta, f)
        os.remove(checkpoint)
        print(f"{arch}: prepared in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
