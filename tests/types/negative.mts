// Code that must NOT compile against the declarations: every line below its
// `@ts-expect-error` is an error, or tsc reports the directive as unused and
// the types test fails. Each case is a lie the declarations used to tell.
// (Biome leaves this file alone: sorting or wrapping would move the lines.)
import {
  classifyVideo,
  init,
  io,
  makePerTensorQuantizedTensor,
  nn,
  type OutOfMemoryError,
  type QTensor,
  type Tensor,
  quantization,
  quantizePerTensor,
  runtimeInfo,
  setNumThreads,
  tensor,
  transforms,
} from 'qwasm';
// @ts-expect-error: the package has no default export (ESM and CJS alike)
import qwasmDefault from 'qwasm';
// @ts-expect-error: internal declarations are not importable
import { FloatModule } from 'qwasm';
// @ts-expect-error: internal declarations are not importable
import { QuantizedConv } from 'qwasm';
// @ts-expect-error: internal declarations are not importable
import { ObserverBase } from 'qwasm';
// @ts-expect-error: internal declarations are not importable
import { FusedModule } from 'qwasm';

export async function cases(): Promise<unknown[]> {
  await init();
  const x = tensor([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 2, 2, 2]);
  const conv3d = new nn.Conv3d(1, 2, 1);
  const conv2d = new nn.Conv2d(1, 2, 1);
  const fused = new nn.intrinsic.ConvReLU3d(new nn.Conv3d(1, 2, 1));
  const out = { outputScale: 0.1, outputZeroPoint: 0 };
  const q8 = quantizePerTensor(x, 0.1, 0, 'quint8');
  const i8 = quantizePerTensor(x, 0.1, 0, 'qint8');
  // @ts-expect-error: numThreads is a number
  await init({ numThreads: '2' });
  // @ts-expect-error: setNumThreads takes a number
  setNumThreads('2');
  // @ts-expect-error: the variant is 'threads' or 'single-thread'
  if (runtimeInfo().variant === 'multi') return [];
  return [
    qwasmDefault,
    // @ts-expect-error: fromFloat takes the matching float module, not any value
    nn.quantized.Conv3d.fromFloat(42, out),
    // @ts-expect-error: a quantized Conv3d comes from an nn.Conv3d, not an nn.Conv2d
    nn.quantized.Conv3d.fromFloat(conv2d, out),
    // @ts-expect-error: nn.intrinsic.quantized.ConvReLU3d comes from the fused float module
    nn.intrinsic.quantized.ConvReLU3d.fromFloat(conv3d, out),
    // @ts-expect-error: and nn.quantized.Conv3d from the plain one
    nn.quantized.Conv3d.fromFloat(fused, out),
    // @ts-expect-error: the output qparams are required (an observer, or scale and zero point)
    nn.quantized.Conv3d.fromFloat(conv3d, {}),
    // @ts-expect-error: an observer or explicit qparams, not both
    nn.quantized.Conv3d.fromFloat(conv3d, { activationObserver: new quantization.MinMaxObserver(), ...out }),
    // @ts-expect-error: the activation observer is per tensor
    nn.quantized.Conv3d.fromFloat(conv3d, { activationObserver: new quantization.PerChannelMinMaxObserver() }),
    // @ts-expect-error: a quantized Conv3d's kernel has 3 entries
    new nn.quantized.Conv3d(1, 1, [3, 3]),
    // @ts-expect-error: and a Conv2d's 2
    new nn.Conv2d(1, 1, [3, 3, 3]),
    // @ts-expect-error: a quint8 tensor's integers are a Uint8Array
    ((): Int8Array => q8.intRepr())(),
    // @ts-expect-error: a qint8 tensor's are an Int8Array
    ((): Uint8Array => i8.intRepr())(),
    // @ts-expect-error: quantized modules take quint8 inputs
    new nn.quantized.Conv3d(1, 1, 1).forward(i8),
    // @ts-expect-error: and their weights are qint8
    new nn.quantized.Conv3d(1, 1, 1).setWeightBias(q8, null),
    // @ts-expect-error: Int8Array data is qint8, not quint8
    makePerTensorQuantizedTensor({ data: new Int8Array(2), shape: [2] }, 1, 0, 'quint8'),
    // @ts-expect-error: PyTorch's dtype names only
    quantizePerTensor(x, 0.1, 0, 'int8'),
    // @ts-expect-error: the fused float helper class is not part of nn.intrinsic
    nn.intrinsic.FusedModule,
    // @ts-expect-error: kernelSize is read-only
    (conv3d.kernelSize = [1, 1, 1]),
    // @ts-expect-error: PyTorch's quantized element-wise ops take quint8 tensors
    nn.quantized.functional.add(i8, i8, 0.1, 0),
    // @ts-expect-error: and need the output's qparams
    nn.quantized.functional.mul(q8, q8),
    // @ts-expect-error: PyTorch's memory format names only
    q8.contiguous({ memoryFormat: 'nhwc' }),
    // @ts-expect-error: PyTorch has no quantized adaptive max pooling
    new nn.AdaptiveMaxPool3d(1).forward(q8),
    // @ts-expect-error: a MaxPool2d's kernel has at most 2 entries
    new nn.MaxPool2d([2, 2, 2]),
    // @ts-expect-error: AvgPool1d has no divisorOverride (as in PyTorch)
    new nn.AvgPool1d(2, { divisorOverride: 2 }),
    // @ts-expect-error: prepare takes a module
    quantization.prepare({}),
    // @ts-expect-error: loadModel takes the file's bytes, not a path (a URL or path needs worker: true, or loadModelAsync)
    io.loadModel('r3d_18.qwasm.safetensors'),
    // @ts-expect-error: a worker model's forward is a Promise, not a Tensor
    io.loadModel('r3d_18.qwasm.safetensors', { worker: true }).then((m) => m.forward(x).data),
    // @ts-expect-error: onProgress is for a download (worker: true or loadModelAsync)
    io.loadModel(new Uint8Array(0), { onProgress: () => {} }),
    // @ts-expect-error: without saying what the model returns, forward's output may be a QTensor
    ((): Tensor => io.loadModel(new Uint8Array(0)).forward(x))(),
    // @ts-expect-error: a model said to return QTensors does not give a Tensor
    ((): Tensor => io.loadModel<QTensor>(new Uint8Array(0)).forward(x))(),
    // @ts-expect-error: cache keeps a downloaded file; loading bytes downloads nothing
    io.loadModel(new Uint8Array(0), { cache: true }),
    // @ts-expect-error: a load error's kind is one of six names
    ((e: io.LoadError) => e.kind === 'timeout')(new Error('') as io.LoadError),
    // @ts-expect-error: signal cancels a download (worker: true or loadModelAsync); loading bytes cannot be stopped
    io.loadModel(new Uint8Array(0), { signal: AbortSignal.timeout(1000) }),
    // @ts-expect-error: signal is an AbortSignal, not a timeout in ms (AbortSignal.timeout(ms) makes one)
    io.loadModelAsync('m', { signal: 1000 }),
    // @ts-expect-error: the float twin's budget is a number, as the model's
    io.loadModel('m', { worker: true }).then((m) => m.loadFloatModel('f', { maxWork: '1e12' })),
    // @ts-expect-error: the float twin takes the budget, not the model's worker options
    io.loadModel('m', { worker: true }).then((m) => m.loadFloatModel('f', { numThreads: 2 })),
    // @ts-expect-error: forwardQuantized takes a quint8 QTensor
    io.loadModel(new Uint8Array(0)).forwardQuantized(x),
    // @ts-expect-error: a model's graph is read-only
    (io.loadModel(new Uint8Array(0)).nodes = []),
    // @ts-expect-error: a node's arguments are read-only
    (io.loadModel(new Uint8Array(0)).nodes[0].args = []),
    // @ts-expect-error: the budget is a number
    io.loadModel(new Uint8Array(0), { maxWork: '1e12' }),
    // @ts-expect-error: maxLiveBytes is a number of bytes
    io.loadModel(new Uint8Array(0), { maxLiveBytes: '1 GiB' }),
    // @ts-expect-error: a profiled layer's work is a number (quantized-conv multiply-adds)
    io.loadModel(new Uint8Array(0)).profile({ data: new Float32Array(1), shape: [1] }).layers[0].work.toUpperCase(),
    // @ts-expect-error: winograd is 'auto', true or false
    new nn.quantized.Conv3d(2, 2, 3, { winograd: 'on' }),
    // @ts-expect-error: a linear layer has no winograd option
    new nn.quantized.Linear(2, 2, { winograd: true }),
    // @ts-expect-error: winograd is 'auto', true or false
    quantization.setWinograd('fast'),
    // @ts-expect-error: timing is on or off
    new nn.quantized.Conv3d(2, 2, 3).timeWinogradPhases('on'),
    // @ts-expect-error: the split may be null (not timed, or the call ran direct)
    new nn.quantized.Conv3d(2, 2, 3).lastWinogradPhaseMs().gemm,
    // @ts-expect-error: qwasm reproduces the x86 and fbgemm engines only
    quantization.setEngine('qnnpack'),
    // @ts-expect-error: GraphModule is made by loadModel, not constructed
    new io.GraphModule(),
    // @ts-expect-error: a QConfig's activation is an observer factory or class, not a module class
    new quantization.QConfig({ activation: nn.Conv3d, weight: quantization.MinMaxObserver }),
    // @ts-expect-error: the numeric suite compares modules, not state-dict objects
    quantization.ns.compareWeights({ 'conv.weight': x }, new nn.Identity()),
    // @ts-expect-error: compareModelOutputs needs the input to run both models on
    quantization.ns.compareModelOutputs(new nn.Identity(), new nn.Identity()),
    // @ts-expect-error: an SQNR is a number, per key there is a Comparison
    quantization.ns.computeSqnr(x, x).sqnr,
    // @ts-expect-error: a worker's comparison keeps its tensors in the worker
    io.loadModel('m', { worker: true }).then((m) => m.compareWeights()).then((r) => r['conv.weight'].float),
    // @ts-expect-error: frames are bytes (ImageData), not float tensors
    new transforms.VideoClassification({ cropSize: 112, resizeSize: [128] }).forward([x]),
    // @ts-expect-error: VideoClassification needs its sizes
    new transforms.VideoClassification({ mean: [0.5, 0.5, 0.5] }),
    // @ts-expect-error: only bilinear, as torchvision's video presets
    new transforms.VideoClassification({ cropSize: 112, resizeSize: [128], interpolation: 'nearest' }),
    // @ts-expect-error: a model's class names are read-only
    io.loadModel(new Uint8Array(0)).classes?.push('x'),
    // @ts-expect-error: the float twin's forward is a worker call: it resolves later
    io.loadModel('m', { worker: true }).then((m) => m.forwardFloat(x).data),
    // @ts-expect-error: compareModelOutputs in a worker resolves to statistics, it is not synchronous
    io.loadModel('m', { worker: true }).then((m) => m.compareModelOutputs(x)['conv.stats']),
    // @ts-expect-error: a worker's heap is a Promise of {inUse, highWater}, not the numbers
    io.loadModel('m', { worker: true }).then((m) => m.heap().inUse),
    // @ts-expect-error: readNifti takes the file's bytes, a Blob or a URL, not a number
    io.readNifti(42),
    // @ts-expect-error: forward's onProgress gets one {done, total}, not (loaded, total) as a load's
    io.loadModel(new Uint8Array(0)).forward(x, { onProgress: (done: number, total: number) => done + total }),
    // @ts-expect-error: progress is in work units: done is a number
    io.loadModel('m', { worker: true }).then((m) => m.forward(x, { onProgress: (p) => p.done.length })),
    // @ts-expect-error: classifyVideo takes a model from io.loadModel, not a module
    classifyVideo(new nn.ReLU(), []),
    // @ts-expect-error: classifyVideo's answer is a Promise of classes, not the classes
    classifyVideo(io.loadModel(new Uint8Array(0)), [])[0].label,
    // @ts-expect-error: topk is a number
    classifyVideo(io.loadModel(new Uint8Array(0)), [], { topk: '5' }),
    // @ts-expect-error: a float tensor is not a video (preprocessed input goes to forward)
    classifyVideo(io.loadModel(new Uint8Array(0)), x),
    // @ts-expect-error: a class's probability is a number
    classifyVideo(io.loadModel(new Uint8Array(0)), []).then((c) => c[0].probability.length),
    // @ts-expect-error: preprocess in a worker resolves later: not a Tensor now
    io.loadModel('m', { worker: true }).then((m) => m.preprocess([]).shape),
    // @ts-expect-error: readVideoFrames decodes a video; frames are not one
    io.readVideoFrames([]),
    // @ts-expect-error: depthStreamPlan only plans: it takes no onProgress
    io.loadModel(new Uint8Array(0)).depthStreamPlan([1, 1, 8, 8, 8], { onProgress: () => {} }),
  ];
}

// An out-of-memory error's kind is the one literal 'outOfMemory'.
export function outOfMemoryKind(e: OutOfMemoryError): 'outOfMemory' {
  // @ts-expect-error: kind is 'outOfMemory', nothing else
  const other: OutOfMemoryError['kind'] = 'out of memory';
  return other === e.kind ? e.kind : e.kind;
}
