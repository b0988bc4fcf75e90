// A small seedable generator for the demo's synthetic data (mulberry32), and
// normal samples from it (Box-Muller): same seed, same tensor, in any browser
// and in Node (the browser tests rebuild the presets to compare).
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(next) {
  const u = Math.max(next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
}

/**
 * The Model view's synthetic clip: a blob circling through the frames, in a
 * little noise (the same bytes in every browser and in Node, where the tests
 * compare the page's numeric suite with the API's).
 */
export function syntheticClip(shape) {
  const [n, c, d, h, w] = shape;
  const data = new Float32Array(n * c * d * h * w);
  let seed = 7;
  const noise = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5) * 0.2;
  for (let b = 0; b < n * c; b++)
    for (let z = 0; z < d; z++) {
      const cy = h / 2 + (h / 4) * Math.sin(z / 3);
      const cx = w / 2 + (w / 4) * Math.cos(z / 3);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const r2 = ((y - cy) ** 2 + (x - cx) ** 2) / (h * w * 0.01);
          data[((b * d + z) * h + y) * w + x] = Math.exp(-r2) + noise();
        }
    }
  return { data, shape };
}
