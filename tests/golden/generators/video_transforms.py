"""video_transforms.json: torchvision's VideoClassification preset (what
R3D_18_Weights.KINETICS400_V1.transforms() returns) on uint8 frames.

Frames are (T, C, H, W) uint8 from the LCG both sides run (memory_formats.py
lcg_bytes, tests/js/util.mjs lcgBytes), one byte per element in T, C, H, W
order. PyTorch's bilinear resize takes one of two float32 kernels:
the generic one (more than one thread, or an output height + width above
128) or a channels-last one (one thread and 3 channels, or small outputs);
they differ in the last float bit, which after rounding to uint8 moves a few
pixels by one step. qwasm follows the generic kernel, so the goldens run
with 2 threads and outputs above 128; each case also records how many output
elements the one-thread kernel changes."""
import numpy as np
import torch

from .common import arr
from .memory_formats import lcg_bytes


def lcg_frames(seed, shape):
    return torch.from_numpy(lcg_bytes(seed, int(np.prod(shape))).reshape(shape))


CASES = [
    # name, frames (T, H, W), resize_size, crop_size, mean/std (None: Kinetics)
    ("kinetics: 180x240 down to 128x171, crop 112", (2, 180, 240), [128, 171], [112, 112], None),
    ("kinetics: 64x86 up to 128x171, crop 112", (1, 64, 86), [128, 171], [112, 112], None),
    ("shorter side 128 of a 100x210 frame, crop 112", (1, 100, 210), [128], [112, 112], None),
    ("shorter side 120 of a portrait 150x96 frame, crop 100x90", (1, 150, 96), [120], [100, 90], None),
    ("no resize (the frame is 128x171), crop 112", (1, 128, 171), [128, 171], [112, 112], None),
    ("crop larger than the frame: zero padding, own mean and std", (1, 90, 100), [96, 105], [112, 120],
     ([0.5, 0.25, 0.125], [0.2, 0.3, 0.4])),
    ("one mean and std for all three channels (broadcast)", (1, 120, 160), [128, 171], [112, 112], ([0.5], [0.25])),
]


def video_transform_cases():
    from torchvision.transforms._presets import VideoClassification
    threads = torch.get_num_threads()
    cases = []
    for i, (name, (t, h, w), resize, crop, norm) in enumerate(CASES):
        seed = 500 + i
        frames = lcg_frames(seed, (t, 3, h, w))
        kwargs = {"crop_size": crop, "resize_size": resize}
        if norm is not None:
            kwargs.update(mean=norm[0], std=norm[1])
        transform = VideoClassification(**kwargs)
        torch.set_num_threads(2)
        y = transform(frames)  # (C, T, H, W)
        torch.set_num_threads(1)
        y1 = transform(frames)
        torch.set_num_threads(threads)
        cases.append({"name": name, "frames": {"lcg": seed, "shape": [t, 3, h, w]},
                      "options": {"cropSize": crop, "resizeSize": resize, "mean": transform.mean,
                                  "std": transform.std},
                      "y": arr(y.unsqueeze(0).numpy()),
                      "one_thread_elements_differ": int((y1 != y).sum())})
    return cases
