// The committed test clip (tests/golden/clip.webm, described by clip.json):
// each of its frames carries a grey marker patch whose level encodes the
// frame's index, so a test can tell which frame a browser decoded.
import { readFileSync } from 'node:fs';

export const CLIP = JSON.parse(readFileSync(new URL('../golden/clip.json', import.meta.url), 'utf8'));

/** Which clip frame an RGBA frame is: its marker's mean level, read from the patch's inner part (away from codec edges). */
export function markerIndex({ data, width }) {
  const { size, base, step } = CLIP.marker;
  let sum = 0;
  let n = 0;
  for (let y = 4; y < size - 4; y++)
    for (let x = 4; x < size - 4; x++) for (let c = 0; c < 3; c++, n++) sum += data[(y * width + x) * 4 + c];
  return Math.round((sum / n - base) / step);
}
