// Shared by the browser suites: Chromium's flags (for Debian's Chromium in a
// container) and where screenshots go.
import { mkdirSync } from 'node:fs';

export const OUTPUT_DIR = new URL('./output/', import.meta.url);
mkdirSync(OUTPUT_DIR, { recursive: true });

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // The demo's camera input: a fake camera (a test pattern), allowed without a prompt.
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];
