const worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
worker.addEventListener('error', (e) =>
  fetch('/__report', { method: 'POST', body: JSON.stringify({ key: 'bench', value: { error: e.message } }) }),
);
