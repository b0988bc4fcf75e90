// The demo page: four views behind accessible tabs, the qwasm module loaded once.
import * as qwasm from 'qwasm';
import { setupExplorer } from './explorer.mjs';
import { setupModelView } from './model-view.mjs';
import { setupPlayground } from './playground.mjs';
import { setupVolumeView } from './volume-view.mjs';

const $ = (id) => document.getElementById(id);

function setupTabs() {
  const tabs = [$('tab-explorer'), $('tab-playground'), $('tab-model'), $('tab-volume')];
  const select = (tab) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      $(t.getAttribute('aria-controls')).hidden = !on;
    }
    tab.focus();
  };
  tabs.forEach((t, i) => {
    t.addEventListener('click', () => select(t));
    t.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowRight' || e.key === 'ArrowLeft')
        select(tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]);
    });
  });
}

async function main() {
  setupTabs();
  await qwasm.init();
  const explorer = setupExplorer();
  setupPlayground();
  const model = setupModelView();
  const volume = setupVolumeView();
  window.qwasmDemo = { ...explorer, model, volume }; // for the browser tests and the curious
  const info = qwasm.runtimeInfo();
  const threads =
    info.variant === 'threads'
      ? `${info.numThreads} threads`
      : `1 thread${info.threadsUnavailable ? ` (${info.threadsUnavailable})` : ''}`;
  $('status').textContent = `Ready: qwasm ${qwasm.kernelIsa()} kernels, ${threads}.`;
  $('status').dataset.threads = String(info.numThreads);
  $('status').dataset.ready = 'true';
}

main().catch((e) => {
  $('status').textContent = `Failed to start: ${e.message}`;
});
