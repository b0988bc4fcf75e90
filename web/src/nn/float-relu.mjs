// PyTorch's float ReLU, the one copy nn.ReLU, FloatFunctional.addRelu and a
// loaded graph's relu share: max(x, 0) as torch.relu computes it (clamp_min),
// which keeps -0 and NaN (Math.max(-0, 0) would give +0).

/** relu of one float32 value. */
// biome-ignore lint/complexity/useMathMinMax: Math.max(-0, 0) is +0, and PyTorch keeps -0.
export const reluValue = (v) => (v < 0 ? 0 : v);

/** relu of a float tensor's data, into `out` (a new Float32Array unless given; it may be data itself). */
export function reluData(data, out = new Float32Array(data.length)) {
  for (let i = 0; i < out.length; i++) out[i] = reluValue(data[i]);
  return out;
}
