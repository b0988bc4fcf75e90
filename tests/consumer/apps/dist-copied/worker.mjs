import { runChecks } from '../check.mjs';
import { byName } from '../named.mjs'; // qwasm imported by name
import { locateFile } from './locate.mjs';

self.onmessage = async (e) => {
  try {
    self.postMessage(await runChecks(byName, e.data, { locateFile }));
  } catch (err) {
    self.postMessage({ error: String(err?.message ?? err) });
  }
};
