// torchvision's r3d_18, mc3_18 and r2plus1d_18 (an eighth of their widths),
// quantized by PyTorch's eager flow and exported by python/qwasm_export.py
// (tests/golden/exported/*.qwasm.safetensors, tests/golden/video_resnets.json):
// io.loadModel runs them on clips of batch 1 and 2, 8 and 16 frames, 112x112,
// and the logits' integers and the dequantized floats equal PyTorch's bit for
// bit, with both kernel families. Nothing leaks. Under both engines:
// video_resnets.json was converted under fbgemm (format version 1 files),
// video_resnets_x86.json under x86, PyTorch's default (the convs on oneDNN).
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, firstDifference, initGolden, lcgBytes, loadGolden } from '../util.mjs';

const golden = loadGolden('video_resnets.json');
const x86 = loadGolden('video_resnets_x86.json');
const cases = [golden, x86].flatMap((g) => g.cases.map((c) => [`${g.engine}: ${c.name}`, { ...c, engine: g.engine }]));

beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

const files = new Map();
const fileBytes = (name) => {
  if (!files.has(name)) files.set(name, readFileSync(new URL(`../../golden/${name}`, import.meta.url)));
  return files.get(name);
};

// The clip both sides build: (byte - 128) / 64 from the seeded LCG.
function clip({ lcg, shape }) {
  const bytes = lcgBytes(
    lcg,
    shape.reduce((a, b) => a * b, 1),
  );
  return { data: Float32Array.from(bytes, (b) => (b - 128) / 64), shape };
}

describe.each(cases)('%s', (name, c) => {
  test.each(['wasmsimd', 'scalar'])('equals PyTorch bit for bit (%s kernels)', (isa) => {
    qwasm.setKernelIsa(isa);
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(fileBytes(c.file));
    const x = clip(c.input);
    try {
      // Each conv on the backend PyTorch used: under x86 all of them on oneDNN (symmetric weights, groups 1).
      expect(model.engine).toBe(c.engine);
      const layers = model.namedModules().filter(([, m]) => typeof m.backend === 'string');
      const isLinear = (m) =>
        m instanceof qwasm.nn.quantized.Linear || m instanceof qwasm.nn.intrinsic.quantized.LinearReLU;
      const backendOf = (kind) => [
        ...new Set(layers.filter(([, m]) => isLinear(m) === (kind === 'linear')).map(([, m]) => m.backend)),
      ];
      expect({ conv: backendOf('conv'), linear: backendOf('linear') }).toEqual({
        conv: [c.engine === 'x86' ? 'onednn' : 'fbgemm'],
        linear: ['fbgemm'],
      });
      const y = model.forward(x);
      // Which arithmetic each conv ran: with QWASM_TEST_WINOGRAD=on every
      // stride-1 3-tap conv (3x3x3, 1x3x3, 3x1x1) and every stem on Winograd; off, none.
      const convs = layers.filter(([, m]) => !isLinear(m));
      const winogradShaped = ([, m]) =>
        m.stride.every((s) => s === 1) && m.kernelSize.every((k) => k === 1 || k === 3) && m.kernelSize.includes(3);
      // A stem (3 taps along D at stride 1, a window in H and W: r3d_18's and
      // mc3_18's 3x7x7) runs Winograd along D when forced on (src/qwasm/conv_lowered.h).
      const stemShaped = ([, m]) =>
        !winogradShaped([, m]) &&
        m.kernelSize[0] === 3 &&
        m.stride[0] === 1 &&
        m.dilation[0] === 1 &&
        m.groups === 1 &&
        m.kernelSize[1] * m.kernelSize[2] > 1 &&
        m.inChannels * m.kernelSize[1] * m.kernelSize[2] <= 1024;
      const onWinograd = (l) => winogradShaped(l) || stemShaped(l);
      const paths = (pick) => [...new Set(convs.filter(pick).map(([, m]) => m.lastPath()))];
      const forced = process.env.QWASM_TEST_WINOGRAD;
      if (forced === 'on' || forced === 'off') {
        expect({ eligible: paths(onWinograd), other: paths((l) => !onWinograd(l)) }).toEqual({
          eligible: [forced === 'on' ? 'winograd' : 'direct'],
          other: ['direct'],
        });
      }
      const want = decode(c.y);
      expect({ name, isa, shape: y.shape, firstBitDifference: firstBitDifference(y.data, want) }).toEqual({
        name,
        isa,
        shape: c.y.shape,
        firstBitDifference: -1,
      });
      // The quantized path: the QuantStub's integers in, the fc's integers out.
      const quant = model.getSubmodule('quant');
      const q = qwasm.quantizePerTensor(x, quant.scale, quant.zeroPoint, 'quint8');
      const logits = model.forwardQuantized(q);
      const got = logits.intRepr();
      const i = firstDifference(got, decode(c.logits.ints));
      expect({ name, isa, shape: [...logits.shape], qparams: [logits.qScale(), logits.qZeroPoint()], i }).toEqual({
        name,
        isa,
        shape: c.logits.shape,
        qparams: [c.logits.scale, c.logits.zero_point],
        i: -1,
      });
      logits.dispose();
      q.dispose();
    } finally {
      model.dispose();
    }
    expect(qwasm.heapInUse()).toBe(heap);
  });
});

test('the loaded model lists every layer at its PyTorch path, with per-channel weights', () => {
  const model = qwasm.io.loadModel(fileBytes('exported/r3d_18.qwasm.safetensors'));
  try {
    const names = model.namedModules().map(([path]) => path);
    expect(names).toContain('layer2.0.downsample.0');
    const conv = model.getSubmodule('layer1.0.conv1.0');
    expect(conv).toBeInstanceOf(qwasm.nn.intrinsic.quantized.ConvReLU3d);
    const w = conv.weight();
    expect(w.qscheme()).toBe('per_channel_affine');
    expect(w.qPerChannelAxis()).toBe(0);
    expect(w.qPerChannelScales().length).toBe(conv.outChannels);
    w.dispose();
    expect(model.nodes[0]).toEqual({
      name: 'x',
      op: 'placeholder',
      target: undefined,
      args: [],
      kwargs: {},
      output: { dtype: 'float32', shape: [1, 3, 16, 112, 112], scale: null, zeroPoint: null },
    });
    expect(model.nodes.at(-1).op).toBe('output');
  } finally {
    model.dispose();
  }
});
