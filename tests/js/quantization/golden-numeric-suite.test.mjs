// qwasm's numeric suite (quantization.ns) against PyTorch's
// (torch.ao.ns._numeric_suite, tests/golden/numeric_suite.json) on the three
// video ResNets: the float model and its eager-quantized twin, each exported
// by python/qwasm_export.py and loaded with io.loadModel.
// - compareWeights pairs the same keys with the same float keys (PyTorch's
//   _find_match), and its SQNR and largest error, per tensor and per output
//   channel, equal PyTorch's to float rounding: PyTorch computes the norms,
//   their ratio and the logarithm in float32, qwasm in float64 from the same
//   float32 differences; 1e-4 dB is about 10 float32 roundings of the ratio.
// - compareModelOutputs logs the same modules and pairs them the same way;
//   its SQNR equals PyTorch's within 1e-4 dB where the two runs give the same
//   activations (the quantized model's are PyTorch's bit for bit, the float
//   model's agree to float rounding: qwasm's float convolution sums in
//   another order), so the tolerance there is 0.01 dB, and the share of
//   elements off by more than one step within 1e-3.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, initGolden, lcgBytes, loadGolden } from '../util.mjs';

const golden = loadGolden('numeric_suite.json');
beforeAll(() => initGolden(qwasm, golden));

const load = (file) => qwasm.io.loadModel(readFileSync(new URL(`../../golden/${file}`, import.meta.url)));
const one = (a) => decode(a)[0];
const close = (got, want, tol) => (Number.isFinite(want) ? Math.abs(got - want) <= tol : got === want);

function clip({ lcg, shape }) {
  const bytes = lcgBytes(
    lcg,
    shape.reduce((a, b) => a * b, 1),
  );
  return { data: Float32Array.from(bytes, (b) => (b - 128) / 64), shape };
}

describe.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  let floatModel;
  let quantizedModel;
  beforeAll(() => {
    floatModel = load(c.float_file);
    quantizedModel = load(c.quantized_file);
  });
  afterAll(() => {
    floatModel.dispose();
    quantizedModel.dispose();
  });

  test("compareWeights: PyTorch's keys and float matches; SQNR and largest error per tensor and channel", () => {
    const heap = qwasm.heapInUse();
    const got = qwasm.quantization.ns.compareWeights(floatModel, quantizedModel);
    expect(qwasm.heapInUse()).toBe(heap);
    // The same pairs (the order is the modules': an exported graph lists them as forward calls them).
    expect(
      Object.entries(got)
        .map(([k, v]) => [k, v.floatKey])
        .sort(),
    ).toEqual(c.weights.map((w) => [w.key, w.float_key]).sort());
    for (const w of c.weights) {
      const g = got[w.key];
      const channels = decode(w.per_channel_sqnr);
      const channelErrors = decode(w.per_channel_max_abs_error);
      expect({
        key: w.key,
        sqnr: close(g.sqnr, one(w.sqnr), 1e-4),
        maxAbsError: g.maxAbsError === one(w.max_abs_error),
        channels: g.perChannel.sqnr.length === channels.length,
        channelSqnr: g.perChannel.sqnr.every((s, i) => close(s, channels[i], 1e-4)),
        channelErrors: g.perChannel.maxAbsError.every((e, i) => e === channelErrors[i]),
      }).toEqual({ key: w.key, sqnr: true, maxAbsError: true, channels: true, channelSqnr: true, channelErrors: true });
    }
  });

  test('compareModelOutputs: the same logged modules, paired the same way; SQNR, error and off-by-steps share', () => {
    const got = qwasm.quantization.ns.compareModelOutputs(floatModel, quantizedModel, clip(c.clip));
    expect(Object.keys(got).sort()).toEqual(c.outputs.map((o) => o.key).sort());
    const worst = { sqnr: 0, share: 0 };
    for (const o of c.outputs) {
      const g = got[o.key];
      const share = o.off_by_more_than_one_step ? one(o.off_by_more_than_one_step) : null;
      worst.sqnr = Math.max(worst.sqnr, Math.abs(g.sqnr - one(o.sqnr)));
      if (share !== null) worst.share = Math.max(worst.share, Math.abs(g.offByMoreThanOneStep - share));
      expect({
        key: o.key,
        sqnr: close(g.sqnr, one(o.sqnr), 0.01),
        share: share === null ? g.offByMoreThanOneStep === null : Math.abs(g.offByMoreThanOneStep - share) <= 1e-3,
      }).toEqual({ key: o.key, sqnr: true, share: true });
    }
    console.log(
      `${name}: ${c.outputs.length} outputs, largest SQNR difference ${worst.sqnr.toExponential(2)} dB, share ${worst.share.toExponential(2)}`,
    );
  });
});
