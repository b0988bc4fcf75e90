// Float tensors: { data: Float32Array, shape: number[] }, row-major in
// PyTorch's default layout (e.g. NCDHW). Pure JavaScript: works before init().
import { bytesOf, describe, lengthOf, MAX_NUMEL, readNumberList, readShape, typedArrayKind } from '../runtime/args.mjs';

/** Documented at tensor (web/declarations/tensors.d.ts). */
export function tensor(data, shape) {
  const ctx = 'tensor(data, shape)';
  let values;
  if (typedArrayKind(data) === 'Float32Array') {
    bytesOf(data, 'data', ctx); // refuses a detached buffer
    values = data;
  } else if (Array.isArray(data)) {
    values = Float32Array.from(readNumberList(data, 'data', ctx, MAX_NUMEL));
  } else {
    throw new TypeError(`${ctx}: data must be a Float32Array or an array of numbers, got ${describe(data)}`);
  }
  const n = lengthOf(values);
  const s = shape === undefined ? { shape: [n], numel: n } : readShape(shape, ctx);
  if (s.numel !== n) {
    throw new RangeError(`${ctx}: shape [${s.shape.join(', ')}] holds ${s.numel} elements but data has ${n}`);
  }
  return { data: values, shape: s.shape };
}
