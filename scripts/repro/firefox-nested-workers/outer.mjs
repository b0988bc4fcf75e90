// A module worker that constructs three workers, as the threaded variant's
// glue does for its pool, and says 'done' when each has answered a message.
// Each step is posted before it is taken: when Firefox hangs, the last step
// posted names the `new Worker()` call that never returned.
const INNER = 3;
const inner = [];
let answered = 0;
for (let i = 0; i < INNER; i++) {
  self.postMessage(`constructing worker ${i}`);
  const w = new Worker(new URL('./inner.js', import.meta.url));
  w.onmessage = () => {
    if (++answered === INNER) self.postMessage('done');
  };
  w.postMessage('ping');
  inner.push(w);
}
self.postMessage('all constructed');
