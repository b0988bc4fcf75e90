#!/usr/bin/env python3
"""Prepares bench/pt2e.bench.mjs's PT2E input (needs torch, torchvision,
torchao, safetensors; writes bench/output/models/, not committed):

- r3d_18.pt2e.qwasm.safetensors: torchvision's r3d_18, the same float model
  as bench/model_prep.py's (random init, torch.manual_seed(0)), quantized by
  torchao's PT2E flow (torch.export, prepare_pt2e with
  python/qwasm_quantizer.py's QwasmQuantizer, calibration on model_prep.py's
  calibration clips, convert_pt2e), exported by python/qwasm_export.py;
- r3d_18.pt2e.json: PyTorch's PT2E logits on model_prep.py's benchmark clips
  (clips.bin), and the file's size.

The eager file it is compared with (r3d_18.qwasm.safetensors, clips.bin,
r3d_18.json) comes from `python3 bench/model_prep.py`, which is slow (three
models and their ONNX forms): run it first if bench/output/models lacks them.
This script only builds the PT2E side; when r3d_18.json is there, it checks
that its float model gives the same logits as model_prep.py's.
"""
import json
import os
import sys
import time
import warnings

import torch

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(os.path.dirname(ROOT), "python"))
sys.path.insert(0, os.path.join(os.path.dirname(ROOT), "tests", "models"))
warnings.filterwarnings("ignore")

from model_prep import BENCH_SEEDS, CALIBRATION_SEEDS, OUT, SHAPE  # noqa: E402

ARCH = "r3d_18"
SEED = 0  # model_prep.py's torch.manual_seed for r3d_18 (its index in ARCHS)


def main():
    import torchao
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchvision.models.video import resnet as tv

    from qwasm_export import export
    from qwasm_quantizer import QwasmQuantizer
    from video_resnets import lcg_clip

    t0 = time.time()
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    calibration = [lcg_clip(s, SHAPE) for s in CALIBRATION_SEEDS]
    clips = [lcg_clip(s, SHAPE) for s in BENCH_SEEDS]

    torch.manual_seed(SEED)
    net = getattr(tv, ARCH)().eval()
    eager_meta = os.path.join(OUT, f"{ARCH}.json")
    if os.path.exists(eager_meta):
        with open(eager_meta) as f:
            want = json.load(f)["float_logits"]
        with torch.no_grad():
            got = [net(c).numpy().reshape(-1).tolist() for c in clips]
        worst = max(abs(a - b) for g, w in zip(got, want) for a, b in zip(g, w))
        if worst > 1e-4:
            sys.exit(f"pt2e_prep: the float {ARCH} differs from model_prep.py's (max |diff| {worst}): "
                     "rerun python3 bench/model_prep.py")

    m = torch.export.export(net, (calibration[0],)).module()
    m = prepare_pt2e(m, QwasmQuantizer())
    with torch.no_grad():
        for c in calibration:
            m(c)
    m = convert_pt2e(m)
    qpath = os.path.join(OUT, f"{ARCH}.pt2e.qwasm.safetensors")
    export(m, calibration[0], qpath)
    with torch.no_grad():
        logits = [m(c).numpy().reshape(-1).tolist() for c in clips]
    meta = {"arch": ARCH, "shape": list(SHAPE), "clips": len(clips), "calibration_seeds": list(CALIBRATION_SEEDS),
            "bench_seeds": list(BENCH_SEEDS), "pt2e_logits": logits, "qwasm_bytes": os.path.getsize(qpath),
            "torch": torch.__version__, "torchao": torchao.__version__}
    with open(os.path.join(OUT, f"{ARCH}.pt2e.json"), "w") as f:
        json.dump(meta, f)
    print(f"{ARCH} (PT2E): prepared in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
