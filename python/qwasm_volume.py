"""A segmentation model's input from a NIfTI-1 volume, and its output back as
labels on the input's grid: the Python twin of qwasm's
transforms.VolumeSegmentation (web/src/transforms/volume-segmentation.mjs).
Both give the same float32 bytes and the same labels; tests/golden/generators/
volume.py records this module's results and tests/js/transforms/ compares.
numpy only at import (nibabel when a path is loaded); no torch.

The record a model file keeps (python/qwasm_format.py, "preprocessing"):

    {"transform": "VolumeSegmentation", "orientation": "RAS", "spacing": [1.0, 1.0, 1.0],
     "intensity": {"kind": "quantile", "low": 0.01, "high": 0.99}}

The steps, exactly (docs/numerics.md, "Volumes"):

1. Values. The stored values as float64, times scl_slope plus scl_inter when
   scl_slope is nonzero and finite (NIfTI-1's rule), else as stored. A
   non-finite value after this is refused.

2. Orientation. The affine is the sform when sform_code > 0, else the qform
   when qform_code > 0 (nifti1_io.c's quaternion to matrix, float64, in the
   order of `qform_matrix` below), else diag(pixdim[1], pixdim[2], pixdim[3])
   (NIfTI-1's "method 1"; nibabel's fallback differs: it flips x and centres
   the origin). Its columns, divided by their lengths, are replaced by the
   nearest rotation (polar decomposition by Newton's iteration X <- (X + X^-T)/2,
   at most 100 steps, stopping when no entry moves by more than 1e-15); then,
   as nibabel.orientations.io_orientation, each stored axis j = 0, 1, 2 in turn
   takes the world axis of its largest |entry| among those not yet taken
   (the first on a tie). The volume is transposed and flipped to RAS+ exactly:
   output axis a holds stored axis from[a], reversed when that entry is negative.
   The voxel size along output axis a, s[a], is the length of the affine's
   column from[a]: sqrt(m0*m0 + m1*m1 + m2*m2) in float64. The model grid's
   affine (`grid_affine`) is the stored one with its columns permuted,
   negated where flipped and scaled by t / s where step 3 resamples.

3. Spacing. Axis by axis: an axis with |s - t| <= 1e-3 (t the record's
   spacing, 1 mm) is kept as it is. Another is resampled, X then Y then Z, to
       n_out = max(1, floor(n * s / t + 0.5))
   voxels, output voxel o reading input coordinate (both grids share the
   outer edge of voxel 0: the centre of voxel i is at (i + 0.5) * s)
       x = (o + 0.5) * t / s - 0.5, clamped to [0, n - 1],
       i0 = min(floor(x), n - 1), i1 = min(i0 + 1, n - 1), w1 = x - i0, w0 = 1 - w1,
       out = v[i0] * w0 + v[i1] * w1        (float64, each operation rounded once)
   computed left to right as written.

4. Intensity, "quantile". Over all voxels of step 3's volume, sorted ascending
   v[0..n-1]: lo = v[floor(low * (n - 1))], hi = v[floor(high * (n - 1))];
   r = (x - lo) / (hi - lo) in float64; out = float32(r > 0 ? (r < 1 ? r : 1) : 0)
   (rounded once, to nearest even); all zeros when hi <= lo. The tensor is
   [1, 1, X, Y, Z], C order (Z fastest).

5. Labels. The model's logits [1, C, X, Y, Z] -> argmax over C (the first
   maximum wins; NaN above everything, as torch.argmax) as uint8, then back to
   the stored grid: each resampled axis by nearest neighbour (stored voxel r
   takes output voxel min(n_out - 1, floor((r + 0.5) * s / t)), the one holding
   its centre), then the flips and the transpose undone. They are written with
   the input's header geometry (sform, qform, pixdim), uint8, scl_slope 0.
"""
import math

import numpy as np

SPACING_TOLERANCE = 1e-3
MAX_VOXELS = 2 ** 28  # the most voxels a step holds (as the JS side)
RECORD = {"transform": "VolumeSegmentation", "orientation": "RAS", "spacing": [1.0, 1.0, 1.0],
          "intensity": {"kind": "quantile", "low": 0.01, "high": 0.99}}
CLASSES = ["background", "grey matter", "white matter"]


class VolumeError(ValueError):
    """A volume or record the steps cannot take (named)."""


def check_record(record):
    """The record, checked as web/src/transforms/volume-segmentation.mjs checks it; returns a plain dict."""
    if not isinstance(record, dict):
        raise VolumeError(f"the VolumeSegmentation record must be a dict, got {type(record).__name__}")
    unknown = set(record) - {"transform", "orientation", "spacing", "intensity"}
    if unknown:
        raise VolumeError(f"the VolumeSegmentation record has unknown keys {sorted(unknown)}")
    if record.get("transform", "VolumeSegmentation") != "VolumeSegmentation":
        raise VolumeError(f"the record's transform must be 'VolumeSegmentation', got {record.get('transform')!r}")
    if record.get("orientation", "RAS") != "RAS":
        raise VolumeError(f"orientation must be 'RAS', got {record.get('orientation')!r}")
    spacing = record.get("spacing", [1.0, 1.0, 1.0])
    try:
        spacing = [float(s) for s in spacing]
    except (TypeError, ValueError) as e:
        raise VolumeError(f"spacing must be 3 numbers, got {spacing!r}") from e
    if len(spacing) != 3 or not all(math.isfinite(s) and s > 0 for s in spacing):
        raise VolumeError(f"spacing must be 3 positive finite voxel sizes (mm), got {spacing}")
    intensity = record.get("intensity", RECORD["intensity"])
    if not isinstance(intensity, dict) or set(intensity) != {"kind", "low", "high"}:
        raise VolumeError(f"intensity must be {{kind, low, high}}, got {intensity!r}")
    if intensity["kind"] != "quantile":
        raise VolumeError(f"intensity kind must be 'quantile', got {intensity['kind']!r}")
    low, high = intensity["low"], intensity["high"]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (low, high)) \
            or not 0 <= low < high <= 1:
        raise VolumeError(f"intensity needs 0 <= low < high <= 1, got low {low!r}, high {high!r}")
    return {"transform": "VolumeSegmentation", "orientation": "RAS", "spacing": spacing,
            "intensity": {"kind": "quantile", "low": float(low), "high": float(high)}}


# -- geometry (web/src/volumes/geometry.mjs, the same operations in the same order) --

def qform_matrix(b, c, d, qx, qy, qz, dx, dy, dz, qfac):
    a = 1 - (b * b + c * c + d * d)
    if a < 1e-7:
        a = 1 / math.sqrt(b * b + c * c + d * d)
        b *= a
        c *= a
        d *= a
        a = 0.0
    else:
        a = math.sqrt(a)
    xd = dx if dx > 0 else 1.0
    yd = dy if dy > 0 else 1.0
    zd = (dz if dz > 0 else 1.0) * (-1 if qfac < 0 else 1)
    return [(a * a + b * b - c * c - d * d) * xd, 2 * (b * c - a * d) * yd, 2 * (b * d + a * c) * zd, qx,
            2 * (b * c + a * d) * xd, (a * a + c * c - b * b - d * d) * yd, 2 * (c * d - a * b) * zd, qy,
            2 * (b * d - a * c) * xd, 2 * (c * d + a * b) * yd, (a * a + d * d - c * c - b * b) * zd, qz,
            0.0, 0.0, 0.0, 1.0]


def _det3(m):
    return (m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
            + m[2] * (m[3] * m[7] - m[4] * m[6]))


def _column_norm(m, j):
    return math.sqrt(m[j] * m[j] + m[3 + j] * m[3 + j] + m[6 + j] * m[6 + j])


def polar_orthogonal(m):
    x = list(m)
    for _ in range(100):
        det = _det3(x)
        if not (abs(det) > 1e-12) or not math.isfinite(det):
            return None
        cof = [x[4] * x[8] - x[5] * x[7], x[5] * x[6] - x[3] * x[8], x[3] * x[7] - x[4] * x[6],
               x[2] * x[7] - x[1] * x[8], x[0] * x[8] - x[2] * x[6], x[1] * x[6] - x[0] * x[7],
               x[1] * x[5] - x[2] * x[4], x[2] * x[3] - x[0] * x[5], x[0] * x[4] - x[1] * x[3]]
        nxt = [0.5 * (x[i] + cof[i] / det) for i in range(9)]
        moved = max(abs(nxt[i] - x[i]) for i in range(9))
        x = nxt
        if moved <= 1e-15:
            break
    return x


def ras_orientation(affine):
    """(from, flip, spacing) per output axis R, A, S (see the module docstring, step 2)."""
    m = [affine[0], affine[1], affine[2], affine[4], affine[5], affine[6], affine[8], affine[9], affine[10]]
    norms = [_column_norm(m, j) for j in range(3)]
    if not all(n > 0 and math.isfinite(n) for n in norms):
        raise VolumeError(f"the affine has a zero or non-finite voxel axis (column lengths {norms})")
    r = polar_orthogonal([v / norms[i % 3] for i, v in enumerate(m)])
    if r is None:
        raise VolumeError("the affine is singular: its voxel axes do not span 3-D space")
    frm, flip, spacing = [-1] * 3, [False] * 3, [0.0] * 3
    for j in range(3):
        best, best_abs = -1, 0.0
        for i in range(3):
            v = abs(r[i * 3 + j])
            if v > best_abs:
                best, best_abs = i, v
        if best < 0:
            raise VolumeError("the affine's axes cannot be matched to world axes")
        frm[best], flip[best], spacing[best] = j, r[best * 3 + j] < 0, norms[j]
        for k in range(3):
            r[best * 3 + k] = 0.0
    return frm, flip, spacing


def header_affine(header):
    """The affine of step 2 from a nibabel Nifti1Header's fields (as web/src/volumes/nifti.mjs)."""
    pixdim = [float(p) for p in header["pixdim"]]
    if int(header["sform_code"]) > 0:
        rows = [[float(v) for v in header[k]] for k in ("srow_x", "srow_y", "srow_z")]
        return rows[0] + rows[1] + rows[2] + [0.0, 0.0, 0.0, 1.0]
    if int(header["qform_code"]) > 0:
        q = [float(header[k]) for k in ("quatern_b", "quatern_c", "quatern_d", "qoffset_x", "qoffset_y", "qoffset_z")]
        return qform_matrix(*q, pixdim[1], pixdim[2], pixdim[3], -1 if pixdim[0] < 0 else 1)
    return [pixdim[1], 0.0, 0.0, 0.0, 0.0, pixdim[2], 0.0, 0.0, 0.0, 0.0, pixdim[3], 0.0, 0.0, 0.0, 0.0, 1.0]


def grid(dims, affine, record=RECORD):
    """The RAS grid: {shape, ras_shape, from, flip, spacing, resampled}."""
    target = check_record(record)["spacing"]
    frm, flip, spacing = ras_orientation(affine)
    ras_shape = [int(dims[d]) for d in frm]
    resampled = [abs(spacing[a] - target[a]) > SPACING_TOLERANCE for a in range(3)]
    shape = [max(1, math.floor(n * spacing[a] / target[a] + 0.5)) if resampled[a] else n
             for a, n in enumerate(ras_shape)]
    sizes = [math.prod(shape[:k] + ras_shape[k:]) for k in range(4)]
    if max(shape) > 32767 or max(sizes) > MAX_VOXELS:
        raise VolumeError(f"resampled to {target} mm the volume ({ras_shape} voxels) would be {shape}: "
                          f"a step would hold more than {MAX_VOXELS} voxels")
    return {"shape": shape, "ras_shape": ras_shape, "from": frm, "flip": flip, "spacing": spacing,
            "resampled": resampled, "target": target,
            "affine": grid_affine(affine, frm, flip, ras_shape, spacing, resampled, target)}


def grid_affine(A, frm, flip, ras_shape, spacing, resampled, target):
    """The model grid's voxel-to-world affine (16 floats): the stored affine's columns permuted, negated where
    flipped (the origin moved to the far end), scaled by t / s where resampled (the origin moved by half a
    voxel of each)."""
    out = [0.0] * 15 + [1.0]
    for r in range(3):
        origin = A[4 * r + 3]
        for a in range(3):
            col = A[4 * r + frm[a]]
            if flip[a]:
                origin = origin + col * (ras_shape[a] - 1)
                col = -col
            if resampled[a]:
                k = target[a] / spacing[a]
                origin = origin + col * (0.5 * k - 0.5)
                col = col * k
            out[4 * r + a] = col
        out[4 * r + 3] = origin
    return out


# -- the steps -----------------------------------------------------------------

def _load(image):
    if isinstance(image, (str, bytes)) or hasattr(image, "__fspath__"):
        import nibabel
        image = nibabel.load(image)
    return image


def volume_of(image):
    """(raw stored values [nx, ny, nz], affine (16 floats), slope or None, inter) of a nibabel image or path."""
    image = _load(image)
    header = image.header
    raw = np.asarray(image.dataobj.get_unscaled())
    if raw.ndim > 3:
        if any(s != 1 for s in raw.shape[3:]):
            raise VolumeError(f"a volume has 3 dimensions; this image is {list(raw.shape)}")
        raw = raw.reshape(raw.shape[:3])
    if raw.ndim != 3:
        raise VolumeError(f"a volume has 3 dimensions; this image is {list(raw.shape)}")
    # nibabel moves scl_slope / scl_inter from a loaded header to its array proxy (1 and 0 when unset)
    proxy = image.dataobj
    if hasattr(proxy, "slope"):
        slope, inter = float(proxy.slope), float(proxy.inter)
    else:
        slope, inter = float(header["scl_slope"]), float(header["scl_inter"])
    # x * 1 + 0 is x for every value these steps keep apart (only -0 becomes +0, which step 4 maps to 0 alike)
    scaled = slope != 0 and math.isfinite(slope) and (slope, inter) != (1.0, 0.0)
    return raw, header_affine(header), (slope if scaled else None), inter


def preprocess(image, record=RECORD):
    """Steps 1 to 4: the model's input, float32 [1, 1, X, Y, Z], from a nibabel image (or a path)."""
    raw, affine, slope, inter = volume_of(image)
    g = grid(raw.shape, affine, record)
    intensity = check_record(record)["intensity"]
    v = raw.astype(np.float64)
    if slope is not None:
        v = v * slope + inter
    if not np.isfinite(v).all():
        raise VolumeError("the volume holds a non-finite value after scaling")
    v = np.transpose(v, g["from"])
    v = np.flip(v, axis=[a for a in range(3) if g["flip"][a]]) if any(g["flip"]) else v
    v = np.ascontiguousarray(v)
    for a in range(3):
        if g["resampled"][a]:
            v = _resample_axis(v, a, g["shape"][a], g["spacing"][a], g["target"][a])
    flat = np.sort(v, axis=None)
    n = flat.size
    lo = flat[math.floor(intensity["low"] * (n - 1))]
    hi = flat[math.floor(intensity["high"] * (n - 1))]
    if hi > lo:
        r = (v - lo) / (hi - lo)
        out = np.where(r > 0, np.where(r < 1, r, 1.0), 0.0).astype(np.float32)
    else:
        out = np.zeros(v.shape, np.float32)
    return out[None, None]


def _taps(n, n_out, spacing, target):
    i0 = np.empty(n_out, np.int64)
    i1 = np.empty(n_out, np.int64)
    w0 = np.empty(n_out, np.float64)
    w1 = np.empty(n_out, np.float64)
    for o in range(n_out):
        x = (o + 0.5) * target / spacing - 0.5
        x = 0.0 if x < 0 else (n - 1.0 if x > n - 1 else x)
        a = min(math.floor(x), n - 1)
        i0[o], i1[o] = a, min(a + 1, n - 1)
        w1[o] = x - a
        w0[o] = 1 - w1[o]
    return i0, i1, w0, w1


def _resample_axis(v, axis, n_out, spacing, target):
    i0, i1, w0, w1 = _taps(v.shape[axis], n_out, spacing, target)
    shape = [1, 1, 1]
    shape[axis] = n_out
    return np.take(v, i0, axis=axis) * w0.reshape(shape) + np.take(v, i1, axis=axis) * w1.reshape(shape)


def argmax_labels(logits):
    """[1, C, X, Y, Z] float -> uint8 [X, Y, Z]: the first maximum (NaN first of all), as torch.argmax."""
    logits = np.asarray(logits)
    if logits.ndim != 5 or logits.shape[0] != 1 or not 1 <= logits.shape[1] <= 256:
        raise VolumeError(f"logits must be [1, C, X, Y, Z] with 1 to 256 classes, got {list(logits.shape)}")
    return np.argmax(logits[0], axis=0).astype(np.uint8)  # numpy's argmax also takes the first NaN


def labels_to_input(logits, image, record=RECORD):
    """Step 5: the labels on the input's stored grid, uint8 [nx, ny, nz]."""
    raw, affine, _, _ = volume_of(image)
    g = grid(raw.shape, affine, record)
    lab = argmax_labels(logits)
    if list(lab.shape) != g["shape"]:
        raise VolumeError(f"logits are {list(lab.shape)} over space, the grid is {g['shape']}")
    for a in range(3):
        if g["resampled"][a]:
            n = g["ras_shape"][a]
            near = [min(g["shape"][a] - 1, math.floor((r + 0.5) * g["spacing"][a] / g["target"][a]))
                    for r in range(n)]
            lab = np.take(lab, np.asarray(near, np.int64), axis=a)
    if any(g["flip"]):
        lab = np.flip(lab, axis=[a for a in range(3) if g["flip"][a]])
    return np.ascontiguousarray(np.transpose(lab, np.argsort(g["from"])))


def save_labels(labels, image, path):
    """Writes uint8 labels on the input's grid as NIfTI-1 with the input's sform and qform (nibabel)."""
    import nibabel
    image = _load(image)
    header = image.header.copy()
    header.set_data_dtype(np.uint8)
    header["scl_slope"], header["scl_inter"] = 0, 0
    out = nibabel.Nifti1Image(np.asarray(labels, np.uint8), None, header)
    out.set_sform(*image.header.get_sform(coded=True))
    out.set_qform(*image.header.get_qform(coded=True))
    nibabel.save(out, path)
