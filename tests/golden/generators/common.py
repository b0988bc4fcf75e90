"""What every golden family shares: the pinned versions and seed, the array
encoding, the output directory and the writer.

Arrays are stored as {"dtype": ..., "shape": [...], "b64": <little-endian bytes>}
so floats survive bit for bit (NaN and -0.0 included). The PyTorch version is
pinned in requirements.txt and written into every file.
"""
import base64
import json
import os
import sys

import numpy as np
import torch

GOLDEN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/golden
PINNED_TORCH = "2.15.0"
SEED = 20261129

torch.backends.quantized.engine = "fbgemm"

QDTYPES = {"quint8": torch.quint8, "qint8": torch.qint8, "qint32": torch.qint32, "quint4x2": torch.quint4x2}
QSCHEMES = {
    torch.per_tensor_affine: "per_tensor_affine",
    torch.per_channel_affine: "per_channel_affine",
    torch.per_channel_affine_float_qparams: "per_channel_affine_float_qparams",
    torch.per_tensor_symmetric: "per_tensor_symmetric",
    torch.per_channel_symmetric: "per_channel_symmetric",
}

# Where the files go: tests/golden unless generate.py --out names another
# directory (to compare a fresh run with the committed files).
_output = {"dir": GOLDEN_DIR}


def set_output_dir(path):
    _output["dir"] = os.path.abspath(path)


def output_path(name):
    """The path to write tests/golden/<name> to; its directory exists."""
    path = os.path.join(_output["dir"], name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


REPOSITORY = os.path.dirname(os.path.dirname(GOLDEN_DIR))


def repository_relative(text):
    """text (an error message quoting source files) with this checkout's absolute path taken out:
    a committed golden names tests/golden/generators/x.py, never the machine it was made on."""
    return text.replace(REPOSITORY + os.sep, "")


def add_to_path(*parts):
    """Makes a directory of the repository (relative to tests/golden) importable:
    python/ for the exporter, tests/models/ for the video ResNets."""
    path = os.path.join(GOLDEN_DIR, *parts)
    if path not in sys.path:
        sys.path.insert(0, path)


def with_engine(engine, fn):
    """fn() with torch.backends.quantized.engine = engine (the golden file written
    after it names that engine), then the generator's default again."""
    torch.backends.quantized.engine = engine
    try:
        return fn()
    finally:
        torch.backends.quantized.engine = "fbgemm"


def conv_backend(m, dims):
    """'onednn' or 'fbgemm': the backend PyTorch packed a quantized conv for."""
    add_to_path("..", "..", "python")
    from qwasm_ops import packed_backend
    return packed_backend("golden", m, dims)


def eager_quantized(model, rng, shape, batches=3):
    """model (in eval mode) quantized in place by the eager flow with fbgemm's default qconfig: prepare, then
    `batches` calibration batches of uniform(-2, 2) float32 of `shape` drawn from rng, then convert."""
    from torch.ao.quantization import convert, get_default_qconfig, prepare
    model.qconfig = get_default_qconfig("fbgemm")
    prepare(model, inplace=True)
    for _ in range(batches):
        model(torch.from_numpy(rng.uniform(-2, 2, shape).astype(np.float32)))
    convert(model, inplace=True)
    return model


def arr(a):
    a = np.ascontiguousarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "b64": base64.b64encode(a.tobytes()).decode()}


def int_repr_bytes(q):
    return arr(q.int_repr().contiguous().numpy().reshape(-1))


def js_options(kwargs):
    """An observer's PyTorch keyword arguments as qwasm's JS options."""
    js = {}
    for k, v in kwargs.items():
        if k == "dtype":
            v = [name for name, d in QDTYPES.items() if d == v][0]
        elif k == "qscheme":
            v = QSCHEMES[v]
        js[{"reduce_range": "reduceRange", "quant_min": "quantMin", "quant_max": "quantMax",
            "ch_axis": "chAxis", "averaging_constant": "averagingConstant"}.get(k, k)] = v
    return js


def write(name, cases, extra=None):
    if not torch.__version__.startswith(PINNED_TORCH):
        sys.exit(f"generate.py is pinned to torch {PINNED_TORCH}, found {torch.__version__}")
    doc = {"torch": torch.__version__, "numpy": np.__version__, "engine": torch.backends.quantized.engine,
           "seed": SEED, "cases": cases, **(extra or {})}
    path = output_path(name)
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    shown = os.path.relpath(path, os.path.join(GOLDEN_DIR, "..", ".."))
    print(f"wrote {path if shown.startswith('..') else shown}: {len(cases)} cases")


def sample(shape, gen, spread=4.0):
    """Normal values with per-position spread, plus zeros and large magnitudes."""
    x = torch.randn(shape, generator=gen) * spread
    flat = x.view(-1)
    n = flat.numel()
    idx = torch.randperm(n, generator=gen)
    flat[idx[: n // 20]] = 0.0
    flat[idx[n // 20: n // 10]] *= 1000.0
    return x


def fma32(a, b, c):
    """float32 fma(a, b, c) with one rounding: a * b is exact in double, TwoSum
    gives the double sum's error, the sum is rounded to odd, then to float."""
    p = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32).astype(np.float64)
    c = np.asarray(c, np.float32).astype(np.float64)
    p, c = np.broadcast_arrays(p, c)
    s = p + c
    bv = s - p
    e = (p - (s - bv)) + (c - bv)
    bits = s.view(np.int64).copy()
    fix = (e != 0) & ((bits & 1) == 0)
    bits = np.where(fix, bits + np.where(np.signbit(e) != np.signbit(s), -1, 1), bits)
    return bits.view(np.float64).astype(np.float32)
