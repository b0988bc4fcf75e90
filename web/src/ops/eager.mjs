// What the descriptors' eager rows share: convert()'s twin of a layer with
// weights (PyTorch's from_float, the weight quantized by the QConfig's weight
// observer), and the state-dict entries the numeric suite pairs, in PyTorch's
// names and order.

/** A parameter as a float tensor {data, shape} (the module keeps its own). */
const floatOf = (p) => ({ data: p.data, shape: [...p.shape] });

/**
 * convert() of a float layer with weights: Twin.fromFloat with the output
 * qparams of the layer's observer and a fresh weight observer from its QConfig.
 */
export const weightedTwin =
  (Twin) =>
  (child, { observer, qconfig, path, ctx }) => {
    if (!observer) throw new Error(`${ctx}: ${path} has no observer: was the model prepared?`);
    const weightObserver = qconfig.weight();
    return Twin.fromFloat(child, { activationObserver: observer, weightObserver });
  };

/** A float conv / linear layer's state dict: weight, and bias when it has one. */
export function floatLayerState(m, at) {
  /** @type {[string, (() => any) | null][]} */
  const out = [[at('weight'), () => floatOf(m.weight)]];
  if (m.bias !== null) out.push([at('bias'), () => floatOf(m.bias)]);
  return out;
}

/** A fused float layer's: its conv / linear is its child 0 in PyTorch (nn.intrinsic.ConvReLU3d is a Sequential). */
export const fusedLayerState = (m, at) => floatLayerState(m[0], (name) => at(`0.${name}`));

/** A BatchNorm's: its affine parameters when it has them, then its running statistics. */
export function batchNormState(m, at) {
  /** @type {[string, (() => any) | null][]} */
  const out = [];
  if (m.weight !== null) out.push([at('weight'), () => floatOf(m.weight)], [at('bias'), () => floatOf(m.bias)]);
  out.push(
    [at('running_mean'), () => floatOf(m.runningMean)],
    [at('running_var'), () => floatOf(m.runningVar)],
    [at('num_batches_tracked'), null],
  );
  return out;
}

/** A module whose state is its output qparams (nnq.Quantize, QFunctional). */
export const qparamsState = (m, at) => [
  [at('scale'), null],
  [at('zero_point'), null],
];
