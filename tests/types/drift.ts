// The code and the declarations cannot drift apart: the API module's own
// exports (their types inferred by tsc --checkJs from web/src) must be
// assignable to what web/index.d.ts declares. A missing export, a removed
// method or a changed arity fails this compile.
import type * as Declared from '../../web/index.js';
import * as impl from '../../web/src/api.mjs';

type Api = typeof Declared;

// Functions and namespaces, one by one, so that a failure names the export.
export const init: Api['init'] = impl.init;
export const isInitialized: Api['isInitialized'] = impl.isInitialized;
export const tensor: Api['tensor'] = impl.tensor;
export const quantizePerTensor: Api['quantizePerTensor'] = impl.quantizePerTensor;
export const quantizePerChannel: Api['quantizePerChannel'] = impl.quantizePerChannel;
export const makePerTensorQuantizedTensor: Api['makePerTensorQuantizedTensor'] = impl.makePerTensorQuantizedTensor;
export const makePerChannelQuantizedTensor: Api['makePerChannelQuantizedTensor'] = impl.makePerChannelQuantizedTensor;
export const dequantize: Api['dequantize'] = impl.dequantize;
export const setKernelIsa: Api['setKernelIsa'] = impl.setKernelIsa;
export const kernelIsa: Api['kernelIsa'] = impl.kernelIsa;
export const heapInUse: Api['heapInUse'] = impl.heapInUse;
export const loadNpy: Api['io']['loadNpy'] = impl.io.loadNpy;
export const loadSafetensors: Api['io']['loadSafetensors'] = impl.io.loadSafetensors;

// Every declared export exists in the implementation, and nothing more.
type Missing = Exclude<keyof Api, keyof typeof impl>;
type Extra = Exclude<keyof typeof impl, keyof Api>;
export const noneMissing: [Missing] extends [never] ? true : Missing = true;
export const noneExtra: [Extra] extends [never] ? true : Extra = true;

// The QTensor class: every declared method exists with a compatible type.
type Methods<T> = { [K in keyof T]: T[K] };
export const qtensorMethods = (q: InstanceType<typeof impl.QTensor>): Methods<Declared.QTensor> => q;
