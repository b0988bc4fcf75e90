#!/usr/bin/env node
// Mutation smoke: applies, one at a time, small mistakes a kernel or driver
// change could make (a rounding mode, an off-by-one in a tail, a resume
// offset, a zero point's sign, a lost ReLU, a wrong weight vector in the SIMD
// kernel, a float multiply where PyTorch multiplies in double, the Winograd
// path's guard dropped or (F(4, 3)) too loose, its shift or a transform row wrong, a moving average
// of the wrong value), rebuilds, runs the suites that should notice,
// and checks that each mutation makes them fail. The sources are restored
// after each one (and on any exit). Run before changing a kernel:
//   npm run mutate            (about 5 minutes)
//   QWASM_MUTATE_ONLY=Winograd npm run mutate    (the mutations whose name has that text)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = {
  ...process.env,
  NODE_PATH: `${process.env.NODE_PATH ? `${process.env.NODE_PATH}:` : ''}/usr/share/nodejs`,
};

const MUTATIONS = [
  {
    name: "rounding: nearbyint -> round in the kernels' quantize_val",
    file: 'src/kernels/quantize_val.h',
    from: 'const float r = std::nearbyint(scaled_or_zero_for_nan(x, p.inv_scale)) + p.zero_point;',
    to: 'const float r = std::round(scaled_or_zero_for_nan(x, p.inv_scale)) + p.zero_point;',
  },
  {
    name: 'off-by-one: the scalar quantize loop skips the last element',
    file: 'src/kernels/scalar/quantize_scalar.cpp',
    from: '  Q* out = static_cast<Q*>(y);\n  for (size_t i = 0; i < n; ++i) {',
    to: '  Q* out = static_cast<Q*>(y);\n  for (size_t i = 0; i + 1 < n; ++i) {',
  },
  {
    name: 'resume offset: dequantize_range restarts at channel 0',
    file: 'src/qwasm/qtensor.cpp',
    from: 'int64_t c = (begin / l.inner) % l.channels, k = begin % l.inner;',
    to: 'int64_t c = 0, k = 0;',
  },
  {
    name: 'zero point sign: requantize subtracts the output zero point',
    file: 'src/kernels/requantize.h',
    from: 'p.output_max - p.output_zero_point) +\n                              p.output_zero_point);',
    to: 'p.output_max - p.output_zero_point) -\n                              p.output_zero_point);',
  },
  {
    name: 'ReLU lost: the drivers clamp at 0 whatever relu says',
    file: 'src/qwasm/conv_requant.cpp',
    from: 'p.output_min = relu ? static_cast<int32_t>(out_zp) : 0;',
    to: 'p.output_min = 0;',
  },
  {
    name: 'SIMD: pixel 3 of the dot16 loop (direct conv and Winograd GEMM) uses the wrong weight vector',
    file: 'src/kernels/wasmsimd/dot16_4x8c2.h',
    from: 'acc3x4567 = wasm_i32x4_add(acc3x4567, wasm_i32x4_dot_i16x8(va3, w4567));',
    to: 'acc3x4567 = wasm_i32x4_add(acc3x4567, wasm_i32x4_dot_i16x8(va3, w0123));',
  },
  {
    name: 'per-channel dequantize multiplies in float instead of double',
    file: 'src/kernels/quantize_val.h',
    from: 'static_cast<double>(static_cast<float>(q) - p.zero_point_f) * p.scale);',
    to: 'static_cast<double>((static_cast<float>(q) - p.zero_point_f) * p.scale_f));',
  },
  {
    name: 'Winograd: the guard dropped (every call with packed weights takes the fast path)',
    file: 'src/qwasm/conv_winograd.cpp',
    from: 'if (!winograd_guard_passes(pw, input_zero_point)) return 0;',
    to: 'if (pw.winograd.nd == 0) return 0;',
  },
  {
    name: 'Winograd F(4, 3): its guard 2 bits looser, 2^(31 - nd) (3 * 2^(nd + 2) * acc wraps past 2^(29 - nd))',
    file: 'src/qwasm/conv_winograd.cpp',
    from: 'return int64_t{1} << (m == 2 ? 31 - nd : 29 - nd);',
    to: 'return int64_t{1} << (m == 2 ? 31 - nd : 31 - nd);',
  },
  {
    name: 'Winograd F(4, 3) in two or three dimensions: the SIMD output divides as in one (shift 3, not nd + 2)',
    file: 'src/kernels/wasmsimd/winograd_f43_wasmsimd.cpp',
    from: 'const int s = static_cast<int>(nd) + 2;',
    to: 'const int s = 3;',
  },
  {
    name: 'Winograd F(4, 3) x F(4, 3): its guard 2 bits looser, 2^27 (576 * acc wraps past 2^25)',
    file: 'src/qwasm/conv_winograd.cpp',
    from: 'm == kernels::kWinogradF43Both ? 25 : 29 - nd',
    to: 'm == kernels::kWinogradF43Both ? 27 : 29 - nd',
  },
  {
    name: 'Winograd F(4, 3) x F(4, 3): the SIMD output divides by 9 * 2^5, not 9 * 2^6',
    file: 'src/kernels/wasmsimd/winograd_f43_wasmsimd.cpp',
    from: 'at4_div(lines[oa][0], 4, kInverseOf9, 6, r);',
    to: 'at4_div(lines[oa][0], 4, kInverseOf9, 5, r);',
  },
  {
    name: "Winograd F(4, 3): G''s second row with the wrong sign in the SIMD weight transform",
    file: 'src/kernels/wasmsimd/winograd_f43_wasmsimd.cpp',
    from: 'y[2] = wasm_i16x8_sub(g1, g0_plus_g2);',
    to: 'y[2] = wasm_i16x8_sub(g0_plus_g2, g1);',
  },
  {
    name: 'Winograd: the SIMD output transform divides by 2^(nd - 1)',
    file: 'src/kernels/wasmsimd/winograd_f23_wasmsimd.cpp',
    from: 'wasm_i32x4_shr(y[o], static_cast<uint32_t>(nd))',
    to: 'wasm_i32x4_shr(y[o], static_cast<uint32_t>(nd - 1))',
  },
  {
    name: "Winograd: B^T's last row negated in the SIMD input transform",
    file: 'src/kernels/wasmsimd/winograd_f23_wasmsimd.cpp',
    from: 'y[3] = wasm_i16x8_sub(x1, x3);',
    to: 'y[3] = wasm_i16x8_sub(x3, x1);',
  },
  {
    name: "Winograd F(4, 3): B^T's fourth row with the wrong sign in the SIMD input transform",
    file: 'src/kernels/wasmsimd/winograd_f43_wasmsimd.cpp',
    from: 'y[3] = wasm_i16x8_add(x4_minus_x2, twice_x3_minus_x1);',
    to: 'y[3] = wasm_i16x8_sub(x4_minus_x2, twice_x3_minus_x1);',
  },
  {
    name: "element-wise table: the 8-element lookup reads w's bytes in the wrong order",
    file: 'src/qwasm/qelementwise.cpp',
    from: 'out |= uint64_t{table[((xs >> k) & 0xFF) << 8 | ((ws >> k) & 0xFF)]} << k;',
    to: 'out |= uint64_t{table[((xs >> k) & 0xFF) << 8 | ((ws >> (56 - k)) & 0xFF)]} << k;',
  },
  {
    name: "Winograd along D (stems): the im2col pads with 0, not the input's zero point",
    file: 'src/qwasm/conv_lowered.cpp',
    from: 'const uint8_t pad = static_cast<uint8_t>(input.q_zero_point());',
    to: 'const uint8_t pad = 0;',
  },
  {
    name: "depthwise fast path: the SIMD kernel's tap pairs stop saturating at int16 (FBGEMM's vpmaddubsw)",
    file: 'src/kernels/wasmsimd/dwconv_4x8c2.h',
    from: 'wasm_i16x8_add_sat(wasm_i16x8_mul(x0, w0), wasm_i16x8_mul(x1, w1))',
    to: 'wasm_i16x8_add(wasm_i16x8_mul(x0, w0), wasm_i16x8_mul(x1, w1))',
  },
  {
    name: "depthwise fast path: the scalar kernel's activation sum is not capped at 32767",
    file: 'src/kernels/scalar/dwconv3d_sat16_qu8_qs8w_4x8c2_scalar.cpp',
    from: 'acc -= params->weight_zero_point[ch] * std::min(row_sum, 32767);',
    to: 'acc -= params->weight_zero_point[ch] * row_sum;',
  },
  {
    name: 'moving average of the running max for the min',
    file: 'src/qwasm/observer.cpp',
    from: 'run_min[i] = run_min[i] + c * (cur_min[i] - run_min[i]);',
    to: 'run_min[i] = run_min[i] + c * (cur_min[i] - run_max[i]);',
  },
];

function sh(cmd, args, options = {}) {
  return execFileSync(cmd, args, { cwd: root, env, stdio: 'pipe', encoding: 'utf8', maxBuffer: 1 << 28, ...options });
}

// The suites that should notice: the native tests, the same on wasm (SIMD),
// the Jest goldens and kernel comparisons on the wasm build.
function suitesFail() {
  const runs = [
    ['native', 'build/native/qwasm_native_tests', ['--gtest_brief=1']],
    ['wasm', 'node', ['build/wasm/qwasm_wasm_tests.js', '--gtest_brief=1']],
    [
      'jest',
      'node',
      [
        '--experimental-vm-modules',
        'node_modules/jest/bin/jest.js',
        '--selectProjects',
        'js',
        '--testPathPatterns',
        'tests/js/.*/(golden-|kernels-vs-reference|winograd)',
      ],
    ],
  ];
  const failed = [];
  for (const [label, cmd, args] of runs) {
    try {
      sh(cmd, args);
    } catch (e) {
      const out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
      const first = out.split('\n').find((l) => /\[ {2}FAILED {2}\] \w|● /.test(l)) ?? 'exit code';
      failed.push(`${label}: ${first.trim()}`);
    }
  }
  return failed;
}

function build() {
  // The unsanitized native build is this script's own (scripts/build makes the ASan one).
  if (!existsSync(`${root}build/native/build.ninja`)) sh('cmake', ['-S', '.', '-B', 'build/native', '-G', 'Ninja']);
  sh('ninja', ['-C', 'build/native', '--quiet']);
  sh('ninja', ['-C', 'build/wasm', '--quiet']);
  sh('node', ['scripts/package.mjs']);
}

const originals = new Map();
const restore = () => {
  for (const [file, text] of originals) writeFileSync(`${root}${file}`, text);
  originals.clear();
};
process.on('exit', restore);
process.on('SIGINT', () => process.exit(130));

build();
if (suitesFail().length) {
  console.error('mutate: the suites fail before any mutation; fix them first');
  process.exit(1);
}
let survivors = 0;
// QWASM_MUTATE_ONLY=<text>: only the mutations whose name contains it.
const only = process.env.QWASM_MUTATE_ONLY;
const chosen = MUTATIONS.filter((m) => !only || m.name.includes(only));
for (const m of chosen) {
  const path = `${root}${m.file}`;
  const text = readFileSync(path, 'utf8');
  if (!text.includes(m.from)) {
    console.error(`mutate: the code this mutation targets has changed: ${m.file}\n  ${m.from}`);
    process.exit(1);
  }
  originals.set(m.file, text);
  writeFileSync(path, text.replace(m.from, m.to));
  let failed;
  try {
    build();
    failed = suitesFail();
  } finally {
    restore();
  }
  if (failed.length) {
    console.log(`caught   ${m.name}  (failed: ${failed.join('; ')})`);
  } else {
    console.log(`SURVIVED ${m.name}`);
    survivors += 1;
  }
}
build();
console.log(survivors ? `mutate: ${survivors} mutation(s) survived` : `mutate: all ${chosen.length} mutations caught`);
process.exit(survivors ? 1 : 0);
