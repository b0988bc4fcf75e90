// Memory above 2 GiB: with more than 2 GiB of wasm memory in use, addresses
// are >= 2^31 and must be treated as unsigned everywhere (JS copies, Embind's
// views, error messages); heapInUse() stays exact; and when the 4 GiB limit is
// reached, allocating calls fail with a RangeError, the module keeps working,
// and disposing brings the heap back to its baseline.
import * as qwasm from '../../../web/src/index.node.mjs';

const { nn, tensor, quantizePerTensor, quantizePerChannel, makePerTensorQuantizedTensor } = qwasm;
const MB = 2 ** 20;

beforeAll(() => qwasm.init());

// Every ordinary call, checked for the right answer. When memory runs out
// part-way, what the calls made so far is disposed (tidy, finally): the heap
// check after is about qwasm, not about objects this helper dropped.
function ordinaryCalls() {
  const modules = [];
  try {
    qwasm.tidy(() => {
      const q = quantizePerTensor(tensor([0.273939937]), 0.00214854861, 0, 'quint8');
      expect(Array.from(q.intRepr())).toEqual([128]);
      expect(Array.from(q.dequantize().data)).toEqual([Math.fround(Math.fround(0.00214854861) * 128)]);
      q.dispose();
      const c = quantizePerChannel(tensor([1, 2, 3, 4], [2, 2]), [0.5, 0.25], [0, 1], 0, 'qint8');
      expect(Array.from(c.intRepr())).toEqual([2, 4, 13, 17]);
      expect(Array.from(c.qPerChannelZeroPoints())).toEqual([0, 1]);
      const v = c.view([2, 1, 2]);
      expect(v.qPerChannelAxis()).toBe(0);
      expect(Array.from(v.intRepr())).toEqual([2, 4, 13, 17]);
      v.dispose();
      c.dispose();
      expect(() => quantizePerTensor(tensor([1]), -1, 0, 'quint8')).toThrow(
        'scale must be a finite number > 0, got -1',
      );
      const o = new qwasm.quantization.PerChannelMinMaxObserver();
      o.observe(tensor([1, 2, 3, 4], [2, 2]));
      expect(Array.from(o.calculateQParams().zeroPoint)).toEqual([0, 0]);
      const m = new nn.intrinsic.quantized.ConvReLU3d(2, 3, 3, { padding: 1 });
      modules.push(m);
      const qx = quantizePerTensor(tensor(new Float32Array(2 * 27).fill(1), [1, 2, 3, 3, 3]), 0.1, 3, 'quint8');
      const y = m.forward(qx);
      expect(y.shape).toEqual([1, 3, 3, 3, 3]);
      expect(Array.from(y.intRepr()).every((b) => b === 0)).toBe(true); // zero weights and bias: out_zp 0
      y.dispose();
      qx.dispose();
      const f = new nn.Conv1d(1, 1, 1, { bias: false });
      modules.push(f);
      f.weight.data[0] = 3;
      expect(Array.from(f.forward(tensor([1, 2], [1, 1, 2])).data)).toEqual([3, 6]);
    });
  } finally {
    for (const m of modules) m.dispose();
  }
}

test('with over 2 GiB held, every ordinary call works and heapInUse() is exact', () => {
  ordinaryCalls();
  const baseline = qwasm.heapInUse();
  const block = new Uint8Array(600 * MB).fill(7);
  const held = [];
  try {
    for (let i = 0; i < 4; i++) held.push(makePerTensorQuantizedTensor({ data: block, shape: [block.length] }, 1, 0));
    expect(qwasm.heapInUse()).toBeGreaterThan(2 ** 31);
    expect(qwasm.heapInUse()).toBeGreaterThanOrEqual(baseline + 4 * 600 * MB);
    ordinaryCalls();
    // The last tensor lives above 2 GiB: its bytes read back intact.
    const last = held[3].intRepr();
    expect(last.length).toBe(600 * MB);
    expect(last[0] + last[last.length - 1]).toBe(14);
  } finally {
    for (const t of held) t.dispose();
  }
  expect(qwasm.heapInUse()).toBe(baseline);
}, 60_000);

test('at the 4 GiB limit, allocating calls fail with a RangeError, nothing aborts, and the heap recovers', () => {
  const baseline = qwasm.heapInUse();
  const block = new Uint8Array(512 * MB);
  const held = [];
  let error;
  try {
    for (let i = 0; i < 16 && error === undefined; i++) {
      try {
        held.push(makePerTensorQuantizedTensor({ data: block, shape: [block.length] }, 1, 0));
      } catch (e) {
        error = e;
      }
    }
    expect(error).toBeInstanceOf(RangeError);
    expect(error.kind).toBe('outOfMemory');
    expect(error.message).toMatch(/out of memory: .* would need \d+ bytes/);
    expect(error.message).toContain('qwasm objects not yet disposed hold');
    // Fill what is left with ever smaller tensors, down to a few bytes: then
    // every call either works or throws a RangeError (the small allocations
    // inside a call come from the reserve), and none aborts the module.
    for (let size = 64 * MB; size >= 16; size = Math.floor(size / 8)) {
      for (;;) {
        try {
          held.push(makePerTensorQuantizedTensor({ data: new Uint8Array(size), shape: [size] }, 1, 0));
        } catch (e) {
          expect(e).toBeInstanceOf(RangeError);
          break;
        }
      }
    }
    const outcomes = new Set();
    for (let i = 0; i < 5; i++) {
      try {
        ordinaryCalls();
        outcomes.add('ok');
      } catch (e) {
        expect(e).toBeInstanceOf(RangeError);
        outcomes.add(e.kind === 'outOfMemory' && e.message.includes('out of memory') ? 'out of memory' : e.message);
      }
    }
    expect([...outcomes].every((o) => o === 'ok' || o === 'out of memory')).toBe(true);
  } finally {
    for (const t of held) t.dispose();
  }
  expect(qwasm.heapInUse()).toBe(baseline);
  ordinaryCalls();
}, 120_000);
