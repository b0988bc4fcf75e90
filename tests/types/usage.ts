// Compiled by tests/js/types.test.mjs with `tsc --noEmit --strict`: the shipped
// declarations must type the README's examples.
import { init, io, nn, type QTensor, quantization, quantizePerChannel, quantizePerTensor, tensor } from 'qwasm';

async function main(): Promise<void> {
  await init();
  const w = tensor(new Float32Array(8 * 3 * 27), [8, 3, 3, 3, 3]);
  const obs = new quantization.PerChannelMinMaxObserver({
    dtype: 'qint8',
    qscheme: 'per_channel_symmetric',
    chAxis: 0,
  });
  obs.observe(w);
  const { scale, zeroPoint } = obs.calculateQParams();
  const q: QTensor = quantizePerChannel(w, scale, zeroPoint, 0, 'qint8');
  const axis: number = q.qPerChannelAxis();
  const scales: Float64Array | Float32Array = q.qPerChannelScales();
  q.dispose();

  const f = new nn.intrinsic.ConvReLU3d(new nn.Conv3d(3, 8, 3, { padding: 1 }), new nn.ReLU());
  const x = tensor(new Float32Array(3 * 4 * 4 * 4), [1, 3, 4, 4, 4]);
  const actObs = new quantization.MinMaxObserver();
  actObs.observe(f.forward(x));
  const qm = nn.intrinsic.quantized.ConvReLU3d.fromFloat(f, { activationObserver: actObs });
  const inQ = new quantization.MinMaxObserver();
  inQ.observe(x);
  const { scale: s, zeroPoint: z } = inQ.calculateQParams();
  const y = qm.forward(quantizePerTensor(x, s, z, 'quint8'));
  const ints: Uint8Array | Int8Array | Int32Array = y.intRepr();
  y.dispose();
  qm.dispose();
  console.log(axis, scales.length, ints.length);
}

void main();

export function readWeights(bytes: Uint8Array): number[] {
  const npy = io.loadNpy(bytes);
  const st = io.loadSafetensors(new Uint8Array(bytes));
  const first = st.get(st.tensors[0].name);
  return [...npy.shape, ...first.shape];
}
