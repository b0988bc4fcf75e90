// The int8 transposed conv by phases (nn/conv-transpose.mjs) against the
// stride-1 conv over the zero-inserted input it replaced, which equalled
// PyTorch's FBGEMM transposed conv bit for bit (docs/numerics.md,
// "Transposed convolution, int8"): the same bytes and the same strides, over
// named geometries that reach every kind of phase (kernel below the stride:
// phases without taps; kernel not a multiple of the stride; dilation with
// the stride, gcd above 1 and 1; output padding; padding past the kernel's
// reach; groups and depthwise; per-tensor weights with a nonzero zero point
// and per-channel ones; ReLU; 1d / 2d / 3d; an empty batch; phases stacked
// into one conv, a conv per sub-kernel shape, and sub-kernels padded into one
// conv) and seeded random ones; the same bytes, not near them. Replay a
// failure with QWASM_SEED=<seed>.
import * as qwasm from '../../../web/src/index.node.mjs';
import { axisPhases, layerPhases } from '../../../web/src/nn/conv-transpose-phases.mjs';
import { chainModel } from '../model-files.mjs';
import { rng as makeRng, seed as pickSeed } from '../util.mjs';

const SEED = pickSeed();
const RANDOM_CASES = 40;

beforeAll(() => {
  console.log(`[conv-transpose phases] seed ${SEED} (replay with QWASM_SEED=${SEED})`);
  return qwasm.init();
});
afterEach(() => qwasm.setKernelIsa('auto'));

const numel = (shape) => shape.reduce((a, b) => a * b, 1);
const outSize = (g, i) =>
  (g.spatial[i] - 1) * g.stride[i] - 2 * g.padding[i] + g.dilation[i] * (g.kernel[i] - 1) + g.outputPadding[i] + 1;

// Named geometries: [name, geometry, weights].
const line = (kernel, stride, padding, outputPadding, dilation, spatial) => ({
  kernel,
  stride,
  padding,
  outputPadding,
  dilation,
  spatial,
});
const NAMED = [
  ['1d k1 s3: two of three phases without taps', { ...line([1], [3], [0], [2], [1], [4]), channels: [2, 3, 1] }],
  ['1d k2 s3 p1: phases without taps, cropped', { ...line([2], [3], [1], [0], [1], [5]), channels: [3, 2, 1] }],
  ['2d k3 s2 p1 op1 (MONAI)', { ...line([3, 3], [2, 2], [1, 1], [1, 1], [1, 1], [4, 3]), channels: [4, 3, 1] }],
  [
    '2d k3 s2 kernel not a multiple of the stride',
    { ...line([3, 5], [2, 3], [0, 2], [0, 1], [1, 1], [3, 4]), channels: [2, 2, 1] },
  ],
  [
    '3d k2 s2 (U-Net upsampling)',
    { ...line([2, 2, 2], [2, 2, 2], [0, 0, 0], [0, 0, 0], [1, 1, 1], [3, 2, 3]), channels: [4, 2, 1] },
  ],
  ['2d dilation 2 stride 2 (gcd 2)', { ...line([3, 3], [2, 2], [1, 2], [1, 0], [2, 2], [3, 3]), channels: [2, 3, 1] }],
  ['2d dilation 3 stride 2 (gcd 1)', { ...line([3, 2], [2, 2], [2, 1], [2, 1], [3, 3], [3, 4]), channels: [2, 2, 1] }],
  ['1d dilation 2 stride 4 (gcd 2, odd phases empty)', { ...line([4], [4], [1], [3], [2], [5]), channels: [2, 2, 1] }],
  ['1d dilation 6 stride 4 (gcd 2)', { ...line([3], [4], [5], [5], [6], [4]), channels: [1, 2, 1] }],
  ['2d padding past the reach', { ...line([2, 3], [2, 3], [3, 4], [1, 0], [1, 1], [5, 4]), channels: [2, 2, 1] }],
  [
    '3d output padding on every axis',
    { ...line([3, 2, 3], [3, 2, 2], [1, 0, 1], [2, 1, 1], [1, 1, 1], [2, 3, 2]), channels: [3, 3, 3] },
  ],
  ['2d groups 2', { ...line([3, 3], [2, 3], [1, 1], [0, 2], [1, 1], [3, 3]), channels: [4, 6, 2] }],
  ['3d depthwise', { ...line([3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], [1, 1, 1], [3, 3, 3]), channels: [8, 8, 8] }],
  [
    '3d depthwise, 2 outputs a channel',
    { ...line([3, 3, 3], [2, 1, 2], [1, 1, 1], [0, 0, 1], [1, 1, 1], [2, 3, 3]), channels: [8, 16, 8] },
  ],
  ['1d output smaller than the stride', { ...line([1], [4], [0], [0], [1], [1]), channels: [2, 2, 1] }],
  [
    '3d stride 1 (one phase)',
    { ...line([3, 2, 1], [1, 1, 1], [1, 0, 0], [0, 0, 0], [1, 2, 1], [3, 3, 2]), channels: [2, 3, 1] },
  ],
  [
    '3d depthwise k2 s2 (all 8 phases stacked in one conv)',
    { ...line([2, 2, 2], [2, 2, 2], [0, 0, 0], [0, 0, 0], [1, 1, 1], [3, 2, 2]), channels: [8, 8, 8] },
  ],
  [
    '2d groups 3 k4 s2 (phases stacked per group)',
    { ...line([4, 4], [2, 2], [1, 2], [1, 0], [1, 1], [3, 2]), channels: [6, 9, 3] },
  ],
  [
    '3d 4 -> 16 k3 s2 (a conv per sub-kernel shape)',
    { ...line([3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], [1, 1, 1], [2, 3, 2]), channels: [4, 16, 1] },
  ],
  [
    '2d 4 -> 8 k3 s2, groups 2 (sub-kernels padded into one conv)',
    { ...line([3, 3], [2, 2], [1, 0], [1, 0], [1, 1], [3, 3]), channels: [4, 8, 2] },
  ],
  ['2d 32 channels (long sums)', { ...line([3, 3], [2, 2], [1, 1], [1, 1], [1, 1], [3, 3]), channels: [32, 4, 1] }],
];

function named([name, n], i) {
  const dims = n.kernel.length;
  const [inChannels, outChannels, groups] = n.channels;
  const g = { dims, inChannels, outChannels, groups, batch: 2, ...n };
  // The weight schemes and ReLU by turns: per tensor with a nonzero zero point, per channel, each with and
  // without ReLU and bias.
  const w = { perChannel: i % 2 === 1, zeroPoint: [7, -3, 0, 5][i % 4], relu: i % 3 === 0, bias: i % 4 !== 3 };
  return [name, g, w, makeRng(SEED + 1000 + i)];
}

function randomGeometry(random) {
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const dims = int(1, 3);
  const groups = [1, 1, 2, 3][int(0, 3)];
  const g = { dims, groups, inChannels: groups * int(1, 3), outChannels: groups * int(1, 3), batch: int(1, 2) };
  g.kernel = Array.from({ length: dims }, () => int(1, 4));
  g.stride = Array.from({ length: dims }, () => int(1, 4));
  g.dilation = Array.from({ length: dims }, () => int(1, 3));
  g.padding = g.kernel.map((k, i) => int(0, g.dilation[i] * (k - 1) + 2));
  g.outputPadding = g.stride.map((s, i) => int(0, Math.max(s, g.dilation[i]) - 1));
  g.spatial = Array.from({ length: dims }, () => int(1, 5));
  return g.spatial.every((_, i) => outSize(g, i) >= 1) ? g : randomGeometry(random);
}

const randomCases = (() => {
  const random = makeRng(SEED);
  return Array.from({ length: RANDOM_CASES }, (_, i) => {
    const g = randomGeometry(random);
    const w = { perChannel: random() < 0.5, zeroPoint: null, relu: random() < 0.3, bias: random() < 0.7 };
    return [`random ${i}`, g, w, makeRng(SEED + 1 + i)];
  });
})();

// The weight integers [in, out / groups, *kernel] and qparams of a case.
function weightsOf(g, w, random) {
  const ocg = g.outChannels / g.groups;
  const ints = Int8Array.from({ length: g.inChannels * ocg * numel(g.kernel) }, () => Math.floor(random() * 256) - 128);
  const count = w.perChannel ? ocg : 1;
  const scales = Float64Array.from({ length: count }, () => 0.002 + random() * 0.01);
  const zeroPoints = Array.from({ length: count }, () => w.zeroPoint ?? Math.floor(random() * 11) - 5);
  const bias = w.bias ? Float32Array.from({ length: g.outChannels }, () => random() * 4 - 2) : null;
  return { ints, scales, zeroPoints, bias, outScale: 0.05 + random() * 0.2, outZp: Math.floor(random() * 256) };
}

// The model file's QuantizedConvTranspose, loaded; the module itself.
function loadLayer(g, w, p) {
  const ocg = g.outChannels / g.groups;
  const tensors = { w: { dtype: 'I8', shape: [g.inChannels, ocg, ...g.kernel], data: p.ints } };
  if (w.perChannel) {
    tensors.ws = { dtype: 'F64', shape: [ocg], data: p.scales };
    tensors.wz = { dtype: 'I64', shape: [ocg], data: BigInt64Array.from(p.zeroPoints, BigInt) };
  }
  if (p.bias) tensors.b = { dtype: 'F32', shape: [g.outChannels], data: p.bias };
  const layer = {
    type: 'QuantizedConvTranspose',
    relu: w.relu,
    dims: g.dims,
    in_channels: g.inChannels,
    out_channels: g.outChannels,
    kernel_size: g.kernel,
    stride: g.stride,
    padding: g.padding,
    output_padding: g.outputPadding,
    groups: g.groups,
    dilation: g.dilation,
    scale: p.outScale,
    zero_point: p.outZp,
    weight: w.perChannel
      ? { qscheme: 'per_channel_affine', ints: 'w', axis: 1, scales: 'ws', zero_points: 'wz' }
      : { qscheme: 'per_tensor_affine', ints: 'w', scale: p.scales[0], zero_point: p.zeroPoints[0] },
    bias: p.bias ? 'b' : null,
    backend: 'fbgemm',
  };
  const inShape = [g.batch, g.inChannels, ...g.spatial];
  const model = qwasm.io.loadModel(
    chainModel(inShape, [{ type: 'Quantize', scale: 0.1, zero_point: 0, dtype: 'quint8' }, layer], tensors),
  );
  return { model, layer: model.getSubmodule('m1') };
}

// The transposed conv as it ran before phases: one stride-1 conv (kernel flipped, in / out axes swapped) over
// the input with stride - 1 zero points between its values and the reach minus the padding around it.
function zeroInsertedReference(g, w, p, x, xZp, winograd = 'auto') {
  const ocg = g.outChannels / g.groups;
  const icg = g.inChannels / g.groups;
  const taps = numel(g.kernel);
  const data = new Int8Array(p.ints.length);
  for (let ic = 0; ic < g.inChannels; ic++) {
    const group = Math.floor(ic / icg);
    for (let ocl = 0; ocl < ocg; ocl++) {
      const from = (ic * ocg + ocl) * taps;
      const to = ((group * ocg + ocl) * icg + (ic - group * icg)) * taps;
      for (let t = 0; t < taps; t++) data[to + taps - 1 - t] = p.ints[from + t];
    }
  }
  const wShape = [g.outChannels, icg, ...g.kernel];
  const perOutput = (v) => Array.from({ length: g.outChannels }, (_, oc) => v[oc % ocg]);
  const weight = w.perChannel
    ? qwasm.makePerChannelQuantizedTensor(
        { data, shape: wShape },
        Float64Array.from(perOutput(p.scales)),
        perOutput(p.zeroPoints),
        0,
        'qint8',
      )
    : qwasm.makePerTensorQuantizedTensor({ data, shape: wShape }, p.scales[0], p.zeroPoints[0], 'qint8');
  const Conv = w.relu ? qwasm.nn.intrinsic.quantized[`ConvReLU${g.dims}d`] : qwasm.nn.quantized[`Conv${g.dims}d`];
  const conv = new Conv(g.inChannels, g.outChannels, g.kernel, {
    dilation: g.dilation,
    groups: g.groups,
    bias: p.bias !== null,
    winograd,
  });
  conv._setWeightBias(weight, p.bias, 'fbgemm');
  weight.dispose();
  conv.scale = p.outScale;
  conv.zeroPoint = p.outZp;
  // The zero-inserted input, placed per axis at reach - padding + i * stride (cropped where outside).
  const reach = g.kernel.map((k, i) => g.dilation[i] * (k - 1));
  const total = g.spatial.map((_, i) => outSize(g, i) + reach[i]);
  const inserted = new Uint8Array(g.batch * g.inChannels * numel(total)).fill(xZp);
  const inCount = numel(g.spatial);
  for (let nc = 0; nc < g.batch * g.inChannels; nc++) {
    for (let i = 0; i < inCount; i++) {
      let rest = i;
      let to = 0;
      let inside = true;
      const at = [];
      for (let d = g.dims - 1; d >= 0; d--) {
        at[d] = rest % g.spatial[d];
        rest = Math.floor(rest / g.spatial[d]);
      }
      for (let d = 0; d < g.dims; d++) {
        const place = reach[d] - g.padding[d] + at[d] * g.stride[d];
        if (place < 0 || place >= total[d]) inside = false;
        to = to * total[d] + place;
      }
      if (inside) inserted[nc * numel(total) + to] = x[nc * inCount + i];
    }
  }
  const q = qwasm.makePerTensorQuantizedTensor(
    { data: inserted, shape: [g.batch, g.inChannels, ...total] },
    0.1,
    xZp,
    'quint8',
  );
  const y = conv.forward(q);
  q.dispose();
  const packed = { all: conv.packedWeightBytes(), winograd: conv.winogradWeightBytes() };
  conv.dispose();
  return { y, packed };
}

describe('axisPhases', () => {
  test.each([
    [3, 2, 1, 1],
    [1, 3, 0, 1],
    [4, 4, 1, 2],
    [3, 4, 5, 6],
    [5, 3, 7, 3],
    [7, 2, 0, 3],
  ])(
    'kernel %i stride %i padding %i dilation %i: the phases partition the taps, each tap at its phase',
    (k, s, p, d) => {
      const phases = axisPhases(k, s, p, d);
      const all = phases.flatMap((ph) => ph.taps).sort((a, b) => a - b);
      expect(all).toEqual(Array.from({ length: k }, (_, i) => i));
      for (const ph of phases) {
        const n = ph.taps.length;
        ph.taps.forEach((tap, m) => {
          // Inner tap m reads input q + m * D - (offset + (n - 1) D): the input the transposed conv's tap reads.
          expect((((tap * d - p - ph.phi) % s) + s) % s).toBe(0);
          expect(m * ph.dilation - (ph.offset + (n - 1) * ph.dilation)).toBe(0 - (tap * d - p - ph.phi) / s);
        });
      }
    },
  );
});

describe('layerPhases', () => {
  const k3s2 = [
    [3, 3, 3],
    [2, 2, 2],
    [1, 1, 1],
    [1, 1, 1],
  ];
  test('16 output channels a group: one conv per sub-kernel shape, no padding taps', () => {
    const axes = layerPhases(...k3s2, 16);
    expect(axes.map((list) => list.map((p) => p.taps))).toEqual(Array(3).fill([[1], [2, 0]]));
  });
  test('2 output channels a group: every sub-kernel padded to 2 taps a side (the padding first)', () => {
    const axes = layerPhases(...k3s2, 2);
    expect(axes.map((list) => list.map((p) => p.taps))).toEqual(
      Array(3).fill([
        [-1, 1],
        [2, 0],
      ]),
    );
  });
  test('4 output channels a group: padding would cost more than the tile it fills', () => {
    expect(
      layerPhases(...k3s2, 4)
        .flat()
        .some((p) => p.taps.includes(-1)),
    ).toBe(false);
  });
});

describe.each(['wasmsimd', 'scalar'])('by phases equals the conv over the zero-inserted input (%s kernels)', (isa) => {
  test.each([...NAMED.map(named), ...randomCases])('%s', (name, g, w, random) => {
    qwasm.setKernelIsa(isa);
    const p = weightsOf(g, w, random);
    const xZp = Math.floor(random() * 256);
    const x = Uint8Array.from({ length: g.batch * g.inChannels * numel(g.spatial) }, () => Math.floor(random() * 256));
    const heap = qwasm.heapInUse();
    const { model, layer } = loadLayer(g, w, p);
    const input = qwasm.makePerTensorQuantizedTensor(
      { data: x, shape: [g.batch, g.inChannels, ...g.spatial] },
      0.1,
      xZp,
      'quint8',
    );
    const got = layer.forward(input);
    const { y: want } = zeroInsertedReference(g, w, p, x, xZp);
    // Strides compared where they address memory: a dimension of size 1 may have any (a Conv1d's output is a
    // view of its Conv2d's, whose size-1 strides a view picks its own way).
    const layout = (t) => ({
      shape: t.shape,
      stride: t.stride().map((v, i) => (t.shape[i] === 1 ? null : v)),
      scale: t.qScale(),
      zeroPoint: t.qZeroPoint(),
    });
    expect(layout(got)).toEqual(layout(want));
    const a = got.intRepr();
    const b = want.intRepr();
    const differing = [];
    for (let i = 0; i < b.length && differing.length < 3; i++) if (a[i] !== b[i]) differing.push([i, a[i], b[i]]);
    expect({ name, differing }).toEqual({ name, differing: [] });
    for (const t of [got, want, input]) t.dispose();
    model.dispose();
    expect(qwasm.heapInUse()).toBe(heap);
  });
});

describe('an empty batch', () => {
  test.each([1, 2, 3])('%id: an empty output of the right shape', (dims) => {
    const g = {
      dims,
      inChannels: 2,
      outChannels: 3,
      groups: 1,
      batch: 0,
      ...line(
        Array(dims).fill(3),
        Array(dims).fill(2),
        Array(dims).fill(1),
        Array(dims).fill(1),
        Array(dims).fill(1),
        Array(dims).fill(3),
      ),
    };
    const w = { perChannel: false, zeroPoint: 2, relu: false, bias: true };
    const p = weightsOf(g, w, makeRng(SEED));
    const { model, layer } = loadLayer(g, w, p);
    const x = qwasm.makePerTensorQuantizedTensor(
      { data: new Uint8Array(0), shape: [0, 2, ...Array(dims).fill(3)] },
      0.1,
      4,
      'quint8',
    );
    const y = layer.forward(x);
    expect(y.shape).toEqual([0, 3, ...Array(dims).fill(6)]);
    expect(y.intRepr().length).toBe(0);
    for (const t of [x, y]) t.dispose();
    model.dispose();
  });
});

// The phases partition the kernel, so a real layer's phases hold the packed integers of the one conv over the
// zero-inserted input (its direct int16 packing: winograd false, since a layer on the Winograd path holds
// int8 instead), plus, for each of the 7 more convs (8 phases), its float bias and weight scale per
// output channel (PackedQConv::bytes); and no Winograd weights for the MONAI layer (its sub-kernels have 1
// and 2 taps a side).
describe('packed weights of real decoder layers', () => {
  test.each([
    [
      'MONAI UNet 3d 64 -> 16 k3 s2 p1 op1',
      line([3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], [1, 1, 1], [2, 2, 2]),
      [64, 16],
    ],
    ['3D U-Net 3d 128 -> 64 k2 s2', line([2, 2, 2], [2, 2, 2], [0, 0, 0], [0, 0, 0], [1, 1, 1], [2, 2, 2]), [128, 64]],
  ])('%s', (name, geometry, [inChannels, outChannels]) => {
    const g = { dims: 3, inChannels, outChannels, groups: 1, batch: 1, ...geometry };
    const w = { perChannel: true, zeroPoint: null, relu: false, bias: true };
    const random = makeRng(SEED);
    const p = weightsOf(g, w, random);
    const x = Uint8Array.from({ length: inChannels * numel(g.spatial) }, () => Math.floor(random() * 256));
    const { model, layer } = loadLayer(g, w, p);
    const { y, packed } = zeroInsertedReference(g, w, p, x, 3, false);
    const phases = { all: layer.packedWeightBytes(), winograd: layer.winogradWeightBytes() };
    console.log(
      `[conv-transpose phases] ${name}: packed ${phases.all} bytes (zero-inserted conv: ${packed.all}, of which Winograd ${packed.winograd})`,
    );
    expect(phases.all - phases.winograd).toBeLessThanOrEqual(packed.all - packed.winograd + 7 * 8 * outChannels);
    expect(phases.all).toBeLessThanOrEqual(packed.all + 7 * 8 * outChannels);
    y.dispose();
    model.dispose();
  });
});
