// Shared by the browser apps: r3d_18 (1/8 width, model.qwasm.safetensors
// beside the page) loaded and run in qwasm's model worker
// (io.loadModel(url, { worker: true })) on the fixed clip sin(0.37 i). The
// driver compares the output's bytes (base64) with Node's, and the worker's
// variant with what the page allows.
export async function modelInWorker(qwasm, options = {}) {
  const model = await qwasm.io.loadModel('./model.qwasm.safetensors', { ...options, worker: true });
  try {
    const shape = model.inputShape;
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = Math.sin(i * 0.37);
    const y = await model.forward({ data, shape });
    const bytes = new Uint8Array(y.data.buffer, y.data.byteOffset, y.data.byteLength);
    return { shape: y.shape, output: btoa(String.fromCharCode(...bytes)), variant: model.runtime.variant };
  } finally {
    model.dispose();
  }
}
