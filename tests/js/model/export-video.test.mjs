// The exporter's video entries, run where python3 has torch and torchvision (a
// developer's machine; CI has neither: the committed files and
// video_transforms.json cover the loader and the numbers there). One Python
// run exports a small float video model with qwasm_video.kinetics400's
// preprocessing and class names, runs torchvision's own transform on LCG
// frames, and records the ExportError of each bad entry; then qwasm loads the
// file and its model.transforms() must give torchvision's bits.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as qwasm from '../../../web/src/index.node.mjs';
import { ROOT } from '../readme-blocks.mjs';

const hasTorchvision = spawnSync('python3', ['-c', 'import torch, torchvision'], { encoding: 'utf8' }).status === 0;
const work = mkdtempSync(join(tmpdir(), 'qwasm-export-video-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PYTHON = `import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'python'))})
import numpy as np, torch
from torch import nn
from qwasm_export import ExportError, export
from qwasm_video import kinetics400

class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 4, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(4, 400)
    def forward(self, x):
        return self.fc(self.pool(torch.relu(self.conv(x))).flatten(1))

torch.manual_seed(0)
torch.set_num_threads(2)  # PyTorch's generic bilinear kernel, which qwasm follows (docs/numerics.md)
model, x = Tiny().eval(), torch.zeros(1, 3, 4, 112, 112)
video = kinetics400("r3d_18")
export(model, x, ${JSON.stringify(join(work, 'tiny.qwasm.safetensors'))}, **video)
frames = torch.from_numpy(np.random.default_rng(3).integers(0, 256, (4, 3, 150, 200), dtype=np.uint8))
out = {"frames": frames.numpy().tobytes().hex(), "y": video["preprocessing"](frames).numpy().tobytes().hex(), "errors": {}}
bad = {
    "classes": dict(classes=["a", "b"]),
    "crop": dict(preprocessing={"crop_size": [100, 100], "resize_size": [128], "mean": [0, 0, 0], "std": [1, 1, 1]}),
    "transform": dict(preprocessing=torch.nn.Identity()),
    "reserved": dict(metadata={"graph": "{}"}),
    "std": dict(preprocessing={"crop_size": [112, 112], "resize_size": [128], "mean": [0, 0, 0], "std": [1, 0, 1]}),
    "nan": dict(preprocessing={"crop_size": [112, 112], "resize_size": [128], "mean": [float("nan")] * 3, "std": [1] * 3}),
    "resize": dict(preprocessing={"crop_size": [112, 112], "resize_size": [0], "mean": [0] * 3, "std": [1] * 3}),
    "two means": dict(preprocessing={"crop_size": [112, 112], "resize_size": [128], "mean": [0, 0], "std": [1]}),
    "one string": dict(classes="abc"),
    "long name": dict(classes=["x" * 2000] * 400),
}
# A generator of names is read once (and a mean of one value is broadcast, as torchvision does).
export(model, x, ${JSON.stringify(join(work, 'gen.qwasm.safetensors'))}, classes=(f"c{i}" for i in range(400)),
       preprocessing={"crop_size": 112, "resize_size": [128], "mean": [0.5], "std": [0.25]})
for name, kwargs in bad.items():
    try:
        export(model, x, ${JSON.stringify(join(work, 'bad.qwasm.safetensors'))}, **kwargs)
        out["errors"][name] = None
    except ExportError as e:
        out["errors"][name] = str(e)
print(json.dumps(out))
`;

(hasTorchvision ? describe : describe.skip)('export(..., preprocessing=, classes=) with torch and torchvision', () => {
  let out;
  beforeAll(async () => {
    await qwasm.init();
    const r = spawnSync('python3', ['-c', PYTHON], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(r.stderr);
    out = JSON.parse(r.stdout);
  }, 180_000);

  test("the file's transforms() gives torchvision's bits on the same frames", () => {
    const model = qwasm.io.loadModel(readFileSync(join(work, 'tiny.qwasm.safetensors')));
    expect(model.classes).toHaveLength(400);
    expect(model.preprocessing).toEqual({
      cropSize: [112, 112],
      resizeSize: [128, 171],
      mean: [0.43216, 0.394666, 0.37645],
      std: [0.22803, 0.22145, 0.216989],
      interpolation: 'bilinear',
    });
    const chw = Buffer.from(out.frames, 'hex'); // (T, C, H, W) uint8
    const frames = Array.from({ length: 4 }, (_, t) => {
      const data = new Uint8Array(150 * 200 * 3);
      for (let c = 0; c < 3; c++)
        for (let i = 0; i < 150 * 200; i++) data[i * 3 + c] = chw[(t * 3 + c) * 150 * 200 + i];
      return { data, width: 200, height: 150 };
    });
    const got = model.transforms().forward(frames);
    const want = new Float32Array(new Uint8Array(Buffer.from(out.y, 'hex')).buffer);
    expect(got.shape).toEqual([1, 3, 4, 112, 112]);
    expect(Buffer.from(got.data.buffer).equals(Buffer.from(want.buffer))).toBe(true);
    model.forward(got);
    model.dispose();
  });

  test('a generator of class names and one mean for all channels export, and load', () => {
    const model = qwasm.io.loadModel(readFileSync(join(work, 'gen.qwasm.safetensors')));
    expect(model.classes.slice(0, 2)).toEqual(['c0', 'c1']);
    expect(model.preprocessing.mean).toEqual([0.5]);
    expect(model.preprocessing.cropSize).toEqual([112, 112]);
    model.dispose();
  });

  test.each([
    ['classes', /2 class names for an output of shape \[1, 400\]: give one name per output/],
    [
      'crop',
      /preprocessing makes \[N, 3, T, 100, 100\] \(RGB frames cropped\), but the example input is \[1, 3, 4, 112, 112\]/,
    ],
    ['transform', /preprocessing must be torchvision's VideoClassification .* got Identity/],
    ['reserved', /metadata key 'graph' is the exporter's/],
    ['std', /preprocessing std must be 1 or 3 finite, nonzero values \(RGB\)/],
    ['nan', /preprocessing mean must be 1 or 3 finite values \(RGB\), got \[nan, nan, nan\]/],
    ['resize', /preprocessing resize_size must be 1 or 2 integers from 1 to 16384, got \[0\]/],
    ['two means', /preprocessing mean must be 1 or 3 finite values/],
    ['one string', /classes must be a list of names, not one string/],
    ['long name', /classes must be a non-empty list of strings of at most 1000 characters/],
  ])('a bad %s entry is an ExportError that says why', (name, message) => {
    expect(out.errors[name]).toMatch(message);
  });
});
