// torch.quantize_per_tensor / quantize_per_channel and the constructors from
// integer data (_make_per_tensor_quantized_tensor / _make_per_channel_...).
// Types are checked here; values (scale > 0, zero point in range, axis,
// lengths) are checked by the core, whose messages come back as RangeErrors.
import { checked } from './errors.mjs';
import { withHeapCopy } from './heap.mjs';
import { currentIsa } from './isa.mjs';
import { QTensor } from './qtensor.mjs';
import { describe, wasm } from './runtime.mjs';
import { checkFloatTensor, checkShape, typeName } from './tensor.mjs';

export const DTYPES = ['quint8', 'qint8', 'qint32', 'quint4x2'];

function checkDtype(dtype, context, allowed = DTYPES) {
  if (!allowed.includes(dtype)) {
    throw new TypeError(`${context}: dtype must be one of ${allowed.map((d) => `'${d}'`).join(', ')}, got ${describe(dtype)}`);
  }
}

function checkNumber(v, name, context) {
  if (typeof v !== 'number') throw new TypeError(`${context}: ${name} must be a number, got ${describe(v)}`);
}

function checkAxis(axis, context) {
  if (typeof axis !== 'number' || !Number.isInteger(axis)) {
    throw new TypeError(`${context}: axis must be an integer, got ${describe(axis)}`);
  }
}

const NUMERIC_ARRAYS = ['Array', 'Float32Array', 'Float64Array', 'Int32Array', 'Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Uint32Array'];

// Scales / zero points for the bindings, as doubles. A Float32Array of zero
// points selects per_channel_affine_float_qparams (decided by the caller).
function toFloat64(v, name, ctx) {
  const t = typeName(v);
  if (!NUMERIC_ARRAYS.includes(t)) {
    throw new TypeError(`${ctx}: ${name} must be an array or typed array of numbers, got ${describe(v)}`);
  }
  if (t === 'Array') {
    v.forEach((x, i) => {
      if (typeof x !== 'number') throw new TypeError(`${ctx}: ${name}[${i}] must be a number, got ${describe(x)}`);
    });
  }
  return Float64Array.from(v);
}

// The bindings take per-channel qparams as one block: scales then zero points.
function qparamsBlock(scales, zeroPoints, ctx) {
  const s = toFloat64(scales, 'scales', ctx);
  const z = toFloat64(zeroPoints, 'zeroPoints', ctx);
  const block = new Float64Array(s.length + z.length);
  block.set(s);
  block.set(z, s.length);
  return { block, nscales: s.length, nzps: z.length };
}

export function quantizePerTensor(x, scale, zeroPoint, dtype) {
  const ctx = 'quantizePerTensor(x, scale, zeroPoint, dtype)';
  checkFloatTensor(x, ctx);
  checkNumber(scale, 'scale', ctx);
  checkNumber(zeroPoint, 'zeroPoint', ctx);
  checkDtype(dtype, ctx);
  const M = wasm();
  const handle = withHeapCopy(M, x.data, (address) =>
    checked(M._quantizePerTensor(address, x.shape, scale, zeroPoint, dtype, currentIsa()), ctx),
  );
  return new QTensor(handle);
}

export function quantizePerChannel(x, scales, zeroPoints, axis, dtype) {
  const ctx = 'quantizePerChannel(x, scales, zeroPoints, axis, dtype)';
  checkFloatTensor(x, ctx);
  const floatZeroPoints = typeName(zeroPoints) === 'Float32Array';
  const qp = qparamsBlock(scales, zeroPoints, ctx);
  checkAxis(axis, ctx);
  checkDtype(dtype, ctx, floatZeroPoints ? DTYPES : ['quint8', 'qint8', 'qint32']);
  const M = wasm();
  const handle = withHeapCopy(M, qp.block, (qpAddress) =>
    withHeapCopy(M, x.data, (address) => checked(M._quantizePerChannel(
      address, x.shape, qpAddress, qp.nscales, qp.nzps, axis, floatZeroPoints, dtype, currentIsa()), ctx)));
  return new QTensor(handle);
}

const DTYPE_OF_ARRAY = { Uint8Array: 'quint8', Int8Array: 'qint8', Int32Array: 'qint32' };
const ARRAY_OF_DTYPE = { quint8: 'Uint8Array', qint8: 'Int8Array', qint32: 'Int32Array', quint4x2: 'Uint8Array' };

// {data: Uint8Array | Int8Array | Int32Array, shape}; the dtype follows the
// array type (PyTorch: the int tensor's dtype) unless given; quint4x2 needs it
// given and takes packed bytes.
function checkIntTensor(t, dtype, context) {
  if (t === null || typeof t !== 'object' || !('data' in t) || !('shape' in t)) {
    throw new TypeError(`${context}: expected an integer tensor {data: Uint8Array | Int8Array | Int32Array, shape}, got ${describe(t)}`);
  }
  const arrayType = typeName(t.data);
  const d = dtype === undefined ? DTYPE_OF_ARRAY[arrayType] : dtype;
  if (d === undefined) {
    throw new TypeError(`${context}: data must be a Uint8Array, Int8Array or Int32Array, got ${describe(t.data)}`);
  }
  checkDtype(d, context);
  if (ARRAY_OF_DTYPE[d] !== arrayType) {
    throw new TypeError(`${context}: ${d} data must be an ${ARRAY_OF_DTYPE[d]}, got ${describe(t.data)}`);
  }
  checkShape(t.shape, context);
  return d;
}

export function makePerTensorQuantizedTensor(intTensor, scale, zeroPoint, dtype) {
  const ctx = 'makePerTensorQuantizedTensor(intTensor, scale, zeroPoint, dtype)';
  const d = checkIntTensor(intTensor, dtype, ctx);
  checkNumber(scale, 'scale', ctx);
  checkNumber(zeroPoint, 'zeroPoint', ctx);
  const M = wasm();
  const data = intTensor.data;
  const handle = withHeapCopy(M, data, (address) =>
    checked(M._makePerTensor(address, data.byteLength, intTensor.shape, scale, zeroPoint, d), ctx),
  );
  return new QTensor(handle);
}

export function makePerChannelQuantizedTensor(intTensor, scales, zeroPoints, axis, dtype) {
  const ctx = 'makePerChannelQuantizedTensor(intTensor, scales, zeroPoints, axis, dtype)';
  const d = checkIntTensor(intTensor, dtype, ctx);
  const floatZeroPoints = typeName(zeroPoints) === 'Float32Array';
  const qp = qparamsBlock(scales, zeroPoints, ctx);
  checkAxis(axis, ctx);
  const M = wasm();
  const data = intTensor.data;
  const handle = withHeapCopy(M, qp.block, (qpAddress) =>
    withHeapCopy(M, data, (address) => checked(M._makePerChannel(
      address, data.byteLength, intTensor.shape, qpAddress, qp.nscales, qp.nzps, axis, floatZeroPoints, d), ctx)));
  return new QTensor(handle);
}

/** torch.dequantize(q): the same as q.dequantize(). */
export function dequantize(q) {
  if (!(q instanceof QTensor)) throw new TypeError(`dequantize(q): q must be a QTensor, got ${describe(q)}`);
  return q.dequantize();
}
