// A .safetensors file's float tensors read one at a time (Blob.slice): the
// Model view's weight histogram needs one layer of the float twin, and the
// page should not hold or parse the whole file (133 MB at full size) to get it.
const MAX_HEADER = 100_000_000;

/** {has(name), get(name) -> Promise<{data: Float32Array, shape}>} over `blob`'s float32 tensors. */
export async function lazyTensors(blob) {
  const head = new DataView(await blob.slice(0, 8).arrayBuffer());
  const size = head.byteLength === 8 ? Number(head.getBigUint64(0, true)) : -1;
  if (!(size > 0 && size <= MAX_HEADER && 8 + size <= blob.size)) throw new Error('not a .safetensors file');
  const header = JSON.parse(new TextDecoder().decode(await blob.slice(8, 8 + size).arrayBuffer()));
  if (header === null || typeof header !== 'object') throw new Error('not a .safetensors file');
  const start = 8 + size;
  const isF32 = (name) => name !== '__metadata__' && Object.hasOwn(header, name) && header[name]?.dtype === 'F32';
  const cache = new Map();
  async function read(name) {
    if (!isF32(name)) throw new Error(`no float32 tensor '${name}' in the file`);
    const { shape, data_offsets: offsets } = header[name];
    const [begin, end] = Array.isArray(offsets) ? offsets : [];
    const count = Array.isArray(shape) ? shape.reduce((a, b) => a * b, 1) : Number.NaN;
    const whole = Number.isSafeInteger(begin) && Number.isSafeInteger(end) && begin >= 0 && end >= begin;
    if (!whole || end - begin !== count * 4 || start + end > blob.size)
      throw new Error(`tensor '${name}' is malformed`);
    return { data: new Float32Array(await blob.slice(start + begin, start + end).arrayBuffer()), shape };
  }
  return {
    has: isF32,
    get(name) {
      if (!cache.has(name)) cache.set(name, read(name));
      return cache.get(name);
    },
  };
}
