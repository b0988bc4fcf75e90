// The per-layer comparison of a PT2E golden (pt2e.json, zoo3d.json): one
// quantized conv or linear of a loaded model, given PyTorch's own quantized
// input, against PyTorch's quantized output. PyTorch's converted graph
// computes the layer in float (dequantize, float op, quantize) and qwasm in
// integers, so docs/numerics.md ("PT2E") bounds the difference rather than
// promising bit equality.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode } from '../util.mjs';

// PyTorch's int8 activations (XNNPACKQuantizer) are qwasm's quint8 with the zero point + 128: the same real values.
export const asQuint8 = (ints, dtype) => (dtype === 'int8' ? Uint8Array.from(ints, (v) => v + 128) : ints);
export const zeroPointAsQuint8 = (zp, dtype) => (dtype === 'int8' ? zp + 128 : zp);

/**
 * Runs golden `layer` ({path, input, output}) through `model`'s submodule:
 * {path, shape, scale, zeroPoint, worst (largest integer difference), off
 * (elements that differ), count}.
 */
export function layerSteps(model, layer) {
  const m = model.getSubmodule(layer.path);
  const q = qwasm.makePerTensorQuantizedTensor(
    { data: asQuint8(decode(layer.input.ints), layer.input.dtype), shape: layer.input.ints.shape },
    layer.input.scale,
    zeroPointAsQuint8(layer.input.zero_point, layer.input.dtype),
  );
  try {
    const y = m.forward(q);
    try {
      const got = y.intRepr();
      const want = asQuint8(decode(layer.output.ints), layer.output.dtype);
      let off = 0;
      let worst = 0;
      for (let i = 0; i < want.length; i++) {
        const d = Math.abs(got[i] - want[i]);
        if (d > 0) off++;
        worst = Math.max(worst, d);
      }
      return {
        path: layer.path,
        shape: y.shape,
        scale: y.qScale(),
        zeroPoint: y.qZeroPoint(),
        worst,
        off,
        count: want.length,
      };
    } finally {
      y.dispose();
    }
  } finally {
    q.dispose();
  }
}

/** What layerSteps must give for `layer`: PyTorch's shape and qparams, at most 1 step on at most 1% of the elements. */
export function expectWithinOneStep(r, layer) {
  expect({ path: r.path, shape: r.shape, scale: r.scale, zeroPoint: r.zeroPoint }).toEqual({
    path: layer.path,
    shape: layer.output.shape,
    scale: layer.output.scale,
    zeroPoint: zeroPointAsQuint8(layer.output.zero_point, layer.output.dtype),
  });
  expect({ path: r.path, worstWithin1: r.worst <= 1, offWithin1Percent: r.off <= r.count / 100 }).toEqual({
    path: r.path,
    worstWithin1: true,
    offWithin1Percent: true,
  });
}

/**
 * Every layer of a golden through a freshly loaded model (`load()`, disposed
 * after), each held to expectWithinOneStep; returns the line a test prints:
 * how many layers ran (of `total`, when the golden keeps only some) and
 * which had an element off.
 */
export function checkLayers(load, layers, total = layers.length) {
  const model = load();
  const report = [];
  try {
    for (const layer of layers) {
      const r = layerSteps(model, layer);
      report.push(r);
      expectWithinOneStep(r, layer);
    }
  } finally {
    model.dispose();
  }
  expect(report.length).toBeGreaterThan(0);
  const off = report.filter((r) => r.worst > 0);
  const ran = total === report.length ? `${report.length} layers` : `${report.length} of ${total} layers checked`;
  return (
    `${ran}, ${off.length} with an element one step off` +
    (off.length ? `: ${off.map((r) => `${r.path} ${((100 * r.off) / r.count).toFixed(3)}%`).join(', ')}` : '')
  );
}
