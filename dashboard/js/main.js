import { ApiRequestError, poolApi } from './api.js';
import { byId, refreshRelativeTimes } from './dom.js';
import { formatAgo } from './format.js';
import { LiveFeedClient, liveFeedUrl } from './live-feed.js';
import { MinerView } from './miner-view.js';
import { PoolView } from './pool-view.js';

/**
 * Wiring: the hash router (`#/` overview, `#/miner/<address>` a miner), the live feed, and when to
 * fetch what. Numbers that the feed carries (pool and miner hashrate) update on every tick; events
 * (blocks, payments, a new network block) trigger a re-read of the affected API routes; a slow
 * timer re-reads everything in case the feed is down.
 */

const FALLBACK_REFRESH_MS = 30_000;
const CHART_REFRESH_MS = 60_000;
const EVENT_DEBOUNCE_MS = 400;
const BLOCK_ROWS = 15;
const PAYMENT_ROWS = 10;
const STATUS_TEXT = { connecting: 'Connecting…', live: 'Live', offline: 'Offline, retrying…' };

const poolView = new PoolView(location.hostname);
const minerView = new MinerView({
  poolName: () => poolView.poolName,
  explorer: () => poolView.explorer,
  onSaved: () => void load('miner'),
});
const pending = new Set();
let pendingTimer = null;

function showMessage(text) {
  const message = byId('page-message');
  message.textContent = text ?? '';
  message.hidden = text === null;
}

/** Runs one fetch-and-render; an unreachable API shows a banner instead of a console error. */
async function load(what) {
  try {
    switch (what) {
      case 'stats':
        poolView.renderStats(await poolApi.stats());
        break;
      case 'chart':
        poolView.renderChart(await poolApi.poolChart());
        break;
      case 'blocks':
        poolView.renderBlocks(await poolApi.blocks(BLOCK_ROWS));
        break;
      case 'payments':
        poolView.renderPayments(await poolApi.payments(PAYMENT_ROWS));
        break;
      case 'miner':
        await loadMiner();
        break;
    }
    showMessage(null);
  } catch (error) {
    if (!(error instanceof ApiRequestError)) throw error;
    showMessage(`The pool API did not answer (${error.code}). Retrying…`);
  }
}

async function loadMiner() {
  const address = minerView.address;
  if (address === null || byId('miner-view').hidden) return;
  try {
    const [miner, workers] = await Promise.all([poolApi.miner(address), poolApi.minerWorkers(address)]);
    minerView.clearError();
    minerView.render(miner, poolView.coinDecimals);
    minerView.renderWorkers(workers);
  } catch (error) {
    if (!(error instanceof ApiRequestError) || error.status === 0) throw error;
    minerView.showError(error);
  }
}

/** Coalesces the re-reads several events in a row ask for. */
function refreshSoon(...what) {
  for (const item of what) pending.add(item);
  if (pendingTimer !== null) return;
  pendingTimer = setTimeout(() => {
    pendingTimer = null;
    const batch = [...pending];
    pending.clear();
    for (const item of batch) void load(item);
  }, EVENT_DEBOUNCE_MS);
}

function onFeedMessage(message) {
  switch (message.type) {
    case 'pool-hashrate':
      poolView.applyLive(message.data, message.timestampMs);
      break;
    case 'miner-hashrate':
      minerView.applyLive(message.data, message.timestampMs);
      break;
    case 'network-block':
      refreshSoon('stats');
      break;
    case 'block-found':
    case 'block-confirmed':
    case 'block-orphaned':
    case 'block-orphaned-after-credit': // /api/blocks lists it as orphaned
      refreshSoon('stats', 'blocks', 'miner');
      break;
    case 'payment-sent':
      refreshSoon('stats', 'payments', 'miner');
      break;
  }
}

function onFeedStatus(state) {
  const status = byId('feed-status');
  status.setAttribute('data-state', state);
  status.textContent = STATUS_TEXT[state] ?? state;
}

const feed = new LiveFeedClient(liveFeedUrl(location.href), {
  onMessage: onFeedMessage,
  onStatus: onFeedStatus,
});

function route() {
  const match = /^#\/miner\/([^/?#]+)$/.exec(location.hash);
  const address = match ? decodeURIComponent(match[1]) : null;
  byId('pool-view').hidden = address !== null;
  byId('miner-view').hidden = address === null;
  if (minerView.address !== null && minerView.address !== address) feed.unfollow(minerView.address);
  if (address === null) {
    minerView.address = null;
    document.title = 'fuego-pool · Fuego (XFG) mining pool';
    // In-page links (#connect, #blocks) scroll once the overview is visible again.
    if (location.hash.length > 2) document.getElementById(location.hash.slice(1))?.scrollIntoView();
    return;
  }
  minerView.open(address);
  document.title = `Miner ${address.slice(0, 12)}… · fuego-pool`;
  feed.follow(address);
  void load('miner');
  byId('main').focus({ preventScroll: true });
}

byId('miner-search').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = byId('miner-address');
  const address = input.value.trim();
  if (address === '') return;
  location.hash = `#/miner/${encodeURIComponent(address)}`;
});

window.addEventListener('hashchange', route);
route();
for (const what of ['stats', 'chart', 'blocks', 'payments']) void load(what);
feed.connect();
setInterval(() => {
  // With the feed up, events drive the tables; this catches anything missed (and a dead feed).
  for (const what of ['stats', 'blocks', 'payments', 'miner']) void load(what);
}, FALLBACK_REFRESH_MS);
setInterval(() => void load('chart'), CHART_REFRESH_MS);
setInterval(() => refreshRelativeTimes(document, formatAgo), 5_000);
