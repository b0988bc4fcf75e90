// A Node.js ES module app: named and namespace imports by package name.
// Usage: node index.mjs <case.json>
import { readFileSync } from 'node:fs';
import * as qwasm from 'qwasm';
import { isInitialized, nn } from 'qwasm';
import { runChecks } from '../check.mjs';

if (isInitialized() !== false || typeof nn.Conv3d !== 'function') throw new Error('named imports differ');
const c = JSON.parse(readFileSync(process.argv[2], 'utf8'));
console.log(JSON.stringify(await runChecks(qwasm, c)));
