import { agoNode, byId, el, fillTable, setText } from './dom.js';
import { formatAgo, formatCount, formatDateTime, formatDuration, formatHashrate } from './format.js';
import { HashrateChart } from './hashrate-chart.js';

/**
 * The miner page's workers (GET /api/miners/:address/workers): one row per worker with its
 * hashrate, last share, an online/offline badge and a sparkline of its chart (the API sends charts
 * for the most recent workers only; the others get none). The sparklines outlive a re-render: each
 * worker's chart is kept by name and moved into the new row, so a refresh does not rebuild them.
 */
export class WorkersPanel {
  /** worker name -> { container, chart } */
  #charts = new Map();

  /** Another miner: forget the previous one's charts. */
  clear() {
    this.#charts.clear();
    byId('workers-body').replaceChildren();
    setText('workers-offline-after', '');
  }

  render(view) {
    const seen = new Set();
    const resolutionSeconds = view.chartResolutionSeconds;
    fillTable(
      byId('workers-body'),
      view.workers,
      (worker) => {
        seen.add(worker.name);
        return [
          worker.name,
          el(
            'span',
            { class: `badge ${worker.offline ? 'offline' : 'online'}` },
            worker.offline ? 'offline' : 'online',
          ),
          [{ class: 'num' }, formatHashrate(worker.hashrate)],
          agoNode(worker.lastShareMs, formatAgo, formatDateTime),
          this.#chartOf(worker, resolutionSeconds),
        ];
      },
      'No workers seen in the last 24 hours.',
    );
    for (const name of [...this.#charts.keys()]) if (!seen.has(name)) this.#charts.delete(name);
    setText(
      'workers-offline-after',
      `A worker is offline after ${formatDuration(view.offlineAfterSeconds)} without a share.`,
    );
  }

  /** The worker's sparkline, or an empty text when the API sent no chart for it. */
  #chartOf(worker, resolutionSeconds) {
    if (worker.chart === null) {
      this.#charts.delete(worker.name);
      return '';
    }
    let entry = this.#charts.get(worker.name);
    if (entry === undefined) {
      const container = el('div', { class: 'worker-chart', role: 'img' });
      entry = {
        container,
        chart: new HashrateChart(container, `${worker.name} hashrate`, { compact: true }),
      };
      this.#charts.set(worker.name, entry);
    }
    entry.chart.setPoints({ resolutionSeconds, points: worker.chart });
    return entry.container;
  }
}

/** "3" or "2 (+1 offline)": the workers card. */
export function workersCountText(workers) {
  const offline = workers.filter((worker) => worker.offline).length;
  const online = formatCount(workers.length - offline);
  return offline === 0 ? online : `${online} (+${formatCount(offline)} offline)`;
}
