// A library installs no process-wide handlers: an app with its own
// unhandledRejection handler keeps running after init(), failed and retried
// init()s add no listeners, and the shipped glue contains none to add.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../../../web/src/index.node.mjs', import.meta.url));

test('an app that handles its own rejections keeps running, and init() adds no listeners', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qwasm-process-'));
  const app = join(dir, 'app.mjs');
  writeFileSync(
    app,
    `
    import { init, quantizePerTensor, tensor } from ${JSON.stringify(entry)};
    const events = ['uncaughtException', 'unhandledRejection', 'exit', 'SIGINT'];
    const count = () => events.map((e) => process.listenerCount(e)).join(',');
    const before = count();
    for (let i = 0; i < 3; i++) {
      try { await init({ wasmBinary: new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9]) }); } catch { /* a bad module: retried below */ }
    }
    await init();
    const after = count();
    process.on('unhandledRejection', (r) => console.log('app handled: ' + r.message));
    Promise.reject(new Error('app rejection'));
    setTimeout(() => {
      const q = quantizePerTensor(tensor([0.273939937]), 0.00214854861, 0, 'quint8');
      console.log('still running: ' + q.intRepr()[0]);
      console.log('listeners before ' + before + ' after ' + after);
    }, 20);
  `,
  );
  const out = execFileSync(process.execPath, [app], { encoding: 'utf8' });
  expect(out).toContain('app handled: app rejection');
  expect(out).toContain('still running: 128');
  expect(out).toMatch(/listeners before (\S+) after \1\n/);
});

test('the shipped glues register no process handlers and contain no new Function', () => {
  for (const file of ['qwasm.node.cjs', 'qwasm.web.mjs', 'qwasm.cjs']) {
    const glue = readFileSync(new URL(`../../../dist/${file}`, import.meta.url), 'utf8');
    expect([file, /process\[?["']?on["']?\]?\(["'](uncaughtException|unhandledRejection)/.test(glue)]).toEqual([
      file,
      false,
    ]);
    expect([file, glue.includes('new Function')]).toEqual([file, false]);
  }
});

test('qwasm runs in a Node.js process that forbids code generation from strings (no eval anywhere)', () => {
  const cjs = fileURLToPath(new URL('../../../dist/qwasm.cjs', import.meta.url));
  const script = `
    const q = require(${JSON.stringify(cjs)});
    let blocked = false;
    try { eval('1'); } catch { blocked = true; }
    q.init().then(() => {
      const m = new q.nn.intrinsic.quantized.ConvReLU3d(2, 3, 3, { padding: 1 });
      const x = q.quantizePerTensor(q.tensor(new Float32Array(2 * 4 * 4 * 4).fill(0.5), [1, 2, 4, 4, 4]), 0.1, 0, 'quint8');
      const y = m.forward(x);
      const h = new q.quantization.HistogramObserver();
      h.observe(q.tensor([1, 2, 3]));
      console.log(blocked, y.shape.join('x'), h.calculateQParams().zeroPoint);
    });`;
  const out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '-e', script], {
    encoding: 'utf8',
  });
  expect(out.trim()).toBe('true 1x3x4x4x4 0');
});
