// The README's Node.js and TypeScript examples run as written, in a directory
// where `qwasm` resolves as an installed package (this checkout), and print
// exactly what their `// → ` comments say. The browser examples run in
// tests/browser/readme.test.mjs; every block has a runner.
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appWithQwasm, compileStrict, ROOT, readmeBlocks, removeApps } from '../readme-blocks.mjs';

const blocks = readmeBlocks();
afterAll(removeApps);
const RUNNERS = new Set(['node', 'cjs', 'tsc', 'browser', 'vite', 'esbuild', 'run']);

test('every code block in the README is run by a test (or is an install command)', () => {
  const unrun = blocks.filter((b) => !(b.lang === 'sh' || RUNNERS.has(b.runner)));
  expect(unrun.map((b) => `${b.lang} ${b.runner}: ${b.code.slice(0, 60)}`)).toEqual([]);
  expect(blocks.filter((b) => b.lang === 'sh').map((b) => b.code.trim())).toEqual(['npm install qwasm']);
  expect(blocks.filter((b) => b.runner === 'node' || b.runner === 'cjs').length).toBeGreaterThanOrEqual(3);
});

const nodeBlocks = blocks.filter((b) => b.runner === 'node' || b.runner === 'cjs');
test.each(nodeBlocks.map((b, i) => [i + 1, b.runner, b]))(
  'README Node.js example %d (%s) prints what its comments say',
  (i, runner, b) => {
    expect(b.expected.length).toBeGreaterThan(0);
    const dir = appWithQwasm('qwasm-readme-');
    const file = join(dir, `example${i}.${runner === 'cjs' ? 'cjs' : 'mjs'}`);
    writeFileSync(file, b.code);
    // The file the README's Python block writes: the same export, at an eighth
    // of the widths (tests/golden/exported; npm run verify:torch runs the
    // Python block itself, full size, and this example on its output).
    copyFileSync(join(ROOT, 'tests/golden/exported/r3d_18.qwasm.safetensors'), join(dir, 'r3d_18.qwasm.safetensors'));
    copyFileSync(
      join(ROOT, 'tests/golden/exported/r3d_18_float.qwasm.safetensors'),
      join(dir, 'r3d_18_float.qwasm.safetensors'),
    );
    // And the PT2E block's file: r3d_18 through QwasmQuantizer, at an eighth of the widths.
    copyFileSync(
      join(ROOT, 'tests/golden/exported/pt2e_r3d_18_qwasm.qwasm.safetensors'),
      join(dir, 'r3d_18_pt2e.qwasm.safetensors'),
    );
    // The volume block's model and volume: the demo's brain MeshNet and the MNI152 T1 (demo/data/).
    for (const f of ['meshnet-brain.qwasm.safetensors', 'mni152-t1.nii.gz'])
      copyFileSync(join(ROOT, 'demo/data', f), join(dir, f));
    const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trimEnd().split('\n')).toEqual(b.expected);
  },
  180_000, // the volume block segments a whole brain (about 20 s on 2 cores)
);

test('the README Python blocks (eager, PT2E, a MONAI model) are valid Python that use the shipped exporter', () => {
  const py = blocks.filter((b) => b.lang === 'python');
  expect(py.map((b) => b.runner)).toEqual(['run', 'run', 'run']);
  expect(py[2].code).toContain('from monai.networks.nets import UNet');
  expect(py[1].code).toContain('from qwasm_quantizer import QwasmQuantizer');
  for (const b of py) {
    expect(b.code).toContain('sys.path.insert(0, "node_modules/qwasm/python")');
    const r = spawnSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], {
      input: b.code,
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  }
});

test('the README TypeScript example compiles under tsc --strict (nodenext)', () => {
  const ts = blocks.filter((b) => b.runner === 'tsc');
  expect(ts.length).toBe(1);
  const dir = appWithQwasm('qwasm-readme-ts-');
  writeFileSync(join(dir, 'example.mts'), ts[0].code);
  expect(compileStrict(dir, ['example.mts'])).toEqual({ output: '', status: 0 });
}, 60_000);
