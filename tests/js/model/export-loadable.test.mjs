// The exporter writes only files io.loadModel loads and runs (issue 30): run
// where python3 has torch (a developer's machine; CI has none, and the
// committed goldens, export_zoo.json's "float add" cases, check the float add
// there). One Python run builds a model of each kind PyTorch runs but an
// earlier exporter wrote a file for that qwasm refused (or whose forward
// always failed), exports it, and records either PyTorch's input and output
// or the ExportError. Then each written file must load and give PyTorch's
// output, and each refused model must name its module or node.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as qwasm from '../../../web/src/index.node.mjs';
import { ROOT } from '../readme-blocks.mjs';
import { firstBitDifference } from '../util.mjs';

const hasTorch = spawnSync('python3', ['-c', 'import torch, safetensors'], { encoding: 'utf8' }).status === 0;
const work = mkdtempSync(join(tmpdir(), 'qwasm-export-loadable-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PYTHON = `import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'python'))})
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub, convert, get_default_qconfig, prepare
from qwasm_export import ExportError, export

torch.backends.quantized.engine = "fbgemm"
torch.set_num_threads(1)
torch.manual_seed(0)
out = {}
hexof = lambda t: t.detach().contiguous().numpy().tobytes().hex()

def attempt(name, model, x):
    path = f"{name}.qwasm.safetensors"
    try:
        export(model, x, path)
        with torch.no_grad():
            y = model(x)
        out[name] = {"x": hexof(x), "shape": list(x.shape), "y": hexof(y), "y_shape": list(y.shape)}
    except ExportError as e:
        out[name] = {"error": str(e)}

class Fn(nn.Module):  # a model of one forward function (its modules as children)
    def __init__(self, f, **children):
        super().__init__()
        for k, v in children.items():
            self.add_module(k, v)
        self.f = f
    def forward(self, x):
        return self.f(self, x)

x4 = torch.randn(2, 3, 6, 6)
x4[0, 0, 0, :4] = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0])

# 1. Float adds of a tensor and a number: x + 1.0, 1.0 + x, torch.add, an int, +=.
def scalars(m, x):
    y = torch.add(x + 1.0, 0.1) + (0.3 + x)
    y += 3
    return y
attempt("scalar_add", Fn(scalars), x4)
attempt("scalar_alpha", Fn(lambda m, x: torch.add(x, 2.0, alpha=0.5)), x4)
attempt("scalar_inf", Fn(lambda m, x: x + 1e300), x4)

# 2. Float adds that broadcast: conv(x) + pool(x), and shapes that stretch on both sides.
attempt("broadcast_conv_pool", Fn(lambda m, x: m.conv(x) + m.pool(m.conv2(x)),
                                  conv=nn.Conv2d(3, 4, 3, padding=1), conv2=nn.Conv2d(3, 4, 1),
                                  pool=nn.AdaptiveAvgPool2d(1)).eval(), x4.nan_to_num(0, 0, 0))
x3 = torch.randn(2, 3, 5)
x3[1, 2, :3] = torch.tensor([float("nan"), float("inf"), -0.0])
attempt("broadcast_both_sides", Fn(lambda m, x: x.reshape(2, 1, 3, 5) + m.pool(x) + (m.pool(x) + x),
                                   pool=nn.MaxPool1d(5)), x3)

# 3. NaN / Inf in float weights and biases (refused, naming the parameter); a
#    BatchNorm's NaN / Inf statistics run (element-wise, PyTorch's arithmetic).
conv = nn.Sequential(nn.Conv2d(3, 4, 3)).eval()
with torch.no_grad():
    conv[0].weight[1, 2, 0, 1] = float("nan")
attempt("nan_weight", conv, x4)
lin = Fn(lambda m, x: m.fc(x.flatten(1)), fc=nn.Linear(108, 5)).eval()
with torch.no_grad():
    lin.fc.bias[3] = float("inf")
attempt("inf_bias", lin, x4)
bn = nn.Sequential(nn.BatchNorm2d(3)).eval()
with torch.no_grad():
    bn[0].running_var.copy_(torch.tensor([float("nan"), 1.0, 0.5]))
    bn[0].weight.copy_(torch.tensor([1.0, float("inf"), -2.0]))
attempt("batchnorm_non_finite", bn, x4)

# 4. A zero-batch example input.
attempt("zero_batch", nn.Sequential(nn.Conv2d(3, 4, 3)).eval(), torch.randn(0, 3, 6, 6))

# 5-7. Quantized Linear: a NaN bias, output scales float32 cannot hold, NaN qparams.
def qlinear():
    m = Fn(lambda m, x: m.dequant(m.fc(m.quant(x))), quant=QuantStub(), fc=nn.Linear(4, 3), dequant=DeQuantStub())
    m.eval().qconfig = get_default_qconfig("fbgemm")
    prepare(m, inplace=True)
    m(torch.randn(8, 4))
    return convert(m, inplace=True)
x2 = torch.randn(2, 4)
m = qlinear()
b = m.fc.bias().clone()
b[1] = float("nan")
m.fc.set_weight_bias(m.fc.weight(), b)
attempt("qlinear_nan_bias", m, x2)
for name, scale in (("scale_tiny", 1e-300), ("scale_huge", 1e300), ("scale_nan", float("nan"))):
    m = qlinear()
    m.fc.scale = scale
    attempt(name, m, x2)
m = qlinear()
m.quant.scale.fill_(float("nan"))
attempt("quant_nan_scale", m, x2)
bn = nn.Sequential(nn.BatchNorm2d(3)).eval()
bn[0].eps = float("nan")
attempt("batchnorm_nan_eps", bn, x4)
attempt("qlinear", qlinear(), x2)  # the same model with its own qparams runs, bit for bit

# 8-11. Module names the loader refuses.
def named(path):
    root = nn.Module()
    parent = root
    parts = path.split(".")
    for p in parts[:-1]:
        parent.add_module(p, nn.Module())
        parent = getattr(parent, p)
    parent.add_module(parts[-1], nn.Conv2d(3, 4, 1))
    return Fn(lambda m, x: m.net.get_submodule(path)(x), net=root).eval()
for name, path in (("name_unicode", "convé"), ("name_dash", "layers.conv-1"), ("name_dispose", "dispose"),
                   ("name_constructor", "block.constructor"), ("name_long", "c" * 1001),
                   ("name_long_tensor", "c" * 995), ("name_ok", "layers.conv_1")):
    attempt(name, named(path), x4.nan_to_num(0, 0, 0))

# float16 and float64 models are refused, naming the tensor.
attempt("float16", nn.Sequential(nn.Conv2d(3, 4, 3)).eval().half(), x4.half())
attempt("float64", nn.Sequential(nn.Conv2d(3, 4, 3)).eval().double(), x4.double())
attempt("float64_input", nn.Sequential(nn.Conv2d(3, 4, 3)).eval(), x4.double())
print(json.dumps(out))`;

let results;
function pythonResults() {
  if (results) return results;
  writeFileSync(join(work, 'models.py'), PYTHON);
  const r = spawnSync('python3', ['models.py'], { cwd: work, encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`the export script failed:\n${r.stderr}`);
  results = JSON.parse(r.stdout.trim().split('\n').at(-1));
  return results;
}

const it = hasTorch ? test : test.skip;
if (!hasTorch) console.warn('SKIPPED: python3 has no torch (pip install torch safetensors): export-loadable');

const floats = (hex) => new Float32Array(new Uint8Array(Buffer.from(hex, 'hex')).buffer);

/** The exported file run on PyTorch's input: {y, want, shape, wantShape}. */
async function run(name) {
  await qwasm.init();
  const r = pythonResults()[name];
  expect(r.error).toBeUndefined();
  const model = qwasm.io.loadModel(new Uint8Array(readFileSync(join(work, `${name}.qwasm.safetensors`))));
  try {
    const y = model.forward({ data: floats(r.x), shape: r.shape });
    return { y: y.data, shape: y.shape, want: floats(r.y), wantShape: r.y_shape };
  } finally {
    model.dispose();
  }
}

const error = (name) => {
  const r = pythonResults()[name];
  // A refused model leaves no file behind.
  expect(existsSync(join(work, `${name}.qwasm.safetensors`))).toBe(false);
  return r.error;
};

describe("models the exporter now writes: each loads and gives PyTorch's output", () => {
  it.each([
    ['scalar_add', 'torch.add(x + 1.0, 0.1) + (0.3 + x), then += 3: tensor-number adds in float32'],
    ['broadcast_both_sides', 'x.reshape(2, 1, 3, 5) + pool(x) + (pool(x) + x): shapes stretched on both sides'],
    ['batchnorm_non_finite', "a BatchNorm with NaN and Inf statistics: the NaNs where PyTorch's are"],
    ['qlinear', 'a quantized Linear (QuantStub, Linear, DeQuantStub)'],
  ])(
    '%s: %s, bit for bit',
    async (name) => {
      const { y, shape, want, wantShape } = await run(name);
      const at = firstBitDifference(y, want, { anyNaN: true });
      expect({ shape, at, got: y[at], want: want[at] }).toEqual({
        shape: wantShape,
        at: -1,
        got: undefined,
        want: undefined,
      });
      if (name !== 'qlinear') expect(want.some(Number.isNaN)).toBe(true);
    },
    300_000,
  );

  // Float convolutions sum in another order than PyTorch's (README, "Known differences").
  it.each([
    ['broadcast_conv_pool', 'conv(x) + pool(conv2(x)): a float add that broadcasts'],
    ['name_ok', "a float conv at the module path 'net.layers.conv_1'"],
  ])('%s: %s, within float rounding of PyTorch (1e-5)', async (name) => {
    const { y, shape, want, wantShape } = await run(name);
    expect(shape).toEqual(wantShape);
    const worst = Math.max(...Array.from(want, (w, i) => Math.abs(y[i] - w) / Math.max(1, Math.abs(w))));
    expect(worst).toBeLessThan(1e-5);
  });
});

describe('models qwasm cannot run as PyTorch does: an ExportError naming the module or node, and no file', () => {
  it.each([
    ['scalar_alpha', /^node 'add': add with alpha=0\.5 is not supported: PyTorch rounds input \+ alpha \* other once/],
    [
      'scalar_inf',
      /^node 'add': adds the constant 1e\+300, which is inf as float32: the model file's JSON cannot hold/,
    ],
    ['nan_weight', /^module '0': weight\[1, 2, 0, 1\] is nan: qwasm's convolution and linear kernels need finite/],
    ['inf_bias', /^module 'fc': bias\[3\] is inf: qwasm's convolution and linear kernels need finite weights/],
    ['zero_batch', /^the example input \(node 'input_1'\) has shape \[0, 3, 6, 6\], with an empty dimension: /],
    ['qlinear_nan_bias', /^module 'fc': bias\[1\] is nan: /],
    ['scale_tiny', /^module 'fc': the output scale is 1e-300, which is 0\.0 as float32: /],
    ['scale_huge', /^module 'fc': the output scale is 1e\+300, which is inf as float32: /],
    ['scale_nan', /^module 'fc': the output scale is nan: qwasm needs a finite scale > 0/],
    ['quant_nan_scale', /^module 'quant': the scale is nan: qwasm needs a finite scale > 0/],
    ['batchnorm_nan_eps', /^module '0': eps is nan: qwasm's BatchNorm needs a finite eps >= 0/],
    [
      'name_unicode',
      /^module 'net\.convé': qwasm's model files name modules with ASCII letters, digits and underscores/,
    ],
    ['name_dash', /^module 'net\.layers\.conv-1': qwasm's model files name modules with ASCII letters/],
    ['name_dispose', /^module 'net\.dispose': 'dispose' is a name qwasm's loaded model already has/],
    ['name_constructor', /^module 'net\.block\.constructor': 'constructor' is a name qwasm's loaded model/],
    ['name_long', /^module 'net\.c{36}\.\.\.' \(1005 characters\): its path is over 1000 characters/],
    ['name_long_tensor', /^tensor 'net\.c{36}\.\.\.' \(1006 characters\) \(a module's weight\): its name is over 1000/],
    ['float16', /^'0\.weight' is torch\.float16: qwasm computes in float32 .* model\.float\(\)/],
    ['float64', /^'0\.weight' is torch\.float64: qwasm computes in float32/],
    ['float64_input', /^the example input is torch\.float64: qwasm's models take float32 input/],
  ])(
    '%s',
    (name, message) => {
      expect(error(name)).toMatch(message);
    },
    300_000,
  );
});
