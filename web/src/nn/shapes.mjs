// PyTorch's shape rules for the ops that only change a shape: flatten, and
// view / reshape. These are shape arithmetic on a handful of numbers, with no
// float data touched (a float tensor's output shares its data; a QTensor's is
// a view), so they stay in JavaScript, once: nn.Flatten, a loaded graph's
// flatten / reshape and the graph's planner all use them
// (docs/architecture.md, "Float arithmetic").

const numel = (shape) => shape.reduce((a, b) => a * b, 1);

/** torch.flatten's dims as indices [start, end] for a tensor of `rank` (a scalar counts as rank 1), or null when out of range. */
export function flattenRange(rank, start, end) {
  const r = Math.max(rank, 1);
  const s = start < 0 ? start + r : start;
  const e = end < 0 ? end + r : end;
  if (!Number.isSafeInteger(s) || !Number.isSafeInteger(e) || s < 0 || s >= r || e < 0 || e >= r) return null;
  return [s, e];
}

/** The output of torch.flatten(x, start, end) on a tensor of `shape`, or null when the dims are out of range or out of order. */
export function flattenShape(shape, start, end) {
  const range = flattenRange(shape.length, start, end);
  if (range === null || range[0] > range[1]) return null;
  const [s, e] = range;
  if (shape.length === 0) return [1];
  return [...shape.slice(0, s), numel(shape.slice(s, e + 1)), ...shape.slice(e + 1)];
}

/** The output of view / reshape to `dims` (at most one -1, inferred), or null when PyTorch would refuse it. */
export function reshapeShape(shape, dims, maxRank) {
  if (dims.length > maxRank || dims.some((d) => !Number.isSafeInteger(d) || d < -1)) return null;
  const inferred = dims.filter((d) => d === -1).length;
  if (inferred > 1) return null;
  const known = numel(dims.filter((d) => d !== -1));
  const total = numel(shape);
  if (inferred === 0) return known === total ? dims.slice() : null;
  if (known === 0 || total % known !== 0) return null;
  return dims.map((d) => (d === -1 ? total / known : d));
}
