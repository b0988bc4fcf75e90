// Where the way oneDNN applies the source and weight scales decides the integer
// (tests/golden/onednn_scale.json): quantized Conv3d / ConvReLU3d under 'x86' (symmetric
// per-channel weights: PyTorch runs them on oneDNN), each channel's weight scale searched so that
// multiplying the accumulator by the source scale, then the weight scale (oneDNN's AVX-512 VNNI
// kernels, which qwasm follows) and by their product as one float (its AMX kernels'
// precompute_scales) give different integers. PyTorch ran each case capped at each ISA. qwasm
// equals the VNNI run bit for bit and differs from the AMX run on exactly the outputs where the
// two ways differ (docs/numerics.md, README's Known differences). Both kernel families, and the
// exact integer Winograd path (the QWASM_TEST_WINOGRAD reruns of npm test).
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, goldenInput, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('onednn_scale.json');
const { nn, quantization } = qwasm;

beforeAll(() => initGolden(qwasm, golden));
afterAll(() => quantization.setEngine('x86'));
afterEach(() => qwasm.setKernelIsa('auto'));

function layer(c) {
  const hasBias = c.bias !== null;
  const Cls = c.relu ? nn.intrinsic.quantized.ConvReLU3d : nn.quantized.Conv3d;
  const m = new Cls(c.in_channels, c.out_channels, c.kernel, { padding: c.padding, bias: hasBias });
  const data = new Int8Array(decode(c.w_int).buffer);
  const scales = decode(c.w_scales);
  const w = qwasm.makePerChannelQuantizedTensor(
    { data, shape: c.w_int.shape },
    scales,
    new Array(scales.length).fill(0),
    0,
  );
  m.setWeightBias(w, hasBias ? decode(c.bias) : null);
  w.dispose();
  m.scale = c.out_scale;
  m.zeroPoint = c.out_zero_point;
  return m;
}

test('the golden is written under x86, and the two ISAs differ on every case', () => {
  expect(golden.engine).toBe('x86');
  expect(golden.cases.length).toBe(4);
  for (const c of golden.cases) {
    const { AVX512_CORE_VNNI: vnni, AVX512_CORE_AMX: amx } = c.misses;
    expect({ name: c.name, vnniSeparate: vnni.separate, vnniCombinedMisses: vnni.combined > 0 }).toEqual({
      name: c.name,
      vnniSeparate: 0,
      vnniCombinedMisses: true,
    });
    // The AMX run is only AMX's where the generating machine had AMX (else oneDNN capped it at VNNI).
    if (c.cpu_has_amx) expect({ name: c.name, amxCombined: amx.combined }).toEqual({ name: c.name, amxCombined: 0 });
  }
});

describe.each(['wasmsimd', 'scalar'])('%s kernels', (isa) => {
  test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
    quantization.setEngine('x86');
    qwasm.setKernelIsa(isa);
    const m = layer(c);
    expect(m.backend).toBe('onednn');
    const x = goldenInput(qwasm, c);
    const y = m.forward(x);
    const got = y.intRepr();
    // PyTorch on an AVX-512 VNNI CPU: bit for bit.
    const want = decode(c.y_by_isa.AVX512_CORE_VNNI);
    const i = firstDifference(got, want);
    expect({ name, shape: [...y.shape], i, got: got[i], want: want[i] }).toEqual({
      name,
      shape: c.y_by_isa.AVX512_CORE_VNNI.shape,
      i: -1,
      got: undefined,
      want: undefined,
    });
    // PyTorch on an AMX CPU: one step off on the halfway outputs, and nowhere else.
    const amx = decode(c.y_by_isa.AVX512_CORE_AMX);
    let differing = 0;
    let steps = 0;
    for (let j = 0; j < amx.length; j++) {
      differing += got[j] !== amx[j];
      steps = Math.max(steps, Math.abs(got[j] - amx[j]));
    }
    expect({ name, differing, steps }).toEqual({
      name,
      differing: c.misses.AVX512_CORE_AMX.separate,
      steps: c.cpu_has_amx ? 1 : 0,
    });
    y.dispose();
    x.dispose();
    m.dispose();
  });
});
