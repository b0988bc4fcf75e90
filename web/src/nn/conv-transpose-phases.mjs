// The polyphase decomposition of a transposed convolution along one axis
// (docs/numerics.md, "Transposed convolution, int8"). Output index
// o = stride * q + phi takes input i through tap k exactly when
// o = i * stride - padding + k * dilation, so only the taps with
// (k * dilation - padding - phi) divisible by the stride reach phase phi.
// Those taps are k0, k0 + step, k0 + 2 step, ... (step = stride / gcd) and
// read inputs q - c, q - c - D, q - c - 2 D, ... (D = dilation / gcd,
// c = (k0 * dilation - padding - phi) / stride): a stride-1 conv of
// dilation D with the sub-kernel flipped, over the input padded by
// c + (n - 1) D before it. Each tap belongs to exactly one phase, so the
// sub-kernels partition the kernel.

const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));
const mod = (a, m) => ((a % m) + m) % m;

/**
 * The phases of one axis that hold taps (ascending phi): each {phi, taps, dilation, offset}, taps in the
 * inner conv's order (the sub-kernel flipped: the last tap first). Every value stays below 2^53: the
 * caller bounds dilation * (kernel - 1) (conv-transpose.mjs's build).
 */
export function axisPhases(kernel, stride, padding, dilation) {
  const g = gcd(stride, dilation);
  const byPhase = new Map();
  // k * dilation - padding modulo the stride, one tap at a time (no product grows past the reach).
  const advance = dilation % stride;
  let r = mod(-padding, stride);
  for (let k = 0; k < kernel; k++) {
    const taps = byPhase.get(r);
    if (taps) taps.push(k);
    else byPhase.set(r, [k]);
    r = (r + advance) % stride;
  }
  return [...byPhase]
    .sort((a, b) => a[0] - b[0])
    .map(([phi, taps]) => ({
      phi,
      offset: (taps[0] * dilation - padding - phi) / stride, // exact: taps[0] * dilation - padding - phi = 0 mod stride
      taps: taps.slice().reverse(),
      dilation: dilation / g,
    }));
}

/**
 * A phase's extent for an output of `outSize` along its axis: q outputs (phi,
 * phi + stride, ... below outSize), the padded input's `before` (< 0: cropped) and `extent` (its length).
 */
export function phaseExtent(phase, stride, outSize) {
  const q = phase.phi < outSize ? Math.floor((outSize - phase.phi + stride - 1) / stride) : 0;
  const reach = (phase.taps.length - 1) * phase.dilation;
  return { q, before: phase.offset + reach, extent: q + reach };
}

/** Every combination of one entry per list (the last list varying fastest). */
export function product(lists) {
  return lists.reduce((acc, list) => acc.flatMap((head) => list.map((v) => [...head, v])), [[]]);
}

/**
 * The one padded input all phases of an axis read (the union of the windows of the phases with outputs, so
 * that a layer pads its input once) for an output of `outSize`: its `before` (< 0: cropped) and `extent`,
 * and per phase (in `phases`' order) {q, shift, outputs}: a conv of the phase's sub-kernel computes
 * `outputs` over the box (0 when it does not fit), of which shift .. shift + q - 1 are the phase's q outputs
 * (q 0: a phase with none; extent 0 when no phase has any).
 */
export function axisBox(phases, stride, outSize) {
  const ext = phases.map((p) => phaseExtent(p, stride, outSize));
  const used = ext.filter((e) => e.q > 0);
  const before = used.length === 0 ? 0 : used.reduce((m, e) => Math.max(m, e.before), -Infinity);
  const extent = used.reduce((m, e) => Math.max(m, before - e.before + e.extent), 0);
  return {
    before,
    extent,
    phases: ext.map((e, i) => ({
      q: e.q,
      shift: before - e.before,
      outputs: Math.max(0, extent - (phases[i].taps.length - 1) * phases[i].dilation),
    })),
  };
}

// The quantized conv kernels' tile of output channels (the GEMM's `4x8c2`: 8 channels a step): a conv of c
// output channels costs about ceil(c / 8) * 8 / c times its multiply-adds.
const CHANNEL_TILE = 8;
const tileCost = (channels) => (Math.ceil(channels / CHANNEL_TILE) * CHANNEL_TILE) / channels;

/**
 * A layer's phases per axis, as its convs compute them. The phases whose sub-kernels have one shape run as
 * one conv (conv-transpose.mjs's build stacks them). A layer with few output channels per group wastes most
 * of each kernel step on such convs; when the estimate says it is cheaper, its phases' sub-kernels are padded
 * to the longest of their axis, the padding taps first in the inner conv's order (tap -1, whose weight is the
 * weight zero point, so each adds 0 to every sum), and all phases run as one conv of more multiply-adds. A
 * phase so padded reads as one of that many taps (its first real tap at the same input: phaseExtent's
 * `before` counts the padding), so the rest of the decomposition is unchanged. The estimate, per output
 * position of every phase: the taps of each conv times its tileCost.
 */
export function layerPhases(kernel, stride, padding, dilation, outChannelsPerGroup) {
  const axes = kernel.map((k, i) => axisPhases(k, stride[i], padding[i], dilation[i]));
  if (outChannelsPerGroup >= CHANNEL_TILE) return axes;
  const shapes = new Map(); // sub-kernel shape -> [taps, phases]
  for (const combo of product(axes)) {
    const key = combo.map((p) => p.taps.length).join(',');
    const taps = combo.reduce((n, p) => n * p.taps.length, 1);
    shapes.set(key, [taps, (shapes.get(key)?.[1] ?? 0) + 1]);
  }
  const phases = [...shapes.values()].reduce((n, [, count]) => n + count, 0);
  const separate = [...shapes.values()].reduce(
    (cost, [taps, count]) => cost + count * taps * tileCost(count * outChannelsPerGroup),
    0,
  );
  const longest = axes.map((list) => list.reduce((n, p) => Math.max(n, p.taps.length), 0));
  const padded = phases * longest.reduce((a, b) => a * b, 1) * tileCost(phases * outChannelsPerGroup);
  if (padded >= separate) return axes;
  return axes.map((list, j) =>
    list.map((p) => ({ ...p, taps: [...new Array(longest[j] - p.taps.length).fill(-1), ...p.taps] })),
  );
}
