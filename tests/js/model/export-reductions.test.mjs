// The exporter's reductions and float binary ops (python/qwasm_ops_reductions.py), through both flows, where
// python3 has torch and torchao (a developer's machine; without them the committed goldens,
// tests/golden/reductions.json, check the ops): what it writes loads and gives PyTorch's output (bit for bit,
// softmax within its bound), and what it cannot write bit for bit is an ExportError naming the node.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as qwasm from '../../../web/src/index.node.mjs';
import { ROOT } from '../readme-blocks.mjs';
import { firstBitDifference } from '../util.mjs';

const hasTorch = spawnSync('python3', ['-c', 'import torch, torchao, safetensors'], { encoding: 'utf8' }).status === 0;
const work = mkdtempSync(join(tmpdir(), 'qwasm-export-reductions-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PYTHON = `import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'python'))})
import torch
from torch import nn
from qwasm_export import ExportError, export
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
from qwasm_quantizer import QwasmQuantizer

torch.set_num_threads(1)
torch.manual_seed(0)
out = {}
hexof = lambda t: t.detach().float().contiguous().numpy().tobytes().hex()

class Fn(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f
    def forward(self, x):
        return self.f(x)

def pt2e(model, x):
    m = torch.export.export(model.eval(), (x,)).module()
    m = prepare_pt2e(m, QwasmQuantizer())
    m(x)
    return convert_pt2e(m)

def attempt(name, model, x, flow):
    path = f"{name}.qwasm.safetensors"
    try:
        if flow == "pt2e":
            model = pt2e(model, x)
        export(model, x, path)
        with torch.no_grad():
            y = model(x)
        out[name] = {"file": path, "x": hexof(x), "shape": list(x.shape), "y": hexof(y), "y_shape": list(y.shape)}
    except ExportError as e:
        out[name] = {"error": str(e)}

x = torch.randn(2, 3, 4, 5) * 10
for flow in ("fx", "pt2e"):
    attempt(f"{flow}_mean_all", Fn(lambda x: x.mean()), x, flow)
    attempt(f"{flow}_sum_keepdim", Fn(lambda x: torch.sum(x, dim=(1, 3), keepdim=True)), x, flow)
    attempt(f"{flow}_number_first", Fn(lambda x: 2.5 * x - 0.1), x, flow)
    attempt(f"{flow}_divide_broadcast", Fn(lambda x: x / x.amax(dim=1, keepdim=True)), x, flow)
    attempt(f"{flow}_softmax", Fn(lambda x: torch.nn.functional.softmax(x, dim=1)), x, flow)
    attempt(f"{flow}_floor_divide", Fn(lambda x: torch.div(x, 3.0, rounding_mode="floor")), x, flow)
    attempt(f"{flow}_sub_alpha", Fn(lambda x: torch.sub(x, x.amin(dim=0), alpha=2)), x, flow)
    attempt(f"{flow}_sum_float64", Fn(lambda x: torch.sum(x, dim=1, dtype=torch.float64)), x, flow)
json.dump(out, sys.stdout)
`;

const run = hasTorch ? spawnSync('python3', ['-c', PYTHON], { cwd: work, encoding: 'utf8', timeout: 300_000 }) : null;
const results = run && run.status === 0 ? JSON.parse(run.stdout) : {};
const floats = (hex) => new Float32Array(Uint8Array.from(Buffer.from(hex, 'hex')).buffer);

const maybe = hasTorch ? describe : describe.skip;
if (!hasTorch) console.log('[export-reductions] skipped: python3 without torch / torchao');

// A float32's position on the number line (ulps from +0).
const ordinal = (v) => {
  const i = new Int32Array(new Float32Array([v]).buffer)[0];
  return i < 0 ? -(i & 0x7fffffff) : i;
};

maybe('the exporter (python3 with torch and torchao)', () => {
  beforeAll(() => qwasm.init());

  test('the Python run finished', () => {
    expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });
  });

  const written = ['mean_all', 'sum_keepdim', 'number_first', 'divide_broadcast', 'softmax'];
  test.each(['fx', 'pt2e'].flatMap((flow) => written.map((name) => [`${flow}_${name}`])))(
    '%s: loads and gives PyTorch’s output',
    (name) => {
      const r = results[name];
      expect(r?.error).toBeUndefined();
      const model = qwasm.io.loadModel(new Uint8Array(readFileSync(join(work, r.file))));
      const y = model.forward({ data: floats(r.x), shape: r.shape });
      model.dispose();
      expect(y.shape).toEqual(r.y_shape);
      const want = floats(r.y);
      if (name.endsWith('softmax')) {
        // docs/numerics.md: softmax within 6 ulp (Math.exp against Sleef's exp).
        const ulps = Array.from(want, (w, i) => Math.abs(ordinal(y.data[i]) - ordinal(w)));
        expect(Math.max(...ulps)).toBeLessThanOrEqual(6);
      } else {
        expect(firstBitDifference(y.data, want)).toBe(-1);
      }
    },
  );

  test.each([
    ['floor_divide', /div with rounding_mode='floor' is not supported/],
    ['sub_alpha', /sub with alpha=2 is not supported/],
    ['sum_float64', /sum with dtype=torch.float64 is not supported/],
  ])('%s: an ExportError naming the node, in both flows', (name, message) => {
    for (const flow of ['fx', 'pt2e']) {
      expect(results[`${flow}_${name}`]?.error).toMatch(message);
      expect(results[`${flow}_${name}`]?.error).toMatch(/node '/);
    }
  });
});
