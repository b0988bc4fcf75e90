"""clip.webm: a small generated video (VP8 in WebM, which Chromium, Firefox and
WebKitGTK's GStreamer all decode) for the demo's video input: 48 frames of
176x144 at 15 fps (3.2 s). Each frame has a smooth background, a bright square
circling, and a flat 24x24 patch at the top-left whose grey level is
MARKER_BASE + MARKER_STEP * frame index: a test reads which frame a browser
decoded at a time from it. Needs PyAV (pip install av; its wheel carries
libvpx), not torch. clip.json records the layout."""
import json

import numpy as np

from .common import output_path

FPS, FRAMES, WIDTH, HEIGHT = 15, 48, 176, 144
MARKER, MARKER_BASE, MARKER_STEP = 24, 20, 4


def frame(i):
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float64)
    rgb = np.stack([60 + 80 * x / WIDTH, 50 + 90 * y / HEIGHT, 140 - 60 * x / WIDTH], axis=-1)
    cx = WIDTH / 2 + 45 * np.cos(2 * np.pi * i / FRAMES)
    cy = HEIGHT / 2 + 35 * np.sin(2 * np.pi * i / FRAMES)
    rgb[(abs(x - cx) < 14) & (abs(y - cy) < 14)] = (240, 230, 90)
    rgb[:MARKER, :MARKER] = MARKER_BASE + MARKER_STEP * i
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def write_video_clip():
    import av

    path = output_path("clip.webm")
    with av.open(path, "w", format="webm") as out:
        stream = out.add_stream("libvpx", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        stream.bit_rate = 1_500_000
        stream.options = {"crf": "4", "deadline": "best"}  # near-lossless: the markers must survive
        for i in range(FRAMES):
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame(i), format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    # Read it back: every frame decodes, and its marker names it.
    with av.open(path) as f:
        decoded = [fr.to_ndarray(format="rgb24") for fr in f.decode(video=0)]
    assert len(decoded) == FRAMES, len(decoded)
    for i, d in enumerate(decoded):
        level = d[4:MARKER - 4, 4:MARKER - 4].mean()
        assert round((level - MARKER_BASE) / MARKER_STEP) == i, (i, level)
    meta = {"file": "clip.webm", "fps": FPS, "frames": FRAMES, "width": WIDTH, "height": HEIGHT,
            "marker": {"size": MARKER, "base": MARKER_BASE, "step": MARKER_STEP}, "pyav": av.__version__}
    with open(output_path("clip.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"wrote tests/golden/clip.webm: {FRAMES} frames {WIDTH}x{HEIGHT} at {FPS} fps")
