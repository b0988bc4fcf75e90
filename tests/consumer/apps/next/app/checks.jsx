'use client';
// A client component: once hydrated, it runs the checks in the page and in a
// module worker, each importing qwasm by package name (the browser build:
// Next.js bundles it for the client), and a model in qwasm's model worker
// (public/model.qwasm.safetensors, copied there by the driver).
import * as qwasm from 'qwasm';
import { useEffect } from 'react';
import c from '../../case.json';
import { runChecks } from '../../check.mjs';
import { modelInWorker } from '../../model-check.mjs';
import { byName, namedImports } from '../../named.mjs';
import { report, runInWorker } from '../../report.mjs';

export default function Checks() {
  useEffect(() => {
    report('named', namedImports());
    runChecks(qwasm, c).then(
      (r) => report('page', r),
      (e) => report('page', { error: String(e?.message ?? e) }),
    );
    runInWorker(new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' }), c);
    modelInWorker(byName).then(
      (r) => report('model', r),
      (e) => report('model', { error: String(e?.message ?? e) }),
    );
  }, []);
  return <p>qwasm runs its checks in this page, in a module worker and in its model worker.</p>;
}
