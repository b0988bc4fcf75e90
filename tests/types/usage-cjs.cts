// A CommonJS consumer (compiled to require()): the `require` condition's
// declarations (dist/qwasm.d.cts) type the same API.
import { init, isInitialized, type nn, quantizePerTensor, tensor } from 'qwasm';

import qwasm = require('qwasm');

export async function cjs(m: nn.quantized.Conv3d): Promise<number> {
  const ready: boolean = isInitialized();
  await init();
  const q = quantizePerTensor(tensor([1, 2]), 0.5, 0, 'quint8');
  const ints: Uint8Array = q.intRepr();
  q.dispose();
  const again = qwasm.quantizePerTensor(qwasm.tensor([1]), 1, 0, 'qint8');
  const i8: Int8Array = again.intRepr();
  again.dispose();
  return Number(ready) + ints.length + i8.length + m.kernelSize.length;
}
