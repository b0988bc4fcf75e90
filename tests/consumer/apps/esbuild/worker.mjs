import * as qwasm from 'qwasm';
import wasmFile from 'qwasm/qwasm.wasm';
import { runChecks } from '../check.mjs';

self.onmessage = async (e) => {
  try {
    self.postMessage(await runChecks(qwasm, e.data, { locateFile: () => new URL(wasmFile, import.meta.url).href }));
  } catch (err) {
    self.postMessage({ error: String(err?.message ?? err) });
  }
};
