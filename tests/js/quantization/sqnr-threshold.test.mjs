// The demo's automatic SQNR threshold (demo/stats.mjs worstQuarterThreshold):
// it marks the worst quarter of the layers, ceil(n / 4) of them, whatever
// the spread of their SQNRs (clustered within a fraction of a dB, as a
// model's layers often are, or spread over tens of dB).
import { worstQuarterThreshold } from '../../../demo/stats.mjs';

const marked = (values, t) => values.filter((v) => v < t).length;

test.each([
  ['spread over 20 dB', Array.from({ length: 30 }, (_, i) => 10 + ((i * 7919) % 20) + i / 100)],
  ['clustered within 0.3 dB', Array.from({ length: 30 }, (_, i) => 21.1 + ((i * 13) % 30) / 100)],
  ['clustered within 0.03 dB', Array.from({ length: 30 }, (_, i) => 18.4 + ((i * 7) % 30) / 1000)],
  ['with Infinity (a layer without error)', [...Array.from({ length: 11 }, (_, i) => 15 + i), Infinity]],
  ['four layers', [30, 12, 25, 19]],
])('%s: ceil(n / 4) layers are below it', (_, values) => {
  const finite = values.filter(Number.isFinite);
  const t = worstQuarterThreshold(values);
  expect(marked(finite, t)).toBe(Math.ceil(finite.length / 4));
  // A short number for the field: at most four decimals.
  expect(Number(t.toFixed(4))).toBe(t);
});

test('the roundest value in the gap: a whole dB when the gap holds one', () => {
  expect(worstQuarterThreshold([10.2, 14.7, 20, 22, 23, 24, 25, 26])).toBe(15);
  expect(worstQuarterThreshold([21.12, 21.18, 21.3, 21.4])).toBe(21.13);
});

test('one layer, none finite, ties', () => {
  expect(marked([17.3], worstQuarterThreshold([17.3]))).toBe(1);
  expect(worstQuarterThreshold([])).toBe(25);
  expect(worstQuarterThreshold([Infinity, Number.NaN])).toBe(25);
  // A tie at the boundary: no more than a quarter is marked (the tied ones are not).
  expect(marked([5, 5, 5, 5, 9, 9, 9, 9], worstQuarterThreshold([5, 5, 5, 5, 9, 9, 9, 9]))).toBe(0);
});
