// The demo's Model view on real video, in Chromium, Firefox and WebKit: the
// committed generated clip (tests/golden/clip.webm, VP8, 48 frames at 15 fps)
// dropped into the page is decoded by the browser, 16 frames are sampled at
// 15 fps from its middle (each frame carries its index as a grey patch, so
// the test reads which frames the browser gave), preprocessed as the model
// file records (torchvision's Kinetics recipe) and run in the model worker;
// the top-5 table equals what the API gives in Node on the same decoded
// frames, int8 and then, after loading the float twin, float. In Chromium the
// camera (a fake device) runs the same path. No page error, no missing file.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { top5 } from '../../demo/top5.mjs';
import * as qwasm from '../../web/src/index.node.mjs';
import { clipTimes } from '../../web/src/transforms/video-clip.mjs';
import { OUTPUT_DIR } from './browser.mjs';
import { CLIP, markerIndex } from './clip-marker.mjs';
import { useDemoPages } from './demo-page.mjs';
import { engineTest, selectedEngines } from './engines.mjs';

const golden = (name) => readFileSync(fileURLToPath(new URL(`../golden/${name}`, import.meta.url)));
const js = JSON.stringify;
const click = (id) => `document.getElementById(${js(id)}).click()`;
const status = `document.getElementById('m-status').textContent`;
const chooseVideo = (bytes) => `(() => {
  const bytes = Uint8Array.from(atob(${js(Buffer.from(bytes).toString('base64'))}), (c) => c.charCodeAt(0));
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], 'clip.webm', { type: 'video/webm' }));
  const input = document.getElementById('m-video-file');
  input.files = dt.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
})()`;
// The clip the page sampled: each frame's RGBA bytes (base64), size and time.
const SAMPLED = `(() => {
  const { clip } = window.qwasmDemo.model;
  const b64 = (d) => { let s = ''; for (let i = 0; i < d.length; i += 0x8000) s += String.fromCharCode(...d.subarray(i, i + 0x8000)); return btoa(s); };
  return { name: clip.name, duration: clip.duration, times: clip.times, frames: clip.frames.map((f) => ({ width: f.width, height: f.height, b64: b64(f.data) })) };
})()`;
const TOP5 = `[...document.querySelectorAll('#m-top5 tbody tr')].map((r) => ({ int8: r.dataset.int8, float: r.dataset.float, cells: [...r.cells].map((c) => c.textContent) }))`;

const framesOf = (sampled) =>
  sampled.frames.map((f) => ({
    data: new Uint8ClampedArray(Buffer.from(f.b64, 'base64')),
    width: f.width,
    height: f.height,
  }));

// The page's table against the API in Node: same classes in the same order, probabilities to 4 decimals.
function expectTable(rows, int8, float) {
  expect(rows).toHaveLength(5);
  rows.forEach((r, i) => {
    expect([r.int8, r.cells[1], r.cells[2]]).toEqual([String(int8[i].index), int8[i].name, int8[i].p.toFixed(4)]);
    if (float)
      expect([r.float, r.cells[3], r.cells[4]]).toEqual([String(float[i].index), float[i].name, float[i].p.toFixed(4)]);
    else expect(r.cells.slice(3)).toEqual(['', '']);
  });
}

const file = (name) => golden(`exported/${name}`);
let int8Model;
let floatModel;
beforeAll(async () => {
  await qwasm.init();
  int8Model = qwasm.io.loadModel(file('r3d_18.qwasm.safetensors'));
  floatModel = qwasm.io.loadModel(file('r3d_18_float.qwasm.safetensors'));
});
afterAll(() => {
  int8Model?.dispose();
  floatModel?.dispose();
});

/** What the page should show for these frames: the API's top 5, int8 and float. */
function expectedTop5(frames) {
  const x = int8Model.transforms().forward(frames);
  return {
    int8: top5(int8Model.forward(x).data, int8Model.classes),
    float: top5(floatModel.forward(x).data, floatModel.classes),
  };
}

describe.each(selectedEngines())('%s', (engineName) => {
  const it = engineTest(engineName, test);
  // A fresh demo page per test, with the built-in r3d_18 loaded in the Model view.
  const pages = useDemoPages(engineName, {
    beforeEachMs: 150_000,
    afterOpen: async (page) => {
      await page.evaluate(click('tab-model'));
      await page.evaluate(click('m-builtin'));
      await page.waitFor(`${status} === 'Loaded r3d_18 (1/8 width).'`, 60_000);
    },
  });
  const { problems } = pages;
  let tab;
  beforeEach(() => {
    tab = pages.tab();
  });

  it('a dropped video is sampled, preprocessed and run: top-5 int8, then beside float, as the API gives them', async () => {
    expect(await tab.evaluate(`!document.getElementById('m-random-note').hidden`)).toBe(true);
    await tab.evaluate(chooseVideo(golden('clip.webm')));
    await tab.waitFor(`${status} === 'Ran r3d_18 (1/8 width).'`, 120_000);
    const sampled = await tab.evaluate(SAMPLED);
    const frames = framesOf(sampled);
    // 16 frames at 15 fps from the middle of the 3.2 s clip: frames 16..31, each decoded at the time asked.
    // (The browser's duration: 3.2 s, give or take a frame, by how its demuxer counts the last one.)
    expect(Math.abs(sampled.duration - CLIP.frames / CLIP.fps)).toBeLessThan(1 / CLIP.fps);
    expect(sampled.times).toEqual(clipTimes(sampled.duration, 16, CLIP.fps));
    expect(frames.map(markerIndex)).toEqual(Array.from({ length: 16 }, (_, i) => 16 + i));
    expect(frames.every((f) => f.width === CLIP.width && f.height === CLIP.height)).toBe(true);
    expect(await tab.evaluate(`document.querySelectorAll('#m-filmstrip canvas').length`)).toBe(16);
    expect(await tab.evaluate(`document.getElementById('m-clip-caption').textContent`)).toMatch(
      /^Input: clip\.webm: 16 frames of 176x144 at 1\.10, .*, 2\.10 s, resized and cropped to 112x112 with the file's preprocessing\.$/,
    );
    const want = expectedTop5(frames);
    expectTable(await tab.evaluate(TOP5), want.int8, null);
    expect(want.int8[0].name).toBe(int8Model.classes[want.int8[0].index]); // Kinetics-400 names, from the file
    // With the float twin loaded (the numeric suite on this clip), the next run fills the float column.
    await tab.evaluate(click('m-compare'));
    await tab.waitFor(`${status}.startsWith('Compared ')`, 120_000);
    await tab.evaluate(click('m-run'));
    await tab.waitFor(
      `${status} === 'Ran r3d_18 (1/8 width).' && !!document.querySelector('#m-top5 tbody tr')?.dataset.float`,
      120_000,
    );
    expectTable(await tab.evaluate(TOP5), want.int8, want.float);
    await tab.screenshot(fileURLToPath(new URL(`model-video-${engineName}.png`, OUTPUT_DIR)));
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 300_000);

  it('a file that is not a video says so; the sample video gives the same clip; the synthetic clip comes back', async () => {
    await tab.evaluate(chooseVideo(new TextEncoder().encode('not a video at all')));
    await tab.waitFor(`!document.getElementById('m-error').hidden`, 60_000);
    expect(await tab.evaluate(`document.getElementById('m-error').textContent`)).toMatch(
      /^io\.readVideoFrames\(source\): loading the video: the browser cannot decode this video/,
    );
    await tab.evaluate(click('m-sample-video'));
    await tab.waitFor(`${status} === 'Ran r3d_18 (1/8 width).'`, 120_000);
    expect(await tab.evaluate(`document.getElementById('m-error').hidden`)).toBe(true);
    const sampled = await tab.evaluate(SAMPLED);
    expect(sampled.name).toBe('the sample video (generated)');
    expect(framesOf(sampled).map(markerIndex)).toEqual(Array.from({ length: 16 }, (_, i) => 16 + i));
    await tab.evaluate(click('m-synthetic'));
    await tab.waitFor(
      `${status} === 'Ran r3d_18 (1/8 width).' && document.getElementById('m-filmstrip').childElementCount === 0`,
      120_000,
    );
    expect(await tab.evaluate(`document.getElementById('m-clip-caption').textContent`)).toBe(
      'Input: the synthetic clip.',
    );
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 300_000);

  // Chromium has a fake camera (tests/browser/browser.mjs); the others would ask the user.
  (engineName === 'chromium' ? it : test.skip)(
    'the camera: 16 frames recorded at 15 fps, run as a video is',
    async () => {
      await tab.evaluate(click('m-camera'));
      await tab.waitFor(`${status} === 'Ran r3d_18 (1/8 width).'`, 120_000);
      const sampled = await tab.evaluate(SAMPLED);
      expect(sampled.name).toBe('the camera');
      expect(sampled.frames).toHaveLength(16);
      // Frame i is taken no earlier than i / 15 s after the first (a loaded machine only delays frames).
      expect(sampled.times.every((t, i) => t >= i / 15 - 0.002)).toBe(true);
      const frames = framesOf(sampled);
      expectTable(await tab.evaluate(TOP5), expectedTop5(frames).int8, null);
      expect(await problems()).toEqual({ inPage: [], missing: [] });
    },
    300_000,
  );
});
