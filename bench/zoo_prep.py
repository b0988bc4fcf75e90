#!/usr/bin/env python3
"""Prepares bench/zoo.bench.mjs's inputs (needs torch, torchvision, torchao, monai, pytorchvideo,
onnx, onnxruntime; writes bench/output/zoo/, not committed): for each model of the zoo
(tests/models/zoo3d_models.py) at its full size (the sizes its library or paper documents; random
weights, fixed seed, BatchNorm statistics from the calibration inputs):

- <name>.qwasm.safetensors: quantized by the README's PT2E recipe (QwasmQuantizer) on two
  calibration inputs, exported by python/qwasm_export.py;
- <name>.float.onnx: the same float model, torch.onnx.export (opset 17);
- <name>.int8.onnx: that ONNX model quantized by onnxruntime's own static quantization (QDQ,
  per-channel qint8 weights, quint8 activations) on the same calibration inputs;
- <name>.input.bin (float32, the benchmark input), <name>.int8.bin and <name>.float.bin (float32,
  PyTorch's outputs on it: the converted PT2E graph's and the float model's, for agreement) and
  <name>.json: the shapes, the task, the sizes.

    python3 bench/zoo_prep.py                # every model
    python3 bench/zoo_prep.py meshnet c3d    # these only

A model whose export fails (an op qwasm or onnxruntime lacks) is reported and skipped.
"""
import json
import os
import sys
import time
import traceback
import warnings

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "output", "zoo")
for part in (("python",), ("tests", "models"), ("tests", "golden")):
    sys.path.insert(0, os.path.join(ROOT, *part))
warnings.filterwarnings("ignore")

SEED = 20261204


def _inputs(entry, k):
    from video_resnets import lcg_clip
    from zoo3d_models import smooth_volume
    shape = entry.full.shape
    if entry.task == "segmentation":
        return [smooth_volume(SEED + 10 * k + i, shape) for i in range(3)]
    return [lcg_clip(SEED % 10000 + 10 * k + i, shape) for i in range(3)]


class _Reader:
    """onnxruntime's CalibrationDataReader over the calibration inputs."""

    def __init__(self, xs):
        self.xs = iter([{"x": x.numpy()} for x in xs])

    def get_next(self):
        return next(self.xs, None)


def _pt2e_static(model, calibration):
    """The README's PT2E recipe on the benchmark's own input shape (torch.export's solver cannot
    take every full-size model with dynamic dimensions: S3D's pools)."""
    from qwasm_quantizer import QwasmQuantizer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    m = prepare_pt2e(torch.export.export(model, (calibration[0],)).module(), QwasmQuantizer())
    with torch.no_grad():
        for x in calibration:
            m(x)
    return convert_pt2e(m)


def prepare(entry, k):
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    from qwasm_export import export
    from zoo3d_models import norm_statistics
    torch.manual_seed(SEED + k)
    *calibration, x = _inputs(entry, k)
    model = norm_statistics(entry.full.build(), calibration)
    base = os.path.join(OUT, entry.name)
    with torch.no_grad():
        float_y = model(x)
    torch.onnx.export(model, (x,), f"{base}.float.onnx", input_names=["x"], output_names=["y"], opset_version=17,
                      dynamo=False)
    quantize_static(f"{base}.float.onnx", f"{base}.int8.onnx", _Reader(calibration), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    m = _pt2e_static(model, calibration)
    export(m, x, f"{base}.qwasm.safetensors")
    with torch.no_grad():
        int8_y = m(x)
    for kind, t in (("input", x), ("int8", int8_y), ("float", float_y)):
        t.numpy().astype(np.float32).tofile(f"{base}.{kind}.bin")
    meta = {"name": entry.name, "about": entry.about, "task": entry.task, "shape": list(x.shape),
            "output_shape": list(int8_y.shape),
            "parameters": sum(p.numel() for p in model.parameters()),
            "bytes": {kind: os.path.getsize(f"{base}.{kind}") for kind in
                      ("qwasm.safetensors", "float.onnx", "int8.onnx")}}
    with open(f"{base}.json", "w") as f:
        json.dump(meta, f)


def main(names):
    from zoo3d_models import ZOO
    os.makedirs(OUT, exist_ok=True)
    torch.set_num_threads(2)
    done = []
    for k, entry in enumerate(ZOO):
        if names and entry.name not in names:
            continue
        t = time.time()
        try:
            prepare(entry, k)
            done.append(entry.name)
            print(f"{entry.name}: ready ({time.time() - t:.0f} s)", flush=True)
        except Exception as e:  # a model qwasm or onnxruntime cannot take yet: the bench lists it as such
            print(f"{entry.name}: skipped, {type(e).__name__}: {str(e).splitlines()[0][:300]}", flush=True)
            if os.environ.get("QWASM_BENCH_TRACE"):
                traceback.print_exc()
    ready = sorted(set(done) | set(_previous(names)))
    with open(os.path.join(OUT, "models.json"), "w") as f:
        json.dump(ready, f)


def _previous(names):
    """Models prepared by an earlier run (kept when this run prepares only some)."""
    path = os.path.join(OUT, "models.json")
    if not names or not os.path.exists(path):
        return []
    with open(path) as f:
        return [n for n in json.load(f) if os.path.exists(os.path.join(OUT, f"{n}.json"))]


if __name__ == "__main__":
    main(sys.argv[1:])
