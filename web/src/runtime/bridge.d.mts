// The JS <-> wasm bridge, declared once: every name bindings/*.cpp registers
// with Embind, with named parameters, and the few Emscripten runtime members
// the JS layer touches. `wasm()` (runtime.mjs) returns a `Core`, so tsc
// --checkJs checks every call's arity and argument types against this file,
// and tests/js/package/bridge.test.mjs checks that this file and the C++
// registrations name the same functions, with the same arity, and that every
// one is used. Internal: not part of the package's public types.
//
// Conventions (bindings/common.h): numbers cross as doubles and are checked in
// C++; big arrays cross as unsigned heap addresses plus byte counts; a failure
// comes back as a CoreError, which errors.mjs's checked() throws. A number that
// stands for a choice is a code: its type is the codes of one table of
// codes.mjs (checked against bindings/codes.h), never numbers written here.
import type * as codes from './codes.mjs';

/** The codes of one table of codes.mjs. */
type CodeOf<Table> = Table extends ReadonlyMap<string, infer C> ? C : never;

/** An unsigned wasm heap address (from Core._malloc, >>> 0). */
export type Address = number;
/** A byte or element count the JS layer computed. */
export type Count = number;
/** The kernel family a call runs ('auto': the best this build has). */
export type IsaCode = CodeOf<typeof codes.ISA>;
export type DTypeCode = CodeOf<typeof codes.DTYPE>;
export type QSchemeCode = CodeOf<typeof codes.QSCHEME>;
export type MemoryFormatCode = CodeOf<typeof codes.MEMORY_FORMAT>;
export type PoolKindCode = CodeOf<typeof codes.POOL_KIND>;
/** torch.backends.quantized.engine when a layer's weights are packed. */
export type EngineCode = CodeOf<typeof codes.ENGINE>;
/** Whose requantization a quantized conv layer reproduces. */
export type BackendCode = CodeOf<typeof codes.BACKEND>;
/** The `winograd` option: false, 'auto' or true. */
export type WinogradCode = CodeOf<typeof codes.WINOGRAD>;
/** The path a quantized conv's last forward took, or none yet. */
export type ConvPathCode = CodeOf<typeof codes.CONV_PATH>;
/** A failure's kind: the JS error class it becomes (errors.mjs). */
export type ErrorKindCode = CodeOf<typeof codes.ERROR_KIND>;

/** A failure, which errors.mjs's checked() throws as the error class of its kind. */
export interface CoreError {
  error: string;
  kind: ErrorKindCode;
}
export type Result<T> = T | CoreError;

/** depth, height, width */
export type Triple = [number, number, number];

/** @bound _ConvGeometry (value object: bindings/geometry.h) */
export interface ConvGeometry {
  /** 0 for a linear layer, 1..3 for a convolution. */
  dims: number;
  inChannels: number;
  outChannels: number;
  groups: number;
  kernel: Triple;
  stride: Triple;
  dilation: Triple;
  padBegin: Triple;
  padEnd: Triple;
}

/** @bound _PoolGeometry (value object: bindings/geometry.h) */
export interface PoolGeometry {
  dims: number;
  kernelSize: Triple;
  stride: Triple;
  padding: Triple;
  dilation: Triple;
  ceilMode: boolean;
  countIncludePad: boolean;
  hasDivisor: boolean;
  divisorOverride: number;
}

/** What every Embind class handle has (not declared per class). */
export interface EmbindHandle {
  delete(): void;
  isDeleted(): boolean;
}

/** A float result copied out of wasm memory. */
export interface FloatResult {
  data: Float32Array<ArrayBuffer>;
  shape: number[];
}

/** @bound _QTensor */
export interface QTensorHandle extends EmbindHandle {
  dtypeCode(): DTypeCode;
  qschemeCode(): QSchemeCode;
  shape(): number[];
  strides(): number[];
  isContiguousIn(format: MemoryFormatCode): boolean;
  numel(): number;
  nbytes(): number;
  qScale(): number;
  qZeroPoint(): number;
  axis(): number;
  /** A view into wasm memory: copy it at once. */
  scalesView(): Float32Array;
  /** A view into wasm memory: copy it at once. */
  zeroPointsView(): Float64Array;
  /** A view into wasm memory (Uint8Array, Int8Array or Int32Array by dtype): copy it at once. */
  intReprView(): Uint8Array | Int8Array | Int32Array;
  /** Dequantizes elements [begin, end) into float32 at `y`. */
  dequantizeInto(y: Address, begin: number, end: number, isa: IsaCode): Result<undefined>;
}

/** @bound _QConvModule */
export interface QConvHandle extends EmbindHandle {
  forward(
    input: QTensorHandle,
    outScale: number,
    outZeroPoint: number,
    relu: boolean,
    isa: IsaCode,
  ): Result<QTensorHandle>;
  /**
   * forward() with this call's depth padding replaced (a Conv3d; depth
   * streaming), and with depth dilation 1 when `undilated` (groups 1: a
   * window of one depth phase of a dilated layer).
   */
  forwardDepthPadded(
    input: QTensorHandle,
    outScale: number,
    outZeroPoint: number,
    relu: boolean,
    isa: IsaCode,
    padBegin: number,
    padEnd: number,
    undilated: boolean,
  ): Result<QTensorHandle>;
  /** scratchBound(shape) under the same override. */
  scratchBoundDepthPadded(shape: number[], padBegin: number, padEnd: number, undilated: boolean): Result<number>;
  weight(): Result<QTensorHandle>;
  packedBytes(): number;
  backend(): BackendCode;
  scratchBytes(): number;
  /** The most scratch bytes a forward on an input of `shape` allocates (every ISA and path, every thread). */
  scratchBound(shape: number[]): Result<number>;
  winogradBytes(): number;
  lastPath(): ConvPathCode;
  lastKernel(): string;
  /** Diagnostics (QuantizedConv.timeWinogradPhases): time the Winograd path's phases from the next call on. */
  _timePhases(on: boolean): void;
  /** The last call's [input transform, GEMMs, output transform] in ms. */
  _lastPhaseMs(): [number, number, number];
}

/** @bound _FConvModule */
export interface FConvHandle extends EmbindHandle {
  /** `view` points into the module's output: copy it, then releaseOutput(). */
  forward(
    x: Address,
    nbytes: Count,
    shape: number[],
    relu: boolean,
    isa: IsaCode,
  ): Result<{ shape: number[]; view: Float32Array }>;
  /** forward() with this call's depth padding replaced (a Conv3d; depth streaming). */
  forwardDepthPadded(
    x: Address,
    nbytes: Count,
    shape: number[],
    relu: boolean,
    isa: IsaCode,
    padBegin: number,
    padEnd: number,
  ): Result<{ shape: number[]; view: Float32Array }>;
  /** scratchBound(shape) under the same depth padding override. */
  scratchBoundDepthPadded(shape: number[], padBegin: number, padEnd: number): Result<number>;
  releaseOutput(): void;
  scratchBytes(): number;
  /** The most scratch bytes a forward on an input of `shape` allocates (0 for a linear layer). */
  scratchBound(shape: number[]): Result<number>;
  lastKernel(): string;
}

/** The Emscripten runtime members the JS layer uses. */
export interface EmscriptenRuntime {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(address: Address): void;
}

/** The package wasm: every Embind function it registers. */
export interface Core extends EmscriptenRuntime {
  // qtensor_bindings.cpp
  _quantizePerTensor(
    x: Address,
    nbytes: Count,
    shape: number[],
    scale: number,
    zeroPoint: number,
    dtype: DTypeCode,
    isa: IsaCode,
  ): Result<QTensorHandle>;
  /** qparams: nscales float32 scales, then nzps zero points (float32 if floatZeroPoints, else int32). */
  _quantizePerChannel(
    x: Address,
    nbytes: Count,
    shape: number[],
    qparams: Address,
    nscales: Count,
    nzps: Count,
    axis: number,
    floatZeroPoints: boolean,
    dtype: DTypeCode,
    isa: IsaCode,
  ): Result<QTensorHandle>;
  _makePerTensor(
    bytes: Address,
    nbytes: Count,
    shape: number[],
    scale: number,
    zeroPoint: number,
    dtype: DTypeCode,
  ): Result<QTensorHandle>;
  /** A per-tensor QTensor whose integers are not set: the caller writes them through intReprView (depth streaming). */
  _emptyPerTensor(shape: number[], scale: number, zeroPoint: number, dtype: DTypeCode): Result<QTensorHandle>;
  _makePerChannel(
    bytes: Address,
    nbytes: Count,
    shape: number[],
    qparams: Address,
    nscales: Count,
    nzps: Count,
    axis: number,
    floatZeroPoints: boolean,
    dtype: DTypeCode,
  ): Result<QTensorHandle>;
  _view(q: QTensorHandle, shape: number[], axis: number): Result<QTensorHandle>;
  _withMemoryFormat(q: QTensorHandle, format: MemoryFormatCode): Result<QTensorHandle>;

  // observer_bindings.cpp
  _observerConfig(
    dtype: DTypeCode,
    qscheme: QSchemeCode,
    reduceRange: boolean,
    perChannel: boolean,
    hasCustomRange: boolean,
    quantMin: number,
    quantMax: number,
    eps: number,
    averaging: boolean,
    averagingConstant: number,
  ): Result<{ quantMin: number; quantMax: number }>;
  /** state: nstate running mins then nstate running maxes (nstate 0: nothing observed yet). */
  _observerObserve(
    x: Address,
    nbytes: Count,
    shape: number[],
    perChannel: boolean,
    chAxis: number,
    state: Address,
    nstate: Count,
    averaging: boolean,
    averagingConstant: number,
  ): Result<{ min: Float32Array<ArrayBuffer>; max: Float32Array<ArrayBuffer> }>;
  _observerCalculateQParams(
    state: Address,
    nstate: Count,
    dtype: DTypeCode,
    qscheme: QSchemeCode,
    quantMin: number,
    quantMax: number,
    customized: boolean,
    eps: number,
  ): Result<{ scale: Float32Array<ArrayBuffer>; zeroPoint: Float64Array<ArrayBuffer> }>;

  // histogram_bindings.cpp
  /** Returns the new state block (min, max, then `bins` counts). */
  _histogramObserve(x: Address, nbytes: Count, bins: number, state: Address): Result<Float32Array<ArrayBuffer>>;
  _histogramQParams(
    state: Address,
    bins: number,
    dtype: DTypeCode,
    qscheme: QSchemeCode,
    quantMin: number,
    quantMax: number,
    customized: boolean,
    eps: number,
  ): Result<{ scale: number; zeroPoint: number; min: number; max: number }>;

  // qops_bindings.cpp
  _qadd(a: QTensorHandle, b: QTensorHandle, scale: number, zeroPoint: number, relu: boolean): Result<QTensorHandle>;
  _qmul(a: QTensorHandle, b: QTensorHandle, scale: number, zeroPoint: number, relu: boolean): Result<QTensorHandle>;
  _qaddScalar(x: QTensorHandle, c: number, relu: boolean): Result<QTensorHandle>;
  _qmulScalar(x: QTensorHandle, c: number, relu: boolean): Result<QTensorHandle>;
  _qcat(tensors: QTensorHandle[], dim: number, scale: number, zeroPoint: number): Result<QTensorHandle>;
  _qclamp(x: QTensorHandle, hasMin: boolean, min: number, hasMax: boolean, max: number): Result<QTensorHandle>;

  // pool_bindings.cpp
  _qpool(x: QTensorHandle, kind: PoolKindCode, geometry: PoolGeometry, isa: IsaCode): Result<QTensorHandle>;
  _qadaptiveAvgPool(x: QTensorHandle, dims: number, outputSize: number[], isa: IsaCode): Result<QTensorHandle>;
  _fpool(x: Address, nbytes: Count, shape: number[], kind: PoolKindCode, geometry: PoolGeometry): Result<FloatResult>;
  _fadaptivePool(
    x: Address,
    nbytes: Count,
    shape: number[],
    kind: PoolKindCode,
    dims: number,
    outputSize: number[],
  ): Result<FloatResult>;

  // float_bindings.cpp (PyTorch's float32 formulas, torch_float.h)
  /** clamp of nbytes / 4 floats; an infinite bound is no bound. */
  _fclamp(x: Address, nbytes: Count, lo: number, hi: number): Result<Float32Array>;
  /** BatchNorm in eval mode; stats: [weight | bias | mean | var], numFeatures floats each. */
  _fbatchNorm(
    x: Address,
    nbytes: Count,
    shape: number[],
    stats: Address,
    statsBytes: Count,
    affine: boolean,
    eps: number,
  ): Result<Float32Array>;
  /** weight: the weight of wShape, then its bias (wShape[0] floats); stats as _fbatchNorm's. */
  _ffoldBatchNorm(
    weight: Address,
    nbytes: Count,
    wShape: number[],
    stats: Address,
    statsBytes: Count,
    eps: number,
    linear: boolean,
  ): Result<{ weight: Float32Array; bias: Float32Array }>;

  // norm_float_bindings.cpp (InstanceNorm, GroupNorm, LayerNorm in float32, norm_float.h)
  /** params: the present ones of [weight | bias | runningMean | runningVar], channels floats each. */
  _finstanceNorm(
    x: Address,
    nbytes: Count,
    rows: number,
    channels: number,
    inner: number,
    params: Address,
    paramsBytes: Count,
    hasWeight: boolean,
    hasBias: boolean,
    hasRunning: boolean,
    eps: number,
    isa: number,
  ): Result<Float32Array>;
  /** params: the present ones of [weight | bias], channels floats each. */
  _fgroupNorm(
    x: Address,
    nbytes: Count,
    batch: number,
    channels: number,
    spatial: number,
    groups: number,
    params: Address,
    paramsBytes: Count,
    hasWeight: boolean,
    hasBias: boolean,
    eps: number,
    isa: number,
  ): Result<Float32Array>;
  /** params: the present ones of [weight | bias], inner floats each. */
  _flayerNorm(
    x: Address,
    nbytes: Count,
    rows: number,
    inner: number,
    params: Address,
    paramsBytes: Count,
    hasWeight: boolean,
    hasBias: boolean,
    eps: number,
    isa: number,
  ): Result<Float32Array>;

  // The same norms as a PT2E graph's region dequantize -> norm -> [relu] -> quantize (norm_region.h):
  // a contiguous per-tensor quint8 QTensor in, the region's quantize's (scale, zeroPoint) out.
  _qinstanceNormRegion(
    x: QTensorHandle,
    rows: number,
    channels: number,
    inner: number,
    params: Address,
    paramsBytes: Count,
    hasWeight: boolean,
    hasBias: boolean,
    hasRunning: boolean,
    eps: number,
    relu: boolean,
    scale: number,
    zeroPoint: number,
    isa: number,
  ): Result<QTensorHandle>;
  _qgroupNormRegion(
    x: QTensorHandle,
    batch: number,
    channels: number,
    spatial: number,
    groups: number,
    params: Address,
    paramsBytes: Count,
    hasWeight: boolean,
    hasBias: boolean,
    eps: number,
    relu: boolean,
    scale: number,
    zeroPoint: number,
    isa: number,
  ): Result<QTensorHandle>;
  _qlayerNormRegion(
    x: QTensorHandle,
    rows: number,
    inner: number,
    params: Address,
    paramsBytes: Count,
    hasWeight: boolean,
    hasBias: boolean,
    eps: number,
    relu: boolean,
    scale: number,
    zeroPoint: number,
    isa: number,
  ): Result<QTensorHandle>;

  // interpolate_float_bindings.cpp (the generic linear interpolation kernel, interpolate_float.h)
  /** axes: per spatial axis, outSize[a] int32 i0, int32 i1, float l0, float l1. */
  _flinearInterpolate(
    x: Address,
    nbytes: Count,
    shape: number[],
    outSize: number[],
    axes: Address,
    axesBytes: Count,
  ): Result<Float32Array>;

  // conv_bindings.cpp
  /** Validates a geometry; returns the weight's element count. */
  _convWeightCount(geometry: ConvGeometry): Result<number>;
  _checkOutputQParams(scale: number, zeroPoint: number): Result<undefined>;
  _makeQConv(
    geometry: ConvGeometry,
    weight: QTensorHandle,
    bias: Address,
    biasCount: Count,
    hasBias: boolean,
    engine: EngineCode,
    winograd: WinogradCode,
    exactSums: boolean,
  ): Result<QConvHandle>;
  _makeFConv(
    geometry: ConvGeometry,
    weight: Address,
    weightCount: Count,
    bias: Address,
    biasCount: Count,
    hasBias: boolean,
  ): Result<FConvHandle>;

  // diagnostics_bindings.cpp
  /** Bytes malloc holds (live allocations, for the leak tests). */
  _heapInUse(): number;
  /** The most bytes malloc has held from the system at once (dlmalloc's max footprint): a high-water mark. */
  _heapHighWater(): number;
  /** The ISA 'auto' runs (never 'auto' itself). */
  _bestIsa(): IsaCode;
  _startThreads(n: number): Result<true>;
  _setNumThreads(n: number): Result<true>;
  _numThreads(): number;
  _maxThreads(): number;
}

/** The testing wasm (build/wasm/qwasm.testing.*): the package's functions plus testing_bindings.cpp. */
export interface TestingCore extends Core {
  /** The naive reference quantization of the float32 data at `x` with q's own qparams: q's integers (a copy). */
  _referenceQuantize(q: QTensorHandle, x: Address): Result<Uint8Array<ArrayBuffer>>;
  _referenceDequantize(q: QTensorHandle, y: Address): void;
  /** Fault injection: the n+1-th allocation from now fails (n < 0: none does). */
  _failAllocationsAfter(n: number): void;
  /** The norms' element loops (kernels/norm_rows.h) with the kernels of `isa`: affine_row's n floats. */
  _normAffineRow(isa: number, x: Address, n: number, scale: number, bias: number): Result<Float32Array>;
  /** welford8 over `vectors` vectors of 8 floats at x: m1[8] then m2[8]. */
  _normWelford8(isa: number, x: Address, vectors: number): Result<Float32Array>;
  _peakDot16(reps: number, pairs: number): number;
  /** The depthwise kernel's inner loop on L1-resident data, `reps` runs of 16 pixels; sat16: FBGEMM's saturating variant. */
  _peakDwconv(reps: number, sat16: boolean): number;
  _assertsEnabled(): boolean;
  /** The registered kernels by table: {quantize: [...], qconv: [...], ...}. */
  _kernelNames(): Record<string, string[]>;
  _lastLoopShares(): number[];
  _setFineGrainedTasks(on: boolean): void;
  /** Divides 1 by `divisor` as an int32: 0 traps (the trap guard's test, trap-guard.mjs). */
  _divideForTesting(divisor: number): number;
  /** bindings/codes.h's tables, {dtype: [[name, code], ...], ...}: what codes.mjs must equal. */
  _bridgeCodes(): Record<string, [string, number][]>;
  /** One failure of each kind the core reports, by the core's name for it (TypeError, ..., OutOfMemory). */
  _errorOfEveryKind(): Record<string, CoreError>;
}
