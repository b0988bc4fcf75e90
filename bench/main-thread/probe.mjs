// How long a page's main thread is blocked during a phase of work, measured
// two ways in the page: the Long Tasks API (every task over 50 ms, with its
// duration) and a heartbeat (a timer task posted again as it runs: the
// longest gap between two beats is the longest the page could not respond).
// Where Chromium has the Long Animation Frames API, a phase also names the
// longest frame's parts (its scripts by function and file, style and layout,
// rendering), to say where a block's time went. Shared by the bench's own
// page (page.mjs) and the demo's Model view (model-view.mjs).

const longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) longTasks.push({ start: e.startTime, ms: e.duration });
}).observe({ type: 'longtask', buffered: true });

const longFrames = [];
if (PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longFrames.push(e);
  }).observe({ type: 'long-animation-frame', buffered: true });
}

// The heartbeat: a timer task that schedules the next one as it runs. Timers
// nested this deep are clamped to 4 ms, so it costs the page almost nothing
// (a MessageChannel ping-pong would spin a core and slow the worker's threads).
let beating = false;
let lastBeat = 0;
let maxGap = 0;
let maxGapAt = 0; // when the longest gap began
function beat() {
  const now = performance.now();
  if (now - lastBeat > maxGap) {
    maxGap = now - lastBeat;
    maxGapAt = lastBeat;
  }
  lastBeat = now;
  if (beating) setTimeout(beat, 0);
}

// A long animation frame's parts, in ms: the scripts it ran (longest first)
// and the rendering after them.
function frameParts(f) {
  const renderMs = f.renderStart ? f.startTime + f.duration - f.renderStart : 0;
  const styleLayoutMs = f.styleAndLayoutStart ? f.startTime + f.duration - f.styleAndLayoutStart : 0;
  return {
    ms: f.duration,
    blockingMs: f.blockingDuration,
    renderMs,
    styleLayoutMs,
    scripts: [...f.scripts]
      .sort((a, b) => b.duration - a.duration)
      .map((s) => ({
        ms: s.duration,
        forcedStyleLayoutMs: s.forcedStyleAndLayoutDuration,
        invoker: s.invoker,
        function: s.sourceFunctionName,
        source: `${s.sourceURL.replace(location.origin, '')}:${s.sourceCharPosition}`,
      })),
  };
}

/**
 * Runs fn with the heartbeat on; returns its wall time, the longest gap (and
 * how far into the phase it began), the long tasks in its window and
 * (Chromium) its longest animation frame's parts.
 */
export async function phase(name, fn) {
  maxGap = 0;
  maxGapAt = 0;
  beating = true;
  lastBeat = performance.now();
  setTimeout(beat, 0);
  const start = performance.now();
  await fn();
  const end = performance.now();
  beating = false;
  await new Promise((r) => setTimeout(r, 100)); // the last long task's entry arrives after it ends
  const tasks = longTasks.filter((t) => t.start >= start - 1 && t.start < end);
  const frames = longFrames.filter((f) => f.startTime >= start - 1 && f.startTime < end);
  const longest = frames.reduce((m, f) => (m === null || f.duration > m.duration ? f : m), null);
  return {
    name,
    wallMs: end - start,
    maxGapMs: maxGap,
    startedAt: start, // on the page's clock (performance.now())
    maxGapAfterMs: maxGapAt - start, // into the phase
    longTasks: tasks.length,
    longestTaskMs: tasks.reduce((m, t) => Math.max(m, t.ms), 0),
    ...(longest ? { longestFrame: frameParts(longest) } : {}),
  };
}
