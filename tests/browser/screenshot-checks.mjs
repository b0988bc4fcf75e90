// Checks on the screenshots themselves: what the DOM and the charts claim is
// on screen is there in the pixels the engine captured. A box the DOM places
// must have its border and fill colour at that place; a bar Chart.js holds
// must be drawn to its value's height in its colour; a canvas on screen must
// show the pixels it holds. Each check returns a list of problems (empty when
// the screenshot agrees), so that a failure names the element, the place and
// the colour found.
//
// Chromium and Firefox capture the whole page; WebKit's WebDriver captures
// the viewport. A shot finds which it got from its size and maps the page's
// CSS pixels (getBoundingClientRect, scaled by devicePixelRatio) to the
// image's; shotsCovering scrolls what a viewport capture does not hold into
// view and captures again.
import { readFileSync } from 'node:fs';
import { decodePng } from './png.mjs';

/** '#2f6fdb' -> [47, 111, 219]. */
export const rgb = (hex) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
const hex = (c) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
// (The per-pixel code looks up no global such as Math: under Jest's VM modules
// every global lookup goes through the context's global object, 10x slower.)
const abs = (v) => (v < 0 ? -v : v);
const near = (p, c, tolerance) =>
  abs(p[0] - c[0]) <= tolerance && abs(p[1] - c[1]) <= tolerance && abs(p[2] - c[2]) <= tolerance;

// The commonest colour of the image's pixels in device rect `b`: [[r, g, b] or null, its count, all counted].
function commonest(png, b) {
  const counts = new Map();
  let total = 0;
  for (let y = Math.ceil(b.top); y < b.bottom; y++) {
    for (let x = Math.ceil(b.left); x < b.right; x++, total++) {
      const i = (y * png.width + x) * 4;
      const key = (png.rgba[i] << 16) | (png.rgba[i + 1] << 8) | png.rgba[i + 2];
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  let best = -1;
  let n = 0;
  for (const [key, count] of counts) {
    if (count > n) [best, n] = [key, count];
  }
  return [best < 0 ? null : [best >> 16, (best >> 8) & 255, best & 255], n, total];
}
const percent = (n, total) => Math.round((100 * n) / Math.max(total, 1));
// An anti-aliased edge blends the colour with what is under it.
// How much of `colour` over `under` explains pixel `p` (0..1), or 0 when the blend does not explain it.
function coverage(p, colour, under) {
  const d = colour.map((v, i) => v - under[i]);
  const q = p.map((v, i) => v - under[i]);
  const alpha = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / (d[0] ** 2 + d[1] ** 2 + d[2] ** 2);
  const residual = Math.hypot(...q.map((v, i) => v - alpha * d[i]));
  return residual <= 30 ? Math.max(0, Math.min(1, alpha)) : 0;
}

// The page's frame: what a screenshot's pixels are measured against.
const FRAME = `({ dpr: devicePixelRatio, scrollX, scrollY, innerWidth, innerHeight,
  clientWidth: document.documentElement.clientWidth,
  pageHeight: document.documentElement.scrollHeight })`;

/**
 * Captures `tab` into `path` (the PNG the suite keeps), decodes the file and
 * measures the page in the same state: `probe` is a page expression giving
 * {name: geometry} (client CSS pixels). Returns a Shot.
 */
export async function shoot(tab, path, probe = '({})') {
  await tab.screenshot(path);
  const png = decodePng(readFileSync(path));
  const { frame, found } = await tab.evaluate(`({ frame: ${FRAME}, found: ${probe} })`);
  const { dpr } = frame;
  const fullPage = Math.abs(png.height - frame.pageHeight * dpr) <= 2;
  const viewport = Math.abs(png.height - frame.innerHeight * dpr) <= 2;
  if (!fullPage && !viewport) {
    throw new Error(
      `${path}: ${png.width}x${png.height} is neither the page (height ${frame.pageHeight}) nor the viewport (${frame.innerHeight}) at devicePixelRatio ${dpr}`,
    );
  }
  if (png.width < frame.clientWidth * dpr - 2 || png.width > frame.innerWidth * dpr + 2) {
    throw new Error(`${path}: ${png.width} pixels wide, the page ${frame.clientWidth}..${frame.innerWidth} at ${dpr}`);
  }
  const dx = fullPage ? frame.scrollX : 0;
  const dy = fullPage ? frame.scrollY : 0;
  return {
    path,
    png,
    found,
    dpr,
    /** The image's pixel rows and columns under client rect `r` ({left, top, width, height}, CSS px). */
    box: (r) => ({
      left: (r.left + dx) * dpr,
      top: (r.top + dy) * dpr,
      right: (r.left + r.width + dx) * dpr,
      bottom: (r.top + r.height + dy) * dpr,
    }),
    /** Whether client rect `r` is wholly in the image. */
    holds(r) {
      const b = this.box(r);
      return b.left >= 0 && b.top >= 0 && b.right <= png.width && b.bottom <= png.height && r.width > 0;
    },
    /** The pixel at device x, y (non-negative: | 0 floors). */
    pixel(x, y) {
      const i = ((y | 0) * png.width + (x | 0)) * 4;
      return [png.rgba[i], png.rgba[i + 1], png.rgba[i + 2]];
    },
  };
}

/**
 * Shots that together hold every element `probe` names wholly (a whole-page
 * capture holds all in one; a viewport capture scrolls to each one missing,
 * by `selectors[name]`, and captures again, into path-1.png, path-2.png, ...).
 * Each entry of `probe`'s result must have a `rect`. Returns {name: shot}.
 * The page's scroll position is restored.
 */
export async function shotsCovering(tab, path, probe, selectors) {
  const start = await tab.evaluate('[scrollX, scrollY]');
  const byName = {};
  let shot = await shoot(tab, path, probe);
  for (let n = 1; ; n++) {
    for (const [name, g] of Object.entries(shot.found)) if (!byName[name] && shot.holds(g.rect)) byName[name] = shot;
    const missing = Object.keys(shot.found).filter((name) => !byName[name]);
    if (missing.length === 0) break;
    if (n > Object.keys(shot.found).length) throw new Error(`${path}: never wholly on screen: ${missing.join(', ')}`);
    await tab.evaluate(
      `document.querySelector(${JSON.stringify(selectors[missing[0]])}).scrollIntoView({ block: 'center' })`,
    );
    shot = await shoot(tab, path.replace(/\.png$/, `-${n}.png`), probe);
  }
  await tab.evaluate(`scrollTo(${start[0]}, ${start[1]})`);
  return Object.fromEntries(Object.entries(byName).map(([name, s]) => [name, { shot: s, geometry: s.found[name] }]));
}

/**
 * Problems with a box drawn at client rect `rect` with a `stroke` border
 * (anti-aliased, so at least half-covering pixels within 3 px of each side,
 * away from the rounded corners) and a `fill` (the commonest colour inside,
 * text aside, within 4 levels).
 */
export function boxProblems(shot, rect, { stroke, fill }, name) {
  const b = shot.box(rect);
  const problems = [];
  const inset = 4 * shot.dpr;
  const inside = { left: b.left + inset, top: b.top + inset, right: b.right - inset, bottom: b.bottom - inset };
  const [colour, n, total] = commonest(shot.png, inside);
  if (colour === null || !near(colour, rgb(fill), 4) || n < total / 2) {
    problems.push(`${name}: filled ${colour && hex(colour)} (${percent(n, total)}% of it), not ${fill}`);
  }
  const reach = Math.ceil(3 * shot.dpr);
  const under = rgb(fill);
  const best = (points) => Math.max(...points.map(([x, y]) => coverage(shot.pixel(x, y), rgb(stroke), under)));
  const across = (x, y, vertical) =>
    Array.from({ length: 2 * reach + 1 }, (_, k) => (vertical ? [x, y - reach + k] : [x - reach + k, y]));
  const sides = {
    top: [0.2, 0.8].map((f) => across(b.left + f * (b.right - b.left), b.top, true)),
    bottom: [0.2, 0.8].map((f) => across(b.left + f * (b.right - b.left), b.bottom, true)),
    left: [0.5].map((f) => across(b.left, b.top + f * (b.bottom - b.top), false)),
    right: [0.5].map((f) => across(b.right, b.top + f * (b.bottom - b.top), false)),
  };
  for (const [side, probes] of Object.entries(sides)) {
    for (const points of probes) {
      const c = best(points);
      if (c < 0.45) {
        const [x, y] = points[reach];
        problems.push(
          `${name}: no ${stroke} border on its ${side} side near (${Math.round(x)}, ${Math.round(y)}): found ${hex(shot.pixel(x, y))}`,
        );
      }
    }
  }
  return problems;
}

/**
 * A page expression for a Chart.js chart's claims: the canvas's client rect,
 * its plot area, and (in a bar chart) each bar: dataset, index, centre x,
 * width, the pixel rows of its value and of the base (from the chart's own
 * scales), colour. Chart coordinates are CSS px in the canvas.
 */
export const chartGeometry = (chart) => `(() => {
  const c = ${chart};
  const r = c.canvas.getBoundingClientRect();
  const bars = c.data.datasets.flatMap((d, k) => c.getDatasetMeta(k).hidden ? [] : c.getDatasetMeta(k).data.map((e, i) => ({
    dataset: k, index: i, x: e.x, width: e.width,
    top: c.scales.y.getPixelForValue(d.data[i]), base: c.scales.y.getBasePixel(),
    colour: Array.isArray(d.backgroundColor) ? d.backgroundColor[i] : d.backgroundColor,
  })));
  return { rect: { left: r.left, top: r.top, width: r.width, height: r.height }, area: { ...c.chartArea }, bars };
})()`;

/**
 * Problems with the bars of a bar chart (chartGeometry's): each bar at least
 * 3 px high must be its colour (within 8 levels) over 90% of its centre
 * column between its value's row and the base (all but one row of a short
 * bar: its ends are anti-aliased or under the axis), and not its colour just
 * above its value (it is not drawn taller). At least half the bars must be
 * that high (a chart drawn flat fails). `expectColours(bar)` is the colour a
 * bar must have (the test's palette, so that a wrong colour in the chart's
 * data fails too; by default the chart's own).
 */
export function barProblems(shot, geometry, name, expectColours = (bar) => bar.colour) {
  const problems = [];
  const toX = (x) => shot.box({ left: geometry.rect.left + x, top: 0, width: 0, height: 0 }).left;
  const toY = (y) => shot.box({ left: 0, top: geometry.rect.top + y, width: 0, height: 0 }).top;
  const areaTop = toY(geometry.area.top);
  let checked = 0;
  for (const bar of geometry.bars) {
    const colour = expectColours(bar);
    const want = rgb(colour);
    const x = toX(bar.x);
    const top = toY(Math.min(bar.top, bar.base));
    const base = toY(Math.max(bar.top, bar.base));
    if (base - top < 3 * shot.dpr) continue;
    checked++;
    let inColour = 0;
    let rows = 0;
    for (let y = Math.ceil(top + shot.dpr); y < base - shot.dpr; y++, rows++) {
      if (near(shot.pixel(x, y), want, 8)) inColour++;
    }
    const label = `${name} bar ${bar.index}${geometry.bars.some((b) => b.dataset > 0) ? ` (dataset ${bar.dataset})` : ''}`;
    if (inColour < Math.min(0.9 * rows, rows - 1)) {
      problems.push(
        `${label}: ${inColour} of ${rows} pixels at x ${Math.round(x)}, rows ${Math.round(top)}..${Math.round(base)} are ${colour}; found ${hex(shot.pixel(x, (top + base) / 2))}`,
      );
    }
    const above = [3, 4, 5, 6].map((k) => top - k * shot.dpr).filter((y) => y > areaTop);
    if (above.some((y) => near(shot.pixel(x, y), want, 8))) {
      problems.push(`${label}: drawn above its value's row ${Math.round(top)}`);
    }
  }
  if (checked < geometry.bars.length / 2) {
    problems.push(`${name}: only ${checked} of ${geometry.bars.length} bars are 3 px or higher`);
  }
  return problems;
}

/**
 * How many bars the pixels show in a bar chart (chartGeometry's): runs of
 * columns in any of `colours` along the row 2 px above the base, across the
 * plot area. Counted from the image alone, so it does not take the chart's
 * word for where its bars are.
 */
export function barsAlongBase(shot, geometry, colours) {
  const wanted = colours.map(rgb);
  const toDevice = (x, y) =>
    shot.box({ left: geometry.rect.left + x, top: geometry.rect.top + y, width: 0, height: 0 });
  const y = toDevice(0, geometry.bars[0]?.base ?? geometry.area.bottom).top - 2 * shot.dpr;
  const from = toDevice(geometry.area.left, 0).left;
  const to = toDevice(geometry.area.right, 0).left;
  let runs = 0;
  let inBar = false;
  for (let x = Math.ceil(from); x < to; x++) {
    const p = shot.pixel(x, y);
    const bar = wanted.some((c) => near(p, c, 8));
    if (bar && !inBar) runs++;
    inBar = bar;
  }
  return runs;
}

/**
 * Problems with a chart canvas that should hold a drawing: no single colour
 * may cover more than `maxShare` of its plot area (a blank, white or black
 * canvas fails), and each of `colours` ({name: '#rrggbb'}) must be present in
 * at least `minPixels` pixels of it (within 8 levels).
 */
export function drawnProblems(shot, rect, area, name, { colours = {}, minPixels = 20, maxShare = 0.97 } = {}) {
  const b = shot.box({
    left: rect.left + area.left,
    top: rect.top + area.top,
    width: area.right - area.left,
    height: area.bottom - area.top,
  });
  const wanted = Object.entries(colours).map(([k, c]) => [k, rgb(c)]);
  const found = Object.fromEntries(wanted.map(([k]) => [k, 0]));
  for (let y = Math.ceil(b.top); y < b.bottom; y++) {
    for (let x = Math.ceil(b.left); x < b.right; x++) {
      const p = shot.pixel(x, y);
      for (const [k, c] of wanted) if (near(p, c, 8)) found[k]++;
    }
  }
  const problems = [];
  const [most, n, total] = commonest(shot.png, b);
  if (total === 0 || n > maxShare * total) {
    problems.push(`${name}: ${percent(n, total)}% of its plot area is ${most && hex(most)}`);
  }
  for (const [k, count] of Object.entries(found)) {
    if (count < minPixels) problems.push(`${name}: ${count} pixels of ${k} (${colours[k]}), fewer than ${minPixels}`);
  }
  return problems;
}

/**
 * Problems with the boxes of a scrolled drawing: `scroller` (a selector) is
 * scrolled through in steps, captured at each (path, then path-scroll1.png,
 * ...), and every `box` (a selector of elements whose closest `[data-node]`
 * names them) wholly visible in a step is checked with boxProblems, in the
 * colours `styleOf(name)` gives. Returns {problems, seen} (the names
 * checked; a box never wholly visible is not in it). Scroll positions are restored.
 */
export async function scrolledBoxProblems(tab, path, { scroller, box, styleOf }) {
  const s = JSON.stringify(scroller);
  const start = await tab.evaluate(`[scrollX, scrollY, document.querySelector(${s}).scrollTop]`);
  await tab.evaluate(`document.querySelector(${s}).scrollIntoView({ block: 'center' })`);
  const probe = `(() => {
    const el = document.querySelector(${s});
    const r = el.getBoundingClientRect();
    const view = { left: r.left + el.clientLeft, top: r.top + el.clientTop, width: el.clientWidth, height: el.clientHeight };
    const boxes = [...el.querySelectorAll(${JSON.stringify(box)})].map((b) => {
      const q = b.getBoundingClientRect();
      return { name: b.closest('[data-node]').dataset.node, rect: { left: q.left, top: q.top, width: q.width, height: q.height } };
    });
    return { view, boxes, scrollTop: el.scrollTop, scrollHeight: el.scrollHeight };
  })()`;
  const problems = [];
  const seen = new Set();
  for (let pass = 0, top = 0; ; pass++) {
    await tab.evaluate(`document.querySelector(${s}).scrollTop = ${top}`);
    const shot = await shoot(tab, pass === 0 ? path : path.replace(/\.png$/, `-scroll${pass}.png`), probe);
    const { view, boxes, scrollHeight } = shot.found;
    const inView = (r) =>
      r.left >= view.left &&
      r.top >= view.top &&
      r.left + r.width <= view.left + view.width &&
      r.top + r.height <= view.top + view.height;
    for (const { name, rect } of boxes) {
      if (seen.has(name) || !inView(rect) || !shot.holds(rect)) continue;
      seen.add(name);
      problems.push(...boxProblems(shot, rect, styleOf(name), `${name} (${shot.path.split('/').at(-1)})`));
    }
    if (top + view.height >= scrollHeight) break;
    const tallest = Math.max(...boxes.map((b) => b.rect.height));
    top += Math.max(50, Math.floor(view.height - tallest - 10));
  }
  await tab.evaluate(`(document.querySelector(${s}).scrollTop = ${start[2]}, scrollTo(${start[0]}, ${start[1]}))`);
  return { problems, seen: [...seen] };
}

/**
 * A page expression for canvas `id`'s own pixels (getImageData, RGB as
 * base64) and its content box (client CSS px, inside its border): what a
 * screenshot must show there, scaled.
 */
export const canvasPixels = (id) => `(() => {
  const c = document.getElementById(${JSON.stringify(id)});
  const r = c.getBoundingClientRect();
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let s = '';
  for (let i = 0; i < d.length; i += 4) s += String.fromCharCode(d[i], d[i + 1], d[i + 2]);
  return {
    rect: { left: r.left + c.clientLeft, top: r.top + c.clientTop, width: c.clientWidth, height: c.clientHeight },
    width: c.width, height: c.height, rgb: btoa(s),
  };
})()`;

/**
 * Problems with a canvas (canvasPixels') as the screenshot shows it: at the
 * centre of each canvas pixel's place on screen (the canvas is scaled up,
 * pixelated), the screenshot's colour must be the canvas's own within 3
 * levels, for all but 1% of its pixels (a canvas not drawn on screen, or
 * drawn with other data, fails).
 */
export function canvasProblems(shot, geometry, name) {
  const rgbData = Buffer.from(geometry.rgb, 'base64');
  const b = shot.box(geometry.rect);
  const sx = (b.right - b.left) / geometry.width;
  const sy = (b.bottom - b.top) / geometry.height;
  let wrong = 0;
  let first = null;
  for (let j = 0; j < geometry.height; j++) {
    for (let i = 0; i < geometry.width; i++) {
      const k = (j * geometry.width + i) * 3;
      const want = [rgbData[k], rgbData[k + 1], rgbData[k + 2]];
      const got = shot.pixel(b.left + (i + 0.5) * sx, b.top + (j + 0.5) * sy);
      if (!near(got, want, 3)) {
        wrong++;
        first ??= `(${i}, ${j}) is ${hex(got)} on screen, ${hex(want)} in the canvas`;
      }
    }
  }
  const total = geometry.width * geometry.height;
  return wrong > total / 100
    ? [`${name}: ${wrong} of ${total} pixels differ from the canvas's own; first ${first}`]
    : [];
}
