import { run } from './run.mjs';

run('worker');
