// A Node.js CommonJS app: destructuring at require time, before init().
// Usage: node index.cjs <case.json>
const { init, isInitialized, tensor, nn } = require('qwasm');
const qwasm = require('qwasm');
const { runChecks } = require('../check.cjs');

if (isInitialized() !== false || tensor([1]).data[0] !== 1 || typeof nn.Conv3d !== 'function' || init !== qwasm.init) {
  throw new Error('destructuring before init() failed');
}
const c = JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8'));
runChecks(qwasm, c).then(
  (result) => console.log(JSON.stringify(result)),
  (err) => {
    console.error(err);
    process.exitCode = 1;
  },
);
