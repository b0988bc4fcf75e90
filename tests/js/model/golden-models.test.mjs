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
import * as qwasm from '../../../web/src/index.node.mjs';
import { loadStateDict, MODELS } from '../../models/three-models.mjs';
import { decode, firstBitDifference, firstDifference, initGolden, loadGolden } from '../util.mjs';

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

// The model as PyTorch's state dict and fusion give it, still float (convert works in place).
function floatModel(c) {
  const model = MODELS[c.name](qwasm).eval();
  loadStateDict(model, Object.fromEntries(Object.entries(c.state).map(([k, v]) => [k, tensorOf(v)])));
  quantization.fuseModules(model, c.fuse);
  return model;
}

// PyTorch's eager flow on it, in place: the default x86 QConfig, prepare, the calibration batches, convert.
function convertedModel(c) {
  const model = floatModel(c);
  model.qconfig = quantization.getDefaultQConfig('x86');
  quantization.prepare(model);
  for (const x of c.calibration) model.forward(tensorOf(x));
  return quantization.convert(model);
}

describe.each(cases)('%s', (_label, c) => {
  const name = c.name;
  test("quantization.ns on the float model and the converted one equals PyTorch's numeric suite", () => {
    quantization.setEngine(c.engine);
    const float = floatModel(c);
    const model = convertedModel(c);
    const one = (a) => decode(a)[0];
    // Exact inputs (dyadic: see the header) and PyTorch's integers: equal to float32 rounding of the SQNR.
    const close = (got, want) => (Number.isFinite(want) ? Math.abs(got - want) <= 1e-4 : got === want);
    const weights = quantization.ns.compareWeights(float, model);
    expect(Object.entries(weights).map(([k, v]) => [k, v.floatKey])).toEqual(
      c.numeric_suite.weights.map((w) => [w.key, w.float_key]),
    );
    for (const w of c.numeric_suite.weights) {
      const g = weights[w.key];
      expect({ key: w.key, sqnr: close(g.sqnr, one(w.sqnr)), maxAbsError: g.maxAbsError }).toEqual({
        key: w.key,
        sqnr: true,
        maxAbsError: one(w.max_abs_error),
      });
      expect(g.perChannel.sqnr.every((s, i) => close(s, decode(w.per_channel_sqnr)[i]))).toBe(true);
    }
    const outputs = quantization.ns.compareModelOutputs(float, model, tensorOf(c.x));
    expect(Object.entries(outputs).map(([k, v]) => [k, v.floatKey])).toEqual(
      c.numeric_suite.outputs.map((o) => [o.key, o.key]),
    );
    for (const o of c.numeric_suite.outputs) {
      const g = outputs[o.key];
      expect({ key: o.key, sqnr: close(g.sqnr, one(o.sqnr)), share: g.offByMoreThanOneStep }).toEqual({
        key: o.key,
        sqnr: true,
        share: one(o.off_by_more_than_one_step),
      });
    }
    float.dispose();
    model.dispose();
  });

  test.each(['wasmsimd', 'scalar'])(
    'the whole flow gives PyTorch bits (%s kernels)',
    (isa) => {
      quantization.setEngine(c.engine);
      qwasm.setKernelIsa(isa);
      const heap = qwasm.heapInUse();
      const model = convertedModel(c);
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
