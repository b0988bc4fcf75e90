// io.loadNpy / io.loadSafetensors on files written by real numpy and
// safetensors (tests/golden/fixtures, made by generate.py), and on malformed
// bytes, which must give a clear Error and never a wrong tensor.
import { readFileSync } from 'node:fs';
import { io } from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference } from '../util.mjs';

const dir = new URL('../../golden/fixtures/', import.meta.url);
const file = (name) => new Uint8Array(readFileSync(new URL(name, dir)));
const expected = JSON.parse(readFileSync(new URL('expected.json', dir), 'utf8')).cases;

describe('io.loadNpy on numpy files', () => {
  test.each(expected.filter((e) => e.file.endsWith('.npy')).map((e) => [e.file, e]))('%s', (name, e) => {
    const t = io.loadNpy(file(name));
    expect(t.shape).toEqual(e.shape);
    expect(firstBitDifference(t.data, decode(e.values))).toBe(-1);
  });

  test('dtype names the file type', () => {
    expect(io.loadNpy(file('activation_f64.npy')).dtype).toBe('float64');
    expect(io.loadNpy(file('weight_f32.npy').buffer).dtype).toBe('float32');
  });
});

describe('io.loadSafetensors on a safetensors file', () => {
  const st = io.loadSafetensors(file('model.safetensors'));
  test('lists every tensor with dtype and shape, and the metadata', () => {
    expect(st.tensors.map((t) => t.name).sort()).toEqual([
      'conv1.bias',
      'conv1.weight',
      'emb.half',
      'fc.weight',
      'steps',
    ]);
    expect(st.tensors.find((t) => t.name === 'fc.weight')).toEqual({
      name: 'fc.weight',
      dtype: 'F64',
      shape: [10, 32],
    });
    expect(st.metadata).toEqual({ format: 'pt' });
  });
  test.each(
    expected
      .filter((e) => e.file.startsWith('model.safetensors:') && !e.file.endsWith('steps'))
      .map((e) => [e.file, e]),
  )('%s', (name, e) => {
    const t = st.get(name.split(':')[1]);
    expect(t.shape).toEqual(e.shape);
    expect(firstBitDifference(t.data, decode(e.values))).toBe(-1);
  });
  test('integer tensors are listed but not read as float', () => {
    expect(() => st.get('steps')).toThrow("tensor 'steps' is I64; only F32, F64, F16 and BF16 can be read as float");
  });
  test('an unknown name lists the names there are', () => {
    expect(() => st.get('nope')).toThrow(/no tensor named 'nope'; the file has .*'conv1.weight'/);
  });
});

function patched(name, f) {
  const b = file(name).slice();
  f(b, new DataView(b.buffer));
  return b;
}

describe('malformed files', () => {
  test.each([
    ['empty', () => io.loadNpy(new Uint8Array(0)), 'not a .npy file'],
    ['a safetensors file given to loadNpy', () => io.loadNpy(file('model.safetensors')), 'not a .npy file'],
    ['a Fortran-order array', () => io.loadNpy(file('fortran_f32.npy')), 'Fortran-order arrays are not supported'],
    ['an int32 array', () => io.loadNpy(file('int32.npy')), "unsupported dtype '<i4'"],
    [
      'truncated data',
      () => io.loadNpy(file('weight_f32.npy').subarray(0, 300)),
      'truncated data: shape [8, 3, 3, 3, 3] of float32 needs 2592 bytes',
    ],
    [
      'a header longer than the file',
      () => io.loadNpy(patched('weight_f32.npy', (b, v) => v.setUint16(8, 60000, true))),
      'truncated file',
    ],
    [
      'a broken header',
      () => io.loadNpy(patched('weight_f32.npy', (b) => b.set(new TextEncoder().encode('xxxxxxx'), 11))),
      'malformed header',
    ],
    [
      'an unknown npy version',
      () =>
        io.loadNpy(
          patched('weight_f32.npy', (b) => {
            b[6] = 9;
          }),
        ),
      'unsupported .npy format version 9',
    ],
    ['safetensors shorter than 8 bytes', () => io.loadSafetensors(new Uint8Array(5)), 'the header size alone takes 8'],
    [
      'safetensors header size beyond the file',
      () => io.loadSafetensors(patched('model.safetensors', (b, v) => v.setBigUint64(0, 10n ** 9n, true))),
      'header size 1000000000 exceeds',
    ],
    [
      'safetensors header not JSON',
      () =>
        io.loadSafetensors(
          patched('model.safetensors', (b) => {
            b[8] = 0x41;
          }),
        ),
      'malformed header (not JSON)',
    ],
    [
      'safetensors data cut short',
      () => io.loadSafetensors(file('model.safetensors').subarray(0, 2000)),
      'outside the',
    ],
    ['not bytes at all', () => io.loadSafetensors('model.safetensors'), 'expected an ArrayBuffer or a typed array'],
  ])('%s', (name, thunk, fragment) => {
    expect(thunk).toThrow(fragment);
  });
});
