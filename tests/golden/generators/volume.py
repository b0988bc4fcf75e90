"""volume.json and volume/*.nii[.gz]: small synthetic NIfTI-1 volumes, written
by nibabel, and what python/qwasm_volume.py (the twin of
transforms.VolumeSegmentation) makes of each: the affine it reads, the RAS
grid, the model input's float32 bytes, and the labels back on the stored grid
from logits both sides make from the LCG (tests/js/util.mjs lcgBytes): logit =
(byte - 128) / 16, NaN where the byte is 255 (ties and NaN exercise argmax).

The volumes cover every datatype a volume may hold, orientations RAS, LPS,
LIA, PIL, ASL and an oblique near-orthogonal one, non-1 mm voxels (resampled),
scl_slope / scl_inter, a big-endian file, a gzipped one, a qform-only and a
no-affine one, a 4-D file with t = 1 and a constant volume."""
import json
import math
import os

import numpy as np

from .common import GOLDEN_DIR, SEED, add_to_path, arr, output_path
from .memory_formats import lcg_bytes


def _rotation(ax_deg, az_deg):
    ax, az = math.radians(ax_deg), math.radians(az_deg)
    rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    rz = np.array([[math.cos(az), -math.sin(az), 0], [math.sin(az), math.cos(az), 0], [0, 0, 1]])
    return rz @ rx


def _affine(columns, zooms, origin):
    """4x4 whose column j is world direction columns[j] times zooms[j]."""
    a = np.eye(4)
    a[:3, :3] = np.asarray(columns, np.float64).T * np.asarray(zooms, np.float64)
    a[:3, 3] = origin
    return a


R, L, A, P, S, I = (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)

# name, file, dtype, shape, affine, how the geometry is stored, extras
CASES = [
    ("RAS 1 mm int16 (sform): kept as stored", "ras_int16.nii", "<i2", (11, 9, 7),
     _affine([R, A, S], [1, 1, 1], [-5, -4, -3]), "sform", {}),
    ("LPS 1 mm uint8 (sform): two flips", "lps_uint8.nii", "u1", (10, 8, 6),
     _affine([L, P, S], [1, 1, 1], [5, 4, -3]), "sform", {}),
    ("LIA 1.2 mm float32 (sform): transposed, flipped and resampled", "lia_float32.nii", "<f4", (9, 8, 10),
     _affine([L, I, A], [1.2, 1.2, 1.2], [5, 5, -5]), "sform", {}),
    ("oblique near-orthogonal, 0.9 x 1.1 x 1.5 mm, int32, qform only", "oblique_int32.nii", "<i4", (12, 10, 7),
     _affine(_rotation(5, 8).T, [0.9, 1.1, 1.5], [-6, -5, -4]), "qform", {}),
    ("scl_slope 0.5, scl_inter -20, uint16, 2 mm, big-endian", "scaled_uint16_be.nii", ">u2", (6, 7, 5),
     _affine([R, A, S], [2, 2, 2], [0, 0, 0]), "both", {"slope": 0.5, "inter": -20.0}),
    ("PIL 1 mm int8 (sform), gzipped", "pil_int8.nii.gz", "i1", (8, 9, 7),
     _affine([P, I, L], [1, 1, 1], [4, 4, 4]), "sform", {}),
    ("float64 with no sform or qform: pixdim 0.8 x 1 x 1.25", "noaffine_float64.nii", "<f8", (10, 7, 6),
     _affine([R, A, S], [0.8, 1.0, 1.25], [0, 0, 0]), "none", {}),
    ("ASL uint32, sform and qform disagree: the sform wins", "asl_uint32.nii", "<u4", (7, 8, 9),
     _affine([A, S, L], [1, 1, 1], [1, 2, 3]), "both-differ", {}),
    ("a constant volume: hi <= lo gives zeros", "constant_uint8.nii", "u1", (5, 6, 4),
     _affine([R, A, S], [1, 1, 1], [0, 0, 0]), "sform", {"constant": 42}),
    ("4-D with t = 1, RAS int16, 0.9995 mm (within 1e-3: not resampled)", "t1_4d_int16.nii", "<i2", (6, 5, 4, 1),
     _affine([R, A, S], [0.9995, 1, 1.0004], [0, 0, 0]), "sform", {}),
]

CLASSES = 3


def _values(rng, dtype, shape, extras):
    dt = np.dtype(dtype)
    if "constant" in extras:
        return np.full(shape, extras["constant"], dt)
    if dt.kind == "f":
        v = rng.normal(100, 40, shape)
        v[tuple(rng.integers(0, s, 3) for s in shape)] = -0.0
        return v.astype(dt)
    info = np.iinfo(dt)
    lo, hi = max(info.min, -3000), min(info.max, 3000)
    return rng.integers(lo, hi + 1, shape).astype(dt)


def _logits(seed, shape):
    b = lcg_bytes(seed, CLASSES * int(np.prod(shape))).astype(np.float32)
    x = (b - 128) / np.float32(16)
    x[b == 255] = np.nan
    return x.reshape([1, CLASSES, *shape])


def _write(path, data, affine, storage, extras):
    import nibabel
    endian = ">" if np.dtype(data.dtype).byteorder == ">" else "<"
    header = nibabel.Nifti1Header(endianness=endian)
    header.set_data_dtype(data.dtype)
    img = nibabel.Nifti1Image(data, None, header)
    zooms = np.sqrt((affine[:3, :3] ** 2).sum(axis=0))
    img.header.set_zooms(tuple(zooms) + ((1.0,) if data.ndim == 4 else ()))
    if storage in ("sform", "both", "both-differ"):
        img.header.set_sform(affine, code=1)
    else:
        img.header.set_sform(affine, code=0)
    if storage in ("qform", "both"):
        img.header.set_qform(affine, code=1)
    elif storage == "both-differ":
        other = affine.copy()
        other[:3, 3] += 10
        other[:3, :3] = other[:3, :3][:, ::-1]
        img.header.set_qform(other, code=1)
    else:
        img.header.set_qform(affine, code=0)
    if "slope" in extras:
        img.header.set_slope_inter(extras["slope"], extras["inter"])
    else:
        img.header.set_slope_inter(np.nan, np.nan)  # nibabel's "unset": the raw values
    nibabel.save(img, path)
    if "slope" in extras:
        # nibabel's writer drops a slope it did not compute (the data already has the stored type): set it in place
        assert not path.endswith(".gz")
        with open(path, "r+b") as f:
            f.seek(112)
            f.write(np.asarray([extras["slope"], extras["inter"]], endian + "f4").tobytes())
    back = nibabel.load(path)
    assert np.array_equal(np.asarray(back.dataobj.get_unscaled()), data), path
    return back


def volume_cases():
    add_to_path("..", "..", "python")
    import qwasm_volume as qv
    cases = []
    for i, (name, file, dtype, shape, affine, storage, extras) in enumerate(CASES):
        seed = SEED + 700 + i
        rng = np.random.default_rng(seed)
        data = _values(rng, dtype, shape, extras)
        path = output_path(os.path.join("volume", file))
        img = _write(path, data, affine, storage, extras)
        raw, aff, _, _ = qv.volume_of(img)
        g = qv.grid(raw.shape, aff)
        x = qv.preprocess(img)
        logits = _logits(seed, g["shape"])
        labels = qv.labels_to_input(logits, img)
        assert labels.shape == raw.shape
        # nibabel's own orientation of the same affine (its io_orientation, by SVD) agrees
        from nibabel.orientations import axcodes2ornt, io_orientation, ornt_transform
        ornt = ornt_transform(io_orientation(np.asarray(aff).reshape(4, 4)), axcodes2ornt("RAS"))
        assert [int(a) for a in np.argsort(ornt[:, 0])] == g["from"], (name, ornt, g)
        # the grid's affine maps each voxel centre where nibabel's reoriented image puts it (resampling aside)
        if not any(g["resampled"]):
            import nibabel
            ras = nibabel.Nifti1Image(raw, np.asarray(aff).reshape(4, 4)).as_reoriented(io_orientation(
                np.asarray(aff).reshape(4, 4)))
            assert np.allclose(ras.affine, np.asarray(g["affine"]).reshape(4, 4), atol=1e-9), (name, ras.affine, g)
        cases.append({
            "name": name, "file": f"volume/{file}", "seed": seed,
            "dims": list(raw.shape), "datatype": str(raw.dtype.newbyteorder("=").name),
            "affine": arr(np.asarray(aff, np.float64)),
            "grid": {"shape": g["shape"], "from": g["from"], "flip": g["flip"],
                     "spacing": arr(np.asarray(g["spacing"], np.float64)), "resampled": g["resampled"],
                     "affine": arr(np.asarray(g["affine"], np.float64))},
            "x": arr(x), "labels": arr(labels.reshape(-1, order="F")),
        })
    total = sum(os.path.getsize(os.path.join(GOLDEN_DIR, c["file"])) for c in cases)
    print(f"volume: {len(cases)} files, {total} bytes")
    return cases


# -- models exported with the VolumeSegmentation record -------------------------

def _segmenter(nn):
    """A MeshNet-like stack: dilated 3x3x3 convs with ReLU, then a 1x1x1 conv to the 3 classes."""
    return nn.Sequential(nn.Conv3d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv3d(4, 4, 3, padding=2, dilation=2),
                         nn.ReLU(), nn.Conv3d(4, 3, 1))


def volume_model_cases():
    """Two int8 segmenters (eager flow and PT2E with QwasmQuantizer) exported with qwasm_volume.RECORD and
    CLASSES, run by PyTorch on the LIA golden volume's input: their logits and the labels back on its grid;
    and the ExportError of each bad record."""
    import torch
    import torch.ao.quantization as tq
    from torch import nn

    from .common import eager_quantized
    add_to_path("..", "..", "python")
    import qwasm_volume as qv
    from qwasm_export import ExportError, export
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from qwasm_quantizer import QwasmQuantizer
    source = output_path(os.path.join("volume", "lia_float32.nii"))
    x = torch.from_numpy(qv.preprocess(source))
    rng = np.random.default_rng(SEED + 750)
    calibration = [x] + [torch.from_numpy(rng.uniform(0, 1, x.shape).astype(np.float32)) for _ in range(2)]
    cases = []

    torch.manual_seed(SEED % 1000 + 750)
    float_model = _segmenter(nn).eval()
    with torch.no_grad():  # centre each class's logit on this input, so that the labels vary
        float_model[4].bias -= float_model(x).mean(dim=(0, 2, 3, 4))
    eager = nn.Sequential(tq.QuantStub(), _segmenter(nn), tq.DeQuantStub()).eval()
    eager[1].load_state_dict(float_model.state_dict())
    tq.fuse_modules(eager[1], [["0", "1"], ["2", "3"]], inplace=True)
    eager.qconfig = tq.get_default_qconfig("fbgemm")
    tq.prepare(eager, inplace=True)
    with torch.no_grad():
        for c in calibration:
            eager(c)
    tq.convert(eager, inplace=True)

    gm = torch.export.export(float_model, (x,)).module()
    gm = prepare_pt2e(gm, QwasmQuantizer())
    for c in calibration:
        gm(c)
    pt2e = convert_pt2e(gm)

    for name, model in (("eager", eager), ("pt2e", pt2e)):
        file = f"exported/volume_segmenter_{name}.qwasm.safetensors"
        export(model, x, output_path(file), preprocessing=qv.RECORD, classes=qv.CLASSES)
        with torch.no_grad():
            logits = model(x)
        labels = qv.labels_to_input(logits.numpy(), source)
        from safetensors import safe_open
        with safe_open(output_path(file), "pt") as f:
            output_scale = json.loads(f.metadata()["graph"])["modules"]["4" if name == "pt2e" else "1.4"]["scale"]
        cases.append({"name": f"int8 segmenter ({name} flow) on the LIA volume", "file": file,
                      "output_scale": output_scale,
                      "source": "volume/lia_float32.nii", "logits": arr(logits.numpy()),
                      "labels": arr(labels.reshape(-1, order="F")),
                      "label_counts": np.bincount(labels.reshape(-1), minlength=3).tolist()})

    bad = {
        "orientation LPS": dict(preprocessing={**qv.RECORD, "orientation": "LPS"}),
        "a negative spacing": dict(preprocessing={**qv.RECORD, "spacing": [1, -1, 1]}),
        "quantiles out of order": dict(preprocessing={**qv.RECORD,
                                                      "intensity": {"kind": "quantile", "low": 0.9, "high": 0.1}}),
        "intensity kind zscore": dict(preprocessing={**qv.RECORD,
                                                     "intensity": {"kind": "zscore", "low": 0, "high": 1}}),
        "two class names for three channels": dict(preprocessing=qv.RECORD, classes=["a", "b"]),
        "an example input of 2 channels": dict(preprocessing=qv.RECORD, x=torch.cat([x, x], 1)),
    }
    errors = {}
    for what, kwargs in bad.items():
        xx = kwargs.pop("x", x)
        model = nn.Conv3d(xx.shape[1], 3, 1).eval()
        try:
            export(model, xx, output_path("volume/bad.qwasm.safetensors"), **kwargs)
            errors[what] = None
        except ExportError as e:
            errors[what] = str(e)
    bad_path = output_path("volume/bad.qwasm.safetensors")
    if os.path.exists(bad_path):
        os.remove(bad_path)
    return cases, errors
