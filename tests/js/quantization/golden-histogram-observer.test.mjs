// PyTorch's HistogramObserver (tests/golden/histogram_observer.json, from
// PyTorch 2.15 on an AVX-512 build with one thread): after every observe()
// the running min, max and histogram, and calculateQParams(), equal
// PyTorch's bit for bit, over batches that take every path of forward()
// (first batch, same range, growing range with re-binning, a constant batch,
// infinities) and every dtype, qscheme, reduceRange and bins setting.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('histogram_observer.json');

beforeAll(() => initGolden(qwasm, golden));

test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  const o = new qwasm.quantization.HistogramObserver(c.options);
  if (c.initial) {
    expect(o.calculateQParams()).toEqual({
      scale: decode(c.initial.scale)[0],
      zeroPoint: decode(c.initial.zero_point)[0],
    });
    return;
  }
  const inputs = golden.inputs[c.inputs];
  c.steps.forEach((step, i) => {
    const x = inputs[i];
    o.observe({ data: decode(x), shape: x.shape });
    const where = `${name}, after observe #${i + 1}`;
    expect({ where, min: o.minVal, max: o.maxVal }).toEqual({ where, min: step.min_val, max: step.max_val });
    const histogram = firstBitDifference(o.histogram, decode(step.histogram));
    expect({ where, firstDifferentBin: histogram }).toEqual({ where, firstDifferentBin: -1 });
    const { scale, zeroPoint } = o.calculateQParams();
    expect({ where, scale, zeroPoint }).toEqual({
      where,
      scale: decode(step.scale)[0],
      zeroPoint: decode(step.zero_point)[0],
    });
  });
});
