// Pools, 1d / 2d / 3d, on float tensors and on QTensors (the quantized forms
// keep their input's qparams): MaxPool, AvgPool and AdaptiveAvgPool.

import { nn } from '../nn/index.mjs';
import { numel } from './abstract-values.mjs';
import { CONV_GEOMETRY, fail, readBool, readDims, readInt, readInts } from './format-readers.mjs';
import { sameKindOutput, split, windowOut } from './module-costs.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

const MAX_POOL = [null, nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d];
const AVG_POOL = [null, nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d];
const ADAPTIVE_AVG_POOL = [null, nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d];

// The options MaxPool and AvgPool both have.
function windowOptions(m, d, what) {
  return {
    stride: readInts(m.stride, `${what}.stride`, d, 1, CONV_GEOMETRY),
    padding: readInts(m.padding, `${what}.padding`, d, 0, CONV_GEOMETRY),
    ceilMode: readBool(m.ceil_mode, `${what}.ceil_mode`),
  };
}

const readKernel = (m, d, what) => readInts(m.kernel_size, `${what}.kernel_size`, d, 1, CONV_GEOMETRY);

// The planner's view of a MaxPool / AvgPool entry (an average pool's window is not dilated).
const poolInfo = (m) => ({
  dims: m.dims,
  kernel: m.kernel_size.slice(),
  stride: m.stride.slice(),
  padding: m.padding.slice(),
  dilation: Array(m.dims).fill(1),
  ceilMode: m.ceil_mode,
});

// PyTorch's pooling output size; work per window element read at the input kind's rate.
function poolCost(info, x) {
  const parts = split(x.shape, info.dims, true);
  if (parts === null) return null;
  const out = parts.spatial.map((s, i) =>
    windowOut(s, info.kernel[i], info.stride[i], info.padding[i], info.dilation[i], info.ceilMode),
  );
  if (out.some((o) => o < 1)) return null;
  const shape = [...parts.lead, ...out];
  const rate = x.kind === 'quantized' ? RATE.poolWindowElement : RATE.floatPoolWindowElement;
  return { shape, work: numel(shape) * numel(info.kernel) * rate, scratchBytes: 0 };
}

/** nn.MaxPool1d / 2d / 3d. */
export const maxPool = {
  modules: {
    MaxPool: {
      fields: ['dims', 'kernel_size', 'stride', 'padding', 'dilation', 'ceil_mode'],
      build(m, { what }) {
        const d = readDims(m, what);
        const options = windowOptions(m, d, what);
        options.dilation = readInts(m.dilation, `${what}.dilation`, d, 1, CONV_GEOMETRY);
        return new MAX_POOL[d](readKernel(m, d, what), options);
      },
      info: (m) => ({ ...poolInfo(m), dilation: m.dilation.slice() }),
      cost: poolCost,
      output: sameKindOutput,
    },
  },
};

/** nn.AvgPool1d / 2d / 3d. */
export const avgPool = {
  modules: {
    AvgPool: {
      fields: ['dims', 'kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad', 'divisor_override'],
      build(m, { what }) {
        const d = readDims(m, what);
        const options = windowOptions(m, d, what);
        options.countIncludePad = readBool(m.count_include_pad, `${what}.count_include_pad`);
        if (m.divisor_override !== null) {
          if (d === 1) fail(`${what}: AvgPool1d has no divisor_override`);
          options.divisorOverride = readInt(
            m.divisor_override,
            `${what}.divisor_override`,
            -CONV_GEOMETRY,
            CONV_GEOMETRY,
          );
        }
        return new AVG_POOL[d](readKernel(m, d, what), options);
      },
      info: poolInfo,
      cost: poolCost,
      output: sameKindOutput,
    },
  },
};

/** nn.AdaptiveAvgPool1d / 2d / 3d. */
export const adaptiveAvgPool = {
  modules: {
    AdaptiveAvgPool: {
      fields: ['dims', 'output_size'],
      build(m, { what }) {
        const d = readDims(m, what);
        const size = readInts(m.output_size, `${what}.output_size`, d, 1, CONV_GEOMETRY);
        return new ADAPTIVE_AVG_POOL[d](d === 1 ? size[0] : size);
      },
      info: (m) => ({ dims: m.dims, outputSize: m.output_size.slice() }),
      cost(info, x) {
        const parts = split(x.shape, info.dims, true);
        if (parts === null) return null;
        const shape = [...parts.lead, ...info.outputSize];
        // Each output's window spans at most ceil(in / out) + 1 inputs per
        // dimension (at least one: an upsampling pool reads one or two per output).
        const window = numel(parts.spatial.map((s, i) => Math.ceil(s / info.outputSize[i]) + 1));
        return { shape, work: numel(shape) * window * RATE.adaptiveWindowElement, scratchBytes: 0 };
      },
      output: sameKindOutput,
    },
  },
};
