// Starts outer.mjs (a module worker) and POSTs 'done' to the runner's server
// once the outer worker's three inner workers have all answered. The steps the
// outer worker got through are kept in window.steps for the runner to read.
const worker = new Worker(new URL('./outer.mjs', import.meta.url), { type: 'module' });
window.steps = [];
window.outerWorker = worker; // kept reachable: the hang is not a collected worker
worker.onmessage = ({ data }) => {
  window.steps.push(data);
  if (data === 'done') fetch('/__report', { method: 'POST', body: JSON.stringify({ key: 'outer', value: 'done' }) });
};
