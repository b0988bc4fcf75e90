// The FinalizationRegistry backstop: tensors and modules that are dropped
// without dispose() are freed once garbage collected (in a child Node with
// --expose-gc, which Jest's own process does not have).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

test('dropped QTensors and modules are freed after garbage collection', () => {
  const entry = new URL('../../../web/src/index.node.mjs', import.meta.url).href;
  const file = join(mkdtempSync(join(tmpdir(), 'qwasm-gc-')), 'gc.mjs');
  writeFileSync(
    file,
    `
    import * as q from '${entry}';
    await q.init();
    const x = q.tensor(new Float32Array(4 * 3 * 4 * 5).fill(0.5), [1, 4, 3, 4, 5]);
    q.quantizePerTensor(x, 0.1, 3, 'quint8').dispose(); // warm Embind's one-time caches
    new q.nn.quantized.Conv3d(4, 2, 3).dispose();
    const before = q.heapInUse();
    (() => {
      for (let i = 0; i < 200; i++) q.quantizePerTensor(x, 0.1, 3, 'quint8');
      for (let i = 0; i < 20; i++) new q.nn.quantized.Conv3d(4, 2, 3);
    })();
    const leaked = q.heapInUse() - before;
    for (let i = 0; i < 50 && q.heapInUse() > before; i++) {
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 20));
    }
    console.log(JSON.stringify({ leaked, after: q.heapInUse() - before }));
  `,
  );
  const out = JSON.parse(execFileSync(process.execPath, ['--expose-gc', file], { encoding: 'utf8' }));
  expect(out.leaked).toBeGreaterThan(0); // the objects did hold wasm memory
  expect(out.after).toBe(0); // and the registry gave all of it back
}, 30_000);
