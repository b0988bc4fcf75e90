// The exported model files of tests/golden/exported/, as the golden suites use
// them: read, run on a case's input against its recorded output, and edited in
// their graph JSON as a hostile file would be (each suite had its own copy).
import { readFileSync } from 'node:fs';
import { decode, firstBitDifference } from './util.mjs';

/** The bytes of tests/golden/`name` (e.g. a case's `file`). */
export const goldenFile = (name) => new Uint8Array(readFileSync(new URL(`../golden/${name}`, import.meta.url)));

/** A golden {dtype, shape, b64} array as a float tensor argument {data, shape}. */
export const goldenTensor = (a) => ({ data: decode(a), shape: a.shape });

/** Loads case c's model file, runs it on c.x and disposes it; expects the heap back as it was. Returns y. */
export function runGoldenModel(qwasm, c) {
  const heap = qwasm.heapInUse();
  const model = qwasm.io.loadModel(goldenFile(c.file));
  const y = model.forward(goldenTensor(c.x));
  model.dispose();
  expect(qwasm.heapInUse()).toBe(heap);
  return y;
}

/** runGoldenModel, and its output c.y's shape and bits (`options` as firstBitDifference's: anyNaN). */
export function expectGoldenModel(qwasm, c, options) {
  const y = runGoldenModel(qwasm, c);
  expect({ shape: y.shape, firstBitDifference: firstBitDifference(y.data, decode(c.y), options) }).toEqual({
    shape: c.y.shape,
    firstBitDifference: -1,
  });
}

/** A model file's header length `n` (after its 8-byte prefix), its header, and the graph in its metadata. */
export function headerOf(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  return { n, header, graph: JSON.parse(header.__metadata__.graph) };
}

/**
 * A copy of the file with its graph changed by `edit(graph)`. The header keeps
 * its length (padded with spaces), so the tensors' offsets still hold: an edit
 * that lengthens it throws.
 */
export function withGraph(bytes, edit) {
  const { n, header, graph } = headerOf(bytes);
  edit(graph);
  header.__metadata__.graph = JSON.stringify(graph);
  const text = new TextEncoder().encode(JSON.stringify(header).padEnd(n, ' '));
  if (text.length !== n) throw new Error('the edit must not lengthen the header');
  const edited = new Uint8Array(bytes);
  edited.set(text, 8);
  return edited;
}
