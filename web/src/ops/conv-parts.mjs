// What conv.mjs and conv-transpose.mjs both need, kept here rather than
// exported from either (every export of a family file is an op descriptor,
// registry.mjs): the quantized conv classes by dims, and the channel and group
// checks of an entry.

import { nn } from '../nn/index.mjs';
import { CONV_GEOMETRY, fail, readInt } from './format-readers.mjs';

/** nn.quantized.Conv1d / 2d / 3d, indexed by dims. */
export const QCONV = [null, nn.quantized.Conv1d, nn.quantized.Conv2d, nn.quantized.Conv3d];

/** nn.intrinsic.quantized.ConvReLU1d / 2d / 3d, indexed by dims. */
export const QCONV_RELU = [
  null,
  nn.intrinsic.quantized.ConvReLU1d,
  nn.intrinsic.quantized.ConvReLU2d,
  nn.intrinsic.quantized.ConvReLU3d,
];

/** An entry's in_channels, out_channels and groups, each channel count a multiple of groups. */
export function readConvChannels(m, what) {
  const inChannels = readInt(m.in_channels, `${what}.in_channels`, 1, CONV_GEOMETRY);
  const outChannels = readInt(m.out_channels, `${what}.out_channels`, 1, CONV_GEOMETRY);
  const groups = readInt(m.groups, `${what}.groups`, 1, CONV_GEOMETRY);
  if (inChannels % groups !== 0 || outChannels % groups !== 0) {
    fail(`${what}: in_channels ${inChannels} and out_channels ${outChannels} must be multiples of groups ${groups}`);
  }
  return { inChannels, outChannels, groups };
}
