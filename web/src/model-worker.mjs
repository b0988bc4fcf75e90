// The browser's model worker (a module worker started by index.browser.mjs):
// qwasm's browser platform, serving one model (worker-host.mjs).
// It imports the platform, not the entry: the entry names this file.
import './runtime/platform.browser.mjs';
import { serveModel } from './model/worker-host.mjs';

serveModel({
  post: (message, transfer) => self.postMessage(message, transfer),
  onMessage: (handler) => {
    self.onmessage = (e) => handler(e.data);
  },
});
