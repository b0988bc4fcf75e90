import * as qwasm from 'qwasm';
import { runChecks } from '../../check.mjs';

self.onmessage = async (e) => {
  try {
    self.postMessage(await runChecks(qwasm, e.data));
  } catch (err) {
    self.postMessage({ error: String(err?.message ?? err) });
  }
};
