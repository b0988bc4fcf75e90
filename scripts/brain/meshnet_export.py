"""Quantizes the trained brain MeshNet two ways, evaluates each on the held-out slab, and exports both:

- PT2E: torch.export, prepare_pt2e with QwasmQuantizer, calibration, convert_pt2e (the README's "Bring
  your own 3D CNN" recipe) -> demo/data/meshnet-brain.qwasm.safetensors (the demo's model);
- PyTorch's eager flow: fuse Conv3d + BatchNorm3d + ReLU, QuantStub / DeQuantStub,
  get_default_qconfig('fbgemm'), prepare, calibration, convert, run under the 'fbgemm' engine
  -> demo/data/meshnet-brain_eager.qwasm.safetensors; its test asserts qwasm's integers equal PyTorch's bit
  for bit. Not 'x86' (PyTorch's default on x86 CPUs, whose convs with symmetric weights run on oneDNN): on
  a CPU with AMX, oneDNN scales the accumulator by src * wei as one float, not by the two in turn as on
  AVX-512 VNNI and in qwasm, which moved 361 of the crop's 73,728 output integers by one step here (README,
  Known differences; tests/golden/onednn_scale.json). 'fbgemm' gives the same integers on every x86 CPU.

Calibration: CALIBRATION_PATCHES unaugmented training patches (never the held-out slab or its halo).
Both files carry the class names and python/qwasm_volume.py's preprocessing record (VolumeSegmentation,
RAS, 1 mm, intensity quantiles 0.01 / 0.99: the steps meshnet_data.load_template ran on the training input),
so qwasm's transforms() normalises a dropped volume as the model was trained.

Writes for the Node run (scripts/brain/run_qwasm_slab.mjs) scripts/brain/output/: the slab input, its
true labels and PyTorch's int8 output integers per flow; and the golden crop (tests/golden/brain/
meshnet-brain-crop.json: a held-out crop's normalised input and PyTorch's int8 output integers, for
tests/js/model/brain-meshnet.test.mjs)."""
import base64
import copy
import json
import os
import time

import numpy as np
import torch

from meshnet_data import (EVAL_HI, EVAL_LO, SLAB_HI, SLAB_LO, dice, sample_patch, slab_input, slab_labels, slab_of)
from meshnet_model import CLASSES, MeshNet, Stubbed, fuse

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(REPOSITORY, "demo", "data")  # the demo's Volume view loads the PT2E file
GOLDEN = os.path.join(REPOSITORY, "tests", "golden", "brain")
OUTPUT = os.path.join(HERE, "output")
FILES = {"pt2e": "meshnet-brain.qwasm.safetensors", "eager": "meshnet-brain_eager.qwasm.safetensors"}
CROP_FILE = "meshnet-brain-crop.json"
CALIBRATION_PATCHES = 8
PATCH = (64, 64, 48)
# The golden crop: 32 x 32 x 24 voxels inside the held-out slab (left hemisphere, cortex and white matter).
CROP_ORIGIN, CROP_SHAPE = (40, 100, 83), (32, 32, 24)



def _python_path():
    import sys
    path = os.path.join(REPOSITORY, "python")
    if path not in sys.path:
        sys.path.insert(0, path)


def pt2e_quantize(model, calibration):
    """The PT2E recipe; every dimension but the channels dynamic (an example batch of 2: torch.export
    specializes a dimension its example holds as 1), so the graph runs any volume size."""
    _python_path()
    from qwasm_quantizer import QwasmQuantizer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    auto = torch.export.Dim.AUTO
    example = torch.cat([calibration[0], calibration[0]])
    m = torch.export.export(model.eval(), (example,), dynamic_shapes=({0: auto, 2: auto, 3: auto, 4: auto},))
    m = prepare_pt2e(m.module(), QwasmQuantizer())
    with torch.no_grad():
        for x in calibration:
            m(x)
    return convert_pt2e(m)


def eager_quantize(model, calibration, engine):
    from torch.ao.quantization import convert, get_default_qconfig, prepare
    m = Stubbed(fuse(model)).eval()
    m.qconfig = get_default_qconfig(engine)
    prepare(m, inplace=True)
    with torch.no_grad():
        for x in calibration:
            m(x)
    return convert(m, inplace=True)


def pt2e_output_qparams(m):
    """(scale, zero_point) of the quantize whose dequantized value the PT2E graph returns."""
    dq = torch.ops.quantized_decomposed.dequantize_per_tensor.default
    out = [n for n in m.graph.nodes if n.op == "output"][0].args[0][0]
    assert out.op == "call_function" and out.target == dq, "the graph's output is not a dequantize"
    q = out.args[0]
    return float(q.args[1]), int(q.args[2])


def output_integers(y, scale, zero_point):
    """The uint8 integers a dequantized output y holds: checked to dequantize back to y bit for bit."""
    q = torch.clamp(torch.round(y / scale) + zero_point, 0, 255).to(torch.uint8)
    back = (q.float() - zero_point) * torch.tensor(scale, dtype=torch.float32)
    assert torch.equal(back, y), "the output is not on its quantize's grid"
    return q


def _arr(a):
    a = np.ascontiguousarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "b64": base64.b64encode(a.tobytes()).decode()}


def _export(model, example, name):
    _python_path()
    import qwasm_volume
    from qwasm_export import export
    path = os.path.join(MODELS, name)
    # The record qwasm's VolumeSegmentation reads: the steps meshnet_data.load_template ran on the training input.
    export(model, example, path, classes=qwasm_volume.CLASSES, preprocessing=qwasm_volume.RECORD)
    return {"file": os.path.relpath(path, REPOSITORY), "bytes": os.path.getsize(path)}


def _forward(model, x):
    start = time.time()
    with torch.no_grad():
        y = model(x)
    return y, time.time() - start


EAGER_ENGINE = "fbgemm"


def export_all(t1, labels, checkpoint, results_path, seed):
    torch.backends.quantized.engine = engine = EAGER_ENGINE  # the eager flow's; PT2E records its own ('x86')
    rng = np.random.default_rng(seed + 1)
    calibration = [torch.from_numpy(np.ascontiguousarray(sample_patch(t1, labels, PATCH, rng)[0]))[None, None]
                   for _ in range(CALIBRATION_PATCHES)]
    model = MeshNet()
    model.load_state_dict(torch.load(checkpoint, weights_only=True))
    model.eval()
    x = slab_input(t1)
    truth = slab_labels(labels)
    crop = tuple(slice(o, o + s) for o, s in zip(CROP_ORIGIN, CROP_SHAPE))
    assert SLAB_LO <= crop[2].start and crop[2].stop <= SLAB_HI, "the golden crop lies in the held-out slab"
    crop_x = torch.from_numpy(np.ascontiguousarray(t1[crop]))[None, None]

    float_y, seconds = _forward(model, x)
    float_labels = slab_of(float_y.argmax(1)[0]).numpy().astype(np.uint8)
    report = {"float": {"dice": dice(float_labels, truth), "torch_seconds": round(seconds, 1)}}
    print(f"float: Dice {report['float']['dice']} ({seconds:.0f} s)", flush=True)
    os.makedirs(OUTPUT, exist_ok=True)
    x.numpy().tofile(os.path.join(OUTPUT, "slab_input.bin"))
    np.ascontiguousarray(truth).tofile(os.path.join(OUTPUT, "slab_truth.bin"))
    np.ascontiguousarray(float_labels).tofile(os.path.join(OUTPUT, "slab_float_labels.bin"))
    meta = {"input_shape": list(x.shape), "eval_k": [EVAL_LO, EVAL_HI], "slab_k": [SLAB_LO, SLAB_HI],
            "classes": list(CLASSES), "flows": {}}
    golden = {"about": "MeshNet trained on the MNI152 2009c template (scripts/brain/train_meshnet.py): a "
                       "held-out crop's normalised input and PyTorch's int8 output integers per flow",
              "torch": torch.__version__, "engine": engine, "seed": seed,
              "crop": {"origin": list(CROP_ORIGIN), "shape": list(CROP_SHAPE)}, "x": _arr(crop_x.numpy()),
              "crop_labels": _arr(labels[crop]), "cases": []}
    del float_y

    flows = {"pt2e": lambda: pt2e_quantize(copy.deepcopy(model), calibration),
             "eager": lambda: eager_quantize(copy.deepcopy(model), calibration, engine)}
    for name, quantize in flows.items():
        start = time.time()
        m = quantize()
        quantize_seconds = time.time() - start
        if name == "pt2e":
            scale, zero_point = pt2e_output_qparams(m)
        else:
            scale, zero_point = float(m.model.classifier.scale), int(m.model.classifier.zero_point)
        y, seconds = _forward(m, x)
        q = output_integers(y, scale, zero_point)
        int8_labels = slab_of(y.argmax(1)[0]).numpy().astype(np.uint8)
        del y
        np.ascontiguousarray(int8_labels).tofile(os.path.join(OUTPUT, f"slab_{name}_labels.bin"))
        np.ascontiguousarray(slab_of(q[0].numpy())).tofile(os.path.join(OUTPUT, f"slab_{name}_q.bin"))
        exported = _export(m, calibration[0], FILES[name])
        report[name] = {"dice": dice(int8_labels, truth), "torch_seconds": round(seconds, 1),
                        "quantize_seconds": round(quantize_seconds, 1),
                        "labels_equal_float": float((int8_labels == float_labels).mean()), **exported,
                        "output_qparams": {"scale": scale, "zero_point": zero_point}}
        meta["flows"][name] = {"file": exported["file"], "scale": scale, "zero_point": zero_point}
        crop_y, _ = _forward(m, crop_x)
        golden["cases"].append({"name": name, "file": exported["file"], "scale": scale, "zero_point": zero_point,
                                "q": _arr(output_integers(crop_y, scale, zero_point).numpy())})
        print(f"{name}: Dice {report[name]['dice']} ({seconds:.0f} s), file {exported}", flush=True)

    with open(os.path.join(OUTPUT, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
    with open(os.path.join(GOLDEN, CROP_FILE), "w") as f:
        json.dump(golden, f, separators=(",", ":"))
    report["checkpoint"] = {"file": os.path.relpath(checkpoint, REPOSITORY), "bytes": os.path.getsize(checkpoint)}
    report["calibration"] = {"patches": CALIBRATION_PATCHES, "patch": list(PATCH), "seed": seed + 1,
                             "engine": engine}
    results = json.load(open(results_path)) if os.path.exists(results_path) else {}
    results["torch"] = report
    with open(results_path, "w") as f:
        json.dump(results, f, indent=2)
    print(f"wrote {os.path.relpath(results_path, REPOSITORY)}; now run: node scripts/brain/run_qwasm_slab.mjs")
