// The Python exporter as a pip package (python/pyproject.toml): its version is
// package.json's, the npm tarball carries it, and it builds and installs with
// no network and no torch (CI has neither) into a clean venv, where the
// `qwasm-export` command prints its usage, and says how to install the
// CPU-only torch when asked to export. Where python3 has torch (a developer's
// machine, not CI), the command also exports a float model io.loadModel runs.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as qwasm from '../../../web/src/index.node.mjs';
import { ROOT } from '../readme-blocks.mjs';

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const PY_FILES = [
  'python/pyproject.toml',
  'python/qwasm_export.py',
  'python/qwasm_format.py',
  'python/qwasm_ops.py',
  'python/qwasm_ops_activations.py',
  'python/qwasm_ops_layout.py',
  'python/qwasm_ops_norms.py',
  'python/qwasm_ops_reductions.py',
  'python/qwasm_pt2e.py',
  'python/qwasm_quantizer.py',
  'python/qwasm_video.py',
  'python/qwasm_volume.py',
];
const CPU_TORCH = 'pip install torch --index-url https://download.pytorch.org/whl/cpu';
const work = mkdtempSync(join(tmpdir(), 'qwasm-pypkg-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// pip may not reach an index (PIP_NO_INDEX), and nothing from the caller's
// Python setup leaks into the venvs.
const env = { ...process.env, PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONDONTWRITEBYTECODE: '1' };
for (const k of ['PYTHONPATH', 'PYTHONHOME', 'PYTHONUSERBASE', 'PIP_USER', 'PIP_TARGET', 'PIP_PREFIX']) delete env[k];

function run(cmd, args, cwd = work) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? `${r.error}` };
}

/** Runs a setup step; throws its output (and what a Debian machine lacks) when it fails. */
function step(what, cmd, args) {
  const r = run(cmd, args);
  if (r.status !== 0) {
    throw new Error(
      `${what} failed (exit ${r.status}):\n${r.stdout}${r.stderr}\n` +
        'python3 needs pip, setuptools and wheel (Debian: apt-get install python3-pip)',
    );
  }
  return r;
}

/** The wheel of python/ as the npm tarball has it (built once; its name carries the version). */
function wheel() {
  const file = join(work, 'dist', `qwasm_export-${VERSION}-py3-none-any.whl`);
  if (existsSync(file)) return file;
  const src = join(work, 'src');
  mkdirSync(join(src, 'python'), { recursive: true });
  for (const f of PY_FILES) copyFileSync(join(ROOT, f), join(src, f));
  // --no-build-isolation: python3's own setuptools builds it, instead of one fetched from PyPI.
  step('building the wheel', 'python3', [
    '-m',
    'pip',
    'wheel',
    '-q',
    '--no-deps',
    '--no-build-isolation',
    '-w',
    join(work, 'dist'),
    join(src, 'python'),
  ]);
  return file;
}

/** A new venv with the wheel installed (no dependencies); returns the path of a file in its bin/. */
function installInVenv(name, venvArgs = []) {
  const venv = join(work, name);
  // --without-pip (no ensurepip, python3-venv on Debian): python3's pip installs into it.
  step('creating a venv', 'python3', ['-m', 'venv', '--without-pip', ...venvArgs, venv]);
  step('installing the wheel', 'python3', [
    '-m',
    'pip',
    '--python',
    join(venv, 'bin/python'),
    'install',
    '-q',
    '--no-deps',
    wheel(),
  ]);
  return (file) => join(venv, 'bin', file);
}

test("python/pyproject.toml's version is package.json's", () => {
  expect(readFileSync(join(ROOT, 'python/pyproject.toml'), 'utf8').match(/^version = "([^"]*)"/m)?.[1]).toBe(VERSION);
});

test('the npm tarball carries the Python package (python/ as pip installs it)', () => {
  const r = run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT);
  const files = JSON.parse(r.stdout)[0].files.map((f) => f.path);
  expect(files.filter((f) => f.startsWith('python/')).sort()).toEqual(PY_FILES);
});

describe('pip-installed without torch, offline', () => {
  let bin;
  beforeAll(() => {
    bin = installInVenv('venv');
  }, 120_000);

  test('the venv has no torch (what CI and a new user have)', () => {
    expect(run(bin('python'), ['-c', 'import torch']).stderr).toMatch(/No module named 'torch'/);
  });

  test('the metadata: version, dependencies, the video and volume extras, the qwasm-export script', () => {
    const code = `import importlib.metadata as m, json
d = m.distribution("qwasm-export")
print(json.dumps([d.version, d.requires, [(e.name, e.value) for e in d.entry_points]]))`;
    const [version, requires, scripts] = JSON.parse(run(bin('python'), ['-c', code]).stdout || '[]');
    // Setuptools versions order and space the requirements differently.
    const normalized = requires?.map((r) => r.replace(/\s+/g, '').replaceAll("'", '"')).sort();
    expect([version, normalized, scripts]).toEqual([
      VERSION,
      [
        'nibabel;extra=="volume"',
        'numpy;extra=="volume"',
        'safetensors',
        'torch',
        'torchao;extra=="pt2e"',
        'torchvision;extra=="video"',
      ],
      [['qwasm-export', 'qwasm_export:main']],
    ]);
  });

  test('qwasm-export --help prints the usage', () => {
    const r = run(bin('qwasm-export'), ['--help']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(
      /^usage: qwasm-export \[-h\] --input-shape INPUT_SHAPE \[--import MODULE\] \[--traceback\] model out /,
    );
    expect(r.stdout).toContain('torch.save(model) of a float model');
  });

  test('asked to export, qwasm-export says how to install the CPU-only torch (no traceback)', () => {
    const r = run(bin('qwasm-export'), ['model.pt', 'out.safetensors', '--input-shape', '1,3,8,8']);
    expect(r).toEqual({
      status: 1,
      stdout: '',
      stderr: `qwasm-export: PyTorch is not installed; the CPU-only wheels are enough: ${CPU_TORCH}\n`,
    });
  });

  test('a malformed --input-shape is one line of error after the usage', () => {
    const r = run(bin('qwasm-export'), ['model.pt', 'out.safetensors', '--input-shape', '1,3,x']);
    expect(r.status).toBe(2);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(
      "qwasm-export: error: --input-shape must be integers separated by commas, e.g. 1,3,16,112,112; got '1,3,x'",
    );
  });
});

const hasTorch = spawnSync('python3', ['-c', 'import torch, safetensors'], { env }).status === 0;
(hasTorch ? test : test.skip)(
  'with torch (not in CI): qwasm-export exports a float model io.loadModel runs, and refuses a converted one with the reason',
  async () => {
    const bin = installInVenv('venv-torch', ['--system-site-packages']);
    const save = `import json, torch, warnings
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub, convert, get_default_qconfig, prepare
warnings.simplefilter("ignore")
torch.manual_seed(0)
f = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3))
f[1].running_mean.uniform_(-1, 1); f[1].running_var.uniform_(0.5, 2)
torch.save(f.eval(), "float.pt")
q = nn.Sequential(QuantStub(), nn.Conv2d(2, 4, 3), DeQuantStub()).eval()
q.qconfig = get_default_qconfig("fbgemm")
prepare(q, inplace=True); q(torch.randn(1, 2, 6, 6)); convert(q, inplace=True)
torch.save(q, "converted.pt")
x = torch.linspace(-2, 2, 72).reshape(1, 2, 6, 6)
with torch.no_grad(): print(json.dumps([x.flatten().tolist(), f(x).flatten().tolist()]))`;
    const saved = run(bin('python'), ['-c', save]);
    expect(saved.status).toBe(0);
    const [x, want] = JSON.parse(saved.stdout);

    const exported = run(bin('qwasm-export'), ['float.pt', 'float.qwasm.safetensors', '--input-shape', '1,2,6,6']);
    expect([exported.status, exported.stdout]).toEqual([0, 'wrote float.qwasm.safetensors: 6 modules, 8 nodes\n']);
    await qwasm.init();
    const model = qwasm.io.loadModel(new Uint8Array(readFileSync(join(work, 'float.qwasm.safetensors'))));
    const y = model.forward({ data: Float32Array.from(x), shape: [1, 2, 6, 6] });
    model.dispose();
    expect(y.shape).toEqual([1, 3]);
    expect(Array.from(y.data, (v, i) => Math.abs(v - want[i]) / Math.max(1, Math.abs(want[i])) < 1e-5)).toEqual([
      true,
      true,
      true,
    ]);

    const refused = run(bin('qwasm-export'), ['converted.pt', 'q.qwasm.safetensors', '--input-shape', '1,2,6,6']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /converted.pt is a converted \(quantized\) model, which torch.load cannot restore whole \(pytorch\/pytorch#61881\)/,
    );
  },
  120_000,
);

(hasTorch ? test : test.skip)(
  "with torch (not in CI): a model whose class is in the user's folder exports from there (as python -m finds it), else one line says to run there or pass --import; a subclass of nn.Conv3d (as torchvision's video models' Conv3DSimple) is kept as a conv; the file follows the umask",
  async () => {
    const bin = installInVenv('venv-torch-user', ['--system-site-packages']);
    const user = join(work, 'user');
    mkdirSync(join(user, 'elsewhere'), { recursive: true });
    writeFileSync(
      join(user, 'small.py'),
      `from torch import nn
class MyConv(nn.Conv3d):  # as torchvision's Conv3DSimple: its own __init__, nn.Conv3d's forward
    def __init__(self, cin, cout):
        super().__init__(cin, cout, kernel_size=(1, 3, 3), padding=(0, 1, 1), bias=False)
class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = MyConv(2, 4)
        self.fc = nn.Linear(4, 3)
    def forward(self, x):
        return self.fc(self.conv(x).mean((2, 3, 4)))
`,
    );
    const saved = run(bin('python'), ['-c', 'import torch, small; torch.save(small.Small().eval(), "m.pt")'], user);
    expect(saved).toMatchObject({ status: 0 });
    const args = ['--input-shape', '1,2,2,5,5'];
    // umask 027: the file is 0640 (safetensors alone writes 0600).
    const here = spawnSync(
      'sh',
      ['-c', 'umask 027 && exec "$0" "$@"', bin('qwasm-export'), 'm.pt', 'o.safetensors', ...args],
      {
        cwd: user,
        env,
        encoding: 'utf8',
      },
    );
    expect([here.status, here.stdout, here.stderr]).toEqual([0, 'wrote o.safetensors: 2 modules, 5 nodes\n', '']);
    expect((statSync(join(user, 'o.safetensors')).mode & 0o777).toString(8)).toBe('640');
    await qwasm.init();
    const model = qwasm.io.loadModel(new Uint8Array(readFileSync(join(user, 'o.safetensors'))));
    const modules = model.namedModules().filter(([path]) => path !== '');
    expect(modules.map(([path, m]) => [path, m.constructor.name])).toEqual([
      ['conv', 'Conv3d'],
      ['fc', 'Linear'],
    ]);
    model.dispose();

    // From another folder the class's module is not found: one line, what to do.
    const moved = join(user, 'elsewhere');
    copyFileSync(join(user, 'm.pt'), join(moved, 'm.pt'));
    const lost = run(bin('qwasm-export'), ['m.pt', 'o.safetensors', ...args], moved);
    expect(lost).toEqual({
      status: 1,
      stdout: '',
      stderr:
        "qwasm-export: error: m.pt holds a class that cannot be found (No module named 'small'): run qwasm-export from the folder that holds its module (small), or name it with --import MODULE\n",
    });
    // --import a module found on PYTHONPATH: it exports.
    const named = spawnSync(bin('qwasm-export'), ['m.pt', 'o.safetensors', ...args, '--import', 'small'], {
      cwd: moved,
      env: { ...env, PYTHONPATH: user },
      encoding: 'utf8',
    });
    expect([named.status, named.stderr]).toEqual([0, '']);
    // An error of the export itself: one line too (no traceback).
    const wrong = run(bin('qwasm-export'), ['m.pt', 'o.safetensors', '--input-shape', '1,3,2,5,5'], user);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^qwasm-export: error: RuntimeError: [^\n]*channels[^\n]*\n$/);
  },
  120_000,
);
