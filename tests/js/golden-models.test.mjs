// Three 3D CNNs through the whole eager flow, against PyTorch 2.15
// (tests/golden/models.json): the model built layer for layer in JS with
// PyTorch's float weights, fuseModules, the default x86 QConfig, prepare,
// calibration on the same batches, convert, and the test input. Every
// converted module's scale, zero point and weight integers, and the output
// floats, equal PyTorch's bit for bit, with both kernel families. (The
// weights and inputs are dyadic, so the float calibration forward is exact in
// any summation order: see generate.py.) Under both engines: models.json
// was converted under fbgemm, models_x86.json under x86 (PyTorch's default,
// the convs on oneDNN); qwasm converts under the same engine.
import * as qwasm from '../../web/src/index.node.mjs';
import { loadStateDict, MODELS } from '../models/three-models.mjs';
import { decode, firstBitDifference, firstDifference, initGolden, loadGolden } from './util.mjs';

const golden = loadGolden('models.json');
const cases = [golden, loadGolden('models_x86.json')].flatMap((g) =>
  g.cases.map((c) => [`${g.engine}: ${c.name}`, { ...c, engine: g.engine }]),
);
const { quantization, tidy } = qwasm;

beforeAll(() => initGolden(qwasm, golden));
afterAll(() => quantization.setEngine('x86'));
afterEach(() => qwasm.setKernelIsa('auto'));

const tensorOf = (a) => ({ data: decode(a), shape: a.shape });
const QTYPES = {
  Quantize: 'Quantize',
  ConvReLU3d: 'ConvReLU3d',
  Conv3d: 'Conv3d',
  Linear: 'Linear',
  QFunctional: 'QFunctional',
};

describe.each(cases)('%s', (_label, c) => {
  const name = c.name;
  test.each(['wasmsimd', 'scalar'])(
    'the whole flow gives PyTorch bits (%s kernels)',
    (isa) => {
      quantization.setEngine(c.engine);
      qwasm.setKernelIsa(isa);
      const heap = qwasm.heapInUse();
      const model = MODELS[name](qwasm).eval();
      const state = Object.fromEntries(Object.entries(c.state).map(([k, v]) => [k, tensorOf(v)]));
      loadStateDict(model, state);
      quantization.fuseModules(model, c.fuse);
      model.qconfig = quantization.getDefaultQConfig('x86');
      quantization.prepare(model);
      for (const x of c.calibration) model.forward(tensorOf(x));
      quantization.convert(model);
      for (const [path, want] of Object.entries(c.modules)) {
        const m = model.getSubmodule(path);
        expect({ path, type: m.constructor.name }).toEqual({ path, type: QTYPES[want.type] });
        expect({ path, scale: m.scale, zeroPoint: m.zeroPoint }).toEqual({
          path,
          scale: want.scale,
          zeroPoint: want.zero_point,
        });
        if (want.weight_ints) {
          // Converted under the engine: under x86 the convs take oneDNN's path (symmetric weights), Linear FBGEMM's.
          const onednn = c.engine === 'x86' && want.type !== 'Linear';
          expect({ path, backend: m.backend }).toEqual({ path, backend: onednn ? 'onednn' : 'fbgemm' });
          const w = m.weight();
          const ints = firstDifference(w.intRepr(), decode(want.weight_ints));
          const scales = firstBitDifference(Float64Array.from(w.qPerChannelScales()), decode(want.weight_scales));
          expect({ path, ints, scales }).toEqual({ path, ints: -1, scales: -1 });
          w.dispose();
        }
      }
      const y = tidy(() => model.forward(tensorOf(c.x)));
      expect({ name, isa, firstDifferentOutput: firstBitDifference(y.data, decode(c.y)) }).toEqual({
        name,
        isa,
        firstDifferentOutput: -1,
      });
      model.dispose();
      expect(qwasm.heapInUse()).toBe(heap);
    },
    60_000,
  );
});
