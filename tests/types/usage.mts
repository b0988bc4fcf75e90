// Compiled by tests/js/package/types.test.mjs with `tsc --noEmit --strict`: the shipped
// declarations must type the README's examples.
import {
  classifyVideo,
  init,
  io,
  makePerTensorQuantizedTensor,
  nn,
  type OutOfMemoryError,
  type QTensor,
  quantization,
  quantizePerChannel,
  quantizePerTensor,
  type Tensor,
  tensor,
  transforms,
  type VideoClass,
  type VideoSource,
} from 'qwasm';

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
  const ints: Uint8Array = y.intRepr(); // quint8 out: the dtype is in the type
  const floatConv: nn.Conv3d = f[0]; // the public classes are types too
  const kernel: [number, number, number] = floatConv.kernelSize;
  const module: nn.intrinsic.quantized.ConvReLU3d = qm;
  const weight: QTensor<'qint8'> = module.weight();
  const i8: Int8Array = weight.intRepr();
  weight.dispose();
  const made = makePerTensorQuantizedTensor({ data: new Int32Array(2), shape: [2] }, 1, 0); // dtype from the array
  const i32: Int32Array = made.intRepr();
  made.dispose();
  const anyObserver: quantization.Observer = inQ;
  console.log(kernel, i8.length, i32.length, anyObserver.dtype);
  y.dispose();
  qm.dispose();
  console.log(axis, scales.length, ints.length);
}

void main();

// The eager flow on a small model, and the quantized ops on its QTensors.
export function eagerFlow(): number[] {
  class Net extends nn.Module {
    quant = new quantization.QuantStub();
    conv = new nn.Conv3d(3, 8, 3, { padding: 1 });
    bn = new nn.BatchNorm3d(8);
    relu = new nn.ReLU();
    pool = new nn.MaxPool3d(2);
    gap = new nn.AdaptiveAvgPool3d(1);
    skip = new nn.quantized.FloatFunctional();
    dequant = new quantization.DeQuantStub();
    forward(x: unknown): unknown {
      return this.dequant.forward(this.gap.forward(this.pool.forward(this.relu.forward(this.bn.forward(x as never)))));
    }
  }
  const model = new Net().eval();
  quantization.fuseModules(model, [['conv', 'bn', 'relu']]);
  model.qconfig = quantization.getDefaultQConfig('x86');
  const prepared: Net = quantization.prepare(model);
  const converted: Net = quantization.convert(prepared);
  const q = quantizePerTensor(tensor(new Float32Array(2 * 8 * 4 * 4 * 4), [2, 8, 4, 4, 4]), 0.1, 3, 'quint8');
  const cl: QTensor<'quint8'> = q.contiguous({ memoryFormat: 'channels_last_3d' });
  const strides: number[] = cl.stride();
  const isCl: boolean = cl.isContiguous('channels_last_3d');
  const pooled: QTensor<'quint8'> = new nn.AvgPool3d(2, { countIncludePad: false }).forward(cl);
  const sum = nn.quantized.functional.addRelu(pooled, pooled, 0.2, 0);
  const joined = nn.quantized.functional.cat([sum, pooled], 1, 0.2, 0);
  const qf = nn.quantized.QFunctional.fromFloat(converted.skip);
  const six = new nn.ReLU6().forward(qf.add(joined, joined));
  const floatMax: { data: Float32Array; shape: number[] } = new nn.AdaptiveMaxPool2d([2, null]).forward(
    tensor(new Float32Array(16), [1, 1, 4, 4]),
  );
  return [...strides, Number(isCl), six.numel(), floatMax.data.length];
}

export function readWeights(bytes: Uint8Array): number[] {
  const npy = io.loadNpy(bytes);
  const st = io.loadSafetensors(new Uint8Array(bytes));
  const first = st.get(st.tensors[0].name);
  return [...npy.shape, ...first.shape];
}

// QConfig takes observer classes as PyTorch's does (QConfig(activation=HistogramObserver, ...)),
// and gives back factories either way.
export function qconfigOfClasses(): string {
  const qconfig = new quantization.QConfig({
    activation: quantization.HistogramObserver,
    weight: quantization.PerChannelMinMaxObserver.withArgs({ dtype: 'qint8', qscheme: 'per_channel_symmetric' }),
  });
  const activation: quantization.Observer = qconfig.activation();
  return activation.qscheme;
}

export function engines(): string[] {
  quantization.setEngine('fbgemm');
  const conv = new nn.quantized.Conv3d(2, 2, 1);
  const backend: 'onednn' | 'fbgemm' = conv.backend;
  conv.dispose();
  quantization.setEngine(quantization.getEngine() === 'fbgemm' ? 'x86' : 'fbgemm');
  return [backend, ...quantization.supportedEngines];
}

export function winograd(): (string | number | boolean)[] {
  quantization.setWinograd(false);
  const conv = new nn.quantized.Conv3d(16, 16, 3, { padding: 1, winograd: 'auto' });
  const option: 'auto' | boolean = conv.winograd;
  const path: 'winograd' | 'direct' | '' = conv.lastPath();
  const bytes: number = conv.winogradWeightBytes();
  const kernel: string = conv.lastKernel();
  conv.timeWinogradPhases(true);
  const split = conv.lastWinogradPhaseMs();
  const totalMs: number = split === null ? 0 : split.inputTransform + split.gemm + split.outputTransform;
  conv.dispose();
  quantization.setWinograd(quantization.getWinograd() === false ? 'auto' : false);
  return [option, path, bytes, kernel, totalMs];
}

export async function runModelInWorker(url: string, clip: Float32Array): Promise<number[]> {
  const seen: [number, number | null][] = [];
  const model: io.WorkerModel = await io.loadModel(url, {
    worker: true,
    numThreads: 2,
    winograd: 'auto',
    onProgress: (loaded, total) => seen.push([loaded, total]),
    signal: AbortSignal.timeout(60_000), // a stalled download rejects after a minute
  });
  await model.loadFloatModel(url.replace('.qwasm', '_float.qwasm'), {
    maxWork: Number.POSITIVE_INFINITY,
    signal: new AbortController().signal,
  });
  const fractions: number[] = [];
  const out: io.WorkerOutput = await model.forward(
    { data: clip, shape: [1, 3, 16, 112, 112] },
    { transfer: false, maxMemoryBytes: 2 ** 28, onProgress: ({ done, total }) => fractions.push(done / total) },
  );
  const values = 'scale' in out ? Array.from(out.data, (v) => (v - out.zeroPoint) * out.scale) : Array.from(out.data);
  const { layers } = await model.profile({ data: clip, shape: [1, 3, 16, 112, 112] });
  const scales = model.modules.find((m) => m.weight !== undefined)?.weight?.scales ?? [];
  const variant: 'threads' | 'single-thread' = model.runtime.variant;
  model.dispose();
  const local: io.GraphModule = await io.loadModelAsync(new Response(new Uint8Array(0)), {
    onProgress: () => {},
    signal: AbortSignal.timeout(60_000),
  });
  local.dispose();
  // Cached across visits, and the cache emptied.
  const cached: io.WorkerModel = await io.loadModel('/models/r3d_18.qwasm.safetensors', { worker: true, cache: true });
  cached.dispose();
  const hadCache: boolean = await io.clearCache();
  // A failed load's fields (io.LoadError).
  const failure = await io.loadModelAsync('/models/typo.qwasm.safetensors').then(
    () => null,
    (e: unknown) => e as io.LoadError,
  );
  const kind: io.LoadErrorKind | undefined = failure?.kind;
  const status: number | null = failure?.status ?? null;
  const why: string = `${failure?.url}: ${failure?.hint ?? failure?.message}`;
  return [
    ...values,
    layers.length,
    scales.length,
    variant.length,
    model.weightBytes().packed,
    status ?? 0,
    why.length + (kind?.length ?? 0) + Number(hadCache),
    ...fractions,
  ];
}

export function runExportedModel(bytes: Uint8Array, clip: Float32Array): number[] {
  const model: io.GraphModule = io.loadModel(bytes, {
    maxWork: 1e12,
    maxActivationBytes: 2 ** 30,
    maxLiveBytes: 2 ** 31,
    winograd: true,
  });
  const { packed, winograd: transformed } = model.weightBytes();
  const paths = model.profile({ data: clip, shape: [1, 3, 16, 112, 112] }).layers.map((l) => l.path ?? 'none');
  let progress: io.ForwardProgress = { done: 0, total: 0 };
  const out = model.forward({ data: clip, shape: [1, 3, 16, 112, 112] }, { onProgress: (p) => (progress = p) });
  const logits = 'data' in out ? out.data : out.dequantize().data;
  const conv = model.getSubmodule('layer1.0.conv1.0');
  const layers: string[] = model.namedModules().map(([path]) => path);
  const quant = quantizePerTensor(tensor(clip, [1, 3, 16, 112, 112]), 0.02, 0, 'quint8');
  const q: QTensor = model.forwardQuantized(quant);
  // Said once at the load, the output's type needs no narrowing (a model ending with DeQuantStub: a Tensor).
  const typed = io.loadModel<Tensor>(bytes);
  const y: Tensor = typed.forward({ data: clip, shape: [1, 3, 16, 112, 112] });
  const profiled: Tensor = typed.profile({ data: clip, shape: [1, 3, 16, 112, 112] }).output;
  const quantizedOut: QTensor = io.loadModel<QTensor>(bytes).forward(y);
  typed.dispose();
  const kinds: string[] = model.nodes.map((n) => n.op);
  const add = model.nodes.find((n) => n.target === 'quantized.add_relu');
  const addScale: number | null = add?.output?.scale ?? null;
  const firstArg: io.NodeArgument | undefined = add?.args[0];
  q.dispose();
  quant.dispose();
  model.dispose();
  return [
    logits.length + profiled.data.length + quantizedOut.numel(),
    packed - transformed,
    paths.length,
    layers.length,
    kinds.length,
    Number(conv instanceof nn.intrinsic.quantized.ConvReLU3d),
    addScale ?? 0,
    typeof firstArg === 'object' && firstArg !== null && 'node' in firstArg ? 1 : 0,
    progress.done / progress.total,
  ];
}

// The README's advice: test an out-of-memory error's kind, not its text.
export function outOfMemoryIsRecoverable(run: () => void): boolean {
  try {
    run();
    return true;
  } catch (e) {
    if (e instanceof RangeError && (e as OutOfMemoryError).kind === 'outOfMemory') return false;
    throw e;
  }
}

// A video clip through the model's recorded preprocessing, top-5 float against int8 in the worker.
export async function videoTop5(frames: ImageDataLike[], url: string): Promise<string[]> {
  const model = await io.loadModel(url, { worker: true });
  await model.loadFloatModel(url.replace('.qwasm', '_float.qwasm'));
  const x =
    model.preprocessing === null
      ? new transforms.VideoClassification({ cropSize: 112, resizeSize: [128, 171] }).forward(frames)
      : (model.transforms() as transforms.VideoClassification).forward(frames);
  const [int8, float] = await Promise.all([model.forward(x, { transfer: false }), model.forwardFloat(x)]);
  const classes: readonly string[] = model.classes ?? [];
  const top = (o: { data: ArrayLike<number> }) =>
    Array.from(o.data, (v, i) => [v, i] as const)
      .sort((a, b) => b[0] - a[0])
      .slice(0, 5)
      .map(([, i]) => classes[i] ?? String(i));
  model.dispose();
  return [...top(int8), ...top(float), String(transforms.KINETICS_MEAN.length)];
}
interface ImageDataLike {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

// The worker's wasm heap around a forward, and a NIfTI volume read from a dropped File.
export async function heapAndVolume(url: string, file: Blob): Promise<number> {
  const model = await io.loadModel(url, { worker: true });
  const before: { inUse: number; highWater: number } = await model.heap();
  const volume = await io.readNifti(file);
  model.dispose();
  return before.highWater - before.inUse + volume.dims[0];
}

// One call from a video to its labels: a dropped file, a <video>, a camera's stream or decoded frames;
// frames preprocessed in the worker; a clip's frames read by the browser.
export async function classify(
  url: string,
  file: File,
  element: HTMLVideoElement,
  camera: MediaStream,
  frames: ImageData[],
): Promise<string[]> {
  const model = await io.loadModel(url, { worker: true });
  const sources: VideoSource[] = [file, element, camera, frames, url, new URL(url)];
  const top: VideoClass[] = await classifyVideo(model, sources[0], { topk: 3, frameRate: 15, frameCount: 16 });
  const own = new transforms.VideoClassification({ cropSize: 112, resizeSize: [128, 171] });
  const [best] = await classifyVideo(model, frames, { transform: own });
  const clip = await io.readVideoFrames(file, { frameCount: 8 });
  const x: Tensor = await model.preprocess(clip.frames, {
    transfer: true,
    transform: { cropSize: 112, resizeSize: 128 },
  });
  const bytes = io.loadModel(new Uint8Array(0));
  const onThread = await classifyVideo(bytes, frames);
  model.dispose();
  const p: number = best.probability + onThread[0].index + x.shape[2] + clip.times[0] + clip.duration;
  return [...top.map((c) => c.label), String(p), String(clip.frames[0].width)];
}
