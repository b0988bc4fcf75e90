import * as qwasm from 'qwasm';
import { runChecks } from '../check.mjs';
import { locateFile } from './locate.mjs';

self.onmessage = async (e) => {
  try {
    self.postMessage(await runChecks(qwasm, e.data, { locateFile }));
  } catch (err) {
    self.postMessage({ error: String(err?.message ?? err) });
  }
};
