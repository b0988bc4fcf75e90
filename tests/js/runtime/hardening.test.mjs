// The reproductions of the hardening review (issue 7), each now a clean error
// or a correct result, with the heap back at its baseline afterwards.
import * as qwasm from '../../../web/src/index.node.mjs';

const { nn, tensor, quantizePerTensor, quantizePerChannel, makePerTensorQuantizedTensor } = qwasm;

beforeAll(() => qwasm.init());

// Runs thunk twice (the first run may fill Embind's one-time caches), expects
// the same error each time, and the heap back where it was after the second.
function expectCleanError(thunk, ErrorClass, fragment) {
  const capture = () => {
    try {
      thunk();
    } catch (e) {
      return e;
    }
    return undefined;
  };
  const first = capture();
  const before = qwasm.heapInUse();
  const second = capture();
  expect(second).toBeDefined();
  expect(second.constructor).toBe(ErrorClass);
  expect(second.message).toContain(fragment);
  expect(String(first)).toBe(String(second));
  expect(qwasm.heapInUse()).toBe(before);
}

describe('sizes that wasm32 cannot hold are refused before anything is allocated', () => {
  test('a padded conv input larger than one allocation no longer corrupts a live tensor', () => {
    const bystander = quantizePerTensor(tensor([1, 2, 3, 4]), 0.5, 10, 'quint8');
    const want = Array.from(bystander.intRepr());
    const m = new nn.quantized.Conv3d(1, 1, 1, { padding: [0, 32767, 32767], stride: [1, 65536, 65536] });
    const qx = quantizePerTensor(tensor(new Float32Array(8).fill(100), [1, 1, 2, 2, 2]), 1, 0, 'quint8');
    expectCleanError(() => m.forward(qx), RangeError, "the conv's padded input would need");
    expect(Array.from(bystander.intRepr())).toEqual(want);
    qx.dispose();
    m.dispose();
    bystander.dispose();
  });

  test('the float conv on the same geometry gives the same RangeError (no trap)', () => {
    const m = new nn.Conv3d(1, 1, 1, { padding: [0, 32767, 32767], stride: [1, 65536, 65536] });
    expectCleanError(
      () => m.forward(tensor(new Float32Array(8).fill(100), [1, 1, 2, 2, 2])),
      RangeError,
      "the conv's padded input would need",
    );
    m.dispose();
  });

  test('the depthwise path too', () => {
    const m = new nn.quantized.Conv3d(8, 8, 1, { groups: 8, padding: [0, 32767, 32767], stride: [1, 65536, 65536] });
    const qx = quantizePerTensor(tensor(new Float32Array(64).fill(1), [1, 8, 2, 2, 2]), 1, 0, 'quint8');
    expectCleanError(() => m.forward(qx), RangeError, "the conv's padded input would need");
    qx.dispose();
    m.dispose();
  });

  test('qint32 storage of 2^30 elements from an empty array is refused (it needs 2^32 bytes)', () => {
    expectCleanError(
      () => makePerTensorQuantizedTensor({ data: new Int32Array(0), shape: [2 ** 30] }, 1, 0),
      RangeError,
      'would need 4294967296 bytes',
    );
  });

  test('2^31 quint8 elements from 4 bytes: refused without allocating 2 GB', () => {
    expectCleanError(
      () => makePerTensorQuantizedTensor({ data: new Uint8Array(4), shape: [2 ** 31] }, 1, 0),
      RangeError,
      'intTensor.shape[0] is 2147483648; a dimension holds at most 2147483647 elements',
    );
    expectCleanError(
      () => makePerTensorQuantizedTensor({ data: new Uint8Array(4), shape: [2 ** 30] }, 1, 0),
      RangeError,
      'expected 1073741824 bytes of quint8 data for 1073741824 elements, got 4',
    );
  });

  test('padding 20000 on a 1x1 Conv2d input: a RangeError naming the bytes, not an abort', () => {
    const m = new nn.quantized.Conv2d(1, 1, 1, { padding: 20000 });
    const qx = quantizePerTensor(tensor([1], [1, 1, 1, 1]), 1, 0, 'quint8');
    const before = qwasm.heapInUse();
    let error;
    try {
      m.forward(qx).dispose();
    } catch (e) {
      error = e;
    }
    // 40001^2 int16 positions (3.2 GB) cannot be one allocation; either way no abort and no leak.
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toMatch(/would need \d+ bytes/);
    expect(qwasm.heapInUse()).toBe(before);
    // The module still works on an ordinary input.
    const ok = new nn.quantized.Conv2d(1, 1, 1, { padding: 2 });
    ok.forward(qx).dispose();
    ok.dispose();
    qx.dispose();
    m.dispose();
  });

  test('new nn.Linear(2**30, 2) is refused before allocating its weight', () => {
    const t0 = performance.now();
    expect(() => new nn.Linear(2 ** 30, 2)).toThrow(RangeError);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe('arguments are read once', () => {
  test('a shape getter that changes between reads cannot make qwasm read other memory', () => {
    let reads = 0;
    const x = {
      data: new Float32Array(4).fill(1),
      get shape() {
        reads += 1;
        return reads === 1 ? [4] : [65536];
      },
    };
    const q = quantizePerTensor(x, 1, 0, 'quint8');
    expect(q.shape).toEqual([4]);
    expect(reads).toBe(1);
    q.dispose();
  });

  test('a Float32Array subclass with a lying length is read by its real length', () => {
    class Liar extends Float32Array {
      get length() {
        return 65536;
      }
    }
    const data = new Liar(4).fill(2);
    expect(() => quantizePerTensor({ data, shape: [65536] }, 1, 0, 'quint8')).toThrow(
      'x.shape [65536] holds 65536 elements but x.data has 4',
    );
    const q = quantizePerTensor({ data, shape: [4] }, 1, 0, 'quint8');
    expect(Array.from(q.intRepr())).toEqual([2, 2, 2, 2]);
    q.dispose();
  });

  test('a Proxy shape that grows is read once, so it cannot trap or leak', () => {
    let n = 1;
    const shape = new Proxy([4], { get: (t, k) => (k === 'length' ? n++ : k === '0' ? 4 : t[k]) });
    const before = qwasm.heapInUse();
    const q = quantizePerTensor({ data: new Float32Array(4), shape }, 1, 0, 'quint8');
    expect(q.shape).toEqual([4]);
    q.dispose();
    expect(qwasm.heapInUse()).toBe(before);
  });

  test('a getter that throws leaks nothing over 1000 calls', () => {
    class Boom extends Error {}
    const x = {
      data: new Float32Array(4),
      get shape() {
        throw new Boom('no');
      },
    };
    const call = () => {
      try {
        quantizePerChannel(x, [1], [0], 0, 'quint8');
      } catch (e) {
        if (!(e instanceof Boom)) throw e;
      }
    };
    call();
    const before = qwasm.heapInUse();
    for (let i = 0; i < 1000; i++) call();
    expect(qwasm.heapInUse()).toBe(before);
  });
});

describe('numbers never wrap on their way into the core', () => {
  const x = () => tensor(new Float32Array(6), [2, 3]);
  test('axis = 2**32 is an error, not axis 0', () => {
    expectCleanError(() => quantizePerChannel(x(), [1, 1], [0, 0], 2 ** 32, 'quint8'), RangeError, 'axis must be in');
  });
  test('1e300 in a shape, a stride or quantMin', () => {
    expectCleanError(
      () => quantizePerTensor({ data: new Float32Array(0), shape: [1e300, 0] }, 1, 0, 'quint8'),
      RangeError,
      'shape[0] is 1e+300',
    );
    expectCleanError(
      () => new nn.Conv2d(1, 1, 1, { stride: 1e300 }),
      RangeError,
      'stride must be at most 2147483647, got 1e+300',
    );
    expectCleanError(
      () => new qwasm.quantization.MinMaxObserver({ dtype: 'qint32', quantMin: -1e300, quantMax: 5 }),
      RangeError,
      'quantMin must be in',
    );
  });
  test('[2**53, 0] and [0, 2**53] are treated alike', () => {
    const a = quantizePerTensor({ data: new Float32Array(0), shape: [0, 2 ** 30] }, 1, 0, 'quint8');
    expect(a.numel()).toBe(0);
    a.dispose();
    expectCleanError(
      () => quantizePerTensor({ data: new Float32Array(0), shape: [2 ** 53, 0] }, 1, 0, 'quint8'),
      RangeError,
      'shape[0] is 9007199254740992',
    );
    expectCleanError(
      () => quantizePerTensor({ data: new Float32Array(0), shape: [0, 2 ** 53] }, 1, 0, 'quint8'),
      RangeError,
      'shape[1] is 9007199254740992',
    );
  });
  test('holes and non-numbers in a shape are TypeErrors', () => {
    // eslint-disable-next-line no-sparse-arrays
    expectCleanError(
      () => quantizePerTensor({ data: new Float32Array(2), shape: [1, , 2] }, 1, 0, 'quint8'),
      TypeError,
      'x.shape[1] must be an integer, got undefined',
    );
    const huge = [];
    huge.length = 2 ** 32 - 1;
    const t0 = performance.now();
    expectCleanError(
      () => quantizePerTensor({ data: new Float32Array(2), shape: huge }, 1, 0, 'quint8'),
      RangeError,
      'has 4294967295 dimensions, at most 64',
    );
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe('names are own properties only', () => {
  test.each(['toString', '__proto__', 'constructor'])('setKernelIsa(%p) is refused', (name) => {
    expect(() => qwasm.setKernelIsa(name)).toThrow(RangeError);
  });
  test.each(['<constructor', '<toString'])('io.loadNpy with descr %p is refused', (descr) => {
    const header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (1,), }`.padEnd(117) + '\n';
    const bytes = new Uint8Array(10 + header.length + 4);
    bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
    bytes.set(new TextEncoder().encode(header), 10);
    expect(() => qwasm.io.loadNpy(bytes)).toThrow(`unsupported dtype '${descr}'`);
  });
  test('a safetensors dtype "constructor" is listed, refused by get(), and never "needs NaN bytes"', () => {
    const header = JSON.stringify({
      t: { dtype: 'constructor', shape: [1], data_offsets: [0, 4] },
      __metadata__: { a: 'b' },
    });
    const bytes = new Uint8Array(8 + header.length + 4);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(header.length), true);
    bytes.set(new TextEncoder().encode(header), 8);
    const f = qwasm.io.loadSafetensors(bytes);
    expect(f.tensors).toEqual([{ name: 't', dtype: 'constructor', shape: [1] }]);
    expect(() => f.get('t')).toThrow("tensor 't' is constructor; only F32, F64, F16 and BF16 can be read as float");
  });
  test('__metadata__ must be an object of strings', () => {
    const header = JSON.stringify({ __metadata__: { a: 1 } });
    const bytes = new Uint8Array(8 + header.length);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(header.length), true);
    bytes.set(new TextEncoder().encode(header), 8);
    expect(() => qwasm.io.loadSafetensors(bytes)).toThrow('malformed __metadata__: expected an object of strings');
  });
});

describe('tensor() refuses what is not a number', () => {
  test.each([
    ['strings and nulls', ['1', null, {}, true], "data[0] must be a number, got the string '1'"],
    ['nested arrays', [[1], [2]], 'data[0] must be a number, got an array'],
    ['a BigInt', [1n], 'data[0] must be a number, got the bigint 1n'],
    ['a Symbol', [Symbol('s')], 'data[0] must be a number, got a symbol'],
  ])('%s', (_, data, message) => {
    expect(() => tensor(data)).toThrow(TypeError);
    expect(() => tensor(data)).toThrow(message);
  });
});

describe('read-only means read-only', () => {
  test('QTensor shape and dtype cannot be reassigned', () => {
    const q = quantizePerTensor(tensor([1, 2]), 1, 0, 'quint8');
    expect(() => {
      q.shape = [7];
    }).toThrow(TypeError);
    expect(() => {
      q.dtype = 'qint8';
    }).toThrow(TypeError);
    expect(() => {
      q.shape.push(7);
    }).toThrow(TypeError);
    expect(q.dequantize().shape).toEqual([2]);
    q.dispose();
  });
  test('observer dtype, quantMin and quantMax cannot be reassigned', () => {
    const o = new qwasm.quantization.MinMaxObserver();
    for (const k of ['dtype', 'quantMin', 'quantMax', 'qscheme', 'eps'])
      expect(() => {
        o[k] = 1;
      }).toThrow(TypeError);
    expect([o.dtype, o.quantMin, o.quantMax]).toEqual(['quint8', 0, 255]);
  });
});

describe('messages name the call, the argument, what was expected and what came', () => {
  test('constructor geometry errors name the constructor', () => {
    expect(() => new nn.quantized.Conv3d(4, 4, 0)).toThrow(
      'new nn.quantized.Conv3d(...): kernelSize must be >= 1, got [0, 0, 0]',
    );
  });
  test('a disposed input to forward() says so', () => {
    const m = new nn.quantized.Conv3d(1, 1, 1);
    const qx = quantizePerTensor(tensor([1], [1, 1, 1, 1, 1]), 1, 0, 'quint8');
    qx.dispose();
    expect(() => m.forward(qx)).toThrow('nn.quantized.Conv3d.forward(x): the QTensor has been disposed');
    m.dispose();
  });
  test('Linear on a 1-D input works (PyTorch does too); a wrong feature count names the features', () => {
    const lin = new nn.Linear(3, 2);
    expect(lin.forward(tensor([1, 2, 3])).shape).toEqual([2]);
    expect(() => lin.forward(tensor([1, 2]))).toThrow(
      'nn.Linear.forward(x): expected 3 input features (the last dimension), got 2',
    );
    lin.dispose();
  });
  test('a detached buffer is named as such', () => {
    const data = new Float32Array(4);
    structuredClone(data.buffer, { transfer: [data.buffer] });
    expect(() => quantizePerTensor({ data, shape: [0] }, 1, 0, 'quint8')).toThrow(
      'x.data is backed by a detached ArrayBuffer',
    );
  });
  test('an activationObserver that is not an observer', () => {
    const f = new nn.Conv3d(1, 1, 1);
    expect(() => nn.quantized.Conv3d.fromFloat(f, { activationObserver: {} })).toThrow(
      'activationObserver must be a per-tensor observer, got an object',
    );
    f.dispose();
  });
});

describe('PyTorch corners', () => {
  test('PerChannelMinMaxObserver({chAxis: -1}) observes the last dimension, as PyTorch does', () => {
    const o = new qwasm.quantization.PerChannelMinMaxObserver({ chAxis: -1 });
    o.observe(tensor([1, -2, 3, 4, 5, -6], [2, 3]));
    expect(Array.from(o.minVal)).toEqual([1, -2, -6]);
    expect(Array.from(o.maxVal)).toEqual([4, 5, 3]);
  });
  test('a moving average whose min passes its max is refused like PyTorch', () => {
    const o = new qwasm.quantization.MovingAverageMinMaxObserver({ averagingConstant: 1.0 });
    o.observe(tensor([-885.585205078125, 39.50685501098633]));
    o.observe(tensor([473.50213623046875]));
    expect(o.minVal).toBeGreaterThan(o.maxVal);
    expect(() => o.calculateQParams()).toThrow('min 473.502197265625 should be less than max 473.50213623046875');
  });
});

test('the float module keeps its own weights: in-place edits take effect in forward and in fromFloat alike', () => {
  const conv = new nn.Conv1d(1, 1, 1, { bias: false });
  conv.weight.data[0] = 2;
  expect(Array.from(conv.forward(tensor([1, 3], [1, 1, 2])).data)).toEqual([2, 6]);
  conv.weight.data[0] = 5; // an edit after the first forward() is seen by the next one
  expect(Array.from(conv.forward(tensor([1, 3], [1, 1, 2])).data)).toEqual([5, 15]);
  expect(() => {
    conv.weight.data = new Float32Array(2);
  }).toThrow('nn.Conv1d.weight.data must hold 1 elements (shape [1, 1, 1]), got 2');
  expect(() => {
    conv.weight = { data: new Float32Array(1), shape: [1, 1] };
  }).toThrow('expected shape [1, 1, 1], got [1, 1]');
  const q = nn.quantized.Conv1d.fromFloat(conv, { outputScale: 1, outputZeroPoint: 0 });
  const w = q.weight();
  // fromFloat saw the edited weight: symmetric qint8, scale 5 / 127.5.
  expect(Array.from(w.qPerChannelScales())).toEqual([Math.fround(5 / 127.5)]);
  expect(Array.from(w.intRepr())).toEqual([127]);
  expect(q.padding).toBe(0);
  w.dispose();
  q.dispose();
  conv.dispose();
});

// Found by a second, adversarial review: user code that runs while qwasm reads
// arguments (valueOf, getters, Proxies) must not reach freed memory, leave a
// module half-updated, or let engine errors through without context.
describe('re-entrancy and user code during argument reading', () => {
  test('a shadowed shape on a QTensor is ignored: qwasm reads its own', () => {
    const c = new nn.quantized.Conv2d(1, 1, 1);
    const x = quantizePerTensor(tensor(new Float32Array(4), [1, 1, 2, 2]), 0.1, 0, 'quint8');
    Object.defineProperty(x, 'shape', {
      value: [
        1,
        1,
        2,
        {
          valueOf() {
            x.dispose();
            return 2;
          },
        },
      ],
    });
    const y = c.forward(x);
    expect(x.disposed).toBe(false);
    expect(y.intRepr().length).toBe(4);
    y.dispose();
    x.dispose();
    c.dispose();
  });

  test('a bias getter that disposes the weight gives a clean Error and leaves the module as it was', () => {
    const c = new nn.quantized.Conv3d(1, 1, 1);
    const make = () =>
      makePerTensorQuantizedTensor({ data: new Int8Array([5]), shape: [1, 1, 1, 1, 1] }, 1, 0, 'qint8');
    const beforeWeight = qwasm.heapInUse();
    const w = make();
    expect(() =>
      c.setWeightBias(w, {
        get data() {
          w.dispose();
          return new Float32Array(1);
        },
      }),
    ).toThrow('nn.quantized.Conv3d.setWeightBias(weight, bias): the QTensor has been disposed');
    // Only the tensor the getter disposed is gone: the heap is as before it was made.
    expect(qwasm.heapInUse()).toBe(beforeWeight);
    const kept = c.weight();
    expect(Array.from(kept.intRepr())).toEqual([0]); // the constructor's zero weight, intact
    kept.dispose();
    c.dispose();
  });

  test('setWeightBias whose argument throws changes nothing', () => {
    const c = new nn.quantized.Conv2d(1, 1, 1);
    const w = makePerTensorQuantizedTensor({ data: new Int8Array([3]), shape: [1, 1, 1, 1] }, 0.5, 0, 'qint8');
    expect(() =>
      c.setWeightBias(w, {
        get data() {
          throw new Error('user');
        },
      }),
    ).toThrow('user');
    expect(Array.from(c.bias())).toEqual([0]);
    const kept = c.weight();
    expect(Array.from(kept.intRepr())).toEqual([0]);
    kept.dispose();
    w.dispose();
    c.dispose();
  });

  test('a scales getter that detaches x.data: a TypeError naming the call', () => {
    const data = new Float32Array(4).fill(1);
    const scales = [0.1];
    Object.defineProperty(scales, 1, {
      get() {
        structuredClone(data.buffer, { transfer: [data.buffer] });
        return 0.1;
      },
    });
    expect(() => quantizePerChannel({ data, shape: [2, 2] }, scales, [0, 0], 0, 'quint8')).toThrow(
      'quantizePerChannel(x, scales, zeroPoints, axis, dtype): x.data is backed by a detached ArrayBuffer',
    );
  });

  test('a Proxy list claiming 2^31 - 1 entries is refused at once, not read', () => {
    const fake = new Proxy([], { get: (t, k) => (k === 'length' ? 2 ** 31 - 1 : 0.1) });
    const t0 = performance.now();
    expect(() => quantizePerChannel(tensor([1, 2], [2]), fake, [0, 0], 0, 'quint8')).toThrow(
      'scales has 2147483647 entries, at most 2 allowed',
    );
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  test('io.loadSafetensors(...).get() after the buffer was detached', () => {
    const header = JSON.stringify({ a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } });
    const ab = new ArrayBuffer(8 + header.length + 4);
    new DataView(ab).setBigUint64(0, BigInt(header.length), true);
    new Uint8Array(ab).set(new TextEncoder().encode(header), 8);
    const file = qwasm.io.loadSafetensors(ab);
    structuredClone(ab, { transfer: [ab] });
    expect(() => file.get('a')).toThrow("the file's buffer was detached or resized since io.loadSafetensors read it");
  });

  test('revoked Proxies are named, not passed to the engine', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(() => quantizePerTensor(proxy, 1, 0, 'quint8')).toThrow(
      'quantizePerTensor(x, scale, zeroPoint, dtype): x is a revoked Proxy',
    );
    expect(() => new nn.Conv2d(1, 1, proxy)).toThrow('kernelSize is a revoked Proxy');
    expect(() => new qwasm.quantization.MinMaxObserver(proxy)).toThrow('options is a revoked Proxy');
  });

  test('QTensor methods called on something else, and calls before init() name themselves', () => {
    expect(() => qwasm.QTensor.prototype.intRepr.call({})).toThrow(
      'QTensor.intRepr(): called on an object, not a QTensor',
    );
  });

  test('fromFloat names the step that failed', () => {
    const f = new nn.Conv3d(1, 2, 1);
    f.weight.data[0] = NaN;
    expect(() => nn.quantized.Conv3d.fromFloat(f, { outputScale: 1, outputZeroPoint: 0 })).toThrow(
      'nn.quantized.Conv3d.fromFloat(mod, options): the weight: PerChannelMinMaxObserver.observe(x): observers need finite values; element 0 is NaN',
    );
    f.dispose();
  });

  test('a per-channel input to a quantized Conv2d is the same TypeError as to Conv3d', () => {
    const c = new nn.quantized.Conv2d(2, 1, 1);
    const x = quantizePerChannel(tensor(new Float32Array(8), [1, 2, 2, 2]), [1, 1], [0, 0], 1, 'quint8');
    expect(() => c.forward(x)).toThrow(
      'input must be a quint8 per_tensor_affine tensor, got quint8 per_channel_affine',
    );
    x.dispose();
    c.dispose();
  });

  test('an observer range that reduceRange halves to one value is refused', () => {
    expect(() => new qwasm.quantization.MinMaxObserver({ quantMin: 0, quantMax: 1, reduceRange: true })).toThrow(
      'quantMin..quantMax 0..1 halved by reduceRange is 0..0: no range left to quantize into',
    );
  });

  test("a module's geometry cannot be edited from outside", () => {
    const c = new nn.Conv3d(1, 1, 3);
    expect(() => {
      c._geometry.kernel[2] = 5;
    }).toThrow(TypeError);
    expect(c.kernelSize).toEqual([3, 3, 3]);
    c.dispose();
  });

  test('a kernel of 2^31 - 1 reports the bytes it would need without overflowing', () => {
    expect(() => new nn.Conv2d(1, 1, 2 ** 31 - 1)).toThrow('the weight would need more than 2^63 bytes as float32');
  });
});
