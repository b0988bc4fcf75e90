// transforms.VideoClassification against torchvision's VideoClassification
// preset (tests/golden/video_transforms.json): the same float32 bits for every
// element. torchvision resizes with PyTorch's generic bilinear kernel when it
// runs on more than one thread (the goldens run on two); its one-thread
// kernel rounds a few pixels the other way, which each case records.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, lcgBytes, loadGolden } from '../util.mjs';

const golden = loadGolden('video_transforms.json');

/** The golden's (T, C, H, W) uint8 frames as the RGB (or RGBA) frames a canvas gives. */
function framesOf({ lcg, shape }, channels = 3) {
  const [T, C, H, W] = shape;
  const bytes = lcgBytes(lcg, T * C * H * W);
  return Array.from({ length: T }, (_, t) => {
    const data = new Uint8ClampedArray(H * W * channels).fill(7); // alpha: ignored
    for (let c = 0; c < C; c++) for (let i = 0; i < H * W; i++) data[i * channels + c] = bytes[(t * C + c) * H * W + i];
    return { data, width: W, height: H };
  });
}

describe.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  const want = decode(c.y);
  test.each([3, 4])('%i-channel frames give torchvision bits', (channels) => {
    const transform = new qwasm.transforms.VideoClassification(c.options);
    const got = transform.forward(framesOf(c.frames, channels));
    expect(got.shape).toEqual(c.y.shape);
    const at = firstBitDifference(got.data, want);
    if (at >= 0) console.log(`${name}: element ${at} is ${got.data[at]}, torchvision ${want[at]}`);
    expect(at).toBe(-1);
  });
});

test('the goldens cover the cases the issue names', () => {
  const names = golden.cases.map((c) => c.name).join('\n');
  for (const part of ['down to 128x171', 'up to 128x171', 'shorter side', 'no resize', 'zero padding'])
    expect(names).toContain(part);
});

// README ("Known differences") and docs/numerics.md quote how many values per
// frame PyTorch's one-thread kernel rounds the other way: the goldens' range.
test("the docs' count of values the one-thread kernel changes is the goldens'", () => {
  const perFrame = golden.cases.map((c) => c.one_thread_elements_differ / c.frames.shape[0]);
  const claim = `0 to ${Math.max(...perFrame)} of`;
  expect(Math.min(...perFrame)).toBe(0);
  for (const doc of ['../../../README.md', '../../../docs/numerics.md']) {
    const text = readFileSync(new URL(doc, import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(text).toContain(`${claim} ${doc.endsWith('README.md') ? 'the ' : ''}37,632`);
  }
});
