"""The training data of the brain MeshNet: nilearn's copy of the MNI152 2009c symmetric template (T1 and
its grey- and white-matter probability maps, 197 x 233 x 189, 1 mm, RAS), read from the installed wheel;
the held-out slab and the training region; patches, augmentation, Dice.

Labels: argmax over [255 - gm - wm, gm, wm] of the maps' stored uint8 values (probability x 255; the
first maximum wins, as torch.argmax): 0 background (everything that is neither grey nor white matter,
CSF included), 1 grey matter, 2 white matter.

Held out: the axial slab k in [SLAB_LO, SLAB_HI) (30 mm through the middle of the volume's 189 axial
planes). Evaluating it reads the input k in [SLAB_LO - HALO, SLAB_HI + HALO) (every slab voxel's
receptive field); training patches lie entirely outside that range too, so no voxel a held-out output
depends on is ever a training input.
"""
import os

import nibabel as nib
import numpy as np
import torch
import torch.nn.functional as F

from meshnet_model import HALO

SLAB_LO, SLAB_HI = 80, 110  # the held-out axial planes (k, the Superior axis); 30 mm around k = 94.5
EVAL_LO, EVAL_HI = SLAB_LO - HALO, SLAB_HI + HALO  # the input the held-out outputs read


def template_path(kind):
    """nilearn's installed copy of the 2009c template's `kind` ('t1', 'gm' or 'wm') volume."""
    import nilearn
    return os.path.join(os.path.dirname(nilearn.__file__), "datasets", "data",
                        f"mni_icbm152_{kind}_tal_nlin_sym_09a_converted.nii.gz")


def _stored(kind):
    """The volume's values (NIfTI-1 scaling applied when scl_slope is set), float64, checked to be RAS 1 mm:
    then the array is already the spec's model input grid, no reorientation or resampling."""
    img = nib.load(template_path(kind))
    if nib.aff2axcodes(img.affine) != ("R", "A", "S") or not np.allclose(img.header.get_zooms()[:3], 1.0):
        raise ValueError(f"{template_path(kind)} is not RAS at 1 mm")
    raw = np.asanyarray(img.dataobj).astype(np.float64)  # nibabel applies scl_slope / scl_inter (unset here)
    return raw, img.affine


def _qwasm_volume():
    """python/qwasm_volume.py: the same steps qwasm's VolumeSegmentation runs in the browser."""
    import sys
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python")
    if path not in sys.path:
        sys.path.insert(0, path)
    import qwasm_volume
    return qwasm_volume


def load_template():
    """(t1, labels, affine): t1 the model's input grid normalised by the spec (float32, X x Y x Z),
    labels uint8 by the module's rule."""
    _, affine = _stored("t1")  # checks RAS at 1 mm: the model grid is the stored one
    t1 = _qwasm_volume().preprocess(template_path("t1"))[0, 0]
    gm, _ = _stored("gm")
    wm, _ = _stored("wm")
    labels = np.argmax(np.stack([255.0 - gm - wm, gm, wm]), axis=0).astype(np.uint8)
    return t1, labels, affine


def slab_input(t1):
    """The held-out outputs' input: all i and j, k in [EVAL_LO, EVAL_HI), as [1, 1, X, Y, K]."""
    return torch.from_numpy(np.ascontiguousarray(t1[:, :, EVAL_LO:EVAL_HI]))[None, None]


def slab_of(output_volume):
    """The held-out slab's part of a model output over slab_input (the last axis k)."""
    return output_volume[..., SLAB_LO - EVAL_LO:SLAB_HI - EVAL_LO]


def slab_labels(labels):
    """The held-out slab's true labels, X x Y x (SLAB_HI - SLAB_LO)."""
    return np.ascontiguousarray(labels[:, :, SLAB_LO:SLAB_HI])


def training_k_starts(depth, size_k):
    """Every patch start k0 whose planes [k0, k0 + size_k) avoid [EVAL_LO, EVAL_HI)."""
    below = range(0, EVAL_LO - size_k + 1)
    above = range(EVAL_HI, depth - size_k + 1)
    return list(below) + list(above)


def sample_patch(t1, labels, size, rng, brain_bias=0.8):
    """(x, y) numpy patch of `size` from the training region: with probability brain_bias its centre is a
    random grey- or white-matter voxel (clamped so the patch fits), else uniform."""
    sx, sy, sz = size
    X, Y, Z = t1.shape
    starts_k = np.array(training_k_starts(Z, sz))
    if rng.random() < brain_bias:
        k0 = int(rng.choice(starts_k))
        i, j = np.nonzero(labels[:, :, k0 + sz // 2] > 0)
        if len(i):
            c = rng.integers(len(i))
            i0 = int(np.clip(i[c] - sx // 2, 0, X - sx))
            j0 = int(np.clip(j[c] - sy // 2, 0, Y - sy))
        else:
            i0, j0 = int(rng.integers(X - sx + 1)), int(rng.integers(Y - sy + 1))
    else:
        k0 = int(rng.choice(starts_k))
        i0, j0 = int(rng.integers(X - sx + 1)), int(rng.integers(Y - sy + 1))
    assert k0 + sz <= EVAL_LO or k0 >= EVAL_HI  # never the held-out outputs' input
    sl = np.s_[i0:i0 + sx, j0:j0 + sy, k0:k0 + sz]
    return t1[sl], labels[sl]


def augment(x, y, rng):
    """x (normalised patch, float32 numpy), y (labels): a random left-right flip (the symmetric template
    mirrors onto itself), a smooth multiplicative bias field (a random 4 x 4 x 4 grid of log-gains within
    +-0.25, trilinearly upsampled), intensity scale and shift, Gaussian noise. Only L/R flips: the model
    always sees RAS inputs (the spec's orientation step), so A/P or S/I mirror images would be unreal."""
    if rng.random() < 0.5:
        x, y = x[::-1], y[::-1]
    x = torch.from_numpy(np.ascontiguousarray(x))
    if rng.random() < 0.8:
        grid = torch.from_numpy(rng.uniform(-0.25, 0.25, (1, 1, 4, 4, 4)).astype(np.float32))
        field = F.interpolate(grid, size=x.shape, mode="trilinear", align_corners=True)[0, 0]
        x = x * torch.exp(field)
    if rng.random() < 0.8:
        x = x * float(rng.uniform(0.85, 1.15)) + float(rng.uniform(-0.08, 0.08))
    if rng.random() < 0.5:
        gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
        x = x + float(rng.uniform(0, 0.04)) * torch.randn(x.shape, generator=gen)
    return x.float(), torch.from_numpy(np.ascontiguousarray(y)).long()


def dice(pred, truth, classes=3):
    """Dice per class of two label volumes: 2 |P & T| / (|P| + |T|) (1.0 when both are empty)."""
    pred, truth = np.asarray(pred).ravel(), np.asarray(truth).ravel()
    out = []
    for c in range(classes):
        p, t = pred == c, truth == c
        denominator = int(p.sum()) + int(t.sum())
        out.append(1.0 if denominator == 0 else 2.0 * int((p & t).sum()) / denominator)
    return out
