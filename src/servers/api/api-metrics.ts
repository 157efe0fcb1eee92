import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolEventBus } from '../../pool/events.js';
import type { PoolBackendMetrics } from '../../pool/pool-backend.js';
import type { ShareVerifierPoolMetrics } from '../../pow/verifier-pool.js';
import type { ShareLedgerMetrics } from '../../store/redis-share-ledger.js';
import type { StratumMetricsSnapshot } from '../stratum/stratum-metrics.js';

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
  /** What the payout runner holds back (read from Redis at each scrape, so any API node has it). */
  readonly payoutWatch?: () => Promise<PayoutWatchSnapshot>;
  /** The stratum child processes (`stratum.processes` > 1): their states and restarts. */
  readonly stratumProcesses?: () => ReadonlyArray<{ readonly state: string; readonly restarts: number }>;
}

/** Payouts held back and why, for alerting: nothing here may stay non-zero unnoticed. */
export interface PayoutWatchSnapshot {
  /** Miners due but not paid in the last pass, and what they are owed. */
  readonly heldMiners: number;
  readonly heldAtomic: bigint;
  /** Tagged wallet transactions Redis had no batch for, not resolved by the operator yet. */
  readonly unknownPayments: number;
  /** The wallet refused to build a transaction; payouts pause until this time (ms), or null. */
  readonly backoffUntilMs: number | null;
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

/**
 * A dedicated registry (never prom-client's global one) with the pool's metrics: connections,
 * shares by result, hash time, verifier queue, template age, RPC latency and errors, blocks,
 * payouts, plus the process defaults (CPU, memory, event loop lag).
 */
export function createPoolMetrics(sources: MetricsSources, events?: PoolEventBus): PoolMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'fuego_pool_' });

  const connections = new Gauge({
    name: 'fuego_pool_stratum_connections',
    help: 'Open stratum connections',
    registers: [registry],
  });
  const refused = new Counter({
    name: 'fuego_pool_stratum_connections_refused_total',
    help: 'Stratum connections closed at once: per-ip-limit, max-connections, shutting-down, admission-timeout',
    labelNames: ['reason'],
    registers: [registry],
  });
  const refusedFrom = counterFrom(refused);
  const sessions = new Gauge({
    name: 'fuego_pool_stratum_sessions',
    help: 'Logged-in stratum sessions',
    registers: [registry],
  });

  const shares = new Counter({
    name: 'fuego_pool_shares_total',
    help: 'Submitted shares by result (accepted, stale = accepted in grace, else the refusal code)',
    labelNames: ['result'],
    registers: [registry],
  });
  const sharesFrom = counterFrom(shares);
  const blocks = new Counter({
    name: 'fuego_pool_blocks_total',
    help: 'Blocks by outcome (found, accepted, rejected, submit_error by the pool; confirmed, orphaned by the unlocker)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const blocksFrom = counterFrom(blocks);
  const refusedBlocks = new Counter({
    name: 'fuego_pool_blocks_refused_total',
    help: 'Blocks submitblock refused although the pool verified their proof of work, by the reason found afterwards (stale-tip, already-on-chain, pow-disagreement, unknown)',
    labelNames: ['reason'],
    registers: [registry],
  });
  const refusedBlocksFrom = counterFrom(refusedBlocks);
  const hashTime = new Gauge({
    name: 'fuego_pool_hash_time_avg_seconds',
    help: 'Average cn/upx2 verification time per share',
    registers: [registry],
  });
  const hashes = new Counter({
    name: 'fuego_pool_hashes_verified_total',
    help: 'Shares hashed by the verifier pool',
    registers: [registry],
  });
  const hashesFrom = counterFrom(hashes);
  const queueDepth = new Gauge({
    name: 'fuego_pool_verifier_queue_depth',
    help: 'Shares waiting for a verifier worker',
    registers: [registry],
  });
  const ledgerQueue = new Gauge({
    name: 'fuego_pool_share_ledger_pending',
    help: 'Shares queued or in flight to Redis',
    registers: [registry],
  });
  const templateAge = new Gauge({
    name: 'fuego_pool_template_age_seconds',
    help: 'Age of the block template being mined',
    registers: [registry],
  });
  const liveClients = new Gauge({
    name: 'fuego_pool_live_feed_clients',
    help: 'Open WebSocket live feed connections',
    registers: [registry],
  });
  const sourcesAvailable = new Gauge({
    name: 'fuego_pool_scrape_sources',
    help: 'Snapshot sources available to this process',
    registers: [registry],
  });
  const processStates = new Gauge({
    name: 'fuego_pool_stratum_processes',
    help: 'Stratum child processes by state (serving, starting, waiting-to-restart, stopped)',
    labelNames: ['state'],
    registers: [registry],
  });
  const processRestarts = new Counter({
    name: 'fuego_pool_stratum_process_restarts_total',
    help: 'Stratum child processes started again after they died',
    registers: [registry],
  });
  const processRestartsFrom = counterFrom(processRestarts);
  const heldMiners = new Gauge({
    name: 'fuego_pool_payouts_held_miners',
    help: 'Miners due a payout but not paid in the last pass (fuego-pool report says why)',
    registers: [registry],
  });
  const heldAtomic = new Gauge({
    name: 'fuego_pool_payouts_held_atomic',
    help: 'Atomic units owed to the miners held in the last payout pass',
    registers: [registry],
  });
  const unknownPayments = new Gauge({
    name: 'fuego_pool_payout_unknown_transactions',
    help: 'Wallet transactions with the pool batch tag that Redis has no batch for, unresolved (see fuego-pool payout resolve)',
    registers: [registry],
  });
  const payoutBackoff = new Gauge({
    name: 'fuego_pool_payout_backoff',
    help: '1 while payouts pause after the wallet refused to build a transaction',
    registers: [registry],
  });
  const readPayoutWatch = async (): Promise<void> => {
    if (sources.payoutWatch === undefined) return;
    try {
      const watch = await sources.payoutWatch();
      heldMiners.set(watch.heldMiners);
      heldAtomic.set(Number(watch.heldAtomic));
      unknownPayments.set(watch.unknownPayments);
      payoutBackoff.set(watch.backoffUntilMs !== null && watch.backoffUntilMs > Date.now() ? 1 : 0);
    } catch {
      // Redis away: the gauges keep their last values; /health says Redis fails.
    }
  };
  // Each source is read once per scrape, before the registry serialises (render()).
  const syncSnapshots = (): void => {
    let available = 0;
    const backend = sources.backend?.();
    if (backend !== undefined) {
      available += 1;
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
    }
    const verifier = sources.verifier?.();
    if (verifier !== undefined) {
      available += 1;
      queueDepth.set(verifier.queueDepth);
      hashTime.set(verifier.hashTimeMsAvg / 1000);
      hashesFrom({}, verifier.hashesTotal);
    }
    const ledger = sources.shareLedger?.();
    if (ledger !== undefined) {
      available += 1;
      ledgerQueue.set(ledger.queuedShares + ledger.inFlightShares);
    }
    if (sources.templateAgeMs !== undefined) {
      available += 1;
      const age = sources.templateAgeMs();
      if (age !== undefined) templateAge.set(age / 1000);
    }
    const stratum = sources.stratum?.();
    if (stratum !== undefined) {
      available += 1;
      connections.set(stratum.connections.current);
      for (const [reason, total] of Object.entries(stratum.connections.refused))
        refusedFrom({ reason }, total ?? 0);
      sessions.set(stratum.sessions);
    }
    if (sources.liveFeedClients !== undefined) liveClients.set(sources.liveFeedClients());
    const children = sources.stratumProcesses?.();
    if (children !== undefined) {
      available += 1;
      processStates.reset();
      for (const state of ['serving', 'starting', 'waiting-to-restart', 'stopped'])
        processStates.set({ state }, 0);
      for (const child of children) processStates.inc({ state: child.state });
      processRestartsFrom(
        {},
        children.reduce((sum, child) => sum + child.restarts, 0),
      );
    }
    sourcesAvailable.set(available);
  };

  const rpcLatency = new Histogram({
    name: 'fuego_pool_rpc_duration_seconds',
    help: 'Daemon and wallet RPC call duration',
    labelNames: ['service', 'method'],
    buckets: RPC_LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const rpcErrors = new Counter({
    name: 'fuego_pool_rpc_errors_total',
    help: 'Failed daemon and wallet RPC calls by error code',
    labelNames: ['service', 'method', 'code'],
    registers: [registry],
  });
  const payouts = new Counter({
    name: 'fuego_pool_payouts_total',
    help: 'Payout transactions sent',
    registers: [registry],
  });
  const paidAtomic = new Counter({
    name: 'fuego_pool_paid_atomic_total',
    help: 'Atomic units paid to miners',
    registers: [registry],
  });
  events?.subscribe('payment-sent', (payment) => {
    payouts.inc();
    paidAtomic.inc(Number(payment.amountAtomic));
  });
  events?.subscribe('block-confirmed', () => blocks.inc({ outcome: 'confirmed' }));
  events?.subscribe('block-orphaned', () => blocks.inc({ outcome: 'orphaned' }));

  return {
    registry,
    contentType: registry.contentType,
    observeRpc(service, method, durationMs, errorCode) {
      rpcLatency.observe({ service, method }, durationMs / 1000);
      if (errorCode !== undefined) rpcErrors.inc({ service, method, code: errorCode });
    },
    render: async () => {
      syncSnapshots();
      await readPayoutWatch();
      return registry.metrics();
    },
  };
}

/**
 * Wraps an RPC client so that every async method call is timed into `metrics` (name = method).
 * The client itself stays unaware of metrics; the composition root wraps DaemonClient/WalletClient.
 */
export function instrumentRpcClient<T extends object>(
  client: T,
  service: 'daemon' | 'wallet',
  metrics: PoolMetrics,
): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'close') return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (answer) => {
            metrics.observeRpc(service, property, performance.now() - started);
            return answer;
          },
          (error: unknown) => {
            const code = (error as { code?: unknown } | null)?.code;
            metrics.observeRpc(
              service,
              property,
              performance.now() - started,
              typeof code === 'string' ? code : 'UNKNOWN',
            );
            throw error;
          },
        );
      };
    },
  });
}
