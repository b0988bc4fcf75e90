// What each kind of node is charged against a model's maxWork, per element
// (or per multiply-add, per window element), in the unit of the quantized
// conv kernels' multiply-add. maxWork is documented as about 25 s of one
// thread, so every kind is charged by its measured time: a kind that runs
// 100 times slower per element than a conv multiply-add is charged 100 per
// element, and a small file cannot run for minutes on a small charge.
// bench/budget.bench.mjs re-measures every kind and writes the seconds each
// takes to spend the default maxWork to BENCHMARKS.md; docs/model-budget.md
// says how to change a rate. The op descriptors' costs (this folder) charge them.

export const WORK_PER_ELEMENT = Object.freeze({
  /** Quantized convolutions: per multiply-add (the unit). */
  quantizedMac: 1,
  /** Quantized linear layers: per multiply-add (a GEMM over few rows: about half the conv's rate). */
  quantizedLinearMac: 2,
  /** Float convolutions: per multiply-add. */
  floatMac: 4,
  /** Float linear layers: per multiply-add. */
  floatLinearMac: 6,
  /** Quantize (float in, integers out): per element. */
  quantizeElement: 512,
  /** Dequantize (integers in, a float tensor out): per element. */
  dequantizeElement: 384,
  /** Quantized element-wise ops (relu, add, mul, scalar ops, cat, a copy): per output element. */
  quantizedElement: 128,
  /** Float element-wise ops (relu, add, cat, BatchNorm): per output element. */
  floatElement: 640,
  /** Float activations computed in JS (sigmoid, tanh, silu, elu, gelu, softplus, mish, hardswish...): per element. */
  floatActivationElement: 4096,
  /** Quantized max and average pools: per window element read. */
  poolWindowElement: 48,
  /**
   * Quantized InstanceNorm, GroupNorm and LayerNorm (in JS: integer sums, then a fused multiply-add
   * emulated per element or per table entry): per element. Measured (bench/budget.bench.mjs): 40-90 ns
   * per element.
   */
  normElement: 2048,
  /**
   * Float InstanceNorm, GroupNorm and LayerNorm (in the core, src/qwasm/norm_float.cpp: Welford with
   * an exact fused multiply-add, the copies in and out of wasm memory included): per element.
   * Measured on 1.8-2.1M values, one thread: 4.4 (InstanceNorm) to 8.1 ns (LayerNorm) per element on
   * a quiet machine, 2.2-2.4x faster than the JS they replace; bench/budget.bench.mjs at this rate
   * gives 3.6-9.5 s (quiet; QuantizedConv 6.3 s there) or 11-18 s (a loaded machine; QuantizedConv 24 s).
   */
  floatNormElement: 640,
  /** Float max and average pools: per window element read. */
  floatPoolWindowElement: 200,
  /** Adaptive average pools: per window element read (an upsampling pool reads one or two per output). */
  adaptiveWindowElement: 256,
  /**
   * Float reductions in JavaScript (sum, mean, amax, amin, argmax; ops/reductions.mjs): per input element.
   * Measured on Node 20 over 3.2 M elements: 190 (an outer sum) to 790 (argmax); bench/budget.bench.mjs
   * does not measure it yet.
   */
  floatReduceElement: 1024,
  /** softmax / log_softmax in JavaScript (an exp per element): per element. Measured: 420 to 1360. */
  floatTranscendentalElement: 2048,
});
