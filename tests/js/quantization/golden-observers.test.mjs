// PyTorch's observers (tests/golden/observers.json): after every observe() the
// running min/max and calculateQParams() equal PyTorch's, bit for bit.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('observers.json');

beforeAll(() => initGolden(qwasm, golden));

function asArray(v) {
  return typeof v === 'number' ? Float32Array.of(v) : Float32Array.from(v);
}

test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  const Observer = qwasm.quantization[c.observer];
  const o = new Observer(c.options);
  if (c.initial) {
    const { scale, zeroPoint } = o.calculateQParams();
    expect(Array.from(asArray(scale))).toEqual(Array.from(decode(c.initial.scale)));
    expect(Array.from(asArray(zeroPoint))).toEqual(Array.from(decode(c.initial.zero_point)));
    return;
  }
  const inputs = golden.inputs[c.inputs];
  c.steps.forEach((step, i) => {
    const x = inputs[i];
    expect(o.observe({ data: decode(x), shape: x.shape }).shape).toEqual(x.shape);
    const where = `${name}, after observe #${i + 1}`;
    expect({ where, min: firstBitDifference(asArray(o.minVal), decode(step.min_val)) }).toEqual({ where, min: -1 });
    expect({ where, max: firstBitDifference(asArray(o.maxVal), decode(step.max_val)) }).toEqual({ where, max: -1 });
    const { scale, zeroPoint } = o.calculateQParams();
    // toEqual compares numbers with Object.is: float32 values bit for bit (and -0 apart from 0).
    expect({ where, scale: Array.from(asArray(scale)) }).toEqual({ where, scale: Array.from(decode(step.scale)) });
    const zps = typeof zeroPoint === 'number' ? [zeroPoint] : Array.from(zeroPoint);
    expect({ where, zeroPoint: zps }).toEqual({ where, zeroPoint: Array.from(decode(step.zero_point)) });
    if (c.observer.includes('PerChannel')) {
      const floatZp = c.options.qscheme === 'per_channel_affine_float_qparams';
      expect(Object.prototype.toString.call(zeroPoint)).toBe(floatZp ? '[object Float32Array]' : '[object Int32Array]');
    } else {
      expect(typeof scale).toBe('number');
    }
  });
});
