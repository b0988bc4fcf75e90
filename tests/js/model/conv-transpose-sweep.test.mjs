// Transposed convolutions of a model file (ConvTranspose, QuantizedConvTranspose)
// against naive loops written here, over seeded random geometries: 1d / 2d /
// 3d, groups, kernels 1 to 4, strides 1 to 4 (kernels below the stride: output
// phases no tap reaches), dilations 1 to 3 (sharing a factor with the stride
// or not), paddings up to two past the kernel's reach (the input cropped),
// output paddings, empty batches,
// per-tensor and per-channel (axis 1) weights, with and without bias and ReLU.
// The reference sums the integer products exactly and requantizes in float64:
// qwasm's integers must equal it except where the real value lies within
// 1e-3 of a rounding boundary (FBGEMM requantizes in float32). The float
// layer must be within 1 ulp of the float64 sum. Replay a failure with
// QWASM_SEED=<seed>.
import * as qwasm from '../../../web/src/index.node.mjs';
import { chainModel } from '../model-files.mjs';
import { rng as makeRng, seed as pickSeed } from '../util.mjs';

const SEED = pickSeed();
const CASES = 48;

beforeAll(() => {
  console.log(`[conv-transpose sweep] seed ${SEED} (replay with QWASM_SEED=${SEED})`);
  return qwasm.init();
});
afterEach(() => qwasm.setKernelIsa('auto'));

const numel = (shape) => shape.reduce((a, b) => a * b, 1);

function geometryOf(random) {
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const dims = int(1, 3);
  const groups = [1, 1, 2, 3][int(0, 3)];
  const icg = int(1, 3);
  const ocg = int(1, 3);
  const g = { dims, groups, inChannels: groups * icg, outChannels: groups * ocg };
  g.kernel = Array.from({ length: dims }, () => int(1, 4));
  g.stride = Array.from({ length: dims }, () => int(1, 4));
  g.dilation = Array.from({ length: dims }, () => int(1, 3));
  g.padding = g.kernel.map((k, i) => int(0, g.dilation[i] * (k - 1) + 2)); // up to two past the reach
  g.outputPadding = g.stride.map((s, i) => int(0, Math.max(s, g.dilation[i]) - 1));
  g.spatial = Array.from({ length: dims }, () => int(1, 5));
  g.batch = int(0, 7) === 0 ? 0 : int(1, 2);
  g.out = g.spatial.map(
    (n, i) => (n - 1) * g.stride[i] - 2 * g.padding[i] + g.dilation[i] * (g.kernel[i] - 1) + g.outputPadding[i] + 1,
  );
  return g.out.every((o) => o >= 1) ? g : geometryOf(random);
}

// Calls f(n, oc, outIndex, ic, inIndex, tap) for every term of every output, in naive loops.
function forEachTerm(g, f) {
  const icg = g.inChannels / g.groups;
  const ocg = g.outChannels / g.groups;
  const taps = numel(g.kernel);
  const inCount = numel(g.spatial);
  for (let n = 0; n < g.batch; n++) {
    for (let oc = 0; oc < g.outChannels; oc++) {
      const group = Math.floor(oc / ocg);
      for (let icl = 0; icl < icg; icl++) {
        const ic = group * icg + icl;
        for (let i = 0; i < inCount; i++) {
          const at = []; // input coordinates
          let r = i;
          for (let d = g.dims - 1; d >= 0; d--) {
            at[d] = r % g.spatial[d];
            r = Math.floor(r / g.spatial[d]);
          }
          for (let t = 0; t < taps; t++) {
            const k = [];
            let u = t;
            for (let d = g.dims - 1; d >= 0; d--) {
              k[d] = u % g.kernel[d];
              u = Math.floor(u / g.kernel[d]);
            }
            let o = 0;
            let inside = true;
            for (let d = 0; d < g.dims; d++) {
              const c = at[d] * g.stride[d] - g.padding[d] + k[d] * g.dilation[d];
              if (c < 0 || c >= g.out[d]) inside = false;
              o = o * g.out[d] + c;
            }
            if (inside) f(n, oc, o, ic, i, t, oc - group * ocg);
          }
        }
      }
    }
  }
}

function entry(g, extra) {
  return {
    dims: g.dims,
    in_channels: g.inChannels,
    out_channels: g.outChannels,
    kernel_size: g.kernel,
    stride: g.stride,
    padding: g.padding,
    output_padding: g.outputPadding,
    groups: g.groups,
    dilation: g.dilation,
    ...extra,
  };
}

const geometries = (() => {
  const random = makeRng(SEED);
  return Array.from({ length: CASES }, (_, i) => [i, geometryOf(random), makeRng(SEED + 1 + i)]);
})();
const describeGeometry = (g) =>
  `${g.dims}d ${g.inChannels}->${g.outChannels} groups ${g.groups} k${g.kernel} s${g.stride} p${g.padding} op${g.outputPadding} d${g.dilation} in ${g.spatial}`;

describe.each(['wasmsimd', 'scalar'])('int8 against exact integer sums (%s kernels)', (isa) => {
  test.each(geometries)('case %i', (_, g, random) => {
    qwasm.setKernelIsa(isa);
    const r = random();
    const perChannel = r < 0.5;
    const hasBias = random() < 0.7;
    const relu = random() < 0.3;
    const ocg = g.outChannels / g.groups;
    const inShape = [g.batch, g.inChannels, ...g.spatial];
    const outShape = [g.batch, g.outChannels, ...g.out];
    const xScale = 1 / 16;
    const xZp = Math.floor(random() * 256);
    const xq = Uint8Array.from({ length: numel(inShape) }, () => Math.floor(random() * 256));
    const x = Float32Array.from(xq, (v) => (v - xZp) * xScale); // exact: Quantize gives xq back
    const wq = Int8Array.from({ length: g.inChannels * ocg * numel(g.kernel) }, () => Math.floor(random() * 256) - 128);
    const wScales = Float64Array.from({ length: perChannel ? ocg : 1 }, () => 0.002 + random() * 0.01);
    const wZps = Array.from({ length: perChannel ? ocg : 1 }, () => Math.floor(random() * 11) - 5);
    const bias = hasBias ? Float32Array.from({ length: g.outChannels }, () => random() * 4 - 2) : null;
    const yScale = 0.05 + random() * 0.2;
    const yZp = Math.floor(random() * 256);
    const weight = perChannel
      ? { qscheme: 'per_channel_affine', ints: 'w', axis: 1, scales: 'ws', zero_points: 'wz' }
      : { qscheme: 'per_tensor_affine', ints: 'w', scale: wScales[0], zero_point: wZps[0] };
    const tensors = { w: { dtype: 'I8', shape: [g.inChannels, ocg, ...g.kernel], data: wq } };
    if (perChannel) {
      tensors.ws = { dtype: 'F64', shape: [ocg], data: wScales };
      tensors.wz = { dtype: 'I64', shape: [ocg], data: BigInt64Array.from(wZps, BigInt) };
    }
    if (hasBias) tensors.b = { dtype: 'F32', shape: [g.outChannels], data: bias };
    const layer = {
      type: 'QuantizedConvTranspose',
      relu,
      ...entry(g, {}),
      scale: yScale,
      zero_point: yZp,
      weight,
      bias: hasBias ? 'b' : null,
      backend: 'fbgemm',
    };
    const bytes = chainModel(
      inShape,
      [{ type: 'Quantize', scale: xScale, zero_point: xZp, dtype: 'quint8' }, layer, { type: 'DeQuantize' }],
      tensors,
    );
    const model = qwasm.io.loadModel(bytes);
    const y = model.forward({ data: x, shape: inShape });
    model.dispose();
    expect(y.shape).toEqual(outShape);

    const acc = new Float64Array(numel(outShape)); // exact: integers below 2^53
    const outCount = numel(g.out);
    const taps = numel(g.kernel);
    forEachTerm(g, (n, oc, o, ic, i, t, ocl) => {
      const wz = wZps[perChannel ? ocl : 0];
      const xv = xq[(n * g.inChannels + ic) * numel(g.spatial) + i] - xZp;
      const wv = wq[(ic * ocg + ocl) * taps + t] - wz;
      acc[(n * g.outChannels + oc) * outCount + o] += xv * wv;
    });
    const mismatches = [];
    for (let j = 0; j < acc.length; j++) {
      const oc = Math.floor(j / outCount) % g.outChannels;
      const real = acc[j] * xScale * wScales[perChannel ? oc % ocg : 0] + (bias ? bias[oc] : 0);
      const v = real / yScale + yZp;
      let want = Math.min(255, Math.max(relu ? yZp : 0, Math.round(v)));
      if (Math.abs(v - Math.round(v)) === 0.5 && Math.round(v) % 2 !== 0) want -= 1; // half to even
      const got = Math.round(y.data[j] / yScale) + yZp;
      const nearTie = Math.abs(Math.abs(v - Math.floor(v)) - 0.5) < 1e-3;
      if (got !== want && !(nearTie && Math.abs(got - want) === 1)) mismatches.push({ j, got, want, v });
    }
    expect({ geometry: describeGeometry(g), perChannel, mismatches: mismatches.slice(0, 3) }).toEqual({
      geometry: describeGeometry(g),
      perChannel,
      mismatches: [],
    });
  });
});

describe('float against the float64 sum', () => {
  test.each(geometries)('case %i', (_, g, random) => {
    const inShape = [g.batch, g.inChannels, ...g.spatial];
    const outShape = [g.batch, g.outChannels, ...g.out];
    const ocg = g.outChannels / g.groups;
    const x = Float32Array.from({ length: numel(inShape) }, () => random() * 6 - 3);
    const w = Float32Array.from({ length: g.inChannels * ocg * numel(g.kernel) }, () => random() * 2 - 1);
    const bias = random() < 0.7 ? Float32Array.from({ length: g.outChannels }, () => random() * 2 - 1) : null;
    const tensors = { w: { dtype: 'F32', shape: [g.inChannels, ocg, ...g.kernel], data: w } };
    if (bias) tensors.b = { dtype: 'F32', shape: [g.outChannels], data: bias };
    const layer = { type: 'ConvTranspose', ...entry(g, {}), weight: 'w', bias: bias ? 'b' : null };
    const model = qwasm.io.loadModel(chainModel(inShape, [layer], tensors));
    const y = model.forward({ data: x, shape: inShape });
    model.dispose();
    expect(y.shape).toEqual(outShape);
    const outCount = numel(g.out);
    const taps = numel(g.kernel);
    const sum = new Float64Array(numel(outShape));
    if (bias) for (let j = 0; j < sum.length; j++) sum[j] = bias[Math.floor(j / outCount) % g.outChannels];
    forEachTerm(g, (n, oc, o, ic, i, t, ocl) => {
      sum[(n * g.outChannels + oc) * outCount + o] +=
        x[(n * g.inChannels + ic) * numel(g.spatial) + i] * w[(ic * ocg + ocl) * taps + t];
    });
    const off = [];
    for (let j = 0; j < sum.length; j++) {
      const want = Math.fround(sum[j]);
      if (y.data[j] !== want) {
        const ulp = 2 ** (Math.floor(Math.log2(Math.max(Math.abs(want), 2 ** -126))) - 23);
        if (Math.abs(y.data[j] - want) > ulp) off.push({ j, got: y.data[j], want });
      }
    }
    expect({ geometry: describeGeometry(g), off: off.slice(0, 3) }).toEqual({ geometry: describeGeometry(g), off: [] });
  });
});

// PyTorch's ConvTranspose on an empty input: a batch of 0 gives an empty output of the right shape; an empty
// spatial extent is refused (ConvUtils.h: "Only zero batch or zero channel inputs are supported").
describe('empty inputs, as PyTorch', () => {
  const g = {
    dims: 2,
    in_channels: 2,
    out_channels: 3,
    kernel_size: [3, 3],
    stride: [2, 2],
    padding: [0, 0],
    output_padding: [0, 0],
    groups: 1,
    dilation: [1, 1],
  };
  const files = {
    int8: (shape) =>
      chainModel(
        shape,
        [
          { type: 'Quantize', scale: 0.1, zero_point: 3, dtype: 'quint8' },
          {
            type: 'QuantizedConvTranspose',
            relu: false,
            ...g,
            scale: 0.2,
            zero_point: 4,
            weight: { qscheme: 'per_tensor_affine', ints: 'w', scale: 0.01, zero_point: 0 },
            bias: null,
            backend: 'fbgemm',
          },
          { type: 'DeQuantize' },
        ],
        { w: { dtype: 'I8', shape: [2, 3, 3, 3], data: new Int8Array(54).fill(3) } },
      ),
    float: (shape) =>
      chainModel(shape, [{ type: 'ConvTranspose', ...g, weight: 'w', bias: null }], {
        w: { dtype: 'F32', shape: [2, 3, 3, 3], data: new Float32Array(54).fill(0.5) },
      }),
  };
  test.each(['int8', 'float'])('%s', (kind) => {
    const heap = qwasm.heapInUse();
    const empty = qwasm.io.loadModel(files[kind]([0, 2, 4, 4]));
    expect(empty.forward({ data: new Float32Array(0), shape: [0, 2, 4, 4] }).shape).toEqual([0, 3, 9, 9]);
    empty.dispose();
    const model = qwasm.io.loadModel(files[kind]([1, 2, 0, 4]));
    expect(() => model.forward({ data: new Float32Array(0), shape: [1, 2, 0, 4] })).toThrow(
      /only zero batch inputs are supported, got shape \[1, 2, 0, 4\]/,
    );
    model.dispose();
    expect(qwasm.heapInUse()).toBe(heap);
  });
});
