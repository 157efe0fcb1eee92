import uPlot from '../vendor/uplot/uPlot.esm.js';
import { formatDateTime, formatHashrate } from './format.js';

const HEIGHT_PX = 220;
/** A worker's sparkline in the workers table: no axes, no legend, a fixed size. */
const COMPACT_SIZE = { width: 160, height: 36 };

function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/**
 * A hashrate-over-time line (uPlot, served locally from /vendor/uplot/). `points` are the API's
 * `{startMs, hashrate}`; an optional live point (from the WebSocket feed) is drawn at "now" so the
 * line moves between the API's 10-minute slots. The container keeps a text summary for screen
 * readers in its aria-label. `compact`: a small sparkline (a worker's row), without axes, legend
 * or cursor, at a fixed size.
 */
export class HashrateChart {
  #container;
  #label;
  #plot;
  #points = [];
  #live = null;
  #resolutionSeconds = 0;

  constructor(container, label, { compact = false } = {}) {
    this.#container = container;
    this.#label = label;
    const text = cssVar('--text');
    const grid = cssVar('--grid');
    const accent = cssVar('--accent');
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const size = compact ? COMPACT_SIZE : { width: this.#width(), height: HEIGHT_PX };
    this.#plot = new uPlot(
      {
        ...size,
        cursor: compact ? { show: false } : { y: false },
        legend: compact ? { show: false } : { live: true },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 1] } },
        axes: compact
          ? [{ show: false }, { show: false }]
          : [axis, { ...axis, size: 80, values: (_u, splits) => splits.map((v) => formatHashrate(v)) }],
        series: [
          { value: (_u, seconds) => (seconds === null ? '' : formatDateTime(seconds * 1000)) },
          {
            label,
            stroke: accent,
            fill: `${accent}33`,
            width: compact ? 1.5 : 2,
            // uPlot draws markers only where points are sparse (a lone first point stays visible).
            points: compact ? { show: false } : { size: 6, fill: accent },
            value: (_u, v) => (v === null ? '' : formatHashrate(v)),
          },
        ],
      },
      [[], []],
      container,
    );
    if (!compact) {
      new ResizeObserver(() => this.#plot.setSize({ width: this.#width(), height: HEIGHT_PX })).observe(
        container,
      );
    }
    this.#describe();
  }

  /** The API's chart (`{resolutionSeconds, points}`): replaces the line. */
  setPoints(chart) {
    this.#resolutionSeconds = chart.resolutionSeconds;
    this.#points = chart.points.map((p) => [p.startMs / 1000, p.hashrate]);
    this.#draw();
  }

  /** Empties the line (another miner's page). */
  clear() {
    this.#points = [];
    this.#live = null;
    this.#draw();
  }

  /** The current hashrate from the live feed, drawn at `atMs`. */
  setLive(hashrate, atMs) {
    this.#live = [atMs / 1000, hashrate];
    this.#draw();
  }

  #draw() {
    // The live value (a window average ending now) stands in for the API's current, partial slot.
    const live = this.#live;
    const rows =
      live === null
        ? this.#points
        : [...this.#points.filter((p) => p[0] + this.#resolutionSeconds <= live[0]), live];
    this.#plot.setData([rows.map((r) => r[0]), rows.map((r) => r[1])]);
    this.#describe();
  }

  #describe() {
    const last = this.#live ?? this.#points.at(-1);
    this.#container.setAttribute(
      'aria-label',
      last === undefined
        ? `${this.#label}: no data yet`
        : `${this.#label}: latest ${formatHashrate(last[1])}`,
    );
  }

  #width() {
    return Math.max(240, this.#container.clientWidth);
  }
}
