// Per-channel quantization error, pure JavaScript (shared by the page and the
// browser tests): SQNR = 10 log10(sum x^2 / sum (x - x_hat)^2) in dB, and the
// largest |x - x_hat|, for each index of `axis`.

/** Calls f(channel, flatIndex) for every element, channel = index along axis. */
function forEachChannel(shape, axis, f) {
  const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const channels = shape[axis];
  const n = shape.reduce((a, b) => a * b, 1);
  for (let i = 0; i < n; i++) f(Math.floor(i / inner) % channels, i);
}

export function channelErrors(x, xHat, shape, axis) {
  const channels = shape[axis];
  const signal = new Float64Array(channels);
  const noise = new Float64Array(channels);
  const maxAbs = new Float64Array(channels);
  forEachChannel(shape, axis, (c, i) => {
    const e = x[i] - xHat[i];
    signal[c] += x[i] * x[i];
    noise[c] += e * e;
    maxAbs[c] = Math.max(maxAbs[c], Math.abs(e));
  });
  const sqnr = Array.from(signal, (s, c) => (noise[c] === 0 ? Infinity : 10 * Math.log10(s / noise[c])));
  return { sqnr, maxAbs: Array.from(maxAbs) };
}

/** The values of one channel along `axis`. */
export function channelValues(x, shape, axis, channel) {
  const out = [];
  forEachChannel(shape, axis, (c, i) => {
    if (c === channel) out.push(x[i]);
  });
  return Float32Array.from(out);
}

/** {edges, counts} of `bins` equal bins over [min, max] of the values. */
export function histogram(values, bins) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (!(hi > lo)) hi = lo + 1;
  const counts = new Array(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor(((v - lo) / (hi - lo)) * bins))] += 1;
  const edges = Array.from({ length: bins + 1 }, (_, i) => lo + ((hi - lo) * i) / bins);
  return { edges, counts, lo, hi };
}

/**
 * The SQNR threshold (dB) that marks the worst quarter of `values`: the
 * ceil(n / 4) lowest are below it (`value < threshold`), the rest not, unless
 * they tie. The roundest number in that gap (a whole dB, then 0.5, 0.1,
 * 0.01...), so that the field shows a short value. 25 when none is finite.
 */
export function worstQuarterThreshold(values) {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return 25;
  const k = Math.ceil(finite.length / 4); // how many to mark
  const low = finite[k - 1];
  if (k === finite.length) return Math.floor(low) + 1; // all of them: just above the largest
  const high = finite[k];
  if (high === low) return high; // a tie at the boundary: mark those strictly below it
  for (const step of [1, 0.5, 0.1, 0.01, 0.001, 0.0001]) {
    const rounded = Number((Math.floor(low / step + 1) * step).toFixed(4));
    if (rounded > low && rounded <= high) return rounded;
  }
  return (low + high) / 2;
}
