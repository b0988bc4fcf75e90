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
