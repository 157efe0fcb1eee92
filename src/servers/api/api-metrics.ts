import { type Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { PoolEventBus } from '../../pool/events.js';
import type { PoolBackendMetrics } from '../../pool/pool-backend.js';
import type { ShareVerifierPoolMetrics } from '../../pow/verifier-pool.js';
import type { ShareLedgerMetrics } from '../../store/shares/redis-share-ledger.js';
import type { StratumMetricsSnapshot } from '../stratum/stratum-metrics.js';
import { counter, gauge } from './metric-factories.js';
import {
  type DaemonChainSnapshot,
  type DependencySnapshot,
  daemonChainMetrics,
  dependencyMetrics,
  lastBroadcastMetrics,
  lastShareMetrics,
  leaderMetrics,
  orphanedAfterCreditMetrics,
  orphanSettlementMetrics,
  type PayoutWatchSnapshot,
  payoutWatchMetrics,
  powImplementationMetrics,
  type SolvencySnapshot,
  solvencyMetrics,
  undecidedBlockMetrics,
} from './operations-metrics.js';

/**
 * Snapshot providers read at scrape time; each is optional (an API-only node has no stratum).
 * Totals in the snapshots are turned into Prometheus counters by adding the growth since the
 * previous scrape, so the exported type stays `counter` (rate() works) without the pool core
 * knowing about prom-client.
 */
export interface MetricsSources {
  readonly stratum?: () => StratumMetricsSnapshot;
  readonly backend?: () => PoolBackendMetrics;
  readonly verifier?: () => ShareVerifierPoolMetrics;
  readonly shareLedger?: () => ShareLedgerMetrics;
  readonly templateAgeMs?: () => number | undefined;
  readonly liveFeedClients?: () => number;
  /** What the API turned away or dropped so far, by reason (rate limit, live feed caps). */
  readonly apiRefusals?: () => Readonly<Record<string, number>>;
  /** Peers whose new connections to the API port the kernel drops now (floodDrop). */
  readonly apiFloodDropped?: () => number;
  /** What the payout runner holds back (read from Redis at each scrape, so any API node has it). */
  readonly payoutWatch?: () => Promise<PayoutWatchSnapshot>;
  /** The stratum child processes (`stratum.processes` > 1): their states and restarts. */
  readonly stratumProcesses?: () => readonly StratumChildSnapshot[];
  /** What the pool owes, the wallet balance and payout batches (Redis and the wallet). */
  readonly solvency?: () => Promise<SolvencySnapshot>;
  /** Credited blocks a reorg deeper than confirmDepth replaced later (Redis). */
  readonly orphanedAfterCredit?: () => Promise<number>;
  /** Settled blocks orphaned after credit, and clawed-back ones restored awaiting a credit back (Redis). */
  readonly orphanSettlements?: () => Promise<{
    readonly settled: number;
    readonly restoredAfterClawback: number;
  }>;
  /** The lowest height of a block candidate not decided yet, or null (Redis). */
  readonly oldestUndecidedBlockHeight?: () => Promise<number | null>;
  /** Whether some process holds the leader lease (Redis). */
  readonly leaderPresent?: () => Promise<boolean>;
  /** Redis, daemon and wallet as /health judges them. */
  readonly dependencies?: () => Promise<DependencySnapshot>;
  /** The daemon's height and its peers' known height; null before the first getinfo. */
  readonly daemonChain?: () => DaemonChainSnapshot | null;
  /** The pool's last accepted share (ms), from Redis. */
  readonly lastShareMs?: () => Promise<number | null>;
}

/** One stratum child process, as the process group reports it. */
export interface StratumChildSnapshot {
  readonly state: string;
  readonly restarts: number;
}

const RPC_LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface PoolMetrics {
  readonly registry: Registry;
  /** Observes one daemon/wallet call; `errorCode` set when it failed. */
  observeRpc(service: 'daemon' | 'wallet', method: string, durationMs: number, errorCode?: string): void;
  /** Prometheus text exposition of everything. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Adds to `counter` (with `labels`) what `total` grew since the last call. */
function counterFrom(counter: Counter<string>) {
  const seen = new Map<string, number>();
  return (labels: Record<string, string>, total: number): void => {
    const key = JSON.stringify(labels);
    const previous = seen.get(key) ?? 0;
    // A restarted source (lower total) starts over; Prometheus handles counter resets itself.
    const delta = total >= previous ? total - previous : total;
    seen.set(key, total);
    if (delta > 0) counter.inc(labels, delta);
  };
}

/*
 * Each group below registers its metrics and returns what updates them from one snapshot. The
 * groups are registered in a fixed order: it is the order of the /metrics text.
 */

function stratumMetrics(registry: Registry) {
  const connections = gauge(registry, {
    name: 'fuego_pool_stratum_connections',
    help: 'Open stratum connections',
  });
  const refusedFrom = counterFrom(
    counter(registry, {
      name: 'fuego_pool_stratum_connections_refused_total',
      help: 'Stratum connections closed at once: per-ip-limit, per-network-limit (IPv6 aggregate), max-connections, shutting-down, admission-timeout',
      labelNames: ['reason'],
    }),
  );
  const sessions = gauge(registry, {
    name: 'fuego_pool_stratum_sessions',
    help: 'Logged-in stratum sessions',
  });
  // The API port's drops are set here too: one metric, labelled by server.
  const floodDropped = gauge(registry, {
    name: 'fuego_pool_flood_dropped_peers',
    help: 'Peers whose new connections the kernel drops now (floodDrop), by server: stratum, api',
    labelNames: ['server'],
  });
  const sync = (stratum: StratumMetricsSnapshot): void => {
    connections.set(stratum.connections.current);
    for (const [reason, total] of Object.entries(stratum.connections.refused))
      refusedFrom({ reason }, total ?? 0);
    sessions.set(stratum.sessions);
    floodDropped.set({ server: 'stratum' }, stratum.connections.floodDropped);
  };
  const apiFloodDropped = (peers: number): void => floodDropped.set({ server: 'api' }, peers);
  return Object.assign(sync, { apiFloodDropped });
}

/** Shares and blocks from the pool core; `blocks` also counts the unlocker's outcomes (events). */
function backendMetrics(registry: Registry) {
  const sharesFrom = counterFrom(
    counter(registry, {
      name: 'fuego_pool_shares_total',
      help: 'Submitted shares by result (accepted, stale = accepted in grace, else the refusal code)',
      labelNames: ['result'],
    }),
  );
  const blocks = counter(registry, {
    name: 'fuego_pool_blocks_total',
    help: 'Blocks by outcome (found, accepted, rejected, submit_error by the pool; confirmed, orphaned by the unlocker; orphaned_after_credit: a confirmed block a deeper reorg replaced later, counted confirmed first)',
    labelNames: ['outcome'],
  });
  const blocksFrom = counterFrom(blocks);
  const refusedBlocksFrom = counterFrom(
    counter(registry, {
      name: 'fuego_pool_blocks_refused_total',
      help: 'Blocks submitblock refused although the pool verified their proof of work, by the reason found afterwards (stale-tip, already-on-chain, pow-disagreement, unknown)',
      labelNames: ['reason'],
    }),
  );
  const jobsFrom = counterFrom(
    counter(registry, {
      name: 'fuego_pool_jobs_total',
      help: 'Jobs sent to miners, by blob: own (a blob of its own) or shared (a blob shared by up to 255 miners, each with its own top nonce byte: stratum.sharedJobs)',
      labelNames: ['blob'],
    }),
  );
  const setLastBroadcast = lastBroadcastMetrics(registry);
  const sync = (backend: PoolBackendMetrics): void => {
    setLastBroadcast(backend.lastBroadcastMs);
    jobsFrom({ blob: 'own' }, backend.jobsIssued - backend.jobsIssuedShared);
    jobsFrom({ blob: 'shared' }, backend.jobsIssuedShared);
    sharesFrom({ result: 'accepted' }, backend.sharesAccepted - backend.sharesStale);
    sharesFrom({ result: 'stale' }, backend.sharesStale);
    for (const [code, total] of Object.entries(backend.sharesRejected))
      sharesFrom({ result: code }, total ?? 0);
    blocksFrom({ outcome: 'found' }, backend.blocksFound);
    blocksFrom({ outcome: 'accepted' }, backend.blocksAccepted);
    blocksFrom({ outcome: 'rejected' }, backend.blocksRejected);
    blocksFrom({ outcome: 'submit_error' }, backend.blockSubmitErrors);
    for (const [reason, total] of Object.entries(backend.blocksRefused))
      refusedBlocksFrom({ reason }, total ?? 0);
  };
  return { sync, blocks };
}

function verifierMetrics(registry: Registry) {
  const hashTime = gauge(registry, {
    name: 'fuego_pool_hash_time_avg_seconds',
    help: 'Average cn/upx2 verification time per share',
  });
  const hashesFrom = counterFrom(
    counter(registry, {
      name: 'fuego_pool_hashes_verified_total',
      help: 'Shares hashed by the verifier pool',
    }),
  );
  const queueDepth = gauge(registry, {
    name: 'fuego_pool_verifier_queue_depth',
    help: 'Shares waiting for a verifier worker',
  });
  const setImplementation = powImplementationMetrics(registry);
  return (verifier: ShareVerifierPoolMetrics): void => {
    queueDepth.set(verifier.queueDepth);
    if (verifier.implementation !== null)
      setImplementation(verifier.implementation === 'typescript' ? 'reference' : 'native');
    hashTime.set(verifier.hashTimeMsAvg / 1000);
    hashesFrom({}, verifier.hashesTotal);
  };
}

function stratumProcessMetrics(registry: Registry) {
  const states = gauge(registry, {
    name: 'fuego_pool_stratum_processes',
    help: 'Stratum child processes by state (serving, starting, waiting-for-template, waiting-to-restart, stopped)',
    labelNames: ['state'],
  });
  const restartsFrom = counterFrom(
    counter(registry, {
      name: 'fuego_pool_stratum_process_restarts_total',
      help: 'Stratum child processes started again after they died',
    }),
  );
  return (children: readonly StratumChildSnapshot[]): void => {
    states.reset();
    for (const state of ['serving', 'starting', 'waiting-for-template', 'waiting-to-restart', 'stopped'])
      states.set({ state }, 0);
    for (const child of children) states.inc({ state: child.state });
    restartsFrom(
      {},
      children.reduce((sum, child) => sum + child.restarts, 0),
    );
  };
}

/** RPC latency and errors (observeRpc), payouts sent (events). */
function rpcAndPaymentMetrics(registry: Registry) {
  const rpcLatency = new Histogram({
    name: 'fuego_pool_rpc_duration_seconds',
    help: 'Daemon and wallet RPC call duration',
    labelNames: ['service', 'method'],
    buckets: RPC_LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const rpcErrors = counter(registry, {
    name: 'fuego_pool_rpc_errors_total',
    help: 'Failed daemon and wallet RPC calls by error code',
    labelNames: ['service', 'method', 'code'],
  });
  const payouts = counter(registry, { name: 'fuego_pool_payouts_total', help: 'Payout transactions sent' });
  const paidAtomic = counter(registry, {
    name: 'fuego_pool_paid_atomic_total',
    help: 'Atomic units paid to miners',
  });
  const observeRpc: PoolMetrics['observeRpc'] = (service, method, durationMs, errorCode) => {
    rpcLatency.observe({ service, method }, durationMs / 1000);
    if (errorCode !== undefined) rpcErrors.inc({ service, method, code: errorCode });
  };
  const paymentSent = (amountAtomic: bigint): void => {
    payouts.inc();
    paidAtomic.inc(Number(amountAtomic));
  };
  return { observeRpc, paymentSent };
}

/**
 * A dedicated registry (never prom-client's global one) with the pool's metrics: connections,
 * shares by result, hash time, verifier queue, template age, RPC latency and errors, blocks,
 * payouts, plus the process defaults (CPU, memory, event loop lag).
 */
export function createPoolMetrics(sources: MetricsSources, events?: PoolEventBus): PoolMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'fuego_pool_' });
  const syncStratum = stratumMetrics(registry);
  const backend = backendMetrics(registry);
  const syncVerifier = verifierMetrics(registry);
  const ledgerQueue = gauge(registry, {
    name: 'fuego_pool_share_ledger_pending',
    help: 'Shares queued or in flight to Redis',
  });
  const templateAge = gauge(registry, {
    name: 'fuego_pool_template_age_seconds',
    help: 'Seconds since the daemon last gave the block template being mined (an unchanged refresh counts)',
  });
  const liveClients = gauge(registry, {
    name: 'fuego_pool_live_feed_clients',
    help: 'Open WebSocket live feed connections',
  });
  const apiRefused = counterFrom(
    counter(registry, {
      name: 'fuego_pool_api_refused_total',
      help: 'API requests and live feed connections refused or dropped by a limit, by reason',
      labelNames: ['reason'],
    }),
  );
  const sourcesAvailable = gauge(registry, {
    name: 'fuego_pool_scrape_sources',
    help: 'Snapshot sources available to this process',
  });
  const syncProcesses = stratumProcessMetrics(registry);
  const { observeRpc, paymentSent } = rpcAndPaymentMetrics(registry);

  // Each source is read once per scrape, before the registry serialises (render()).
  const syncSnapshots = (): void => {
    let available = 0;
    const read = <T>(source: (() => T) | undefined, sync: (snapshot: T) => void): void => {
      const snapshot = source?.();
      if (snapshot === undefined) return;
      available += 1;
      sync(snapshot);
    };
    read(sources.backend, backend.sync);
    read(sources.verifier, syncVerifier);
    read(sources.shareLedger, (ledger) => ledgerQueue.set(ledger.queuedShares + ledger.inFlightShares));
    if (sources.templateAgeMs !== undefined) {
      // Counted while the process has a template source, even before its first template.
      available += 1;
      const age = sources.templateAgeMs();
      if (age !== undefined) templateAge.set(age / 1000);
    }
    read(sources.stratum, syncStratum);
    if (sources.apiFloodDropped !== undefined) syncStratum.apiFloodDropped(sources.apiFloodDropped());
    if (sources.liveFeedClients !== undefined) liveClients.set(sources.liveFeedClients());
    for (const [reason, total] of Object.entries(sources.apiRefusals?.() ?? {}))
      apiRefused({ reason }, total);
    read(sources.stratumProcesses, syncProcesses);
    sourcesAvailable.set(available);
  };
  const readStores = storeReadings(registry, sources);
  events?.subscribe('payment-sent', (payment) => paymentSent(payment.amountAtomic));
  events?.subscribe('block-confirmed', () => backend.blocks.inc({ outcome: 'confirmed' }));
  events?.subscribe('block-orphaned', () => backend.blocks.inc({ outcome: 'orphaned' }));
  events?.subscribe('block-orphaned-after-credit', () =>
    backend.blocks.inc({ outcome: 'orphaned_after_credit' }),
  );

  return {
    registry,
    contentType: registry.contentType,
    observeRpc,
    render: async () => {
      syncSnapshots();
      await readStores();
      return registry.metrics();
    },
  };
}

/**
 * How long a scrape waits for one source read over the network. Prometheus gives up on a scrape
 * after 10 s by default: a wallet holding its answer for the client's 30 s timeout must not take
 * every other metric down with it.
 */
const SCRAPE_SOURCE_WAIT_MS = 3_000;

/**
 * The sources read over the network at scrape time (Redis, the wallet), in parallel. A source
 * that fails, or has not answered within SCRAPE_SOURCE_WAIT_MS, leaves its gauges at their last
 * values (/health and fuego_pool_dependency_up say which dependency is away); a late answer is
 * applied when it comes, and until then later scrapes wait for that read rather than start another.
 */
function storeReadings(registry: Registry, sources: MetricsSources): () => Promise<void> {
  const setPayoutWatch = payoutWatchMetrics(registry);
  const setSolvency = solvencyMetrics(registry, Date.now);
  const setOrphanedAfterCredit = orphanedAfterCreditMetrics(registry);
  const setOrphanSettlements = orphanSettlementMetrics(registry);
  const setDependencies = dependencyMetrics(registry);
  const setDaemonChain = daemonChainMetrics(registry);
  const setLeader = leaderMetrics(registry);
  const setLastShare = lastShareMetrics(registry);
  const setUndecided = undecidedBlockMetrics(registry);
  let chainHeight: number | null = null;
  const inFlight = new Map<unknown, Promise<void>>();
  const read = async <T>(source: (() => Promise<T>) | undefined, sync: (value: T) => void) => {
    if (source === undefined) return;
    let reading = inFlight.get(source);
    if (reading === undefined) {
      reading = (async () => sync(await source()))()
        .catch(() => undefined) // kept at the last values (see above)
        .finally(() => inFlight.delete(source));
      inFlight.set(source, reading);
    }
    await waitAtMost(reading, SCRAPE_SOURCE_WAIT_MS);
  };
  return async () => {
    const chain = sources.daemonChain?.();
    if (chain !== undefined && chain !== null) {
      setDaemonChain(chain);
      chainHeight = chain.height;
    }
    await Promise.all([
      read(sources.payoutWatch, setPayoutWatch),
      read(sources.solvency, setSolvency),
      read(sources.orphanedAfterCredit, setOrphanedAfterCredit),
      read(sources.orphanSettlements, setOrphanSettlements),
      read(sources.dependencies, setDependencies),
      read(sources.leaderPresent, setLeader),
      read(sources.lastShareMs, setLastShare),
      read(sources.oldestUndecidedBlockHeight, (height) => setUndecided(height, chainHeight)),
    ]);
  };
}

/** Resolves when `work` settles or `waitMs` passed, whichever is first. */
async function waitAtMost(work: Promise<void>, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
