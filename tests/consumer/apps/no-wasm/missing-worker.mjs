import * as qwasm from 'qwasm';

self.onmessage = () =>
  qwasm.init().then(
    () => self.postMessage({ error: 'init() resolved without its wasm' }),
    (e) => self.postMessage({ message: e.message }),
  );
