"""numeric_suite.json: PyTorch's eager numeric suite (torch.ao.ns._numeric_suite)
on the three video ResNets of video_resnets.json, for qwasm.quantization.ns
(numeric_suite_of also gives models.json's eager-flow models theirs).

For each arch, the same model video_resnets.py builds (an eighth of the
widths, fused, prepared with the fbgemm qconfig, calibrated, converted; the
generator checks that its weights equal the committed
exported/<arch>.qwasm.safetensors) and its float twin, fused but not
prepared, exported to exported/<arch>_float.qwasm.safetensors. Then:
- compare_weights(float.state_dict(), quantized.state_dict()): per key, the
  float key _find_match paired it with, compute_sqnr(float, dequantized) and
  the largest absolute error, per tensor and per output channel;
- compare_model_outputs(float, quantized, clip): per logged key, the float
  key, compute_sqnr, the largest absolute error and the share of elements
  more than one quantization step off (None for a float output).
Numbers are float64 arrays (b64), so inf (identical tensors) survives.
"""
import copy

import numpy as np
import torch

from .common import SEED, add_to_path, arr, output_path

CLIP_SHAPE = (1, 3, 8, 112, 112)


def _f64(values):
    return arr(np.asarray(values, dtype=np.float64))


def _stats(f, q, step=None, per_channel=False):
    from torch.ao.ns.fx.utils import compute_sqnr
    out = {"sqnr": float(compute_sqnr(f, q)), "max_abs_error": float((f - q).abs().max())}
    if per_channel:
        out["per_channel_sqnr"] = [float(compute_sqnr(f[c], q[c])) for c in range(f.shape[0])]
        out["per_channel_max_abs_error"] = [float((f[c] - q[c]).abs().max()) for c in range(f.shape[0])]
    if step is not None:
        out["off_by_more_than_one_step"] = float(((f - q).abs() > step).double().mean())
    return out


def _encoded(stats):
    return {k: _f64(v if isinstance(v, list) else [v]) for k, v in stats.items()}


def numeric_suite_of(float_model, q_model, x):
    """PyTorch's numeric suite on a float model and its converted twin (neither
    is changed): {"weights": compare_weights' pairs, "outputs":
    compare_model_outputs' pairs on x}, each with the statistics above."""
    from torch.ao.ns._numeric_suite import _find_match, compare_model_outputs, compare_weights
    float_dict, q_dict = float_model.state_dict(), q_model.state_dict()
    weights = []
    for key, pair in compare_weights(float_dict, q_dict).items():
        match = _find_match(float_dict, key, "weight") or _find_match(float_dict, key, "_packed_params")
        f = pair["float"].float()
        qw = pair["quantized"].dequantize() if pair["quantized"].is_quantized else pair["quantized"]
        weights.append({"key": key, "float_key": match, **_encoded(_stats(f, qw, per_channel=True))})
    with torch.no_grad():
        acts = compare_model_outputs(copy.deepcopy(float_model), copy.deepcopy(q_model), x)
    outputs = []
    for key, pair in acts.items():
        f, qv = pair["float"][0].float(), pair["quantized"][0]
        step = qv.q_scale() if qv.is_quantized else None
        qd = qv.dequantize() if qv.is_quantized else qv
        outputs.append({"key": key, **_encoded(_stats(f, qd, step))})
    return {"weights": weights, "outputs": outputs}


def numeric_suite_cases():
    add_to_path("..", "models")
    add_to_path("..", "..", "python")
    from safetensors.torch import load_file

    from qwasm_export import export
    from qwasm_video import kinetics400, quantizable_video_resnet
    from video_resnets import ARCHS, differing_weight, eager_quantize, float_model, lcg_clip
    torch.set_num_threads(1)
    torch.backends.quantized.engine = "fbgemm"
    cases = []
    for a, arch in enumerate(ARCHS):
        # As video_resnets.py's video_resnet_cases and quantized_model build it.
        calibration = [lcg_clip(100 + 10 * a + k, (1, 3, 16, 112, 112)) for k in range(2)]
        fused = quantizable_video_resnet(float_model(arch, 8, 400, SEED % 1000 + a))
        q = eager_quantize(copy.deepcopy(fused), calibration)
        _, differing = differing_weight(q, load_file(output_path(f"exported/{arch}.qwasm.safetensors")))
        if differing is not None:
            raise SystemExit(f"numeric_suite: {arch} {differing} differs from the committed exported file")
        float_file = f"exported/{arch}_float.qwasm.safetensors"
        export(fused, calibration[0], output_path(float_file), **kinetics400(arch))

        clip_seed = 4000 + a
        cases.append({"name": arch, "arch": arch, "float_file": float_file,
                      "quantized_file": f"exported/{arch}.qwasm.safetensors",
                      "clip": {"lcg": clip_seed, "shape": list(CLIP_SHAPE)},
                      **numeric_suite_of(fused, q, lcg_clip(clip_seed, CLIP_SHAPE))})
    return cases
