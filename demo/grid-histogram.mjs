// A histogram of float values with the quantization grid drawn on it (each
// tick a representable value): the scale explorer's channel view, and the
// Model view's weights of a layer against its int8 grid.
import { Chart } from 'chart.js';
import { histogram } from './stats.mjs';

const BLUE = '#2f6fdb';
const ORANGE = '#e07b00';
const BINS = 60;

/** A Chart.js chart for gridHistogram() on `canvas`. */
export function gridHistogramChart(canvas) {
  return new Chart(canvas, {
    type: 'line',
    data: {
      datasets: [
        {
          label: 'values (count per bin)',
          data: [],
          borderColor: BLUE,
          backgroundColor: 'rgba(47,111,219,0.25)',
          fill: true,
          stepped: 'middle',
          pointRadius: 0,
        },
        {
          label: 'quantization grid',
          type: 'scatter',
          data: [],
          borderColor: ORANGE,
          backgroundColor: ORANGE,
          pointStyle: 'line',
          rotation: 90,
          pointRadius: 6,
        },
      ],
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      parsing: false,
      plugins: { tooltip: { intersect: false } },
      scales: {
        x: { type: 'linear', title: { display: true, text: 'value (float units)' } },
        y: { beginAtZero: true, title: { display: true, text: 'count' } },
      },
    },
  });
}

/**
 * Shows `values` in `chart` with the grid (q - zeroPoint) * scale for q in
 * quantMin..quantMax that falls in their range. Returns how many grid points
 * were drawn.
 */
export function gridHistogram(chart, values, { scale, zeroPoint, quantMin, quantMax }) {
  const h = histogram(values, BINS);
  const width = (h.hi - h.lo) / BINS;
  chart.data.datasets[0].data = h.counts.map((n, i) => ({ x: h.lo + width * (i + 0.5), y: n }));
  const grid = [];
  const peak = Math.max(...h.counts);
  for (let q = quantMin; q <= quantMax; q++) {
    const v = (q - zeroPoint) * scale;
    if (v >= h.lo - width && v <= h.hi + width) grid.push({ x: v, y: peak * 0.04 });
  }
  chart.data.datasets[1].data = grid;
  chart.update();
  return grid.length;
}
