// The npm package as a user gets it: `npm pack`, install the tarball into an
// empty project, then use it by name from an ES module and from CommonJS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('the packed tarball installs and works with import and require', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qwasm-pack-'));
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8' }),
  );
  const files = packed[0].files.map((f) => f.path);
  for (const f of [
    'dist/qwasm.node.js',
    'dist/qwasm.node.wasm',
    'dist/qwasm.web.mjs',
    'dist/qwasm.web.wasm',
    'dist/qwasm.cjs',
    'web/index.d.ts',
    'web/src/index.node.mjs',
    'web/src/index.browser.mjs',
    'README.md',
  ]) {
    expect([f, files.includes(f)]).toEqual([f, true]);
  }
  expect(files.some((f) => f.startsWith('tests/') || f.startsWith('src/') || f.startsWith('demo/'))).toBe(false);

  const app = join(dir, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), '{"name":"app","version":"1.0.0","private":true}');
  const tarball = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.tgz')),
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: app, stdio: 'pipe' });
  writeFileSync(
    join(app, 'esm.mjs'),
    `
    import { init, tensor, quantizePerTensor } from 'qwasm';
    await init();
    const q = quantizePerTensor(tensor([0.1, -0.2, 0.3]), 0.01, 128, 'quint8');
    console.log(Array.from(q.intRepr()).join(','));
    q.dispose();`,
  );
  writeFileSync(
    join(app, 'cjs.cjs'),
    `
    const qwasm = require('qwasm');
    qwasm.init().then(() => {
      const q = qwasm.quantizePerChannel(qwasm.tensor([1, 2, 3, 4], [2, 2]), [0.5, 0.25], [0, 1], 0, 'qint8');
      console.log(Array.from(q.intRepr()).join(','));
      q.dispose();
    });`,
  );
  expect(execFileSync(process.execPath, ['esm.mjs'], { cwd: app, encoding: 'utf8' }).trim()).toBe('138,108,158');
  expect(execFileSync(process.execPath, ['cjs.cjs'], { cwd: app, encoding: 'utf8' }).trim()).toBe('2,4,13,17');
}, 60_000);
