// The exporter's refusals for the element-wise activations, run where python3
// has torch and torchao (a developer's machine; CI has neither, and the
// committed goldens, tests/js/model/golden-activations.test.mjs, check the
// numbers): an in-place activation module whose input other nodes read (in a
// traced float model; torch.export rewrites such reads itself), a float GELU
// with approximate='none', and an eager activation module that ran on inputs
// of two different qparams (one table cannot hold both).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../readme-blocks.mjs';

const hasTorchao = spawnSync('python3', ['-c', 'import torch, torchao'], { encoding: 'utf8' }).status === 0;
const work = mkdtempSync(join(tmpdir(), 'qwasm-activations-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PYTHON = `import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'python'))})
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub, convert, get_default_qconfig, prepare
from qwasm_export import ExportError, export

torch.manual_seed(0)
out = {}

def attempt(name, model, x):
    try:
        export(model, x, f"{name}.qwasm.safetensors")
        out[name] = {"ok": True}
    except ExportError as e:
        out[name] = {"error": str(e)}

class SharedInPlace(nn.Module):  # the in-place LeakyReLU writes y, which the add reads too
    def __init__(self):
        super().__init__()
        self.conv, self.act = nn.Conv2d(3, 4, 3), nn.LeakyReLU(0.1, inplace=True)
    def forward(self, x):
        y = self.conv(x)
        return self.act(y) + y

class Gelu(nn.Module):
    def forward(self, x):
        return nn.functional.gelu(x)

class SigmoidTwice(nn.Module):  # one nn.Sigmoid on two quantized values of different qparams
    def __init__(self):
        super().__init__()
        self.quant, self.dequant = QuantStub(), DeQuantStub()
        self.conv1, self.conv2, self.gate = nn.Conv2d(3, 4, 1), nn.Conv2d(4, 4, 1), nn.Sigmoid()
    def forward(self, x):
        return self.dequant(self.gate(self.conv2(self.gate(self.conv1(self.quant(x))))))

x = torch.randn(1, 3, 8, 8)
# The eager (torch.fx) flow: torch.export would rewrite the add to read the activation's output.
attempt("shared_inplace", SharedInPlace().eval(), x)
attempt("gelu_none", torch.export.export(Gelu().eval(), (x,)).module(), x)
m = SigmoidTwice().eval()
m.qconfig = get_default_qconfig("fbgemm")
prepare(m, inplace=True)
m(x)
convert(m, inplace=True)
attempt("sigmoid_twice", m, x)
print(json.dumps(out))`;

let results;
function pythonResults() {
  if (results) return results;
  writeFileSync(join(work, 'activation_models.py'), PYTHON);
  const r = spawnSync('python3', ['activation_models.py'], { cwd: work, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`the activations script failed:\n${r.stderr}`);
  results = JSON.parse(r.stdout.trim().split('\n').at(-1));
  return results;
}

const it = hasTorchao ? test : test.skip;
if (!hasTorchao) console.warn('SKIPPED: python3 has no torch and torchao: the activations exporter');

it('an in-place activation on a value other nodes read is refused, naming the readers', () => {
  expect(pythonResults().shared_inplace.error).toMatch(
    /node 'act': an in-place op on 'conv', which other nodes also read \(act, add\); use the out-of-place form/,
  );
}, 300_000);

it("a float GELU with approximate='none' is refused with the reason, and the int8 route named", () => {
  expect(pythonResults().gelu_none.error).toMatch(/float gelu with approximate='none' is not supported/);
  expect(pythonResults().gelu_none.error).toMatch(/runs in int8/);
});

it('an eager activation module that ran on two different qparams is refused: one table per module', () => {
  expect(pythonResults().sigmoid_twice.error).toMatch(
    /^gate: Sigmoid ran on inputs of different kinds or qparams .*give each use its own module/,
  );
});
