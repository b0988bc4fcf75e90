// Shared by the browser apps: results go to window.__qwasm (read by the
// driver), CSP violations too. Next.js also evaluates this module on the
// server while prerendering, where there is no window: nothing to do there.
if (typeof window !== 'undefined') {
  window.__qwasm = { violations: [] };
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__qwasm.violations.push(`${e.violatedDirective}: ${e.blockedURI}`);
  });
}

export function report(key, value) {
  window.__qwasm[key] = value;
}

/** Posts the case to the worker and reports its answer under 'worker'. */
export function runInWorker(worker, message) {
  return new Promise((resolve) => {
    worker.onmessage = (e) => resolve(report('worker', e.data));
    worker.onerror = (e) => resolve(report('worker', { error: `worker error: ${e.message}` }));
    worker.postMessage(message);
  });
}
