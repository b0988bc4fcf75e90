// The nn namespace (torch.nn, torch.ao.nn.quantized, ...intrinsic): the modules.
import type {
  AdaptiveAvgPool,
  AdaptivePool,
  AvgPool,
  BatchNormModule,
  FloatConv,
  FloatModule,
  FusedModule,
  MaxPool,
  QuantizedConv,
  QuantizedModule,
} from './nn-bases.js';
import type {
  AvgPoolOptions,
  BatchNormOptions,
  ConvOptions,
  FromFloatOptions,
  LinearOptions,
  MaxPoolOptions,
  QuantizedConvOptions,
} from './nn-options.js';
import type { quantization } from './quantization.js';
import type { QDType, QTensor, Tensor } from './tensors.js';

/**
 * PyTorch's module namespaces: `torch.nn` (float modules), `nn.intrinsic`
 * (fused float modules), `nn.quantized` and `nn.intrinsic.quantized`
 * (`torch.ao.nn.quantized`, `torch.ao.nn.intrinsic.quantized`). Modules that
 * hold wasm memory (packed weights) are freed by {@link nn.Module.dispose}.
 */
export declare namespace nn {
  /**
   * `torch.nn.Module`: subclass it, assign child modules as properties in the
   * constructor (in the order PyTorch would register them), write forward().
   * A module's children are its own enumerable properties holding modules.
   * @example
   * ```ts
   * class Block extends nn.Module {
   *   quant = new quantization.QuantStub();
   *   conv = new nn.Conv3d(3, 8, 3, { padding: 1 });
   *   relu = new nn.ReLU();
   *   dequant = new quantization.DeQuantStub();
   *   forward(x: Tensor): Tensor {
   *     return this.dequant.forward(this.relu.forward(this.conv.forward(this.quant.forward(x))));
   *   }
   * }
   * const block = new Block().eval();
   * block.forward(tensor(new Float32Array(3 * 4 * 4 * 4), [1, 3, 4, 4, 4])).shape; // → [ 1, 8, 4, 4, 4 ]
   * ```
   */
  class Module {
    /** True in training mode (the default), false after eval(). */
    readonly training: boolean;
    /** Set before {@link quantization.prepare}: this module's QConfig (inherited by its children); null leaves it float. */
    qconfig?: quantization.QConfig | null;
    /** Training mode on this module and every descendant (`module.train(mode)`); default true. Returns this. */
    train(mode?: boolean): this;
    /** `module.eval()`: train(false). Returns this. */
    eval(): this;
    /** [name, module] of each direct child, in assignment order (`named_children()`). */
    namedChildren(): [string, Module][];
    /** Each direct child, in assignment order (`children()`). */
    children(): Module[];
    /**
     * [path, module] for this module (prefix, default '') and every descendant,
     * depth first, each module once (`named_modules()`: 'layer1.0.conv').
     * @throws TypeError when prefix is not a string, Error for a module that holds one of its ancestors.
     */
    namedModules(prefix?: string): [string, Module][];
    /** This module and every descendant, depth first (`modules()`). */
    modules(): Module[];
    /**
     * The descendant at a dotted path (`get_submodule('layer1.0.conv1')`); '' is this module.
     * @throws TypeError when target is not a string, Error naming the missing part.
     */
    getSubmodule(target: string): Module;
    /**
     * fn on every descendant, then this module (`apply(fn)`). Returns this.
     * @throws TypeError when fn is not a function.
     */
    apply(fn: (m: Module) => void): this;
    /**
     * The computation (subclasses define it).
     * @throws Error on nn.Module itself: a subclass defines forward.
     */
    forward(x: unknown): unknown;
    /** Frees the wasm memory of every descendant (packed weights). Idempotent. */
    dispose(): void;
  }

  /** `torch.nn.Sequential`: the modules run in order; children '0', '1', ... or the given names. */
  class Sequential extends Module {
    #private;
    /** @throws TypeError for an argument that is not an nn.Module. */
    constructor(...modules: Module[]);
    /** @throws TypeError for a name with '.', or one that would hide a property of Sequential. */
    constructor(modules: Record<string, Module> | Map<string, Module>);
    /** Number of child modules. */
    readonly length: number;
    /** The child at that position. */
    readonly [index: number]: Module;
    /** Each child's forward() on the previous one's output. */
    forward(x: unknown): unknown;
  }

  /** `torch.nn.Identity`: returns its input. */
  class Identity extends Module {
    #private;
    /** Returns x unchanged. */
    forward<T>(x: T): T;
  }

  /** `torch.nn.Flatten(start_dim=1, end_dim=-1)`: a float tensor shares its data; a QTensor gives a view (dispose it). */
  class Flatten extends Module {
    #private;
    /** @param startDim Default 1. @param endDim Default -1 (negative counts from the end). */
    constructor(startDim?: number, endDim?: number);
    /** The first dimension flattened. */
    readonly startDim: number;
    /** The last dimension flattened. */
    readonly endDim: number;
    /**
     * x with dimensions startDim..endDim merged; shares x's data.
     * @throws RangeError for dims out of range for x's rank, or startDim after endDim.
     */
    forward(x: Tensor): Tensor;
    /** A view of q (QTensor.view): a new QTensor over the same integers; dispose it. */
    forward<D extends QDType>(x: QTensor<D>): QTensor<D>;
  }

  /** `torch.nn.Dropout(p=0.5)`: the identity in eval mode; in training mode (float tensors) zeroes with probability p and scales by 1 / (1 - p). */
  class Dropout extends Module {
    #private;
    /**
     * @param p Probability of an element being zeroed, 0..1. Default 0.5.
     * @throws RangeError for p outside 0..1.
     */
    constructor(p?: number, options?: { inplace?: boolean });
    /** Probability of an element being zeroed. */
    readonly p: number;
    /** @throws Error on a QTensor in training mode (call eval()). */
    forward<T extends Tensor | QTensor>(x: T): T;
  }

  /** `torch.nn.BatchNorm1d` ([N, C] or [N, C, L]), eval mode. */
  class BatchNorm1d extends BatchNormModule {
    #private;
    /** @param numFeatures C, 1..2^24. @throws TypeError or RangeError for bad numFeatures or options. */
    constructor(numFeatures: number, options?: BatchNormOptions);
  }
  /** `torch.nn.BatchNorm2d` ([N, C, H, W]), eval mode. */
  class BatchNorm2d extends BatchNormModule {
    #private;
    /** @param numFeatures C, 1..2^24. @throws TypeError or RangeError for bad numFeatures or options. */
    constructor(numFeatures: number, options?: BatchNormOptions);
  }
  /** `torch.nn.BatchNorm3d` ([N, C, D, H, W]), eval mode. */
  class BatchNorm3d extends BatchNormModule {
    #private;
    /** @param numFeatures C, 1..2^24. @throws TypeError or RangeError for bad numFeatures or options. */
    constructor(numFeatures: number, options?: BatchNormOptions);
  }

  /** `torch.nn.Conv1d` (float32, WASM SIMD): input [N, C, L]. */
  class Conv1d extends FloatConv<[number]> {
    #private;
    /**
     * Weight and bias start as PyTorch's reset_parameters draws them,
     * uniform in ±1/sqrt(fan_in) (from Math.random: assign `weight` and
     * `bias`, or load a model, for values of your own).
     * @throws TypeError for arguments of the wrong type, RangeError for
     *   geometry out of range (groups not dividing the channels, 'same' with a stride).
     */
    constructor(inChannels: number, outChannels: number, kernelSize: number | [number], options?: ConvOptions);
  }
  /** `torch.nn.Conv2d` (float32, WASM SIMD): input [N, C, H, W]. */
  class Conv2d extends FloatConv<[number, number]> {
    #private;
    /** @throws As {@link nn.Conv1d}'s constructor. */
    constructor(inChannels: number, outChannels: number, kernelSize: number | [number, number], options?: ConvOptions);
  }
  /** `torch.nn.Conv3d` (float32, WASM SIMD): input [N, C, D, H, W]. */
  class Conv3d extends FloatConv<[number, number, number]> {
    #private;
    /** @throws As {@link nn.Conv1d}'s constructor. */
    constructor(
      inChannels: number,
      outChannels: number,
      kernelSize: number | [number, number, number],
      options?: ConvOptions,
    );
  }
  /** `torch.nn.Linear` (float32, WASM SIMD): y = x W^T + b over the last dimension. */
  class Linear extends FloatModule {
    #private;
    /** @throws TypeError or RangeError for feature counts that are not positive integers. */
    constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
    /** Input features (the last dimension of x). */
    readonly inFeatures: number;
    /** Output features. */
    readonly outFeatures: number;
  }
  /** `torch.nn.ReLU`: max(x, 0). */
  class ReLU extends Module {
    #private;
    /** max(x, 0) on a float tensor, keeping -0 as PyTorch does; a new JS-owned tensor. */
    forward(x: Tensor): Tensor;
    /** max(q, zeroPoint): PyTorch's quantized relu; the qparams stay. A new QTensor. */
    forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
  }

  /**
   * `torch.nn.ReLU6`: clamp to [0, 6]. On a quint8 QTensor the bounds are
   * quantized with its qparams, which stay (prepare() attaches no observer:
   * PyTorch attaches one, but its quantized ReLU6 ignores it).
   */
  class ReLU6 extends Hardtanh {
    constructor(options?: { inplace?: boolean });
  }
  /** `torch.nn.Hardtanh(min_val=-1, max_val=1)`: clamp; on a quint8 QTensor with its own qparams. */
  class Hardtanh extends Module {
    #private;
    /** @throws RangeError unless minVal < maxVal. */
    constructor(minVal?: number, maxVal?: number, options?: { inplace?: boolean });
    /** The lower bound (default -1). */
    readonly minVal: number;
    /** The upper bound (default 1). */
    readonly maxVal: number;
    /** clamp(x, minVal, maxVal); a new JS-owned tensor. */
    forward(x: Tensor): Tensor;
    /** The bounds quantized with x's qparams, which stay; a new QTensor. */
    forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
  }

  /** `torch.nn.MaxPool1d` ([N, C, L] or [C, L]). */
  class MaxPool1d extends MaxPool {
    /** @param kernelSize Window extent in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number], options?: MaxPoolOptions);
  }
  /** `torch.nn.MaxPool2d` ([N, C, H, W] or [C, H, W]). */
  class MaxPool2d extends MaxPool {
    /** @param kernelSize Window extents in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number, number], options?: MaxPoolOptions);
  }
  /** `torch.nn.MaxPool3d` ([N, C, D, H, W]; float also [C, D, H, W]). */
  class MaxPool3d extends MaxPool {
    /** @param kernelSize Window extents in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number, number, number], options?: MaxPoolOptions);
  }
  /** `torch.nn.AvgPool1d` ([N, C, L] or [C, L]). */
  class AvgPool1d extends AvgPool {
    /** @param kernelSize Window extent in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number], options?: Omit<AvgPoolOptions, 'divisorOverride'>);
  }
  /** `torch.nn.AvgPool2d` ([N, C, H, W] or [C, H, W]). */
  class AvgPool2d extends AvgPool {
    /** @param kernelSize Window extents in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number, number], options?: AvgPoolOptions);
  }
  /** `torch.nn.AvgPool3d` ([N, C, D, H, W]; float also [C, D, H, W]). */
  class AvgPool3d extends AvgPool {
    /** @param kernelSize Window extents in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number, number, number], options?: AvgPoolOptions);
  }
  /** `torch.nn.AdaptiveAvgPool1d(output_size)`. */
  class AdaptiveAvgPool1d extends AdaptiveAvgPool {
    /** @param outputSize The output length in elements, or null to keep the input's. */
    constructor(outputSize: number | [number | null]);
  }
  /** `torch.nn.AdaptiveAvgPool2d(output_size)`; null keeps that input size. */
  class AdaptiveAvgPool2d extends AdaptiveAvgPool {
    /** @param outputSize The output's [H, W] in elements (one number for both). */
    constructor(outputSize: number | [number | null, number | null]);
  }
  /** `torch.nn.AdaptiveAvgPool3d(output_size)`; null keeps that input size. */
  class AdaptiveAvgPool3d extends AdaptiveAvgPool {
    /** @param outputSize The output's [D, H, W] in elements (one number for all). */
    constructor(outputSize: number | [number | null, number | null, number | null]);
  }
  /** `torch.nn.AdaptiveMaxPool1d`: float tensors only (PyTorch has no quantized kernel; a QTensor is a TypeError). */
  class AdaptiveMaxPool1d extends AdaptivePool {
    /** @param outputSize The output length in elements, or null to keep the input's. */
    constructor(outputSize: number | [number | null]);
    /** @returns A new JS-owned tensor. @throws TypeError for a QTensor. */
    forward(x: Tensor): Tensor;
  }
  /** `torch.nn.AdaptiveMaxPool2d`: float tensors only. */
  class AdaptiveMaxPool2d extends AdaptivePool {
    /** @param outputSize The output's [H, W] in elements (one number for both). */
    constructor(outputSize: number | [number | null, number | null]);
    /** @returns A new JS-owned tensor. @throws TypeError for a QTensor. */
    forward(x: Tensor): Tensor;
  }
  /** `torch.nn.AdaptiveMaxPool3d`: float tensors only. */
  class AdaptiveMaxPool3d extends AdaptivePool {
    /** @param outputSize The output's [D, H, W] in elements (one number for all). */
    constructor(outputSize: number | [number | null, number | null, number | null]);
    /** @returns A new JS-owned tensor. @throws TypeError for a QTensor. */
    forward(x: Tensor): Tensor;
  }

  /**
   * `torch.ao.nn.intrinsic`: fused float modules (the module then ReLU, in
   * one kernel pass). {@link quantization.fuseModules} makes them;
   * {@link quantization.convert} turns them into nn.intrinsic.quantized's.
   */
  namespace intrinsic {
    /** `torch.ao.nn.intrinsic.ConvReLU1d`: conv then ReLU. */
    class ConvReLU1d extends FusedModule<nn.Conv1d> {
      #private;
      /** @throws TypeError when conv is not an nn.Conv1d or relu not an nn.ReLU. */
      constructor(conv: nn.Conv1d, relu?: nn.ReLU);
    }
    /** `torch.ao.nn.intrinsic.ConvReLU2d`: conv then ReLU. */
    class ConvReLU2d extends FusedModule<nn.Conv2d> {
      #private;
      /** @throws TypeError when conv is not an nn.Conv2d or relu not an nn.ReLU. */
      constructor(conv: nn.Conv2d, relu?: nn.ReLU);
    }
    /** `torch.ao.nn.intrinsic.ConvReLU3d`: conv then ReLU. */
    class ConvReLU3d extends FusedModule<nn.Conv3d> {
      #private;
      /** @throws TypeError when conv is not an nn.Conv3d or relu not an nn.ReLU. */
      constructor(conv: nn.Conv3d, relu?: nn.ReLU);
    }
    /** `torch.ao.nn.intrinsic.LinearReLU`: linear then ReLU. */
    class LinearReLU extends FusedModule<nn.Linear> {
      #private;
      /** @throws TypeError when linear is not an nn.Linear or relu not an nn.ReLU. */
      constructor(linear: nn.Linear, relu?: nn.ReLU);
    }

    /** `torch.ao.nn.intrinsic.quantized`: quint8 in, qint8 weights packed once, ReLU fused, quint8 out. */
    namespace quantized {
      /** `torch.ao.nn.intrinsic.quantized.ConvReLU1d`: input [N, C, L]. */
      class ConvReLU1d extends QuantizedConv<[number]> {
        #private;
        /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
        constructor(
          inChannels: number,
          outChannels: number,
          kernelSize: number | [number],
          options?: QuantizedConvOptions,
        );
        /**
         * PyTorch's `from_float`: quantizes a calibrated nn.intrinsic.ConvReLU1d.
         * @throws As {@link nn.quantized.Conv3d.fromFloat}.
         */
        static fromFloat(mod: nn.intrinsic.ConvReLU1d, options: FromFloatOptions): ConvReLU1d;
      }
      /** `torch.ao.nn.intrinsic.quantized.ConvReLU2d`: input [N, C, H, W]. */
      class ConvReLU2d extends QuantizedConv<[number, number]> {
        #private;
        /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
        constructor(
          inChannels: number,
          outChannels: number,
          kernelSize: number | [number, number],
          options?: QuantizedConvOptions,
        );
        /**
         * PyTorch's `from_float`: quantizes a calibrated nn.intrinsic.ConvReLU2d.
         * @throws As {@link nn.quantized.Conv3d.fromFloat}.
         */
        static fromFloat(mod: nn.intrinsic.ConvReLU2d, options: FromFloatOptions): ConvReLU2d;
      }
      /**
       * `torch.ao.nn.intrinsic.quantized.ConvReLU3d`: the quantized 3-D
       * convolution with ReLU fused, input [N, C, D, H, W].
       * @example
       * ```ts
       * await init();
       * const conv = new nn.intrinsic.quantized.ConvReLU3d(3, 8, 3, { padding: 1 });
       * const weights = Float32Array.from({ length: 8 * 3 * 27 }, (_, i) => ((i % 7) - 3) / 30); // in [-0.1, 0.1]
       * const scales = new Array(8).fill(0.1 / 127); // per output channel: its largest |weight| / 127
       * const w = quantizePerChannel(tensor(weights, [8, 3, 3, 3, 3]), scales, new Int32Array(8), 0, 'qint8');
       * conv.setWeightBias(w, new Float32Array(8)); // copied: w is still yours
       * w.dispose();
       * conv.scale = 0.05; // the output's qparams
       * conv.zeroPoint = 0;
       * const clip = Float32Array.from({ length: 3 * 8 * 16 * 16 }, (_, i) => Math.sin(i)); // [N, C, T, H, W]
       * const x = quantizePerTensor(tensor(clip, [1, 3, 8, 16, 16]), 0.02, 128, 'quint8');
       * const y = conv.forward(x);
       * y.shape;    // → [ 1, 8, 8, 16, 16 ]
       * // Channels-last strides, as PyTorch's quantized conv returns:
       * y.stride(); // → [ 16384, 1, 2048, 128, 8 ]
       * x.dispose();
       * y.dispose();
       * conv.dispose();
       * ```
       */
      class ConvReLU3d extends QuantizedConv<[number, number, number]> {
        #private;
        /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
        constructor(
          inChannels: number,
          outChannels: number,
          kernelSize: number | [number, number, number],
          options?: QuantizedConvOptions,
        );
        /**
         * PyTorch's `from_float`: quantizes a calibrated nn.intrinsic.ConvReLU3d.
         * @throws As {@link nn.quantized.Conv3d.fromFloat}.
         */
        static fromFloat(mod: nn.intrinsic.ConvReLU3d, options: FromFloatOptions): ConvReLU3d;
      }
      /** `torch.ao.nn.intrinsic.quantized.LinearReLU`: input [..., inFeatures]. */
      class LinearReLU extends QuantizedModule {
        #private;
        /** @throws As {@link nn.quantized.Linear}'s constructor. */
        constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
        /** Input features (the last dimension of x). */
        readonly inFeatures: number;
        /** Output features. */
        readonly outFeatures: number;
        /**
         * PyTorch's `from_float`: quantizes a calibrated nn.intrinsic.LinearReLU.
         * @throws As {@link nn.quantized.Conv3d.fromFloat}.
         */
        static fromFloat(mod: nn.intrinsic.LinearReLU, options: FromFloatOptions): LinearReLU;
      }
    }
  }

  /** `torch.ao.nn.quantized`: quint8 in, qint8 weights packed once, quint8 out. */
  namespace quantized {
    /**
     * PyTorch's quantized element-wise ops on quint8 per-tensor QTensors
     * (`torch.ops.quantized.add` etc.), with PyTorch's integers: the output of
     * add / mul / cat is requantized to (scale, zeroPoint); the others keep
     * or derive their qparams as PyTorch does. add and mul broadcast. Each
     * returns a new QTensor the caller disposes, and throws a TypeError for
     * an input that is not a quint8 per_tensor_affine QTensor, a RangeError
     * for qparams out of range or shapes that do not broadcast, an Error for
     * a disposed input.
     */
    namespace functional {
      /** `torch.ops.quantized.add(a, b, scale, zero_point)`: a + b requantized to (scale, zeroPoint). */
      function add(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.add_relu`: relu(a + b) requantized to (scale, zeroPoint). */
      function addRelu(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul`: a * b requantized to (scale, zeroPoint). */
      function mul(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul_relu`: relu(a * b) requantized to (scale, zeroPoint). */
      function mulRelu(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.add_scalar`: the same integers with the zero point shifted by round(c / scale) (requantized only if it leaves 0..255). */
      function addScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul_scalar`: the same integers with the scale times |c| (c < 0 mirrors them; c = 0 gives zeros, scale 1). */
      function mulScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.cat`: concatenation along dim (negative counts from the end), every input requantized to (scale, zeroPoint); 1..4096 tensors. */
      function cat(tensors: QTensor<'quint8'>[], dim: number, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.relu` on a quantized tensor: max(q, zeroPoint), the qparams kept. */
      function relu(x: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ao.nn.quantized.functional.relu6` (`torch.ops.quantized.relu6`): clamp to [0, 6] quantized with x's qparams, which stay. */
      function relu6(x: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ao.nn.quantized.functional.hardtanh(x, min_val=-1, max_val=1)`: the bounds quantized with x's qparams, which stay. */
      function hardtanh(x: QTensor<'quint8'>, minVal?: number, maxVal?: number): QTensor<'quint8'>;
      /** `torch.ao.nn.quantized.functional.clamp(x, min, max)`: either bound may be undefined; x's qparams stay. */
      function clamp(x: QTensor<'quint8'>, min?: number, max?: number): QTensor<'quint8'>;
    }

    /**
     * `torch.ao.nn.quantized.FloatFunctional`: the float arithmetic a model's
     * forward() writes (skip connections, concatenations), as a module so
     * that prepare() can observe its results and convert() make it a
     * QFunctional. Float tensors broadcast. Each method returns a new
     * JS-owned tensor; shapes that do not broadcast are a RangeError.
     */
    class FloatFunctional extends Module {
      /** The observer prepare() installed (PyTorch's activation_post_process), or null. */
      activationPostProcess: quantization.Observer | null;
      /** x + y (observed). */
      add(x: Tensor, y: Tensor): Tensor;
      /** relu(x + y) (observed). */
      addRelu(x: Tensor, y: Tensor): Tensor;
      /** x * y (observed). */
      mul(x: Tensor, y: Tensor): Tensor;
      /** Concatenation along dim (default 0; negative counts from the end), observed. */
      cat(tensors: Tensor[], dim?: number): Tensor;
      /** x + c. Not observed (as in PyTorch). */
      addScalar(x: Tensor, c: number): Tensor;
      /** x * c. Not observed (as in PyTorch). */
      mulScalar(x: Tensor, c: number): Tensor;
      /** @throws Error: use the methods. */
      forward(): never;
    }

    /**
     * `torch.ao.nn.quantized.QFunctional`: FloatFunctional after convert(),
     * with its observer's qparams. The methods are
     * {@link nn.quantized.functional}'s with this module's scale and zero point.
     */
    class QFunctional extends Module {
      #private;
      /** Output scale (> 0). */
      scale: number;
      /** Output zero point (0..255). */
      zeroPoint: number;
      /** `torch.ops.quantized.add` with this module's qparams. */
      add(x: QTensor<'quint8'>, y: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ops.quantized.add_relu` with this module's qparams. */
      addRelu(x: QTensor<'quint8'>, y: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul` with this module's qparams. */
      mul(x: QTensor<'quint8'>, y: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ops.quantized.cat` along dim (default 0) with this module's qparams. */
      cat(tensors: QTensor<'quint8'>[], dim?: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.add_scalar` (keeps or derives its qparams). */
      addScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul_scalar` (keeps or derives its qparams). */
      mulScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** @throws Error: use the methods. */
      forward(): never;
      /**
       * PyTorch's `QFunctional.from_float`: the qparams of mod's observer
       * (scale 1, zero point 0 when it has none).
       * @throws TypeError when mod is not a FloatFunctional.
       */
      static fromFloat(mod: FloatFunctional): QFunctional;
    }

    /** `torch.ao.nn.quantized.Quantize`: forward(x) = quantizePerTensor(x, scale, zeroPoint, dtype). convert() makes it from a QuantStub. */
    class Quantize extends Module {
      #private;
      /**
       * @param dtype Default 'quint8'.
       * @throws As {@link quantizePerTensor} for the qparams and dtype.
       */
      constructor(scale: number, zeroPoint: number, dtype?: QDType);
      /** The output scale. */
      readonly scale: number;
      /** The output zero point. */
      readonly zeroPoint: number;
      /** The output dtype. */
      readonly dtype: QDType;
      /** {@link quantizePerTensor}(x, scale, zeroPoint, dtype): a new QTensor the caller disposes. */
      forward(x: Tensor): QTensor;
    }
    /** `torch.ao.nn.quantized.DeQuantize`: forward(q) = q.dequantize(). convert() makes it from a DeQuantStub. */
    class DeQuantize extends Module {
      #private;
      /** q.dequantize(): a new JS-owned tensor (q is not disposed). */
      forward(q: QTensor): Tensor;
    }
    /** `torch.ao.nn.quantized.Conv1d`: input [N, C, L]. */
    class Conv1d extends QuantizedConv<[number]> {
      #private;
      /**
       * The weight starts as PyTorch's: all-zero qint8 (scale 1, zero point
       * 0), zero bias; set it with setWeightBias or make the module with fromFloat.
       * @throws TypeError for arguments of the wrong type, RangeError for
       *   geometry out of range (groups not dividing the channels, 'same'
       *   with a stride), Error before {@link init}.
       */
      constructor(
        inChannels: number,
        outChannels: number,
        kernelSize: number | [number],
        options?: QuantizedConvOptions,
      );
      /**
       * PyTorch's `from_float`: quantizes a calibrated nn.Conv1d.
       * @throws As {@link nn.quantized.Conv3d.fromFloat}.
       */
      static fromFloat(mod: nn.Conv1d, options: FromFloatOptions): Conv1d;
    }
    /** `torch.ao.nn.quantized.Conv2d`: input [N, C, H, W]. */
    class Conv2d extends QuantizedConv<[number, number]> {
      #private;
      /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
      constructor(
        inChannels: number,
        outChannels: number,
        kernelSize: number | [number, number],
        options?: QuantizedConvOptions,
      );
      /**
       * PyTorch's `from_float`: quantizes a calibrated nn.Conv2d.
       * @throws As {@link nn.quantized.Conv3d.fromFloat}.
       */
      static fromFloat(mod: nn.Conv2d, options: FromFloatOptions): Conv2d;
    }
    /** `torch.ao.nn.quantized.Conv3d`: input [N, C, D, H, W]. */
    class Conv3d extends QuantizedConv<[number, number, number]> {
      #private;
      /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
      constructor(
        inChannels: number,
        outChannels: number,
        kernelSize: number | [number, number, number],
        options?: QuantizedConvOptions,
      );
      /**
       * PyTorch's `from_float`: quantizes a calibrated nn.Conv3d's weight with
       * options.weightObserver and takes the output qparams from
       * options.activationObserver or outputScale / outputZeroPoint.
       * @throws TypeError when mod is not an nn.Conv3d, for an observer that
       *   is not qint8 (weight) or per tensor (activation), or for both kinds
       *   of output qparams; Error when neither is given; RangeError for
       *   output qparams out of range.
       * @example
       * ```ts
       * const float = new nn.Conv3d(2, 4, 3, { padding: 1, bias: false });
       * float.weight = tensor(Float32Array.from({ length: 4 * 2 * 27 }, (_, i) => Math.sin(i) / 10), [4, 2, 3, 3, 3]);
       * const act = new quantization.HistogramObserver({ reduceRange: true });
       * act.observe(float.forward(tensor(Float32Array.from({ length: 2 * 4 * 4 * 4 }, (_, i) => Math.cos(i)), [1, 2, 4, 4, 4])));
       * const q = nn.quantized.Conv3d.fromFloat(float, { activationObserver: act });
       * q.scale; // → 0.023098010569810867
       * ```
       */
      static fromFloat(mod: nn.Conv3d, options: FromFloatOptions): Conv3d;
    }
    /** `torch.ao.nn.quantized.Linear`: input [..., inFeatures]. */
    class Linear extends QuantizedModule {
      #private;
      /**
       * The weight starts all-zero (scale 1, zero point 0), as PyTorch's.
       * @throws TypeError or RangeError for feature counts that are not positive integers, Error before {@link init}.
       */
      constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
      /** Input features (the last dimension of x). */
      readonly inFeatures: number;
      /** Output features. */
      readonly outFeatures: number;
      /**
       * PyTorch's `from_float`: quantizes a calibrated nn.Linear.
       * @throws As {@link nn.quantized.Conv3d.fromFloat}.
       */
      static fromFloat(mod: nn.Linear, options: FromFloatOptions): Linear;
    }
  }
}

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
