"""histogram_observer.json: HistogramObserver after every batch."""
import sys

import numpy as np
import torch

from .common import js_options, SEED, QDTYPES, QSCHEMES, arr


def histogram_cases():
    """HistogramObserver, PyTorch's default activation observer: the running
    histogram, min and max after every batch, and calculate_qparams after
    every batch, over sequences that take each path of forward() (first batch,
    same range, growing range with re-binning, a constant batch, infinities)."""
    from torch.ao.quantization import observer as obs
    # Its float arithmetic follows ATen's kernels, whose reduction order and
    # linspace depend on the SIMD width and the thread count: pin them.
    if torch.backends.cpu.get_cpu_capability() != "AVX512":
        sys.exit("the HistogramObserver goldens are generated on an AVX512 build (qwasm emulates its float order)")
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED + 7)

    def f32(a):
        return np.asarray(a, dtype=np.float32)

    n = 1500
    sequences = {
        "normal": [f32(rng.normal(0.5, 1.0, n)) for _ in range(3)],
        "heavy tailed": [f32(rng.standard_t(2, n) * 2) for _ in range(3)],
        "one-sided": [f32(np.abs(rng.normal(0, 3, n)) + 0.1) for _ in range(3)],
        "negative": [f32(-np.abs(rng.normal(0, 2, n)) - 0.5) for _ in range(2)],
        "constant first": [f32(np.full(200, 2.0)), f32(rng.normal(0, 1, n)), f32(np.full(50, 2.0))],
        "constant only": [f32(np.full(100, -3.0)), f32(np.full(100, -3.0))],
        "tiny range": [f32(rng.normal(0, 1e-6, n)) for _ in range(2)],
        "growing range": [f32(rng.normal(0, 10.0 ** k, n)) for k in range(4)],
        "narrower later": [f32(rng.uniform(-8, 8, n)), f32(rng.uniform(-2, 3, n)), f32(rng.uniform(-8, 8, 300))],
        "infinities": [f32(np.concatenate([rng.normal(0, 1, n), [np.inf, -np.inf]])), f32([np.inf, -np.inf]),
                       f32(np.concatenate([rng.normal(1, 2, n), [np.inf]]))],
        "single values": [f32([0.25]), f32([-1.5]), f32([4.0])],
    }
    options = [
        ("default", {}),
        ("fbgemm activation (reduce_range)", {"reduce_range": True}),
        ("qint8 symmetric", {"dtype": torch.qint8, "qscheme": torch.per_tensor_symmetric}),
        ("qint8 affine", {"dtype": torch.qint8}),
        ("quint8 symmetric", {"qscheme": torch.per_tensor_symmetric}),
        ("custom range", {"quant_min": 0, "quant_max": 100}),
        ("qint32", {"dtype": torch.qint32}),
        ("bins 256", {"bins": 256}),
        ("bins 37", {"bins": 37}),
        ("bins 1", {"bins": 1}),
        ("large eps", {"eps": 0.5}),
    ]
    every = {"normal", "growing range", "heavy tailed"}  # every option on these; the default on the rest
    cases = []
    for seq_name, batches in sequences.items():
        for opt_name, kw in options:
            if seq_name not in every and opt_name not in ("default", "fbgemm activation (reduce_range)", "bins 37"):
                continue
            if seq_name == "growing range" and opt_name == "qint32":
                continue  # its zero point hits PyTorch's int32 wrap (README: known differences), not the histogram
            o = obs.HistogramObserver(**kw)
            steps = []
            for b in batches:
                o(torch.from_numpy(b.copy()))
                scale, zp = o.calculate_qparams()
                steps.append({"min_val": float(o.min_val), "max_val": float(o.max_val),
                              "histogram": arr(o.histogram.numpy().astype(np.float32)),
                              "scale": arr(scale.numpy().astype(np.float32).reshape(-1)),
                              "zero_point": arr(zp.numpy().reshape(-1).astype(np.float64))})
            cases.append({"name": f"{seq_name}, {opt_name}", "options": js_options(kw), "inputs": seq_name, "steps": steps})
    o = obs.HistogramObserver()
    scale, zp = o.calculate_qparams()
    cases.append({"name": "before observe", "options": {}, "inputs": None, "steps": [],
                  "initial": {"scale": arr(scale.numpy().astype(np.float32).reshape(-1)),
                              "zero_point": arr(zp.numpy().reshape(-1).astype(np.float64))}})
    return cases, {k: [arr(b) for b in v] for k, v in sequences.items()}
