// ONNX models for the onnxruntime-web side of the conv benchmark, built in
// JavaScript with onnx-proto: QLinearConv (uint8 input, int8 per-channel
// weights, int32 bias) and float Conv + Relu, 3-D, the same shapes and data.
import { readFileSync } from 'node:fs';
import onnxPkg from 'onnx-proto';

const { onnx } = onnxPkg;
const T = onnx.TensorProto.DataType;

function initializer(name, dims, dataType, field, values) {
  return onnx.TensorProto.create({ name, dims, dataType, [field]: values });
}

function ints(name, values) {
  return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: values });
}

function convAttributes(c) {
  return [
    ints('kernel_shape', c.kernel),
    ints('strides', c.stride),
    ints('pads', [...c.pad, ...c.pad]),
    ints('dilations', c.dilation ?? [1, 1, 1]),
    onnx.AttributeProto.create({ name: 'group', type: onnx.AttributeProto.AttributeType.INT, i: c.groups }),
  ];
}

function model(nodes, inits, input, inputType, output, outputType) {
  const graph = onnx.GraphProto.create({
    name: 'bench',
    node: nodes,
    initializer: inits,
    input: [
      onnx.ValueInfoProto.create({
        name: input.name,
        type: { tensorType: { elemType: inputType, shape: { dim: input.dims.map((d) => ({ dimValue: d })) } } },
      }),
    ],
    output: [onnx.ValueInfoProto.create({ name: output, type: { tensorType: { elemType: outputType } } })],
  });
  return onnx.ModelProto.encode(
    onnx.ModelProto.create({ irVersion: 8, opsetImport: [{ domain: '', version: 13 }], graph }),
  ).finish();
}

/**
 * c: {n, cin, cout, groups, kernel[3], stride[3], pad[3], spatial[3]}, q: {wInt8, wScales,
 * biasInt32, aScale, aZp, outScale, outZp}.
 */
export function qlinearConvModel(c, q) {
  const wDims = [c.cout, c.cin / c.groups, ...c.kernel];
  return model(
    [
      onnx.NodeProto.create({
        opType: 'QLinearConv',
        input: ['x', 'xs', 'xz', 'w', 'ws', 'wz', 'ys', 'yz', 'b'],
        output: ['y'],
        attribute: convAttributes(c),
      }),
    ],
    [
      initializer('xs', [], T.FLOAT, 'floatData', [q.aScale]),
      initializer('xz', [], T.UINT8, 'rawData', Uint8Array.of(q.aZp)),
      initializer(
        'w',
        wDims,
        T.INT8,
        'rawData',
        new Uint8Array(q.wInt8.buffer, q.wInt8.byteOffset, q.wInt8.byteLength),
      ),
      initializer('ws', [c.cout], T.FLOAT, 'floatData', Array.from(q.wScales)),
      initializer('wz', [c.cout], T.INT8, 'rawData', new Uint8Array(c.cout)),
      initializer('ys', [], T.FLOAT, 'floatData', [q.outScale]),
      initializer('yz', [], T.UINT8, 'rawData', Uint8Array.of(q.outZp)),
      initializer('b', [c.cout], T.INT32, 'int32Data', Array.from(q.biasInt32)),
    ],
    { name: 'x', dims: [c.n, c.cin, ...c.spatial] },
    T.UINT8,
    'y',
    T.UINT8,
  );
}

/** Float Conv followed by Relu. */
export function floatConvReluModel(c, w, bias) {
  const wDims = [c.cout, c.cin / c.groups, ...c.kernel];
  return model(
    [
      onnx.NodeProto.create({ opType: 'Conv', input: ['x', 'w', 'b'], output: ['c'], attribute: convAttributes(c) }),
      onnx.NodeProto.create({ opType: 'Relu', input: ['c'], output: ['y'] }),
    ],
    [
      initializer('w', wDims, T.FLOAT, 'floatData', Array.from(w)),
      initializer('b', [c.cout], T.FLOAT, 'floatData', Array.from(bias)),
    ],
    { name: 'x', dims: [c.n, c.cin, ...c.spatial] },
    T.FLOAT,
    'y',
    T.FLOAT,
  );
}

/**
 * QLinearMatMul [rows, in] x [in, out] (uint8 activations, int8 weights per
 * output column), what onnxruntime's quantization tool makes of a Linear
 * layer. q: {wInt8 ([out, in], PyTorch's layout), wScales, aScale, aZp, outScale, outZp}.
 */
export function qlinearMatMulModel(rows, inF, outF, q) {
  // ONNX wants B as [in, out]: transpose PyTorch's [out, in].
  const wT = new Int8Array(inF * outF);
  for (let o = 0; o < outF; o++) for (let i = 0; i < inF; i++) wT[i * outF + o] = q.wInt8[o * inF + i];
  return model(
    [
      onnx.NodeProto.create({
        opType: 'QLinearMatMul',
        input: ['x', 'xs', 'xz', 'w', 'ws', 'wz', 'ys', 'yz'],
        output: ['y'],
      }),
    ],
    [
      initializer('xs', [], T.FLOAT, 'floatData', [q.aScale]),
      initializer('xz', [], T.UINT8, 'rawData', Uint8Array.of(q.aZp)),
      initializer('w', [inF, outF], T.INT8, 'rawData', new Uint8Array(wT.buffer)),
      initializer('ws', [outF], T.FLOAT, 'floatData', Array.from(q.wScales)),
      initializer('wz', [outF], T.INT8, 'rawData', new Uint8Array(outF)),
      initializer('ys', [], T.FLOAT, 'floatData', [q.outScale]),
      initializer('yz', [], T.UINT8, 'rawData', Uint8Array.of(q.outZp)),
    ],
    { name: 'x', dims: [rows, inF] },
    T.UINT8,
    'y',
    T.UINT8,
  );
}

/**
 * The ONNX model at `url` with its input's and output's spatial dims (from the third on) set to
 * `size`, value_info dropped: a fully convolutional model (MeshNet) run on another volume.
 */
export function resizedModel(url, size) {
  const m = onnx.ModelProto.decode(readFileSync(url));
  for (const v of [...m.graph.input, ...m.graph.output]) {
    const dims = v.type.tensorType.shape.dim;
    for (let d = 2; d < dims.length; d++) dims[d] = onnx.TensorShapeProto.Dimension.create({ dimValue: size });
  }
  m.graph.valueInfo = [];
  return onnx.ModelProto.encode(m).finish();
}
