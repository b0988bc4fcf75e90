"""observers.json: the MinMax and MovingAverage observers, per tensor and per channel."""

import numpy as np
import torch

from .common import js_options, SEED, QDTYPES, QSCHEMES, arr, sample


def observer_cases():
    from torch.ao.quantization import observer as obs
    gen = torch.Generator().manual_seed(SEED + 1)
    cases = []
    shape = (3, 4, 5, 6)
    batches = [sample(shape, gen, spread=s) + off for s, off in [(1.0, 0.5), (2.5, -1.0), (0.5, 3.0)]]
    # Non-negative data too: min_val > 0 exercises min_val_neg = 0.
    pos_batches = [b.abs() + 0.25 for b in batches]
    small_batches = [b * 1e-3 for b in batches]
    const_batches = [b.clone() for b in batches]
    for b in const_batches:
        b[1] = 2.0  # a constant channel: float qparams fall back to scale 1

    shared = {}  # input batches, stored once and named by the cases

    def run(cls, kwargs, data, name):
        key = f"inputs{len(shared)}"
        for k, v in shared.items():
            if v is data:
                key = k
        shared[key] = data
        o = cls(**{k: v for k, v in kwargs.items()})
        steps = []
        for b in data:
            o(b)
            scale, zp = o.calculate_qparams()
            steps.append({"min_val": arr(o.min_val.numpy().astype(np.float32).reshape(-1)),
                          "max_val": arr(o.max_val.numpy().astype(np.float32).reshape(-1)),
                          "scale": arr(scale.numpy().astype(np.float32).reshape(-1)),
                          "zero_point": arr(zp.numpy().reshape(-1).astype(np.float64))})
        cases.append({"name": name, "observer": cls.__name__, "options": js_options(kwargs),
                      "inputs": key, "steps": steps})

    # Empty observers return the defaults.
    for cls in [obs.MinMaxObserver, obs.PerChannelMinMaxObserver]:
        o = cls()
        scale, zp = o.calculate_qparams()
        cases.append({"name": f"{cls.__name__} before observe", "observer": cls.__name__, "options": {},
                      "inputs": None, "steps": [],
                      "initial": {"scale": arr(scale.numpy().astype(np.float32).reshape(-1)),
                                  "zero_point": arr(zp.numpy().reshape(-1).astype(np.float64))}})

    for cls in [obs.MinMaxObserver, obs.MovingAverageMinMaxObserver]:
        for dt in ["quint8", "qint8"]:
            for qs in [torch.per_tensor_affine, torch.per_tensor_symmetric]:
                for rr in [False, True]:
                    if qs == torch.per_tensor_symmetric and rr and dt == "quint8":
                        continue  # PyTorch refuses this combination
                    kw = {"dtype": QDTYPES[dt], "qscheme": qs, "reduce_range": rr}
                    run(cls, kw, batches, f"{cls.__name__} {dt} {QSCHEMES[qs]} reduce_range={rr}")
                    run(cls, kw, pos_batches, f"{cls.__name__} {dt} {QSCHEMES[qs]} reduce_range={rr} positive")
        run(cls, {"dtype": torch.quint8, "quant_min": 0, "quant_max": 100}, batches, f"{cls.__name__} custom range")
        run(cls, {"dtype": torch.quint8, "qscheme": torch.per_tensor_symmetric, "quant_min": 0, "quant_max": 100},
            batches, f"{cls.__name__} symmetric custom range")
        run(cls, {"dtype": torch.qint8, "quant_min": -100, "quant_max": 27, "reduce_range": True}, batches,
            f"{cls.__name__} custom range reduce_range")
        run(cls, {"dtype": torch.qint32}, batches, f"{cls.__name__} qint32")
        run(cls, {"eps": 0.5}, small_batches, f"{cls.__name__} large eps")
    run(obs.MovingAverageMinMaxObserver, {"averaging_constant": 0.3}, batches, "MovingAverageMinMaxObserver c=0.3")

    for cls in [obs.PerChannelMinMaxObserver, obs.MovingAveragePerChannelMinMaxObserver]:
        for dt in ["quint8", "qint8"]:
            for qs in [torch.per_channel_affine, torch.per_channel_symmetric, torch.per_channel_affine_float_qparams]:
                for rr in [False, True]:
                    if qs == torch.per_channel_symmetric and rr and dt == "quint8":
                        continue
                    for axis in range(4):
                        kw = {"dtype": QDTYPES[dt], "qscheme": qs, "reduce_range": rr, "ch_axis": axis}
                        run(cls, kw, batches, f"{cls.__name__} {dt} {QSCHEMES[qs]} reduce_range={rr} ch_axis={axis}")
        run(cls, {"dtype": torch.quint4x2, "qscheme": torch.per_channel_affine_float_qparams}, batches,
            f"{cls.__name__} quint4x2 float_qparams")
        run(cls, {"qscheme": torch.per_channel_affine_float_qparams}, const_batches, f"{cls.__name__} constant channel float_qparams")
        run(cls, {"dtype": torch.qint8, "qscheme": torch.per_channel_symmetric, "ch_axis": 0}, pos_batches,
            f"{cls.__name__} qint8 symmetric positive")
    return cases, {k: [arr(b.numpy()) for b in v] for k, v in shared.items()}
