// A .safetensors file's float tensors read one at a time (Blob.slice): the
// Model view's weight histogram needs one layer of the float twin, and the
// page should not hold or parse the whole file (133 MB at full size) to get it.
const MAX_HEADER = 100_000_000;

/** {names, has(name), get(name) -> Promise<{data: Float32Array, shape}>} over `blob`. */
export async function lazyTensors(blob) {
  const head = new DataView(await blob.slice(0, 8).arrayBuffer());
  const size = head.byteLength === 8 ? Number(head.getBigUint64(0, true)) : -1;
  if (!(size > 0 && size <= MAX_HEADER && 8 + size <= blob.size)) throw new Error('not a .safetensors file');
  const header = JSON.parse(new TextDecoder().decode(await blob.slice(8, 8 + size).arrayBuffer()));
  const start = 8 + size;
  const cache = new Map();
  const isF32 = (name) => name !== '__metadata__' && header[name]?.dtype === 'F32';
  return {
    has: isF32,
    get(name) {
      if (!isF32(name)) return Promise.reject(new Error(`no float32 tensor '${name}' in the file`));
      if (!cache.has(name)) {
        const {
          shape,
          data_offsets: [begin, end],
        } = header[name];
        const count = shape.reduce((a, b) => a * b, 1);
        if (end - begin !== count * 4 || start + end > blob.size) throw new Error(`tensor '${name}' is malformed`);
        cache.set(
          name,
          blob
            .slice(start + begin, start + end)
            .arrayBuffer()
            .then((buffer) => ({ data: new Float32Array(buffer), shape })),
        );
      }
      return cache.get(name);
    },
  };
}
