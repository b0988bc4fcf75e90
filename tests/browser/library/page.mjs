import { report, run } from './run.mjs';

window.addEventListener('error', (e) => report('page', { error: `uncaught: ${e.message}` }));
run('page');
const worker = new Worker(new URL(`./worker.mjs${location.search}`, import.meta.url), { type: 'module' });
worker.addEventListener('error', (e) => report('worker', { error: `worker error: ${e.message}` }));
