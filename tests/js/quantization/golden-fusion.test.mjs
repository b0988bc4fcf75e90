// quantization.fuseModules against PyTorch's fuse_modules
// (tests/golden/fusion.json): Conv1d/2d/3d + BatchNorm (+ ReLU) and Linear +
// BatchNorm1d in eval mode; the folded weight and bias equal PyTorch's bit
// for bit, the result is the module PyTorch makes, the other slots Identity.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('fusion.json');
const { nn, quantization } = qwasm;

beforeAll(() => initGolden(qwasm, golden));

function build(c) {
  const dims = c.kind === 'linear' ? 0 : Number(c.kind[4]);
  const conv =
    dims === 0
      ? new nn.Linear(c.in, c.out, { bias: c.bias !== null })
      : new nn[`Conv${dims}d`](c.in, c.out, c.kernel, { padding: c.padding, bias: c.bias !== null });
  conv.weight = { data: decode(c.weight), shape: c.weight.shape };
  if (c.bias !== null) conv.bias = { data: decode(c.bias), shape: c.bias.shape };
  const features = c.bn_features ?? c.out;
  const bn = new nn[`BatchNorm${Math.max(dims, 1)}d`](features, { eps: c.eps, affine: c.affine });
  bn.runningMean = { data: decode(c.running_mean), shape: [features] };
  bn.runningVar = { data: decode(c.running_var), shape: [features] };
  if (c.affine) {
    bn.weight = { data: decode(c.bn_weight), shape: [features] };
    bn.bias = { data: decode(c.bn_bias), shape: [features] };
  }
  const layers = c.relu ? [conv, bn, new nn.ReLU()] : [conv, bn];
  return { model: new nn.Sequential(...layers).eval(), names: layers.map((_, i) => String(i)) };
}

test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  const { model, names } = build(c);
  expect(quantization.fuseModules(model, names)).toBe(model);
  const fused = model[0];
  const inner = c.relu ? fused[0] : fused;
  expect(fused.constructor.name).toBe(c.relu ? `ConvReLU${c.kind[4]}d` : inner.constructor.name);
  for (const slot of names.slice(1)) expect(model[slot]).toBeInstanceOf(nn.Identity);
  const weight = firstBitDifference(inner.weight.data, decode(c.fused_weight));
  const bias = firstBitDifference(inner.bias.data, decode(c.fused_bias));
  expect({ name, firstDifferentWeight: weight, firstDifferentBias: bias }).toEqual({
    name,
    firstDifferentWeight: -1,
    firstDifferentBias: -1,
  });
  model.dispose();
});

test('fuseModules refuses what PyTorch refuses, with PyTorch-like messages', () => {
  const conv = new nn.Conv3d(2, 4, 3);
  const bn = new nn.BatchNorm3d(4);
  const m = new nn.Sequential({ conv, bn, relu: new nn.ReLU(), pool: new nn.Identity() });
  expect(() => quantization.fuseModules(m, ['conv', 'bn'])).toThrow('folding a BatchNorm needs eval mode');
  m.eval();
  expect(() => quantization.fuseModules(m, ['conv', 'relu', 'bn'])).toThrow(
    'did not find fuser method for: (Conv3d, ReLU, BatchNorm3d)',
  );
  expect(() => quantization.fuseModules(m, ['conv', 'nope'])).toThrow("'nope': no submodule 'nope'");
  expect(() => quantization.fuseModules(m, ['conv', 'bn'], { inplace: false })).toThrow('fuses in place only');
  expect(() =>
    quantization.fuseModules(new nn.Sequential(new nn.Conv2d(1, 3, 1), new nn.BatchNorm2d(4)).eval(), ['0', '1']),
  ).toThrow('the conv has 3 output channels but the BatchNorm normalizes 4');
  m.dispose();
});
