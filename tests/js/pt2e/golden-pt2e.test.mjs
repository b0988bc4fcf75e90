// Models quantized by torchao's PT2E flow (torch.export, prepare_pt2e,
// convert_pt2e) and exported by python/qwasm_export.py (tests/golden/pt2e.json,
// tests/golden/exported/pt2e_*.qwasm.safetensors): r3d_18, r2plus1d_18 and a
// small 2D CNN with QwasmQuantizer, the 2D CNN with X86InductorQuantizer (a
// mixed float/int8 graph) and with XNNPACKQuantizer (int8 activations).
//
// PyTorch's converted graph computes each quantized op in float (dequantize,
// float op, quantize); qwasm computes it exactly in integers. So the bounds
// are the ones docs/numerics.md states, not bit equality:
// - per layer, given PyTorch's own quantized input, the output's scale and
//   zero point are PyTorch's, and the integers differ by at most 1 on at
//   most 1% of the elements;
// - end to end, the top-1 class is PyTorch's and each output is within 2 steps
//   of the output scale (for a float output, X86InductorQuantizer's logits,
//   within 2 steps of the last quantized activation's scale times the largest
//   row sum of |fc weights|, the float layer's own bound).
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, initGolden, lcgBytes, loadGolden } from '../util.mjs';
import { checkLayers } from './layer-steps.mjs';

const golden = loadGolden('pt2e.json');
beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

const load = (c) => qwasm.io.loadModel(readFileSync(new URL(`../../golden/${c.file}`, import.meta.url)));

// The clip both sides build: (byte - 128) / 64 from the seeded LCG.
function clip({ lcg, shape }) {
  const bytes = lcgBytes(
    lcg,
    shape.reduce((a, b) => a * b, 1),
  );
  return { data: Float32Array.from(bytes, (b) => (b - 128) / 64), shape };
}

const argmax = (a) => a.reduce((best, v, i) => (v > a[best] ? i : best), 0);

describe.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  test('every conv and linear QwasmQuantizer annotates runs in int8 (no float conv or linear left)', () => {
    const model = load(c);
    try {
      const { nn } = qwasm;
      const floatTypes = [nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear];
      const float = model
        .namedModules()
        .filter(([, m]) => floatTypes.some((T) => m instanceof T))
        .map(([p]) => p);
      const quantized = model
        .namedModules()
        .filter(([, m]) => typeof m.backend === 'string')
        .map(([p]) => p);
      // Quantized layers are the golden's (by module path); the float ones are left only where the quantizer left them.
      expect(quantized.sort()).toEqual(c.layers.map((l) => l.path).sort());
      // QwasmQuantizer leaves none in float; X86InductorQuantizer leaves the conv it fuses with a
      // residual add, and the last linear; XNNPACKQuantizer quantizes every conv and linear of this model.
      expect(float).toEqual(c.float_layers);
    } finally {
      model.dispose();
    }
  });

  test.each(['wasmsimd', 'scalar'])(
    'per layer, on PyTorch quantized input: same qparams, at most 1 step on at most 1%% (%s kernels)',
    (isa) => {
      qwasm.setKernelIsa(isa);
      console.log(`${name} (${isa}): ${checkLayers(() => load(c), c.layers)}`);
    },
  );

  test.each(c.clips.map((k, i) => [i, k.input.shape, k]))(
    'end to end, clip %i %j: top-1 equal, outputs within 2 steps',
    (i, shape, k) => {
      const model = load(c);
      try {
        const y = model.forward(clip(k.input));
        const want = decode(k.y);
        expect(y.shape).toEqual(k.y.shape);
        const step = c.output_qparams ? c.output_qparams.scale : floatOutputStep(model);
        // A dequantized output is (q - zero point) * scale on both sides: count whole steps.
        // A float output: its difference in units of the bound's step.
        let steps = 0;
        for (let j = 0; j < want.length; j++) {
          const off = c.output_qparams
            ? Math.abs(Math.round(y.data[j] / step) - Math.round(want[j] / step))
            : Math.abs(y.data[j] - want[j]) / step;
          steps = Math.max(steps, off);
        }
        console.log(`${name} clip ${i}: largest difference ${steps.toFixed(3)} steps`);
        const classes = k.y.shape[1];
        const top1 = (a) =>
          Array.from({ length: a.length / classes }, (_, b) => argmax(a.subarray(b * classes, (b + 1) * classes)));
        expect({ top1: top1(y.data), within2Steps: steps <= 2 }).toEqual({ top1: top1(want), within2Steps: true });
      } finally {
        model.dispose();
      }
    },
  );
});

// A float last layer (X86InductorQuantizer leaves the logits float): one step
// of its quantized input moves an output by at most the scale times the
// largest row sum of |weights|. The last layer is the last module; its input's
// scale is the last Quantize's (the graph quantizes, then dequantizes before it).
function floatOutputStep(model) {
  const modules = model.namedModules();
  const [, fc] = modules[modules.length - 1];
  const input = modules.filter(([, m]) => m instanceof qwasm.nn.quantized.Quantize).at(-1)[1];
  const w = fc.weight;
  const rows = w.shape[0];
  const cols = w.shape[1];
  let largest = 0;
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let j = 0; j < cols; j++) s += Math.abs(w.data[r * cols + j]);
    largest = Math.max(largest, s);
  }
  return input.scale * largest;
}
