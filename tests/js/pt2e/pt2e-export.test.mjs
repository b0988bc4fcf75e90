// The exporter on torchao's PT2E graphs, run where python3 has torch and
// torchao (a developer's machine; CI has neither, and the committed goldens,
// tests/js/pt2e/golden-pt2e.test.mjs, check the numbers there): one Python run
// builds small models, quantizes them with PT2E and exports them, or records
// the ExportError it raises; the files then run in qwasm.
// - what it cannot run is an ExportError naming the node and its source line;
// - float adds that broadcast, or add a number, export and run;
// - activations quantized over a reduced range (reduce_range) are refused
//   with the reason, as is dropout left in training mode;
// - QwasmQuantizer's conv1d, and a PT2E graph without quantization (float
//   ops only), export and run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as qwasm from '../../../web/src/index.node.mjs';
import { ROOT } from '../readme-blocks.mjs';

const hasTorchao = spawnSync('python3', ['-c', 'import torch, torchao'], { encoding: 'utf8' }).status === 0;
const work = mkdtempSync(join(tmpdir(), 'qwasm-pt2e-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PYTHON = `import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'python'))})
import torch
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
    X86InductorQuantizer, get_default_x86_inductor_quantization_config)
from qwasm_export import ExportError, export
from qwasm_quantizer import QwasmQuantizer

torch.manual_seed(0)
out = {}

def pt2e(model, x, quantizer):
    m = torch.export.export(model, (x,)).module()
    if quantizer is None:
        return m
    m = prepare_pt2e(m, quantizer)
    m(x)
    return convert_pt2e(m)

def pt2e_batch(model, x, quantizer, batch):
    """Exported with a dynamic batch (an example of that many copies of x), as the README recipe does."""
    example = torch.cat([x] * batch)
    m = torch.export.export(model, (example,), dynamic_shapes=({0: torch.export.Dim("batch")},)).module()
    m = prepare_pt2e(m, quantizer)
    m(x)
    return convert_pt2e(m)

def attempt(name, model, x, quantizer, batch=None):
    try:
        m = pt2e(model, x, quantizer) if batch is None else pt2e_batch(model, x, quantizer, batch)
        export(m, x, f"{name}.qwasm.safetensors")
        with torch.no_grad():
            y = m(x)
        out[name] = {"x": x.flatten().tolist(), "shape": list(x.shape), "y": y.flatten().tolist()}
    except ExportError as e:
        out[name] = {"error": str(e)}

class Cumulative(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3)
        self.conv2 = nn.Conv2d(4, 4, 3)
    def forward(self, x):
        y = self.conv1(x)
        y = y + torch.cumsum(y, 1)  # qwasm has no cumsum
        return self.conv2(y)

x2 = torch.randn(1, 3, 8, 8)
attempt("cumsum", Cumulative().eval(), x2, QwasmQuantizer())
# x.view(x.shape[0], ...) under a dynamic batch, as pytorchvideo's heads write it.
class BatchViews(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Linear(4 * 36, 5)
    def forward(self, x):
        y = self.conv(x)
        y = y.view(y.shape[0], 4, 36).view(y.shape[0], -1)
        return self.fc(y)

attempt("batch_views", BatchViews().eval(), x2, QwasmQuantizer(), batch=2)
# ReLU6 (torch.export writes aten.hardtanh_) as MobileNet uses it, and a Hardtanh.
attempt("hardtanh", nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU6(inplace=True), nn.Conv2d(4, 4, 3),
                                  nn.Hardtanh(-0.5, 0.5)).eval(), x2, QwasmQuantizer())
attempt("reduce_range", nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU()).eval(), x2,
        X86InductorQuantizer().set_global(get_default_x86_inductor_quantization_config(reduce_range=True)))
attempt("dropout_training", nn.Sequential(nn.Conv2d(3, 4, 3), nn.Dropout(0.5)).train(), x2, None)
x1 = torch.randn(2, 3, 20)
attempt("conv1d", nn.Sequential(nn.Conv1d(3, 6, 3, padding=1), nn.BatchNorm1d(6), nn.ReLU(),
                                nn.Conv1d(6, 6, 3, stride=2), nn.AdaptiveAvgPool1d(1), nn.Flatten(),
                                nn.Linear(6, 5)).eval(), x1, QwasmQuantizer())
attempt("float_graph", nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                                     nn.Flatten(), nn.Linear(36, 3)).eval(), x2, None)

class Twice(nn.Module):  # one conv module called twice (its weights written for each call)
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.stem = nn.Conv2d(3, 4, 3)
    def forward(self, x):
        return self.conv(self.conv(self.stem(x)))

class Functional(nn.Module):  # sizes written as one-element lists, valid in PyTorch
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 3, 3, 3) * 0.3)
        self.b = nn.Parameter(torch.randn(4) * 0.1)
    def forward(self, x):
        y = nn.functional.conv2d(x, self.w, self.b, [2], [1], [1])
        return nn.functional.avg_pool2d(nn.functional.max_pool2d(y, [3], [1], [1]), [2])

class PreActivation(nn.Module):  # a BatchNorm prepare_pt2e cannot fold, reading a quantized value
    def __init__(self):
        super().__init__()
        self.conv1, self.pool, self.bn, self.conv2 = nn.Conv2d(3, 4, 3), nn.MaxPool2d(2), nn.BatchNorm2d(4), nn.Conv2d(4, 4, 1)
        self.bn.running_mean.uniform_(-0.5, 0.5); self.bn.running_var.uniform_(0.5, 1.5)
    def forward(self, x):
        return self.conv2(self.bn(self.pool(self.conv1(x))))

class Broadcast(nn.Module):  # X86InductorQuantizer leaves this add in float: a float add that broadcasts
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(3, 4, 3), nn.Conv2d(3, 4, 3)
    def forward(self, x):
        return self.conv1(x) + nn.functional.adaptive_avg_pool2d(self.conv2(x), 1)

attempt("twice", Twice().eval(), x2, QwasmQuantizer())
attempt("functional", Functional().eval(), x2, QwasmQuantizer())
attempt("pre_activation", PreActivation().eval(), x2, QwasmQuantizer())
attempt("float_broadcast", Broadcast().eval(), x2,
        X86InductorQuantizer().set_global(get_default_x86_inductor_quantization_config()))

class Scalars(nn.Module):  # float adds of a tensor and a number (aten.add.Tensor with a number)
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
    def forward(self, x):
        return torch.add(1.5 + self.conv(x), 3) + 0.1

class Alpha(nn.Module):
    def forward(self, x):
        return torch.add(x, x, alpha=2.5)

attempt("float_scalars", Scalars().eval(), x2, None)
attempt("float_alpha", Alpha().eval(), x2, None)
print(json.dumps(out))`;

let results;
function pythonResults() {
  if (results) return results;
  // A file, not -c: torch.export records the source lines of code it can read.
  writeFileSync(join(work, 'pt2e_models.py'), PYTHON);
  const r = spawnSync('python3', ['pt2e_models.py'], { cwd: work, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`the PT2E script failed:\n${r.stderr}`);
  results = JSON.parse(r.stdout.trim().split('\n').at(-1));
  return results;
}

const it = hasTorchao ? test : test.skip;
if (!hasTorchao)
  console.warn('SKIPPED: python3 has no torch and torchao (pip install torch torchao): the PT2E exporter');

it('an op qwasm cannot run is an ExportError naming the node, the op and the source line, and where the ops are listed', () => {
  const { error } = pythonResults().cumsum;
  expect(error).toMatch(/^unsupported op aten\.cumsum\.default at node 'cumsum' \(cumsum\.default\)/);
  // The user's line of code, from torch.export's stack trace.
  expect(error).toMatch(/File ".*pt2e_models\.py", line \d+, in forward: y = y \+ torch\.cumsum\(y, 1\)/);
  expect(error).toMatch(/docs\/ops\.md \(in the qwasm package\) lists every op qwasm runs/);
}, 300_000);

it('activations over a reduced range (reduce_range=True) are refused with the reason and the remedy', () => {
  const { error } = pythonResults().reduce_range;
  expect(error).toMatch(
    /quant range \[0, 127\] of torch\.uint8: qwasm's quantized ops clamp to the dtype's full range/,
  );
  expect(error).toMatch(/reduce_range=False/);
});

it('a float add with alpha other than 1 is refused, naming the node and why', () => {
  expect(pythonResults().float_alpha.error).toMatch(
    /^node 'add' \(add\.Tensor\).*: add with alpha=2\.5 is not supported: PyTorch rounds input \+ alpha \* other once/,
  );
});

it('dropout exported in training mode is refused, naming move_exported_model_to_eval', () => {
  const { error } = pythonResults().dropout_training;
  expect(error).toMatch(/dropout in training mode/);
  expect(error).toMatch(/move_exported_model_to_eval/);
});

async function runExported(name) {
  await qwasm.init();
  const r = pythonResults()[name];
  expect(r.error).toBeUndefined();
  const model = qwasm.io.loadModel(new Uint8Array(readFileSync(join(work, `${name}.qwasm.safetensors`))));
  return { model, y: model.forward({ data: Float32Array.from(r.x), shape: r.shape }), want: r.y };
}

it('QwasmQuantizer quantizes conv1d (BatchNorm folded, ReLU fused) and linear; the file runs in int8', async () => {
  const { model, y, want } = await runExported('conv1d');
  try {
    const kinds = model.namedModules().map(([path, m]) => [path, m.constructor.name]);
    expect(kinds.filter(([, k]) => /Conv|Linear/.test(k))).toEqual([
      ['0', 'ConvReLU1d'],
      ['3', 'Conv1d'],
      ['6', 'Linear'],
    ]);
    expect(model.namedModules().filter(([, m]) => /Conv|Linear/.test(m.constructor.name) && !m.backend)).toEqual([]);
    // The logits are dequantized int8: within 2 steps of the output scale.
    expect(Math.max(...stepsOff(y, want, model.getSubmodule('6').scale))).toBeLessThanOrEqual(2);
  } finally {
    model.dispose();
  }
});

it('a PT2E graph without quantization (float ops only) exports and runs to float rounding', async () => {
  const { model, y, want } = await runExported('float_graph');
  try {
    expect(model.namedModules().map(([, m]) => m.constructor.name)).toEqual([
      'GraphModule',
      'Conv2d',
      'BatchNorm2d',
      'MaxPool2d',
      'Linear',
    ]);
    expect(Array.from(y.data, (v, i) => Math.abs(v - want[i]) <= 1e-5 * Math.max(1, Math.abs(want[i])))).toEqual(
      want.map(() => true),
    );
  } finally {
    model.dispose();
  }
});

it.each([
  ['float_broadcast', 'conv1(x) + adaptive_avg_pool2d(conv2(x), 1), an add X86InductorQuantizer leaves in float'],
  ['float_scalars', 'torch.add(1.5 + conv(x), 3) + 0.1: float adds of a tensor and a number'],
])('%s: %s exports and runs within float rounding of PyTorch (1e-5)', async (name) => {
  const { model, y, want } = await runExported(name);
  try {
    expect(model.nodes.filter((n) => n.target === 'add').length).toBeGreaterThan(0);
    const worst = Math.max(...Array.from(want, (w, i) => Math.abs(y.data[i] - w) / Math.max(1, Math.abs(w))));
    expect(worst).toBeLessThan(1e-5);
  } finally {
    model.dispose();
  }
});

// Quantized outputs, compared in whole steps of the output scale: both are (q - zero point) * scale.
const stepsOff = (y, want, scale) =>
  Array.from(y.data, (v, i) => Math.abs(Math.round(v / scale) - Math.round(want[i] / scale)));

it.each([
  // The second call keeps its own output qparams, under its node's name.
  ['twice', 'a conv module called twice (its weights written once per call)', 'conv2d_2'],
  ['functional', 'sizes given as one-element lists (F.conv2d(x, w, b, [2], [1], [1]), pools)', 'conv2d'],
  ['pre_activation', 'a BatchNorm that reads a quantized value (not folded: it follows a pool)', 'conv2'],
  ['hardtanh', 'ReLU6 (aten.hardtanh_) and Hardtanh, in float between dequantize and quantize', '2'],
  ['batch_views', 'x.view(x.shape[0], 4, 36) and x.view(x.shape[0], -1) under a dynamic batch', 'fc'],
])('%s: %s exports and runs within a step of PyTorch', async (name, _, lastLayer) => {
  const { model, y, want } = await runExported(name);
  try {
    const scale = model.getSubmodule(lastLayer).scale;
    expect(Math.max(...stepsOff(y, want, scale))).toBeLessThanOrEqual(1);
  } finally {
    model.dispose();
  }
});
