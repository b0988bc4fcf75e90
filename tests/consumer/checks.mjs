// What every consumer app checks, given the qwasm namespace it imported (by
// package name, from the installed tarball) and one small PyTorch golden
// case. The driver copies this function's source text into each app (as an
// ES module and as CommonJS), so it must stay self-contained: no imports, no
// outer variables, no Node or DOM APIs but atob.

/**
 * Before init(): isInitialized() is false, tensor() works, the rest says to
 * call init(). After: runtimeInfo()'s variant (and why not threads), a known
 * quantizePerTensor and PyTorch's quantized ConvReLU3d (fbgemm) on the case's
 * integers. Returns plain JSON data that the driver compares with what
 * PyTorch gave.
 * @param {any} qwasm the package's namespace
 * @param {any} c a case of tests/golden/conv3d.json
 * @param {object} [initOptions] passed to init()
 */
export async function runChecks(qwasm, c, initOptions) {
  const arrays = {
    float32: Float32Array,
    float64: Float64Array,
    int32: Int32Array,
    int8: Int8Array,
    uint8: Uint8Array,
  };
  const decode = (a) => {
    const text = atob(a.b64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new arrays[a.dtype](bytes.buffer);
  };
  const result = {};
  result.initializedBefore = qwasm.isInitialized();
  result.tensorBefore = Array.from(qwasm.tensor([1, 2]).data);
  try {
    qwasm.quantizePerTensor(qwasm.tensor([1]), 1, 0, 'quint8');
    result.errorBefore = null;
  } catch (e) {
    result.errorBefore = e.message;
  }

  await qwasm.init(initOptions);
  result.initializedAfter = qwasm.isInitialized();
  // Which variant init() loaded (threads need cross-origin isolation in a
  // browser, and the threaded files where the bundler put the code) and, if
  // not threads, why: null when nothing is missing.
  const info = qwasm.runtimeInfo();
  result.runtime = { variant: info.variant, threadsUnavailable: info.threadsUnavailable ?? null };
  const heapBefore = qwasm.heapInUse();

  const q = qwasm.quantizePerTensor(qwasm.tensor([0.1, -0.2, 0.3]), 0.01, 128, 'quint8');
  result.quantizePerTensor = Array.from(q.intRepr());
  q.dispose();

  const m = new qwasm.nn.intrinsic.quantized.ConvReLU3d(c.in_channels, c.out_channels, c.kernel, {
    stride: c.stride,
    padding: c.padding,
    dilation: c.dilation,
    groups: c.groups,
    bias: c.bias !== null,
  });
  const w = qwasm.makePerChannelQuantizedTensor(
    { data: decode(c.w_int), shape: c.w_int.shape },
    decode(c.w_scales),
    decode(c.w_zero_points),
    0,
  );
  m.setWeightBias(w, c.bias === null ? null : decode(c.bias));
  w.dispose();
  m.scale = c.out_scale;
  m.zeroPoint = c.out_zero_point;
  const x = qwasm.makePerTensorQuantizedTensor(
    { data: decode(c.x_int), shape: c.x_int.shape },
    c.a_scale,
    c.a_zero_point,
  );
  const y = m.forward(x);
  result.convReLU3d = { shape: Array.from(y.shape), intRepr: Array.from(y.intRepr()) };
  y.dispose();
  x.dispose();
  m.dispose();
  result.heapReturned = qwasm.heapInUse() === heapBefore;
  return result;
}
