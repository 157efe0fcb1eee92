import { agoNode, byId, fillTable, setText } from './dom.js';
import { explorerNode } from './explorer-links.js';
import {
  formatAgo,
  formatAtomic,
  formatBigDecimal,
  formatDateTime,
  formatHashrate,
  formatPartPercent,
} from './format.js';
import { HashrateChart } from './hashrate-chart.js';
import { ThresholdPanel } from './threshold-panel.js';
import { WorkersPanel, workersCountText } from './workers-panel.js';

const MESSAGES = {
  NOT_FOUND: 'The pool has no record of this address yet. It appears here after its first accepted share.',
  INVALID_ADDRESS: 'This is not a valid Fuego address.',
};

/** One miner's page: hashrate (live), workers, balance, payout threshold, chart and payments. */
export class MinerView {
  #chart = null;
  #liveTicks = 0;
  #threshold;
  #workers = new WorkersPanel();
  #explorer;
  address = null;

  /**
   * `poolName()`: the pool's name once /api/stats answered; `explorer()`: its explorer link
   * templates; `onSaved()`: the threshold changed.
   */
  constructor({ poolName, explorer, onSaved }) {
    this.#threshold = new ThresholdPanel({ poolName, onSaved });
    this.#explorer = explorer;
  }

  /** Shows `address` (a new one clears what the previous address left on the page). */
  open(address) {
    if (address === this.address) return;
    this.address = address;
    this.#liveTicks = 0;
    setText('miner-address-text', address);
    setText('miner-alias', '');
    this.#setExportLinks(address);
    byId('miner-message').hidden = true;
    byId('miner-details').hidden = false;
    this.#chart?.clear();
    this.#workers.clear();
    this.#threshold.open(address);
    for (const id of [
      'miner-hashrate',
      'miner-last-share',
      'miner-workers-count',
      'miner-round-share',
      'miner-hashes',
      'miner-pending',
      'miner-unlocked',
      'miner-in-payout',
      'miner-paid',
    ]) {
      setText(id, '—');
    }
  }

  render(miner, decimals) {
    if (miner.address !== this.address) return;
    byId('miner-address-text').replaceChildren(
      explorerNode(this.#explorer(), 'address', miner.address, null),
    );
    setText('miner-alias', miner.alias === null ? '' : `“${miner.alias}”`);
    setText('miner-hashrate', formatHashrate(miner.hashrate));
    byId('miner-last-share').replaceChildren(
      miner.lastShareMs === null ? 'never' : agoNode(miner.lastShareMs, formatAgo, formatDateTime),
    );
    setText('miner-workers-count', workersCountText(miner.workers));
    const balance = miner.balance;
    const coins = (atomic) => (balance === null ? 'not tracked' : `${formatAtomic(atomic, decimals)} XFG`);
    const { submitted } = miner;
    setText(
      'miner-round-share',
      formatPartPercent(submitted.roundDifficulty, submitted.roundTotalDifficulty),
    );
    setText('miner-hashes', formatBigDecimal(submitted.totalDifficulty));
    setText('miner-pending', balance?.pendingAtomic === null ? '—' : coins(balance?.pendingAtomic));
    setText('miner-unlocked', coins(balance?.unlockedAtomic));
    setText('miner-in-payout', coins(balance?.inPayoutAtomic));
    setText('miner-paid', coins(balance?.paidAtomic));
    setText('miner-network-fees', balance === null ? '—' : formatAtomic(balance.networkFeesAtomic, decimals));
    this.#threshold.render(miner.payoutThreshold, miner.timestampMs, decimals);

    fillTable(
      byId('miner-payments-body'),
      miner.payments,
      (payment) => [
        agoNode(payment.timestampMs, formatAgo, formatDateTime),
        explorerNode(this.#explorer(), 'transaction', payment.transactionHash),
        [{ class: 'num' }, formatAtomic(payment.amountAtomic, decimals)],
        [{ class: 'num' }, formatAtomic(payment.networkFeeAtomic, decimals)],
      ],
      'No payments yet.',
    );
    this.#ensureChart().setPoints(miner.chart);
  }

  /** GET /api/miners/:address/workers: the workers table with its charts. */
  renderWorkers(view) {
    if (view.address !== this.address) return;
    this.#workers.render(view);
  }

  /** A `miner-hashrate` feed message. */
  applyLive({ address, hashrate }, timestampMs) {
    if (address !== this.address) return;
    setText('miner-hashrate', formatHashrate(hashrate));
    this.#liveTicks += 1;
    byId('miner-hashrate').setAttribute('data-live-ticks', String(this.#liveTicks));
    this.#chart?.setLive(hashrate, timestampMs);
  }

  /** An API error for this address (unknown, invalid, or the API is down). */
  showError(error) {
    const message = byId('miner-message');
    message.textContent = MESSAGES[error.code] ?? `The pool API did not answer (${error.code}).`;
    message.hidden = false;
    byId('miner-details').hidden = error.code === 'NOT_FOUND' || error.code === 'INVALID_ADDRESS';
  }

  clearError() {
    byId('miner-message').hidden = true;
    byId('miner-details').hidden = false;
  }

  /** The download links of the miner's payments and block rewards (API.md "Exports"). */
  #setExportLinks(address) {
    const base = `api/miners/${encodeURIComponent(address)}`;
    for (const kind of ['payments', 'rewards']) {
      for (const format of ['csv', 'json'])
        byId(`export-${kind}-${format}`).href = `${base}/${kind}.${format}`;
    }
  }

  #ensureChart() {
    // Created on first render: uPlot measures its container, which must be visible by then.
    this.#chart ??= new HashrateChart(byId('miner-chart'), 'Miner hashrate');
    return this.#chart;
  }
}
