// The build tells the truth: only the SIMD sources contain SIMD instructions
// (the scalar kernels really are scalar, so 'qwasm scalar' measures scalar
// code); the shipped wasm holds the API and none of the test-only entry
// points, and links no test or benchmark code (the reference, the peak
// microbenchmarks of tests/support); nothing under bindings/ or src/
// includes anything under bench/ (the product sits below the benchmarks); the
// testing build runs with asserts, the release without.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initTesting, M } from '../testing.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const objdump = '/usr/lib/llvm-14/bin/llvm-objdump';
const SIMD = /\b(v128|i8x16|i16x8|i32x4|i64x2|f32x4|f64x2)\.[a-z_0-9]+/g;

function objects(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? objects(path) : name.endsWith('.o') ? [path] : [];
  });
}

// The object files of the current sources (stale ones from renamed sources are skipped).
function currentObjects() {
  const sources = readFileSync(join(root, 'CMakeLists.txt'), 'utf8').match(/src\/[a-z_0-9/]+\.cpp/g);
  const dir = join(root, 'build/wasm/CMakeFiles/qwasm_core_release.dir');
  return objects(dir).filter((o) => sources.some((s) => o.endsWith(`${s}.o`)));
}

function simdCount(object) {
  return (execFileSync(objdump, ['-d', object], { encoding: 'utf8', maxBuffer: 1 << 26 }).match(SIMD) ?? []).length;
}

test('only the wasmsimd sources contain SIMD instructions', () => {
  const objs = currentObjects();
  expect(objs.length).toBeGreaterThan(10);
  const counts = Object.fromEntries(objs.map((o) => [o.slice(o.indexOf('src/')), simdCount(o)]));
  for (const [name, n] of Object.entries(counts)) {
    if (name.includes('/wasmsimd/')) expect([name, n > 0]).toEqual([name, true]);
    else expect([name, n]).toEqual([name, 0]);
  }
}, 60_000);

test('the shipped wasm has no test-only entry points; the testing wasm has them', () => {
  const testOnly = [
    '_referenceQuantize',
    '_referenceDequantize',
    '_peakDot16',
    '_failAllocationsAfter',
    '_assertsEnabled',
  ];
  const has = (file, name) => readFileSync(join(root, file)).includes(Buffer.from(name));
  for (const name of testOnly) {
    expect([name, has('dist/qwasm.wasm', name)]).toEqual([name, false]);
    expect([name, has('build/wasm/qwasm.testing.wasm', name)]).toEqual([name, true]);
  }
  for (const name of ['_quantizePerTensor', '_makeQConv', '_observerObserve']) {
    expect([name, has('dist/qwasm.wasm', name)]).toEqual([name, true]);
  }
});

// What a build.ninja output is linked from: its inputs (objects and the
// static libraries, which CMake lists as implicit inputs), each library
// expanded into its objects.
function linkInputs(ninja, output) {
  const line = ninja.split('\n').find((l) => l.startsWith(`build ${output}: `));
  expect([output, line !== undefined]).toEqual([output, true]);
  const inputs = line
    .split(' || ')[0]
    .split(' ')
    .slice(3)
    .filter((i) => i !== '|');
  return inputs.flatMap((i) => (i.endsWith('.a') ? [i, ...linkInputs(ninja, i)] : [i]));
}

test('the package links no test or benchmark code; the testing build links the reference and the peak', () => {
  const ninja = readFileSync(join(root, 'build/wasm/build.ninja'), 'utf8');
  const testCode = (input) => /(^|\/)(tests|bench)\/|reference|_ref\.cpp|peak|testing_bindings/.test(input);
  for (const output of ['qwasm.mjs', 'qwasm.node.js', 'qwasm.mt.mjs', 'qwasm.mt.node.js']) {
    const inputs = linkInputs(ninja, output);
    expect([output, inputs.some((i) => i.includes('/src/kernels/registry.cpp.o'))]).toEqual([output, true]);
    expect([output, inputs.filter(testCode)]).toEqual([output, []]);
  }
  for (const output of ['qwasm.testing.js', 'qwasm.bench.js', 'qwasm.testing.mt.js']) {
    const inputs = linkInputs(ninja, output);
    expect([output, inputs.some((i) => i.includes('/tests/reference/quantize_ref.cpp.o'))]).toEqual([output, true]);
    expect([output, inputs.some((i) => i.includes('/tests/support/peak.cpp.o'))]).toEqual([output, true]);
  }
});

// An #include whose path reaches into bench/ ("bench/...", "../bench/...", <bench/...>).
const BENCH_INCLUDE = /^\s*#\s*include\s*[<"]((?:\.{1,2}\/)*bench\/[^>"]*)[>"]/gm;

// Every such #include in the C/C++ sources under bindings/ and src/ (any depth).
function benchIncludes() {
  const found = [];
  let files = 0;
  for (const dir of ['bindings', 'src']) {
    for (const file of readdirSync(join(root, dir), { recursive: true })) {
      if (!/\.(c|cc|cpp|h|hpp|inc)$/.test(file)) continue;
      files += 1;
      const text = readFileSync(join(root, dir, file), 'utf8');
      for (const m of text.matchAll(BENCH_INCLUDE)) found.push(`${dir}/${file}: ${m[1]}`);
    }
  }
  return { files, found };
}

test('nothing under bindings/ or src/ includes anything under bench/', () => {
  // The pattern finds the forms such an include takes, and not the others.
  const sample = [
    '#include "bench/native/peak.h"',
    '  #  include <bench/x.h>',
    '#include "../bench/native/peak.h"',
    '#include "support/peak.h"',
    '#include "kernels/conv_kernels.h"',
    '// #include "bench/native/peak.h"',
  ].join('\n');
  expect([...sample.matchAll(BENCH_INCLUDE)].map((m) => m[1])).toEqual([
    'bench/native/peak.h',
    'bench/x.h',
    '../bench/native/peak.h',
  ]);
  const { files, found } = benchIncludes();
  expect(files).toBeGreaterThan(40);
  expect(found).toEqual([]);
});

test('the testing build runs with asserts on; the benchmark build (the release core) without', async () => {
  await initTesting();
  expect(M()._assertsEnabled()).toBe(true);
  const createBench = (await import('node:module')).createRequire(import.meta.url)(
    '../../../build/wasm/qwasm.bench.js',
  );
  const bench = await createBench({ wasmBinary: readFileSync(join(root, 'build/wasm/qwasm.bench.wasm')) });
  expect(bench._assertsEnabled()).toBe(false);
  expect(existsSync(objdump)).toBe(true);
});
