// torch.quantize_per_tensor / quantize_per_channel and the constructors from
// integer data (_make_per_tensor_quantized_tensor / _make_per_channel_...).
// Arguments are read once (args.mjs), the tensor's bytes last, right before
// they are copied; their values (scale > 0, zero point in the dtype's range,
// axis, lengths) are checked by the core, whose messages come back as
// RangeErrors.
import {
  bytesOf,
  checkNotRevoked,
  describe,
  largestDim,
  readChoice,
  readFloatTensor,
  readNumber,
  readNumberList,
  readShape,
  tensorBytes,
  typedArrayKind,
} from '../runtime/args.mjs';
import { DTYPE } from '../runtime/codes.mjs';
import { checked } from '../runtime/errors.mjs';
import { MAX_BUFFER_BYTES, noteOutOfMemory, ownBytes, withHeapCopy } from '../runtime/heap.mjs';
import { currentIsa } from '../runtime/isa.mjs';
import { wasm } from '../runtime/runtime.mjs';
import { QTensor, qtensorHandle, wrapHandle } from './qtensor.mjs';

// Per-channel qparams cross as one heap block of doubles: scales, then zero
// points. A Float32Array of zero points selects per_channel_affine_float_qparams.
// A list longer than the shape's largest dimension cannot match any axis: it
// is refused before its elements are read.
function readQParams(scales, zeroPoints, shape, ctx) {
  const floatZeroPoints = typedArrayKind(zeroPoints) === 'Float32Array';
  const longest = largestDim(shape);
  const s = readNumberList(scales, 'scales', ctx, longest);
  const z = readNumberList(zeroPoints, 'zeroPoints', ctx, longest);
  const bytes = (s.length + z.length) * 8;
  if (bytes > MAX_BUFFER_BYTES) {
    throw new RangeError(
      `${ctx}: the qparams would need ${bytes} bytes, more than the ${MAX_BUFFER_BYTES} bytes one allocation can hold`,
    );
  }
  const block = new Float64Array(s.length + z.length);
  block.set(s);
  block.set(z, s.length);
  return { block, nscales: s.length, nzps: z.length, floatZeroPoints };
}

// Runs a call that returns a tensor handle, turning the core's errors into
// exceptions (with the live-object note on out-of-memory).
function make(ctx, call) {
  try {
    return wrapHandle(checked(call(), ctx));
  } catch (e) {
    throw noteOutOfMemory(e);
  }
}

export function quantizePerTensor(x, scale, zeroPoint, dtype) {
  const ctx = 'quantizePerTensor(x, scale, zeroPoint, dtype)';
  const t = readFloatTensor(x, ctx);
  const s = readNumber(scale, 'scale', ctx);
  const z = readNumber(zeroPoint, 'zeroPoint', ctx);
  const d = readChoice(dtype, DTYPE, 'dtype', ctx);
  const M = wasm(ctx);
  const bytes = tensorBytes(t, ctx);
  return make(ctx, () =>
    withHeapCopy(M, bytes, 'the input', ctx, (address, n) =>
      M._quantizePerTensor(address, n, t.shape, s, z, d, currentIsa()),
    ),
  );
}

export function quantizePerChannel(x, scales, zeroPoints, axis, dtype) {
  const ctx = 'quantizePerChannel(x, scales, zeroPoints, axis, dtype)';
  const t = readFloatTensor(x, ctx);
  const qp = readQParams(scales, zeroPoints, t.shape, ctx);
  const a = readNumber(axis, 'axis', ctx);
  const d = readChoice(dtype, DTYPE, 'dtype', ctx);
  const M = wasm(ctx);
  const bytes = tensorBytes(t, ctx);
  return make(ctx, () =>
    withHeapCopy(M, ownBytes(qp.block), 'the qparams', ctx, (qpAddress) =>
      withHeapCopy(M, bytes, 'the input', ctx, (address, n) =>
        M._quantizePerChannel(
          address,
          n,
          t.shape,
          qpAddress,
          qp.nscales,
          qp.nzps,
          a,
          qp.floatZeroPoints,
          d,
          currentIsa(),
        ),
      ),
    ),
  );
}

const DTYPE_OF_ARRAY = new Map([
  ['Uint8Array', 'quint8'],
  ['Int8Array', 'qint8'],
  ['Int32Array', 'qint32'],
]);
const ARRAY_OF_DTYPE = new Map([
  ['quint8', 'Uint8Array'],
  ['qint8', 'Int8Array'],
  ['qint32', 'Int32Array'],
  ['quint4x2', 'Uint8Array'],
]);

// {data: Uint8Array | Int8Array | Int32Array, shape}, read once; the dtype
// follows the array type (PyTorch: the int tensor's dtype) unless given;
// quint4x2 needs it given and takes packed bytes. The bytes are taken later
// (intBytes), right before the copy.
function readIntTensor(t, dtype, ctx) {
  checkNotRevoked(t, 'intTensor', ctx);
  if (t === null || typeof t !== 'object' || typedArrayKind(t) !== undefined) {
    throw new TypeError(
      `${ctx}: intTensor must be {data: Uint8Array | Int8Array | Int32Array, shape}, got ${describe(t)}`,
    );
  }
  const data = t.data;
  const shapeValue = t.shape;
  const kind = typedArrayKind(data);
  const name = dtype === undefined ? DTYPE_OF_ARRAY.get(kind) : dtype;
  if (name === undefined) {
    throw new TypeError(`${ctx}: intTensor.data must be a Uint8Array, Int8Array or Int32Array, got ${describe(data)}`);
  }
  const code = readChoice(name, DTYPE, 'dtype', ctx);
  if (ARRAY_OF_DTYPE.get(name) !== kind) {
    throw new TypeError(`${ctx}: ${name} data must be an ${ARRAY_OF_DTYPE.get(name)}, got ${describe(data)}`);
  }
  const { shape } = readShape(shapeValue, ctx, 'intTensor.shape');
  return { data, shape, code };
}

// The byte count is the core's to check against the shape.
const intBytes = (t, ctx) => bytesOf(t.data, 'intTensor.data', ctx);

export function makePerTensorQuantizedTensor(intTensor, scale, zeroPoint, dtype) {
  const ctx = 'makePerTensorQuantizedTensor(intTensor, scale, zeroPoint, dtype)';
  const t = readIntTensor(intTensor, dtype, ctx);
  const s = readNumber(scale, 'scale', ctx);
  const z = readNumber(zeroPoint, 'zeroPoint', ctx);
  const M = wasm(ctx);
  const bytes = intBytes(t, ctx);
  return make(ctx, () =>
    withHeapCopy(M, bytes, 'the data', ctx, (address, n) => M._makePerTensor(address, n, t.shape, s, z, t.code)),
  );
}

export function makePerChannelQuantizedTensor(intTensor, scales, zeroPoints, axis, dtype) {
  const ctx = 'makePerChannelQuantizedTensor(intTensor, scales, zeroPoints, axis, dtype)';
  const t = readIntTensor(intTensor, dtype, ctx);
  const qp = readQParams(scales, zeroPoints, t.shape, ctx);
  const a = readNumber(axis, 'axis', ctx);
  const M = wasm(ctx);
  const bytes = intBytes(t, ctx);
  return make(ctx, () =>
    withHeapCopy(M, ownBytes(qp.block), 'the qparams', ctx, (qpAddress) =>
      withHeapCopy(M, bytes, 'the data', ctx, (address, n) =>
        M._makePerChannel(address, n, t.shape, qpAddress, qp.nscales, qp.nzps, a, qp.floatZeroPoints, t.code),
      ),
    ),
  );
}

/** torch.dequantize(q): the same as q.dequantize(). */
export function dequantize(q) {
  qtensorHandle(q, 'dequantize(q)');
  return q.dequantize();
}

export { QTensor };
