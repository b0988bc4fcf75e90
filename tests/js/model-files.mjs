// Small qwasm model files written by hand (the format python/qwasm_export.py
// writes): a graph and its tensors in one .safetensors file, for tests that
// need a model PyTorch would never export.
const DTYPES = { F32: Float32Array, F64: Float64Array, I8: Int8Array, I64: BigInt64Array };

/**
 * graph: {input_shape, modules, nodes}; tensors: {name: {dtype, shape, data}};
 * metadata: more header entries (e.g. preprocessing, classes). Returns the file's bytes.
 */
export function modelFile(graph, tensors = {}, { rawGraph = null, metadata = {} } = {}) {
  const header = {
    __metadata__: {
      format: 'qwasm-model',
      format_version: '1',
      graph: rawGraph ?? JSON.stringify({ format: 'qwasm-model', version: 1, ...graph }),
      ...metadata,
    },
  };
  const parts = [];
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    const Typed = DTYPES[t.dtype];
    const data = new Typed(t.data);
    const bytes = new Uint8Array(data.buffer);
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const ref = (node) => ({ node });

/**
 * A chain: x -> modules[0] -> modules[1] -> ... -> output, the modules named
 * m0, m1, ... (a float input; start with a Quantize to go quantized).
 */
export function chainModel(inputShape, modules, tensors = {}, metadata = {}) {
  const nodes = [{ name: 'x', op: 'placeholder', args: [], kwargs: {} }];
  const named = {};
  modules.forEach((m, i) => {
    named[`m${i}`] = m;
    nodes.push({
      name: `m${i}`,
      op: 'call_module',
      target: `m${i}`,
      args: [ref(nodes[nodes.length - 1].name)],
      kwargs: {},
    });
  });
  nodes.push({ name: 'output', op: 'output', args: [ref(nodes[nodes.length - 1].name)], kwargs: {} });
  return modelFile({ input_shape: inputShape, modules: named, nodes }, tensors, { metadata });
}

/** A graph of nodes (placeholder 'x' first, output last) over modules. */
export function graphModel(inputShape, modules, nodes, tensors = {}) {
  return modelFile(
    {
      input_shape: inputShape,
      modules,
      nodes: [{ name: 'x', op: 'placeholder', args: [], kwargs: {} }, ...nodes],
    },
    tensors,
  );
}

export const quantize = (scale = 0.05, zeroPoint = 10) => ({
  type: 'Quantize',
  scale,
  zero_point: zeroPoint,
  dtype: 'quint8',
});
export const node = (name, op, target, args, kwargs = {}) => ({ name, op, target, args, kwargs });
export const output = (from) => ({ name: 'output', op: 'output', args: [ref(from)], kwargs: {} });
export { ref };

/**
 * A QuantizedConv entry (format version 1: no backend) with a per-tensor
 * weight read from the tensor named `weight`: k x k x k, stride 1, padding pad.
 */
export const quantizedConv3d = ({ cin, cout, k, pad = 0, groups = 1, weight = 'w' }) => ({
  type: 'QuantizedConv',
  dims: 3,
  relu: false,
  in_channels: cin,
  out_channels: cout,
  kernel_size: [k, k, k],
  stride: [1, 1, 1],
  padding: [pad, pad, pad],
  dilation: [1, 1, 1],
  groups,
  scale: 0.05,
  zero_point: 10,
  weight: { qscheme: 'per_tensor_affine', ints: weight, scale: 0.01, zero_point: 0 },
  bias: null,
});

/** The Error io.loadModel(bytes, options) throws, or null when the model loads (it is disposed). */
export function loadError(io, bytes, options) {
  try {
    io.loadModel(bytes, options).dispose();
  } catch (e) {
    return e;
  }
  return null;
}

/**
 * The preprocessing record the exporter writes for torchvision's video
 * weights (weights.transforms(): Kinetics-400's mean and std), shrunk to an
 * 8x8 crop of a 10x12 resize so that tiny models take it.
 */
export const KINETICS_8X8 = {
  transform: 'VideoClassification',
  crop_size: [8, 8],
  resize_size: [10, 12],
  mean: [0.43216, 0.394666, 0.37645],
  std: [0.22803, 0.22145, 0.216989],
  interpolation: 'bilinear',
};
