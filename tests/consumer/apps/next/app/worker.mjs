import { runChecks } from '../../check.mjs';
import { byName } from '../../named.mjs'; // qwasm imported by name

self.onmessage = async (e) => {
  try {
    self.postMessage(await runChecks(byName, e.data));
  } catch (err) {
    self.postMessage({ error: String(err?.message ?? err) });
  }
};
