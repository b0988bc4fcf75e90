// The code and the declarations cannot drift apart: the API module's own
// exports (their types inferred by tsc --checkJs from web/src) must be
// assignable to what web/index.d.ts (web/declarations/) declares. A missing
// export, a removed method or a changed arity fails this compile.
import type * as Declared from '../../web/index.js';
import * as impl from '../../web/src/api.mjs';

type Api = typeof Declared;
type QDType = Declared.QDType;

// Functions and namespaces, one by one, so that a failure names the export.
// The dtype-generic functions are checked at D = QDType (JS cannot carry D).
export const init: Api['init'] = impl.init;
export const isInitialized: Api['isInitialized'] = impl.isInitialized;
export const runtimeInfo: Api['runtimeInfo'] = impl.runtimeInfo;
export const getNumThreads: Api['getNumThreads'] = impl.getNumThreads;
export const setNumThreads: Api['setNumThreads'] = impl.setNumThreads;
export const tensor: Api['tensor'] = impl.tensor;
export const quantizePerTensor: typeof Declared.quantizePerTensor<QDType> = impl.quantizePerTensor;
export const quantizePerChannel: typeof Declared.quantizePerChannel<QDType> = impl.quantizePerChannel;
export const makePerTensorQuantizedTensor: typeof Declared.makePerTensorQuantizedTensor<QDType> =
  impl.makePerTensorQuantizedTensor;
export const makePerChannelQuantizedTensor: typeof Declared.makePerChannelQuantizedTensor<QDType> =
  impl.makePerChannelQuantizedTensor;
export const dequantize: Api['dequantize'] = impl.dequantize;
export const setKernelIsa: Api['setKernelIsa'] = impl.setKernelIsa;
export const kernelIsa: Api['kernelIsa'] = impl.kernelIsa;
export const heapInUse: Api['heapInUse'] = impl.heapInUse;
export const loadNpy: Api['io']['loadNpy'] = impl.io.loadNpy;
export const loadSafetensors: Api['io']['loadSafetensors'] = impl.io.loadSafetensors;
export const loadModel: (bytes: Uint8Array) => InstanceType<typeof impl.io.GraphModule> = impl.io.loadModel;
export const classifyVideo: Api['classifyVideo'] = impl.classifyVideo;

// Every declared export exists in the implementation, and nothing more.
type Missing = Exclude<keyof Api, keyof typeof impl>;
type Extra = Exclude<keyof typeof impl, keyof Api>;
export const noneMissing: [Missing] extends [never] ? true : Missing = true;
export const noneExtra: [Extra] extends [never] ? true : Extra = true;

// The QTensor class: every declared method exists with a compatible type.
type Methods<T> = { [K in keyof T]: T[K] };
export const qtensorMethods = (q: InstanceType<typeof impl.QTensor>): Methods<Declared.QTensor> => q;

// The modules and observers: every declared member (instance and static)
// exists in the implementation. (Keys only: the implementation's JSDoc types
// cannot carry the declarations' dtype-precise QTensor<D>.)
// (qconfig is a property users set, not one the classes define.)
type MissingMembers<Declared, Impl> = Exclude<keyof Declared, keyof Impl | 'qconfig'>;
type Check<M> = [M] extends [never] ? true : M;
type Members<D, I extends abstract new (...args: never) => unknown> = Check<MissingMembers<D, InstanceType<I>>>;
type Statics<D, I> = Check<MissingMembers<D, I>>;
const n = impl.nn;
export const members: true[] = [
  true as Members<Declared.io.GraphModule, typeof impl.io.GraphModule>,
  true as Members<Declared.nn.Conv1d, typeof n.Conv1d>,
  true as Members<Declared.nn.Conv2d, typeof n.Conv2d>,
  true as Members<Declared.nn.Conv3d, typeof n.Conv3d>,
  true as Members<Declared.nn.Linear, typeof n.Linear>,
  true as Members<Declared.nn.ReLU, typeof n.ReLU>,
  true as Members<Declared.nn.intrinsic.ConvReLU1d, typeof n.intrinsic.ConvReLU1d>,
  true as Members<Declared.nn.intrinsic.ConvReLU3d, typeof n.intrinsic.ConvReLU3d>,
  true as Members<Declared.nn.intrinsic.LinearReLU, typeof n.intrinsic.LinearReLU>,
  true as Members<Declared.nn.quantized.Conv1d, typeof n.quantized.Conv1d>,
  true as Members<Declared.nn.quantized.Conv3d, typeof n.quantized.Conv3d>,
  true as Members<Declared.nn.quantized.Linear, typeof n.quantized.Linear>,
  true as Members<Declared.nn.intrinsic.quantized.ConvReLU3d, typeof n.intrinsic.quantized.ConvReLU3d>,
  true as Members<Declared.nn.intrinsic.quantized.LinearReLU, typeof n.intrinsic.quantized.LinearReLU>,
  true as Statics<typeof Declared.nn.quantized.Conv3d, typeof n.quantized.Conv3d>,
  true as Statics<typeof Declared.nn.intrinsic.quantized.ConvReLU3d, typeof n.intrinsic.quantized.ConvReLU3d>,
  true as Members<Declared.quantization.MinMaxObserver, typeof impl.quantization.MinMaxObserver>,
  true as Members<Declared.quantization.PerChannelMinMaxObserver, typeof impl.quantization.PerChannelMinMaxObserver>,
  true as Members<Declared.quantization.HistogramObserver, typeof impl.quantization.HistogramObserver>,
  true as Members<
    Declared.quantization.MovingAveragePerChannelMinMaxObserver,
    typeof impl.quantization.MovingAveragePerChannelMinMaxObserver
  >,
  true as Members<Declared.nn.MaxPool3d, typeof n.MaxPool3d>,
  true as Members<Declared.nn.AvgPool2d, typeof n.AvgPool2d>,
  true as Members<Declared.nn.AdaptiveAvgPool3d, typeof n.AdaptiveAvgPool3d>,
  true as Members<Declared.nn.AdaptiveMaxPool1d, typeof n.AdaptiveMaxPool1d>,
  true as Members<Declared.nn.ReLU6, typeof n.ReLU6>,
  true as Members<Declared.nn.Hardtanh, typeof n.Hardtanh>,
  true as Members<Declared.nn.BatchNorm3d, typeof n.BatchNorm3d>,
  true as Members<Declared.nn.Flatten, typeof n.Flatten>,
  true as Members<Declared.nn.quantized.FloatFunctional, typeof n.quantized.FloatFunctional>,
  true as Members<Declared.nn.quantized.QFunctional, typeof n.quantized.QFunctional>,
  true as Statics<typeof Declared.nn.quantized.QFunctional, typeof n.quantized.QFunctional>,
  true as Members<Declared.quantization.QConfig, typeof impl.quantization.QConfig>,
];

// The namespaces: every declared member exists, and nothing undeclared.
type SameKeys<D, I> = Check<Exclude<keyof D, keyof I> | Exclude<keyof I, keyof D>>;
export const namespaces: true[] = [
  true as SameKeys<typeof Declared.nn, typeof n>,
  true as SameKeys<typeof Declared.nn.intrinsic, typeof n.intrinsic>,
  true as SameKeys<typeof Declared.nn.intrinsic.quantized, typeof n.intrinsic.quantized>,
  true as SameKeys<typeof Declared.nn.quantized, typeof n.quantized>,
  true as SameKeys<typeof Declared.nn.quantized.functional, typeof n.quantized.functional>,
  true as SameKeys<typeof Declared.quantization, typeof impl.quantization>,
  true as SameKeys<typeof Declared.io, typeof impl.io>,
];
