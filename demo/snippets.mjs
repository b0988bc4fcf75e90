// The code that reproduces what the explorer shows, in qwasm and in PyTorch.
const PT_DTYPE = { quint8: 'torch.quint8', qint8: 'torch.qint8' };
const SCHEME = {
  affine: ['per_channel_affine', 'per_tensor_affine'],
  symmetric: ['per_channel_symmetric', 'per_tensor_symmetric'],
  float_qparams: ['per_channel_affine_float_qparams', 'per_tensor_affine'],
};

export function schemes(kind) {
  return { perChannel: SCHEME[kind][0], perTensor: SCHEME[kind][1] };
}

export function jsSnippet({ source, shape, axis, dtype, kind, reduceRange }) {
  const { perChannel } = schemes(kind);
  return `import { init, tensor, quantizePerChannel, quantization } from 'qwasm';
await init();
const x = tensor(data, [${shape.join(', ')}]);   // ${source}
const obs = new quantization.PerChannelMinMaxObserver({
  chAxis: ${axis}, dtype: '${dtype}', qscheme: '${perChannel}', reduceRange: ${reduceRange},
});
obs.observe(x);
const { scale, zeroPoint } = obs.calculateQParams();
const q = quantizePerChannel(x, scale, zeroPoint, ${axis}, '${dtype}');
q.qPerChannelAxis();     // ${axis}
q.qPerChannelScales();   // ${shape[axis]} scales, as charted
q.qPerChannelZeroPoints();
q.dispose();`;
}

export function pytorchSnippet({ source, shape, axis, dtype, kind, reduceRange }) {
  const { perChannel } = schemes(kind);
  return `import torch
from torch.ao.quantization import PerChannelMinMaxObserver
x = ...  # ${source}, shape (${shape.join(', ')})
obs = PerChannelMinMaxObserver(ch_axis=${axis}, dtype=${PT_DTYPE[dtype]},
                               qscheme=torch.${perChannel}, reduce_range=${reduceRange ? 'True' : 'False'})
obs(x)
scale, zero_point = obs.calculate_qparams()
q = torch.quantize_per_channel(x, scale.double(), zero_point${kind === 'float_qparams' ? '' : '.long()'}, ${axis}, ${PT_DTYPE[dtype]})
q.q_per_channel_axis()    # ${axis}
q.q_per_channel_scales()
q.q_per_channel_zero_points()`;
}
