// Float tensors: { data: Float32Array, shape: number[] }, NCDHW / row-major like PyTorch.
import { describe } from './runtime.mjs';

export function typeName(v) {
  return Object.prototype.toString.call(v).slice(8, -1);
}

/** @internal Throws unless `shape` is an array of non-negative safe integers; returns numel. */
export function checkShape(shape, context) {
  if (!Array.isArray(shape)) throw new TypeError(`${context}: shape must be an array of integers, got ${describe(shape)}`);
  let numel = 1;
  shape.forEach((d, i) => {
    if (typeof d !== 'number' || !Number.isInteger(d)) {
      throw new TypeError(`${context}: shape[${i}] must be an integer, got ${describe(d)}`);
    }
    if (d < 0) throw new RangeError(`${context}: shape[${i}] must be >= 0, got ${d}`);
    numel *= d;
  });
  if (numel > 2 ** 31) throw new RangeError(`${context}: tensor too large: ${numel} elements (at most 2^31)`);
  return numel;
}

/** Builds a float tensor after checking that data and shape agree. */
export function tensor(data, shape) {
  if (Array.isArray(data)) data = Float32Array.from(data);
  if (typeName(data) !== 'Float32Array') {
    throw new TypeError(`tensor(data, shape): data must be a Float32Array (or an array of numbers), got ${describe(data)}`);
  }
  if (shape === undefined) shape = [data.length];
  const numel = checkShape(shape, 'tensor(data, shape)');
  if (numel !== data.length) {
    throw new RangeError(
      `tensor(data, shape): shape [${shape.join(', ')}] holds ${numel} elements but data has ${data.length}`,
    );
  }
  return { data, shape: shape.slice() };
}

/** @internal Checks a float tensor argument; returns it. */
export function checkFloatTensor(x, context) {
  if (x === null || typeof x !== 'object' || !('data' in x) || !('shape' in x)) {
    throw new TypeError(`${context}: expected a float tensor {data: Float32Array, shape: number[]}, got ${describe(x)}`);
  }
  if (typeName(x.data) !== 'Float32Array') {
    throw new TypeError(`${context}: tensor data must be a Float32Array (quantize takes float input), got ${describe(x.data)}`);
  }
  const numel = checkShape(x.shape, context);
  if (numel !== x.data.length) {
    throw new RangeError(
      `${context}: shape [${x.shape.join(', ')}] holds ${numel} elements but data has ${x.data.length}`,
    );
  }
  return x;
}
