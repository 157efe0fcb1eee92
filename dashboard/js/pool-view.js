import { agoNode, byId, el, fillTable, setText } from './dom.js';
import { explorerNode } from './explorer-links.js';
import {
  formatAgo,
  formatAtomic,
  formatBigDecimal,
  formatCount,
  formatDateTime,
  formatDuration,
  formatHashrate,
  formatPercent,
  groupDigits,
  networkHashrate,
  shorten,
} from './format.js';
import { HashrateChart } from './hashrate-chart.js';

const NOT_AVAILABLE = 'not available on this node';
const SCHEMES = { pplns: 'PPLNS', prop: 'Proportional', solo: 'Solo' };

/** The address link used in tables: miner pages are `#/miner/<address>`. */
export function minerLink(address, keep = 6) {
  return el(
    'a',
    { href: `#/miner/${encodeURIComponent(address)}`, title: address, class: 'mono' },
    shorten(address, keep),
  );
}

/** An XMRig command line for one stratum port of this pool. */
export function xmrigCommand(host, port) {
  const server = host.includes(':') ? `[${host}]:${port.port}` : `${host}:${port.port}`;
  return `xmrig -a cn/upx2 -o ${server} -u YOUR_XFG_ADDRESS -p x${port.tls ? ' --tls' : ''}`;
}

function portType(port) {
  return `${port.tls ? 'TLS' : 'TCP'}${port.solo ? ', solo' : ''}`;
}

/**
 * The pool overview: statistics, chart, how to connect, network (with fee pool and HEAT), blocks
 * and payments. It only renders what it is given; main.js decides when to fetch.
 */
export class PoolView {
  #chart = null;
  #poolName = null;
  #coinDecimals = 7;
  #unlockDepth = null;
  #liveTicks = 0;
  #explorer = null;
  #blocksPage = null;
  #paymentsPage = null;

  constructor(host) {
    this.host = host;
  }

  get coinDecimals() {
    return this.#coinDecimals;
  }

  /** The explorer link templates of /api/stats (`explorer`); null before it answered. */
  get explorer() {
    return this.#explorer;
  }

  /** The pool's name (`pool.name`, part of the messages miners sign); null before /api/stats answered. */
  get poolName() {
    return this.#poolName;
  }

  renderStats(stats) {
    const { pool, coin, network } = stats;
    this.#coinDecimals = coin.decimals;
    this.#poolName = pool.name;
    this.#unlockDepth = pool.payments.unlockDepth;
    setText('pool-name', pool.name);
    this.applyHashrate(pool);
    setText('pool-effort', formatPercent(pool.round.effortPercent));
    this.#renderLuck(pool.luck);
    setText('pool-blocks-found', formatCount(pool.blocksFound));
    const lastBlock = byId('pool-last-block');
    lastBlock.replaceChildren(
      pool.lastBlock === null ? 'never' : agoNode(pool.lastBlock.timestampMs, formatAgo, formatDateTime),
    );
    this.#renderConnect(pool);
    this.#renderNetwork(network, coin);
    this.#setExplorer(stats.explorer ?? null);
  }

  /** From /api/stats or a `pool-hashrate` feed message (`{hashrate, miners, workers}`). */
  applyHashrate({ hashrate, miners, workers }) {
    setText('pool-hashrate', formatHashrate(hashrate));
    setText('pool-miners', formatCount(miners));
    setText('pool-workers', formatCount(workers));
  }

  /** A `pool-hashrate` message: the numbers, plus the chart's live point. */
  applyLive(data, timestampMs) {
    this.applyHashrate(data);
    this.#liveTicks += 1;
    byId('pool-hashrate').setAttribute('data-live-ticks', String(this.#liveTicks));
    this.#ensureChart().setLive(data.hashrate, timestampMs);
  }

  renderChart(chart) {
    this.#ensureChart().setPoints(chart);
  }

  renderBlocks(page) {
    this.#blocksPage = page;
    const decimals = this.#coinDecimals;
    fillTable(
      byId('blocks-body'),
      page.blocks,
      (block) => [
        [{ class: 'num' }, formatCount(block.height)],
        agoNode(block.timestampMs, formatAgo, formatDateTime),
        this.#statusBadge(block),
        [{ class: 'num' }, formatPercent(block.effortPercent)],
        [{ class: 'num' }, block.rewardAtomic === null ? '—' : formatAtomic(block.rewardAtomic, decimals)],
        minerLink(block.finderAddress),
        explorerNode(this.#explorer, 'block', block.hash),
      ],
      'No blocks found yet.',
    );
  }

  renderPayments(page) {
    this.#paymentsPage = page;
    const decimals = this.#coinDecimals;
    fillTable(
      byId('payments-body'),
      page.payments,
      (payment) => [
        agoNode(payment.timestampMs, formatAgo, formatDateTime),
        explorerNode(this.#explorer, 'transaction', payment.transactionHash),
        [{ class: 'num' }, formatCount(payment.recipients)],
        [{ class: 'num' }, formatAtomic(payment.amountAtomic, decimals)],
        [{ class: 'num' }, formatAtomic(payment.feeAtomic, decimals)],
      ],
      'No payments sent yet.',
    );
  }

  #statusBadge(block) {
    let text = block.status;
    if (block.status === 'pending' && block.confirmations !== null && this.#unlockDepth !== null) {
      text = `pending ${Math.min(block.confirmations, this.#unlockDepth)}/${this.#unlockDepth}`;
    }
    // The unlocker's note says why a pending block waits (e.g. another block holds its height for now).
    return el('span', { class: `badge ${block.status}`, title: block.unlockNote ?? null }, text);
  }

  /** Mean effort of the last blocks (API.md "Effort and luck"); the card's title says how many counted. */
  #renderLuck(luck) {
    setText('pool-luck-blocks', formatCount(luck.blocks));
    setText('pool-luck', formatPercent(luck.meanEffortPercent));
    byId('pool-luck').setAttribute(
      'title',
      `mean effort of the last ${luck.blocks} blocks (orphans included, solo blocks skipped): ${luck.counted} counted`,
    );
  }

  /** New link templates: the tables drawn before /api/stats answered are drawn again with links. */
  #setExplorer(explorer) {
    if (JSON.stringify(explorer) === JSON.stringify(this.#explorer)) return;
    this.#explorer = explorer;
    if (this.#blocksPage !== null) this.renderBlocks(this.#blocksPage);
    if (this.#paymentsPage !== null) this.renderPayments(this.#paymentsPage);
  }

  #ensureChart() {
    this.#chart ??= new HashrateChart(byId('pool-chart'), 'Pool hashrate');
    return this.#chart;
  }

  #renderConnect(pool) {
    fillTable(
      byId('ports-body'),
      pool.ports,
      (port) => [
        el('strong', {}, String(port.port)),
        el('span', { title: port.description }, portType(port)),
        [{ class: 'num' }, formatCount(port.difficulty)],
        port.varDiff ? 'yes' : 'fixed',
      ],
      'No stratum ports are configured.',
    );
    // One command per kind of port (plain, TLS, solo): enough to copy from, short enough to read.
    const seen = new Set();
    const commands = [];
    for (const port of pool.ports) {
      const kind = portType(port);
      if (seen.has(kind)) continue;
      seen.add(kind);
      commands.push(
        el('p', { class: 'command-label' }, `${kind} (port ${port.port})`),
        el(
          'pre',
          { class: 'command', 'data-port': port.port },
          el('code', {}, xmrigCommand(this.host, port)),
        ),
      );
    }
    byId('xmrig-commands').replaceChildren(...commands);

    const payments = pool.payments;
    const windowText =
      payments.pplnsWindowFactor === null ? '' : ` (window ${payments.pplnsWindowFactor}× difficulty)`;
    setText('pay-scheme', `${SCHEMES[payments.scheme] ?? payments.scheme}${windowText}`);
    setText(
      'pay-fee',
      payments.soloFeePercent === payments.feePercent
        ? `${payments.feePercent} %`
        : `${payments.feePercent} % (solo ${payments.soloFeePercent} %)`,
    );
    setText('pay-min', `${formatAtomic(payments.minPaymentAtomic, this.#coinDecimals)} XFG`);
    setText('pay-interval', formatDuration(payments.intervalSeconds));
    setText('pay-unlock', `${formatCount(payments.unlockDepth)} confirmations`);
    setText('pay-fee-by', payments.networkFeePaidBy === 'pool' ? 'the pool' : 'the miners');
  }

  #renderNetwork(network, coin) {
    byId('net-unavailable').hidden = network !== null;
    if (network === null) return;
    const decimals = coin.decimals;
    const rate = networkHashrate(network.difficulty, coin.blockTargetSeconds);
    setText('net-hashrate', rate === null ? '—' : formatHashrate(rate));
    setText('net-height-card', formatCount(network.height));
    setText('net-height', formatCount(network.height));
    setText('net-difficulty', formatBigDecimal(network.difficulty));
    setText('net-reward', `${formatAtomic(network.lastBlockRewardAtomic, decimals)} XFG`);
    byId('net-last-block').replaceChildren(agoNode(network.lastBlockTimestampMs, formatAgo, formatDateTime));
    const topHash = byId('net-top-hash');
    topHash.textContent = shorten(network.topBlockHash);
    topHash.title = network.topBlockHash;
    setText('net-version', `${network.majorVersion}.${network.minorVersion}`);
    setText('net-txpool', formatCount(network.txPoolSize));
    setText('net-deposits', `${formatAtomic(network.depositsLockedAtomic, decimals)} XFG`);
    setText('net-daemon', network.daemonVersion);

    const feePool = network.feePool;
    byId('fee-pool').replaceChildren(
      feePool.status === 'ok'
        ? facts([
            ['Balance', `${formatAtomic(feePool.balanceAtomic, decimals)} XFG`],
            ['Swap fees this epoch', `${formatAtomic(feePool.currentEpochSwapFeesAtomic, decimals)} XFG`],
            // HEAT CD principal (the interface's total_cd_locked): HEAT, not XFG; raw atomic units.
            ['CD locked', `${groupDigits(feePool.totalCdLockedAtomic)} atomic units of HEAT`],
            ['Epoch', formatCount(feePool.currentEpoch)],
          ])
        : unavailable(feePool),
    );
    const heat = network.heatDeposits;
    byId('heat-deposits').replaceChildren(
      heat.status === 'ok'
        ? facts([
            ['Deposits', formatCount(heat.count)],
            // Per kind, in the kind's asset as the API names it (a HEAT deposit's amount is not XFG):
            // no sum across kinds, and the raw atomic amount, since the pool knows no asset's
            // decimals but its own coin's.
            ...Object.entries(heat.byType).map(([kind, entry]) => [
              `${kind} deposits`,
              `${formatCount(entry.count)} · ${groupDigits(entry.amountAtomic)} atomic units ${
                entry.asset === null ? '(asset not known to the pool)' : `of ${entry.asset}`
              }`,
            ]),
          ])
        : unavailable(heat),
    );
  }
}

function facts(pairs) {
  return el(
    'dl',
    { class: 'facts' },
    ...pairs.map(([term, value]) => el('div', {}, el('dt', {}, term), el('dd', {}, value))),
  );
}

/** "not available on this node" for a daemon without the endpoint; the API's message otherwise. */
function unavailable(view) {
  const text = view.status === 'not-available' ? NOT_AVAILABLE : `unknown: ${view.message}`;
  return el('p', { class: 'muted', 'data-status': view.status }, text);
}
