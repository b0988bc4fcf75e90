// The five most likely classes of a float output (logits): softmax in
// float64, highest first, named by the model's class names when it has them.
// Shared by the Model view and its browser test (which computes the same in Node).
export function top5(logits, classes) {
  const values = Array.from(logits);
  let max = Number.NEGATIVE_INFINITY; // (not Math.max(...values): a large output overflows the call stack)
  for (const v of values) if (v > max) max = v;
  const exp = values.map((v) => Math.exp(v - max));
  const sum = exp.reduce((a, b) => a + b, 0);
  return exp
    .map((e, index) => ({ index, name: classes?.[index] ?? `class ${index}`, p: e / sum }))
    .sort((a, b) => b.p - a.p || a.index - b.index)
    .slice(0, 5);
}
