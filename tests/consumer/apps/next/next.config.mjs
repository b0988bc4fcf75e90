// Hosting config only, nothing about qwasm. The driver builds this app twice
// (`next build`, Turbopack, and `next build --webpack`) and serves each with
// `next start`.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

// next and react are installed in the repository's node_modules, above this
// app (which the driver places under the repository's build/): that is the
// root Next.js must bundle and trace from (it would otherwise guess from the
// lockfiles it finds, and warn).
const root = dirname(dirname(dirname(createRequire(import.meta.url).resolve('next/package.json'))));

// Cross-origin isolation (what threads need) for a browser that sends the
// cookie `isolated`: one build then serves both an ordinary page and an
// isolated one, its scripts, chunks and workers included.
const isolation = [
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
  { key: 'Cross-Origin-Embedder-Policy', value: 'require-corp' },
];

export default {
  turbopack: { root },
  outputFileTracingRoot: root,
  async headers() {
    return [{ source: '/:path*', has: [{ type: 'cookie', key: 'isolated' }], headers: isolation }];
  },
};
